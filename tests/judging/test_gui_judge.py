"""Grounded judging of the GUI suite: which path judges a run, the expected-response rules,
side effects, the step budget, and runs without world state."""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest

from judges.base import Check
from suites.gui import grounded, paths
from suites.gui import tasks_clock as C
from suites.gui import tasks_weather as W
from suites.gui.task import AnswerTask, CriteriaTask, Observation, Task, has_own_check_goals
from trajectory.judging import SuiteResolver, judge_state

from gui_helpers import DEFAULTS, SUITE, judge, run_state


# -- which path ------------------------------------------------------------------------------


class _Criteria(CriteriaTask):
    app = "weather"
    templates = ("x",)
    answer_fields = [{"type": "number", "label": "n"}]


class _Sub(_Criteria):
    """Inherits check_goals from an intermediate base: still Path B."""


class _Plain(AnswerTask):
    app = "weather"
    templates = ("x",)
    answer = "apps.weather.cities[id=beijing].current.temp"
    answer_fields = [{"type": "number", "label": "n"}]


def test_own_check_goals_is_found_along_the_mro():
    assert not has_own_check_goals(_Plain())
    assert has_own_check_goals(_Criteria()) and has_own_check_goals(_Sub())
    assert has_own_check_goals(W.CheckWind()) and has_own_check_goals(C.AddAlarmAndCount())
    assert not has_own_check_goals(W.CheckHighLow())
    assert not has_own_check_goals(Task())


@pytest.mark.parametrize(
    "task,mode,kw,path",
    [
        (W.CheckCurrentTemp(), "grounded", {"sheet": ["20"]}, "A"),
        (W.CheckCurrentTemp(), "text", {"answer": "20度"}, "text"),
        (W.CheckWind(), "grounded", {"sheet": ["东风", "3"]}, "B"),
        (W.CheckWind(), "text", {"answer": "东风3级"}, "text"),
        (W.SwitchTempUnit(), "grounded", {}, "text"),  # no answer_fields: text-mode fallback
    ],
)
def test_path_selection(task, mode, kw, path):
    v = judge(task, mode=mode, **kw)
    assert v.details["path"] == path and v.details["mode"] == mode


def test_mode_comes_from_run_started():
    state = run_state(W.CheckCurrentTemp(), mode="text", sheet=["20"], answer="不知道")
    assert state.mode == "text"
    assert SUITE.judge(W.CheckCurrentTemp(), state).outcome == "fail"  # the sheet is not read in text mode


def test_path_b_joins_fields_in_order_and_only_when_submitted():
    seen: list[Any] = []

    class Spy(W.CheckWind):
        def check_goals(self, obs: Observation) -> list[Check]:
            seen.append(obs.answer)
            return super().check_goals(obs)

    judge(Spy(), mode="grounded", sheet=["东风", "3"])
    judge(Spy(), mode="grounded", sheet=["东风", "3"], submitted=False)
    assert seen == ["东风, 3", None]
    v = judge(Spy(), mode="grounded", sheet=["东风", "3"], submitted=False)
    assert v.outcome == "fail" and v.checks[0].name == "submitted" and not v.checks[0].passed


def test_path_a_does_not_call_check_goals():
    class Loud(_Plain):
        def get_expected_response(self, obs):
            return [20]

    assert not has_own_check_goals(Loud())
    v = judge(Loud(), mode="grounded", sheet=["20"])
    assert v.outcome == "pass" and [c.name for c in v.checks] == ["submitted", "field 0: n"]


def test_swapped_high_low_is_caught_field_by_field():
    ok = judge(W.CheckHighLow(city="北京"), mode="grounded", sheet=["23", "15"])
    swapped = judge(W.CheckHighLow(city="北京"), mode="grounded", sheet=["15", "23"])
    assert ok.outcome == "pass" and swapped.outcome == "fail"
    assert [c.passed for c in swapped.checks] == [True, False, False]


# -- expected-response rules -----------------------------------------------------------------


def test_dict_answer_unpacks_in_field_order():
    obs = Observation(initial=DEFAULTS, final=DEFAULTS)
    assert W.CheckHighLow(city="北京").get_expected_response(obs) == [23, 15]


