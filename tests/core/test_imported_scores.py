"""The rule that reads Inspect scores and OpenTelemetry evaluation results as checks and verdicts
(judges/imported.py): named cases for known values, properties for the verdict."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from judges.imported import evaluation_check, grade, inspect_checks, verdict_of

GRADES = [
    # (value, passed (None: not applicable), counts for)
    ("C", True, 1.0), ("I", False, 0.0), ("P", False, 0.5), ("N", None, None),
    (True, True, 1.0), (False, False, 0.0), (1, True, 1.0), (1.0, True, 1.0), (0, False, 0.0), (0.0, False, 0.0),
    (0.7, False, 0.7), (0.999, False, 0.999),
    ("yes", True, 1.0), ("False", False, 0.0), ("1.0", True, 1.0), ("0.25", False, 0.25),
    (7, None, None), (-0.5, None, None), (float("nan"), None, None), (float("inf"), None, None),
    ("A", None, None), ("nan", None, None), ("", None, None), ([1, 0], None, None), (None, None, None),
    ("c", None, None),  # only the upper-case letter is Inspect's CORRECT
]


@pytest.mark.parametrize(("value", "passed", "counts"), GRADES, ids=[repr(g[0]) for g in GRADES])
def test_inspect_values(value, passed, counts) -> None:
    got_passed, got_counts, rule = grade(value)
    assert got_passed is passed
    assert got_counts == counts
    assert rule and "\n" not in rule


def test_a_dict_value_gives_one_check_per_key_and_keeps_answer_and_explanation() -> None:
    scored = inspect_checks("rubric", {"accuracy": 1, "style": "I", "skip": "N"}, answer="Paris",
                            explanation="matches\nthe target", expected="Paris")
    assert [s.check.name for s in scored] == ["rubric/accuracy", "rubric/style", "rubric/skip"]
    assert [s.applicable for s in scored] == [True, True, False]
    first = scored[0].check
    # actual is the answer checked; the score value is the reason's rule (issue 23, item 3)
    assert first.actual == "Paris" and first.expected == "Paris"
    assert first.reason == "value 1; matches the target"


LABELS = [
    # (score, label, applicable, passed, counts for)
    (None, "pass", True, True, 1.0), (None, "Passed", True, True, 1.0), (None, "correct", True, True, 1.0),
    (None, "true", True, True, 1.0), (None, "YES", True, True, 1.0),
    (None, "fail", True, False, 0.0), (None, "failed", True, False, 0.0), (None, "incorrect", True, False, 0.0),
    (None, "false", True, False, 0.0), (None, "no", True, False, 0.0),
    (0.9, "pass", True, True, 0.9), (0.2, "pass", True, True, 0.2),  # the label decides, the score counts
    (1.0, None, True, True, 1.0), (0.8, None, True, False, 0.8), (0.0, None, True, False, 0.0),
    (1.0, "relevant", True, True, 1.0), (0.5, "relevant", True, False, 0.5),  # unknown label: the score decides
    (None, "relevant", False, False, None), (None, None, False, False, None), (4.0, None, False, False, None),
    (4.0, "pass", True, True, 1.0),
]


@pytest.mark.parametrize(("score", "label", "applicable", "passed", "counts"), LABELS,
                         ids=[f"{s}-{lab}" for s, lab, *_ in LABELS])
def test_evaluation_results(score, label, applicable, passed, counts) -> None:
    s = evaluation_check("relevance", score=score, label=label, explanation="why")
    assert s.applicable is applicable
    assert s.check.passed is passed
    assert s.value == counts
    assert s.check.reason.endswith("why")


def test_verdict_rules() -> None:
    c = inspect_checks
    assert verdict_of([]).outcome == "na"
    only_n = verdict_of(c("a", "N") + c("b", "N"))
    assert (only_n.outcome, only_n.details) == ("na", {"not_applicable": ["a", "b"]})
    mixed = verdict_of(c("a", "C") + c("b", "P") + c("c", "N"))
    assert mixed.outcome == "fail" and mixed.score == pytest.approx(0.75)
    assert mixed.reason.startswith("b: P (partial")
    ok = verdict_of(c("a", "C") + c("b", 1.0) + c("c", "N"))
    assert ok.outcome == "pass" and ok.score == 1.0 and len(ok.checks) == 3
    err = verdict_of(c("a", "C"), error="RuntimeError: boom\ntraceback")
    assert err.outcome == "error" and err.reason == "RuntimeError: boom traceback" and err.checks


values = st.one_of(
    st.sampled_from(["C", "I", "P", "N", "yes", "no", "x"]), st.booleans(),
    st.integers(-3, 3), st.floats(allow_nan=True, allow_infinity=True),
)


@given(st.lists(values, max_size=8))
def test_the_verdict_is_the_rule_over_applicable_checks(vals) -> None:
    scored = [s for i, v in enumerate(vals) for s in inspect_checks(f"s{i}", v)]
    v = verdict_of(scored)
    applicable = [s for s in scored if s.applicable]
    if not applicable:
        assert v.outcome == "na"
        return
    assert v.outcome == ("pass" if all(s.check.passed for s in applicable) else "fail")
    assert math.isclose(v.score, sum(s.value for s in applicable) / len(applicable), abs_tol=1e-9)
    assert 0.0 <= v.score <= 1.0
    assert len(v.checks) == len(scored)
