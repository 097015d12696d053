"""The events table's rows: typed columns built from events, in the table's layout.

Both ingest paths (the plain one in ingest.py, the staged one in staging.py and batchplan.py)
build rows here, so that they build the same rows. The typed columns come from the event
declaration (trajectory/columns.py); Arrow's JSON reader fills them from the events' stored
JSON in C++ rather than one Python attribute at a time.
"""

from __future__ import annotations

import array
import itertools
import threading
from collections.abc import Sequence
from typing import Any

import msgspec
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from trajectory import events as ev
from trajectory.columns import declaration
from trajectory.store.tables import ARROW_TYPES, EVENTS_SCHEMA, TS, events_schema


def _json_or_none(value: Any) -> str | None:
    return None if value is None else msgspec.json.encode(value).decode()


def strings(parts: Sequence[bytes]) -> pa.Array:
    """A string array straight from encoded bytes (no per-item Python str)."""
    offsets = array.array("q", [0])
    offsets.extend(itertools.accumulate(len(p) for p in parts))
    return pa.LargeStringArray.from_buffers(
        len(parts), pa.py_buffer(offsets), pa.py_buffer(b"".join(parts))
    ).cast(pa.string())


_READER_SCHEMAS: dict[int, pa.Schema] = {}


def _reader_schema(decl: Any) -> pa.Schema:
    """The keys of the stored event JSON that typed columns come from, for Arrow's JSON reader
    (C++) instead of one Python attribute at a time."""
    cached = _READER_SCHEMAS.get(id(decl))
    if cached is not None:
        return cached
    top: dict[str, Any] = {"kind": pa.string()}
    for col in decl.columns:
        if col.json or col in decl.run_columns:
            continue
        for _, path in col.sources:
            typ = ARROW_TYPES[col.type]
            if len(path) == 1:
                top[path[0]] = typ
            else:
                sub = top.setdefault(path[0], {})
                sub[path[1]] = typ
    schema = pa.schema([
        (k, pa.struct(list(v.items())) if isinstance(v, dict) else v) for k, v in top.items()
    ])
    if decl is declaration():
        _READER_SCHEMAS[id(decl)] = schema
    return schema


def _column(typed: pa.Table, col: Any) -> pa.ChunkedArray:
    """One typed column: each source kind's field, null for the events of other kinds. A
    figure is 0 where its object is there but the figure left out, null with no object."""
    kind = typed.column("kind")
    by_path: dict[tuple[str, ...], list[str]] = {}
    for source_kind, path in col.sources:
        by_path.setdefault(path, []).append(source_kind)
    out = None
    for path, kinds in by_path.items():
        arr = typed.column(path[0])
        if len(path) > 1:
            field = pc.struct_field(arr, path[1])
            if col.figure:
                field = pc.if_else(pc.is_valid(arr), pc.fill_null(field, 0), pa.scalar(None, field.type))
            arr = field
        if col.name not in ("run_id", "seq", "ts"):
            arr = pc.if_else(pc.is_in(kind, value_set=pa.array(kinds)), arr, pa.scalar(None, arr.type))
        out = arr if out is None else pc.coalesce(out, arr)
    assert out is not None
    return out


def _duckdb_type(t: pa.DataType) -> Any:
    if pa.types.is_struct(t):
        return {f.name: _duckdb_type(f.type) for f in t}
    if pa.types.is_timestamp(t):
        return "TIMESTAMPTZ"
    return {pa.string(): "VARCHAR", pa.int64(): "BIGINT", pa.float64(): "DOUBLE", pa.bool_(): "BOOLEAN"}[t]


# One DuckDB connection per thread (a connection refuses a second caller while it is busy:
# ingest_bytes may run on several threads of one process), one DuckDB thread each (ingest's
# workers are the cores).
_CONNECTIONS = threading.local()


def _parsed(data: pa.Array, schema: pa.Schema) -> pa.Table:
    """The keys of ``schema`` read from each JSON text of ``data`` (DuckDB's JSON reader: it
    parses each text once, in C++, about twice as fast here as Arrow's; a property test holds
    every typed column equal to what its event says)."""
    import json

    import duckdb

    con = getattr(_CONNECTIONS, "con", None)
    if con is None:
        con = duckdb.connect(":memory:")
        con.execute("SET threads TO 1")
        con.execute("SET enable_progress_bar = false")
        _CONNECTIONS.con = con
    if len(data) == 0:
        return schema.empty_table()
    structure = json.dumps({f.name: _duckdb_type(f.type) for f in schema})
    con.register("_lines", pa.table({"data": data}))
    try:
        table = con.sql(f"SELECT unnest(from_json(data, $s)) FROM _lines", params={"s": structure}).to_arrow_table()
    finally:
        con.unregister("_lines")
    return table.cast(schema)


