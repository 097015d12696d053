"""A device check kind is one class: defined here, outside suites/device, it is read from task
files, validated, resolved and run by that class alone, once it is in the kinds a suite is given."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from device_helpers import TABLE, state, write_task
from judges.base import Check
from replay.state import RunState
from suites.device import load
from suites.device.judge import judge
from suites.device.kinds import KINDS, CheckKind, Given
from suites.device.model import TaskError, parse_task


class ScreensAtMost(CheckKind, tag="screens_at_most"):
    """The agent read at most ``limit`` screens; ``label`` (placeholders filled) names the budget."""

    limit: int
    label: str = "screen budget"

    substituted = ("label",)

    def problems(self) -> list[str]:
        return [] if self.limit >= 1 else [f"limit must be >= 1, got {self.limit}"]

    def run(self, state: RunState, given: Given) -> Check:
        n = len(state.screens)
        ok = n <= self.limit
        return Check(name=given.name, passed=ok, expected=self.limit, actual=n,
                     reason="" if ok else f"{n} screens read, {self.label} is {self.limit}")


OWN = (*KINDS, ScreensAtMost)


def _task(checks: list[dict], kinds=OWN):
    data = {"id": "t", "goal": "看看", "category": "read", "expect": "succeeded", "partition": "tune", "checks": checks}
    return parse_task(json.dumps(data, ensure_ascii=False).encode(), "t.json", kinds)[0]


def test_the_bundled_kinds_do_not_read_it_and_the_extended_ones_do() -> None:
    with pytest.raises(TaskError, match=r"t.json: Invalid value 'screens_at_most' - at `\$.checks\[0\].type`"):
        _task([{"type": "screens_at_most", "limit": 2}], kinds=KINDS)
    t = _task([{"type": "screens_at_most", "limit": 2}, {"type": "answer_regex", "pattern": "20"}])
    assert t.checks == [ScreensAtMost(limit=2), KINDS[0](pattern="20")]
    with pytest.raises(TaskError, match=r"Object contains unknown field `limt`"):
        _task([{"type": "screens_at_most", "limt": 2}])


def test_its_problems_are_the_tasks_problems() -> None:
    with pytest.raises(TaskError, match=r"^t.json: checks\[0\] \(screens_at_most\): limit must be >= 1, got 0$"):
        _task([{"type": "screens_at_most", "limit": 0}])


def test_its_run_is_the_verdicts_check_and_its_placeholders_fill() -> None:
    t = _task([{"type": "screens_at_most", "limit": 1, "label": "budget of {run}"}, {"type": "answer_regex", "pattern": "20"}])
    one = judge(t, state("20度", [("20°", None)]), TABLE)
    assert one.outcome == "pass" and [c.name for c in one.checks] == ["outcome", "screens_at_most", "answer_regex"]
    two = judge(t, state("20度", [("a", None), ("20°", None)]), TABLE)
    assert two.outcome == "fail" and two.checks[1].reason == "2 screens read, budget of b1 is 1"
    # A placeholder the run cannot fill is an error verdict naming it, as for every kind.
    t = _task([{"type": "screens_at_most", "limit": 1, "label": "{probe:quota}"}])
    v = judge(t, state("x", [("x", None)]), TABLE)
    assert (v.outcome, v.reason) == ("error", "missing probe quota")


def test_a_folder_suite_given_the_kind_judges_with_it(tmp_path: Path) -> None:
    data = {"id": "few", "goal": "看看天气", "category": "read", "expect": "succeeded", "partition": "holdout",
            "checks": [{"type": "screens_at_most", "limit": 1}]}
    write_task(tmp_path, "read", data)
    bundled = load(tmp_path)
    assert bundled.tasks == {} and any("Invalid value 'screens_at_most'" in p for p in bundled.problems)
    suite = load(tmp_path, OWN)
    assert suite.task_ids() == ["few"] and not any("screens_at_most" in p for p in suite.problems)
    v = suite.judge(suite.get_task("few"), state("晴", [("晴", None), ("晴", None)]))
    assert v.outcome == "fail" and v.checks[1].name == "screens_at_most" and v.checks[1].actual == 2
