"""The one definition of a pass rate, for every place that shows one: the report's summary.md
and metrics.json, ``traj runs``, the viewer (overview, per pass, the shared copy) and SQL (the
``pass_rates`` view, built from :data:`PASS_RATE_SQL`).

    pass rate = pass / (pass + fail)

Every other outcome — ``review`` (the judge cannot tell: a person decides), ``na`` (the task
does not apply, or its rules hand it to a person), ``error`` (the judge or harness failed),
``skipped``, and any outcome added later — is counted and shown apart: it is in neither the numerator nor the denominator. A
set with no pass and no fail has no pass rate (None, NULL, "—"), not 0.

Only :data:`RATED` says which outcomes make the denominator; a new outcome needs nothing here
to be counted apart.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: The outcomes a pass rate is taken over: its numerator is the first, its denominator both.
RATED = ("pass", "fail")


def rated(counts: Mapping[str, int]) -> int:
    """The denominator: how many verdicts are pass or fail."""
    return sum(int(counts.get(o, 0) or 0) for o in RATED)


def pass_rate(counts: Mapping[str, int]) -> float | None:
    """pass / (pass + fail), or None when there is neither."""
    of = rated(counts)
    return int(counts.get("pass", 0) or 0) / of if of else None


def apart(counts: Mapping[str, int]) -> dict[str, int]:
    """The outcomes left out of the rate, with their counts (only those that occur), in a
    stable order: review, na, error, skipped, then any other by name."""
    known = ("review", "na", "error", "skipped")
    others = sorted(o for o in counts if o not in RATED and o not in known and o is not None)
    return {o: int(counts[o]) for o in (*known, *others) if counts.get(o)}


def rate_fields(counts: Mapping[str, int]) -> dict[str, Any]:
    """``{"pass_rate", "pass_rate_of", "counted_apart"}``: the rate, its denominator and what it
    leaves out (metrics.json, the viewer's JSON)."""
    return {"pass_rate": pass_rate(counts), "pass_rate_of": rated(counts), "counted_apart": apart(counts)}


def percent(rate: float | None) -> str:
    """``67%``, or ``—`` when there is no rate."""
    return "—" if rate is None else f"{100.0 * rate:.0f}%"


def rate_line(counts: Mapping[str, int], noun: str = "judged run") -> str:
    """``4 of 6 judged runs pass (67%); 1 na not counted``: a rate that says its denominator
    (pass + fail) and what it leaves out."""
    of = rated(counts)
    n = f"{of} {noun if of == 1 else noun + 's'}"
    line = f"{int(counts.get('pass', 0) or 0)} of {n} pass"
    line += f" ({percent(pass_rate(counts))})" if of else ""
    left = [f"{c} {o}" for o, c in apart(counts).items()]
    return line + (f"; {', '.join(left)} not counted" if left else "")


def pass_rate_sql(outcome: str = "outcome") -> str:
    """The same rate as a SQL aggregate over a column of outcomes (NULL with no pass or fail)."""
    rated_in = ", ".join(f"'{o}'" for o in RATED)
    return (f"count(*) FILTER (WHERE {outcome} = '{RATED[0]}') / "
            f"nullif(count(*) FILTER (WHERE {outcome} IN ({rated_in})), 0)")


#: ``pass_rates``: the current verdicts of the pool by suite and task, with the rate and every
#: outcome's count (``other``: outcomes beyond these six). GROUP BY ROLLUP adds a row per
#: suite (``task`` NULL, ``level`` 'suite') and one for the pool (``suite`` NULL, ``level``
#: 'all'), so a suite's rate is read, never averaged from its tasks' rates.
PASS_RATES_SQL = f"""
SELECT suite, task,
    CASE WHEN grouping(suite) = 1 THEN 'all' WHEN grouping(task) = 1 THEN 'suite' ELSE 'task' END AS level,
    count(*) AS verdicts,
    count(*) FILTER (WHERE outcome = 'pass') AS pass,
    count(*) FILTER (WHERE outcome = 'fail') AS fail,
    count(*) FILTER (WHERE outcome = 'review') AS review,
    count(*) FILTER (WHERE outcome = 'na') AS na,
    count(*) FILTER (WHERE outcome = 'error') AS error,
    count(*) FILTER (WHERE outcome = 'skipped') AS skipped,
    count(*) FILTER (WHERE outcome NOT IN ('pass', 'fail', 'review', 'na', 'error', 'skipped')) AS other,
    count(*) FILTER (WHERE outcome IN ('pass', 'fail')) AS rated,
    {pass_rate_sql()} AS pass_rate
FROM verdicts GROUP BY ROLLUP (suite, task)
"""
