"""A tiny built-in suite that exercises the platform end to end without any other suite.

Two weather questions, judged on the AnswerSheet (grounded mode) or the final answer (text
mode): the expected number must appear in the answer as a whole number, Chinese numerals
included. (``traj demo`` judges first with a copy that looks for it as a substring, the
realistic bug where "25" passes for an expected 5 and "二十度" fails for 20.)
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from judges.base import Check, Suite, Verdict
from replay.state import RunState

TASKS: dict[str, dict[str, Any]] = {
    "current_temp": {
        "goal": "{city}现在多少度?",
        "answer": ["apps", "weather", "cities", "{city}", "temp"],
    },
    "humidity": {
        "goal": "{city}的湿度是多少?",
        "answer": ["apps", "weather", "cities", "{city}", "humidity"],
    },
}

_DIGITS = {"零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}


def _small_chinese_numbers(text: str) -> str:
    """Rewrite Chinese numerals below 100 (二十, 三十五, 十二) as digits."""

    def one(m: re.Match[str]) -> str:
        tens, ones = m.group(1), m.group(2)
        value = (_DIGITS[tens] if tens else 1) * 10 + (_DIGITS[ones] if ones else 0)
        return str(value)

    text = re.sub(r"([一二两三四五六七八九])?十([一二三四五六七八九])?", one, text)
    return re.sub(r"[零一二两三四五六七八九]", lambda m: str(_DIGITS[m.group(0)]), text)


def number_matches(expected: float, text: str) -> bool:
    """The expected number is one of the answer's whole numbers."""
    # A standalone number: "25" must not count as 5, nor "12" inside "2012".
    numbers = re.findall(r"(?<![\d.])-?\d+(?:\.\d+)?(?![\d.])", _small_chinese_numbers(text))
    return any(float(n) == float(expected) for n in numbers)


class ExampleSuite(Suite):
    name = "example"

    def task_ids(self) -> list[str]:
        return list(TASKS)

    def get_task(self, task_id: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        if task_id not in TASKS:
            raise KeyError(f"example: no task {task_id!r}")
        return {"id": task_id, "params": dict(params or {}), **TASKS[task_id]}

    def task_data(self, task: dict[str, Any]) -> Any:
        return TASKS[task["id"]]

    def judge(self, task: dict[str, Any], state: RunState) -> Verdict:
        if state.initial_state is None:
            return Verdict.na("the run recorded no world state")
        node: Any = state.initial_state
        for part in task["answer"]:
            node = node[part.format(**task["params"])]
        expected = node
        if state.mode == "grounded":
            actual = state.sheet.value(0)
            checks = [
                Check(
                    name="submitted",
                    passed=state.sheet.submitted,
                    expected=True,
                    actual=state.sheet.submitted,
                    reason="" if state.sheet.submitted else "the AnswerSheet was not submitted",
                )
            ]
        else:
            actual = state.answer
            checks = []
        ok = actual is not None and number_matches(expected, str(actual))
        checks.append(
            Check(
                name="answer",
                passed=ok,
                expected=expected,
                actual=actual,
                reason="" if ok else f"{expected} not found in the answer",
            )
        )
        return Verdict.from_checks(checks)


def load(path: str | Path | None = None) -> ExampleSuite:
    return ExampleSuite()

