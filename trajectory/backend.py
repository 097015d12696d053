"""The store backend contract: where a store's bytes live and how a write becomes durable.

:class:`trajectory.store.Store` holds the rules (formats, idempotency, conflict checks, passes);
a backend holds the bytes. Every operation the store needs goes through this interface, so a
store on another medium is a new backend and nothing else — ``tests/test_backend_contract.py``
is the one contract test class every backend runs.

The operations:

- small files of traj's own (the format marker ``traj-store.json``): read whole, or replaced
  atomically (a reader sees the old or the new content, never a torn one);
- Delta tables: whether one exists, opening one at a version (time travel), appending rows in
  one atomic commit that is durable when the call returns, compacting small files in a commit
  that changes no row;
- the writer lock: a section that at most one writer of the store is in at a time, held by the
  appends that depend on what they read before (ingest's idempotency and seq checks, which
  make "append with conflict check" one step). A local backend uses an advisory file lock that
  the kernel releases when its holder dies; a backend on object storage would take a lease
  object created with a conditional put;
- the journal folder of live recorders: always a local folder (a harness fsyncs each event
  before going on), for an object-storage store a local spool beside the harness.
"""

from __future__ import annotations

import abc
from collections.abc import Iterable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import pyarrow as pa

from .diskfault import held_native_stderr


class Backend(abc.ABC):
    """One store's medium. ``str(backend)`` names it for messages."""

    #: Options for delta-rs and object_store (credentials, endpoint); None for a local folder.
    storage_options: dict[str, str] | None = None

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

    def open_table(self, name: str, version: int | None = None) -> Any:
        """The Delta table ``name`` as of ``version`` (latest by default), or None."""
        from deltalake import DeltaTable

        if not self.has_table(name):
            return None
        return DeltaTable(self.table_uri(name), version=version, storage_options=self.storage_options)

    @abc.abstractmethod
    def append(self, name: str, data: pa.Table | pa.RecordBatchReader) -> int:
        """Append rows in one atomic commit, durable when this returns; the new version."""

    def compact(self, name: str) -> dict[str, Any]:
        """Merge small files in one commit that changes no row."""
        dt = self.open_table(name)
        if dt is None:
            return {"table": name, "files_before": 0, "files_after": 0}
        before = len(dt.file_uris())
        with held_native_stderr():  # a panic report on a full disk: the CLI says it in one line
            metrics = dt.optimize.compact()
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
