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

``created_tools`` is what the harness reads for L3 (it judges the first listed tool), on its own,
whatever the steps say. A ``create_tool`` step without ``code`` gets it from the tool of the
same name at the same place in ``created_tools``. When the list then says what the steps say
(the usual case), it is not stored separately: the judge recovers it from the steps. When it
says something else (a tool listed without its ``create_tool`` step, a step whose tool is not
listed, other code, no list at all), the trajectory is imported all the same, because the
harness scores it: the list as written goes into ``run_finished.metrics["created_tools"]``, the
judge scores L3 from it exactly as the harness does, and the verdict's details carry a warning
naming the inconsistency (``layers.tool_warnings``). Nothing is refused for it.

Imports made before this reading took a missing or null ``created_tools`` to be what the steps
say and stored no metrics. Such a trajectory with ``create_tool`` steps is now stored with
``metrics["created_tools"]``, so importing it again into a store that holds the old import is
a conflict (see :func:`imported_otherwise_before`; the import explains it).

Other keys the harness does not need are as lenient: a missing, null or empty ``profile`` is
the default profile; a ``goal`` that is not text and a falsy ``final_answer`` that is not text
(the harness reads both as nothing) are kept in ``extra`` only. A ``final_answer`` that is
truthy but not text is refused: the harness cannot score it (its criteria need text).
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


# created_tools says what the create_tool steps say: nothing to store.
SAME = object()


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
    #: ``created_tools`` as written, when it differs from what the steps say (else SAME).
    declared_tools: Any = SAME
    #: The line has a ``created_tools`` that is not null.
    tools_listed: bool = True

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
    profile = obj.get("profile")
    if profile is None or profile == "":
        profile = DEFAULT_PROFILE  # the harness only echoes the profile
    elif not isinstance(profile, str):
        profile = json.dumps(profile, ensure_ascii=False, sort_keys=True)
    is_variant = obj.get("is_variant", False)
    if not isinstance(is_variant, bool):
        raise _fail(where, f"$.is_variant: expected true or false, got {is_variant!r}")
    goal = obj.get("goal")
    if not isinstance(goal, str):
        goal = None  # the harness reads the task's goal, never the trajectory's
    answer = obj.get("final_answer")
    if not isinstance(answer, str):
        if answer:
            raise _fail(where, f"$.final_answer: expected a string, got {type(answer).__name__} "
                               "(the harness cannot score it)")
        answer = None  # the harness reads a missing or falsy answer as ""
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
    # The harness reads obj.get("created_tools", []): a missing key is an empty list.
    steps, declared = _reconcile_tools(obj.get("created_tools", []), steps)
    extra = {k: v for k, v in obj.items() if k not in KNOWN_KEYS}
    for key, value in (("profile", obj.get("profile")), ("goal", obj.get("goal")), ("final_answer", obj.get("final_answer"))):
        if key in obj and value is not None and not isinstance(value, str):
            extra[key] = value  # kept as written; the run carries the reading above
    return Trajectory(
        task_id=task_id,
        profile=profile,
        is_variant=is_variant,
        steps=tuple(steps),
        goal=goal,
        final_answer=answer,
        extra=extra,
        declared_tools=declared,
        tools_listed=obj.get("created_tools") is not None,
    )


def imported_otherwise_before(traj: Trajectory) -> bool:
    """Would an import made before ``created_tools`` was read as the harness reads it have
    stored this trajectory differently? Those imports took a missing or null list to be what the
    ``create_tool`` steps say and stored no ``run_finished.metrics``; the harness reads it as an
    empty list, so a trajectory with ``create_tool`` steps and no list now carries
    ``metrics["created_tools"]``, and importing it again into a store that holds the old import
    is refused as a conflict (stored events are never rewritten)."""
    return not traj.tools_listed and traj.declared_tools is not SAME


def _reconcile_tools(
    created: Any, steps: list[tuple[str, dict[str, Any]]]
) -> tuple[list[tuple[str, dict[str, Any]]], Any]:
    """The steps (a create_tool step without code takes it from the same tool in
    ``created_tools``) and ``created_tools`` as written when it says something else than the
    steps (SAME when it does not)."""
    out = list(steps)
    creating = [i for i, (action, _) in enumerate(out) if action == "create_tool"]
    if isinstance(created, list):
        for i, tool in zip(creating, created):
            args = dict(out[i][1])
            if (
                isinstance(tool, dict)
                and tool.get("name") == args.get("name")
                and isinstance(tool.get("code"), str)
                and args.get("code") is None
            ):
                args["code"] = tool["code"]  # the step left the code to created_tools
                out[i] = ("create_tool", args)
    if tool_pairs(created) == tool_pairs(created_tools(out)):
        return out, SAME
    return out, created


def tool_pairs(tools: Any) -> list[tuple[Any, Any]] | None:
    """(name, code) of each listed tool, the part of ``created_tools`` the harness reads; None
    for something that is not a list of objects (a missing or null list is an empty one)."""
    if tools is None:
        return []
    if not isinstance(tools, list) or not all(isinstance(t, dict) for t in tools):
        return None
    return [(t.get("name"), t.get("code")) for t in tools]


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
    finish: dict[str, Any] = {"outcome": "succeeded"}
    if traj.declared_tools is not SAME:
        # What the harness reads for L3 when it differs from the steps (see the module doc).
        finish["metrics"] = {"created_tools": traj.declared_tools}
    bodies.append((ev.RunFinished, finish))
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
