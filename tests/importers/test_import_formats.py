"""Issue 23, item 2: a file in another format is refused in one line naming the format found
and the one expected, never read as empty; and the README's lines that write OTLP/JSON with the
SDK's own encoding work as written."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import traj
from otel_sdk import provider, weather_agent

README = Path(__file__).resolve().parents[2] / "README.md"


def console_output(path: Path, formatter=None) -> Path:
    """What the SDK's ConsoleSpanExporter writes for one agent run (default: pretty-printed
    JSON, one span after another; with ``formatter``, one span per line)."""
    from opentelemetry.sdk.trace.export import ConsoleSpanExporter

    with open(path, "w", encoding="utf-8") as out:
        kw = {"out": out} if formatter is None else {"out": out, "formatter": formatter}
        p = provider(ConsoleSpanExporter(**kw))
        weather_agent(p.get_tracer("agents"))
        p.shutdown()
    return path


def refused(r, path: Path) -> str:
    assert r.exit_code == 1, r.output
    errors = [x for x in r.output.splitlines() if x.startswith("error:")]
    assert len(errors) == 1, r.output
    assert errors[0].startswith(f"error: {path}"), errors[0]
    assert "0 runs, 0 events read" not in r.output
    return errors[0]


@pytest.mark.parametrize("one_per_line", [False, True], ids=["pretty", "one span per line"])
def test_console_exporter_output_is_refused_naming_both_formats(tmp_path, one_per_line) -> None:
    path = console_output(tmp_path / "console.txt", (lambda s: s.to_json(indent=None) + "\n") if one_per_line else None)
    err = refused(traj("import", "otel", path, "--store", tmp_path / "store"), path)
    assert "ConsoleSpanExporter" in err and "not OTLP/JSON traces" in err and "resourceSpans" in err


def test_other_formats_given_to_each_importer_are_named(tmp_path) -> None:
    events = tmp_path / "events.jsonl"
    events.write_text(json.dumps({"run_id": "r", "seq": 0, "ts": 0, "kind": "run_started", "suite": "s",
                                  "task": "t"}) + "\n")
    err = refused(traj("import", "otel", events, "--store", tmp_path / "s1"), events)
    assert "traj event lines" in err and "not OTLP/JSON traces" in err
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert "empty file, expected OTLP/JSON" in refused(traj("import", "otel", empty, "--store", tmp_path / "s2"), empty)
    # an OTLP file given to the Inspect importer
    otlp = tmp_path / "traces.json"
    otlp.write_text(json.dumps({"resourceSpans": []}))
    pytest.importorskip("inspect_ai")
    err = refused(traj("import", "inspect", otlp, "--store", tmp_path / "s3"), otlp)
    assert "OTLP/JSON traces, not an Inspect log" in err
    metrics = tmp_path / "metrics.jsonl"
    metrics.write_text(json.dumps({"resourceMetrics": []}) + "\n")
    assert "OTLP/JSON metrics, not OTLP/JSON traces" in refused(
        traj("import", "otel", metrics, "--store", tmp_path / "s4"), metrics)


def test_spans_whose_root_is_elsewhere_are_not_refused(tmp_path) -> None:
    from otel_sdk import OTLPJsonFile

    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    exporter = OTLPJsonFile(a)

    def rotate() -> None:
        exporter.path = b

    weather_agent(provider(exporter).get_tracer("agents"), before_root_ends=rotate)
    r = traj("import", "otel", a, "--store", tmp_path / "store")
    assert r.exit_code == 0 and "1 trace pending" in r.output


def _readme_python() -> str:
    section = re.search(r"### OpenTelemetry GenAI traces(.*?)\n## ", README.read_text(encoding="utf-8"), re.S)
    assert section
    (code,) = re.findall(r"```python\n(.*?)```", section.group(1), re.S)
    return code


def test_the_readmes_sdk_lines_write_what_the_importer_reads(tmp_path) -> None:
    code = _readme_python()
    assert "encode_spans" in code and "MessageToDict" in code and len(code.strip().splitlines()) <= 25
    agent = code + '''
with tracer.start_as_current_span("invoke_agent demo", attributes={"gen_ai.operation.name": "invoke_agent"}) as root:
    with tracer.start_as_current_span("chat m", attributes={"gen_ai.operation.name": "chat",
                                      "gen_ai.usage.input_tokens": 7, "gen_ai.request.model": "m"}):
        pass
    root.add_event("gen_ai.evaluation.result", {"gen_ai.evaluation.name": "ok", "gen_ai.evaluation.score.value": 1.0})
provider.shutdown()
'''
    r = subprocess.run([sys.executable, "-c", agent], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                       env={**os.environ})
    assert r.returncode == 0, r.stderr
    r = traj("import", "otel", tmp_path / "traces.jsonl", "--store", tmp_path / "store", "--json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)  # "created a new store" is said on stderr
    assert out["sources"][0]["new_runs"] == 1 and out["verdicts"] == {"pass": 1}


def test_an_otlp_file_given_to_the_selfevo_importer_is_named(tmp_path) -> None:
    otlp = tmp_path / "traces.jsonl"
    otlp.write_text(json.dumps({"resourceSpans": []}) + "\n")
    err = refused(traj("import", "selfevo", otlp, "--store", tmp_path / "store"), otlp)
    assert "OTLP/JSON traces, not self-evolution trajectories" in err
