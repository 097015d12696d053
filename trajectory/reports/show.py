"""What ``traj show`` and ``traj runs`` print, as plain functions over the store."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

import pyarrow as pa

from judges.base import OUTCOMES
from replay import RunState, view

from trajectory import events as ev
from trajectory.columns import declaration
from trajectory.judging import load_events, load_state
from trajectory.query.names import check_names
from trajectory.query.sql import Views, record_holdout_view, run_filter
from trajectory.errors import QueryError
from trajectory.query.limits import QueryLimits
from trajectory.query.revisions import superseded
from trajectory.store.delta import Store
from trajectory.text import hint
from trajectory.query.verdicts import current_verdict, overrides_of_run, pool_of, verdict_history


def summary(event: ev.Event) -> str:
    """One line for an event: its kind and the fields the declaration marks to show."""
    return declaration().summary(event)


def timeline(
    store: Store, run_id: str, at: int | None = None, split: str = "tune"
) -> tuple[RunState, list[str]]:
    """A run's state after events 0..at (all without ``at``) and the text ``traj show`` prints:
    its verdict too, unless it is a holdout run and ``split`` is not holdout (see
    :func:`verdict_lines`)."""
    state = load_state(store, run_id, at)
    events = [e for e in load_events(store, [run_id])[run_id] if at is None or e.seq <= at]
    lines = [f"run {state.run_id}  suite {state.suite}  task {state.task}  mode {state.mode}"]
    about = []
    if state.batch:
        about.append(f"batch {state.batch}")
    if state.agent_name or state.agent_model:
        # Only what the run says: no "None" for an agent it does not name.
        agent = state.agent_name or "(unnamed)"
        about.append(f"agent {agent}" + (f" ({state.agent_model})" if state.agent_model else ""))
    if about:
        lines.append("  ".join(about))
    later = superseded(store, [run_id]).get(run_id)
    if later is not None:
        lines.append(f"superseded by {later['superseded_by']} ({_when(later['at'])}, {later['by']}): {later['reason']}; "
                     "this run is kept as history and is not judged, listed or counted")
    lines.append("timeline:")
    lines += [f"  {e.seq:>4}  {e.ts.isoformat()}  {summary(e)}" for e in events]
    lines.append(f"state at seq {state.seq}:")
    v = view(state)
    route = v["route"]
    lines.append(f"  route: {route['app']}{route['path'] or ''}" if route else "  route: (none)")
    lines.append(f"  sheet: {json.dumps(v['sheet']['answers'], ensure_ascii=False)} submitted={v['sheet']['submitted']}")
    lines.append(f"  answer: {v['answer']!r}" if v["answer"] is not None else "  answer: (none)")
    lines.append(f"  screens: {len(v['screens'])}, steps: {v['steps']}, state changes: {state.state_changes}")
    lines.append(f"  outcome: {v['outcome'] or '(open)'}")
    return state, lines + verdict_lines(store, run_id, split)


def _value(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 80 else text[:77] + "..."


def _when(at: Any) -> str:
    return at.strftime("%Y-%m-%d %H:%M UTC") if hasattr(at, "strftime") else str(at)


def holdout_hidden(store: Store, run_id: str, split: str) -> bool:
    """A holdout run's verdicts are shown only when asked for with ``--split holdout``, and
    that look is recorded, as every look at the holdout pool is."""
    if pool_of(store, run_id) != "holdout":
        return False
    if split == "holdout":
        record_holdout_view(store, "show", {"run": run_id})
        return False
    return True


def verdict_lines(store: Store, run_id: str, split: str = "tune") -> list[str]:
    """The run's current verdict with every check, then its overrides and verdict history."""
    if holdout_hidden(store, run_id, split):
        return ["verdict: (a holdout run: shown with --split holdout, and the look is recorded)"]
    current = current_verdict(store, run_id)
    if current is None:
        return [f"verdict: (not judged yet: run `{hint('traj judge')}`)"]
    lines = []
    if current["decided_by"] == "human":
        auto = current["auto_outcome"] or "unjudged"
        lines.append(f"verdict: {current['outcome']}, decided by a person ({current['override_by']}, "
                     f"{_when(current['override_at'])}; the judge says {auto}"
                     + (", settled" if current["settled"] else "") + ")")
        lines.append(f"  evidence: \u201c{current['override_evidence']}\u201d")
        reason = current["auto_reason"]
    else:
        lines.append(f"verdict: {current['outcome']} (score {current['score']:.3g})")
        reason = current["reason"]
    if current["pass_id"] is not None:
        lines.append(f"  judged by pass {current['pass_id']}, judge version {current['judge_version']}")
    if reason:
        lines.append(f"  reason: {reason}")
    for c in current["checks"]:
        mark = "pass" if c["passed"] else "FAIL"
        lines.append(f"  {mark}  {c['name']}: expected {_value(c['expected'])}, actual {_value(c['actual'])}")
        if c.get("reason") and not c["passed"]:
            lines.append(f"        {c['reason']}")
    overrides = overrides_of_run(store, run_id)
    if overrides:
        lines.append("overrides:")
        for o in overrides:
            cat = f" [{o['category']}]" if o.get("category") else ""
            lines.append(f"  {_when(o['at'])}  {o['by']}: {o['auto_outcome'] or 'unjudged'} → {o['to_outcome']}{cat}"
                         f"  \u201c{o['evidence']}\u201d")
    history = verdict_history(store, run_id)
    if history:
        lines.append("verdict history:")
        for h in history:
            lines.append(f"  {h['pass_id']}  {h['outcome']:<7}  {h['judge_version']}  {h['reason'] or ''}".rstrip())
    return lines