def test_field_count_mismatch_is_a_judge_error_that_says_so():
    class TwoValuesOneField(AnswerTask):
        app = "weather"
        templates = ("x",)
        answer_fields = [{"type": "text", "label": "风"}]

        def get_answer(self, obs):
            return {"dir": "东风", "scale": 3}

    v = judge(TwoValuesOneField(), mode="grounded", sheet=["东风3级"])
    assert v.outcome == "error"
    assert "1 answer field(s) but 2 expected value(s)" in v.reason


def test_regex_answer_needs_an_explicit_expected_response():
    class PatternOnly(AnswerTask):
        app = "weather"
        templates = ("x",)
        answer_fields = [{"type": "choice", "label": "c", "options": ["一样热", "北京"]}]

        def get_answer(self, obs):
            return re.compile("一样|相同")

    v = judge(PatternOnly(), mode="grounded", sheet=["一样热"])
    assert v.outcome == "error" and "get_expected_response" in v.reason
    # Text mode can use the pattern directly.
    assert judge(PatternOnly(), mode="text", answer="两地温度相同").outcome == "pass"
    # The suite's own regex task gives its exact form value.
    assert judge(W.CompareCityTemp(city1="北京", city2="杭州"), mode="grounded", sheet=["一样热"]).outcome == "pass"


def test_expected_value_outside_the_options_is_a_judge_error():
    class BadOption(AnswerTask):
        app = "weather"
        templates = ("x",)
        answer = "apps.weather.cities[id=beijing].current.condition"
        answer_fields = [{"type": "choice", "label": "c", "options": ["晴", "雨"]}]

    v = judge(BadOption(), mode="grounded", sheet=["晴"])
    assert v.outcome == "error" and "not an option" in v.reason


def test_platform_records_an_error_verdict_when_a_judge_raises():
    class Broken(AnswerTask):
        app = "weather"
        templates = ("x",)
        answer_fields = [{"type": "number", "label": "n"}]

        def get_answer(self, obs):
            raise KeyError("weather: no city '东京'")

    class OneTaskSuite(type(SUITE)):
        def get_task(self, task_id, params=None):
            return Broken()

    verdict, _ = judge_state(SuiteResolver(overrides={"weather": OneTaskSuite()}), run_state(Broken(), sheet=["1"]))
    assert verdict.outcome == "error" and "东京" in verdict.reason


def test_a_bad_answer_path_is_an_error_naming_it():
    class Missing(_Plain):
        answer = "apps.weather.cities[id=tokyo].current.temp"

    v = judge(Missing(), mode="grounded", sheet=["20"])
    assert v.outcome == "error" and "id=tokyo" in v.reason


def test_single_value_field_refuses_a_list_and_repeatable_accepts_a_scalar():
    assert judge(W.CheckCurrentTemp(), mode="grounded", sheet=[["20", "21"]]).outcome == "fail"
    one_day = copy.deepcopy(DEFAULTS)
    for day in one_day["apps"]["weather"]["cities"][1]["forecast"][1:]:
        day["condition"] = "晴"
    assert judge(W.RainyDays(city="上海"), mode="grounded", sheet=["今天"], initial=one_day).outcome == "pass"


# -- side effects ----------------------------------------------------------------------------


def _op(op: str, path: str, value: Any = None) -> dict[str, Any]:
    return {"op": op, "path": path, **({} if op == "remove" else {"value": value})}


def test_an_uncovered_change_is_a_warning_and_fails_the_run():
    v = judge(
        W.SwitchTempUnit(), mode="text",
        patch=[_op("replace", "/apps/weather/settings/temp_unit", "fahrenheit"),
               _op("replace", "/apps/clock/settings/volume", 100)],
    )
    assert v.outcome == "fail"
    assert v.details["success"] is True and v.details["clean"] is False
    assert v.details["warnings"] == ["apps.clock.settings.volume"]
    warning = [c for c in v.checks if c.name.startswith(grounded.WARNING)]
    assert len(warning) == 1 and not warning[0].passed and "unexpected change" in warning[0].reason


def test_answer_sheet_and_clock_ticks_are_never_side_effects():
    v = judge(
        W.CheckCurrentTemp(), mode="grounded", sheet=["20"],
        patch=[_op("replace", "/apps/answer_sheet/submitted", True),
               _op("replace", "/os/time/timestamp", DEFAULTS["os"]["time"]["timestamp"] + 60_000)],
    )
    assert v.outcome == "pass" and v.details["clean"]


