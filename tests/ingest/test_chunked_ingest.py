"""The ingest pipeline (chunks, workers, one commit per file) stores exactly what the per-event
oracle (tests/ingest_oracle.py) stores, reports the same counts, and refuses the same input with
the same words."""

from __future__ import annotations

import random

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import example_run, jsonl, line
from strategies import runs
from trajectory import events as ev
from trajectory.reports.export import export_events
from ingest_oracle import ingest_events
from trajectory.ingest.plain import DEFAULT_LIMITS, Limits, parse
from trajectory.ingest.files import Workers, ingest_bytes, ingest_files
from trajectory.judging import SuiteResolver
from trajectory.store.delta import Store

BOOKKEEPING = ("commit_id", "ingested_at")
REPORT = ("runs", "events", "new", "present", "new_runs")


def stored(store: Store) -> pa.Table:
    """The events table's rows, in run and seq order, without the per-commit bookkeeping."""
    if not store.has_table("events"):
        return pa.table({})
    table = store.read("events")
    return table.drop_columns(list(BOOKKEEPING)).sort_by([("run_id", "ascending"), ("seq", "ascending")])


def plain(store: Store, data: bytes, source: str = "x.jsonl", limits: Limits = DEFAULT_LIMITS):
    """The per-event oracle: every line parsed, the batch planned event by event."""
    split_of = SuiteResolver(store).split_of
    return ingest_events(store, parse(data, source, limits), source, limits, split_of)


def staged(store: Store, data: bytes, chunk: int, workers: Workers | None = None, source: str = "x.jsonl",
           limits: Limits = DEFAULT_LIMITS):
    return ingest_bytes(store, data, source, limits, SuiteResolver(store).split_of, workers, chunk_bytes=chunk)


def outcome(fn, *args, **kwargs):
    """What an ingest did: its report's counts, or the refusal's type and words."""
    try:
        report = fn(*args, **kwargs)
    except Exception as exc:  # noqa: BLE001 - compared, not swallowed
        return type(exc).__name__, str(exc)
    return tuple(getattr(report, k) for k in REPORT)


@pytest.fixture(scope="module")
def samples(samples_store) -> bytes:
    """Every sample run of every bundled suite, as JSON Lines."""
    import io

    buffer = io.BytesIO()
    export_events(Store(samples_store), buffer)
    return buffer.getvalue()


@pytest.mark.parametrize("chunk", [1, 700, 64 * 1024, 1 << 30])
def test_every_sample_run_is_stored_alike_in_any_chunks(samples: bytes, tmp_path, chunk: int) -> None:
    one, two = Store(tmp_path / "plain"), Store(tmp_path / "staged")
    assert outcome(plain, one, samples) == outcome(staged, two, samples, chunk)
    assert stored(one).equals(stored(two))
    # Again: everything is already there, in both.
    assert outcome(plain, one, samples) == outcome(staged, two, samples, chunk)
    assert stored(one).equals(stored(two))


def test_valid_files_are_not_parsed_into_an_object_per_event(samples: bytes, tmp_path, monkeypatch) -> None:
    """The pipeline decides a valid file (and a re-ingest of it) without plain.parse, state
    patches included (each checked against the state it follows)."""
    import trajectory.ingest.plain as ingest

    assert b'"kind":"state_changed"' in samples and b'"patch"' in samples

    def no(*args, **kwargs):
        raise AssertionError("plain.parse was called")

    monkeypatch.setattr(ingest, "parse", no)
    store = Store(tmp_path / "s")
    assert staged(store, samples, 4096).new > 0
    assert staged(store, samples, 4096).new == 0


POISON = {"op": "replace", "path": "/no/such", "value": 1}


def patched_run(run_id: str, patches: list[list[dict]], start: int = 0, started: bool = True) -> list[str]:
    head = [line(run_id, 0, "run_started", suite="example", task="current_temp", params={"city": "北京"},
                 state={"a": {"b": 1}})] if started else []
    return head + [line(run_id, start + i, "state_changed", patch=p) for i, p in enumerate(patches, 1)]


@pytest.mark.parametrize("chunk", [1, 300, 1 << 30])
def test_a_patch_that_cannot_apply_is_refused_alike(tmp_path, chunk: int) -> None:
    """In the batch's first chunk or a later one, on a run started in the batch: the same
    refusal, word for word, and nothing written."""
    ok = [{"op": "add", "path": "/a/c", "value": 2}]
    data = jsonl(example_run("a") + patched_run("p", [ok, [{"op": "test", "path": "/a/c", "value": 2}, POISON]]))
    one, two = Store(tmp_path / "plain"), Store(tmp_path / "staged")
    said = outcome(plain, one, data)
    assert said[0] == "SchemaError" and "$.patch[1]: cannot apply" in said[1], said
    assert outcome(staged, two, data, chunk) == said
    assert not two.has_table("events")


