"""The run folder of the MobileGym phone benchmark, mapped to traj events.

A run folder holds ``meta.json`` (start_time, agent, model_name, eval_mode, ...),
``results.jsonl`` (one episode per line: id ``suite.TaskClass``, task_name, suite, trial_id,
params, max_steps, execution {steps, stop_reason, agent_message, agent_answer, runtime_s, error},
judge {success, clean, progress, passed, issues, warnings} or null, is_success) and
``trajectory/<id with . / and space as _>[_t<trial>]/trajectory.json`` (the steps: step, route
{app, path}, action_type, action_data, thought, screenshot, ...).

Such folders record no world state and no AnswerSheet: the runs replay to their steps, screens
(screenshots as ``image`` references, never bytes) and final answer, and the benchmark's own
verdicts are kept as recorded verdicts (:func:`recorded_verdict`). Everything here is pure:
the caller reads the files and writes the store.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import re
from dataclasses import dataclass
from typing import Any

from judges.base import Check, Verdict
from trajectory.errors import TrajError

SOURCE = "mobilegym"
_RUN_ID_BAD = re.compile(r"[^A-Za-z0-9._:-]+")
_USAGE_KEYS = ("input_tokens", "output_tokens", "cached_tokens")
_STEP_KEYS = {"step", "route", "action_type", "action_data", "thought", "screenshot", "usage", "observation"}

# How an episode stopped -> how the run ended (run_finished.outcome).
STOP_OUTCOMES = {
    "complete": "succeeded", "completed": "succeeded", "finish": "succeeded", "finished": "succeeded",
    "done": "succeeded", "answer": "succeeded", "answered": "succeeded",
    "max_steps": "timeout", "max_steps_reached": "timeout", "step_limit": "timeout", "timeout": "timeout",
    "error": "error", "exception": "error", "env_error": "error",
    "fail": "failed", "failed": "failed", "infeasible": "failed", "give_up": "failed", "impossible": "failed",
    "takeover": "takeover", "call_user": "takeover",
    "cancelled": "cancelled", "interrupted": "cancelled",
}


class FormatError(TrajError, ValueError):
    """The run folder does not have the shape described above; the message names the place."""


def trajectory_dir_names(task_id: str, trial: Any) -> list[str]:
    """Candidate folder names of an episode's steps, the trial-suffixed one first."""
    base = re.sub(r"[./ ]", "_", task_id)
    return ([f"{base}_t{trial}"] if trial is not None else []) + [base]


def run_id(batch: str, task_id: str, trial: Any) -> str:
    """A stable run id (importing the same folder twice adds nothing)."""
    raw = f"mg:{batch}:{task_id}:t{trial if trial is not None else 0}"
    text = _RUN_ID_BAD.sub("_", raw)
    if len(text) > 128:
        text = text[:111] + "-" + hashlib.blake2b(raw.encode(), digest_size=8).hexdigest()
    return text


