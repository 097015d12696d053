"""Current verdicts as a person means them, for every reader (runs, show, reports, the viewer).

A run's current verdict is the latest human override when there is one, else the latest
automatic verdict; the ``verdicts`` view (trajectory/query/sql.py, ``CURRENT_SQL``) says which
(``decided_by``: ``judge`` or ``human``) and keeps the automatic one beside it
(``auto_outcome``, ``auto_score``, ``auto_reason``). These functions read that view, so every
reader shows the same thing; ``checks`` come back with ``expected``/``actual`` as values, not
JSON text.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from trajectory.query.names import check_names
from trajectory.query.sql import Views, run_filter
from trajectory.store.delta import Store
from trajectory.text import json_or_text


def decode_row(row: dict[str, Any]) -> dict[str, Any]:
    """A verdict row with its JSON text fields (check values, details) decoded."""
    out = dict(row)
    out["checks"] = [
        {**c, "expected": json_or_text(c.get("expected")), "actual": json_or_text(c.get("actual"))}
        for c in row.get("checks") or []
    ]
    if isinstance(row.get("details"), str):
        out["details"] = json_or_text(row["details"])
    return out


def current_verdicts(
    store: Store,
    *,
    run_ids: Sequence[str] | None = None,
    suite: str | None = None,
    batch: str | None = None,
    split: str | None = "tune",
    history: bool = False,
) -> dict[str, dict[str, Any]]:
    """run id -> current verdict (override-aware) of the runs that have one, in a pool
    (``split=None``: all pools; reading holdout this way is not recorded, so keep it for code
    that shows holdout runs apart). ``history`` (with ``split=None``): superseded runs too, for
    a look at one run's own verdict."""
    if not store.has_table("passes") and not store.has_table("overrides"):
        return {}
    cond, params = run_filter(suite=suite, batch=batch, run_ids=run_ids)
    source = ("_current_any" if history else "_current_all") if split is None else "verdicts"
    with Views(store, split=split) as views:
        # A suite or batch that names nothing is an error with the near names (a run without
        # a verdict is simply absent: the caller asked for the verdicts it has).
        check_names(views.con, suite=suite, batch=batch)
        rows = views.arrow(f"SELECT * FROM {source} WHERE {cond} ORDER BY run_id", params).to_pylist()
    return {r["run_id"]: decode_row(r) for r in rows}


def current_verdict(store: Store, run_id: str) -> dict[str, Any] | None:
    """One run's current verdict (any pool), or None when it has neither verdict nor override."""
    return current_verdicts(store, run_ids=[run_id], split=None, history=True).get(run_id)


def verdict_history(store: Store, run_id: str) -> list[dict[str, Any]]:
    """Every automatic verdict of a run, oldest first (one per pass that judged it)."""
    if not store.has_table("passes"):
        return []
    with Views(store, split=None) as views:
        rows = views.arrow(
            "SELECT * FROM _history_all WHERE run_id = ? ORDER BY judged_at, pass_id", [run_id]
        ).to_pylist()
    return [decode_row(r) for r in rows]


def overrides_of_run(store: Store, run_id: str) -> list[dict[str, Any]]:
    """Every human override of a run, oldest first."""
    if not store.has_table("overrides"):
        return []
    with Views(store, split=None) as views:
        return views.arrow(
            "SELECT * FROM _overrides WHERE run_id = ? ORDER BY \"at\", override_id", [run_id]
        ).to_pylist()


def pool_of(store: Store, run_id: str) -> str | None:
    """The pool (tune or holdout) a stored run is in, None for no such run."""
    with Views(store, split=None) as views:
        # _run_split: every run, a superseded one included (its verdicts are as hidden as the others')
        rows = views.con.execute("SELECT split FROM _run_split WHERE run_id = ?", [run_id]).fetchall()
    return rows[0][0] if rows else None
