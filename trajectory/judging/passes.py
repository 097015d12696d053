"""Writing a pass, and reading passes back.

A pass is atomic. All its verdicts are appended in one commit, then one row in ``passes``
makes them visible: the views join verdicts to passes, so a pass killed before its pass row is
written leaves no visible trace, and one killed after has left everything.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import json
import secrets
import shlex
from collections import Counter
from collections.abc import Sequence
from typing import Any

import msgspec
import pyarrow as pa

from judges.base import OUTCOMES, Verdict
from replay.state import RunState

from trajectory.runtime import interrupts
from trajectory.query.sql import Views, json_default, record_holdout_view
from trajectory.runtime.people import current_user
from trajectory.redact import redact_text
from trajectory.store.delta import Store, now_utc
from trajectory.records import CheckRow, PassRow, VerdictRow, as_dicts
from trajectory.store.tables import PASSES_SCHEMA, VERDICTS_SCHEMA
from trajectory.text import hint, plural


def to_json(value: Any) -> str:
    """JSON text of a check's expected/actual value or a verdict's details."""
    return msgspec.json.encode(value, enc_hook=json_default).decode()


def params_key(params: dict[str, Any] | None) -> str | None:
    """A run's task parameters as the verdicts table keeps them: JSON text with sorted keys."""
    return None if params is None else msgspec.json.encode(params, order="sorted").decode()


def verdict_row(
    pass_id: str,
    state: RunState,
    verdict: Verdict,
    version: str,
    at: _dt.datetime,
    split: str | None = None,
    *,
    partner: str | None = None,
    judgements: int = 0,
) -> VerdictRow:
    """One row of the verdicts table (its record: trajectory/records.py).

    ``split``: the run's pool as ingest resolved it (the state's own ``split`` is only what
    run_started said). ``partner``: the run id of the pair partner the judge was given;
    ``judgements``: how many recorded LLM judgements it was given. With the run's last seq and
    its parameters they are what an incremental pass compares to decide whether the verdict
    still stands.
    """
    return VerdictRow(
        pass_id=pass_id,
        run_id=state.run_id,
        suite=state.suite,
        task=state.task,
        batch=state.batch,
        split=split or state.split,
        outcome=verdict.outcome,
        score=float(verdict.score),
        # An error's reason is an exception's text: it may quote a key (an LLM client's header).
        reason=redact_text(verdict.reason) if verdict.outcome == "error" else verdict.reason,
        checks=[
            CheckRow(
                name=c.name,
                passed=bool(c.passed),
                expected=to_json(c.expected),
                actual=to_json(c.actual),
                reason=c.reason,
            )
            for c in verdict.checks
        ],
        judge_version=version,
        judged_at=at,
        details=None if verdict.details is None else to_json(verdict.details),
        params=params_key(state.params),
        judged_seq=state.seq,
        partner=partner,
        judgements=judgements,
    )


class Unjudged(msgspec.Struct, frozen=True, kw_only=True):
    """A selected run no suite here can judge: it keeps the verdict it has."""

    run_id: str
    suite: str | None
    task: str | None
    unknown: str  # "suite" (no suite of that name) or "task" (the suite has no such task)


def new_pass_id(at: _dt.datetime) -> str:
    # Sorts by time, then by a random tail so that two passes in one microsecond still differ.
    return f"p{at.strftime('%Y%m%dT%H%M%S%f')}-{secrets.token_hex(2)}"


