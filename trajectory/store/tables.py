"""The Arrow schemas of the store's tables.

The events table's schema is derived from the event declaration (``trajectory/events.py`` via
``trajectory/columns.py``): the envelope, the run columns copied from ``run_started``, one typed
column per declared field, then the whole event and bookkeeping. A column added there appears
here; a store written before it gets the column on its next append (older rows read null).
The verdicts and passes tables are derived the same way from their records
(``trajectory/records.py``): one column per field, documented by the field's description.
"""

from __future__ import annotations

from typing import Any

import msgspec.inspect as mi
import pyarrow as pa

from trajectory import records
from trajectory.columns import declaration
from trajectory.columns import Declaration

TS = pa.timestamp("us", tz="UTC")
_S = pa.string()

ARROW_TYPES: dict[str, pa.DataType] = {
    "string": _S, "int64": pa.int64(), "float64": pa.float64(), "bool": pa.bool_(), "timestamp": TS,
}


def events_schema(decl: Declaration) -> pa.Schema:
    """The events table: run_id, seq, ts, kind, the declared columns, then the event itself."""
    fields = [pa.field(c.name, ARROW_TYPES[c.type]) for c in decl.envelope]
    fields.append(pa.field("kind", _S))
    fields += [pa.field(c.name, ARROW_TYPES[c.type]) for c in decl.columns if c not in decl.envelope]
    fields += [
        # The whole event as given (its wire form): lossless export and replay read this column.
        pa.field("data", _S),
        pa.field("hash", _S),  # of the event's canonical form: equal content, equal hash
        pa.field("commit_id", _S),  # the ingest commit that wrote the row
        pa.field("ingested_at", TS),
    ]
    return pa.schema(fields)


EVENTS_SCHEMA = events_schema(declaration())


def _arrow_type(t: Any) -> pa.DataType:
    """The Arrow type of a record field's type (an optional value is a nullable column)."""
    while isinstance(t, mi.Metadata):
        t = t.type
    if isinstance(t, mi.UnionType):
        members = [m for m in t.types if not isinstance(m, mi.NoneType)]
        if len(members) == 1:
            return _arrow_type(members[0])
    if isinstance(t, mi.ListType):
        return pa.list_(_arrow_type(t.item_type))
    if isinstance(t, mi.StructType):
        return record_struct(t.cls)
    for kind, arrow in ((mi.StrType, _S), (mi.BoolType, pa.bool_()), (mi.IntType, pa.int64()),
                        (mi.FloatType, pa.float64()), (mi.DateTimeType, TS)):
        if isinstance(t, kind):
            return arrow
    raise TypeError(f"no Arrow type for {t!r}")


def record_fields(cls: type) -> list[pa.Field]:
    """A record's columns (trajectory/records.py), in field order, each documented by its field."""
    out = []
    for f in mi.type_info(cls).fields:
        description = (getattr(f.type, "extra_json_schema", None) or {}).get("description")
        out.append(pa.field(f.encode_name, _arrow_type(f.type), metadata={"doc": description} if description else None))
    return out


def record_struct(cls: type) -> pa.DataType:
    return pa.struct(record_fields(cls))


def record_schema(cls: type) -> pa.Schema:
    return pa.schema(record_fields(cls))


CHECK_TYPE = record_struct(records.CheckRow)
VERDICTS_SCHEMA = record_schema(records.VerdictRow)
PASSES_SCHEMA = record_schema(records.PassRow)

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
        ("at", TS),
        ("auto_outcome", _S),
        ("auto_pass_id", _S),
    ]
)

# Small append-only logs of the store's own life: suite registrations, holdout views.
META_SCHEMA = pa.schema(
    [
        ("kind", _S),
        ("key", _S),
        ("at", TS),
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
