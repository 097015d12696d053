"""The Arrow schemas of the store's tables.

The events table's schema is derived from the event declaration (``trajectory/events.py`` via
``trajectory/columns.py``): the envelope, the run columns copied from ``run_started``, one typed
column per declared field, then the whole event and bookkeeping. A column added there appears
here; a store written before it gets the column on its next append (older rows read null).
"""

from __future__ import annotations

import pyarrow as pa

from trajectory import events as ev
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


def _doc(name: str, typ: pa.DataType, doc: str) -> pa.Field:
    return pa.field(name, typ, metadata={"doc": doc})


CHECK_TYPE = pa.struct(
    [
        _doc("name", _S, "What was checked (unique within a verdict, or repeated in order)."),
        _doc("passed", pa.bool_(), "Whether the check held."),
        _doc("expected", _S, "What the judge expected, as JSON text."),
        _doc("actual", _S, "What the judge found in the run, as JSON text."),
        _doc("reason", _S, "One line a person can act on; empty when it passed."),
    ]
)

VERDICTS_SCHEMA = pa.schema(
    [
        _doc("pass_id", _S, "The judging pass that gave this verdict (a row in passes)."),
        _doc("run_id", _S, "The judged run."),
        _doc("suite", _S, "The run's suite name, as its run_started said."),
        _doc("task", _S, "The run's task id."),
        _doc("batch", _S, "The run's batch."),
        _doc("split", _S, "The run's pool (tune or holdout) when it said; null means the default."),
        _doc("outcome", _S, "pass, fail, error, skipped, na or review (the judge cannot tell: a person decides)."),
        _doc("score", pa.float64(), "0..1; for check lists, the share of checks that passed."),
        _doc("reason", _S, "Why, in one line (the failed checks' reasons, or the error)."),
        _doc("checks", pa.list_(CHECK_TYPE), "Everything the judge looked at, in order."),
        _doc("judge_version", _S, "Hash of every module the verdict depends on, then of the task's data."),
        _doc("judged_at", TS, "When the pass started."),
        _doc("details", _S, "Suite-specific figures for reports (layers, step budget, ...), JSON text."),
        # What the verdict was computed from, besides the judge code: an incremental pass
        # (`traj judge` without --all) judges a run again only when one of these changed.
        _doc("params", _S, "The run's task parameters as judged, JSON text with sorted keys (null: none)."),
        _doc("judged_seq", pa.int64(), "The run's last seq when judged: a run that grew since is judged again."),
        _doc("partner", _S, "The pair partner run the judge was given (null: none)."),
        _doc("judgements", pa.int64(), "How many recorded LLM judgements the store held for the judge."),
    ]
)

PASSES_SCHEMA = pa.schema(
    [
        _doc("pass_id", _S, "Sorts by time; a random tail tells apart two passes in one microsecond."),
        _doc("kind", _S, "judge (traj judge) or imported (verdicts recorded by another harness)."),
        _doc("started_at", TS, "When the pass began."),
        _doc("finished_at", TS, "When its verdicts were committed."),
        _doc("runs", pa.int64(), "How many runs it judged."),
        _doc("by", _S, "Who ran it ($TRAJ_USER, else the login name)."),
        _doc("command", _S, "The command line that ran it."),
        _doc("filters", _S, "The selection it judged, JSON text."),
        _doc("versions", _S, "Suite name -> code version, JSON text."),
        _doc("note", _S, "Free text (the demo says which suites it judged with)."),
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
