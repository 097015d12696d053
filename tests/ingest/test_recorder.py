"""The Recorder writes a durable journal as events happen and seals it into the store."""

from __future__ import annotations

import datetime as dt

import pytest

from replay import replay
from trajectory.judging import load_events
from trajectory.ingest.recorder import Recorder, RecorderError, open_journals, recover
from trajectory.store.delta import Store


def clock():
    t = [dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)]

    def tick():
        t[0] += dt.timedelta(seconds=1)
        return t[0]

    return tick


def test_recorded_run_is_sealed_on_finish(store: Store) -> None:
    with Recorder(store, run_id="r1", suite="example", task="current_temp", params={"city": "北京"},
                  state={"apps": {}}, clock=clock()) as rec:
        rec.step("tap", {"x": 1}, usage={"input_tokens": 5})
        rec.screen("北京 20°", app="weather", route={"app": "weather", "path": "/"})
        rec.patch([{"op": "add", "path": "/apps/weather", "value": {"unit": "c"}}])
        rec.sheet_set(0, "20")
        rec.sheet_submit()
        rec.answer("20度")
        rec.ask("哪个城市?", "北京")
        rec.confirmation(action="发送", target="文件传输助手", content="hi")
        rec.takeover("login", "请登录")
        rec.probe("version", "14")
        rec.finish("succeeded")
    assert open_journals(store) == []
    state = replay(load_events(store, ["r1"])["r1"])
    assert state.outcome == "succeeded"
    assert state.state == {"apps": {"weather": {"unit": "c"}}}
    assert state.sheet.answers == {"0": "20"} and state.sheet.submitted
    assert state.probes == {"version": "14"} and len(state.takeovers) == 1


def test_nothing_after_finish_and_no_second_recorder_for_a_run(store: Store) -> None:
    rec = Recorder(store, run_id="r1", suite="s", task="t").open()
    rec.finish("failed")
    with pytest.raises(RecorderError):
        rec.answer("late")
    with pytest.raises(RecorderError, match="already in the store"):
        Recorder(store, run_id="r1", suite="s", task="t").open()


def test_bad_values_are_refused_before_they_reach_the_journal(store: Store) -> None:
    with Recorder(store, run_id="r1", suite="s", task="t") as rec:
        with pytest.raises(Exception, match="reason"):
            rec.takeover("bored")
        rec.finish("succeeded")
    assert len(load_events(store, ["r1"])["r1"]) == 2


def test_a_crashed_harness_leaves_a_journal_that_recover_seals_as_an_open_run(store: Store) -> None:
    rec = Recorder(store, run_id="crash", suite="s", task="t", seal_on_exit=False).open()
    rec.step("tap")
    rec.answer("half")
    # Simulate the event being written when the process died: a torn last line.
    with open(rec.journal, "ab") as fh:
        fh.write(b'{"run_id":"crash","seq":3,"ts":0,"kind":"answ')
    # While the recorder (its lock) is alive, recover leaves the journal alone.
    assert recover(store)[0][1] is None
    rec.close()  # releases the lock without sealing, like a dead process
    [(path, report)] = recover(store)
    assert report is not None and report.new == 3
    state = replay(load_events(store, ["crash"])["crash"])
    assert state.answer == "half" and state.outcome is None  # open run
    assert recover(store) == []


def test_state_at_a_stored_run(store: Store) -> None:
    from trajectory import state_at

    with Recorder(store, run_id="r9", suite="s", task="t", clock=clock()) as rec:
        rec.answer("first")
        rec.answer("second")
        rec.finish("succeeded")
    assert state_at(store, "r9", 1).answer == "first"
    assert state_at(store, "r9").answer == "second" and state_at(store, "r9").outcome == "succeeded"
    assert state_at(str(store.loc), "r9", 2).outcome is None
