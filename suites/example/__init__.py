"""A tiny built-in suite that exercises the platform end to end without any other suite.

Two weather questions, judged on the AnswerSheet (grounded mode) or the final answer (text
mode): the answer must state the expected number as one exact value, read by the shared
tokenizer (Chinese numerals and signs included), said of the asked city: a number the answer
gives another city does not count (judges.subjects). (``traj demo`` judges first with a copy that
looks for it as a substring, the realistic bug where "25" passes for an expected 5 and "二十度"
fails for 20.) An answer that gives the number two ways that disagree, one restated in brackets
(20度（25度）), is not guessed at: the check cannot tell and the verdict is ``review``
(judges.readings).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from judges.base import Check, Suite, Verdict
from judges.matchers import match_value
from judges.readings import unresolved
from judges.subjects import Subject, about
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


def number_matches(expected: float, text: str) -> bool:
    """The answer states the expected number as one exact value.

    Read with the shared tokenizer (``judges.matchers.match_value``), like every other suite:
    "25" is not 5, 二十 is 20, 负5 is -5, a number inside a word (一样) is none, a negated
    number (不是20度) is not stated, and a hedge (三四十) or a bound (四十多) is not the exact value;
    an approximation word beside one value (大约四十) states it.
    """
    return match_value(expected, text)


def _subjects(task: dict[str, Any], world: Any) -> tuple[Subject, ...]:
    """The asked city, and the other cities of the world state: "上海现在20度" says nothing of 北京."""
    city = task["params"].get("city")
    cities = (((world or {}).get("apps") or {}).get("weather") or {}).get("cities") or {}
    if not isinstance(city, str) or not isinstance(cities, dict):
        return ()
    return (Subject((city,), tuple(c for c in cities if isinstance(c, str) and c != city)),)


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
        said = None if actual is None else about(str(actual), _subjects(task, state.initial_state))
        why = None if said is None else unresolved("exact", expected, said)
        if why is not None:
            checks.append(Check(name="answer", passed=False, review=True, expected=expected, actual=actual, reason=why))
            return Verdict.from_checks(checks)
        ok = said is not None and number_matches(expected, said)
        checks.append(
            Check(
                name="answer",
                passed=ok,
                expected=expected,
                actual=actual,
                reason="" if ok else f"the answer does not state {expected} as one exact value",
            )
        )
        return Verdict.from_checks(checks)


def load(path: str | Path | None = None) -> ExampleSuite:
    return ExampleSuite()

