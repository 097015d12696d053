"""The store backend contract: where a store's bytes live and how a write becomes durable.

:class:`trajectory.store.delta.Store` holds the rules (formats, idempotency, conflict checks, passes);
a backend holds the bytes. Every operation the store needs goes through this interface, so a
store on another medium is a new backend and nothing else — ``tests/store/test_backend_contract.py``
is the one contract test class every backend runs.

The operations:

- small files of traj's own (the format marker ``traj-store.json``): read whole, or replaced
  atomically (a reader sees the old or the new content, never a torn one);
- Delta tables: whether one exists, opening one at a version (time travel), appending rows in
  one atomic commit that is durable when the call returns, compacting small files in a commit
  that changes no row;
- a conditional append: "commit only if the table is still at the version I read" (``after``).
  An append that depends on what it read (ingest's idempotency and seq checks) reads at a
  version, decides, and commits with ``after`` set to that version; when another writer
  committed first, :class:`CommitConflict` is raised, nothing becomes visible, and the caller
  reads again and decides again. Delta's log makes this one conditional create of the next
  log entry (If-None-Match on object storage), so no lock service is needed;
- the writer lock: on a local folder, an advisory file lock that the kernel releases when its
  holder dies, held around read-check-append so that the conditional append never loses there
  (``serialised`` is True). On object storage there is no lock (``lock()`` admits everyone):
  the conditional append is the whole check;
- the journal folder of live recorders: always a local folder (a harness fsyncs each event
  before going on), for an object-storage store a local spool beside the harness
  (trajectory/store/objstore.py).
"""

from __future__ import annotations

import abc
from collections.abc import Iterable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.dataset as pads

from trajectory.runtime.diskfault import held_native_stderr
from trajectory.errors import StoreError


class CommitConflict(StoreError):
    """Another writer committed to the table after the version a conditional append read."""


class Backend(abc.ABC):
    """One store's medium. ``str(backend)`` names it for messages (never its credentials)."""

    #: Options for delta-rs and object_store (credentials, endpoint); None for a local folder.
    storage_options: dict[str, str] | None = None
    #: Whether the table files are paths on this machine (DuckDB reads them itself); otherwise
    #: they are read through Arrow datasets over delta-rs's object store.
    local: bool = True
    #: Whether :meth:`lock` admits one writer at a time (else conditional appends decide).
    serialised: bool = True

    # -- small files ---------------------------------------------------------------------------
    @abc.abstractmethod
    def read_file(self, name: str) -> bytes | None:
        """A small file's bytes, or None when there is none."""

    @abc.abstractmethod
    def write_file(self, name: str, data: bytes) -> None:
        """Create or replace a small file atomically."""

    # -- tables --------------------------------------------------------------------------------
    @abc.abstractmethod
    def table_uri(self, name: str) -> str:
        """What table libraries (delta-rs, DuckDB, Polars) are given for table ``name``."""

    @abc.abstractmethod
    def has_table(self, name: str) -> bool:
        """Whether table ``name`` has its first commit (a folder without one is no table)."""

    def table_files(self, dt: Any) -> list[str]:
        """The data files of the open Delta table ``dt``, as DuckDB and Arrow are to be given them."""
        return list(dt.file_uris())

    def open_table(self, name: str, version: int | None = None) -> Any:
        """The Delta table ``name`` as of ``version`` (latest by default), or None."""
        from deltalake import DeltaTable

        if not self.has_table(name):
            return None
        return DeltaTable(self.table_uri(name), version=version, storage_options=self.storage_options)

    def dataset(self, name: str, schema: pa.Schema, version: int | None = None) -> pads.Dataset:
        """Table ``name`` (as of ``version``) as an Arrow dataset read with ``schema`` (a column
        added to the declaration since a file was written reads null there)."""
        dt = self.open_table(name, version)
        if dt is None:
            return pads.dataset([], schema=schema, format="parquet")
        ds = dt.to_pyarrow_dataset()
        return pads.dataset(list(ds.files), schema=schema, format="parquet", filesystem=ds.filesystem)

    @abc.abstractmethod
    def append(self, name: str, data: pa.Table | pa.RecordBatchReader, *, after: int | None = None) -> int:
        """Append rows in one atomic commit, durable when this returns; the new version.

        ``after``: commit only if the table is still at this version (-1: it does not exist
        yet); otherwise raise :class:`CommitConflict` and make nothing visible.
        """

    def compact(self, name: str) -> dict[str, Any]:
        """Merge small files in one commit that changes no row.

        Two compactions at once both remove the same small files: Delta refuses the second
        commit, which then compacts again what is left (appends meanwhile never conflict).
        """
        from deltalake.exceptions import CommitFailedError

        for attempt in range(COMMIT_ATTEMPTS):
            dt = self.open_table(name)
            if dt is None:
                return {"table": name, "files_before": 0, "files_after": 0}
            before = len(dt.file_uris())
            try:
                with held_native_stderr():  # a panic report on a full disk: the CLI says it in one line
                    metrics = dt.optimize.compact()
                break
            except CommitFailedError:
                backoff(attempt)
        else:
            raise StoreError(f"{self}/{name}: compaction kept conflicting with other writers; try again")
        dt = self.open_table(name)
        self.committed(name, dt.version())
        return {
            "table": name,
            "files_before": before,
            "files_after": len(dt.file_uris()),
            "files_added": metrics.get("numFilesAdded", 0),
            "files_removed": metrics.get("numFilesRemoved", 0),
            "version": dt.version(),
        }

    def committed(self, name: str, version: int) -> None:
        """Make commit ``version`` of ``name`` durable (for media whose writes are not already)."""

    # -- writers -------------------------------------------------------------------------------
    @abc.abstractmethod
    def lock(self) -> AbstractContextManager[None]:
        """The store's writer lock (see the module docstring)."""

    @abc.abstractmethod
    def journal_dir(self) -> Path:
        """The local folder of live recorders' journals."""

    @abc.abstractmethod
    def exists_any(self) -> bool:
        """Whether anything of a store is there (a format-0 store has tables but no marker)."""


