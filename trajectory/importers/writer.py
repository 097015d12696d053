"""Reading Inspect logs and OTLP files, and writing what the mappers make of them to the store.

The one module of the importers that does I/O. Per input (one Inspect log, or the OTLP files
of one command), everything is one all-or-nothing ingest batch: the runs, plus one judgement
run (suite ``traj.judgements``) holding the grader answers not recorded before, registered as
trusted once written (the person named the log, as with ``traj ingest --trust-judgements``). A
bad input gives ``FILE: sample S: message`` and writes nothing of it; the other inputs go on.

Runs already finished in the store are not sent again: a sample's run is identified by its
attempt (Inspect's sample uuid, the trace id), so re-importing a log adds nothing and a log that
grew — a resumed or retried eval, a trace file that gained traces — adds only its new runs.
The recorded scores become one ``imported`` pass per command, holding only the verdicts that
are new or differ from the run's latest imported verdict (a re-scored log keeps its history).
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import hashlib
import json
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import msgspec
import pyarrow.compute as pc

from judges.base import OUTCOMES, Verdict
from replay.state import RunState

from trajectory.runtime import interrupts
from trajectory.errors import SchemaError, TrajError
from trajectory.ingest.batchplan import ingest_events
from trajectory.ingest.plain import Parsed, parse
from trajectory.judging import JUDGEMENT_SUITE, PassResult, SuiteResolver, new_pass_id, recorded_judgements, verdict_row, write_pass
from trajectory.query.sql import Views
from trajectory.records import VerdictRow
from trajectory.store.delta import Store, now_utc
from trajectory.text import hint, plural
from trajectory.judging.trust import trust_runs

REVISED_SHOWN = 10  # revised traces named one per line; the rest counted
CHUNK = 200  # samples read from an .eval log at once (bounded memory, one zip directory read)


@dataclasses.dataclass
class MappedRun:
    """One run as the mappers give it: wire-form events and the recorded verdict (if any)."""

    run_id: str
    label: str  # "sample 3 epoch 1", "trace 4bf9…": how errors name it
    events: list[dict[str, Any]]
    verdict: Verdict | None


@dataclasses.dataclass
class RecordedAnswer:
    judge: str
    model: str
    key: str
    output: dict[str, Any]
    ts: _dt.datetime
    extra: dict[str, Any] | None = None


@dataclasses.dataclass
class Source:
    """One input of an import: its runs and grader answers, or why it cannot be read."""

    name: str
    runs: list[MappedRun] = dataclasses.field(default_factory=list)
    answers: list[RecordedAnswer] = dataclasses.field(default_factory=list)
    version: str = "recorded"
    error: str | None = None
    open_traces: list[str] = dataclasses.field(default_factory=list)  # OTel: root span not there yet


@dataclasses.dataclass
class SourceReport:
    name: str
    runs: int = 0
    events: int = 0
    new_runs: int = 0
    new_events: int = 0
    known_runs: int = 0  # finished in the store already: not sent again
    judgements: int = 0
    open_traces: int = 0  # OTel: traces pending (their spans kept until the root span comes)
    completed_traces: int = 0  # OTel: pending traces whose root came now, written as runs
    #: OTel: traces whose run was written before some of their spans came, written again
    #: complete: ``{"trace_id", "late_spans", "run_id" (the new revision), "supersedes"}``
    revised: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    late_spans: int = 0  # OTel: spans of traces whose run was written by a traj that kept no spans
    late_traces: int = 0
    error: str | None = None


@dataclasses.dataclass
class ImportReport:
    importer: str
    sources: list[SourceReport]
    pass_result: PassResult | None = None
    unchanged_verdicts: int = 0

    @property
    def failed(self) -> list[SourceReport]:
        return [s for s in self.sources if s.error is not None]

    def lines(self) -> list[str]:
        """One line per input read and one for the pass, for people."""
        out = []
        for s in self.sources:
            if s.error is None:
                out.append(f"{s.name}: {plural(s.runs, 'run')}, {plural(s.events, 'event')} read: "
                           f"{plural(s.new_runs, 'new run')} ({plural(s.new_events, 'event')}), "
                           f"{s.known_runs} already imported"
                           + (f", {plural(s.judgements, 'grader answer')} recorded" if s.judgements else "")
                           + (f", {plural(s.completed_traces, 'pending trace')} completed" if s.completed_traces else "")
                           + (f"; {plural(s.open_traces, 'trace')} pending (no root span yet): spans kept in the "
                              f"store until a file with the root is imported ({hint('traj import otel --pending')} "
                              "lists them)"
                              if s.open_traces else ""))
                for r in s.revised[:REVISED_SHOWN]:
                    out.append(f"{s.name}: trace {r['trace_id']}: {plural(r['late_spans'], 'span')} arrived after its "
                               f"run was written; written again as {r['run_id']}, {r['supersedes']} kept as history")
                if len(s.revised) > REVISED_SHOWN:
                    out.append(f"{s.name}: and {len(s.revised) - REVISED_SHOWN} more traces written again "
                               "(--json lists them all)")
                if s.late_spans:
                    out.append(f"{s.name}: {plural(s.late_spans, 'span')} of {plural(s.late_traces, 'trace')} came "
                               "after the trace's run was written, and that run's spans were not kept (an older traj "
                               "wrote it): kept now; import the file with its root span again to write the run "
                               "complete (the written run stays as history)")
        if self.pass_result is not None:
            c = self.pass_result.counts
            parts = ", ".join(f"{c[k]} {k}" for k in OUTCOMES if c[k])
            out.append(f"recorded scores: {plural(len(self.pass_result.rows), 'verdict')} ({parts}) as imported pass "
                       f"{self.pass_result.pass_id}" + (f"; {self.unchanged_verdicts} unchanged" if self.unchanged_verdicts else ""))
        elif self.unchanged_verdicts:
            out.append(f"recorded scores: all {self.unchanged_verdicts} already imported")
        return out

    def to_json(self) -> dict[str, Any]:
        p = self.pass_result
        return {
            "importer": self.importer,
            "sources": [dataclasses.asdict(s) for s in self.sources],
            "pass_id": p.pass_id if p else None,
            "verdicts": dict(p.counts) if p else {},
            "unchanged_verdicts": self.unchanged_verdicts,
        }


# -- writing --------------------------------------------------------------------------------


def _finished(store: Store, run_ids: Sequence[str]) -> set[str]:
    if not run_ids or not store.has_table("events"):
        return set()
    table = store.read("events", columns=["run_id"],
                       filter=(pc.field("kind") == "run_finished") & pc.field("run_id").isin(list(run_ids)))
    return set(table.column("run_id").to_pylist())


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _parse_run(source: str, run: MappedRun) -> list[Parsed]:
    encode = msgspec.json.encode
    try:
        return parse(b"\n".join(encode(e) for e in run.events), source)
    except SchemaError as exc:
        # "FILE:LINE: $.path: ..." of a line made here: name the sample instead of the line.
        first = str(exc).splitlines()[0]
        detail = first.split(": ", 1)[1] if first.startswith(source + ":") else first
        raise SchemaError(f"{source}: {run.label}: {detail}") from None
    except (TypeError, ValueError, msgspec.EncodeError) as exc:  # an object that is not JSON
        raise SchemaError(f"{source}: {run.label}: {_one_line(exc)}") from None


def _answers_run(source: Source, answers: list[RecordedAnswer]) -> list[dict[str, Any]]:
    """A judgement run holding grader answers; its id is a digest of its content, so the same
    answers give the same run (a no-op) and new ones a new run."""
    blob = json.dumps([[a.judge, a.model, a.key, a.output] for a in answers], sort_keys=True, ensure_ascii=False)
    run_id = f"judgements:{hashlib.blake2b(blob.encode(), digest_size=12).hexdigest()}"
    first = min(a.ts for a in answers)
    events: list[dict[str, Any]] = [{
        "run_id": run_id, "seq": 0, "ts": first.isoformat(), "kind": "run_started", "suite": JUDGEMENT_SUITE,
        "task": "recorded", "mode": "text", "agent": {"name": f"imported from {Path(source.name).name}"},
    }]
    for a in answers:
        e = {"run_id": run_id, "seq": len(events), "ts": a.ts.isoformat(), "kind": "judgement_recorded",
             "judge": a.judge, "model": a.model, "key": a.key, "output": a.output}
        if a.extra:
            e["extra"] = a.extra
        events.append(e)
    events.append({"run_id": run_id, "seq": len(events), "ts": max(a.ts for a in answers).isoformat(),
                   "kind": "run_finished", "outcome": "succeeded"})
    return events


def _ident(judge: str, model: str, key: str, output: dict[str, Any]) -> tuple[str, str, str, str]:
    """An answer's identity: the same text for the same prompt from the same model is the same
    answer, whatever else (timings, ids) its recorded output carries."""
    raw = output.get("raw")
    return (judge, model, key, raw if isinstance(raw, str) else json.dumps(output, sort_keys=True, ensure_ascii=False))


def _new_answers(store: Store, answers: list[RecordedAnswer], known: set[tuple[str, str, str, str]]) -> list[RecordedAnswer]:
    out = []
    for a in answers:
        ident = _ident(a.judge, a.model, a.key, a.output)
        if ident not in known:
            known.add(ident)
            out.append(a)
    return out


def _write_source(store: Store, src: Source, known_answers: set[tuple[str, str, str, str]],
                  split_of: Callable[[str, str], str | None], *, importer: str, by: str | None) -> SourceReport:
    report = SourceReport(src.name, runs=len(src.runs), events=sum(len(r.events) for r in src.runs),
                          open_traces=len(src.open_traces))
    seen: dict[str, str] = {}
    for r in src.runs:
        if r.run_id in seen:
            raise SchemaError(f"{src.name}: {r.label}: same run id {r.run_id} as {seen[r.run_id]}")
        seen[r.run_id] = r.label
    done = _finished(store, [r.run_id for r in src.runs])
    report.known_runs = len(done)
    parsed: list[Parsed] = []
    for r in src.runs:
        if r.run_id not in done:
            parsed.extend(_parse_run(src.name, r))
    fresh = _new_answers(store, src.answers, set(known_answers))
    answers = _answers_run(src, fresh) if fresh else []
    if answers:
        parsed.extend(_parse_run(src.name, MappedRun("", "grader answers", answers, None)))
    with interrupts.committing():  # the runs and the trust in their answers: one step for Ctrl-C
        result = ingest_events(store, parsed, src.name, split_of=split_of)
        if answers:
            # The import wrote these answers from the log the person named, as `traj judge --llm`
            # writes the ones it asks: only now do they count (trajectory/judging/trust.py). A crash before
            # this line leaves them ingested but not counted; importing again registers them.
            trust_runs(store, [answers[0]["run_id"]], by=by or "traj import", via=f"traj import {importer} {src.name}")
    known_answers |= {_ident(a.judge, a.model, a.key, a.output) for a in fresh}
    report.new_events = result.new
    report.new_runs = result.new_runs - (1 if fresh else 0)
    report.judgements = len(fresh)
    return report


def _latest_imported(store: Store, run_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    """The latest verdict of an imported pass, per run."""
    if not run_ids or not store.has_table("verdicts"):
        return {}
    import pyarrow as pa

    with Views(store, split=None) as views:
        views.con.register("_wanted", pa.table({"run_id": list(run_ids)}))
        table = views.arrow(
            "SELECT * FROM _history_all WHERE pass_kind = 'imported' AND run_id IN (SELECT run_id FROM _wanted) "
            "QUALIFY row_number() OVER (PARTITION BY run_id ORDER BY judged_at DESC, pass_id DESC) = 1"
        )
    return {r["run_id"]: r for r in table.to_pylist()}


def _same(row: VerdictRow, old: dict[str, Any]) -> bool:
    """Does a new imported verdict say what the run's last imported one (read back) said?"""
    if row.outcome != old["outcome"] or row.reason != old["reason"] or abs((row.score or 0) - (old["score"] or 0)) > 1e-12:
        return False
    fields = ("name", "passed", "expected", "actual", "reason")
    return [tuple(getattr(c, f) for f in fields) for c in row.checks] == [tuple(c[f] for f in fields) for c in old["checks"] or []]