def show_json(store: Store, run_id: str, at: int | None = None, split: str = "tune") -> dict[str, Any]:
    """``traj show --json``: the replayed state (the spec's shape) plus the current verdict,
    the verdict history and the overrides (see docs/cli.md; none of them for a holdout run
    without ``split="holdout"``)."""
    state = load_state(store, run_id, at)
    later = superseded(store, [run_id]).get(run_id)
    later = None if later is None else {**later, "at": later["at"].isoformat()}
    if holdout_hidden(store, run_id, split):
        return {**view(state), "superseded": later, "verdict": None, "verdict_history": [], "overrides": [],
                "holdout_hidden": True}
    return {**view(state), "superseded": later, "verdict": current_verdict(store, run_id),
            "verdict_history": verdict_history(store, run_id), "overrides": overrides_of_run(store, run_id)}


def list_runs(
    store: Store,
    *,
    suite: str | None = None,
    batch: str | None = None,
    split: str = "tune",
    limit: int | None = None,
    verdicts: Sequence[str] | None = None,
) -> tuple[pa.Table, int, dict[str | None, int]]:
    """The runs of a pool with their current verdicts (override-aware: ``decided_by`` says
    judge or human) and the verdict's reason, newest first; at most ``limit`` of them, how
    many there are in all, and how many of them have each current verdict (None: not judged).
    ``verdicts``: only runs whose current verdict is one of these (``unjudged``: none yet),
    listed oldest first, as a queue is worked. A holdout look is recorded."""
    cond, params = run_filter(suite=suite, batch=batch, alias="r")
    order = "DESC"
    if verdicts:
        wanted = parse_verdicts(verdicts)
        named = [o for o in wanted if o != "unjudged"]
        conds = [f"v.outcome IN ({', '.join('?' for _ in named)})"] if named else []
        conds += ["v.outcome IS NULL"] if "unjudged" in wanted else []
        cond += f" AND ({' OR '.join(conds)})"
        params += named
        order = "ASC"
    with Views(store, split=split) as views:
        check_names(views.con, suite=suite, batch=batch)
        outcomes = {o: int(n) for o, n in views.con.execute(
            f"SELECT v.outcome, count(*) FROM runs r LEFT JOIN verdicts v USING (run_id) WHERE {cond} GROUP BY 1",
            params).fetchall()}
        total = sum(outcomes.values())
        table = views.arrow(
            "SELECT r.run_id, r.started_at, r.suite, r.task, r.batch, r.agent, r.mode, r.split, r.outcome, "
            "r.steps, r.tokens, r.duration_ms, v.outcome AS verdict, v.decided_by, v.score, v.reason "
            f"FROM runs r LEFT JOIN verdicts v USING (run_id) WHERE {cond} "
            f"ORDER BY r.started_at {order}, r.run_id {order}" + (f" LIMIT {int(limit)}" if limit is not None else ""),
            params,
        )
    if split == "holdout":
        record_holdout_view(store, "runs", {"suite": suite, "batch": batch})
    return table, int(total), outcomes