@pytest.mark.parametrize("chunk", [1, 1 << 30])
def test_a_continued_run_is_checked_against_its_stored_state(tmp_path, chunk: int) -> None:
    """A run whose start is in the store: its new patches follow the stored state (a patch of
    /a/c, added by a stored patch, applies; one of a path it removed does not)."""
    first = jsonl(patched_run("p", [[{"op": "add", "path": "/a/c", "value": 2}]]))
    good = jsonl(patched_run("p", [[{"op": "replace", "path": "/a/c", "value": 3}],
                                   [{"op": "remove", "path": "/a/c"}]], start=1, started=False))
    bad = jsonl(patched_run("p", [[{"op": "replace", "path": "/a/c", "value": 4}]], start=3, started=False))
    one, two = Store(tmp_path / "plain"), Store(tmp_path / "staged")
    for data in (first, good):
        assert outcome(plain, one, data) == outcome(staged, two, data, chunk)
    said = outcome(plain, one, bad)
    assert said[0] == "SchemaError" and "$.patch[0]: cannot apply" in said[1], said
    assert outcome(staged, two, bad, chunk) == said
    assert stored(one).equals(stored(two))


def test_staging_on_worker_processes_stores_the_same(samples: bytes, tmp_path) -> None:
    one, two = Store(tmp_path / "plain"), Store(tmp_path / "staged")
    plain(one, samples)
    with Workers(2) as pool:
        staged(two, samples, 16 * 1024, pool)
    assert stored(one).equals(stored(two))


def test_a_file_is_staged_in_chunks_read_by_the_workers(samples: bytes, tmp_path) -> None:
    path = tmp_path / "samples.jsonl"
    path.write_bytes(samples)
    one, two = Store(tmp_path / "plain"), Store(tmp_path / "files")
    plain(one, samples, str(path))
    [(name, report)] = list(ingest_files(two, [str(path)], workers=2))
    assert report.new == report.events and two.version("events") == 0  # one commit for the file
    assert stored(one).equals(stored(two))


def test_a_refused_file_is_refused_alike_and_writes_nothing(tmp_path) -> None:
    good = jsonl(example_run("a") + example_run("b"))
    bad_lines = example_run("c")
    bad_lines[2] = bad_lines[2].replace('"text"', '"txet"')
    cases = [
        good + jsonl(bad_lines),  # a bad line in the last chunk
        jsonl(bad_lines) + good,
        good + jsonl([line("a", 9, "answer_given", text="late")]),  # after run_finished
        good + good,  # the same lines twice: no-ops
        good + jsonl([line("d", 0, "run_started", suite="s", task="t"), line("d", 2, "answer_given", text="x")]),
        jsonl([line("bad run id!", 0, "run_started", suite="s", task="t")] * 3),
        b"\n\n" + good + b"  \n\r\n",  # blank lines are counted, not read
        good + jsonl(example_run("e")).replace(b'"run_id": "e"', b'"run_id": "e", "run_id": "a"', 1),  # a key twice
        good + jsonl(example_run("f")).replace(b'"text": "', b'"text": "x\\u003a", "text": "', 1),  # an escaped colon
        good + jsonl(example_run("g")).replace(b'"text": "', b'"text": "a:b", "text": "', 1),  # colons in strings
        good + jsonl(example_run("h")).replace(b'"text": "', b'"text": "a:b", "tex": "', 1),  # unknown, not twice
    ]
    for i, data in enumerate(cases):
        one, two = Store(tmp_path / f"p{i}"), Store(tmp_path / f"s{i}")
        assert outcome(plain, one, data) == outcome(staged, two, data, 300), i
        assert stored(one).equals(stored(two)), i


def test_conflicts_with_stored_events_are_refused_alike(tmp_path) -> None:
    first = jsonl(example_run("a"))
    changed = jsonl(example_run("a", answer="北京现在21度") + example_run("b"))
    one, two = Store(tmp_path / "plain"), Store(tmp_path / "staged")
    plain(one, first)
    staged(two, first, 200)
    assert outcome(plain, one, changed) == outcome(staged, two, changed, 200)
    assert stored(one).equals(stored(two))


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.lists(runs(max_size=12), min_size=1, max_size=4, unique_by=lambda r: r[0].run_id),
       cuts=st.lists(st.integers(0, 60), min_size=1, max_size=3), chunk=st.integers(1, 4000),
       seed=st.integers(0, 2**16), shuffle=st.booleans())
def test_any_batches_of_any_runs_store_alike(tmp_path_factory, data, cuts, chunk, seed, shuffle) -> None:
    """Runs cut into batches (a run continued later, lines repeated across batches, lines out of
    order when shuffled: refused) ingest alike both ways, batch after batch."""
    tmp = tmp_path_factory.mktemp("chunks")
    one, two = Store(tmp / "plain"), Store(tmp / "staged")
    lines = [ev.encode(e) for run in data for e in run]
    if shuffle:
        random.Random(seed).shuffle(lines)
    bounds = sorted({0, len(lines), *(min(c, len(lines)) for c in cuts)})
    for a, b in zip(bounds, bounds[1:]):
        batch = b"\n".join(lines[max(0, a - 2) : b]) + b"\n"  # overlapping: the repeats are no-ops
        assert outcome(plain, one, batch) == outcome(staged, two, batch, chunk)
        assert stored(one).equals(stored(two))