#: How many times a writer tries a commit that other writers keep beating (each try reads again).
COMMIT_ATTEMPTS = 60


def backoff(attempt: int) -> None:
    """Wait before trying a lost commit again: growing, with jitter so that the losers of one
    race do not meet again in the next."""
    import random
    import time

    time.sleep(random.uniform(0, min(1.0, 0.02 * 2 ** min(attempt, 6))))


def delta_append(
    backend: Backend, name: str, data: pa.Table | pa.RecordBatchReader, after: int | None, mode: str = "append"
) -> None:
    """One append (or ``overwrite``) commit with delta-rs; with ``after``, only on top of that
    version.

    delta-rs retries a lost commit on top of the winner's when the two do not conflict
    logically (appends never do); a conditional append must not be moved, so it gets no
    retries: the next log entry is created only if absent, or the append is refused.
    """
    from deltalake import CommitProperties, DeltaTable, write_deltalake
    from deltalake.exceptions import CommitFailedError, DeltaError

    uri = backend.table_uri(name)
    target: Any = uri
    props = None
    if after is not None:
        props = CommitProperties(max_commit_retries=0)
        if after >= 0:
            target = DeltaTable(uri, version=after, storage_options=backend.storage_options)
        else:
            mode = "error"  # the first commit, or a conflict with whoever made it
    try:
        write_deltalake(
            target,
            data,
            mode=mode,  # type: ignore[arg-type]
            # A column added to the declaration joins an older table on its next append.
            schema_mode="merge",
            storage_options=backend.storage_options,
            commit_properties=props,
            writer_properties=writer_properties(),
        )
    except CommitFailedError as exc:
        raise CommitConflict(f"{backend}/{name}: another writer committed first") from exc
    except DeltaError as exc:
        if after is not None and "already exists" in str(exc):
            raise CommitConflict(f"{backend}/{name}: another writer created the table first") from exc
        raise


#: Rows per Parquet row group of the store's files. Smaller than delta-rs's default (one group
#: per ~1M rows), so that a scan can skip by statistics (the events of one kind, a range of
#: runs; see trajectory/ingest.sort_for_layout) and DuckDB can read one file on several threads.
ROW_GROUP_ROWS = 64 * 1024


def writer_properties():  # noqa: ANN201 - deltalake.WriterProperties
    """How every backend writes Parquet files for delta-rs."""
    from deltalake import WriterProperties

    return WriterProperties(max_row_group_size=ROW_GROUP_ROWS, compression="SNAPPY")


def write_batches(batches: Iterable[pa.RecordBatch], schema: pa.Schema) -> pa.RecordBatchReader:
    """Record batches in a table's schema, as one reader (empty batches left out)."""

    def cast() -> Iterable[pa.RecordBatch]:
        for batch in batches:
            if batch.num_rows:
                yield pa.Table.from_batches([batch]).select(schema.names).cast(schema).to_batches()[0]

    return pa.RecordBatchReader.from_batches(schema, cast())
