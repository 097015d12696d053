"""Ingest's one pipeline: a batch staged, its rules checked once, committed once or not at all.

A file is staged in chunks, in parallel (staging.py: each line decoded and checked by the line
rules, its stored form, hash and typed columns built, written to a staged Arrow file); the
batch's rules are then checked over the columns the chunks gave back (rules.py), and the
staged rows are appended in one commit, or nothing is. Events already built (the recorder, the
importers, a Ray worker's lines) enter at :func:`ingest_events` and meet the same rules and
the same commit. A refusal is the list of located problems the rules returned, worded there.

On a local store the writer lock makes deciding and committing one step; on object storage
the commit is conditional and the batch is decided again if another writer may have written
its runs meanwhile (Store.append_decided).
"""

from __future__ import annotations

import concurrent.futures as cf
import os
import uuid
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from trajectory import events as ev
from trajectory.runtime import interrupts, pools
from trajectory.errors import LimitError, SchemaError
from trajectory.ingest import rules
from trajectory.ingest.plain import MAX_REPORTED, IngestReport, Limits, Parsed, SplitResolver, _one_line, _refusal
from trajectory.ingest.rows import finish, rows, sort_for_layout
from trajectory.ingest.staging import Chunk, Staged, stage
from trajectory.store.delta import Store
from trajectory.store.tables import EVENTS_SCHEMA
from trajectory.text import plural


#: A batch smaller than this is staged in this process: a worker spends about a second
#: importing what staging needs, as long as staging 8 MiB takes here.
PARALLEL_FROM = 8 << 20


class Workers:
    """A pool of staging processes, started once and used for every file of a command (spawned,
    deaf to Ctrl-C, torn down at once if the command is interrupted: trajectory.runtime.pools)."""

    def __init__(self, n: int | None = None):
        self.n = max(1, n if n is not None else (os.cpu_count() or 1))
        self._pool: cf.ProcessPoolExecutor | None = None

    def _submit(self, fn: Callable[..., Staged], item: Any) -> cf.Future[Staged]:
        with pools.spawning():  # a submit may start a worker
            if self._pool is None:
                self._pool = pools.spawned_pool(self.n)
            return self._pool.submit(fn, item)

    def map(self, fn: Callable[..., Staged], items: Sequence[Any], *, here: bool = False) -> Iterator[Staged]:
        """``fn`` over ``items``, results in any order; at most two items per worker are in
        flight (an item may carry a chunk's bytes, and they are not all held at once).
        ``here``: in this process (work too small to pay for starting workers)."""
        if here or self.n == 1 or len(items) < 2:
            yield from (fn(item) for item in items)
            return
        todo = iter(items)
        running: set[cf.Future[Staged]] = set()
        for item in todo:
            running.add(self._submit(fn, item))
            if len(running) >= 2 * self.n:
                done, running = cf.wait(running, return_when=cf.FIRST_COMPLETED)
                yield from (f.result() for f in done)
        for f in cf.as_completed(running):
            yield f.result()

    def close(self, *, now: bool = False) -> None:
        if self._pool is not None:
            if now:
                pools.tear_down(self._pool)
            else:
                self._pool.shutdown()
            self._pool = None

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, kind: Any, *exc: Any) -> None:
        self.close(now=kind is not None)


class _tasks(Sequence):  # noqa: N801 - a lazy sequence of staging tasks
    """The staging tasks of a file's chunks, made one at a time as the pool takes them (a
    chunk of given bytes is a copy of its slice)."""

    def __init__(self, chunks: list[Chunk], folder: str, limits: Any):
        self.chunks, self.folder, self.limits = chunks, folder, limits

    def __len__(self) -> int:
        return len(self.chunks)

    def __getitem__(self, i: Any) -> Any:
        return (self.chunks[i].materialized(), self.folder, self.limits)


def _stage_one(args: tuple[Chunk, str, Any]) -> Staged:
    chunk, folder, limits = args
    return stage(chunk, folder, limits)


