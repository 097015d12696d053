"""The report's section on how the judge agrees with people (``traj report``; the figures are
computed once, by judges/agreement.py, and gathered by trajectory.query.people)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from trajectory.text import plural


def agreement_lines(agreement: Sequence[dict[str, Any]]) -> list[str]:
    """The section on how the judge agrees with people, per suite, task and judge version."""
    from judges.agreement import kappa_text

    lines = ["## Judge agreement with people", ""]
    if not agreement:
        return lines + ["(no run of this batch was re-judged by a person)", ""]
    lines += ["Among the runs a person re-judged where both gave pass or fail: each judge version's latest "
              "verdict against the person's latest. Kappa is n/a where either side gave only one of them.", "",
              "| suite | task | judge version | runs | agree | judge pass, person fail | judge fail, person pass "
              "| agreement | kappa |", "|---|---|---|---|---|---|---|---|---|"]
    for a in agreement:
        rate = "n/a" if a["rate"] is None else f"{a['rate']:.0%}"
        lines.append(f"| {a['suite']} | {a['task']} | {a['judge_version']} | {a['rated']} | {a['agree']} | "
                     f"{a['judge_pass_person_fail']} | {a['judge_fail_person_pass']} | {rate} | {kappa_text(a['kappa'])} |")
    apart = sum(a["apart"] for a in agreement)
    if apart:
        lines += ["", f"({plural(apart, 'verdict')} of re-judged runs neither pass nor fail: not counted)"]
    return lines + [""]
