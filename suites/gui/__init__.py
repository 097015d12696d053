"""The bundled GUI-agent suite: a simulated weather app and clock app, judged in grounded mode
(the AnswerSheet) or text mode, with side-effect checks. README.md documents the world state.

Runs name the app as their suite (``weather``, ``clock``) and the task class as their task
(``CheckCurrentTemp``); this one Suite judges both.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from judges.base import Suite, Verdict
from replay.batch import Reads
from replay.state import RunState

from . import grounded, tasks_clock, tasks_weather
from .task import Task

FOLDER = Path(__file__).parent
TASK_MODULES = (tasks_weather, tasks_clock)


def task_classes() -> dict[str, type[Task]]:
    """Every concrete task class, by id (its class name), weather first."""
    out: dict[str, type[Task]] = {}
    for module in TASK_MODULES:
        for obj in vars(module).values():
            if (
                isinstance(obj, type)
                and issubclass(obj, Task)
                and obj.__module__ == module.__name__
                and obj.templates
            ):
                out[obj.__name__] = obj
    return out


def defaults(folder: Path = FOLDER) -> dict[str, Any]:
    """The default world state (a fresh copy each call)."""
    return json.loads((folder / "defaults.json").read_text(encoding="utf-8"))


class GuiSuite(Suite):
    name = "gui"
    # The judge reads the sheet, the answer, the route, the world state and the step count:
    # re-judging skips building screen reads and step details.
    reads = Reads(screens=0, steps=False)
    names = ("weather", "clock")

    def __init__(self, folder: Path = FOLDER):
        self.folder = folder
        self.tasks = task_classes()

    def task_ids(self) -> list[str]:
        return list(self.tasks)

    def get_task(self, task_id: str, params: dict[str, Any] | None = None) -> Task:
        cls = self.tasks.get(task_id)
        if cls is None:
            raise KeyError(f"gui: no task {task_id!r}")
        return cls(**(params or {}))

    def judge(self, task: Task, state: RunState) -> Verdict:
        return grounded.judge(task, state)

    def task_data(self, task: Task) -> Any:
        return task.definition()

    def task_split(self, task_id: str) -> str | None:
        cls = self.tasks.get(task_id)
        return cls.split if cls is not None else None


def load(path: str | Path | None = None) -> GuiSuite:
    return GuiSuite(Path(path) if path is not None else FOLDER)