#: What ``--verdict`` may name: every outcome a verdict has, and ``unjudged`` for none yet.
VERDICT_FILTERS = (*OUTCOMES, "unjudged")


def parse_verdicts(values: Sequence[str]) -> list[str]:
    """``review,na`` (or repeated options) as outcomes; an unknown one is an error naming the
    outcomes there are (a typo never reads as an empty list)."""
    wanted = [v.strip() for value in values for v in value.split(",") if v.strip()]
    bad = [v for v in wanted if v not in VERDICT_FILTERS]
    if bad or not wanted:
        raise QueryError(f"--verdict must be one or more of {', '.join(VERDICT_FILTERS)} (comma-separated), "
                         f"got {', '.join(map(repr, bad or values))}")
    return list(dict.fromkeys(wanted))


def review_queue(store: Store, *, suite: str | None = None, batch: str | None = None, split: str = "tune",
                 outcomes: Sequence[str] = ("review", "na")) -> list[dict[str, Any]]:
    """The runs a person has to decide, oldest first: those whose current verdict is ``review``
    (the judge cannot tell) or ``na`` (the task's rules hand it to a person). Each with what a
    person needs to settle it: the task and its question, the answer, the verdict's reason and
    the checks that did not hold, and the screens the reason quotes (else the last one read).
    A run a person has settled (``traj override``) has a current verdict of pass or fail and
    leaves the queue. A holdout look is recorded."""
    table, _, _ = list_runs(store, suite=suite, batch=batch, split=split, verdicts=list(outcomes))
    rows = table.to_pylist()
    current = {}
    if rows:
        from trajectory.query.verdicts import current_verdicts

        current = current_verdicts(store, run_ids=[r["run_id"] for r in rows], split=None)
    out = []
    for r in rows:
        state = load_state(store, r["run_id"])
        v = current.get(r["run_id"], {})
        checks = [c for c in v.get("checks") or [] if not c.get("passed")]
        answer = state.answer if state.answer is not None else (
            json.dumps(state.sheet.answers, ensure_ascii=False, sort_keys=True) if state.sheet.answers else None)
        out.append({
            "run_id": r["run_id"], "started_at": r["started_at"], "suite": r["suite"], "task": r["task"],
            "batch": r["batch"], "verdict": r["verdict"], "decided_by": r["decided_by"], "reason": r["reason"],
            "question": state.goal, "answer": answer,
            "checks": [{"name": c["name"], "expected": c.get("expected"), "actual": c.get("actual"),
                        "reason": c.get("reason")} for c in checks],
            "screens": [{"seq": s.seq, "app": s.app, "text": s.text} for s in cited_screens(state, r["reason"])],
        })
    return out


def cited_screens(state: RunState, reason: str | None) -> list[Any]:
    """The screen reads that show a value the reason quotes ('明天', '4月7日'), else the last one."""
    quoted = [q for q in re.findall(r"'([^']{1,60})'", reason or "") if q.strip()]
    cited = [s for s in state.screens if any(q in s.text for q in quoted)]
    return cited or list(state.screens[-1:])


def run_query(
    store: Store, sql: str, *, split: str = "tune", version: int | None = None, limits: QueryLimits | None = None,
    record: bool = True,
) -> pa.Table:
    """A person's SQL over the views, sandboxed and within ``limits`` (time, rows, memory),
    in a worker process that is killed at the limits (the one entry point of ``traj query`` and
    ``traj view``); a holdout look is recorded (``record=False``: the caller records its own, as
    ``traj view`` records one per session)."""
    from trajectory.query.sql import SPLITS
    from trajectory.query.worker import answer

    if split is not None and split not in SPLITS:
        raise QueryError(f"--split must be one of {', '.join(SPLITS)}, got {split!r}")
    table = answer(store, sql, split=split, version=version, limits=limits or QueryLimits())
    if split == "holdout" and record:
        record_holdout_view(store, "query", {"sql": sql})
    return table


def status(store: Store) -> dict[str, Any]:
    """What the store holds: its format, each table's version and files, open journals."""
    from trajectory.ingest.recorder import open_journals

    return {
        "store": str(store.loc),
        "format": store.format_version(),
        "tables": {
            name: {"version": store.version(name), "files": len(store.files(name))}
            for name in store.table_names() if store.has_table(name)
        },
        "journals": len(open_journals(store)),
    }
