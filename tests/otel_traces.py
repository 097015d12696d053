"""OTLP/JSON traces of a small weather agent, in the attribute generations traj reads.

One trace: ``invoke_agent weather-bot`` (root) → ``chat`` (asks for a tool) → ``execute_tool
get_weather`` → a nested ``invoke_agent formatter`` with its own ``chat`` → ``chat`` (answers).
Evaluation results are events on the root (and one on the last chat span). The same agent is
written with the current GenAI names, the older ones, and OpenInference's.
"""

from __future__ import annotations

import json
from typing import Any

T0 = 1_775_354_400_000_000_000  # 2026-04-05T02:00:00Z in nanoseconds


def attr(key: str, value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        v: dict[str, Any] = {"boolValue": value}
    elif isinstance(value, int):
        v = {"intValue": str(value)}
    elif isinstance(value, float):
        v = {"doubleValue": value}
    elif isinstance(value, list):
        v = {"arrayValue": {"values": [attr("_", x)["value"] for x in value]}}
    else:
        v = {"stringValue": str(value)}
    return {"key": key, "value": v}


def span(trace: str, sid: str, parent: str | None, name: str, start_ms: int, end_ms: int,
         attrs: dict[str, Any], events: list[dict[str, Any]] | None = None, error: str | None = None) -> dict[str, Any]:
    d: dict[str, Any] = {
        "traceId": trace, "spanId": sid, "name": name, "kind": 1,
        "startTimeUnixNano": str(T0 + start_ms * 1_000_000), "endTimeUnixNano": str(T0 + end_ms * 1_000_000),
        "attributes": [attr(k, v) for k, v in attrs.items()],
    }
    if parent:
        d["parentSpanId"] = parent
    if events:
        d["events"] = events
    if error:
        d["status"] = {"code": 2, "message": error}
    return d


def evaluation(name: str, at_ms: int, *, score: float | None = None, label: str | None = None,
               explanation: str | None = None) -> dict[str, Any]:
    attrs: dict[str, Any] = {"gen_ai.evaluation.name": name}
    if score is not None:
        attrs["gen_ai.evaluation.score.value"] = float(score)
    if label is not None:
        attrs["gen_ai.evaluation.score.label"] = label
    if explanation is not None:
        attrs["gen_ai.evaluation.explanation"] = explanation
    return {"timeUnixNano": str(T0 + at_ms * 1_000_000), "name": "gen_ai.evaluation.result",
            "attributes": [attr(k, v) for k, v in attrs.items()]}


def _messages(role: str, text: str) -> str:
    return json.dumps([{"role": role, "parts": [{"type": "text", "content": text}]}])


def agent_trace(trace: str, generation: str = "current", *, answer: str = "Beijing is 20°C and cloudy.",
                evals: list[dict[str, Any]] | None = None, error: str | None = None) -> list[dict[str, Any]]:
    """The spans of one run of the weather agent, root last."""
    s = [f"{trace[:8]}{i:08x}" for i in range(1, 8)]
    question = "What's the weather in Beijing?"

    def chat(sid: str, parent: str, start: int, end: int, *, out: str | None, calls: list[Any] | None,
             tokens: tuple[int, int, int]) -> dict[str, Any]:
        i, o, c = tokens
        if generation == "current":
            parts: list[dict[str, Any]] = [{"type": "text", "content": out}] if out else []
            parts += [{"type": "tool_call", "id": "call_1", "name": n, "arguments": a} for n, a in calls or []]
            attrs = {"gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai",
                     "gen_ai.request.model": "gpt-4o", "gen_ai.response.model": "gpt-4o-2024-08-06",
                     "gen_ai.usage.input_tokens": i, "gen_ai.usage.output_tokens": o,
                     "gen_ai.usage.cache_read.input_tokens": c,
                     "gen_ai.input.messages": _messages("user", question),
                     "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": parts}])}
        elif generation == "older":
            attrs = {"gen_ai.operation.name": "chat", "gen_ai.system": "openai", "gen_ai.request.model": "gpt-4o",
                     "gen_ai.response.model": "gpt-4o-2024-08-06", "gen_ai.usage.prompt_tokens": i,
                     "gen_ai.usage.completion_tokens": o, "gen_ai.usage.cache_read_input_tokens": c,
                     "gen_ai.prompt.0.role": "user", "gen_ai.prompt.0.content": question}
            if out:
                attrs["gen_ai.completion.0.role"] = "assistant"
                attrs["gen_ai.completion.0.content"] = out
        else:  # openinference
            attrs = {"openinference.span.kind": "LLM", "llm.provider": "openai", "llm.model_name": "gpt-4o-2024-08-06",
                     "llm.token_count.prompt": i, "llm.token_count.completion": o,
                     "llm.token_count.prompt_details.cache_read": c,
                     "llm.input_messages.0.message.role": "user", "llm.input_messages.0.message.content": question}
            if out:
                attrs["llm.output_messages.0.message.role"] = "assistant"
                attrs["llm.output_messages.0.message.content"] = out
        return span(trace, sid, parent, "chat gpt-4o", start, end, attrs)

    def agent(sid: str, parent: str | None, name: str, start: int, end: int, **extra: Any) -> dict[str, Any]:
        if generation == "openinference":
            attrs: dict[str, Any] = {"openinference.span.kind": "AGENT", "agent.name": name}
        else:
            attrs = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": name,
                     ("gen_ai.provider.name" if generation == "current" else "gen_ai.system"): "openai",
                     "gen_ai.request.model": "gpt-4o"}
            # Totals over the agent's model calls: never counted twice.
            attrs["gen_ai.usage.input_tokens" if generation == "current" else "gen_ai.usage.prompt_tokens"] = 999
        attrs.update(extra)
        return span(trace, sid, parent, f"invoke_agent {name}", start, end, attrs)

    if generation == "openinference":
        tool_attrs = {"openinference.span.kind": "TOOL", "tool.name": "get_weather",
                      "input.value": json.dumps({"city": "Beijing"}), "output.value": "20°C, cloudy"}
    else:
        tool_attrs = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather",
                      "gen_ai.tool.call.id": "call_1", "gen_ai.tool.call.arguments": json.dumps({"city": "Beijing"}),
                      "gen_ai.tool.call.result": "20°C, cloudy"}
    last_chat = chat(s[5], s[0], 700, 900, out=answer, calls=None, tokens=(300, 20, 0))
    root_events = [e for e in evals or [] if "_on" not in e]
    on_chat = [{k: v for k, v in e.items() if k != "_on"} for e in evals or [] if "_on" in e]
    if on_chat:
        last_chat["events"] = on_chat
    root = agent(s[0], None, "weather-bot", 0, 1000)
    if generation == "current":
        root["attributes"].append(attr("gen_ai.output.messages", _messages("assistant", answer)))
        root["attributes"].append(attr("gen_ai.input.messages", _messages("user", question)))
    elif generation == "openinference":
        root["attributes"].append(attr("output.value", answer))
        root["attributes"].append(attr("input.value", question))
    if root_events:
        root["events"] = root_events
    if error:
        root["status"] = {"code": 2, "message": error}
    return [
        chat(s[1], s[0], 100, 300, out=None, calls=[("get_weather", {"city": "Beijing"})], tokens=(120, 15, 100)),
        span(trace, s[2], s[0], "execute_tool get_weather", 300, 400, tool_attrs),
        agent(s[3], s[0], "formatter", 400, 700),
        chat(s[4], s[3], 450, 650, out="20°C, cloudy", calls=None, tokens=(80, 10, 0)),
        last_chat,
        root,
    ]


def document(spans: list[dict[str, Any]], service: str = "weather-service") -> dict[str, Any]:
    return {"resourceSpans": [{"resource": {"attributes": [attr("service.name", service)]},
                               "scopeSpans": [{"scope": {"name": "agents"}, "spans": spans}]}]}


def jsonl(spans: list[dict[str, Any]], service: str = "weather-service", per_line: int = 1) -> str:
    """One document per ``per_line`` spans, in the order given (root last, as exporters do)."""
    lines = [json.dumps(document(spans[i:i + per_line], service)) for i in range(0, len(spans), per_line)]
    return "\n".join(lines) + "\n"
