"""``traj suite new NAME``: a runnable skeleton suite to start from (docs/suites.md explains it).

The skeleton has one task, a judge that reads the run's world state and final answer, one run
that must pass and one that must fail (its judge matrix), and a test file that runs the matrix
under pytest. ``traj suite check NAME`` passes on it as written.
"""

from __future__ import annotations

import datetime as _dt
import re
from pathlib import Path

from trajectory import events as ev
from trajectory.errors import TrajError

NAME_RE = re.compile(r"^[a-z][a-z0-9_]*$")

SUITE_PY = '''"""{name}: a suite of my own (started by `traj suite new`; see docs/suites.md).

A suite is data (TASKS) plus a pure judge: given a task and a replayed run (RunState), it
returns a Verdict made of Checks. It reads nothing else: no files, no clock, no network.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from judges.base import Check, Suite, Verdict
from judges.matchers import match_value
from replay.state import RunState

# Task definitions are data. Each is hashed into the judge version of its verdicts, so editing
# one marks its old verdicts as made by another judge.
TASKS: dict[str, dict[str, Any]] = {{
    "current_temp": {{
        "goal": "What is the temperature in {{city}} now?",
        # Where the run's recorded world state (run_started.state) holds the right answer;
        # {{city}} is filled in from the run's params.
        "answer": ["apps", "weather", "cities", "{{city}}", "temp"],
    }},
}}


def lookup(world: Any, path: list[str], params: dict[str, Any]) -> Any:
    """The value at ``path`` in the world state, or None when it is not there."""
    node = world
    for part in path:
        key = part.format(**params)
        if not isinstance(node, dict) or key not in node:
            return None
        node = node[key]
    return node


class {cls}(Suite):
    name = "{name}"

    def task_ids(self) -> list[str]:
        return list(TASKS)

    def get_task(self, task_id: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        if task_id not in TASKS:
            raise KeyError(f"{name}: no task {{task_id!r}}")
        return {{"id": task_id, "params": dict(params or {{}}), **TASKS[task_id]}}

    def task_data(self, task: dict[str, Any]) -> Any:
        return TASKS[task["id"]]

    def judge(self, task: dict[str, Any], state: RunState) -> Verdict:
        if state.initial_state is None:
            return Verdict.na("the run recorded no world state")
        expected = lookup(state.initial_state, task["answer"], task["params"])
        if expected is None:
            return Verdict.error(f"the world state has no answer at {{task['answer']}}")
        # The final answer (answer_given), else the AnswerSheet's first field.
        actual = state.answer if state.answer is not None else state.sheet.value(0)
        # match_value finds the number as a whole number in free text ("25" is not 5),
        # Chinese numerals and full-width digits included ("二十度" states 20).
        ok = actual is not None and match_value(expected, str(actual))
        checks = [
            Check(name="answer", passed=ok, expected=expected, actual=actual,
                  reason="" if ok else f"{{expected}} is not in the answer"),
        ]
        return Verdict.from_checks(checks)


def load(path: str | Path | None = None) -> {cls}:
    """What traj calls to get the suite (``traj suite add {name} PATH`` registers the folder)."""
    return {cls}()
'''

TEST_PY = '''"""The judge matrix of suite {name}: every run in cases/pass must be judged pass, every run in
cases/fail must be judged fail, and every task has both. Run: pytest {name}/ (or: traj suite check {name})."""

from pathlib import Path

import pytest

from trajectory.judging.matrix import judge_matrix

MATRIX = judge_matrix(Path(__file__).parent)


def test_every_task_has_a_passing_and_a_failing_case():
    assert not MATRIX.problems, "\\n".join(MATRIX.problems)


@pytest.mark.parametrize("case", MATRIX.cases, ids=lambda c: c.label)
def test_the_judge_gets_the_case_right(case):
    assert case.ok, case.explain()
'''

WORLD = {"apps": {"weather": {"cities": {"北京": {"temp": 20, "condition": "多云"}}}}}


def _case(run_id: str, name: str, answer: str) -> bytes:
    t0 = _dt.datetime(2026, 4, 5, 2, 0, tzinfo=_dt.timezone.utc)
    at = [t0 + _dt.timedelta(seconds=s) for s in (0, 3, 5, 9, 10)]
    events: list[ev.Event] = [
        ev.RunStarted(run_id=run_id, seq=0, ts=at[0], suite=name, task="current_temp", params={"city": "北京"},
                      mode="text", state=WORLD),
        ev.StepTaken(run_id=run_id, seq=1, ts=at[1], action="open_app", args={"app": "weather"}),
        ev.ScreenRead(run_id=run_id, seq=2, ts=at[2], text="北京 20° 多云", app="weather"),
        ev.AnswerGiven(run_id=run_id, seq=3, ts=at[3], text=answer),
        ev.RunFinished(run_id=run_id, seq=4, ts=at[4], outcome="succeeded"),
    ]
    return b"".join(ev.encode(e) + b"\n" for e in events)


def new_suite(name: str, parent: str | Path = ".") -> list[Path]:
    """Write the skeleton of suite ``name`` into ``parent/name``; the files written."""
    if not NAME_RE.match(name):
        raise TrajError(f"suite name {name!r}: use lower-case letters, digits and _, starting with a letter")
    folder = Path(parent) / name
    if folder.exists():
        raise TrajError(f"{folder} already exists; choose another name or --dir")
    cls = "".join(p.capitalize() for p in name.split("_")) + "Suite"
    files = {
        folder / "__init__.py": SUITE_PY.format(name=name, cls=cls).encode(),
        folder / f"test_{name}.py": TEST_PY.format(name=name).encode(),
        folder / "cases" / "pass" / "current_temp.jsonl": _case(f"{name}-case-pass", name, "北京现在二十度，多云"),
        folder / "cases" / "fail" / "current_temp.jsonl": _case(f"{name}-case-fail", name, "北京现在25度"),
    }
    for path, data in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return list(files)
