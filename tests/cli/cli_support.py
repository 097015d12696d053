"""What the CLI tests share: the command in this process and in a subprocess, stores of small
runs, and OTLP/JSON traces written by the OpenTelemetry SDK's own encoding."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


from helpers import example_run, jsonl, line, traj, traj_proc  # noqa: F401 - traj_proc: the CLI tests take it from here


def finished(run_id: str, suite: str, task: str, answer: str = "x", **start: Any) -> list[str]:
    """A finished run of three events."""
    return [line(run_id, 0, "run_started", suite=suite, task=task, **start),
            line(run_id, 1, "answer_given", text=answer),
            line(run_id, 2, "run_finished", outcome="succeeded")]


def ingest_lines(store: str | Path, lines: list[str]) -> None:
    r = traj("ingest", "-", "--store", store, input=jsonl(lines))
    assert r.exit_code == 0, r.output


def example_store(path: Path) -> str:
    """A store of the bundled example suite: r1 passes, r2 fails (batch b1), r3 is open."""
    store = str(path)
    ingest_lines(store, example_run("r1") + example_run("r2", "北京现在25度") + example_run("r3", finished=False))
    return store


def otlp_traces(path: Path, service: str, agents: list[tuple[str, str | None]]) -> Path:
    """One trace per ``(agent name, evaluation label)`` written through the OpenTelemetry SDK
    (a real TracerProvider), encoded with the SDK's own OTLP encoder and protobuf's
    MessageToDict, one ``{"resourceSpans": ...}`` document per line: what a collector writes.
    A label adds a ``gen_ai.evaluation.result`` event on the root (an imported verdict)."""
    from google.protobuf.json_format import MessageToDict
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": service}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("cli-tests")
    for agent, label in agents:
        with tracer.start_as_current_span(f"invoke_agent {agent}") as root:
            root.set_attribute("gen_ai.operation.name", "invoke_agent")
            root.set_attribute("gen_ai.agent.name", agent)
            with tracer.start_as_current_span("chat") as chat:
                chat.set_attribute("gen_ai.operation.name", "chat")
                chat.set_attribute("gen_ai.request.model", "m")
                chat.set_attribute("gen_ai.usage.input_tokens", 10)
                chat.set_attribute("gen_ai.usage.output_tokens", 3)
            if label is not None:
                root.add_event("gen_ai.evaluation.result",
                               {"gen_ai.evaluation.name": "correct", "gen_ai.evaluation.score.label": label})
    provider.shutdown()
    spans = exporter.get_finished_spans()
    doc = MessageToDict(encode_spans(spans))
    path.write_text(json.dumps(doc) + "\n", encoding="utf-8")
    return path


def verdicts(store: str) -> dict[str, tuple[str, str]]:
    """run id -> (current outcome, pass kind)."""
    r = traj("query", "SELECT run_id, outcome, pass_kind FROM verdicts", "--format", "json", "--store", store)
    assert r.exit_code == 0, r.output
    return {v["run_id"]: (v["outcome"], v["pass_kind"]) for v in json.loads(r.stdout)}
