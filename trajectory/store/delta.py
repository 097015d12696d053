"""The store: append-only Delta Lake tables of Parquet files, on a backend.

Why Delta Lake (delta-rs, no JVM): its commit log gives exactly what an event store promises —
an append is one atomic commit (a new numbered log entry created only if absent), every earlier
version stays readable (time travel), and ``optimize.compact`` rewrites small files in a commit
that changes no row. DuckDB, Polars, Spark and Trino read the same files.

The store holds the rules (its format, the tables and their schemas, the writer lock around
check-then-append); where the bytes live is its backend (trajectory/store/backend.py: a local folder,
trajectory/store/local.py, or object storage, trajectory/store/objstore.py).
"""

from __future__ import annotations

import datetime as _dt
import json
import logging
import os
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as pads

from trajectory.runtime import interrupts
from trajectory.store.backend import COMMIT_ATTEMPTS, Backend, CommitConflict, backoff, write_batches
from trajectory.errors import NotFound, StoreError
from trajectory.store.local import LocalBackend, Location
from trajectory.text import hint
from trajectory.store.tables import (  # noqa: F401 - the store's schemas, re-exported for callers
    CHECK_TYPE,
    EVENTS_SCHEMA,
    META_SCHEMA,
    OVERRIDES_SCHEMA,
    PASSES_SCHEMA,
    TABLES,
    VERDICTS_SCHEMA,
)

STORE_FORMAT = 1
log = logging.getLogger("trajectory.store")
FORMAT_FILE = "traj-store.json"


def now_utc() -> _dt.datetime:
    return _dt.datetime.now(_dt.timezone.utc)


def default_store_path() -> str:
    """``$TRAJ_STORE``, else ``./traj-store``: the rule every command follows without --store."""
    return os.environ.get("TRAJ_STORE") or "traj-store"


def backend_for(
    root: str | os.PathLike[str] | Backend | None, storage_options: dict[str, str] | None = None
) -> Backend:
    """The backend a ``--store`` value names: object storage for a URI such as
    ``s3://bucket/prefix`` (``storage_options`` over the standard variables), else a folder."""
    if isinstance(root, Backend):
        return root
    text = os.fspath(root or default_store_path())
    from trajectory.store.objstore import ObjectBackend, is_object_uri

    if is_object_uri(text):
        return ObjectBackend(text, storage_options)
    return LocalBackend(text)


def _parse_format(raw: bytes) -> int:
    """The format number of a format file's bytes; ValueError, KeyError or TypeError if none."""
    return int(json.loads(raw)["format"])


def read_format(backend: Backend) -> int | None:
    """The format number in a store's format file, None when there is none."""
    raw = backend.read_file(FORMAT_FILE)
    if raw is None:
        return None
    try:
        return _parse_format(raw)
    except (ValueError, KeyError, TypeError) as exc:
        raise StoreError(f"{backend}/{FORMAT_FILE}: unreadable format file: {exc}") from exc


