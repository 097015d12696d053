"""Inspect AI eval logs as traj runs: one sample and epoch becomes one run.

Pure mapping from the objects inspect-ai's own reader returns (``EvalLog`` header, ``EvalSample``)
to event dicts in the interchange format (``shared/spec/events.md``), the sample's recorded
scores as a verdict, and the grader calls of model-graded scorers as recorded judgements. No
file is read here (``write.py`` reads logs through ``inspect_ai.log``); inspect-ai types are read
through their attributes and ``model_dump``, so this module does not import inspect-ai itself.

The mapping, event by event (see also the README, "Bringing your runs"):

| Inspect | traj |
|---|---|
| sample + epoch | one run: suite = task name, task = sample id, batch = eval run id, agent = model |
| ``sample_init`` | ``run_started.state`` = ``{"state": TaskState JSON, "store": {...}}`` |
| ``model`` | ``step_taken`` action ``model``: usage, output text as ``thought``, tool calls in ``args`` |
| ``tool`` | ``step_taken`` action = the tool's function, ``args`` = its arguments, result in ``extra`` |
| ``store`` / ``state`` | ``state_changed`` with that event's JSON patch under ``/store`` / ``/state`` |
| images, audio, video | ``screen_read`` with ``image`` = ``sha256:<hex>`` of the bytes (never the bytes) |
| ``span_begin`` / ``span_end`` | structure, not events: each step's ``spans`` names the spans around it |
| any other kind | not a step: kept in the next step's ``extra.inspect.events`` (else run_finished's) |
| scorers' span | not run events: scores → the ``imported`` pass, grader calls → judgements |
| ``output`` | ``answer_given`` (none when the sample has no output) |
| ``error`` | ``run_finished`` outcome ``error`` with its message, else ``succeeded`` |
"""

from __future__ import annotations

import base64
import datetime as _dt
import hashlib
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from judges.base import Verdict
from judges.imported import inspect_checks, verdict_of
from replay.patch import PatchError, apply_patch
from suites.inspect.keys import JUDGE, prompt_digest, prompt_key

SOURCE = "inspect"
SCORERS_SPAN = "scorers"  # inspect_ai.util._span.SCORERS_SPAN_NAME
SCORER_TYPE = "scorer"  # inspect_ai.util._span.SCORER_SPAN_TYPE
# Fields every Inspect event has; kept in ``extra`` instead of in a step's ``args``.
_COMMON = {"event", "uuid", "span_id", "timestamp", "working_start", "metadata", "pending"}
_RUN_ID_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_DATA_URI = re.compile(r"^data:[\w.+-]+/[\w.+-]+(;[\w.+-]+=[^;,]*)*;base64,", re.I)


@dataclass(frozen=True)
class LogInfo:
    """What every run of one log shares, from the log's header."""

    task: str
    eval_id: str
    run_id: str | None
    task_id: str | None
    model: str
    solver: str | None
    created: _dt.datetime
    version: str  # inspect-ai version that wrote the log; names the imported verdicts' judge

    @classmethod
    def of(cls, log: Any) -> LogInfo:
        spec = log.eval
        created = _aware(spec.created) or _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)
        packages = getattr(spec, "packages", None) or {}
        return cls(task=str(spec.task), eval_id=str(spec.eval_id or ""), run_id=spec.run_id or None,
                   task_id=getattr(spec, "task_id", None) or None, model=str(spec.model),
                   solver=getattr(spec, "solver", None), created=created,
                   version=str(packages.get("inspect_ai") or "unknown"))


@dataclass
class Judgement:
    """A grader model's answer recorded by a model-graded scorer in the log."""

    model: str
    key: str
    output: dict[str, Any]
    ts: _dt.datetime
    scorer: str | None
    run_id: str


@dataclass
class MappedSample:
    run_id: str
    sample: str  # the sample id and epoch, for messages
    events: list[dict[str, Any]]
    verdict: Verdict | None
    judgements: list[Judgement] = field(default_factory=list)


# -- small helpers ----------------------------------------------------------------------------


def _aware(value: Any) -> _dt.datetime | None:
    if value is None or value == "":
        return None
    if isinstance(value, str):
        value = _dt.datetime.fromisoformat(value)
    if value.tzinfo is None:  # Inspect writes UTC; a naive time is read as such
        value = value.replace(tzinfo=_dt.timezone.utc)
    return value.astimezone(_dt.timezone.utc)


