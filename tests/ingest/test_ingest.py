"""Ingest: all-or-nothing batches, idempotency, conflicts, and errors that name the place."""

from __future__ import annotations

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import example_run, jsonl, line
from strategies import runs
from trajectory import events as ev
from trajectory.errors import ConflictError, SchemaError
from trajectory.ingest.plain import Limits
from trajectory.ingest.files import ingest_bytes
from trajectory.judging import load_events
from trajectory.store.delta import Store


def count(store: Store) -> int:
    return store.read("events", columns=["seq"]).num_rows if store.has_table("events") else 0


def test_ingest_twice_adds_nothing(store: Store) -> None:
    data = jsonl(example_run("r1") + example_run("r2"))
    first = ingest_bytes(store, data, "a.jsonl")
    assert (first.runs, first.events, first.new, first.present) == (2, 10, 10, 0)
    version = store.version("events")
    second = ingest_bytes(store, data, "a.jsonl")
    assert (second.new, second.present) == (0, 10)
    assert store.version("events") == version  # no commit at all
    assert count(store) == 10


def test_a_run_can_be_continued_from_the_next_seq(store: Store) -> None:
    lines = example_run("r1")
    ingest_bytes(store, jsonl(lines[:3]), "part1")
    report = ingest_bytes(store, jsonl(lines), "all")  # overlap is a no-op, the rest is new
    assert (report.new, report.present) == (2, 3)
    events = load_events(store, ["r1"])["r1"]
    assert [e.seq for e in events] == [0, 1, 2, 3, 4]


def test_conflicting_batch_writes_nothing_and_names_run_seq_field(store: Store) -> None:
    ingest_bytes(store, jsonl(example_run("r1")), "a.jsonl")
    before = count(store)
    bad = example_run("r1", answer="北京现在21度") + example_run("r2")
    with pytest.raises(ConflictError) as info:
        ingest_bytes(store, jsonl(bad), "b.jsonl")
    msg = str(info.value)
    assert "b.jsonl:4:" in msg and "$.text" in msg and "run r1, seq 3" in msg
    assert "北京现在20度" in msg and "北京现在21度" in msg
    assert count(store) == before  # r2 was not written either


def test_the_same_instant_written_differently_is_not_a_conflict(store: Store) -> None:
    a = [line("r", 0, "run_started", ts="2026-04-05T10:00:00+08:00", suite="s", task="t")]
    b = [line("r", 0, "run_started", ts=1775354400000, suite="s", task="t", mode="grounded")]
    ingest_bytes(store, jsonl(a), "a")
    assert ingest_bytes(store, jsonl(b), "b").present == 1


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        (["{not json"], "x.jsonl:1: $: not JSON"),
        ([line("r", 0, "run_started", suite="s", task="t"), line("r", 2, "answer_given", text="a")],
         "x.jsonl:2: $.seq: expected 1, got 2 (run r, seq 2)"),
        ([line("r", 1, "answer_given", text="a")], "x.jsonl:1: $.seq: expected 0, got 1"),
        ([line("r", 0, "answer_given", text="a")], "x.jsonl:1: $.kind: seq 0 must be run_started"),
        ([line("r", 0, "run_started", suite="s", task="t"), line("r", 1, "run_started", suite="s", task="t")],
         "x.jsonl:2: $.kind: run_started only at seq 0"),
        ([line("r", 0, "run_started", suite="s", task="t"), line("r", 1, "run_finished", outcome="failed"),
          line("r", 2, "answer_given", text="late")], "x.jsonl:3: $.seq: run already finished at seq 1"),
        ([line("r", 0, "run_started", suite="s", task="t", extra=[1])], "x.jsonl:1: $.extra: Expected"),
        ([line("r", 0, "run_started", suite="s", task="t", colour="red")], "x.jsonl:1: $.colour: unknown field (run r, seq 0)"),
        ([line("r", 0, "run_started", suite="s", task="t", agent={"name": "a", "version": 2})], "x.jsonl:1: $.agent.version: unknown field"),
        ([line("r", 0, "run_started", task="t")], "x.jsonl:1: $.suite: missing required field"),
        (["", line("r", 0, "run_started", suite="s", task=5)], "x.jsonl:2: $.task: Expected str, got int"),
        ([line("r", 0, "run_started", suite="s", task="t"), '{"run_id":"r","seq":1,"ts":0,"kind":"answer_given","text":NaN}'],
         "x.jsonl:2: $: not JSON"),
    ],
    ids=["not-json", "gap", "no-start", "start-kind", "second-start", "after-finish", "wrong-type", "unknown-field",
         "nested-unknown", "missing", "blank-lines-count", "nan"],
)
def test_bad_input_is_refused_with_file_line_and_path(store: Store, lines: list[str], expected: str) -> None:
    with pytest.raises(SchemaError) as info:
        ingest_bytes(store, jsonl(lines), "x.jsonl")
    assert expected in str(info.value)
    assert count(store) == 0


