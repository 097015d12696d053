"""`traj export events` gives back what was ingested: every field as it was given."""

from __future__ import annotations

import io
import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import line
from replay import replay
from strategies import runs
from trajectory import events as ev
from trajectory.reports.export import export_events
from trajectory.ingest.files import ingest_bytes
from trajectory.store.delta import Store


def exported(store: Store) -> bytes:
    sink = io.BytesIO()
    export_events(store, sink)
    return sink.getvalue()


def test_explicit_zeros_and_defaults_stay_and_absent_fields_stay_absent(store: Store) -> None:
    written = [
        line("r", 0, "run_started", suite="example", task="current_temp", mode="grounded", goal=""),
        line("r", 1, "step_taken", action="tap", usage={"input_tokens": 7, "cached_tokens": 0},
             timing={"model_ms": 0, "act_ms": 12.5}),
        line("r", 2, "step_taken", action="tap", usage={}),
        line("r", 3, "screen_read", text=""),
        line("r", 4, "run_finished", outcome="succeeded"),
    ]
    ingest_bytes(store, "\n".join(written).encode(), "w.jsonl")
    back = [json.loads(x) for x in exported(store).splitlines()]
    start, step, empty, screen, _ = back
    assert start["mode"] == "grounded" and start["goal"] == ""
    assert step["usage"] == {"input_tokens": 7, "cached_tokens": 0}
    assert step["timing"] == {"model_ms": 0, "act_ms": 12.5}  # an integer stays an integer
    assert empty["usage"] == {} and screen["text"] == ""
    assert "params" not in start and "thought" not in step
    # Read back, a figure left out is 0, as is one given as 0.
    state = replay([ev.decode(x) for x in exported(store).splitlines()])
    assert (state.totals.input_tokens, state.totals.cached_tokens, state.totals.output_tokens) == (7, 0, 0)
    assert state.mode == "grounded"


def test_a_field_given_with_its_default_is_the_same_content_as_one_left_out(store: Store) -> None:
    a = [line("r", 0, "run_started", suite="s", task="t"), line("r", 1, "step_taken", action="x", usage={"input_tokens": 0})]
    b = [line("r", 0, "run_started", suite="s", task="t", mode="grounded"), line("r", 1, "step_taken", action="x", usage={})]
    ingest_bytes(store, "\n".join(a).encode(), "a")
    report = ingest_bytes(store, "\n".join(b).encode(), "b")
    assert report.new == 0 and report.present == 2  # the spec: an omitted default equals the default
    assert b'"input_tokens":0' in exported(store)  # and the first form given is what is kept


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.lists(runs(max_size=8), min_size=1, max_size=3, unique_by=lambda r: r[0].run_id))
def test_ingest_then_export_gives_the_lines_back_and_export_ingest_export_is_identical(tmp_path_factory, data) -> None:
    written = b"\n".join(ev.encode(e) for run in sorted(data, key=lambda r: r[0].run_id) for e in run) + b"\n"
    first = Store(tmp_path_factory.mktemp("x") / "a")
    ingest_bytes(first, written, "w")
    once = exported(first)
    assert once == written
    second = Store(tmp_path_factory.mktemp("x") / "b")
    ingest_bytes(second, once, "export")
    assert exported(second) == once
