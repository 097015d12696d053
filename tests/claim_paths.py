"""Every path that reads a free-text answer, as one function each: (kind, expected, answer, unit)
-> does this path read the answer as claiming `expected`?

The claim classes of issue 22 (corrections, names with a suffix, list markers, units, a question
denied, negation by meaning, full-width Latin) must read alike in all of them, because they read
answers through one function (``judges.tokens.Scan.claims``). A path returns None where it does
not apply (answer_grounded only reads values, not phrases; a sheet field only its own kind).
"""

from __future__ import annotations

import copy
import re
from typing import Any

from device_helpers import state as device_state
from gui_helpers import DEFAULTS, judge

from judges.matchers import has_close_number, match_field, match_time, match_value
from suites.device.kinds import answer_contains, answer_grounded, answer_regex
from suites.device.model import AnswerContains, AnswerGrounded, AnswerRegex
from suites.gui import tasks_weather as W
from suites.gui.answers import value_check

GOAL = "看看现在的情况，告诉我答案"


def _pattern_of(kind: str, expected: Any) -> str:
    text = str(expected)
    if kind == "number":
        text = f"{expected:g}" if isinstance(expected, float) else text
        return rf"(?<![\d.]){re.escape(text)}(?!\d|\.\d)"
    return re.escape(text)


def match(kind: str, expected: Any, answer: str, unit: str | None = None) -> bool | None:
    if kind == "time":
        return match_time(expected, answer)
    return match_value(expected, answer, unit=unit)


def pattern(kind: str, expected: Any, answer: str, unit: str | None = None) -> bool | None:
    if kind == "time" or unit:
        return None
    return match_value(re.compile(_pattern_of(kind, expected)), answer)


def close_number(kind: str, expected: Any, answer: str, unit: str | None = None) -> bool | None:
    """has_close_number with no tolerance to speak of: a measured value the answer states."""
    if kind != "number":
        return None
    return has_close_number(answer, expected, tol=0, unit=unit)


def value_text(kind: str, expected: Any, answer: str, unit: str | None = None) -> bool | None:
    """The GUI suite's free-text check (text mode of an AnswerTask, and Path B's text checks)."""
    return value_check("answer", "time" if kind == "time" else "exact", expected, answer, None, unit=unit).passed


def _wind_world(kind: str, expected: Any) -> dict[str, Any]:
    world = copy.deepcopy(DEFAULTS)
    city = next(c for c in world["apps"]["weather"]["cities"] if c["id"] == "beijing")
    city["current"]["wind_scale" if kind == "number" else "wind_dir"] = expected
    return world


def _wind_check(kind: str, verdict: Any) -> bool:
    name = "answer.scale" if kind == "number" else "answer.dir"
    return next(c for c in verdict.checks if c.name == name).passed


def gui_text(kind: str, expected: Any, answer: str, unit: str | None = None) -> bool | None:
    """A real GUI task in text mode (CheckWind: its own check_goals asks the wind force in 级)."""
    if kind == "time" or unit not in (None, "级"):
        return None
    task = W.CheckWind(city="beijing")
    return _wind_check(kind, judge(task, mode="text", answer=answer, initial=_wind_world(kind, expected)))


def gui_path_b(kind: str, expected: Any, answer: str, unit: str | None = None) -> bool | None:
    """The same task judged on Path B: the AnswerSheet values joined with ", "."""
    if kind == "time" or unit not in (None, "级"):
        return None
    task = W.CheckWind(city="beijing")
    sheet = ["东风", answer] if kind == "number" else [answer, "3"]
    return _wind_check(kind, judge(task, sheet=sheet, initial=_wind_world(kind, expected)))


def regex(kind: str, expected: Any, answer: str, unit: str | None = None) -> bool | None:
    if kind == "time" or unit:
        return None
    return answer_regex(AnswerRegex(pattern=_pattern_of(kind, expected)), device_state(answer), goal=GOAL).passed


def contains(kind: str, expected: Any, answer: str, unit: str | None = None) -> bool | None:
    if kind == "time" or unit:
        return None
    return answer_contains(AnswerContains(value=expected), device_state(answer), goal=GOAL).passed


def grounded(kind: str, expected: Any, answer: str, unit: str | None = None) -> bool | None:
    """answer_grounded on a screen that shows only `expected`: it passes when the answer claims
    the expected value and no other value (a withdrawn one needs no screen)."""
    if kind not in ("number", "time") or unit:
        return None
    screen = f"{expected:g}" if isinstance(expected, float) else str(expected)
    return answer_grounded(AnswerGrounded(minItems=1), device_state(answer, screens=[(screen, None)])).passed


def field(kind: str, expected: Any, answer: str, unit: str | None = None) -> bool | None:
    """A time sheet field (Path A): it holds one time; one it takes back is not held."""
    if kind != "time":
        return None
    return match_field("time", expected, answer)


PATHS = {f.__name__: f for f in (match, pattern, close_number, value_text, gui_text, gui_path_b, regex, contains,
                                 grounded, field)}
# Paths that read claims of any value (every path but answer_grounded, which reads all values,
# and the field, which reads one kind).
CLAIM_PATHS = ("match", "pattern", "close_number", "value_text", "gui_text", "gui_path_b", "regex", "contains")


def applies(name: str, kind: str, unit: str | None) -> bool:
    """Does the path `name` read a value of `kind` asked in `unit` (it returns a verdict)?"""
    return PATHS[name](kind, 1 if kind == "number" else "08:00" if kind == "time" else "x", "", unit) is not None