def _iso(ts: _dt.datetime) -> str:
    return ts.isoformat()


def _safe(text: str, limit: int) -> str:
    return _RUN_ID_UNSAFE.sub("_", text)[:limit].strip("_") or "x"


def run_id_of(info: LogInfo, sample_id: Any, epoch: int, uuid: str | None) -> str:
    """Stable across re-imports and retries: the sample's uuid (kept when a retried eval copies
    finished samples) or, for logs without one, a digest of eval id, sample id and epoch."""
    tail = uuid or hashlib.blake2b(f"{info.eval_id}\0{sample_id!r}\0{epoch}".encode(), digest_size=10).hexdigest()
    return f"inspect:{_safe(info.task, 36)}:{_safe(str(sample_id), 36)}:{epoch}:{_safe(tail, 32)}"


def _dump(obj: Any, **kw: Any) -> Any:
    if obj is None:
        return None
    if hasattr(obj, "model_dump"):
        return obj.model_dump(mode="json", exclude_none=True, **kw)
    if isinstance(obj, (list, tuple)):
        return [_dump(o) for o in obj]
    if isinstance(obj, dict):
        return {k: _dump(v) for k, v in obj.items()}
    if hasattr(obj, "__dataclass_fields__"):  # ToolCall, ToolCallError
        import dataclasses

        return {k: v for k, v in dataclasses.asdict(obj).items() if v is not None}
    return obj


