"""The seed's trajectory schema, mapped onto runs and events. Pure: no files, no clock.

One trajectory (one JSON object) becomes one run of suite ``selfevo``:

- ``run_started``: task = ``task_id``, goal, batch, agent name = ``profile``, mode ``text``, and
  ``pair`` = {id, round}: round 1 for a first attempt, round 2 for ``is_variant: true`` (the
  second, similar attempt of the same task by the same profile). The pair id is derived from
  batch, task id and profile, so a first attempt and its second find each other even when they
  are imported from different files, and importing a file twice changes nothing.
- every step: a ``step_taken`` with ``action`` = the step's action and ``args`` = the step's
  other keys (a ``create_tool`` step carries ``name`` and ``code``);
- ``final_answer``: an ``answer_given``; then ``run_finished`` (succeeded).

``created_tools`` is not stored separately: it must be what the ``create_tool`` steps say, in
order (a step without ``code`` gets it from ``created_tools``), so the judge recovers it from
the events. A trajectory where the two disagree is refused rather than guessed at.
Top-level keys outside the schema are kept in ``run_started.extra["selfevo"]``.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from trajectory import events as ev
from trajectory.errors import SchemaError

SUITE = "selfevo"
KNOWN_KEYS = ("task_id", "goal", "profile", "is_variant", "steps", "created_tools", "final_answer")
DEFAULT_PROFILE = "default"


@dataclass(frozen=True)
class Trajectory:
    """One attempt in the seed's schema, checked."""

    task_id: str
    profile: str
    is_variant: bool
    steps: tuple[tuple[str, dict[str, Any]], ...]
    goal: str | None = None
    final_answer: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def round(self) -> int:
        return 2 if self.is_variant else 1


def _fail(where: str, message: str) -> SchemaError:
    return SchemaError(f"{where}: {message}")


def parse_trajectory(obj: Any, where: str) -> Trajectory:
    """Check one decoded line against the schema; errors name ``where`` (FILE:LINE) and the key."""
    if not isinstance(obj, dict):
        raise _fail(where, f"expected a JSON object (one trajectory), got {type(obj).__name__}")
    task_id = obj.get("task_id")
    if not isinstance(task_id, str) or not task_id:
        raise _fail(where, f"$.task_id: expected a non-empty string, got {task_id!r}")
    profile = obj.get("profile", DEFAULT_PROFILE)
    if not isinstance(profile, str) or not profile:
        raise _fail(where, f"$.profile: expected a non-empty string, got {profile!r}")
    is_variant = obj.get("is_variant", False)
    if not isinstance(is_variant, bool):
        raise _fail(where, f"$.is_variant: expected true or false, got {is_variant!r}")
    goal = obj.get("goal")
    if goal is not None and not isinstance(goal, str):
        raise _fail(where, f"$.goal: expected a string, got {type(goal).__name__}")
    answer = obj.get("final_answer")
    if answer is not None and not isinstance(answer, str):
        raise _fail(where, f"$.final_answer: expected a string, got {type(answer).__name__}")
    if "steps" not in obj:
        raise _fail(where, "$.steps: missing (a list of steps, possibly empty)")
    raw_steps = obj["steps"]
    if not isinstance(raw_steps, list):
        raise _fail(where, f"$.steps: expected a list, got {type(raw_steps).__name__}")
    steps: list[tuple[str, dict[str, Any]]] = []
    for i, step in enumerate(raw_steps):
        if not isinstance(step, dict):
            raise _fail(where, f"$.steps[{i}]: expected an object, got {type(step).__name__}")
        action = step.get("action")
        if not isinstance(action, str) or not action:
            raise _fail(where, f"$.steps[{i}].action: expected a non-empty string, got {action!r}")
        steps.append((action, {k: v for k, v in step.items() if k != "action"}))
    steps = _reconcile_tools(obj.get("created_tools"), steps, where)
    extra = {k: v for k, v in obj.items() if k not in KNOWN_KEYS}
    return Trajectory(
        task_id=task_id,
        profile=profile,
        is_variant=is_variant,
        steps=tuple(steps),
        goal=goal,
        final_answer=answer,
        extra=extra,
    )


