"""The store: append-only Delta Lake tables of Parquet files under one root folder.

Why Delta Lake (delta-rs, no JVM): its commit log gives exactly what an event store promises —
an append is one atomic commit (a new numbered log entry created only if absent), every earlier
version stays readable (time travel), and ``optimize.compact`` rewrites small files in a commit
that changes no row. DuckDB, Polars, Spark and Trino read the same files.

What Delta does not give, traj adds here:
- an inter-process writer lock, because idempotency and seq checks read the table before they
  append, and two blind appends of the same run would both succeed;
- fsync of the new data files, the log entry and their folders before a write returns, because
  the object_store layer under delta-rs does not flush on a local disk.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as pads
from deltalake import DeltaTable, write_deltalake

from .diskfault import held_native_stderr
from .errors import StoreError
from .location import Location, fsync_path

STORE_FORMAT = 1
FORMAT_FILE = "traj-store.json"

_TS = pa.timestamp("us", tz="UTC")
_S = pa.string()

EVENTS_SCHEMA = pa.schema(
    [
        ("run_id", _S),
        ("seq", pa.int64()),
        ("ts", _TS),
        ("kind", _S),
        # Denormalised from the run's run_started so that plain SQL can filter any event.
        ("suite", _S),
        ("task", _S),
        ("batch", _S),
        ("mode", _S),
        ("split", _S),
        ("agent_name", _S),
        ("agent_model", _S),
        ("device", _S),
        ("pair_id", _S),
        ("pair_round", pa.int64()),
        # Kind-specific fields people filter on.
        ("action", _S),
        ("text", _S),
        ("app", _S),
        ("route_app", _S),
        ("route_path", _S),
        ("image", _S),
        ("op", _S),
        ("field", pa.int64()),
        ("value", _S),  # JSON text: sheet values may be numbers or lists
        ("name", _S),
        ("question", _S),
        ("reply", _S),
        ("reason", _S),
        ("outcome", _S),
        ("input_tokens", pa.int64()),
        ("output_tokens", pa.int64()),
        ("cached_tokens", pa.int64()),
        ("model_ms", pa.float64()),
        ("read_ms", pa.float64()),
        ("act_ms", pa.float64()),
        ("other_ms", pa.float64()),
        # The whole event as canonical JSON: lossless export and replay read this column.
        ("data", _S),
        ("hash", _S),
        ("commit_id", _S),
        ("ingested_at", _TS),
    ]
)

CHECK_TYPE = pa.struct(
    [
        ("name", _S),
        ("passed", pa.bool_()),
        ("expected", _S),  # JSON text
        ("actual", _S),  # JSON text
        ("reason", _S),
    ]
)

VERDICTS_SCHEMA = pa.schema(
    [
        ("pass_id", _S),
        ("run_id", _S),
        ("suite", _S),
        ("task", _S),
        ("batch", _S),
        ("split", _S),
        ("outcome", _S),
        ("score", pa.float64()),
        ("reason", _S),
        ("checks", pa.list_(CHECK_TYPE)),
        ("judge_version", _S),
        ("judged_at", _TS),
        ("details", _S),  # JSON text, suite-specific (layers, step budget, ...)
    ]
)

PASSES_SCHEMA = pa.schema(
    [
        ("pass_id", _S),
        ("kind", _S),  # judge | imported
        ("started_at", _TS),
        ("finished_at", _TS),
        ("runs", pa.int64()),
        ("by", _S),
        ("command", _S),
        ("filters", _S),  # JSON text
        ("versions", _S),  # JSON text: suite -> code version
        ("note", _S),
    ]
)

OVERRIDES_SCHEMA = pa.schema(
    [
        ("override_id", _S),
        ("run_id", _S),
        ("suite", _S),
        ("task", _S),
        ("to_outcome", _S),
        ("category", _S),
        ("evidence", _S),
        ("by", _S),
        ("at", _TS),
        ("auto_outcome", _S),
        ("auto_pass_id", _S),
    ]
)

# Small append-only logs of the store's own life: suite registrations, holdout views.
META_SCHEMA = pa.schema(
    [
        ("kind", _S),
        ("key", _S),
        ("at", _TS),
        ("by", _S),
        ("data", _S),  # JSON text
    ]
)

TABLES: dict[str, pa.Schema] = {
    "events": EVENTS_SCHEMA,
    "verdicts": VERDICTS_SCHEMA,
    "passes": PASSES_SCHEMA,
    "overrides": OVERRIDES_SCHEMA,
    "meta": META_SCHEMA,
}


def now_utc() -> _dt.datetime:
    return _dt.datetime.now(_dt.timezone.utc)


def default_store_path() -> str:
    """``$TRAJ_STORE``, else ``./traj-store``: the rule every command follows without --store."""
    return os.environ.get("TRAJ_STORE") or "traj-store"


class Store:
    """A store root holding the tables above. Opening never writes; the first append creates."""

    def __init__(self, root: str | os.PathLike[str] | Location | None = None):
        self.loc = root if isinstance(root, Location) else Location(root or default_store_path())
        self._check_format()

    def __repr__(self) -> str:
        return f"Store({str(self.loc)!r})"

    # -- format ---------------------------------------------------------------------------
    def _check_format(self) -> None:
        if not self.loc.exists(FORMAT_FILE):
            if self.loc.exists("events", "_delta_log"):
                raise StoreError(
                    f"{self.loc}: a store without {FORMAT_FILE} (format 0); "
                    "run `traj migrate` to record its format"
                )
            return
        try:
            meta = json.loads(self.loc.read_bytes(FORMAT_FILE))
            fmt = int(meta["format"])
        except (ValueError, KeyError, TypeError) as exc:
            raise StoreError(f"{self.loc.path(FORMAT_FILE)}: unreadable format file: {exc}") from exc
        if fmt > STORE_FORMAT:
            raise StoreError(
                f"{self.loc}: store format {fmt} is newer than this traj understands "
                f"({STORE_FORMAT}); upgrade traj"
            )
        if fmt < STORE_FORMAT:
            raise StoreError(
                f"{self.loc}: store format {fmt} is older than {STORE_FORMAT}; run `traj migrate`"
            )

    @property
    def exists(self) -> bool:
        return self.loc.exists(FORMAT_FILE)

    def format_version(self) -> int | None:
        if not self.exists:
            return None
        return int(json.loads(self.loc.read_bytes(FORMAT_FILE))["format"])

    def init(self) -> None:
        """Create the root and its format file (idempotent)."""
        if self.exists:
            return
        self.loc.ensure()
        body = {"format": STORE_FORMAT, "created_at": now_utc().isoformat(), "tool": "traj"}
        self.loc.write_atomic(json.dumps(body).encode(), FORMAT_FILE)

    def lock(self):  # noqa: ANN201 - a context manager
        """The writer lock every appending command holds while it checks and commits."""
        self.loc.ensure()
        return self.loc.lock()

    # -- tables ---------------------------------------------------------------------------
    def table_uri(self, name: str) -> str:
        if name not in TABLES:
            raise StoreError(f"unknown table {name!r}")
        return self.loc.uri(name)

    def has_table(self, name: str) -> bool:
        # A log folder without its first commit is a first append killed before that commit:
        # no table yet (the next append creates it), not a table that cannot be opened.
        return self.loc.exists(name, "_delta_log", f"{0:020d}.json") or self.loc.exists(
            name, "_delta_log", "_last_checkpoint"
        )

    def delta(self, name: str, version: int | None = None) -> DeltaTable | None:
        if not self.has_table(name):
            return None
        try:
            return DeltaTable(
                self.table_uri(name), version=version, storage_options=self.loc.storage_options
            )
        except Exception as exc:  # delta-rs raises several types for a missing version
            raise StoreError(f"{name}: cannot open table at version {version}: {exc}") from exc

    def version(self, name: str) -> int | None:
        dt = self.delta(name)
        return None if dt is None else dt.version()

    def files(self, name: str, version: int | None = None) -> list[str]:
        """The Parquet files that make up ``name`` at ``version`` (latest by default)."""
        dt = self.delta(name, version)
        return [] if dt is None else list(dt.file_uris())

    def dataset(self, name: str, version: int | None = None) -> pads.Dataset:
        files = self.files(name, version)
        return pads.dataset(files, schema=TABLES[name], format="parquet")

    def read(
        self,
        name: str,
        columns: Sequence[str] | None = None,
        filter: pc.Expression | None = None,
        version: int | None = None,
    ) -> pa.Table:
        return self.dataset(name, version).to_table(columns=columns, filter=filter)

    def scan(self, name: str, version: int | None = None):  # noqa: ANN201 - polars.LazyFrame
        """A Polars LazyFrame over a table (as of ``version``), for analysis in notebooks.

        Polars reads the Delta table itself, so a frame sees exactly the committed rows of that
        version; nothing is loaded until it is collected.
        """
        import polars as pl

        if not self.has_table(name):
            return pl.LazyFrame(schema=pl.from_arrow(TABLES[name].empty_table()).schema)
        return pl.scan_delta(self.table_uri(name), version=version, storage_options=self.loc.storage_options)

    def append(self, name: str, data: pa.Table | Iterable[pa.RecordBatch]) -> int:
        """Append rows in one atomic commit; durable on disk when this returns.

        The caller holds :meth:`lock` when the append depends on what it read before.
        """
        schema = TABLES[name]
        if isinstance(data, pa.Table):
            if data.num_rows == 0:
                return self.version(name) or -1
            data = data.select(schema.names).cast(schema)
        else:
            data = pa.RecordBatchReader.from_batches(schema, _cast_batches(data, schema))
        self.init()
        with held_native_stderr():  # a panic report on a full disk: the CLI says it in one line
            write_deltalake(
                self.table_uri(name),
                data,
                mode="append",
                storage_options=self.loc.storage_options,
            )
        version = self.version(name)
        assert version is not None
        self._sync_commit(name, version)
        return version

    def _sync_commit(self, name: str, version: int) -> None:
        log = self.loc.path(name, "_delta_log", f"{version:020d}.json")
        added: list[Path] = []
        # Split on "\n" only: str.splitlines() also splits on U+0085 and U+2028, which can occur
        # raw inside the column statistics of a log entry.
        for line in log.read_text(encoding="utf-8").split("\n"):
            if '"add"' in line:
                action = json.loads(line).get("add")
                if action:
                    added.append(self.loc.path(name, *action["path"].split("/")))
        for path in added:
            fsync_path(path)
        for folder in {p.parent for p in added}:
            fsync_path(folder)
        fsync_path(log)
        fsync_path(log.parent)

    def compact(self, name: str) -> dict[str, Any]:
        """Merge small files in one commit; the rows every query returns stay the same."""
        with self.lock():
            dt = self.delta(name)
            if dt is None:
                return {"table": name, "files_before": 0, "files_after": 0}
            before = len(dt.file_uris())
            with held_native_stderr():
                metrics = dt.optimize.compact()
            dt = self.delta(name)
            assert dt is not None
            version = dt.version()
            self._sync_commit(name, version)
        return {
            "table": name,
            "files_before": before,
            "files_after": len(dt.file_uris()),
            "files_added": metrics.get("numFilesAdded", 0),
            "files_removed": metrics.get("numFilesRemoved", 0),
            "version": version,
        }

    def history(self, name: str) -> list[dict[str, Any]]:
        dt = self.delta(name)
        return [] if dt is None else list(dt.history())


def _cast_batches(batches: Iterable[pa.RecordBatch], schema: pa.Schema) -> Iterator[pa.RecordBatch]:
    for batch in batches:
        if batch.num_rows:
            yield pa.Table.from_batches([batch]).select(schema.names).cast(schema).to_batches()[0]