class Media:
    """Replaces base64 data URIs (images, audio, video) by ``sha256:<hex>`` references and
    remembers the ones a run has not shown yet, so each becomes one ``screen_read``."""

    def __init__(self) -> None:
        self.seen: set[str] = set()
        self.new: list[str] = []

    def strip(self, value: Any) -> Any:
        if isinstance(value, str):
            if value.startswith("data:") and _DATA_URI.match(value[:200]):
                return self._ref(value)
            return value
        if isinstance(value, dict):
            return {k: self.strip(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.strip(v) for v in value]
        return value

    def _ref(self, uri: str) -> str:
        payload = uri.split(",", 1)[1]
        try:
            data = base64.b64decode(payload, validate=False)
        except ValueError:
            data = payload.encode()
        ref = "sha256:" + hashlib.sha256(data).hexdigest()
        if ref not in self.seen:
            self.seen.add(ref)
            self.new.append(ref)
        return ref

    def take(self) -> list[str]:
        out, self.new = self.new, []
        return out


def _text_of(value: Any) -> str:
    """The text parts of a message content, tool result or output, joined."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(t for t in (_text_of(v) for v in value) if t)
    if isinstance(value, dict):
        for k in ("text", "completion", "content"):
            if isinstance(value.get(k), (str, list)):
                return _text_of(value[k])
    return ""


def _patch(changes: Iterable[Any], prefix: str) -> list[dict[str, Any]]:
    """Inspect's JsonChange list as RFC 6902 operations under ``prefix`` (``replaced`` is a
    record of the old value, not part of a patch, and is left out)."""
    ops = []
    for c in changes:
        d = c if isinstance(c, Mapping) else c.model_dump(mode="json", by_alias=True)
        op: dict[str, Any] = {"op": d["op"], "path": prefix + d["path"]}
        if d["op"] in ("add", "replace", "test"):
            op["value"] = d.get("value")
        if d["op"] in ("move", "copy"):
            op["from"] = prefix + (d.get("from") or d.get("from_") or "")
        ops.append(op)
    return ops


# -- events -----------------------------------------------------------------------------------


def _flatten(events: Iterable[Any]) -> Iterator[tuple[Any, str | None]]:
    """Events in log order, with the events older logs nest in tool and subtask events after
    their parent (with the parent's uuid)."""
    for e in events:
        yield e, None
        nested = getattr(e, "events", None)
        if nested and getattr(e, "event", None) in ("tool", "subtask"):
            for child, parent in _flatten(nested):
                yield child, parent or getattr(e, "uuid", None)


class _Scoring:
    """Which events belong to scoring (the ``scorers`` span and everything inside it)."""

    def __init__(self) -> None:
        self.parents: dict[str, str | None] = {}
        self.names: dict[str, str] = {}
        self.roots: set[str] = set()
        self.scorer_steps = 0  # legacy logs: open step events of type "scorer"

    def classify(self, e: Any) -> tuple[bool, str | None]:
        """(is this a scoring event, the scorer's name when known)."""
        kind = e.event
        if kind == "span_begin":
            self.parents[e.id] = e.parent_id
            self.names[e.id] = e.name
            if e.name == SCORERS_SPAN and e.type in (None, SCORERS_SPAN):
                self.roots.add(e.id)
            return self._inside(e.id)
        if kind == "step" and e.type == SCORER_TYPE:
            self.scorer_steps += 1 if e.action == "begin" else -1
            return True, e.name
        if self.scorer_steps > 0:
            return True, None
        if kind == "span_end":
            return self._inside(e.id)
        return self._inside(e.span_id)

    def _inside(self, span: str | None) -> tuple[bool, str | None]:
        scorer = None
        seen = 0
        while span is not None and seen < 1000:
            if span in self.roots:
                return True, scorer
            if scorer is None and self.names.get(span) not in (None, SCORERS_SPAN):
                scorer = self.names.get(span)
            span = self.parents.get(span)
            seen += 1
        return False, None


class _Run:
    """Builds one run's events in order."""

    def __init__(self, run_id: str) -> None:
        self.run_id = run_id
        self.events: list[dict[str, Any]] = []
        self.media = Media()
        self.world: dict[str, Any] = {"state": {}, "store": {}}
        self.spans: dict[str, tuple[str | None, str | None, str | None]] = {}  # id -> (name, type, parent)
        self.notes: list[dict[str, Any]] = []  # events that are not steps, for the next step's extra
        self.last: _dt.datetime | None = None

    def add(self, kind: str, ts: _dt.datetime, **fields: Any) -> None:
        if self.last is not None and ts < self.last:
            # Times never run backwards within a run (Inspect stamps a tool event when the call
            # began, after the events of its model call): the event keeps its recorded time
            # in extra.inspect.timestamp and takes the time of the one before it.
            extra = dict(fields.get("extra") or {})
            extra["inspect"] = {**extra.get("inspect", {}), "timestamp": _iso(ts)}
            fields["extra"], ts = extra, self.last
        self.last = ts
        if self.notes and kind in ("step_taken", "run_finished"):
            extra = dict(fields.get("extra") or {})
            extra["inspect"] = {**extra.get("inspect", {}), "events": self.notes}
            fields["extra"], self.notes = extra, []
        event = {"run_id": self.run_id, "seq": len(self.events), "ts": _iso(ts), "kind": kind}
        event.update({k: v for k, v in fields.items() if v is not None})
        self.events.append(event)

    def frames(self, span_id: str | None) -> list[dict[str, Any]] | None:
        """The spans around an event, outermost first (Inspect's solver, tool and agent spans)."""
        out = []
        while span_id is not None and span_id in self.spans and len(out) < 1000:
            name, type_, parent = self.spans[span_id]
            out.append({k: v for k, v in (("id", span_id), ("name", name), ("type", type_)) if v is not None})
            span_id = parent
        return out[::-1] or None

    def screens(self, ts: _dt.datetime, text: str = "") -> None:
        for ref in self.media.take():
            self.add("screen_read", ts, text=text, image=ref)

    def state_change(self, ts: _dt.datetime, ops: list[dict[str, Any]], kind: str, extra: dict[str, Any]) -> None:
        """A patch the replayed world state takes; one that does not apply to it (a log whose
        state events do not chain) is kept as a step instead of breaking every later replay."""
        try:
            self.world = apply_patch(self.world, ops)
        except PatchError as exc:  # kept, as a note: it is not an action of the agent
            self.notes.append({"event": kind, "timestamp": _iso(ts), "changes": ops, "not_applied": str(exc),
                               **{k: v for k, v in extra.get("inspect", {}).items() if k != "event"}})
            return
        self.add("state_changed", ts, patch=ops, extra=extra)


def _usage(output: Any) -> dict[str, int] | None:
    u = getattr(output, "usage", None)
    if u is None:
        return None
    usage = {"input_tokens": u.input_tokens or 0, "output_tokens": u.output_tokens or 0,
             "cached_tokens": u.input_tokens_cache_read or 0}
    return {k: v for k, v in usage.items() if v} or None


def _ms(e: Any) -> float | None:
    wt = getattr(e, "working_time", None)
    if isinstance(wt, (int, float)) and wt >= 0:
        return round(wt * 1000.0, 3)
    done = _aware(getattr(e, "completed", None))
    if done is not None and e.timestamp is not None:
        ms = (done - _aware(e.timestamp)).total_seconds() * 1000.0  # type: ignore[operator]
        return round(ms, 3) if ms >= 0 else None
    return None


def _ids(e: Any, parent: str | None, **more: Any) -> dict[str, Any]:
    d = {"event": e.event, "uuid": e.uuid, "span_id": e.span_id, "parent_event": parent,
         "metadata": _dump(e.metadata)}
    d.update(more)
    return {"inspect": {k: v for k, v in d.items() if v not in (None, {}, [])}}


def _model_step(run: _Run, e: Any, parent: str | None) -> None:
    out = e.output
    args: dict[str, Any] = {"model": e.model}
    if e.role:
        args["role"] = e.role
    msg = out.choices[0].message if out is not None and out.choices else None
    if msg is not None and msg.tool_calls:
        args["tool_calls"] = [{"id": c.id, "function": c.function, "arguments": run.media.strip(c.arguments)}
                              for c in msg.tool_calls]
    more: dict[str, Any] = {}
    if out is not None and out.choices:
        more["stop_reason"] = out.choices[0].stop_reason
    if out is not None and out.usage is not None:
        u = out.usage
        more.update(reasoning_tokens=u.reasoning_tokens, cache_write_tokens=u.input_tokens_cache_write,
                    total_cost=u.total_cost)
    more.update(error=e.error, cache=e.cache, retries=e.retries)
    ms = _ms(e)
    run.add("step_taken", _aware(e.timestamp), action="model", args=args,  # type: ignore[arg-type]
            thought=(out.completion or None) if out is not None else None, usage=_usage(out),
            timing={"model_ms": ms} if ms else None, spans=run.frames(e.span_id), extra=_ids(e, parent, **more))
    if msg is not None:
        run.media.strip(_dump(msg.content))
    run.screens(_aware(e.timestamp), _text_of(out.completion if out is not None else ""))  # type: ignore[arg-type]


def _tool_step(run: _Run, e: Any, parent: str | None) -> None:
    result = run.media.strip(_dump(e.result))
    ms = _ms(e)
    more = {"id": e.id, "result": result, "error": _dump(e.error), "truncated": _dump(e.truncated),
            "agent": getattr(e, "agent", None), "failed": getattr(e, "failed", None)}
    ts = _aware(e.timestamp)
    arguments = run.media.strip(_dump(e.arguments))
    run.add("step_taken", ts, action=e.function or "tool",  # type: ignore[arg-type]
            args=arguments if arguments is not None else {},  # no arguments stay {}
            timing={"act_ms": ms} if ms else None, spans=run.frames(e.span_id), extra=_ids(e, parent, **more))
    run.screens(ts, _text_of(result))  # type: ignore[arg-type]


def _note(run: _Run, e: Any, parent: str | None) -> None:
    """An event that is neither a model nor a tool call (info, logger, sandbox, approval, input,
    error, legacy step markers, ...): kept in the next step's ``extra.inspect.events`` (else
    run_finished's), not a step of its own."""
    fields = _dump(e, exclude=_COMMON | {"events"}) if hasattr(e, "model_dump") else {}
    ts = _aware(e.timestamp)
    note = {"event": e.event, "timestamp": _iso(ts) if ts else None, **(run.media.strip(fields) or {})}
    note.update({k: v for k, v in _ids(e, parent)["inspect"].items() if k not in ("event",)})
    run.notes.append({k: v for k, v in note.items() if v is not None})
    run.screens(ts or run.last)  # type: ignore[arg-type]


def _initial_state(run: _Run, e: Any) -> dict[str, Any]:
    state = run.media.strip(e.state) if isinstance(e.state, dict) else {}
    store = state.get("store") if isinstance(state.get("store"), dict) else {}
    return {"state": state, "store": store}


def _final_state(sample: Any, media: Media) -> dict[str, Any]:
    """What scorers were given: the sample's final messages, output, metadata and store."""
    return {
        "messages": media.strip(_dump(list(sample.messages or []))),
        "output": media.strip(_dump(sample.output)) if sample.output is not None else {},
        "metadata": media.strip(_dump(dict(sample.metadata or {}))),
        "store": media.strip(_dump(dict(sample.store or {}))),
    }


def _reconcile(run: _Run, sample: Any, ts: _dt.datetime) -> None:
    """One last patch so that the replayed ``state`` and ``store`` are what the scorers saw,
    also for logs whose state events are missing or do not add up."""
    final = _final_state(sample, run.media)
    ops = []
    state = run.world.get("state")
    if not isinstance(state, dict):
        ops.append({"op": "add", "path": "/state", "value": final})
    else:
        for key, value in final.items():
            if state.get(key) != value:
                ops.append({"op": "add", "path": f"/state/{key}", "value": value})
    if run.world.get("store") != final["store"]:
        ops.append({"op": "add", "path": "/store", "value": final["store"]})
    if ops:
        run.state_change(ts, ops, "state", {"inspect": {"event": "final_state"}})
    run.screens(ts)


def _params(info: LogInfo, sample: Any, media: Media) -> dict[str, Any]:
    params: dict[str, Any] = {
        "eval_id": info.eval_id,
        "sample_id": sample.id,
        "epoch": sample.epoch,
        "input": media.strip(_dump(sample.input)),
        "target": _dump(sample.target),
    }
    if info.task_id:
        params["task_id"] = info.task_id
    if sample.choices:
        params["choices"] = list(sample.choices)
    if sample.metadata:
        params["metadata"] = media.strip(_dump(dict(sample.metadata)))
    if getattr(sample, "uuid", None):
        params["uuid"] = sample.uuid
    return params


def _goal(sample: Any) -> str | None:
    if isinstance(sample.input, str):
        return sample.input
    users = [m for m in sample.input or [] if getattr(m, "role", None) == "user"]
    return _text_of(_dump(users[-1].content)) if users else None


def _checks_verdict(sample: Any, error: str | None, details: dict[str, Any] | None) -> Verdict | None:
    scores = getattr(sample, "scores", None) or {}
    if not scores and error is None:
        return None
    target = _dump(sample.target)
    scored = []
    for name, s in scores.items():
        scored.extend(inspect_checks(name, _dump(s.value), answer=s.answer, explanation=s.explanation,
                                     expected=target))
    return verdict_of(scored, error=error, details=details)


def _metrics(sample: Any) -> dict[str, Any] | None:
    m: dict[str, Any] = {}
    for k in ("total_time", "working_time", "turn_count", "token_limit_usage"):
        v = getattr(sample, k, None)
        if v is not None:
            m[k] = v
    if sample.model_usage:
        m["model_usage"] = _dump(dict(sample.model_usage))
    if getattr(sample, "limit", None) is not None:
        m["limit"] = _dump(sample.limit)
    if getattr(sample, "error_retries", None):
        m["error_retries"] = len(sample.error_retries)
    return m or None


def map_events(run: _Run, events: Iterable[Any], judgements: list[Judgement], init: Any = None) -> dict[str, int]:
    """Add a sample's (or a retried attempt's) events to ``run``; scoring events go to
    ``judgements`` (grader calls) or are left to the pass (scores). Returns how many events of
    each kind scoring recorded (kept in the imported verdict's details)."""
    scoring = _Scoring()
    asked: dict[str, int] = {}
    scoring_kinds: dict[str, int] = {}
    for e, parent in _flatten(events):
        kind = e.event
        inside, scorer = scoring.classify(e)
        if inside:
            scoring_kinds[kind] = scoring_kinds.get(kind, 0) + 1
            if kind == "model":
                messages = [_dump(m) for m in e.input]
                digest = prompt_digest(messages)
                n = asked.get(digest, 0)
                asked[digest] = n + 1
                out = _dump(e.output) or {}
                judgements.append(Judgement(model=e.model, key=prompt_key(messages, n), ts=_aware(e.timestamp),  # type: ignore[arg-type]
                                            output={"raw": e.output.completion, "output": out},
                                            scorer=scorer, run_id=run.run_id))
            continue
        ts = _aware(e.timestamp)
        if e is init:
            continue  # taken into run_started.state
        if kind == "span_begin":  # structure: named on the steps inside it
            run.spans[e.id] = (getattr(e, "name", None), getattr(e, "type", None), getattr(e, "parent_id", None))
            continue
        if kind == "span_end":
            continue
        if kind == "model":
            _model_step(run, e, parent)
        elif kind == "tool":
            _tool_step(run, e, parent)
        elif kind in ("state", "store"):
            ops = run.media.strip(_patch(e.changes, "/" + kind))
            run.state_change(ts, ops, kind, _ids(e, parent))  # type: ignore[arg-type]
            run.screens(ts)  # type: ignore[arg-type]
        else:
            _note(run, e, parent)
    return scoring_kinds


def map_sample(info: LogInfo, sample: Any) -> MappedSample:
    """One sample and epoch as a run, its scores as a verdict, its grader calls as judgements."""
    run_id = run_id_of(info, sample.id, sample.epoch, getattr(sample, "uuid", None))
    run = _Run(run_id)
    events = list(sample.events or [])
    init = next((e for e in events if e.event == "sample_init"), None)
    first_ts = _aware(events[0].timestamp) if events else None
    start = _aware(getattr(sample, "started_at", None)) or first_ts or info.created
    if init is not None:
        run.world = _initial_state(run, init)
    params = _params(info, sample, run.media)
    agent = {"name": info.solver or info.model, "model": info.model}
    run.add("run_started", start, suite=info.task, task=str(sample.id), params=params, goal=_goal(sample),
            batch=info.run_id, agent=agent, mode="text", state=run.world,
            extra={"inspect": {k: v for k, v in (("eval_id", info.eval_id), ("epoch", sample.epoch)) if v}})
    run.screens(start, _goal(sample) or "")
    judgements: list[Judgement] = []
    scoring = map_events(run, events, judgements, init)
    # The answer follows the agent's last event; scoring (which a re-score repeats at another
    # time) never moves a run's own times.
    at = max(_aware(e["ts"]) for e in run.events)  # type: ignore[type-var]
    end = _aware(getattr(sample, "completed_at", None))
    _reconcile(run, sample, at)
    output = sample.output
    if output is not None and (output.choices or output.completion):
        run.add("answer_given", at, text=output.completion or "")
    error = sample.error.message if getattr(sample, "error", None) is not None else None
    finish = max(at, end or at)
    run.add("run_finished", finish, outcome="error" if error is not None else "succeeded", error=error,
            metrics=_metrics(sample))
    verdict = _checks_verdict(sample, error, {"scoring_events": scoring} if scoring else None)
    return MappedSample(run_id, f"{sample.id} epoch {sample.epoch}", run.events, verdict, judgements)


def map_retries(info: LogInfo, sample: Any) -> list[MappedSample]:
    """Earlier attempts of a sample that errored and was retried: each is a run of its own
    (``…:retry<n>``) that ended in ``error``, so a retry never hides what went wrong before."""
    out = []
    base = run_id_of(info, sample.id, sample.epoch, getattr(sample, "uuid", None))
    for n, retry in enumerate(getattr(sample, "error_retries", None) or [], start=1):
        run = _Run(f"{base[:118]}:retry{n}")
        events = list(retry.events or [])
        start = _aware(events[0].timestamp) if events else (_aware(getattr(sample, "started_at", None)) or info.created)
        init = next((e for e in events if e.event == "sample_init"), None)
        if init is not None:
            run.world = _initial_state(run, init)
        run.add("run_started", start, suite=info.task, task=str(sample.id), params=_params(info, sample, run.media),
                goal=_goal(sample), batch=info.run_id, agent={"name": info.solver or info.model, "model": info.model},
                mode="text", state=run.world, extra={"inspect": {"retry_of": base, "attempt": n}})
        map_events(run, events, [], init)
        run.add("run_finished", _aware(run.events[-1]["ts"]) or start, outcome="error", error=retry.message)
        out.append(MappedSample(run.run_id, f"{sample.id} epoch {sample.epoch} attempt {n}", run.events,
                                Verdict.error(retry.message.splitlines()[0] if retry.message else "error")))
    return out


def judgement_version(info: LogInfo) -> str:
    """The judge version of a log's recorded verdicts: the inspect-ai that scored them."""
    return f"inspect_ai-{info.version}"


__all__ = ["JUDGE", "SOURCE", "Judgement", "LogInfo", "MappedSample", "map_retries", "map_sample", "run_id_of"]
