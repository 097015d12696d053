"""What the viewer shows of people's verdicts against the judge's: the overview's agreement
figures, the run page's mark, the diff page's marks (trajectory/query/people.py holds the rule
and the SQL; ``rows(sql, params)`` is the viewer's own query on its pool's views)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from trajectory.query.people import AGREEMENT_SQL, PASS_DISAGREEMENTS_SQL, agreement_groups, disagrees

Rows = Callable[..., list[dict[str, Any]]]

#: Disagreements with people a diff page lists under its flips (the count says all of them).
MAX_LISTED = 200


def agreement(rows: Rows, overrides: int) -> list[dict[str, Any]]:
    """Per suite, task and judge version, how the judge agrees with people in the pool."""
    return agreement_groups(rows(AGREEMENT_SQL)) if overrides else []


def run_mark(current: dict[str, Any] | None, override: dict[str, Any] | None) -> dict[str, Any] | None:
    """The person's verdict a run's latest automatic verdict disagrees with, else None."""
    if current is None or override is None or not disagrees(current["outcome"], override["to_outcome"]):
        return None
    return {k: override[k] for k in ("by", "to_outcome", "evidence", "at", "override_id")}


def pass_marks(rows: Rows, pass_id: str) -> dict[str, dict[str, Any]]:
    """run id -> the disagreement, for every verdict of the pass that disagrees with a person's."""
    return {r["run_id"]: r for r in rows(PASS_DISAGREEMENTS_SQL, {"b": pass_id})}
