"""The run list's SQL, derived from the event declaration (``trajectory/events.py``) as the
``runs`` view of ``traj query`` is (``trajectory/query/sql.py``): a row of the list carries the
``runs`` view's columns under their names, whichever way it is read.

- The run index (:data:`RUN_INDEX`): the ``runs`` view of the pool joined with the current
  verdicts, built once per store state. The columns the view reads from the events' JSON text
  (:data:`JSON_COLUMNS`, e.g. ``skip_reason``) are left out: DuckDB then never reads the
  ``data`` column, which is most of the bytes of the events table.
- Until the index is there, :data:`LIST` reads only the ``run_started`` and ``run_finished``
  events and the current verdicts; :func:`page_figures` then reads the ``runs`` row of the page's
  runs only (the filter on ``run_id`` reaches the Parquet scan), and a sort by a figure
  aggregates that one figure (:func:`sort_figure`).

Part of the viewer's data layer (:mod:`.data`); nothing else of the viewer imports it.
"""

from __future__ import annotations

from trajectory import events as ev
from trajectory.columns import declaration

_DECL = declaration()

#: The runs view's columns that are read from the events' JSON text, not from a typed column.
JSON_COLUMNS = tuple(name for name, column, _ in _DECL.finish_columns if not column)
#: Figures of a run: the kinds counted per run, then the numbers summed per run.
TALLIES = tuple(name for name, _ in _DECL.tallies)
SUMMED = tuple(c.name for c in _DECL.figures)
#: What the overview sums per suite and batch.
OVERVIEW_FIGURES = TALLIES + SUMMED
#: Every figure of a run the list can sort by (the runs view computes them all).
FIGURES = (*TALLIES, "events", "tokens", *SUMMED, "duration_ms")

_RUN_COLUMNS = ", ".join(
    f"coalesce({c.name}, 'tune') AS {c.run}" if c.run == "split" else f"{c.name} AS {c.run}"
    for c in _DECL.run_columns
)
_EXCLUDED = ", ".join(("outcome", *JSON_COLUMNS))

# The list without the index: one row per run_started of the pool, its run_finished and its
# current verdict. ``outcome`` (how the run ended) is ``run_outcome`` in the list: the list's
# ``outcome`` filter is the verdict's.
LIST = f"""
WITH s AS (
    SELECT run_id, {_RUN_COLUMNS}, ts AS started_at
    FROM events WHERE kind = 'run_started' AND coalesce(split, 'tune') = $split),
f AS (SELECT run_id, outcome AS run_outcome, ts AS ended_at FROM events WHERE kind = 'run_finished'),
v AS (SELECT run_id, outcome AS verdict, score FROM verdicts)
SELECT s.*, coalesce(f.run_outcome, 'open') AS run_outcome, f.ended_at,
       coalesce(v.verdict, 'unjudged') AS verdict, v.score{{figure}}
FROM s LEFT JOIN f USING (run_id) LEFT JOIN v USING (run_id){{join}}
"""

RUN_INDEX = f"""
SELECT r.* EXCLUDE ({_EXCLUDED}), coalesce(r.outcome, 'open') AS run_outcome,
       coalesce(v.outcome, 'unjudged') AS verdict, v.score
FROM runs r LEFT JOIN verdicts v USING (run_id)
"""

PAGE = "SELECT *, count(*) OVER () AS total FROM ({rows}) r WHERE {where} ORDER BY {order} LIMIT $limit OFFSET $offset"

SORTS = {
    **{k: f"r.{k}" for k in ("started_at", "run_id", "suite", "task", "batch", "agent", "verdict", "score",
                             "run_outcome")},
    **{k: f"coalesce(r.{k}, 0)" for k in FIGURES},
}


def list_sql(sort: str) -> str:
    """The list without the index; a figure to sort by is aggregated alone, from the runs view."""
    if sort not in FIGURES:
        return LIST.format(figure="", join="")
    return LIST.format(figure=f", m.{sort}", join=f" LEFT JOIN (SELECT run_id, {sort} FROM runs) m USING (run_id)")


def page_figures() -> str:
    """The runs view's row of each run in ``$ids`` (the figures a page without the index shows)."""
    return f"SELECT * EXCLUDE ({_EXCLUDED}) FROM runs WHERE list_contains($ids, run_id)"

# The query page's examples after the demo's own: a few more a person asks first.
MORE_EXAMPLES = (
    ("flips between the two latest passes",
     "WITH latest AS (SELECT pass_id, row_number() OVER (ORDER BY started_at DESC, pass_id DESC) AS k "
     "FROM passes QUALIFY k <= 2), h AS (SELECT h.run_id, h.suite, h.task, h.outcome, l.k "
     "FROM verdict_history h JOIN latest l USING (pass_id)) SELECT b.suite, b.task, b.run_id, "
     "b.outcome AS before, a.outcome AS after FROM h a JOIN h b ON a.run_id = b.run_id AND a.k = 1 "
     "AND b.k = 2 WHERE a.outcome <> b.outcome ORDER BY ALL"),
    ("failed checks, most common first",
     "SELECT suite, c.name AS check_name, count(*) AS failures FROM verdicts, unnest(checks) AS t(c) "
     "WHERE NOT c.passed GROUP BY ALL ORDER BY failures DESC, suite, check_name LIMIT 20"),
)