class Store:
    """A store holding the tables above. Opening never writes; the first append creates.

    ``loc`` is the store's backend (the name is older than the backend contract).
    ``storage_options``: for a store on object storage, options for delta-rs (credentials,
    endpoint) over the standard environment variables; never shown, never stored.
    """

    def __init__(
        self, root: str | os.PathLike[str] | Backend | None = None, storage_options: dict[str, str] | None = None
    ):
        self.backend = backend_for(root, storage_options)
        self.loc = self.backend
        self._initialised = False
        #: Called once when this object creates the store (the CLI says so: "created a new store");
        #: without one, the creation is logged (a warning of the "trajectory.store" logger).
        self.on_create: Callable[[], None] | None = None
        #: Whether this object created the store (its first write made the format file).
        self.created = False
        self._check_format()

    def __repr__(self) -> str:
        return f"Store({str(self.backend)!r})"

    def __getstate__(self) -> dict[str, Any]:
        # A store handed to another process (a query or judging worker) does not carry this
        # process's creation callback: it is a closure of the CLI, and says nothing there.
        return {**self.__dict__, "on_create": None}

    # -- format ---------------------------------------------------------------------------
    def _check_format(self) -> None:
        fmt = read_format(self.backend)
        if fmt is None:
            if self.backend.exists_any():
                raise StoreError(
                    f"{self.backend}: a store without {FORMAT_FILE} (format 0); "
                    f"run `{hint('traj migrate')}` to record its format"
                )
            return
        if fmt > STORE_FORMAT:
            raise StoreError(
                f"{self.backend}: store format {fmt} is newer than this traj understands "
                f"({STORE_FORMAT}); upgrade traj"
            )
        if fmt < STORE_FORMAT:
            raise StoreError(
                f"{self.backend}: store format {fmt} is older than {STORE_FORMAT}; run `{hint('traj migrate')}`"
            )

    @property
    def exists(self) -> bool:
        return self.backend.read_file(FORMAT_FILE) is not None

    def format_version(self) -> int | None:
        return read_format(self.backend)

    def init(self) -> None:
        """Create the store's format file (idempotent)."""
        if self._initialised or self.exists:
            self._initialised = True
            return
        body = {"format": STORE_FORMAT, "created_at": now_utc().isoformat(), "tool": "traj"}
        self.backend.write_file(FORMAT_FILE, json.dumps(body).encode())
        self._initialised = True
        self.created = True
        if self.on_create is not None:
            self.on_create()
        else:
            # Used from Python (a Recorder, ingest_bytes, an importer): a mistyped path must not
            # start a store unseen. A warning of the "trajectory.store" logger shows on stderr unless
            # the program configures logging otherwise (the CLI says it itself, see on_create).
            log.warning("created a new store at %s", self.loc)

    def lock(self):  # noqa: ANN201 - a context manager
        """The writer lock every appending command holds while it checks and commits (on
        object storage it admits everyone: see :meth:`append`'s ``after``)."""
        return self.backend.lock()

    def journal_dir(self):  # noqa: ANN201 - a pathlib.Path
        """The local folder of live recorders' journals."""
        return self.backend.journal_dir()

    # -- tables ---------------------------------------------------------------------------
    @staticmethod
    def table_names() -> list[str]:
        return list(TABLES)

    def table_uri(self, name: str) -> str:
        if name not in TABLES:
            raise StoreError(f"unknown table {name!r}")
        return self.backend.table_uri(name)

    def has_table(self, name: str) -> bool:
        return self.backend.has_table(name)

    def delta(self, name: str, version: int | None = None):  # noqa: ANN201 - deltalake.DeltaTable
        if name not in TABLES:
            raise StoreError(f"unknown table {name!r}")
        try:
            return self.backend.open_table(name, version)
        except Exception as exc:  # delta-rs raises several types for a missing version
            raise StoreError(f"{name}: cannot open table at version {version}: {exc}") from exc

    def version(self, name: str) -> int | None:
        dt = self.delta(name)
        return None if dt is None else dt.version()

    def files(self, name: str, version: int | None = None) -> list[str]:
        """The Parquet files that make up ``name`` at ``version`` (latest by default)."""
        dt = self.delta(name, version)
        return [] if dt is None else self.backend.table_files(dt)

    def dataset(self, name: str, version: int | None = None) -> pads.Dataset:
        if name not in TABLES:
            raise StoreError(f"unknown table {name!r}")
        try:
            return self.backend.dataset(name, TABLES[name], version)
        except StoreError:
            raise
        except Exception as exc:  # delta-rs raises several types for a missing version
            raise StoreError(f"{name}: cannot open table at version {version}: {exc}") from exc

    def read(
        self,
        name: str,
        columns: Sequence[str] | None = None,
        filter: pc.Expression | None = None,
        version: int | None = None,
    ) -> pa.Table:
        return self.dataset(name, version).to_table(columns=columns, filter=filter)

    def meta_rows(self, kinds: Sequence[str], columns: Sequence[str] | None = None) -> list[dict[str, Any]]:
        """The ``meta`` log's rows of these kinds (none without the table): the log also keeps
        bulky rows (an OpenTelemetry import's spans), so a reader asks only for its own kinds."""
        if not self.has_table("meta"):
            return []
        return self.read("meta", columns=columns, filter=pc.field("kind").isin(list(kinds))).to_pylist()

    def scan(self, name: str, version: int | None = None):  # noqa: ANN201 - polars.LazyFrame
        """A Polars LazyFrame over a table (as of ``version``), for analysis in notebooks.

        Polars reads the Delta table itself, so a frame sees exactly the committed rows of that
        version; nothing is loaded until it is collected.
        """
        import polars as pl

        if not self.has_table(name):
            return pl.LazyFrame(schema=pl.from_arrow(TABLES[name].empty_table()).schema)
        if self.backend.local:
            # The files of that version, as the store reads them: Polars' own Delta reader takes
            # delta-rs's percent-escaped local paths for real ones ("my store" -> "my%20store").
            return pl.scan_pyarrow_dataset(self.dataset(name, version))
        return pl.scan_delta(self.table_uri(name), version=version, storage_options=self.backend.storage_options)

    def append(self, name: str, data: pa.Table | Iterable[pa.RecordBatch], *, after: int | None = None) -> int:
        """Append rows in one atomic commit; durable when this returns.

        An append that depends on what it read before reads at a version and passes it as
        ``after`` (None: the table does not exist yet counts as -1): another writer's commit
        since then raises :class:`CommitConflict` and nothing is written, so the caller reads
        again and decides again. On a local store the caller also holds :meth:`lock`, so that
        never happens there.
        """
        schema = TABLES[name]
        if isinstance(data, pa.Table):
            if data.num_rows == 0:
                return self.version(name) or -1
            data = data.select(schema.names).cast(schema)
        else:
            data = write_batches(data, schema)
        self.init()
        return self.backend.append(name, data, after=after)

    def append_decided(
        self,
        name: str,
        decide: Callable[[int], pa.Table | None],
        what: str,
        keys: tuple[str, set[str]] | None = None,
        note: Callable[[], str] | None = None,
    ) -> int | None:
        """Append with a check: read, decide, commit on top of what was read.

        ``decide(version)`` reads the table as of ``version`` (-1: none yet) and returns the
        rows to append (None: nothing to write), or raises to refuse. On a local store the
        writer lock makes this one step. Without a lock (object storage), a writer that
        committed meanwhile makes the commit fail whole. ``keys`` (a column and the values the
        decision read, e.g. the batch's run ids): when no file added since holds one of them
        (by the files' min/max statistics), the decision stands and is committed on top of
        the new version at once; otherwise the rows are decided again against what is stored
        now (they may have become present, or conflicting). Re-deciding on every lost race
        would let a slow writer lose to faster ones again and again. ``note()`` says what was
        committed, for the command's Ctrl-C line; the commit and its note are one step for Ctrl-C.
        """
        with self.lock():
            data: pa.Table | None = None
            seen: set[tuple[str, Any, Any]] = set()
            for attempt in range(COMMIT_ATTEMPTS):
                dt = self.delta(name)
                version = -1 if dt is None else dt.version()
                # Under the lock nobody commits meanwhile: the statistics are not needed there.
                check = dt is not None and keys is not None and not self.backend.serialised
                files = _file_ranges(dt, keys[0]) if check else set()
                if data is None or not _untouched(files, seen, keys):
                    data = decide(version)
                    if data is None:
                        return None
                seen = set(files)
                try:
                    with interrupts.committing():
                        committed = self.append(name, data, after=version)
                        if note is not None:
                            interrupts.note(note())
                    return committed
                except CommitConflict:
                    backoff(attempt)
        raise StoreError(f"{what}: not committed: other writers kept committing first ({COMMIT_ATTEMPTS} tries)")

    def compact(self, name: str) -> dict[str, Any]:
        """Merge small files in one commit; the rows every query returns stay the same."""
        with self.lock(), interrupts.committing():
            result = self.backend.compact(name)
            if result.get("files_before") != result.get("files_after"):
                interrupts.note(f"compaction of {name}")
            return result

    def compact_all(self, progress: Callable[[int, int], None] | None = None) -> list[dict[str, Any]]:
        """Compact every table; ``progress(done, total)`` is told after each table."""
        names = [name for name in TABLES if self.has_table(name)]
        out = []
        for i, name in enumerate(names):
            out.append(self.compact(name))
            if progress is not None:
                progress(i + 1, len(names))
        return out

    def history(self, name: str) -> list[dict[str, Any]]:
        dt = self.delta(name)
        return [] if dt is None else list(dt.history())