def test_a_query_task_that_changes_the_world_is_not_clean():
    v = judge(W.CheckCurrentTemp(), mode="grounded", sheet=["20"],
              patch=[_op("add", "/apps/weather/saved/-", "chengdu")])
    assert v.outcome == "fail" and v.details["success"] and v.details["warnings"] == ["apps.weather.saved"]


def test_additions_by_id_and_rules_by_other_fields():
    added = _op("add", "/apps/clock/alarms/-", {"id": "a9", "time": "06:30", "label": "赶飞机", "enabled": True})
    v = judge(C.SetAlarm(time="06:30", label="赶飞机"), mode="text", patch=[added])
    assert v.outcome == "pass"
    # A new alarm plus an edit of an existing one: only the edit is a side effect.
    edit = _op("replace", "/apps/clock/alarms/0/time", "07:10")
    v = judge(C.SetAlarm(time="06:30", label="赶飞机"), mode="text", patch=[added, edit])
    assert v.details["warnings"] == ["apps.clock.alarms[id=a1].time"]


def test_paths_language():
    assert paths.resolve(DEFAULTS, "apps.clock.alarms[label=开会].time") == "14:30"
    assert paths.resolve(DEFAULTS, "apps.clock.alarms[1].id") == "a2"
    assert paths.resolve(DEFAULTS, "apps.clock.alarms[enabled=false].id") == "a3"
    with pytest.raises(paths.PathError, match="no item"):
        paths.resolve(DEFAULTS, "apps.clock.alarms[label=午饭]")
    with pytest.raises(paths.PathError):
        paths.parse("apps..clock")
    before = DEFAULTS["apps"]["clock"]
    after = copy.deepcopy(before)
    after["alarms"][1]["enabled"] = False
    after["alarms"].append({"id": "a5", "time": "06:00"})
    del after["alarms"][0]
    after["settings"]["theme"] = "dark"
    changes = {c.show(): c for c in paths.diff(before, after)}
    assert set(changes) == {"alarms[id=a1]", "alarms[id=a2].enabled", "alarms[id=a5]", "settings.theme"}
    assert changes["alarms[id=a1]"].kind == "removed" and changes["alarms[id=a5]"].kind == "added"
    assert paths.covers("alarms[+]", changes["alarms[id=a5]"])
    assert not paths.covers("alarms[+]", changes["alarms[id=a1]"])
    assert paths.covers("alarms[-]", changes["alarms[id=a1]"])
    assert paths.covers("alarms[label=起床]", changes["alarms[id=a1]"])
    assert paths.covers("alarms[*].enabled", changes["alarms[id=a2].enabled"])
    assert paths.covers("*.theme", changes["settings.theme"]) and paths.covers("settings", changes["settings.theme"])
    assert not paths.covers("alarms[id=a3]", changes["alarms[id=a2].enabled"])
    # A list without ids changes as a whole; 1 → True is a change.
    assert [c.show() for c in paths.diff({"l": [1, 2]}, {"l": [2, 1]})] == ["l"]
    assert [c.kind for c in paths.diff({"x": 1}, {"x": True})] == ["changed"]


# -- budget and missing state ----------------------------------------------------------------


def test_step_budget_is_reported():
    v = judge(W.CheckCurrentTemp(), mode="grounded", sheet=["20"], steps=40)
    assert v.details["max_steps"] == 35 and v.details["steps"] == 40 and v.details["over_budget"]
    v = judge(W.CheckCurrentTemp(), mode="text", answer="20度", steps=3)
    assert (v.details["max_steps"], v.details["steps"], v.details["over_budget"]) == (20, 3, False)
    v = judge(W.SwitchTempUnit(), mode="grounded", steps=3)
    assert v.details["max_steps"] == 12


def test_a_run_without_world_state_is_na_saying_so():
    state = run_state(W.CheckCurrentTemp(), mode="text", answer="20度", initial={})
    import msgspec

    state = msgspec.structs.replace(state, initial_state=None, state=None)  # as an imported run replays
    v = SUITE.judge(W.CheckCurrentTemp(), state)
    assert v.outcome == "na" and "no world state" in v.reason
