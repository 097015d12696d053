"""Builders shared by the real-device suite tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from replay.state import Confirmation, Question, RunState, Screen, Takeover
from suites.device import capabilities
from suites.device.judge import judge
from suites.device.model import Task, parse_task

TABLE = capabilities.merged()


def task(**fields: Any) -> Task:
    base: dict[str, Any] = {"id": "t", "goal": "看看", "category": "read", "expect": "succeeded", "partition": "tune"}
    base.update(fields)
    return parse_task(json.dumps(base, ensure_ascii=False).encode(), "t.json")[0]


def state(
    answer: str | None = None,
    screens: list[tuple[str, str | None]] | None = None,
    outcome: str | None = "succeeded",
    **fields: Any,
) -> RunState:
    shots = tuple(Screen(seq=i + 1, text=t, app=a) for i, (t, a) in enumerate(screens or []))
    fields.setdefault("batch", "b1")
    return RunState(run_id="r1", task="t", answer=answer, screens=shots, outcome=outcome, **fields)


def verdict(t: Task, s: RunState):
    return judge(t, s, TABLE)


def write_task(root: Path, folder: str, data: dict[str, Any]) -> Path:
    path = root / folder / f"{data['id']}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


__all__ = ["Confirmation", "Question", "Takeover", "TABLE", "task", "state", "verdict", "write_task"]
