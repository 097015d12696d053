"""Shared helpers for the self-evolution suite's tests: trajectories, states, stores."""

from __future__ import annotations

import datetime as _dt
import json
from pathlib import Path
from typing import Any

from replay import replay
from replay.state import Judgement, RunState
from suites.selfevo import load
from suites.selfevo.agent import trajectories
from suites.selfevo.trajectories import parse_trajectory, to_events

START = _dt.datetime(2026, 1, 1, tzinfo=_dt.timezone.utc)
SUITE = load()
TASKS = SUITE.tasks


def traj(task_id: str = "task-01", steps: list[dict[str, Any]] | None = None, *, answer: str | None = None,
         profile: str = "p", variant: bool = False, **more: Any) -> dict[str, Any]:
    """A trajectory object in the seed's schema."""
    steps = steps or []
    return {
        "task_id": task_id,
        "goal": TASKS.get(task_id, {}).get("goal", "g"),
        "profile": profile,
        "is_variant": variant,
        "steps": steps,
        "created_tools": [
            {"name": s["name"], "code": s["code"]} for s in steps if s["action"] == "create_tool" and "code" in s
        ],
        "final_answer": TASKS[task_id]["mock_answer"] if answer is None and task_id in TASKS else (answer or ""),
        **more,
    }


def state_of(obj: dict[str, Any], batch: str = "b", judgements: tuple[Judgement, ...] = ()) -> RunState:
    """The replayed state of one trajectory, as the importer would store it."""
    state = replay(to_events(parse_trajectory(obj, "test"), batch, START))
    if judgements:
        from msgspec.structs import replace

        state = replace(state, judgements=state.judgements + judgements)
    return state


def judge(first: dict[str, Any], second: dict[str, Any] | None = None, judgements: tuple[Judgement, ...] = ()):
    """The verdict of a first attempt, with its second bound as the judging engine does."""
    state = state_of(first, judgements=judgements)
    task = SUITE.get_task(state.task)
    if second is not None:
        task = SUITE.bind_partner(task, state_of(second))
    return SUITE.judge(task, state)


def good_steps(task_id: str = "task-01", code: str = "def f(x):\n    return x\n") -> list[dict[str, Any]]:
    t = TASKS[task_id]
    return [
        {"action": "search", "query": " ".join(t["discovery_keywords"][:2])},
        {"action": "read_web", "url": "https://example.org/"},
        {"action": "select_library", "library": t["reference_solution"]["libraries"][0]},
        {"action": "create_tool", "name": t["tool_name"], "code": code},
        {"action": "register_tool", "name": t["tool_name"]},
        {"action": "call_tool", "name": t["tool_name"], "args": {"x": 1}, "result": "ok"},
        {"action": "final_answer", "text": t["mock_answer"]},
    ]


def reuse_steps(task_id: str = "task-01") -> list[dict[str, Any]]:
    t = TASKS[task_id]
    return [
        {"action": "retrieve_tool", "name": t["tool_name"], "source": "registry"},
        {"action": "call_tool", "name": t["tool_name"], "args": {}, "result": "ok"},
        {"action": "final_answer", "text": t["mock_answer"]},
    ]


def write_samples(path: Path) -> Path:
    """The reference agent's trajectories as a JSON Lines file."""
    lines = [json.dumps(t, ensure_ascii=False) for t in trajectories(SUITE.data)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
