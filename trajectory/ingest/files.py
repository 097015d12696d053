"""Ingest's entry: files and bytes in, one all-or-nothing batch each.

A batch is staged in chunks and its rules checked over columns (staging.py, rules.py), then
committed once (batchplan.py): the one pipeline every way in uses (``traj ingest``, the
recorder, the importers, the Ray engine).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

from trajectory.errors import SchemaError, TrajError
from trajectory.ingest.batchplan import Workers, ingest_chunks, ingest_events
from trajectory.ingest.plain import DEFAULT_LIMITS, IngestReport, Limits, Progress, SplitResolver
from trajectory.ingest.staging import Chunk, chunks_of_bytes, chunks_of_file
from trajectory.store.delta import Store

__all__ = ["Workers", "ingest_bytes", "ingest_events", "ingest_files"]


def ingest_bytes(
    store: Store,
    data: bytes,
    source: str,
    limits: Limits = DEFAULT_LIMITS,
    split_of: SplitResolver | None = None,
    workers: Workers | None = None,
    chunk_bytes: int | None = None,
    progress: Progress | None = None,
) -> IngestReport:
    """Validate and append one batch; all of it or nothing. Durable when this returns.

    The batch is staged in chunks of ``chunk_bytes`` (on ``workers`` processes when given and
    there are several chunks) and committed once; see batchplan.py.
    """
    return _ingest(store, chunks_of_bytes(data, chunk_bytes), source, limits, split_of, workers, progress)


def _ingest(
    store: Store,
    chunks: list[Chunk],
    source: str,
    limits: Limits,
    split_of: SplitResolver | None,
    workers: Workers | None,
    progress: Progress | None = None,
) -> IngestReport:
    if split_of is None:  # the pool is resolved once, here, whoever ingests (recorder, importers)
        from trajectory.catalog.pools import Pools

        split_of = Pools(store).split_of
    own = workers is None
    workers = workers or Workers(1)
    try:
        return ingest_chunks(store, chunks, source, limits, split_of, workers, IngestReport(source), progress)
    finally:
        if own:
            workers.close()


def ingest_files(
    store: Store,
    names: Sequence[str],
    limits: Limits = DEFAULT_LIMITS,
    split_of: SplitResolver | None = None,
    workers: int | None = None,
    then: Callable[[Callable[[], bytes], str, IngestReport], None] | None = None,
    progress: Callable[[str, int, int], None] | None = None,
) -> Iterator[tuple[str, IngestReport | TrajError]]:
    """Ingest files (``-`` is standard input), each its own batch; a refused one does not stop
    the others: each yields its report or the error that refused it (and tells progress).
    ``then(read, source, report)`` is called after each accepted batch (``traj ingest
    --trust-judgements`` registers the file's judgement runs there: trajectory/judging/trust.py)."""
    import sys
    from pathlib import Path

    with Workers(workers) as pool:
        for name in names:
            told = None if progress is None else (lambda done, total, name=name: progress(name, done, total))
            try:
                if name == "-":
                    data = sys.stdin.buffer.read()
                    read, source = (lambda: data), "<stdin>"
                    report = ingest_bytes(store, data, source, limits, split_of, pool, progress=told)
                else:
                    path = Path(name)
                    if not path.is_file():
                        raise SchemaError(f"{name}: no such file")
                    read, source = path.read_bytes, name
                    # Each worker reads its own chunks of the file: the file is never all in memory.
                    report = _ingest(store, chunks_of_file(str(path)), name, limits, split_of, pool, told)
                if then is not None:
                    then(read, source, report)
                yield name, report
            except TrajError as exc:
                yield name, exc