def _reconcile_tools(
    created: Any, steps: list[tuple[str, dict[str, Any]]], where: str
) -> list[tuple[str, dict[str, Any]]]:
    """Make the create_tool steps carry exactly ``created_tools`` (name and code, in order)."""
    if created is None:
        return steps
    if not isinstance(created, list):
        raise _fail(where, f"$.created_tools: expected a list, got {type(created).__name__}")
    tools = []
    for i, tool in enumerate(created):
        if not isinstance(tool, dict) or not isinstance(tool.get("name"), str) or not isinstance(tool.get("code"), str):
            raise _fail(where, f"$.created_tools[{i}]: expected an object with string name and code")
        tools.append(tool)
    creating = [i for i, (action, _) in enumerate(steps) if action == "create_tool"]
    if len(creating) != len(tools):
        raise _fail(
            where,
            f"$.created_tools: {len(tools)} tools listed but {len(creating)} create_tool steps; "
            "each created tool needs its create_tool step (name and code), in the same order",
        )
    out = list(steps)
    for n, (i, tool) in enumerate(zip(creating, tools)):
        args = dict(out[i][1])
        if args.get("name") != tool["name"]:
            raise _fail(
                where,
                f"$.steps[{i}].name: create_tool step names {args.get('name')!r} but "
                f"created_tools[{n}] is {tool['name']!r}",
            )
        if "code" not in args or args["code"] is None:
            args["code"] = tool["code"]  # the step left the code to created_tools
        elif args["code"] != tool["code"]:
            raise _fail(
                where, f"$.steps[{i}].code: differs from the code of created_tools[{n}] ({tool['name']!r})"
            )
        out[i] = ("create_tool", args)
    return out


def created_tools(steps: Any) -> list[dict[str, Any]]:
    """``created_tools`` recovered from steps (pairs of action and args)."""
    return [{"name": a.get("name"), "code": a.get("code")} for action, a in steps if action == "create_tool"]


# -- identities -----------------------------------------------------------------------------------

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def _slug(text: str, limit: int = 32) -> str:
    return _UNSAFE.sub("_", text).strip("_")[:limit] or "x"


def pair_id(batch: str, task_id: str, profile: str) -> str:
    """Deterministic: readable parts, plus a hash of the exact strings so that two inputs that
    slug alike (``a b`` and ``a_b``) still differ."""
    digest = hashlib.sha256(json.dumps([batch, task_id, profile], ensure_ascii=False).encode()).hexdigest()[:10]
    return f"se-{_slug(batch)}-{_slug(task_id, 24)}-{_slug(profile, 24)}-{digest}"


def run_id(batch: str, task_id: str, profile: str, round_: int) -> str:
    return f"{pair_id(batch, task_id, profile)}-r{round_}"


# -- events ---------------------------------------------------------------------------------------


def run_started_fields(traj: Trajectory, batch: str, model: str | None = None) -> dict[str, Any]:
    """Keyword arguments for ``run_started`` (and for the Recorder, which takes the same)."""
    return {
        "run_id": run_id(batch, traj.task_id, traj.profile, traj.round),
        "suite": SUITE,
        "task": traj.task_id,
        "goal": traj.goal,
        "batch": batch,
        "agent": {"name": traj.profile, **({"model": model} if model else {})},
        "mode": "text",
        "pair": {"id": pair_id(batch, traj.task_id, traj.profile), "round": traj.round},
        "extra": {"selfevo": traj.extra} if traj.extra else None,
    }


def to_events(traj: Trajectory, batch: str, start: _dt.datetime, model: str | None = None) -> list[ev.Event]:
    """The run of one trajectory. The schema has no times: event k is at ``start`` + k ms."""
    fields = run_started_fields(traj, batch, model)
    rid = fields["run_id"]
    bodies: list[tuple[type[ev.Event], dict[str, Any]]] = [
        (
            ev.RunStarted,
            {
                **{k: v for k, v in fields.items() if k not in ("run_id", "agent", "pair")},
                "agent": ev.Agent(**fields["agent"]),
                "pair": ev.Pair(**fields["pair"]),
            },
        )
    ]
    bodies += [(ev.StepTaken, {"action": action, "args": args or None}) for action, args in traj.steps]
    if traj.final_answer is not None:
        bodies.append((ev.AnswerGiven, {"text": traj.final_answer}))
    bodies.append((ev.RunFinished, {"outcome": "succeeded"}))
    return [
        kind(run_id=rid, seq=seq, ts=start + _dt.timedelta(milliseconds=seq), **body)
        for seq, (kind, body) in enumerate(bodies)
    ]


def trajectory_from_steps(
    task_id: str, profile: str, is_variant: bool, steps: list[Mapping[str, Any]], goal: str, answer: str
) -> dict[str, Any]:
    """A trajectory object in the seed's schema (the sample agent builds these)."""
    return {
        "task_id": task_id,
        "goal": goal,
        "profile": profile,
        "is_variant": is_variant,
        "steps": [dict(s) for s in steps],
        "created_tools": [
            {"name": s["name"], "code": s["code"]} for s in steps if s.get("action") == "create_tool"
        ],
        "final_answer": answer,
    }
