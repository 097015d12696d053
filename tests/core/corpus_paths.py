"""Every public path that reads an agent's answer, run on one corpus case (tests/core/corpus_grammar.py).

A path returns the verdict it gives the case, or None when the case is not judged there:

* ``match``: the matchers (judges.matchers.match_value, match_time, match_duration, match_date);
  not for a case whose verdict needs the asked subject read (another city's value).
* ``gui_text``: the GUI suite's judge (suites.gui.grounded.judge) in text mode, for a task whose
  answer is the case's expected value: Task.about, AnswerTask.check_goals, the field's matcher.
* ``gui_b``: the same judge in grounded mode on Path B: a task with its own check_goals, the
  answer typed into its one AnswerSheet field and submitted.
* ``gui_a``: the same judge on Path A, for AnswerSheet field cases (match_field per field).
* ``dev_contains``, ``dev_regex``: the real-device checks answer_contains (the expected value)
  and answer_regex (the value's digits or text, as a task author writes it; seed 003's
  ``56,?088``), for numbers and names, with the question as the goal.
* ``dev_grounded``: answer_grounded (minItems 1) against the case's screen, where the case has one.
"""

from __future__ import annotations

import functools
import re
from typing import Any

import suites.gui as gui
from judges.matchers import match_date, match_duration, match_time, match_value
from replay.state import RunState, Screen, Sheet
from suites.device.kinds import answer_contains, answer_grounded, answer_regex
from suites.device.model import AnswerContains, AnswerGrounded, AnswerRegex
from suites.gui import grounded
from suites.gui.task import AnswerTask, Enum

from corpus_grammar import ALARMS, CITIES, Case

OS = gui.defaults()["os"]
PATHS = ("match", "gui_text", "gui_b", "gui_a", "dev_contains", "dev_regex", "dev_grounded")

_FIELDS = {
    "number": {"type": "number", "label": "值"},
    "name": {"type": "text", "label": "名称"},
    "time": {"type": "text", "label": "时间", "hint": "e.g. 14:30", "matcher": "time"},
    "duration": {"type": "text", "label": "时长", "matcher": "duration"},
    "date": {"type": "text", "label": "日期", "matcher": "date"},
    "times": {"type": "text", "label": "闹钟", "matcher": "time", "repeatable": True, "compare": "set"},
}
_CITY_ENUM = Enum(values={zh: zh for zh, _ in CITIES}, default=CITIES[0][0], subject=True,
                  aliases={zh: (en,) for zh, en in CITIES})
_ALARM_ENUM = Enum(values={a: a for a in ALARMS}, default=ALARMS[0], subject=True)


def _own_check_goals(self, obs):
    # Path B: the class defines check_goals (has_own_check_goals), judging as AnswerTask does.
    return AnswerTask.check_goals(self, obs)


@functools.lru_cache(maxsize=None)
def task_class(kind: str, unit: str | None, subject_kind: str, path_b: bool) -> type[AnswerTask]:
    """A GUI task asking for the value at apps.corpus.value, in one AnswerSheet field."""
    attrs: dict[str, Any] = {
        "app": "corpus", "templates": ("问题：{who}" if subject_kind else "问题",), "answer": "apps.corpus.value",
        "answer_fields": [_FIELDS[kind]], "unit": unit,
        "parameters": {"who": _CITY_ENUM if subject_kind == "city" else _ALARM_ENUM} if subject_kind else {},
    }
    if path_b:
        attrs["check_goals"] = _own_check_goals
    return type("CorpusB" if path_b else "Corpus", (AnswerTask,), attrs)


def _task(case: Case, path_b: bool) -> AnswerTask:
    kind = "city" if case.subject in dict(CITIES) else "alarm" if case.subject in ALARMS else ""
    cls = task_class(case.kind, case.unit, kind, path_b)
    return cls(who=case.subject) if kind else cls()


def _world(case: Case) -> dict[str, Any]:
    return {"apps": {"corpus": {"value": case.expected}}, "os": OS}


def _passed(task: AnswerTask, state: RunState) -> bool:
    verdict = grounded.judge(task, state)
    if verdict.outcome == "error":
        raise RuntimeError(f"the judge erred on {state.answer or state.sheet}: {verdict.reason}")
    return verdict.outcome == "pass"


def _regex(case: Case) -> str | None:
    if case.kind == "name":
        return re.escape(case.expected)
    if case.kind != "number" or case.quantity == "price":
        return None
    n = int(case.expected)
    return f"{n // 1000},?{n % 1000:03d}" if n >= 1000 else re.escape(str(n))


def run_path(path: str, case: Case) -> bool | None:
    """The verdict `path` gives the case, or None when the path does not judge it."""
    text = case.answer
    if case.field:
        if path != "gui_a":
            return None
        world = _world(case)
        sheet = Sheet(answers={"0": text}, submitted=True)
        return _passed(_task(case, False), RunState(run_id="c", initial_state=world, state=world, sheet=sheet))
    if path == "gui_a":
        return None
    if path == "match":
        if not case.matcher_level or case.kind == "times":
            return None
        if case.kind == "time":
            return match_time(case.expected, text)
        if case.kind == "duration":
            return match_duration(case.expected, text)
        if case.kind == "date":
            return match_date(case.expected, text, OS)
        return match_value(case.expected, text, unit=case.unit)
    if path == "gui_text":
        world = _world(case)
        return _passed(_task(case, False), RunState(run_id="c", mode="text", answer=text, initial_state=world,
                                                    state=world))
    if path == "gui_b":
        world = _world(case)
        sheet = Sheet(answers={"0": text}, submitted=True)
        return _passed(_task(case, True), RunState(run_id="c", initial_state=world, state=world, sheet=sheet))
    if path in ("dev_contains", "dev_regex"):
        if not case.device or case.kind not in ("number", "name"):
            return None
        state = RunState(run_id="c", answer=text)
        if path == "dev_contains":
            return answer_contains(AnswerContains(value=case.expected), state, goal=case.question).passed
        pattern = _regex(case)
        if pattern is None:
            return None
        return answer_regex(AnswerRegex(pattern=pattern), state, goal=case.question).passed
    if path == "dev_grounded":
        if case.screen is None or case.grounded is None:
            return None
        state = RunState(run_id="c", answer=text, screens=(Screen(seq=1, text=case.screen),))
        return answer_grounded(AnswerGrounded(minItems=1), state).passed
    raise ValueError(f"unknown path {path!r}")


def expected_on(path: str, case: Case) -> bool:
    """The grader's verdict on that path: answer_grounded judges grounding, the others the claim."""
    return bool(case.grounded) if path == "dev_grounded" else case.verdict
