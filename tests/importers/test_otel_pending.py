"""Issue 23, item 1: a trace whose spans arrive in several files is one complete run, whatever
the order and grouping of the files; a trace without its root is pending until a later import
brings the root. The files are OTLP/JSON written by the OpenTelemetry SDK's own encoding."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import traj
from otel_sdk import OTLPJsonFile, provider, weather_agent

from trajectory.importers import import_otel
from trajectory.store.delta import Store

CITIES = ["Beijing", "Lima", "Oslo"]


def rotated(tmp: Path) -> tuple[Path, Path, list[str]]:
    """Three traces; the exporter's file rotates before each root ends: children in a.jsonl,
    roots in b.jsonl."""
    a, b = tmp / "a.jsonl", tmp / "b.jsonl"
    exporter = OTLPJsonFile(a)
    tracer = provider(exporter).get_tracer("agents")
    ids = []
    for city in CITIES:
        exporter.path = a

        def rotate() -> None:
            exporter.path = b

        ids.append(weather_agent(tracer, city, before_root_ends=rotate))
    return a, b, ids


def events(store: Path, run_id: str) -> list[dict]:
    r = traj("export", "events", "--run", run_id, "--store", store)
    assert r.exit_code == 0, r.output
    return [json.loads(line) for line in r.output.splitlines() if line.strip()]


def steps_and_tokens(store: Path, ids: list[str]) -> list[tuple[int, int]]:
    out = []
    for tid in ids:
        evs = events(store, f"otel:{tid}")
        steps = [e for e in evs if e["kind"] == "step_taken"]
        out.append((len(steps), sum((e.get("usage") or {}).get("input_tokens", 0) for e in steps)))
    return out


def test_children_first_then_roots_gives_complete_runs_and_pending_is_listed(tmp_path) -> None:
    a, b, ids = rotated(tmp_path)
    store = tmp_path / "store"
    r = traj("import", "otel", a, "--store", store)
    assert r.exit_code == 0, r.output
    assert "3 traces pending (no root span yet)" in r.output and "traj import otel --pending" in r.output
    # pending: stored and listed, not runs
    r = traj("runs", "--store", store, "--json")
    assert r.exit_code == 0 and "otel:" not in r.output
    r = traj("import", "otel", "--pending", "--store", store, "--json")
    assert r.exit_code == 0, r.output
    pending = json.loads(r.output)["pending"]
    assert sorted(p["trace_id"] for p in pending) == sorted(ids)
    assert all(p["spans"] == 3 and p["files"] == [str(a)] for p in pending)
    r = traj("import", "otel", "--pending", "--store", store)
    assert "3 pending traces: import the file that holds their root spans" in r.output

    r = traj("import", "otel", b, "--store", store)
    assert r.exit_code == 0, r.output
    assert "3 new runs" in r.output and "3 pending traces completed" in r.output
    assert steps_and_tokens(store, ids) == [(3, 420)] * 3
    for tid in ids:  # written in span-time order, sealed
        evs = events(store, f"otel:{tid}")
        assert [e.get("action") for e in evs if e["kind"] == "step_taken"] == ["model", "get_weather", "model"]
        assert [e["ts"] for e in evs] == sorted(e["ts"] for e in evs)
        assert evs[-1]["kind"] == "run_finished"
    r = traj("import", "otel", "--pending", "--store", store)
    assert r.output.startswith("no pending traces")

    # both files again: nothing lost, nothing added
    r = traj("import", "otel", a, b, "--store", store, "--json")
    out = json.loads(r.output)
    assert r.exit_code == 0 and out["sources"][0]["new_events"] == 0 and out["sources"][0]["known_runs"] == 3
    r = traj("import", "otel", a, "--store", store, "--json")
    src = json.loads(r.output)["sources"][0]
    assert (src["open_traces"], src["late_spans"], src["known_runs"]) == (0, 0, 3)
    assert steps_and_tokens(store, ids) == [(3, 420)] * 3


def test_roots_first_then_children_writes_the_run_again_complete(tmp_path) -> None:
    a, b, ids = rotated(tmp_path)
    store = tmp_path / "store"
    assert traj("import", "otel", b, "--store", store).exit_code == 0
    r = traj("import", "otel", a, "--store", store, "--json")
    src = json.loads(r.output)["sources"][0]
    assert (src["late_spans"], src["open_traces"], len(src["revised"])) == (0, 0, 3)
    assert steps_and_tokens(store, [f"{t}.r2" for t in ids]) == [(3, 420)] * 3
    r = traj("import", "otel", a, "--store", store)
    assert "written again" not in r.output and "3 already imported" in r.output


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.data())
def test_any_grouping_with_roots_no_earlier_than_their_spans_gives_the_same_runs(tmp_path_factory, data) -> None:
    tmp = tmp_path_factory.mktemp("grouping")
    whole = tmp / "whole.jsonl"
    tracer = provider(OTLPJsonFile(whole)).get_tracer("agents")
    ids = [weather_agent(tracer, c) for c in CITIES[:2]]
    lines = whole.read_text().splitlines()  # one span per line, each trace's root after its children
    n_files = data.draw(st.integers(1, 4))
    where: list[int] = []
    for i, line in enumerate(lines):
        is_root = "parentSpanId" not in json.loads(line)["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
        lo = max(where[i - 3:i], default=0) if is_root else 0  # a root comes no earlier than its children
        where.append(data.draw(st.integers(lo, n_files - 1)))
    files = [tmp / f"part{k}.jsonl" for k in range(n_files)]
    for k, f in enumerate(files):
        f.write_text("".join(line + "\n" for line, w in zip(lines, where) if w == k))
    one = Store(tmp / "one")
    import_otel(one, [str(whole)])
    parts = Store(tmp / "parts")
    for f in files:
        import_otel(parts, [str(f)])
    for tid in ids:
        got = [{k: v for k, v in e.items()} for e in events(tmp / "parts", f"otel:{tid}")]
        assert got == events(tmp / "one", f"otel:{tid}")


def test_a_nested_agent_span_is_not_late_when_its_file_comes_again(tmp_path) -> None:
    """Structure spans (a sub-agent) are part of the written run: importing their file again
    after the run is written says nothing is late."""
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    exporter = OTLPJsonFile(a)
    tracer = provider(exporter).get_tracer("agents")
    with tracer.start_as_current_span("invoke_agent outer", attributes={"gen_ai.operation.name": "invoke_agent"}):
        with tracer.start_as_current_span("invoke_agent helper", attributes={"gen_ai.operation.name": "invoke_agent",
                                                                             "gen_ai.agent.name": "helper"}):
            with tracer.start_as_current_span("chat m", attributes={"gen_ai.operation.name": "chat",
                                                                    "gen_ai.request.model": "m"}):
                pass
        exporter.path = b
    store = tmp_path / "store"
    assert "1 trace pending" in traj("import", "otel", a, "--store", store).output
    assert "1 pending trace completed" in traj("import", "otel", b, "--store", store).output
    src = json.loads(traj("import", "otel", a, "--store", store, "--json").output)["sources"][0]
    assert (src["late_spans"], src["open_traces"], src["known_runs"]) == (0, 0, 1)
    (run,) = [json.loads(x)["run_id"] for x in traj("runs", "--store", store, "--json").output.splitlines()]
    step = next(e for e in events(store, run) if e["kind"] == "step_taken")
    assert [s["name"] for s in step["spans"]] == ["invoke_agent helper"]