def test_invalid_utf8_and_limits(store: Store) -> None:
    bad = b'{"run_id":"r","seq":0,"ts":0,"kind":"run_started","suite":"\xff","task":"t"}\n'
    with pytest.raises(SchemaError, match="x:1: "):
        ingest_bytes(store, bad, "x")
    long = jsonl([line("r", 0, "run_started", suite="s", task="t", goal="g" * 5000)])
    with pytest.raises(SchemaError, match="over the limit of 1000"):
        ingest_bytes(store, long, "x", Limits(max_line_bytes=1000))
    deep = jsonl([line("r", 0, "run_started", suite="s", task="t", extra={"a": [[[[[[1]]]]]]})])
    with pytest.raises(SchemaError, match="nesting deeper than the limit of 4"):
        ingest_bytes(store, deep, "x", Limits(max_depth=4))
    many = jsonl(example_run("r"))
    with pytest.raises(SchemaError, match="more than 3 events"):
        ingest_bytes(store, many, "x", Limits(max_events_per_run=3))
    assert count(store) == 0


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(run=runs(run_id="prop"), cut=st.integers(0, 20))
def test_any_valid_run_ingests_in_two_batches_and_exports_back(tmp_path_factory, run, cut) -> None:
    store = Store(tmp_path_factory.mktemp("s") / "store")
    cut = min(cut, len(run))
    data = [ev.encode(e).decode() for e in run]
    if cut:
        ingest_bytes(store, jsonl(data[:cut]), "a")
    if cut < len(data):
        ingest_bytes(store, jsonl(data), "b")
    stored = load_events(store, ["prop"])["prop"]
    assert stored == run


def test_limit_refusals_are_limit_errors(store: Store) -> None:
    from trajectory.errors import LimitError

    long = jsonl([line("r", 0, "run_started", suite="s", task="t", goal="g" * 5000)])
    with pytest.raises(LimitError):
        ingest_bytes(store, long, "x", Limits(max_line_bytes=1000))
    with pytest.raises(SchemaError) as info:  # a malformed line too: not only a limit
        ingest_bytes(store, long + b"{bad\n", "x", Limits(max_line_bytes=1000))
    assert not isinstance(info.value, LimitError)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(run=runs(run_id="cols", min_size=1))
def test_typed_columns_say_what_the_events_say(tmp_path_factory, run) -> None:
    store = Store(tmp_path_factory.mktemp("c") / "store")
    ingest_bytes(store, b"\n".join(ev.encode(e) for e in run), "a")
    table = store.read("events").sort_by("seq").to_pylist()
    for row, e in zip(table, run):
        assert row["kind"] == type(e).__struct_config__.tag and row["seq"] == e.seq
        assert row["ts"] == e.ts and row["run_id"] == "cols"
        assert row["text"] == (e.text if isinstance(e, (ev.ScreenRead, ev.AnswerGiven, ev.TakeoverRequested)) else None)
        assert row["action"] == (e.action if isinstance(e, (ev.StepTaken, ev.ConfirmationShown)) else None)
        route = getattr(e, "route", None)
        assert (row["route_app"], row["route_path"]) == ((route.app, route.path) if route else (None, None))
        usage = getattr(e, "usage", None)
        # A figure left out reads as 0 when its object is there (ev.value).
        assert row["input_tokens"] == (ev.value(usage, "input_tokens") if usage else None)
        timing = getattr(e, "timing", None)
        assert row["model_ms"] == (ev.value(timing, "model_ms") if timing else None)
        if isinstance(e, ev.SheetChanged):
            assert (row["op"], row["field"]) == (e.op, e.field)
            assert row["value"] == (None if e.value is None else msgspec.json.encode(e.value).decode())
        if isinstance(e, ev.ProbeRead):
            assert (row["name"], row["value"]) == (e.name, msgspec.json.encode(e.value).decode())
        if isinstance(e, ev.JudgementRecorded):
            assert row["name"] == e.judge
        assert row["outcome"] == (e.outcome if isinstance(e, ev.RunFinished) else None)
        assert ev.decode(row["data"]) == e
        assert row["suite"] == run[0].suite and row["task"] == run[0].task


def _depth(value) -> int:
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    return 0


@settings(max_examples=300, deadline=None)
@given(value=st.recursive(
    st.one_of(st.none(), st.integers(), st.text(alphabet='[]{}"\\ab', max_size=6)),
    lambda c: st.one_of(st.lists(c, max_size=3), st.dictionaries(st.text(alphabet='[]{}"\\k', max_size=3), c, max_size=3)),
    max_leaves=20,
), limit=st.integers(0, 6))
def test_depth_check_agrees_with_the_real_nesting(value, limit) -> None:
    from trajectory.ingest.plain import _depth_exceeds

    raw = msgspec.json.encode(value)
    assert _depth_exceeds(raw, limit) == (_depth(value) > limit)