@dataclasses.dataclass
class PassResult:
    """One pass: its verdict rows (in run order), and whether they were written."""

    pass_id: str
    started_at: _dt.datetime
    finished_at: _dt.datetime
    rows: list[VerdictRow]
    open_runs: int
    written: bool
    versions: dict[str, str]  # suite name -> code version
    up_to_date: int = 0  # selected finished runs an incremental pass left with their verdicts
    dry_run: bool = False
    #: Suites registered in the store that this machine has not trusted (name -> the line that
    #: says how to trust it), and how many selected runs of theirs were left unjudged.
    untrusted: dict[str, str] = dataclasses.field(default_factory=dict)
    untrusted_runs: int = 0
    #: Selected runs left unjudged because their suite or task is unknown here. They keep their verdicts.
    unresolved: list[Unjudged] = dataclasses.field(default_factory=list)

    @property
    def counts(self) -> Counter[str]:
        return Counter(r.outcome for r in self.rows)

    def summary(self) -> str:
        c = self.counts
        parts = ", ".join(f"{c[k]} {k}" for k in OUTCOMES if c[k])
        if not self.rows and self.unresolved:
            line = "judged nothing: no run it was asked to judge could be judged"
            if self.up_to_date:
                line += f"; {self.up_to_date} up to date"
        elif not self.rows and self.up_to_date:
            # An incremental pass that found every verdict standing writes no pass at all.
            line = f"nothing to judge: {plural(self.up_to_date, 'run')} up to date (judge --all judges them again)"
        elif not self.rows:
            line = "no finished runs to judge"
        else:
            line = f"pass {self.pass_id}: judged {plural(len(self.rows), 'run')}" + (f" ({parts})" if parts else "")
            if self.up_to_date:
                line += f"; {self.up_to_date} up to date"
        if self.open_runs:
            line += f"; left {plural(self.open_runs, 'open run')} unjudged"
        if self.dry_run:
            line += " [dry run: nothing written]"
        elif not self.written:
            line += "; nothing written"
        return line

    def unresolved_groups(self) -> list[dict[str, Any]]:
        """The unjudged runs by suite and task: ``{suite, task, unknown, runs, example_run}``,
        the largest group first."""
        groups: dict[tuple[str | None, str | None, str], list[str]] = {}
        for r in self.unresolved:
            key = (r.suite, r.task if r.unknown == "task" else None, r.unknown)
            groups.setdefault(key, []).append(r.run_id)
        ranked = sorted(groups.items(), key=lambda kv: (-len(kv[1]), str(kv[0])))
        return [{"suite": s, "task": t, "unknown": u, "runs": len(ids), "example_run": ids[0]}
                for (s, t, u), ids in ranked]

    def unresolved_lines(self, known_tasks: Any = None) -> list[str]:
        """What the pass left unjudged and how to judge it: one line per unknown suite or task,
        then how to register a suite. ``known_tasks(suite)``: a few task ids of a suite."""
        if not self.unresolved:
            return []
        lines = [f"skipped {plural(len(self.unresolved), 'run')} traj cannot judge here "
                 "(they keep their current verdicts):"]
        for g in self.unresolved_groups():
            n = plural(g["runs"], "run")
            if g["unknown"] == "suite":
                lines.append(f"  {n} of suite {g['suite']!r}: no suite of that name is registered or bundled "
                             f"(e.g. {hint('traj show ' + shlex.quote(g['example_run']))})")
            else:
                tasks = known_tasks(g["suite"]) if known_tasks is not None else None
                has = f"; it has {tasks}" if tasks else ""
                lines.append(f"  {n} of task {g['task']!r}: suite {g['suite']!r} has no such task{has} "
                             f"(e.g. {hint('traj show ' + shlex.quote(g['example_run']))})")
        lines.append(f"  to judge them, register a suite under that name: {hint('traj suite add NAME PATH')} (a suite "
                     "folder, or Inspect scorers as file.py:function); traj runs its code, so register only "
                     "code you trust (docs/suites.md)")
        return lines

    def top_reasons(self, n: int = 5) -> list[dict[str, Any]]:
        """The most common reasons of error and fail verdicts (errors first): what to look at
        after a pass. Each: outcome, reason, count and one run that has it."""
        return top_reasons(self.rows, n)