def import_sources(
    store: Store,
    sources: Iterable[Source],
    *,
    importer: str,
    by: str | None = None,
    command: str | None = None,
    filters: dict[str, Any] | None = None,
) -> ImportReport:
    """Write every readable source (each all or nothing), then one imported pass with the new
    or changed recorded verdicts. Sources that cannot be read are reported, not raised."""
    resolver = SuiteResolver(store)
    known = {_ident(j.judge, j.model, j.key, j.output) for j in recorded_judgements(store)}
    reports: list[SourceReport] = []
    verdicts: list[tuple[MappedRun, str]] = []
    for src in sources:
        if src.error is not None:
            reports.append(SourceReport(src.name, error=src.error))
            continue
        try:
            reports.append(_write_source(store, src, known, resolver.split_of, importer=importer, by=by))
        except TrajError as exc:
            reports.append(SourceReport(src.name, error=str(exc)))
            continue
        verdicts += [(r, src.version) for r in src.runs if r.verdict is not None]
    report = ImportReport(importer, reports)
    if not verdicts:
        return report
    started = now_utc()
    pass_id = new_pass_id(started)
    earlier = _latest_imported(store, [r.run_id for r, _ in verdicts])
    rows = []
    for run, version in verdicts:
        row = verdict_row(pass_id, _named(run), run.verdict, version, started)  # type: ignore[arg-type]
        old = earlier.get(run.run_id)
        if old is not None and _same(row, old):
            report.unchanged_verdicts += 1
            continue
        rows.append(row)
    if not rows:
        return report
    versions = {importer: ", ".join(sorted({v for _, v in verdicts}))}
    result = PassResult(pass_id, started, now_utc(), rows, 0, False, versions)
    write_pass(store, result, kind="imported", by=by, command=command,
               filters={"importer": importer, **(filters or {})},
               note=f"scores recorded in {len([s for s in reports if s.error is None])} {importer} input(s)")
    report.pass_result = result
    return report


def _named(run: MappedRun) -> RunState:
    """What a verdict row names of its run (id, suite, task, batch, split), from run_started."""
    start = run.events[0]
    return RunState(run_id=run.run_id, suite=start.get("suite"), task=start.get("task"),
                    batch=start.get("batch"), split=start.get("split"))
