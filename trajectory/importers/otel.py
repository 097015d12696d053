"""OpenTelemetry GenAI traces (OTLP/JSON) as traj runs: one trace becomes one run.

Pure: maps spans (parsed by ``otel_wire.py``) to event dicts and recorded verdicts. A trace's
spans may be spread over several lines and files, and its root arrive last. A trace is mapped
once its root span (the one without a parent) is there; until then it is pending, and its spans
are kept in the store for a later import (``pending.py``).

Attributes are read in both generations of the GenAI semantic conventions and in OpenInference's
names (first name found wins, in the order of each row):

| what | current | older | OpenInference |
|---|---|---|---|
| operation | ``gen_ai.operation.name`` | ``llm.request.type``, ``traceloop.span.kind`` | ``openinference.span.kind`` |
| input tokens | ``gen_ai.usage.input_tokens`` | ``gen_ai.usage.prompt_tokens`` | ``llm.token_count.prompt`` |
| output tokens | ``gen_ai.usage.output_tokens`` | ``gen_ai.usage.completion_tokens`` | ``llm.token_count.completion`` |
| cached tokens | ``gen_ai.usage.cache_read.input_tokens`` | ``gen_ai.usage.cache_read_input_tokens`` | ``llm.token_count.prompt_details.cache_read`` |
| provider | ``gen_ai.provider.name`` | ``gen_ai.system`` | ``llm.provider``, ``llm.system`` |
| model | ``gen_ai.response.model``, ``gen_ai.request.model`` | same | ``llm.model_name`` |
| output text | ``gen_ai.output.messages`` | ``gen_ai.completion.N.content``, ``gen_ai.choice`` event | ``llm.output_messages.N.message.content``, ``output.value`` |
| input text | ``gen_ai.input.messages`` | ``gen_ai.prompt.N.content`` | ``llm.input_messages.N.message.content``, ``input.value`` |
| tool | ``gen_ai.tool.name``, ``gen_ai.tool.call.arguments``/``.result`` | same | ``tool.name``, ``input.value``/``output.value`` |
| agent | ``gen_ai.agent.name`` | same | ``agent.name`` |
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import json
from collections.abc import Iterable, Mapping
from typing import Any

from judges.base import Verdict
from judges.imported import evaluation_check, verdict_of

from trajectory.errors import SchemaError
# The spans as parsed; re-exported names are what the importer's readers and tests use.
from trajectory.importers.otel_wire import (  # noqa: F401
    EXPECTED, Document, Span, SpanEvent, any_value, attributes, parse_document, parse_file,
)

VERSION = "otel-genai"
MODEL_OPS = frozenset({"chat", "text_completion", "generate_content", "completion"})
EVALUATION_EVENT = "gen_ai.evaluation.result"
_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)
_OPENINFERENCE_OPS = {"LLM": "chat", "TOOL": "execute_tool", "AGENT": "invoke_agent", "EMBEDDING": "embeddings",
                      "RETRIEVER": "retrieval", "RERANKER": "rerank", "GUARDRAIL": "guardrail", "EVALUATOR": "evaluate"}
_TRACELOOP_OPS = {"tool": "execute_tool", "agent": "invoke_agent"}

INPUT_TOKENS = ("gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens", "llm.token_count.prompt")
OUTPUT_TOKENS = ("gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens", "llm.token_count.completion")
CACHED_TOKENS = ("gen_ai.usage.cache_read.input_tokens", "gen_ai.usage.cache_read_input_tokens",
                 "llm.token_count.prompt_details.cache_read")
PROVIDER = ("gen_ai.provider.name", "gen_ai.system", "llm.provider", "llm.system")
REQUEST_MODEL = ("gen_ai.request.model", "llm.model_name")
RESPONSE_MODEL = ("gen_ai.response.model", "gen_ai.request.model", "llm.model_name")
TOOL_NAME = ("gen_ai.tool.name", "tool.name")
AGENT_NAME = ("gen_ai.agent.name", "agent.name")


@dataclasses.dataclass
class TraceRun:
    trace_id: str
    run_id: str
    events: list[dict[str, Any]]
    verdict: Verdict | None


@dataclasses.dataclass
class Traces:
    runs: list[TraceRun]
    open_traces: list[str]  # trace ids whose root span has not arrived
    open_spans: dict[str, list[Span]] = dataclasses.field(default_factory=dict)  # their spans, kept and new
    continued: list[str] = dataclasses.field(default_factory=list)  # pending traces these files added to
    spans: dict[str, list[Span]] = dataclasses.field(default_factory=dict)  # every trace's spans, kept and new


# -- attributes -----------------------------------------------------------------------------


def first(attrs: Mapping[str, Any], names: Iterable[str]) -> Any:
    """The value of the first of ``names`` that is set (the generations' names, newest first)."""
    for n in names:
        v = attrs.get(n)
        if v is not None and v != "":
            return v
    return None


def _int(v: Any) -> int:
    if isinstance(v, bool) or v is None:
        return 0
    try:
        n = int(v)
    except (TypeError, ValueError):
        return 0
    return n if 0 <= n < 2**63 else 0


def operation(span: Span) -> str | None:
    """The GenAI operation of a span, from whichever convention named it (None: not GenAI)."""
    a = span.attrs
    op = a.get("gen_ai.operation.name")
    if isinstance(op, str) and op:
        return op
    if isinstance(a.get("llm.request.type"), str):
        return "chat" if a["llm.request.type"] == "chat" else "text_completion"
    kind = a.get("openinference.span.kind")
    if isinstance(kind, str) and kind.upper() in _OPENINFERENCE_OPS:
        return _OPENINFERENCE_OPS[kind.upper()]
    tl = a.get("traceloop.span.kind")
    if isinstance(tl, str) and tl in _TRACELOOP_OPS:
        return _TRACELOOP_OPS[tl]
    if first(a, TOOL_NAME) is not None:
        return "execute_tool"
    return None


def _json(v: Any) -> Any:
    if isinstance(v, str):
        try:
            return json.loads(v)
        except ValueError:
            return v
    return v


def _message_text(m: Any) -> str:
    """Text of one message in any of the shapes the conventions use."""
    if isinstance(m, str):
        return m
    if not isinstance(m, Mapping):
        return ""
    parts = m.get("parts")
    if isinstance(parts, list):
        return "\n".join(str(p.get("content")) for p in parts
                         if isinstance(p, Mapping) and p.get("type") == "text" and p.get("content") is not None)
    for key in ("content", "text"):
        c = m.get(key)
        if isinstance(c, str):
            return c
        if isinstance(c, list):
            return "\n".join(_message_text(x) for x in c)
    if isinstance(m.get("message"), Mapping):
        return _message_text(m["message"])
    return ""


def _indexed(attrs: Mapping[str, Any], prefix: str, suffix: str) -> list[tuple[int, Any]]:
    """``prefix.N.suffix`` attributes (flattened message lists), in N order."""
    out = []
    for k, v in attrs.items():
        if k.startswith(prefix) and k.endswith(suffix):
            middle = k[len(prefix):len(k) - len(suffix)]
            if middle.isdigit():
                out.append((int(middle), v))
    return sorted(out)


def _messages(span: Span, current: str, older: str, openinference: str, fallback: str | None) -> list[tuple[str, str]]:
    """(role, text) of a span's input or output messages, whichever generation wrote them."""
    a = span.attrs
    value = _json(a.get(current))
    if isinstance(value, list):
        return [(str(m.get("role") or "") if isinstance(m, Mapping) else "", _message_text(m)) for m in value]
    for prefix in (older, openinference):
        contents = _indexed(a, prefix + ".", ".content") or _indexed(a, prefix + ".", ".message.content")
        if contents:
            roles = dict(_indexed(a, prefix + ".", ".role") + _indexed(a, prefix + ".", ".message.role"))
            return [(str(roles.get(i) or ""), str(c)) for i, c in contents]
    legacy = _json(a.get(older))  # gen_ai.prompt / gen_ai.completion as one JSON value
    if isinstance(legacy, list):
        return [("", _message_text(m)) for m in legacy]
    if isinstance(legacy, str):
        return [("", legacy)]
    if fallback and a.get(fallback) is not None:
        v = _json(a[fallback])
        if isinstance(v, Mapping) and ("messages" in v or "content" in v):
            msgs = v.get("messages")
            if isinstance(msgs, list):
                return [(str(m.get("role") or "") if isinstance(m, Mapping) else "", _message_text(m)) for m in msgs]
            return [("", _message_text(v))]
        return [("", v if isinstance(v, str) else json.dumps(v, ensure_ascii=False))]
    return []


def output_text(span: Span) -> str | None:
    """The text a span's model or agent answered, in any generation's shape."""
    msgs = _messages(span, "gen_ai.output.messages", "gen_ai.completion", "llm.output_messages", "output.value")
    if not msgs:
        for e in span.events:  # older conventions: the answer as a span event
            if e.name == "gen_ai.choice":
                body = _json(e.attrs.get("message") or e.attrs.get("gen_ai.event.content") or e.attrs.get("body"))
                msgs.append(("assistant", _message_text(body)))
            elif e.name == "gen_ai.content.completion" and e.attrs.get("gen_ai.completion") is not None:
                msgs.append(("assistant", _message_text(_json(e.attrs["gen_ai.completion"])) or str(e.attrs["gen_ai.completion"])))
    texts = [t for _, t in msgs if t]
    return "\n".join(texts) if texts else None


def input_text(span: Span) -> str | None:
    """The last user message a span was given (else its last input text)."""
    msgs = _messages(span, "gen_ai.input.messages", "gen_ai.prompt", "llm.input_messages", "input.value")
    users = [t for r, t in msgs if r == "user" and t] or [t for _, t in msgs if t]
    return users[-1] if users else None


def tool_calls(span: Span) -> list[dict[str, Any]]:
    """Tool calls in a model span's output messages (current conventions only)."""
    value = _json(span.attrs.get("gen_ai.output.messages"))
    out = []
    if isinstance(value, list):
        for m in value:
            for p in (m.get("parts") or []) if isinstance(m, Mapping) else []:
                if isinstance(p, Mapping) and p.get("type") == "tool_call":
                    out.append({k: p[k] for k in ("id", "name", "arguments") if k in p})
    return out


# -- mapping --------------------------------------------------------------------------------


def _iso(ns: int) -> str:
    return (_EPOCH + _dt.timedelta(microseconds=ns // 1000)).isoformat()


def _ms(span: Span) -> float | None:
    ms = (span.end_ns - span.start_ns) / 1e6
    return round(ms, 3) if ms > 0 else None


def _extra(span: Span, op: str | None) -> dict[str, Any]:
    d: dict[str, Any] = {"span_id": span.span_id, "parent_span_id": span.parent_id, "name": span.name,
                         "operation": op, "attributes": span.attrs or None}
    if span.kind is not None:
        d["kind"] = span.kind
    if span.status_code:
        d["status"] = {"code": span.status_code, "message": span.status_message}
    others = [{"name": e.name, "time": _iso(e.time_ns), "attributes": e.attrs or None}
              for e in span.events if e.name != EVALUATION_EVENT]
    if others:
        d["events"] = [{k: v for k, v in e.items() if v is not None} for e in others]
    return {"otel": {k: v for k, v in d.items() if v is not None}}


def _model_name(a: Mapping[str, Any], names: Iterable[str]) -> str | None:
    model, provider = first(a, names), first(a, PROVIDER)
    if model is None:
        return None
    model = str(model)
    return f"{provider}/{model}" if provider and not model.startswith(f"{provider}/") else model


def _step(span: Span) -> dict[str, Any]:
    """The step_taken fields of one model or tool span (kind, seq and ts are added by the caller)."""
    op, a = operation(span), span.attrs
    fields: dict[str, Any] = {"extra": _extra(span, op)}
    if op in MODEL_OPS:
        args: dict[str, Any] = {"model": _model_name(a, RESPONSE_MODEL)}
        calls = tool_calls(span)
        if calls:
            args["tool_calls"] = calls
        usage = {"input_tokens": _int(first(a, INPUT_TOKENS)), "output_tokens": _int(first(a, OUTPUT_TOKENS)),
                 "cached_tokens": _int(first(a, CACHED_TOKENS))}
        fields.update(action="model", args={k: v for k, v in args.items() if v is not None} or None,
                      thought=output_text(span), usage={k: v for k, v in usage.items() if v} or None,
                      timing={"model_ms": _ms(span)} if _ms(span) else None)
    elif op == "execute_tool":
        name = first(a, TOOL_NAME) or span.name.removeprefix("execute_tool ").strip() or "tool"
        raw = first(a, ("gen_ai.tool.call.arguments", "input.value"))
        value = _json(raw)
        args = value if isinstance(value, Mapping) else ({"input": value} if value is not None else None)
        result = first(a, ("gen_ai.tool.call.result", "output.value"))
        if result is not None:
            fields["extra"]["otel"]["result"] = _json(result)
        fields.update(action=str(name), args=dict(args) if args is not None else None,  # {} stays {}
                      timing={"act_ms": _ms(span)} if _ms(span) else None)
    return {k: v for k, v in fields.items() if v is not None}


def _evaluations(spans: Iterable[Span], answer: str | None) -> list[Any]:
    out = []
    for s in spans:
        for e in s.events:
            if e.name != EVALUATION_EVENT:
                continue
            a = e.attrs
            score = a.get("gen_ai.evaluation.score.value")
            out.append(evaluation_check(
                str(a.get("gen_ai.evaluation.name") or "evaluation"),
                score=score if isinstance(score, (int, float)) and not isinstance(score, bool) else None,
                label=a.get("gen_ai.evaluation.score.label") if isinstance(a.get("gen_ai.evaluation.score.label"), str) else None,
                explanation=a.get("gen_ai.evaluation.explanation"), answer=answer))
    return out


def _root(spans: list[Span]) -> Span | None:
    roots = [s for s in spans if s.parent_id is None]
    if not roots:
        return None
    agents = [s for s in roots if operation(s) == "invoke_agent"]
    return min(agents or roots, key=lambda s: (s.start_ns, s.span_id))


def _frames(span: Span, by_id: Mapping[str, Span], root: Span) -> list[dict[str, Any]]:
    """The spans around a step, outermost first, below the run's root span."""
    out: list[dict[str, Any]] = []
    parent = by_id.get(span.parent_id or "")
    while parent is not None and parent is not root and len(out) < 1000:
        ref = {"id": parent.span_id, "name": parent.name, "type": operation(parent)}
        out.append({k: v for k, v in ref.items() if v is not None})
        parent = by_id.get(parent.parent_id or "")
    return out[::-1]


def map_trace(trace_id: str, spans: list[Span], *, suite: str | None = None, task: str | None = None,
              batch: str | None = None, run_id: str | None = None) -> TraceRun | None:
    """One trace as a run; None while its root span has not arrived. ``run_id``: the run's id
    when it is not the trace's first (``otel:<trace>``), a later revision's (see pending.py)."""
    root = _root(spans)
    if root is None:
        return None
    run_id = run_id or f"otel:{trace_id}"
    ra = root.attrs
    root_op = operation(root)
    model_spans = sorted((s for s in spans if operation(s) in MODEL_OPS), key=lambda s: (s.start_ns, s.span_id))
    model = _model_name(ra, REQUEST_MODEL) or next(
        (m for m in (_model_name(s.attrs, REQUEST_MODEL) for s in model_spans) if m), None)
    agent = {k: v for k, v in (("name", first(ra, AGENT_NAME)), ("model", model)) if v}
    params = {k: v for k, v in (("trace_id", trace_id), ("root_span", root.name),
                                ("conversation", first(ra, ("gen_ai.conversation.id", "session.id")))) if v}
    events: list[dict[str, Any]] = []
    last = [root.start_ns]

    def add(kind: str, ns: int, **fields: Any) -> None:
        # Times never run backwards within a run: a span that ends before one that started
        # earlier keeps its own times in extra.otel; the event takes the time before it.
        last[0] = max(last[0], ns)
        events.append({"run_id": run_id, "seq": len(events), "ts": _iso(last[0]), "kind": kind,
                       **{k: v for k, v in fields.items() if v is not None}})

    by_id = {s.span_id: s for s in spans}
    is_step = {s.span_id for s in spans if operation(s) in MODEL_OPS or operation(s) == "execute_tool"}
    if root_op not in MODEL_OPS and root_op != "execute_tool":
        is_step.discard(root.span_id)
    # Spans that are not model or tool calls (sub-agents, workflow steps, other libraries'
    # spans) are structure: each step names the spans around it, and their details stay on
    # run_started (extra.otel.structure), not as steps of their own.
    structure = [_extra(s, operation(s))["otel"] for s in sorted(spans, key=lambda s: (s.start_ns, s.span_id))
                 if s.span_id not in is_step and s is not root]
    resource = root.resource
    add("run_started", root.start_ns, suite=suite or str(resource.get("service.name") or "otel"),
        task=task or str(first(ra, AGENT_NAME) or root.name), params=params, goal=input_text(root), batch=batch,
        agent=agent or None, mode="text",
        extra={"otel": {k: v for k, v in _extra(root, root_op)["otel"].items() if k != "parent_span_id"}
               | ({"resource": resource} if resource else {}) | ({"scope": root.scope} if root.scope else {})
               | ({"structure": structure} if structure else {})})
    # a trace of one model or tool call: that call (the root) is the run's step
    steps = [s for s in spans if s.span_id in is_step]
    last_output = None
    for s in sorted(steps, key=lambda s: (s.start_ns, s.span_id)):
        step = _step(s)
        around = _frames(s, by_id, root)
        if around:
            step["spans"] = around
        add("step_taken", s.start_ns, **step)
        if step.get("action") == "model" and step.get("thought"):
            last_output = step["thought"]
    answer = output_text(root) if root_op not in MODEL_OPS else None
    answer = answer or last_output
    end = max([root.end_ns] + [s.end_ns for s in spans])
    if answer is not None:
        add("answer_given", root.end_ns, text=answer)
    failed = root.status_code == 2
    error = None
    if failed:
        exc = next((e.attrs.get("exception.message") for e in root.events if e.name == "exception"), None)
        error = root.status_message or exc or ra.get("error.type") or "the root span ended with an error status"
    add("run_finished", max(root.end_ns, end), outcome="error" if failed else "succeeded",
        error=str(error) if error else None, metrics={"spans": len(spans)})
    scored = _evaluations(spans, answer)
    verdict = verdict_of(scored) if scored else None
    return TraceRun(trace_id, run_id, events, verdict)


def map_traces(docs: Iterable[Document], *, suite: str | None = None, task: str | None = None,
               batch: str | None = None, kept: Mapping[str, Mapping[str, Span]] | None = None,
               run_ids: Mapping[str, str] | None = None) -> Traces:
    """Every trace in the documents, in order of first appearance; a span exported twice is
    taken once. ``kept``: spans of traces read by earlier imports, added to the traces the
    documents continue; ``run_ids``: trace id -> run id, for traces not written as their first run."""
    by_trace: dict[str, dict[str, Span]] = {}
    for d in docs:
        for s in d.spans:
            by_trace.setdefault(s.trace_id, {}).setdefault(s.span_id, s)
    for tid, spans in (kept or {}).items():
        if tid in by_trace:
            for sid, s in spans.items():
                by_trace[tid].setdefault(sid, s)
    runs, open_ = [], []
    for tid, spans in by_trace.items():
        try:
            run = map_trace(tid, list(spans.values()), suite=suite, task=task, batch=batch,
                            run_id=(run_ids or {}).get(tid))
        except (TypeError, ValueError, KeyError, AttributeError) as exc:  # odd values the parser let through
            where = next(iter(spans.values())).where
            raise SchemaError(f"{where}: trace {tid}: {type(exc).__name__}: {' '.join(str(exc).split())}") from None
        if run is None:
            open_.append(tid)
        else:
            runs.append(run)
    return Traces(runs, open_, {t: list(by_trace[t].values()) for t in open_},
                  sorted(t for t in by_trace if t in (kept or {})), {t: list(v.values()) for t, v in by_trace.items()})
