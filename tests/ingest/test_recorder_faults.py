"""The Recorder on a full disk, and journals that cannot be sealed whole.

A full disk is a real one: a small tmpfs that the test fills (skipped, with a message, where
the test cannot mount one). A torn or oversized journal is written the way an older recorder
or a crash left it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from disk_helpers import fill, small_disk
from replay import replay
from trajectory import events as ev
from trajectory.cli.main import app
from trajectory.ingest.plain import Limits
from trajectory.judging import load_events
from trajectory.ingest.recorder import Recorder, RecorderError, open_journals, recover
from trajectory.store.delta import Store

runner = CliRunner()


def journal_lines(path: Path) -> list[ev.Event]:
    """Every line of a journal decoded; a torn line fails here."""
    data = path.read_bytes()
    assert data == b"" or data.endswith(b"\n"), "the journal ends inside an event"
    return [ev.decode(line) for line in data.splitlines()]


@pytest.fixture
def disk(tmp_path):
    with small_disk(tmp_path / "disk", "4m") as folder:
        yield folder


def test_a_full_disk_fails_the_call_at_once_and_never_leaves_a_torn_event(disk: Path) -> None:
    store = Store(disk / "store")
    rec = Recorder(store, run_id="full", suite="s", task="t").open()
    filler = fill(disk, leave=8192)  # two pages left
    screen = "北京 20° 多云 " * 120  # about 2 KB a line: the third or fourth write does not fit
    acknowledged = 1  # run_started
    with pytest.raises(RecorderError) as info:
        for _ in range(50):
            rec.screen(screen, app="weather")
            acknowledged += 1
    message = str(info.value)
    assert f"seq {acknowledged}: screen_read was not recorded" in message and "No space left" in message
    assert "\n" not in message and str(rec.journal) in message
    # Every acknowledged event is whole in the journal, and nothing else is.
    lines = journal_lines(rec.journal)
    assert [e.seq for e in lines] == list(range(acknowledged))
    # Space again: the same call succeeds, and the run seals with every event in order.
    filler.unlink()
    rec.screen(screen, app="weather")
    rec.finish("succeeded")
    events = load_events(store, ["full"])["full"]
    assert [e.seq for e in events] == list(range(acknowledged + 2))
    assert replay(events).outcome == "succeeded"
    assert open_journals(store) == []


def test_a_full_disk_at_finish_keeps_the_journal_for_recover(disk: Path) -> None:
    store = Store(disk / "store")
    rec = Recorder(store, run_id="late", suite="s", task="t").open()
    rec.answer("kept")
    filler = fill(disk, leave=4096)  # room for run_finished in the journal, not for the table
    with pytest.raises(Exception) as info:  # noqa: PT011 - the store's error on a full disk
        rec.finish("succeeded")
    assert "No space left" in str(info.value) or "no space" in str(info.value).lower()
    assert [e.seq for e in journal_lines(rec.journal)] == [0, 1, 2]
    filler.unlink()
    [(_, report)] = recover(store)
    assert report is not None and report.rejected is None and report.new == 3
    assert replay(load_events(store, ["late"])["late"]).outcome == "succeeded"


# -- journals that cannot be sealed whole ------------------------------------------------------------


def dead_journal(store: Store, run_id: str, answers: list[str]) -> Recorder:
    rec = Recorder(store, run_id=run_id, suite="s", task="t", seal_on_exit=False).open()
    for a in answers:
        rec.answer(a)
    rec.close()  # like a process that died: lock released, nothing sealed
    return rec


def test_recover_keeps_every_whole_event_before_a_torn_one_and_sets_the_journal_aside(store: Store) -> None:
    rec = dead_journal(store, "torn", ["one", "two"])
    # What an older recorder left on a full disk: part of seq 3, then the next event after it.
    whole = ev.encode(ev.AnswerGiven(run_id="torn", seq=3, ts=0, text="three")).decode()
    nxt = ev.encode(ev.AnswerGiven(run_id="torn", seq=4, ts=0, text="four")).decode()
    with open(rec.journal, "a", encoding="utf-8") as fh:
        fh.write(whole[:25] + nxt + "\n")
        fh.write(ev.encode(ev.AnswerGiven(run_id="torn", seq=5, ts=0, text="five")).decode() + "\n")
    original = rec.journal.read_bytes()
    r = runner.invoke(app, ["recover", "--store", str(store.loc)])
    assert r.exit_code == 1
    [line] = [x for x in r.output.splitlines() if x.startswith("torn.jsonl")]
    assert "torn.jsonl:4: $: not JSON" in line and "3 whole events before it kept" in line, line
    assert "3 new events sealed" in line and "journal/rejected/torn.jsonl" in line
    events = load_events(store, ["torn"])["torn"]
    assert [e.seq for e in events] == [0, 1, 2] and replay(events).answer == "two"
    kept = store.loc.path("journal", "rejected", "torn.jsonl")
    assert kept.read_bytes() == original  # set aside, never deleted
    assert open_journals(store) == []


def test_one_bad_journal_does_not_stop_the_others(store: Store) -> None:
    dead_journal(store, "a-good", ["fine"])
    bad = dead_journal(store, "b-huge", ["small"])
    dead_journal(store, "c-good", ["fine too"])
    # An event an older recorder accepted but ingest refuses: a line over the ingest limit.
    huge = ev.encode(ev.AnswerGiven(run_id="b-huge", seq=2, ts=0, text="x" * (8 * 1024 * 1024 + 10)))
    with open(bad.journal, "ab") as fh:
        fh.write(huge + b"\n")
    r = runner.invoke(app, ["recover", "--store", str(store.loc)])
    assert r.exit_code == 1
    out = r.output.splitlines()
    assert any(x.startswith("a-good.jsonl: sealed, 2 new events") for x in out), out
    assert any(x.startswith("c-good.jsonl: sealed, 2 new events") for x in out), out
    [line] = [x for x in out if x.startswith("b-huge.jsonl")]
    assert "over the limit of 8388608" in line and "2 whole events before it kept" in line
    assert store.loc.path("journal", "rejected", "b-huge.jsonl").stat().st_size > 8 * 1024 * 1024
    runs = load_events(store, ["a-good", "b-huge", "c-good"])
    assert [len(runs[r]) for r in ("a-good", "b-huge", "c-good")] == [2, 2, 2]
    # A second look finds nothing left to do, and the rejected journal is not taken again.
    r = runner.invoke(app, ["recover", "--store", str(store.loc)])
    assert r.exit_code == 0 and r.output.strip() == "no journals to recover"


def test_a_journal_whose_events_conflict_with_the_store_is_set_aside_whole(store: Store) -> None:
    with Recorder(store, run_id="dup", suite="s", task="t") as rec:
        rec.answer("stored")
    # A second journal for the same run, with a different event at seq 1.
    folder = store.loc.path("journal")
    start = load_events(store, ["dup"])["dup"][0]
    other = ev.AnswerGiven(run_id="dup", seq=1, ts=0, text="different")
    (folder / "dup.jsonl").write_bytes(ev.encode(start) + b"\n" + ev.encode(other) + b"\n")
    [(_, report)] = recover(store)
    assert report is not None and "conflict" in (report.rejected or "") and report.new == 0
    assert report.kept_at == folder / "rejected" / "dup.jsonl" and report.kept_at.exists()
    assert replay(load_events(store, ["dup"])["dup"]).answer == "stored"


# -- the recorder refuses what ingest would refuse ---------------------------------------------------


def test_the_recorder_refuses_an_event_over_the_ingest_line_limit_when_it_is_recorded(store: Store) -> None:
    with Recorder(store, run_id="big", suite="s", task="t") as rec:
        with pytest.raises(RecorderError, match=r"seq 1: screen_read refused, ingest would refuse it: .*over the limit"):
            rec.screen("x" * (8 * 1024 * 1024 + 1))
        rec.screen("small")  # the run goes on; the refused event took no seq
        rec.finish("succeeded")
    assert [type(e).__name__ for e in load_events(store, ["big"])["big"]] == ["RunStarted", "ScreenRead", "RunFinished"]


def test_the_recorder_refuses_nesting_and_counts_over_its_limits(store: Store) -> None:
    deep: dict = {}
    node = deep
    for _ in range(70):
        node["a"] = {}
        node = node["a"]
    with Recorder(store, run_id="deep", suite="s", task="t", limits=Limits(max_events_per_run=3)) as rec:
        with pytest.raises(RecorderError, match="nesting deeper than the limit of 64"):
            rec.snapshot(deep)
        rec.answer("one")
        rec.answer("two")
        with pytest.raises(RecorderError, match="more than 3 events"):
            rec.answer("three")
    assert len(load_events(store, ["deep"])["deep"]) == 3
    assert json.loads(json.dumps(deep))  # the value itself was fine JSON
    assert not os.path.exists(store.loc.path("journal", "deep.jsonl"))
