"""Helpers for the GUI suite's tests: build a run's events and replay them into a RunState.

Judge tests replay real events (the same decoder as ingest validates them), so a RunState is
never faked: whatever the judge reads is what the fold made of the events.
"""

from __future__ import annotations

import json
from typing import Any

import suites.gui as gui
from replay import replay
from replay.state import RunState
from trajectory import events as ev

DEFAULTS = gui.defaults()
OS_STATE = DEFAULTS["os"]
SUITE = gui.load()
T0 = 1775354400000  # 2026-04-05 10:00 Asia/Shanghai (a Sunday), like the world's os.time


def events_for(
    task: gui.Task,
    *,
    mode: str = "grounded",
    patch: list[dict[str, Any]] | None = None,
    sheet: list[Any] | None = None,
    submitted: bool = True,
    answer: str | None = None,
    steps: int = 2,
    initial: dict[str, Any] | None = None,
    run_id: str = "gui-test-1",
) -> list[ev.Event]:
    """The events of one run: start, steps, world-state patch, AnswerSheet or answer, finish."""
    lines: list[dict[str, Any]] = []

    def add(kind: str, **fields: Any) -> None:
        lines.append({"run_id": run_id, "seq": len(lines), "ts": T0 + 1000 * len(lines), "kind": kind, **fields})

    add(
        "run_started", suite=task.app, task=task.task_id, params=task.params, mode=mode,
        goal=task.instruction(mode), state=DEFAULTS if initial is None else initial,
        route={"app": "launcher", "path": "/"},
    )
    for i in range(steps):
        add("step_taken", action="tap", args={"x": 10 * i, "y": 20})
    if patch:
        add("state_changed", patch=patch)
    if sheet is not None:
        for i, value in enumerate(sheet):
            add("sheet_changed", op="set", field=i, value=value)
        if submitted:
            add("sheet_changed", op="submit")
    if answer is not None:
        add("answer_given", text=answer)
    add("run_finished", outcome="succeeded")
    return [ev.decode(json.dumps(line, ensure_ascii=False)) for line in lines]


def run_state(task: gui.Task, **kw: Any) -> RunState:
    return replay(events_for(task, **kw))


def judge(task: gui.Task, suite: Any = SUITE, **kw: Any):
    return suite.judge(task, run_state(task, **kw))