def _file_ranges(dt: Any, column: str) -> set[tuple[str, Any, Any]]:
    """(path, min, max of ``column``) of each file of a Delta table, from its statistics."""
    adds = dt.get_add_actions(flatten=True)
    names = adds.column_names
    lo = adds.column(f"min.{column}").to_pylist() if f"min.{column}" in names else [None] * adds.num_rows
    hi = adds.column(f"max.{column}").to_pylist() if f"max.{column}" in names else [None] * adds.num_rows
    return set(zip(adds.column("path").to_pylist(), lo, hi))


def _untouched(files: set[Any], seen: set[Any], keys: tuple[str, set[str]] | None) -> bool:
    """Whether no file added since ``seen`` can hold one of ``keys``' values. A file without
    statistics, or with bounds long enough to have been truncated, counts as holding them."""
    if keys is None or not seen:
        return False
    for _, lo, hi in files - seen:
        if lo is None or hi is None or len(str(lo)) >= 32 or len(str(hi)) >= 32:
            return False
        if any(lo <= k <= hi for k in keys[1]):
            return False
    return True


def migrate(
    root: str | os.PathLike[str] | Backend | None = None, storage_options: dict[str, str] | None = None
) -> str:
    """Record or upgrade a store's format explicitly (never done silently); what was done."""
    backend = backend_for(root, storage_options)
    raw = backend.read_file(FORMAT_FILE)
    fmt = 0
    if raw is not None:
        try:
            fmt = _parse_format(raw)
        except (ValueError, KeyError, TypeError) as exc:
            # Not rewritten: what it says is unknown, so nothing can be said to upgrade it.
            raise StoreError(f"{backend}/{FORMAT_FILE}: unreadable format file ({exc}); fix it by hand") from exc
        if fmt == STORE_FORMAT:
            return f"{backend}: already format {STORE_FORMAT}, nothing to do"
        if fmt > STORE_FORMAT:
            raise StoreError(f"{backend}: format {fmt} is newer than this traj ({STORE_FORMAT})")
    elif not backend.exists_any():
        raise NotFound(f"{backend}: no store here")
    # Format 0 (before the format file existed) has the same tables: recording the format is
    # the whole upgrade.
    body = {"format": STORE_FORMAT, "migrated_from": fmt, "tool": "traj"}
    backend.write_file(FORMAT_FILE, json.dumps(body).encode())
    return f"{backend}: upgraded to format {STORE_FORMAT}"


__all__ = [
    "FORMAT_FILE", "STORE_FORMAT", "CommitConflict", "Location", "Store", "migrate", "now_utc", "read_format",
]
