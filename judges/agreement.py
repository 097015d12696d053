"""How often a judge agrees with the people who re-judged the same runs.

The one computation behind every agreement figure (``traj report``, the viewer): given pairs of
(judge's verdict, person's verdict), count the pairs where both said pass or fail, how many
agree, and Cohen's kappa: agreement beyond what two raters who said pass as often as these did
would reach by chance. Pairs where either side said something else (error, na, skipped, a
review) are counted apart, never as agreement or disagreement.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

RATED = ("pass", "fail")


@dataclasses.dataclass(frozen=True)
class Agreement:
    """The figures of one group of (judge, person) pairs.

    ``both_pass``, ``both_fail``: the two agree; ``judge_pass_person_fail`` and
    ``judge_fail_person_pass``: they disagree (a wrong pass, a wrong fail, if the person is
    right). ``apart``: pairs where either said something other than pass or fail."""

    both_pass: int = 0
    both_fail: int = 0
    judge_pass_person_fail: int = 0
    judge_fail_person_pass: int = 0
    apart: int = 0

    @property
    def rated(self) -> int:
        """Pairs where both said pass or fail: what the rate and kappa are of."""
        return self.both_pass + self.both_fail + self.judge_pass_person_fail + self.judge_fail_person_pass

    @property
    def agree(self) -> int:
        return self.both_pass + self.both_fail

    @property
    def rate(self) -> float | None:
        """Share of the rated pairs that agree; None with none rated."""
        return None if not self.rated else self.agree / self.rated

    @property
    def kappa(self) -> float | None:
        """Cohen's kappa of the rated pairs, None (shown as n/a) unless both classes occur on
        both sides: with one class missing on either side, chance agreement says nothing (every
        such kappa is 0 or undefined whatever the judge does)."""
        n = self.rated
        judge_pass = self.both_pass + self.judge_pass_person_fail
        person_pass = self.both_pass + self.judge_fail_person_pass
        if n == 0 or judge_pass in (0, n) or person_pass in (0, n):
            return None
        observed = self.agree / n
        chance = (judge_pass * person_pass + (n - judge_pass) * (n - person_pass)) / (n * n)
        return (observed - chance) / (1 - chance)

    def to_json(self) -> dict[str, object]:
        return {
            "rated": self.rated, "agree": self.agree, "disagree": self.rated - self.agree,
            "both_pass": self.both_pass, "both_fail": self.both_fail,
            "judge_pass_person_fail": self.judge_pass_person_fail,
            "judge_fail_person_pass": self.judge_fail_person_pass, "apart": self.apart,
            "rate": None if self.rate is None else round(self.rate, 4),
            "kappa": None if self.kappa is None else round(self.kappa, 4),
        }


def agreement(pairs: Iterable[tuple[str | None, str | None]]) -> Agreement:
    """The figures of ``(judge's outcome, person's outcome)`` pairs (see the module docstring)."""
    counts = {"pp": 0, "ff": 0, "pf": 0, "fp": 0, "apart": 0}
    for judge, person in pairs:
        if judge not in RATED or person not in RATED:
            counts["apart"] += 1
        else:
            counts[judge[0] + person[0]] += 1
    return Agreement(counts["pp"], counts["ff"], counts["pf"], counts["fp"], counts["apart"])


def kappa_text(value: float | None) -> str:
    """A kappa as a report shows it."""
    return "n/a" if value is None else f"{value:.2f}"
