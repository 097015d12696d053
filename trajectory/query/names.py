"""Names a filter gives (``--suite``, ``--task``, ``--batch``, ``--run``, a pass id) checked
against what the store holds: a name that matches nothing is an error with the near names,
never an empty result (a typo must not read as "no runs").

Every command that filters runs by name, and the viewer's filters, call :func:`check_names`
before they filter; :func:`near_line` words the error (difflib, as ``FROM run`` gets "did you
mean runs?").
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from typing import Any

from trajectory.errors import NotFound
from trajectory.text import hint

#: What each filter is called in the error line, and the column it names.
FILTERS = {"suite": ("suite", "--suite"), "task": ("task", "--task"), "batch": ("batch", "--batch")}


def near(name: str, known: Iterable[str], n: int = 3) -> list[str]:
    """The known names closest to ``name`` (at most ``n``), best first."""
    pool = sorted({k for k in known if k is not None})
    return difflib.get_close_matches(name, pool, n=n, cutoff=0.6)


def near_line(
    what: str, names: Sequence[str], known: Iterable[str], *, option: str | None = None, where: str = "the store"
) -> str:
    """``no suite 'wether' in the store (--suite); did you mean weather?`` for one or more
    names that match nothing."""
    pool = sorted({k for k in known if k is not None})
    shown = ", ".join(repr(n) for n in names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
    line = f"no {what} {shown} in {where}" + (f" ({option})" if option else "")
    close = list(dict.fromkeys(c for n in names for c in near(n, pool)))
    if close:
        return f"{line}; did you mean {' or '.join(close[:3])}?"
    if not pool:
        return f"{line}; no run in it has a {what}"
    if len(pool) <= 8:
        return f"{line}; it has {', '.join(pool)}"
    return f"{line}; it has {len(pool)} (list them with {hint('traj runs')})"


def _con(store_or_con: Any) -> tuple[Any, Any]:
    """A DuckDB connection with the store's views, and what to close after (None: not ours)."""
    if hasattr(store_or_con, "execute") and not hasattr(store_or_con, "loc"):
        return store_or_con, None
    from trajectory.query.sql import Views

    views = Views(store_or_con, split=None)
    return views.con, views


def check_names(
    store_or_con: Any,
    *,
    suite: str | None = None,
    task: str | None = None,
    batch: str | None = None,
    run_ids: Sequence[str] | None = None,
) -> None:
    """Raise :class:`NotFound` (one line, with the near names) for a suite, task, batch or run
    id that no run in the store has (any pool: a holdout run's suite is a name the store has).

    ``store_or_con``: a Store, or a DuckDB connection with an ``events`` view (a caller's
    Views.con), so that a command that has one open reads no more than once.
    """
    wanted = {k: v for k, v in (("suite", suite), ("task", task), ("batch", batch)) if v}
    if not wanted and not run_ids:
        return
    con, own = _con(store_or_con)
    try:
        if not _has_events(con):
            raise NotFound("the store has no runs yet" + _given(wanted, run_ids))
        if wanted:
            rows = con.execute(
                "SELECT DISTINCT suite, task, batch FROM events WHERE kind = 'run_started'"
            ).fetchall()
            for i, key in enumerate(("suite", "task", "batch")):
                if key in wanted:
                    known = {r[i] for r in rows}
                    if wanted[key] not in known:
                        what, option = FILTERS[key]
                        raise NotFound(near_line(what, [wanted[key]], known, option=option))
        if run_ids:
            import pyarrow as pa

            given = list(dict.fromkeys(run_ids))
            con.register("_names_wanted", pa.table({"run_id": given}))
            try:
                found = {r[0] for r in con.execute(
                    "SELECT DISTINCT run_id FROM events WHERE run_id IN (SELECT run_id FROM _names_wanted)"
                ).fetchall()}
            finally:
                con.unregister("_names_wanted")
            missing = [r for r in given if r not in found]
            if missing:
                _superseded(con, missing)
                known = [r[0] for r in con.execute("SELECT DISTINCT run_id FROM events").fetchall()]
                raise NotFound(near_line("run", missing, known))
    finally:
        if own is not None:
            own.close()


def _superseded(con: Any, run_ids: Sequence[str]) -> None:
    """Raise for a run asked for by id that is superseded: it is history, and its current
    revision is named (trajectory/query/revisions.py)."""
    try:
        rows = con.execute("SELECT run_id, superseded_by FROM _superseded WHERE list_contains(?, run_id) "
                           "ORDER BY run_id", [list(run_ids)]).fetchall()
    except Exception:  # noqa: BLE001 - a connection without the view: nothing is superseded there
        return
    if rows:
        old, new = rows[0]
        more = f" (and {len(rows) - 1} more superseded runs)" if len(rows) > 1 else ""
        raise NotFound(f"run {old} is superseded by {new}: it is kept as history ({hint('traj show ' + old)} "
                       f"shows it), and {new} is the run now{more}")


def _has_events(con: Any) -> bool:
    try:
        con.execute("SELECT 1 FROM events LIMIT 0")
    except Exception:  # noqa: BLE001 - no events table: a store with no runs yet
        return False
    return True


def _given(wanted: dict[str, str], run_ids: Sequence[str] | None) -> str:
    parts = [f"{FILTERS[k][1]} {v}" for k, v in wanted.items()] + [f"--run {r}" for r in (run_ids or [])[:3]]
    return f" (asked for {' '.join(parts)})" if parts else ""