def shown_pool(store: Any, result: PassResult, split: str) -> tuple[PassResult, int]:
    """The pass as it may be shown: without ``--split holdout`` the holdout runs' verdicts
    (and the counts, reasons and flips they would feed) are left out; with it, they are shown
    and the look is recorded. The pass itself is written whole either way."""
    holdout = [r for r in result.rows if r.split == "holdout"]
    if not holdout:
        return result, 0
    if split == "holdout":
        record_holdout_view(store, "judge", {"runs": len(holdout), "pass": result.pass_id})
        return result, 0
    shown = [r for r in result.rows if r.split != "holdout"]
    return dataclasses.replace(result, rows=shown), len(holdout)


def top_reasons(rows: Sequence[VerdictRow], n: int = 5) -> list[dict[str, Any]]:
    """See :meth:`PassResult.top_reasons`."""
    counts: Counter[tuple[str, str]] = Counter()
    example: dict[tuple[str, str], str] = {}
    for r in rows:
        if r.outcome in ("error", "fail"):
            key = (r.outcome, r.reason or "(no reason given)")
            counts[key] += 1
            example.setdefault(key, r.run_id)
    ranked = sorted(counts.items(), key=lambda kv: (kv[0][0] != "error", -kv[1], kv[0][1]))
    return [{"outcome": o, "reason": reason, "count": c, "example_run": example[(o, reason)]}
            for (o, reason), c in ranked[:n]]


def write_pass(
    store: Store,
    result: PassResult,
    *,
    kind: str,
    by: str | None,
    command: str | None,
    filters: dict[str, Any],
    note: str | None = None,
) -> None:
    """Commit a pass: its verdicts, then the pass row that makes them visible.

    Both commits are one step for Ctrl-C (trajectory/runtime/interrupts.py): a pass is written with
    its row, and noted, or not at all.
    """
    verdicts = pa.Table.from_pylist(as_dicts(result.rows), schema=VERDICTS_SCHEMA)
    with interrupts.committing():
        _commit_pass(store, result, verdicts, kind=kind, by=by, command=command, filters=filters, note=note)
        interrupts.note(f"{kind} pass {result.pass_id} ({plural(len(result.rows), 'verdict')})")
    result.written = True


def _commit_pass(
    store: Store, result: PassResult, verdicts: pa.Table, *, kind: str, by: str | None, command: str | None,
    filters: dict[str, Any], note: str | None,
) -> None:
    store.append("verdicts", verdicts)
    row = PassRow(
        pass_id=result.pass_id,
        kind=kind,
        started_at=result.started_at,
        finished_at=now_utc(),
        runs=len(result.rows),
        by=by or current_user(),
        command=None if command is None else redact_text(command),
        filters=redact_text(json.dumps(filters, ensure_ascii=False)),
        versions=json.dumps(result.versions),
        note=None if note is None else redact_text(note),
    )
    store.append("passes", pa.Table.from_pylist(as_dicts([row]), schema=PASSES_SCHEMA))


def pass_rows(store: Store, pass_id: str) -> list[dict[str, Any]]:
    """The verdicts of one pass, by run."""
    with Views(store, split=None) as views:
        table = views.arrow("SELECT * FROM _history_all WHERE pass_id = ? ORDER BY run_id", [pass_id])
    return table.to_pylist()


def current_rows(store: Store, run_ids: Sequence[str] | None = None) -> dict[str, dict[str, Any]]:
    """The current (latest) verdict per run, all pools."""
    with Views(store, split=None) as views:
        table = views.arrow(
            "SELECT * FROM _history_all QUALIFY row_number() OVER "
            "(PARTITION BY run_id ORDER BY judged_at DESC, pass_id DESC) = 1"
        )
    rows = {r["run_id"]: r for r in table.to_pylist()}
    if run_ids is not None:
        wanted = set(run_ids)
        rows = {k: v for k, v in rows.items() if k in wanted}
    return rows


def passes(store: Store) -> list[dict[str, Any]]:
    """Every pass, oldest first."""
    if not store.has_table("passes"):
        return []
    return sorted(store.read("passes").to_pylist(), key=lambda r: (r["started_at"], r["pass_id"]))
