"""A suite checked against what people decided, before its verdicts are written.

``traj suite check NAME --store S`` judges, with the suite's current code, every run of the
store that a person re-judged (``traj override``), writes nothing, and lists each run where the
judge and the person's latest verdict disagree (trajectory/query/people.py holds the rule). A
fix that turns a person's pass into a fail is either a bug in the fix or a question for that
person: this is where it shows, next to the suite's judge matrix.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from trajectory.errors import NotFound
from trajectory.query.people import disagreements, human_verdicts
from trajectory.query.sql import Views, record_holdout_view, run_splits
from trajectory.store.delta import Store
from trajectory.text import plural
from trajectory.judging.resolve import SuiteResolver


@dataclasses.dataclass
class PeopleCheck:
    """The suite's current judge over the runs people re-judged."""

    suite: str
    names: list[str]  # every run_started.suite name the suite judges
    checked: int  # runs a person re-judged that the judge gave a verdict
    disagreements: list[dict[str, Any]]  # trajectory.query.people.disagreement, run order
    holdout_left_out: int = 0  # re-judged holdout runs not checked (without --split holdout)
    unjudged: list[dict[str, Any]] = dataclasses.field(default_factory=list)  # PassResult.unresolved
    not_rated: int = 0  # verdicts other than pass or fail (error, na, skipped): no comparison

    @property
    def ok(self) -> bool:
        return not self.disagreements

    def lines(self) -> list[str]:
        from trajectory.judging.diff import people_lines

        out = []
        if self.disagreements:
            out += people_lines(self.disagreements)
        if self.unjudged:
            out.append(f"{plural(len(self.unjudged), 'run')} a person re-judged could not be judged here "
                       "(unknown task): " + ", ".join(u["run_id"] for u in self.unjudged))
        return out

    def summary(self) -> str:
        head = (f"suite {self.suite} against people: {plural(self.checked, 'run')} a person re-judged, "
                f"{len(self.disagreements)} {'disagrees' if len(self.disagreements) == 1 else 'disagree'}")
        if self.not_rated:
            head += f" ({self.not_rated} judged neither pass nor fail: not compared)"
        if self.holdout_left_out:
            head += (f"; {plural(self.holdout_left_out, 'holdout run')} left out (check them with "
                     "--split holdout; the look is recorded)")
        return head

    def to_json(self) -> dict[str, Any]:
        from trajectory.judging.diff import person_json

        return {"suite": self.suite, "names": self.names, "ok": self.ok, "checked": self.checked,
                "disagree_with_people": len(self.disagreements),
                "disagreements": [person_json(d) for d in self.disagreements],
                "not_rated": self.not_rated, "holdout_left_out": self.holdout_left_out,
                "unjudged": self.unjudged}


def suite_names(resolver: SuiteResolver, name: str) -> tuple[Any, list[str]]:
    """The suite ``name`` resolves to (bundled or registered and trusted here) and every name
    its runs may carry; a name that is neither is an error."""
    from suites.registry import aliases

    suite = resolver.get(name)
    if suite is None:
        if name in resolver.untrusted:
            from trajectory.errors import JudgeError

            raise JudgeError(f"not checked: {resolver.untrusted[name]}")
        if name in resolver.problems:
            raise NotFound(resolver.problems[name])
        from trajectory.query.names import near

        known = sorted(set(resolver.registered()) | set(resolver.builtin()))
        close = near(name, known)
        where = f" registered in {resolver.store.loc}" if resolver.store is not None else ""
        raise NotFound(f"{name}: no such folder, nor a suite bundled or{where or ' registered'}"
                       + (f"; did you mean {' or '.join(close[:3])}?" if close else ""))
    names = aliases(suite)
    return suite, sorted(set(names) | {name})


def suite_folder(resolver: SuiteResolver, name: str) -> Path | None:
    """The folder the suite loads from (a registered folder, a bundled package), None for one
    that has none (Inspect scorers, a class)."""
    from suites.registry import builtin_folder

    spec = resolver.spec(name)
    if spec is None:
        return None
    if spec.kind == "folder":
        return Path(spec.where)
    if spec.kind == "builtin":
        return builtin_folder(spec.where)
    return None


def check_against_people(store: Store, resolver: SuiteResolver, name: str, split: str = "tune") -> PeopleCheck:
    """Judge every re-judged run of the suite ``name`` with its current code (nothing written)
    and compare with the person's latest verdict. ``split``: tune leaves the holdout runs out
    (counted, not shown); holdout checks only those, and the look is recorded."""
    from trajectory.judging import judge_runs

    _, names = suite_names(resolver, name)
    humans = {r: o for r, o in human_verdicts(store).items() if o.get("suite") in names}
    with Views(store, split=None) as views:
        pools = run_splits(views, sorted(humans))
    mine = {r: o for r, o in humans.items() if pools.get(r, "tune") == split}
    left_out = len(humans) - len(mine)
    if split == "holdout" and mine:
        record_holdout_view(store, "suite check", {"suite": name, "runs": len(mine)})
    if not mine:
        return PeopleCheck(name, names, 0, [], holdout_left_out=left_out if split == "tune" else 0)
    result = judge_runs(store, resolver, run_ids=sorted(mine), dry_run=True, command=None)
    rated = [r for r in result.rows if r.outcome in ("pass", "fail")]
    return PeopleCheck(
        name, names, len(result.rows), disagreements([r.as_dict() for r in result.rows], mine),
        holdout_left_out=left_out if split == "tune" else 0,
        unjudged=[{"run_id": u.run_id, "suite": u.suite, "task": u.task} for u in result.unresolved],
        not_rated=len(result.rows) - len(rated),
    )
