"""What ``traj show`` and ``traj runs`` print, as plain functions over the store."""

from __future__ import annotations

import json
from typing import Any

import pyarrow as pa

from replay import RunState, view

from . import events as ev
from .judging import load_events, load_state
from .query import Views, record_holdout_view, run_filter
from .query_limits import QueryLimits
from .store import Store


def summary(event: ev.Event) -> str:
    """One line for an event: its kind and the fields the declaration marks to show."""
    return ev.declaration().summary(event)


def timeline(store: Store, run_id: str, at: int | None = None) -> tuple[RunState, list[str]]:
    """A run's state after events 0..at (all without ``at``) and the text ``traj show`` prints."""
    state = load_state(store, run_id, at)
    events = [e for e in load_events(store, [run_id])[run_id] if at is None or e.seq <= at]
    lines = [f"run {state.run_id}  suite {state.suite}  task {state.task}  mode {state.mode}"]
    if state.batch or state.agent_name:
        lines.append(f"batch {state.batch}  agent {state.agent_name} ({state.agent_model})")
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
    return state, lines


def list_runs(store: Store, *, suite: str | None = None, batch: str | None = None, split: str = "tune") -> pa.Table:
    """The runs of a pool with their current verdicts, oldest first (a holdout look is recorded)."""
    cond, params = run_filter(suite=suite, batch=batch, alias="r")
    with Views(store, split=split) as views:
        table = views.arrow(
            "SELECT r.run_id, r.suite, r.task, r.batch, r.agent, r.mode, r.split, r.outcome, "
            "r.steps, r.tokens, r.duration_ms, v.outcome AS verdict, v.score "
            f"FROM runs r LEFT JOIN verdicts v USING (run_id) WHERE {cond} ORDER BY r.started_at, r.run_id",
            params,
        )
    if split == "holdout":
        record_holdout_view(store, "runs", {"suite": suite, "batch": batch})
    return table


def run_query(
    store: Store, sql: str, *, split: str = "tune", version: int | None = None, limits: QueryLimits | None = None
) -> pa.Table:
    """A person's SQL over the views, sandboxed and within ``limits`` (time, rows, memory);
    a holdout look is recorded."""
    with Views(store, split=split, version=version, limits=limits) as views:
        table = views.user_query(sql)
    if split == "holdout":
        record_holdout_view(store, "query", {"sql": sql})
    return table


def status(store: Store) -> dict[str, Any]:
    """What the store holds: its format, each table's version and files, open journals."""
    from .recorder import open_journals

    return {
        "store": str(store.loc),
        "format": store.format_version(),
        "tables": {
            name: {"version": store.version(name), "files": len(store.files(name))}
            for name in store.table_names() if store.has_table(name)
        },
        "journals": len(open_journals(store)),
    }