def parse_time(value: Any, where: str) -> _dt.datetime:
    """An RFC 3339 string (a naive one is read as UTC) or epoch seconds/milliseconds."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        seconds = value / 1000 if value > 1e11 else value
        return _dt.datetime.fromtimestamp(seconds, _dt.timezone.utc)
    if isinstance(value, str):
        try:
            at = _dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            pass
        else:
            return at if at.tzinfo else at.replace(tzinfo=_dt.timezone.utc)
    raise FormatError(f"{where}: not a time: {value!r}")


@dataclass(frozen=True)
class Episode:
    """One line of results.jsonl, checked."""

    line: int
    task_id: str  # "weather.CheckCurrentTemp"
    suite: str
    task: str
    trial: Any
    data: dict[str, Any]

    @property
    def execution(self) -> dict[str, Any]:
        return self.data.get("execution") or {}


def parse_episode(obj: Any, source: str, line: int) -> Episode:
    where = f"{source}:{line}"
    if not isinstance(obj, dict):
        raise FormatError(f"{where}: an episode is a JSON object")
    task_id = obj.get("id")
    if not isinstance(task_id, str) or not task_id:
        raise FormatError(f"{where}: $.id: a task id 'suite.TaskClass' is required")
    suite = obj.get("suite")
    head, _, tail = task_id.partition(".")
    if not isinstance(suite, str) or not suite:
        suite = head if tail else None
    if not suite:
        raise FormatError(f"{where}: $.suite: missing, and the id {task_id!r} names none")
    task = task_id[len(suite) + 1:] if task_id.startswith(suite + ".") else task_id
    for key in ("execution", "judge"):
        if obj.get(key) is not None and not isinstance(obj[key], dict):
            raise FormatError(f"{where}: $.{key}: expected an object")
    if obj.get("params") is not None and not isinstance(obj["params"], dict):
        raise FormatError(f"{where}: $.params: expected an object")
    return Episode(line=line, task_id=task_id, suite=suite, task=task, trial=obj.get("trial_id"), data=obj)


def _usage(value: Any) -> dict[str, int] | None:
    if not isinstance(value, dict):
        return None
    out = {k: int(value[k]) for k in _USAGE_KEYS if isinstance(value.get(k), (int, float)) and value[k] >= 0}
    return out or None


def _route(value: Any) -> dict[str, str] | None:
    if not isinstance(value, dict):
        return None
    out = {k: str(value[k]) for k in ("app", "path") if value.get(k) is not None}
    return out or None


def to_events(
    meta: dict[str, Any],
    episode: Episode,
    steps: list[dict[str, Any]],
    *,
    batch: str,
    start: _dt.datetime,
    image_dir: str | None,
) -> list[dict[str, Any]]:
    """The events of one episode, as JSON-ready dicts in seq order.

    Each recorded step becomes the screen the agent saw (route, screenshot reference) and then
    the action it took. Times: the episode starts at `start` and its steps are spread evenly
    over its recorded runtime (the folder keeps no per-step clock).
    """
    rid = run_id(batch, episode.task_id, episode.trial)
    ex = episode.execution
    runtime = ex.get("runtime_s")
    runtime_s = float(runtime) if isinstance(runtime, (int, float)) and runtime >= 0 else 0.0
    per_step = runtime_s / (len(steps) + 1) if steps else runtime_s
    out: list[dict[str, Any]] = []

    def add(kind: str, offset_s: float, **fields: Any) -> None:
        ts = start + _dt.timedelta(seconds=offset_s)
        out.append({"run_id": rid, "seq": len(out), "ts": ts.isoformat(), "kind": kind,
                    **{k: v for k, v in fields.items() if v is not None}})

    agent = {k: str(v) for k, v in (("name", meta.get("agent")), ("model", meta.get("model_name"))) if v}
    mode = meta.get("eval_mode") if meta.get("eval_mode") in ("grounded", "text") else None
    extra = {"source": SOURCE, "episode": episode.task_id, "trial_id": episode.trial,
             "max_steps": episode.data.get("max_steps"), "line": episode.line}
    add(
        "run_started", 0.0, suite=episode.suite, task=episode.task, params=episode.data.get("params"),
        goal=episode.data.get("task_name"), batch=batch, agent=agent or None, mode=mode,
        device=meta.get("device"), extra={k: v for k, v in extra.items() if v is not None},
    )
    for i, step in enumerate(steps, start=1):
        route = _route(step.get("route"))
        shot = step.get("screenshot")
        image = f"{image_dir}/{shot}" if isinstance(shot, str) and shot and image_dir else (shot or None)
        text = step.get("observation") if isinstance(step.get("observation"), str) else ""
        add("screen_read", per_step * i - per_step / 2, text=text, app=route.get("app") if route else None,
            route=route, image=image)
        rest = {k: v for k, v in step.items() if k not in _STEP_KEYS}
        action = str(step.get("action_type") or "unknown").strip().lower() or "unknown"
        args = step.get("action_data") if isinstance(step.get("action_data"), dict) else (
            None if step.get("action_data") is None else {"value": step.get("action_data")})
        add("step_taken", per_step * i, action=action, args=args,
            thought=step.get("thought") if isinstance(step.get("thought"), str) else None,
            usage=_usage(step.get("usage")), extra={"step": step.get("step"), **rest} if rest or "step" in step else None)
    answer = ex.get("agent_answer")
    if isinstance(answer, str) and answer.strip():
        add("answer_given", runtime_s, text=answer)
    stop = str(ex.get("stop_reason") or "").strip().lower()
    metrics = {k: ex.get(k) for k in ("steps", "runtime_s", "stop_reason") if ex.get(k) is not None}
    if ex.get("agent_message"):
        metrics["agent_message"] = ex["agent_message"]
    error = ex.get("error")
    add("run_finished", runtime_s, outcome=STOP_OUTCOMES.get(stop, "error" if error else "failed"),
        error=str(error) if error else None, metrics=metrics or None)
    return out


def recorded_verdict(episode: Episode) -> Verdict | None:
    """The benchmark's own verdict on an episode, or None when it recorded none.

    ``passed`` (success and clean) decides; without a judge block, ``is_success`` does. Issues
    and warnings become failed checks so that `traj diff` shows them next to a re-judge.
    """
    judge = episode.data.get("judge")
    is_success = episode.data.get("is_success")
    if not isinstance(judge, dict):
        if not isinstance(is_success, bool):
            return None
        return Verdict(
            outcome="pass" if is_success else "fail", score=1.0 if is_success else 0.0,
            checks=(Check(name="is_success", passed=is_success, expected=True, actual=is_success),),
            reason=f"recorded by {SOURCE}: is_success={str(is_success).lower()} (no judge details)",
            details={"source": SOURCE},
        )
    passed = judge.get("passed")
    if not isinstance(passed, bool):
        passed = bool(judge.get("success")) and judge.get("clean", True) is not False
    checks = []
    for key in ("success", "clean"):
        if isinstance(judge.get(key), bool):
            checks.append(Check(name=key, passed=judge[key], expected=True, actual=judge[key]))
    for kind in ("issues", "warnings"):
        for i, text in enumerate(judge.get(kind) or [], start=1):
            checks.append(Check(name=f"{kind[:-1]} {i}", passed=False, actual=text, reason=str(text)))
    # Scored like any verdict (the share of its checks that passed); the benchmark's own
    # progress figure stays in the details.
    score = 1.0 if passed else (sum(c.passed for c in checks) / len(checks) if checks else 0.0)
    problems = [str(t) for t in (judge.get("issues") or []) + (judge.get("warnings") or [])]
    reason = "; ".join(problems[:3]) if problems else ("passed" if passed else "failed")
    return Verdict(
        outcome="pass" if passed else "fail", score=score, checks=tuple(checks),
        reason=f"recorded by {SOURCE}: {reason}",
        details={"source": SOURCE, **{k: judge.get(k) for k in ("success", "clean", "progress") if k in judge}},
    )
