"""Traces waiting for their root span: kept in the store until an import brings it.

Collectors rotate their files, so a trace's spans often arrive in several files, and the root
(which ends last) in the last one. A trace whose root has not been seen yet is *pending*: its
spans are stored as they were read, in the store's ``meta`` log (kind ``otel.pending``, key =
the trace id, data = the spans as JSON), and it is not a run yet. Each ``traj import otel``
adds the pending spans of the traces it reads to theirs, so a trace whose root arrives later
becomes one complete run, written in span-time order and sealed, whatever the order and
grouping of its files. Spans already kept are not kept twice; a trace whose run is written is no
longer pending (its rows stay, as history, and are ignored).

``traj import otel --pending`` lists the pending traces; importing the file that holds their
roots completes them.
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

KIND = "otel.pending"


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
    return dataclasses.asdict(s)


def span_of(d: Mapping[str, Any]) -> Span:
    fields = dict(d)
    fields["events"] = [SpanEvent(**e) for e in fields.get("events") or []]
    return Span(**fields)


def _rows(store: Any) -> list[dict[str, Any]]:
    if not store.has_table("meta"):
        return []
    return store.read("meta", columns=["key", "at", "by", "data"], filter=pc.field("kind") == KIND).to_pylist()


def _finished(store: Any, trace_ids: Iterable[str]) -> set[str]:
    ids = [f"otel:{t}" for t in trace_ids]
    if not ids or not store.has_table("events"):
        return set()
    table = store.read("events", columns=["run_id"],
                       filter=(pc.field("kind") == "run_finished") & pc.field("run_id").isin(ids))
    return {r.removeprefix("otel:") for r in table.column("run_id").to_pylist()}


def kept_spans(store: Any) -> dict[str, dict[str, Span]]:
    """trace id -> span id -> span, of every trace whose run is not written yet."""
    out: dict[str, dict[str, Span]] = {}
    for row in _rows(store):
        data = json.loads(row["data"])
        spans = out.setdefault(row["key"], {})
        for d in data["spans"]:
            spans.setdefault(d["span_id"], span_of(d))
    done = _finished(store, out)
    return {t: s for t, s in out.items() if t not in done}


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
         *, by: str, at: _dt.datetime) -> int:
    """Store the spans of rootless traces that are not kept yet (``known``: trace id -> span ids
    kept before); returns how many spans were added."""
    keys, datas = [], []
    added = 0
    for tid, spans in traces.items():
        old = set(known.get(tid, ()))
        new = [span_json(s) for s in spans if s.span_id not in old]
        if not new:
            continue
        keys.append(tid)
        datas.append(json.dumps({"spans": new, "files": files}, ensure_ascii=False))
        added += len(new)
    if keys:
        store.append("meta", pa.table({"kind": [KIND] * len(keys), "key": keys, "at": [at] * len(keys),
                                       "by": [by] * len(keys), "data": datas}))
    return added


def late_spans(store: Any, traces: Mapping[str, Sequence[Span]]) -> dict[str, int]:
    """Of rootless traces whose run was written already (its root came in an earlier import),
    how many of their spans that run lacks: a sealed run is never changed, so these are said."""
    done = _finished(store, traces)
    if not done:
        return {}
    ids = [f"otel:{t}" for t in done]
    table = store.read("events", columns=["run_id", "data"], filter=pc.field("run_id").isin(ids))
    stored: dict[str, set[str]] = {}
    for run_id, data in zip(table.column("run_id").to_pylist(), table.column("data").to_pylist()):
        otel = (json.loads(data).get("extra") or {}).get("otel") or {}
        if not isinstance(otel, dict):
            continue
        ids = stored.setdefault(run_id.removeprefix("otel:"), set())
        # the root and step spans, and the structure spans run_started keeps
        for d in [otel, *(otel.get("structure") or [])]:
            if isinstance(d, dict) and d.get("span_id"):
                ids.add(d["span_id"])
    return {t: sum(s.span_id not in stored.get(t, set()) for s in traces[t]) for t in done}
