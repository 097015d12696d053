"""The review verdict (issue 26 item 3): a check that cannot decide says so, and only where the
answer gives the asked value two ways that disagree (judges/readings.py). A clear case never
gets review: an empty answer fails, a plain statement is decided, and the phrasing corpus (whose
verdicts are known by construction) is judged pass or fail, never review."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given
from hypothesis import strategies as st

import corpus_grammar as G
import corpus_paths as P
from judges.base import OUTCOMES, Check, Verdict
from judges.readings import unresolved
from replay.state import RunState
from suites.gui import grounded
from suites.gui.answers import value_check

# 2026-04-05 10:00 in Shanghai: 明天 is April 6th.
OS = {"time": int(dt.datetime(2026, 4, 5, 10, tzinfo=dt.timezone(dt.timedelta(hours=8))).timestamp() * 1000),
      "timezone": "Asia/Shanghai"}


def test_review_is_an_outcome_apart_from_pass_and_fail() -> None:
    assert "review" in OUTCOMES and "na" in OUTCOMES
    ok, unsure = Check(name="a", passed=True), Check(name="b", passed=False, review=True, reason="two readings")
    wrong = Check(name="c", passed=False, reason="not stated: 20")
    v = Verdict.from_checks([ok, unsure])
    assert (v.outcome, v.score) == ("review", 0.5)
    assert v.reason == "cannot tell: b: two readings"
    # A check that fails decides, whatever another could not tell.
    assert Verdict.from_checks([unsure, wrong]).outcome == "fail"
    assert Verdict.from_checks([unsure, wrong]).reason == "c: not stated: 20"
    assert Verdict.from_checks([ok]).outcome == "pass"
    assert Verdict.review("x").outcome == "review"


@pytest.mark.parametrize("matcher, expected, answer", [
    ("date", "2026-04-06", "明天（4月7日）有小雨"),       # 明天 is the 6th: the bracket says the 7th
    ("date", "2026-04-07", "明天（4月7日）有小雨"),       # the other side states it: still two readings
    ("time", "15:00", "闹钟定在下午3点（16:00）"),
    ("exact", 22, "北京现在22°C（25°C）"),
    ("exact", "22", "现在22度（25度）"),
])
def test_a_value_restated_as_another_is_unresolved(matcher: str, expected: object, answer: str) -> None:
    why = unresolved(matcher, expected, answer, OS, unit="°C" if matcher == "exact" else None)
    assert why is not None and "two ways" in why


@pytest.mark.parametrize("matcher, expected, answer", [
    ("date", "2026-04-06", "明天（4月6日）有小雨"),       # the restatement agrees
    ("date", "2026-04-08", "明天（4月7日）有小雨"),       # neither side states it: a plain fail
    ("time", "15:00", "闹钟定在下午3点（15:00）"),
    ("exact", 22, "北京现在22°C（72°F）"),                # a conversion, not a second reading
    ("exact", 22, "北京现在22°C（体感25°C）"),            # words in the brackets: another quantity
    ("exact", 22, "北京现在22°C（25°C）。确认是22°C"),     # stated plainly as well
    ("exact", 22, "不是22°C（25°C）"),                    # denied
    ("exact", 30, "22°C（25°C）"),                        # neither side
    ("exact", 22, ""),
    ("exact", 22, "   "),
    ("exact", "多云", "多云（晴）"),                       # names are not read here
])
def test_clear_answers_are_not_unresolved(matcher: str, expected: object, answer: str) -> None:
    assert unresolved(matcher, expected, answer, OS, unit="°C" if matcher == "exact" else None) is None


@given(st.integers(-40, 60), st.integers(-40, 60), st.sampled_from(["度", "°C", "℃", ""]),
       st.sampled_from(["现在{a}{u}", "气温{a}{u}，明天{b}{u}", "{a}{u}到{b}{u}", "{a}{u}或{b}{u}", "不是{b}{u}，是{a}{u}"]))
def test_no_bracketed_restatement_no_review(a: int, b: int, u: str, frame: str) -> None:
    """Without a value restated in brackets nothing is unresolved, whatever else the answer says."""
    assert unresolved("exact", a, frame.format(a=a, b=b, u=u), unit="°C") is None


@given(st.integers(-40, 60), st.integers(-40, 60), st.sampled_from(["度", "°C"]))
def test_a_disagreeing_restatement_is_review_only_when_one_side_states_the_value(a: int, b: int, u: str) -> None:
    answer = f"北京现在{a}{u}（{b}{u}）"
    for expected in (a, b, 99):
        why = unresolved("exact", expected, answer, unit="°C")
        assert (why is not None) == (a != b and expected in (a, b))


def test_the_gui_check_says_review_and_an_empty_answer_fails() -> None:
    c = value_check("answer", "date", "2026-04-06", "明天（4月7日）有小雨", OS)
    assert (c.passed, c.review) == (False, True) and "two ways" in c.reason
    empty = value_check("answer", "date", "2026-04-06", "", OS)
    assert (empty.passed, empty.review, empty.reason) == (False, False, "no answer")
    # Two expected values: one plainly missing decides the check (a fail, not a review).
    both = value_check("answer", "exact", [22, 30], "北京现在22°C（25°C）", OS, unit="°C")
    assert (both.passed, both.review) == (False, False) and "not stated: 30" in both.reason


def _outcome(case: G.Case) -> str:
    world = P._world(case)
    if case.field:
        from replay.state import Sheet

        state = RunState(run_id="c", initial_state=world, state=world,
                         sheet=Sheet(answers={"0": case.answer}, submitted=True))
    else:
        state = RunState(run_id="c", mode="text", answer=case.answer, initial_state=world, state=world)
    return grounded.judge(P._task(case, False), state).outcome


@given(G.cases())
def test_a_clear_case_of_the_phrasing_corpus_never_gets_review(case: G.Case) -> None:
    """Every corpus answer has its verdict by construction: the judge decides it (a review there
    would be a disagreement with the grader, like a wrong pass or fail)."""
    assert _outcome(case) in ("pass", "fail")