def ingest_chunks(
    store: Store,
    chunks: list[Chunk],
    source: str,
    limits: Limits,
    split_of: SplitResolver | None,
    workers: Workers,
    report: IngestReport,
    progress: Callable[[int, int], None] | None = None,
) -> IngestReport:
    """Stage, check and commit one file's chunks; the filled-in ``report``. Raises the
    refusal: the first problems of the file's lines, or of its batch rules."""
    with interrupts.scratch_folder("traj-stage-") as folder:
        staged = []
        lines = 0
        if progress is not None:
            progress(0, None)  # the file's name on the bar while its first chunks are staged
        small = sum(c.size for c in chunks) < PARALLEL_FROM
        try:
            for one in workers.map(_stage_one, _tasks(chunks, folder, limits), here=small):
                staged.append(one)
                lines += one.newlines
                if progress is not None:
                    progress(lines, None)
        except BaseException:
            # Ctrl-C or a failed chunk: chunks still being staged would write into the folder
            # as it is removed, and keep it.
            workers.close(now=True)
            raise
        staged.sort(key=lambda s: s.index)
        # Line numbers: a chunk's first line is the next after the previous chunks' newlines.
        offsets = np.concatenate(([0], np.cumsum([s.newlines for s in staged])))[:-1].tolist()
        n_problems = sum(s.n_problems for s in staged)
        if n_problems:
            problems = [
                _one_line(f"{source}:{offset + line + 1}: {message}")
                for s, offset in zip(staged, offsets)
                for line, message in s.problems
            ][:MAX_REPORTED]
            over = sum(s.over_limit for s in staged)
            raise _refusal(LimitError if over == n_problems else SchemaError, problems, n_problems)
        if not any(s.meta is not None and s.meta.num_rows for s in staged):
            return report
        batch, order = _staged_batch(staged, offsets)
        meta = batch.meta
        report.events = meta.num_rows
        report.runs = len(pc.unique(meta.column("run_id")))
        sizes = [s.meta.num_rows if s.meta is not None else 0 for s in staged]

        def decided(version: int | None) -> rules.Decision:
            decision = rules.decide(store, batch, limits, split_of, version)
            if decision.problems:
                raise rules.refusal(decision.problems, source)
            n_new = int(decision.new.sum())
            report.new, report.present = n_new, meta.num_rows - n_new
            report.new_runs = int((decision.new & (meta.column("seq").to_numpy() == 0)).sum())
            report.commit_id = uuid.uuid4().hex if n_new else None
            return decision

        def staged_rows(decision: rules.Decision, keep: bool) -> Iterator[pa.RecordBatch]:
            in_staged = np.empty(meta.num_rows, dtype=bool)  # staged rows are in the table's layout
            in_staged[order] = decision.new
            assert report.commit_id is not None
            return _rows(staged, _split(in_staged, sizes), decision.infos, report.commit_id, keep=keep)

        if not store.exists:
            # Into a new store the batch is checked before the lock creates its folder: a
            # refused first batch leaves none (it is decided again under the lock).
            decided(-1)
        if store.backend.serialised:
            with store.lock():
                decision = decided(None)
                if report.new:
                    with interrupts.committing():  # the commit and its note: one step for Ctrl-C
                        # One chunk's rows in memory at a time.
                        report.version = store.append("events", staged_rows(decision, keep=False))
                        interrupts.note(f"{source} ({plural(report.new, 'new event')})")
            return report

        def decide(version: int) -> pa.Table | None:  # the batch against the events as of version
            decision = decided(version)
            if not report.new:
                return None
            return pa.Table.from_batches(list(staged_rows(decision, keep=True)), schema=EVENTS_SCHEMA)

        report.version = store.append_decided(
            "events", decide, source, keys=("run_id", set(pc.unique(meta.column("run_id")).to_pylist())),
            note=lambda: f"{source} ({plural(report.new, 'new event')})",
        )
    return report


def ingest_events(
    store: Store,
    parsed: list[Parsed],
    source: str,
    limits: Limits | None = None,
    split_of: SplitResolver | None = None,
) -> IngestReport:
    """Validated events (plain.parse's, in batch order) checked by the batch rules and appended
    in one commit; all of them or nothing. Durable when this returns."""
    from trajectory.ingest.plain import DEFAULT_LIMITS

    limits = limits or DEFAULT_LIMITS
    report = IngestReport(source, runs=len({p.event.run_id for p in parsed}), events=len(parsed))
    if not parsed:
        return report
    if split_of is None:  # the pool is resolved once, here, whoever ingests (recorder, importers)
        from trajectory.catalog.pools import Pools

        split_of = Pools(store).split_of
    batch = parsed_batch(parsed)
    if not store.exists:
        # Into a new store the batch is checked before the lock creates its folder: a refused
        # first batch leaves none (it is decided again under the lock).
        decide_rows(store, batch, parsed, source, limits, split_of, -1, report)

    def decide(version: int) -> pa.Table | None:  # the batch against the events as of version
        return decide_rows(store, batch, parsed, source, limits, split_of, version, report)

    report.version = store.append_decided(
        "events", decide, source, keys=("run_id", {p.event.run_id for p in parsed}),
        note=lambda: f"{source} ({plural(report.new, 'new event')})",
    )
    return report


def parsed_batch(parsed: Sequence[Parsed]) -> rules.Batch:
    """The rules' view of a list of parsed events."""
    meta = pa.table({
        "line": pa.array([p.line for p in parsed], pa.int64()),
        "run_id": pa.array([p.event.run_id for p in parsed], pa.string()),
        "seq": pa.array([p.event.seq for p in parsed], pa.int64()),
        "kind": pa.array([type(p.event).__struct_config__.tag for p in parsed], pa.string()),
        "hash": pa.array([p.hash for p in parsed], pa.string()),
    })
    at = [i for i, p in enumerate(parsed) if isinstance(p.event, ev.RunStarted)]
    starts = rules.starts_table(at, [parsed[i].event for i in at])  # type: ignore[misc]
    return rules.Batch(meta, starts, lambda which: {i: parsed[i].event for i in which})


