"""The ingest pipeline (rules checked once over a batch's columns, trajectory/ingest/rules.py) is
held equal to the per-event oracle (tests/ingest_oracle.py): for any runs, cut into two batches
and broken in any of the ways a harness breaks them, both store the same rows, report the same
counts and refuse with the same words. Both ways into the pipeline are held: a file's bytes
(staged in chunks) and already parsed events (the recorder's, the importers', Ray's)."""

from __future__ import annotations

import pyarrow as pa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ingest_oracle import ingest_events as oracle_ingest
from strategies import runs
from trajectory import events as ev
from trajectory.ingest.batchplan import ingest_events
from trajectory.ingest.files import ingest_bytes
from trajectory.ingest.plain import Limits, parse
from trajectory.store.delta import Store

REPORT = ("runs", "events", "new", "present", "new_runs")
POISON = b'{"op":"replace","path":"/no/such/path","value":1}'


def stored(store: Store) -> pa.Table:
    if not store.has_table("events"):
        return pa.table({})
    table = store.read("events").drop_columns(["commit_id", "ingested_at"])
    return table.sort_by([("run_id", "ascending"), ("seq", "ascending")])


def outcome(fn, *args, **kwargs):
    try:
        report = fn(*args, **kwargs)
    except Exception as exc:  # noqa: BLE001 - compared, not swallowed
        return type(exc).__name__, str(exc)
    return tuple(getattr(report, k) for k in REPORT)


def no_split(suite: str, task: str) -> str | None:
    return "holdout" if task.startswith("h") else None  # some tasks declare a pool: contradictions


@st.composite
def broken(draw: st.DrawFn, lines: list[bytes]) -> list[bytes]:
    """The lines with a few of the ways they go wrong: one dropped, repeated, moved, given
    other content, given a later seq, or a state patch that cannot apply."""
    out = list(lines)
    for _ in range(draw(st.integers(0, 3))):
        if not out:
            break
        i = draw(st.integers(0, len(out) - 1))
        how = draw(st.sampled_from(["drop", "repeat", "move", "change", "seq", "poison"]))
        if how == "drop":
            del out[i]
        elif how == "repeat":
            out.insert(draw(st.integers(i, len(out))), out[i])
        elif how == "move":
            out.insert(draw(st.integers(0, len(out) - 1)), out.pop(i))
        elif how == "change":
            out.insert(draw(st.integers(i, len(out))), out[i].replace(b'"ts":', b'"extra":{"x":1},"ts":', 1))
        elif how == "seq":
            e = ev.decode(out[i])
            out[i] = out[i].replace(f'"seq":{e.seq},'.encode(), f'"seq":{e.seq + draw(st.integers(1, 3))},'.encode(), 1)
        elif b'"kind":"state_changed"' in out[i]:
            e = ev.decode(out[i])
            out[i] = ev.encode(type(e)(run_id=e.run_id, seq=e.seq, ts=e.ts, patch=[ev.PatchOp(op="replace", path="/no/such", value=1)]))
    return out


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data(), batch=st.lists(runs(max_size=6), min_size=1, max_size=3, unique_by=lambda r: r[0].run_id),
       cut=st.integers(0, 30), chunk=st.sampled_from([1, 200, 1 << 30]), limit=st.sampled_from([4, 1_000_000]))
def test_the_pipeline_stores_and_refuses_as_the_per_event_path(tmp_path_factory, data, batch, cut, chunk, limit) -> None:
    lines = [ev.encode(e) for run in batch for e in run]
    first, second = lines[:cut], data.draw(broken(lines[max(0, cut - 2):]))
    limits = Limits(max_events_per_run=limit)
    tmp = tmp_path_factory.mktemp("oracle")
    one, two, three = Store(tmp / "oracle"), Store(tmp / "bytes"), Store(tmp / "events")
    for part in (first, second):
        text = b"\n".join(part) + b"\n"
        # A line the line rules refuse (a line changed twice gives a key twice) is refused by
        # parse, before either path's batch rules: the pipeline must say the same.
        said = outcome(lambda: oracle_ingest(one, parse(text, "x.jsonl", limits), "x.jsonl", limits, no_split))
        assert outcome(ingest_bytes, two, text, "x.jsonl", limits, no_split, chunk_bytes=chunk) == said
        assert outcome(lambda: ingest_events(three, parse(text, "x.jsonl", limits), "x.jsonl", limits, no_split)) == said
        assert stored(one).equals(stored(two)) and stored(one).equals(stored(three))


def test_a_broken_batch_is_refused_with_every_problem_located(tmp_path) -> None:
    """The refusal the pipeline words: file, line, JSON path, run and seq of each problem, in
    line order, the cascade of a missing seq included."""
    start = b'{"run_id":"r","seq":0,"ts":1775354400000,"kind":"run_started","suite":"s","task":"t","state":{"a":1}}'
    lines = [start,
             b'{"run_id":"r","seq":2,"ts":1775354400000,"kind":"answer_given","text":"x"}',
             b'{"run_id":"r","seq":3,"ts":1775354400000,"kind":"answer_given","text":"y"}',
             b'{"run_id":"q","seq":0,"ts":1775354400000,"kind":"run_started","suite":"s","task":"t","state":{"a":1}}',
             b'{"run_id":"q","seq":1,"ts":1775354400000,"kind":"state_changed","patch":[' + POISON + b']}']
    store = Store(tmp_path / "s")
    said = outcome(ingest_bytes, store, b"\n".join(lines), "b.jsonl")
    assert said == ("SchemaError", "\n".join([
        "b.jsonl:2: $.seq: expected 1, got 2 (run r, seq 2)",
        "b.jsonl:3: $.seq: expected 1, got 3 (run r, seq 3)",
        "b.jsonl:5: $.patch[0]: cannot apply to the run's state before it: "
        + said[1].split("before it: ")[-1],
    ])), said
    assert not store.has_table("events")