def typed_columns(data: pa.Array, events: Sequence[ev.Event], decl: Any = None) -> pa.Table:
    """``kind``, the envelope, every event column and ``data`` of events whose stored JSON is
    ``data`` (``events``: the events themselves, for the few JSON columns built in Python).
    The run columns and the bookkeeping are the caller's."""
    decl = decl or declaration()
    n = len(data)
    typed = _parsed(data, _reader_schema(decl))
    cols: dict[str, Any] = {"kind": typed.column("kind")}
    for c in decl.envelope:
        cols[c.name] = _column(typed, c)
    for c in decl.event_columns:
        if not c.json:
            cols[c.name] = _column(typed, c)
            continue
        # JSON text (a sheet value may be a number or a list): built in Python, but only for
        # the few events of the kinds that have it.
        paths = dict(c.sources)
        values: list[str | None] = [None] * n
        which = pc.is_in(typed.column("kind"), value_set=pa.array(list(paths), pa.string()))
        for i in np.flatnonzero(which.to_numpy(zero_copy_only=False)).tolist():
            values[i] = _json_or_none(getattr(events[i], paths[typed.column("kind")[i].as_py()][0]))
        cols[c.name] = pa.array(values, pa.string())
    cols["data"] = data
    return pa.table(cols)


def run_columns(infos: Sequence[dict[str, Any]], schema: pa.Schema, names: Sequence[str]) -> dict[str, pa.Array]:
    """The run_started fields copied onto each event: built once per run, then taken per event."""
    index: dict[int, int] = {}
    per_run: list[dict[str, Any]] = []
    take = []
    for info in infos:
        k = index.get(id(info))
        if k is None:
            k = index[id(info)] = len(per_run)
            per_run.append(info)
        take.append(k)
    positions = pa.array(take, pa.int64())
    return {f: pa.array([i.get(f) for i in per_run], schema.field(f).type).take(positions) for f in names}


def rows(new: Sequence[tuple[Any, dict[str, Any]]], commit_id: str, decl: Any = None) -> pa.Table:
    """Arrow rows for new events (``(Parsed, run info)`` pairs), in the events table's schema
    (both derived from ``decl``, the event declaration), in their order (see sort_for_layout)."""
    decl = decl or declaration()
    schema = EVENTS_SCHEMA if decl is declaration() else events_schema(decl)
    events = [p.event for p, _ in new]
    table = typed_columns(strings([p.data for p, _ in new]), events, decl)
    n = len(new)
    run_names = [c.name for c in decl.run_columns]
    cols = {name: table.column(name) for name in table.column_names}
    cols.update(run_columns([i for _, i in new], schema, run_names))
    cols["hash"] = pa.array([p.hash for p, _ in new], pa.string())
    return finish(cols, n, commit_id, schema)


def finish(cols: dict[str, Any], n: int, commit_id: str, schema: pa.Schema = EVENTS_SCHEMA) -> pa.Table:
    """The bookkeeping columns added, the columns in the schema's order."""
    from trajectory.store.delta import now_utc

    cols["commit_id"] = pa.array([commit_id] * n, pa.string())
    cols["ingested_at"] = pa.array([now_utc()] * n, TS)
    return pa.table({f.name: cols[f.name] for f in schema}, schema=schema)


#: The order of the rows within each file of the events table (see sort_for_layout).
LAYOUT = ("kind", "suite", "task", "run_id", "seq")


def sort_for_layout(table: pa.Table) -> pa.Table:
    """Rows in the order the events table keeps them within a file: by kind, then suite, task,
    run and seq.

    Order carries no meaning (every reader orders by run and seq), but it decides what a scan
    can skip by the row groups' statistics: the row groups of one kind hold one kind only, so
    a query for the few events decoded whole (starts, finishes, rare kinds; see
    replay.batch.detail_sql) skips those of steps and screens; within a kind the runs of one
    task are together, so re-judging the runs of one task (after a fix to it) reads their row
    groups only, and a pass over everything reads each row group once, task after task (see
    trajectory/judging/partitions.py).
    """
    order = pc.sort_indices(table, sort_keys=[(k, "ascending") for k in LAYOUT])
    return table.take(order)