def decide_rows(store: Store, batch: rules.Batch, parsed: Sequence[Parsed], source: str, limits: Limits,
                split_of: SplitResolver | None, version: int | None, report: IngestReport | None = None) -> pa.Table | None:
    """The rows to append for ``parsed`` as of ``version`` (None: nothing new), or the refusal."""
    decision = rules.decide(store, batch, limits, split_of, version)
    if decision.problems:
        raise rules.refusal(decision.problems, source)
    which = np.flatnonzero(decision.new).tolist()
    if report is not None:
        report.present = len(parsed) - len(which)
        report.new = len(which)
        report.new_runs = sum(1 for i in which if parsed[i].event.seq == 0)
        report.commit_id = uuid.uuid4().hex if which else None
    if not which:
        return None
    infos = {row.pop("run_id"): row for row in decision.infos.to_pylist()}
    new = [(parsed[i], infos[parsed[i].event.run_id]) for i in which]
    return sort_for_layout(rows(new, report.commit_id if report is not None else uuid.uuid4().hex))


def _staged_batch(staged: list[Staged], offsets: list[int]) -> tuple[rules.Batch, np.ndarray]:
    """The rules' view of a staged file (rows in line order), and each row's place among the
    staged rows (which are in the table's layout, chunk after chunk)."""
    shift = [(s, pa.scalar(offset + 1, pa.int64())) for s, offset in zip(staged, offsets)]
    flat = pa.concat_tables(
        s.meta.set_column(0, "line", pc.add(s.meta.column("line"), o)) for s, o in shift if s.meta is not None and s.meta.num_rows)
    order = pc.sort_indices(flat, sort_keys=[("line", "ascending")]).to_numpy()
    meta = flat.take(order).combine_chunks()
    line_of = meta.column("line").to_numpy()
    starts = pa.concat_tables([s.starts.set_column(0, "line", pc.add(s.starts.column("line"), o))
                               for s, o in shift if s.starts is not None and s.starts.num_rows]
                              or [rules._starts_schema().empty_table().rename_columns(
                                  ["line", *rules._starts_schema().names[1:]])])
    rows_of = np.searchsorted(line_of, starts.column("line").to_numpy())
    starts = starts.set_column(0, "row", pa.array(rows_of, pa.int64()))

    def events(which: Sequence[int]) -> dict[int, ev.Event]:
        """The events of these rows, decoded from their staged data (only rows a rule needs)."""
        if not len(which):
            return {}
        wanted = pa.array(line_of[np.asarray(which, dtype=np.int64)], pa.int64())
        found: dict[int, bytes] = {}
        for s, o in shift:
            for table in (s.worlds,):
                if table is None or not table.num_rows:
                    continue
                lines = pc.add(table.column("line"), o)
                hit = pc.is_in(lines, value_set=wanted)
                for line, data in zip(lines.filter(hit).to_pylist(), table.column("data").filter(hit).to_pylist()):
                    found[line] = data
        if len(found) < len(wanted) and any(s.path for s, _ in shift):
            for s, o in shift:
                if s.path is None or not os.path.exists(s.path):
                    continue
                with pa.OSFile(s.path, "rb") as f:
                    table = pa.ipc.open_file(f).read_all().select(["line", "data"])
                lines = pc.add(table.column("line"), o)
                hit = pc.is_in(lines, value_set=wanted)
                for line, data in zip(lines.filter(hit).to_pylist(), table.column("data").filter(hit).to_pylist()):
                    found[line] = data
        return {i: ev.decode(found[int(line_of[i])]) for i in which}

    return rules.Batch(meta, starts, events), order


def _split(flat: np.ndarray, sizes: list[int]) -> list[np.ndarray]:
    bounds = np.cumsum([0, *sizes])
    return [flat[a:b] for a, b in zip(bounds[:-1], bounds[1:])]


def _rows(staged: list[Staged], masks: list[np.ndarray], infos: pa.Table, commit_id: str,
          keep: bool = False) -> Iterator[pa.RecordBatch]:
    """The new rows of each staged chunk, completed and in the table's layout, one chunk at a
    time (only one chunk's rows are in memory at once)."""
    run_names = [n for n in infos.column_names if n != "run_id"]
    for s, mask in zip(staged, masks):
        if s.path is None or not mask.any():
            continue
        with pa.OSFile(s.path, "rb") as source:
            table = pa.ipc.open_file(source).read_all()
        if not keep:
            os.unlink(s.path)
        if not mask.all():
            table = table.filter(pa.array(mask))  # the layout's order survives a filter
        where = pc.index_in(table.column("run_id"), value_set=infos.column("run_id"))
        cols = {name: table.column(name) for name in table.column_names if name != "line"}
        for name in run_names:
            cols[name] = infos.column(name).take(where)
        yield from finish(cols, table.num_rows, commit_id, EVENTS_SCHEMA).to_batches()
