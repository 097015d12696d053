"""The spans of imported traces, kept in the store, and the revisions of a trace's run.

Collectors rotate their files, so a trace's spans often arrive in several files: the root
(which ends last) in the last one, or the root first and spans of the same trace in a later
file. Every span an import reads is kept as it was read, in the store's ``meta`` log (key =
the trace id, data = the spans as JSON): kind ``otel.pending`` while the trace has no run (no
root span seen yet), kind ``otel.spans`` once it has one. Each ``traj import otel`` adds the
kept spans of the traces it reads to theirs, so a trace's run is made from every span seen,
whatever the order and grouping of its files. Spans already kept are not kept twice.

A trace whose root has not been seen is *pending*: not a run yet. ``traj import otel
--pending`` lists them; importing the file that holds their roots writes each as one complete
run (``otel:<trace>``), in span-time order, sealed.

A trace whose run is written and sealed, and whose later files bring spans that run lacks, is
written again, complete, as a new revision (``otel:<trace>.r2``, ``.r3``, ...); the earlier run
is recorded as superseded by it (trajectory/query/revisions.py) and stays as history.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from trajectory.importers.otel import Span, SpanEvent
from trajectory.query import revisions

KIND = "otel.pending"  # spans of a trace with no run yet
WRITTEN = "otel.spans"  # spans of a trace whose run is written


@dataclasses.dataclass
class PendingTrace:
    trace_id: str
    spans: int
    first_seen: _dt.datetime
    last_seen: _dt.datetime
    files: list[str]
    first_span_ns: int

    def to_json(self) -> dict[str, Any]:
        return {"trace_id": self.trace_id, "run_id": f"otel:{self.trace_id}", "spans": self.spans,
                "first_seen": self.first_seen.isoformat(), "last_seen": self.last_seen.isoformat(),
                "files": self.files}


def span_json(s: Span) -> dict[str, Any]:
    # A shallow copy: dataclasses.asdict deep-copies every attribute value, which made keeping
    # the spans of a large import cost as much as mapping them.
    d = {f.name: getattr(s, f.name) for f in dataclasses.fields(s)}
    d["events"] = [{f.name: getattr(e, f.name) for f in dataclasses.fields(e)} for e in s.events]
    return d


def span_of(d: Mapping[str, Any]) -> Span:
    fields = dict(d)
    fields["events"] = [SpanEvent(**e) for e in fields.get("events") or []]
    return Span(**fields)


def _rows(store: Any, kinds: Sequence[str] = (KIND,), trace_ids: Sequence[str] | None = None) -> list[dict[str, Any]]:
    if not store.has_table("meta") or (trace_ids is not None and not trace_ids):
        return []
    cond = pc.field("kind").isin(list(kinds))
    if trace_ids is not None:
        cond = cond & pc.field("key").isin(list(trace_ids))
    return store.read("meta", columns=["kind", "key", "at", "by", "data"], filter=cond).to_pylist()


def _finished_runs(store: Any, run_ids: Iterable[str]) -> set[str]:
    ids = list(run_ids)
    if not ids or not store.has_table("events"):
        return set()
    table = store.read("events", columns=["run_id"],
                       filter=(pc.field("kind") == "run_finished") & pc.field("run_id").isin(ids))
    return set(table.column("run_id").to_pylist())


def _finished(store: Any, trace_ids: Iterable[str]) -> set[str]:
    """The traces whose first run (``otel:<trace>``) is written."""
    return {r.removeprefix("otel:") for r in _finished_runs(store, [f"otel:{t}" for t in trace_ids])}


@dataclasses.dataclass
class Kept:
    """What earlier imports kept of some traces."""

    spans: dict[str, dict[str, Span]]  # trace id -> span id -> span (both kinds)
    pending: set[str]  # the traces with spans kept while they had no run


def kept_spans(store: Any, trace_ids: Sequence[str]) -> Kept:
    """The spans earlier imports kept of these traces, pending or written."""
    spans: dict[str, dict[str, Span]] = {}
    pending: set[str] = set()
    for row in _rows(store, (KIND, WRITTEN), trace_ids):
        data = json.loads(row["data"])
        mine = spans.setdefault(row["key"], {})
        for d in data["spans"]:
            mine.setdefault(d["span_id"], span_of(d))
        if row["kind"] == KIND:
            pending.add(row["key"])
    return Kept(spans, pending)


def listing(store: Any) -> list[PendingTrace]:
    """The pending traces, oldest first."""
    by_trace: dict[str, list[dict[str, Any]]] = {}
    for row in _rows(store):
        by_trace.setdefault(row["key"], []).append(row)
    done = _finished(store, by_trace)
    out = []
    for tid, rows in by_trace.items():
        if tid in done:
            continue
        spans: dict[str, int] = {}
        files: list[str] = []
        for r in rows:
            data = json.loads(r["data"])
            for d in data["spans"]:
                spans.setdefault(d["span_id"], d["start_ns"])
            files += [f for f in data.get("files", []) if f not in files]
        ats = [r["at"] for r in rows]
        out.append(PendingTrace(tid, len(spans), min(ats), max(ats), files, min(spans.values(), default=0)))
    return sorted(out, key=lambda p: (p.first_seen, p.first_span_ns, p.trace_id))


def keep(store: Any, traces: Mapping[str, Sequence[Span]], known: Mapping[str, Iterable[str]], files: list[str],
         *, by: str, at: _dt.datetime, kind: Mapping[str, str] | str = KIND) -> int:
    """Store the spans of these traces that are not kept yet (``known``: trace id -> span ids
    kept before), as ``kind`` (per trace, or one for all); returns how many spans were added."""
    keys, kinds, datas = [], [], []
    added = 0
    for tid, spans in traces.items():
        old = set(known.get(tid, ()))
        new = [span_json(s) for s in spans if s.span_id not in old]
        if not new:
            continue
        keys.append(tid)
        kinds.append(kind if isinstance(kind, str) else kind[tid])
        datas.append(json.dumps({"spans": new, "files": files}, ensure_ascii=False))
        added += len(new)
    if keys:
        store.append("meta", pa.table({"kind": kinds, "key": keys, "at": [at] * len(keys),
                                       "by": [by] * len(keys), "data": datas}))
    return added


def revision_id(trace_id: str, n: int) -> str:
    """The run id of a trace's ``n``-th revision: ``otel:<trace>``, then ``otel:<trace>.r2``, ...
    (a run id's characters are letters, digits and ``._:-``: docs/events.md)."""
    return f"otel:{trace_id}" if n <= 1 else f"otel:{trace_id}.r{n}"


def revision_number(run_id: str) -> int:
    head, dot, tail = run_id.rpartition(".r")
    return int(tail) if dot and tail.isdigit() else 1


@dataclasses.dataclass
class Revision:
    """A trace's current run: its id, the span ids it holds, and the id a revision would take."""

    trace_id: str
    run_id: str
    spans: set[str]

    @property
    def next_id(self) -> str:
        return revision_id(self.trace_id, revision_number(self.run_id) + 1)


def current_runs(store: Any, trace_ids: Sequence[str]) -> tuple[dict[str, Revision], list[tuple[str, str, str]]]:
    """The current run of each of these traces that has one, and the supersessions to record
    again: a revision written by an import that stopped before recording that it supersedes the
    run before it (the run is written first, so the newest written revision is the current one)."""
    heads = {t: f"otel:{t}" for t in _finished(store, trace_ids)}
    if not heads:
        return {}, []
    chains = revisions.superseded(store)  # small: one row per revision ever written
    for t in heads:
        heads[t] = revisions.latest(heads[t], chains)
    repairs: list[tuple[str, str, str]] = []
    while True:
        nxt = {t: revision_id(t, revision_number(r) + 1) for t, r in heads.items()}
        found = _finished_runs(store, nxt.values())
        moved = [t for t, r in nxt.items() if r in found]
        if not moved:
            break
        for t in moved:
            repairs.append((heads[t], nxt[t], "a later revision of the same trace (recorded again: the import "
                                               "that wrote it stopped before recording it)"))
            heads[t] = nxt[t]
    held = _span_ids(store, list(heads.values()))
    return {t: Revision(t, r, held.get(r, set())) for t, r in heads.items()}, repairs


def _span_ids(store: Any, run_ids: list[str]) -> dict[str, set[str]]:
    """run id -> the spans the written run holds: the root and step spans, and the structure
    spans run_started keeps (one read for all the runs)."""
    table = store.read("events", columns=["run_id", "data"], filter=pc.field("run_id").isin(run_ids))
    out: dict[str, set[str]] = {}
    for run_id, data in zip(table.column("run_id").to_pylist(), table.column("data").to_pylist()):
        otel = (json.loads(data).get("extra") or {}).get("otel") or {}
        if not isinstance(otel, dict):
            continue
        mine = out.setdefault(run_id, set())
        for d in [otel, *(otel.get("structure") or [])]:
            if isinstance(d, dict) and d.get("span_id"):
                mine.add(d["span_id"])
    return out
