"""OTLP/JSON written by the OpenTelemetry Python SDK itself, as the README tells users to.

The exporter is the README's: each export is ``encode_spans`` (the SDK's OTLP protobuf
encoding) turned into JSON by protobuf's ``MessageToDict``, one line per export. Spans are
made by a real ``TracerProvider``; ``SimpleSpanProcessor`` exports each span as it ends, so a
trace's root (which ends last) is the last line, as a collector's rotated files have it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from google.protobuf.json_format import MessageToDict
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult


class OTLPJsonFile(SpanExporter):
    """Appends each export as one OTLP/JSON line to ``path`` (which a test may switch, as a
    collector rotates its file)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)

    def export(self, spans: Any) -> SpanExportResult:
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(json.dumps(MessageToDict(encode_spans(spans))) + "\n")
        return SpanExportResult.SUCCESS


def provider(exporter: SpanExporter, service: str = "weather-service") -> TracerProvider:
    p = TracerProvider(resource=Resource.create({"service.name": service}))
    p.add_span_processor(SimpleSpanProcessor(exporter))
    return p


def _messages(role: str, text: str) -> str:
    return json.dumps([{"role": role, "parts": [{"type": "text", "content": text}]}])


def weather_agent(tracer: Any, city: str = "Beijing", *, answer: str = "20°C and cloudy", before_root_ends: Any = None,
                  score: float | None = 1.0, tool_args: dict[str, Any] | None = None) -> str:
    """One run of a weather agent: chat (asks for the tool), execute_tool, chat (answers),
    inside an ``invoke_agent`` root; ``before_root_ends()`` runs after the children ended (and
    were exported) and before the root ends. Returns the trace id (32 hex digits)."""
    question = f"What's the weather in {city}?"
    with tracer.start_as_current_span("invoke_agent weather-bot", attributes={
            "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "weather-bot",
            "gen_ai.input.messages": _messages("user", question)}) as root:
        with tracer.start_as_current_span("chat gpt-4o", attributes={
                "gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai", "gen_ai.request.model": "gpt-4o",
                "gen_ai.usage.input_tokens": 120, "gen_ai.usage.output_tokens": 15,
                "gen_ai.input.messages": _messages("user", question)}):
            pass
        with tracer.start_as_current_span("execute_tool get_weather", attributes={
                "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather",
                "gen_ai.tool.call.arguments": json.dumps(tool_args if tool_args is not None else {"city": city}),
                "gen_ai.tool.call.result": answer}):
            pass
        with tracer.start_as_current_span("chat gpt-4o", attributes={
                "gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai", "gen_ai.request.model": "gpt-4o",
                "gen_ai.usage.input_tokens": 300, "gen_ai.usage.output_tokens": 20,
                "gen_ai.output.messages": _messages("assistant", answer)}):
            pass
        if score is not None:
            root.add_event("gen_ai.evaluation.result", {"gen_ai.evaluation.name": "correctness",
                                                        "gen_ai.evaluation.score.value": score})
        root.set_attribute("gen_ai.output.messages", _messages("assistant", answer))
        if before_root_ends is not None:
            before_root_ends()
        return format(root.get_span_context().trace_id, "032x")
