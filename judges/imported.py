"""Scores recorded by other tools, read as traj checks and verdicts.

Two sources share one rule for the verdict: Inspect AI scores (``C``/``I``/``P``/``N``, booleans,
numbers) and OpenTelemetry ``gen_ai.evaluation.result`` events (a label and/or a score). Each
score becomes one :class:`Scored` (a check plus whether it applies and what it counts for), and
:func:`verdict_of` turns a run's scored checks into its verdict:

- the run passes when every applicable check passes, fails otherwise, and is ``na`` when no
  check applies (a run with only ``N`` scores was not answered, which is not a failure);
- its score is the mean of the applicable checks' values (``P`` counts 0.5, a number in 0..1
  counts as itself), so a run with ``C`` and ``0.5`` scores 0.75 and still fails;
- a run whose harness recorded an error is ``error`` with that error as its reason, whatever
  its scores say.

Pure: no I/O, no inspect-ai import. The importers use it for the ``imported`` pass and the
Inspect scorer suite uses it for re-judging, so both give the same verdict for the same scores.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .base import Check, Verdict

# Inspect's letter grades (inspect_ai.scorer CORRECT, INCORRECT, PARTIAL, NOANSWER).
CORRECT, INCORRECT, PARTIAL, NOANSWER = "C", "I", "P", "N"
# String values Inspect's value_to_float also reads as true or false.
_TRUE_WORDS = frozenset({"yes", "true"})
_FALSE_WORDS = frozenset({"no", "false"})
# Evaluation labels (OpenTelemetry gen_ai.evaluation.score.label), compared case-insensitively.
PASS_LABELS = frozenset({"pass", "passed", "correct", "true", "yes"})
FAIL_LABELS = frozenset({"fail", "failed", "incorrect", "false", "no"})

REASON_LIMIT = 300  # characters of an explanation kept in a check's one-line reason


@dataclass(frozen=True)
class Scored:
    """One recorded score read as a check.

    ``value`` is what the check counts for in the verdict's score (None when it does not
    apply); ``applicable`` is False for ``N`` and for values that cannot be read as a grade.
    """

    check: Check
    applicable: bool
    value: float | None


def _one_line(text: Any, limit: int = REASON_LIMIT) -> str:
    if text is None:
        return ""
    s = " ".join(str(text).split())
    return s if len(s) <= limit else s[: limit - 3] + "..."


def _reason(rule: str, answer: Any, explanation: Any) -> str:
    """The rule that graded the score, then the scorer's explanation unless it only repeats the
    answer (which is the check's ``actual``)."""
    parts = [rule]
    said = _one_line(answer).casefold() if answer not in (None, "") else None
    if explanation not in (None, "") and _one_line(explanation).casefold() != said:
        parts.append(_one_line(explanation))
    return "; ".join(parts)


def grade(value: Any) -> tuple[bool | None, float | None, str]:
    """(passed, counts for, rule) for one Inspect score value; passed None: not applicable.

    C / True / 1 / 1.0 pass; I / False / 0 fail; P fails and counts 0.5; N does not apply. A
    number strictly between 0 and 1 fails and counts as itself (only 1.0 passes). Other numbers,
    NaN and unknown strings do not apply: there is no scale to read them on.
    """
    if isinstance(value, bool):  # before int: True is an int
        return value, 1.0 if value else 0.0, f"value {value}"
    if isinstance(value, (int, float)):
        v = float(value)
        if math.isnan(v) or math.isinf(v) or not 0.0 <= v <= 1.0:
            return None, None, f"value {value!r} is not between 0 and 1: not applicable"
        return v == 1.0, v, f"value {value!r}" + ("" if v in (0.0, 1.0) else " (passes only at 1)")
    if isinstance(value, str):
        if value == CORRECT:
            return True, 1.0, "C (correct)"
        if value == INCORRECT:
            return False, 0.0, "I (incorrect)"
        if value == PARTIAL:
            return False, 0.5, "P (partial, counts 0.5)"
        if value == NOANSWER:
            return None, None, "N (no answer): not applicable"
        low = value.strip().lower()
        if low in _TRUE_WORDS:
            return True, 1.0, f"value {value!r}"
        if low in _FALSE_WORDS:
            return False, 0.0, f"value {value!r}"
        try:
            number = float(low)
        except ValueError:
            return None, None, f"value {value!r} is not a grade: not applicable"
        if math.isfinite(number):
            passed, counts, _ = grade(number)
            return passed, counts, f"value {value!r}" + (": not applicable" if passed is None else "")
        return None, None, f"value {value!r} is not a grade: not applicable"
    return None, None, f"value of type {type(value).__name__} is not a grade: not applicable"


def inspect_checks(
    name: str, value: Any, *, answer: Any = None, explanation: Any = None, expected: Any = None
) -> list[Scored]:
    """The checks of one Inspect scorer's score: one, or one per key of a dict value
    (``name/key``, as Inspect's metrics name the parts of a multi-value score)."""
    if isinstance(value, Mapping):
        out: list[Scored] = []
        for key, part in value.items():
            out.extend(inspect_checks(f"{name}/{key}", part, answer=answer, explanation=explanation,
                                      expected=expected))
        return out
    passed, counts, rule = grade(value)
    # The answer the scorer read is what was checked; the score value is in the reason's rule.
    check = Check(name=name, passed=bool(passed), expected=expected, actual=answer if answer is not None else value,
                  reason=_reason(rule, answer, explanation))
    return [Scored(check, passed is not None, counts)]


def evaluation_check(
    name: str, *, score: float | None = None, label: str | None = None, explanation: str | None = None,
    answer: str | None = None,
) -> Scored:
    """One OpenTelemetry evaluation result as a check.

    A known label decides (pass, passed, correct, true, yes pass; fail, failed, incorrect,
    false, no fail); without one the score decides and passes only at 1. The check counts for
    its score when that is in 0..1, else for 1 or 0 by its label.
    """
    low = label.strip().lower() if isinstance(label, str) else None
    number = score if isinstance(score, (int, float)) and not isinstance(score, bool) else None
    in_range = number is not None and math.isfinite(number) and 0.0 <= number <= 1.0
    actual: Any = {}
    if number is not None:
        actual["score"] = number
    if label is not None:
        actual["label"] = label
    if answer is not None:  # what was evaluated; the score and label are the reason's rule
        actual = answer
    if low in PASS_LABELS or low in FAIL_LABELS:
        passed = low in PASS_LABELS
        counts = float(number) if in_range else (1.0 if passed else 0.0)
        rule = f"label {label!r}"
    elif in_range:
        assert number is not None
        passed, counts = number == 1.0, float(number)
        rule = f"score {number!r}" + ("" if number in (0, 1) else " (passes only at 1)") + (
            f", label {label!r} not a pass/fail word" if label is not None else "")
    else:
        why = f"score {number!r} not between 0 and 1" if number is not None else "no score"
        lab = f"label {label!r} not a pass/fail word" if label is not None else "no label"
        check = Check(name=name, passed=False, expected="pass", actual=actual or None,
                      reason=_reason(f"{lab}, {why}: not applicable", None, explanation))
        return Scored(check, False, None)
    check = Check(name=name, passed=passed, expected="pass", actual=actual or None,
                  reason=_reason(rule, None, explanation))
    return Scored(check, True, counts)


def verdict_of(
    scored: Iterable[Scored], *, error: str | None = None, details: dict[str, Any] | None = None
) -> Verdict:
    """The run's verdict from its scored checks (see the module docstring for the rule)."""
    scored = list(scored)
    checks = tuple(s.check for s in scored)
    applicable = [s for s in scored if s.applicable]
    na = [s.check.name for s in scored if not s.applicable]
    if na:
        details = {**(details or {}), "not_applicable": na}
    if error is not None:
        return Verdict(outcome="error", score=0.0, checks=checks, reason=_one_line(error) or "the run errored",
                       details=details)
    if not applicable:
        why = "no score recorded" if not scored else "no applicable score: " + "; ".join(
            f"{s.check.name}: {s.check.reason}" for s in scored[:3])
        return Verdict.na(why, checks=checks, details=details)
    mean = sum(s.value or 0.0 for s in applicable) / len(applicable)
    failed = [s.check for s in applicable if not s.check.passed]
    if failed:
        reason = "; ".join(f"{c.name}: {c.reason}" for c in failed[:3])
    else:
        reason = "every applicable score passed"
    # Floating sums of values in 0..1 stay in 0..1 up to rounding; clamp the rounding away.
    return Verdict(outcome="fail" if failed else "pass", score=min(1.0, max(0.0, mean)),
                   checks=checks, reason=reason, details=details)
