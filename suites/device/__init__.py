"""The real-device suite: a folder of task JSON files, judged on replayed runs.

``load()`` gives the bundled sample task set (``tasks/`` next to this file, suite name
``device``); ``load(path)`` a team's own folder (``path`` holds the category folders; a copy of
this package is read from its ``tasks/``). The suite judges any run it is given, whatever the
run's ``suite`` name says: the resolver decides which runs reach it (a folder registered with
``traj suite add NAME PATH`` is that NAME's suite).

Invalid task files are left out and listed, with every other task-set problem, in
``problems`` (``traj suite add`` warns with them; ``traj suite check`` prints them).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from judges.base import Suite, Verdict
from replay.batch import Reads
from replay.state import RunState

from . import capabilities, judge, model
from .kinds import KINDS, CheckKind
from .model import Task, TaskFile

BUNDLED = Path(__file__).parent / "tasks"


def tasks_root(path: str | Path | None) -> Path:
    """The folder holding the category folders: a package copy keeps them in tasks/."""
    if path is None:
        return BUNDLED
    path = Path(path)
    if (path / "__init__.py").exists() and (path / "tasks").is_dir():
        return path / "tasks"
    return path


class DeviceSuite(Suite):
    # Checks read screen texts (all of them for screen_has), never step details.
    reads = Reads(screens=-1, steps=False)

    def __init__(self, root: Path, name: str = "device", kinds: tuple[type[CheckKind], ...] = KINDS):
        self.root = root
        self.name = name
        self.names = (name,)
        # The check kinds its task files are read against (a suite of its own kinds: tests).
        self.kinds = kinds
        loaded = model.load_folder(root, kinds)
        self.tasks: dict[str, TaskFile] = loaded.tasks
        self.extension = loaded.extension
        self.table = capabilities.merged(loaded.extension)
        self.problems: list[str] = model.check_loaded(loaded)

    def task_ids(self) -> list[str]:
        return sorted(self.tasks)

    def get_task(self, task_id: str, params: dict[str, Any] | None = None) -> TaskFile:
        if task_id not in self.tasks:
            raise KeyError(f"{self.name}: no task {task_id!r}")
        return self.tasks[task_id]

    def task_data(self, task: TaskFile) -> Any:
        # The task's own JSON: editing its file changes the judge version. A capabilities.json
        # changes what screen_has accepts, so it joins the data when there is one.
        if self.extension:
            return {"task": task.raw, "capabilities": self.extension}
        return task.raw

    def task_split(self, task_id: str) -> str | None:
        tf = self.tasks.get(task_id)
        return None if tf is None else tf.task.partition

    def judge(self, task: TaskFile, state: RunState) -> Verdict:
        return judge.judge(task.task, state, self.table)

    def task(self, task_id: str) -> Task:
        return self.get_task(task_id).task


def load(path: str | Path | None = None, kinds: tuple[type[CheckKind], ...] = KINDS) -> DeviceSuite:
    root = tasks_root(path)
    # The bundled set and copies of this package (the demo's broken copy) are "device"; a team's
    # folder is named after itself until the resolver maps a registered name to it.
    bundled = path is None or (Path(path) / "__init__.py").exists()
    suite = DeviceSuite(root, "device" if bundled else Path(path).name or "device", kinds)
    if path is not None:
        suite.__dict__["_folder"] = str(path)  # a worker process loads it from there again
    return suite


def check(path: str | Path, kinds: tuple[type[CheckKind], ...] = KINDS) -> list[str]:
    """The task-set check of a folder: one line per failure, naming the file."""
    return model.check_folder(tasks_root(path), kinds)

