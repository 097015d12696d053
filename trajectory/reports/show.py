"""What ``traj show`` and ``traj runs`` print, as plain functions over the store."""

from __future__ import annotations

import json
from typing import Any

import pyarrow as pa

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
) -> tuple[pa.Table, int, dict[str | None, int]]:
    """The runs of a pool with their current verdicts (override-aware: ``decided_by`` says
    judge or human) and the verdict's reason, newest first; at most ``limit`` of them, how
    many there are in all, and how many of them have each current verdict (None: not judged).
    A holdout look is recorded."""
    cond, params = run_filter(suite=suite, batch=batch, alias="r")
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
            "ORDER BY r.started_at DESC, r.run_id DESC" + (f" LIMIT {int(limit)}" if limit is not None else ""),
            params,
        )
    if split == "holdout":
        record_holdout_view(store, "runs", {"suite": suite, "batch": batch})
    return table, int(total), outcomes


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
