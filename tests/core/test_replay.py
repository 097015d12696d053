"""The fold: pure, continuable, strict about seq; JSON Patch per RFC 6902."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from replay import ReplayError, apply, replay, state_at, view
from replay.patch import PatchError, apply_patch
from replay.state import RunState, Screens
from trajectory import events as ev

from strategies import runs


@settings(max_examples=150, deadline=None)
@given(run=runs(), cut=st.integers(1, 20))
def test_replay_of_a_plus_b_equals_replay_of_a_continued_with_b(run: list[ev.Event], cut: int) -> None:
    cut = min(cut, len(run))
    a, b = run[:cut], run[cut:]
    assert replay(run) == replay(b, start=replay(a))


@settings(max_examples=40, deadline=None)
@given(run=runs(), cut=st.tuples(st.integers(-14, 14), st.integers(-14, 14)))
def test_screens_as_columns_are_the_tuple_of_their_screens(run: list[ev.Event], cut: tuple[int, int]) -> None:
    # The fold's screens are columns (replay.state.Screens); as a sequence they are the tuple of
    # Screen objects they replace: the same items, slices, equality, hash and pickle.
    import pickle

    screens = replay(run).screens if run else Screens()
    whole = tuple(screens)
    assert len(screens) == len(whole) and list(screens.texts) == [s.text for s in whole]
    assert screens == whole and whole == screens and hash(screens) == hash(Screens.of(whole))
    assert tuple(screens[cut[0] : cut[1]]) == whole[cut[0] : cut[1]]
    assert screens[: len(whole) // 2] + whole[len(whole) // 2 :] == screens
    assert pickle.loads(pickle.dumps(screens)) == screens
    # A RunState given a plain tuple of screens (tests, suites' own matrices) holds them as columns.
    state = RunState(run_id="r", screens=whole)
    assert type(state.screens) is Screens and state.screens == whole


@settings(max_examples=100, deadline=None)
@given(run=runs(min_size=1))
def test_state_at_is_a_prefix_replay(run: list[ev.Event]) -> None:
    for n in range(len(run)):
        s = state_at(run, n)
        assert s.seq == n
        assert s == replay(run[: n + 1])


@settings(max_examples=100, deadline=None)
@given(run=runs())
def test_outcome_is_null_until_run_finished(run: list[ev.Event]) -> None:
    state = replay(run)
    finished = isinstance(run[-1], ev.RunFinished)
    assert (state.outcome is not None) == finished
    assert view(state)["outcome"] == state.outcome


def _start(**kw) -> ev.RunStarted:
    return ev.RunStarted(run_id="r", seq=0, ts=0, suite="s", task="t", **kw)


def test_skipped_seq_raises_with_expected_and_actual() -> None:
    s = replay([_start()])
    with pytest.raises(ReplayError) as info:
        apply(s, ev.AnswerGiven(run_id="r", seq=2, ts=0, text="x"))
    assert info.value.expected == 1 and info.value.actual == 2


def test_nothing_after_run_finished() -> None:
    s = replay([_start(), ev.RunFinished(run_id="r", seq=1, ts=0, outcome="succeeded")])
    with pytest.raises(ReplayError):
        apply(s, ev.AnswerGiven(run_id="r", seq=2, ts=0, text="x"))


def test_state_fields_follow_the_spec() -> None:
    events = [
        _start(state={"apps": {"clock": {"alarms": [{"id": 1, "on": False}]}}}, route=ev.Route(app="launcher", path="/")),
        ev.StepTaken(run_id="r", seq=1, ts=0, action="tap", usage=ev.Usage(input_tokens=10, output_tokens=2), timing=ev.Timing(model_ms=5)),
        ev.ScreenRead(run_id="r", seq=2, ts=0, text="闹钟 7:00", app="clock", route=ev.Route(app="clock", path="/alarms")),
        ev.StateChanged(run_id="r", seq=3, ts=0, patch=[ev.PatchOp(op="replace", path="/apps/clock/alarms/0/on", value=True)]),
        ev.SheetChanged(run_id="r", seq=4, ts=0, op="set", field=0, value="7:00"),
        ev.SheetChanged(run_id="r", seq=5, ts=0, op="submit"),
        ev.SheetChanged(run_id="r", seq=6, ts=0, op="set", field=1, value=["a", "b"]),
        ev.ScreenRead(run_id="r", seq=7, ts=0, text="no route here"),
        ev.AnswerGiven(run_id="r", seq=8, ts=0, text="first"),
        ev.AnswerGiven(run_id="r", seq=9, ts=0, text="second"),
        ev.UserAsked(run_id="r", seq=10, ts=0, question="哪个?", reply="第一个"),
        ev.ProbeRead(run_id="r", seq=11, ts=0, name="version", value="14"),
        ev.SheetChanged(run_id="r", seq=12, ts=0, op="unsubmit"),
    ]
    s = replay(events)
    assert s.initial_state == {"apps": {"clock": {"alarms": [{"id": 1, "on": False}]}}}
    assert s.state == {"apps": {"clock": {"alarms": [{"id": 1, "on": True}]}}}
    assert s.route == ev.Route(app="clock", path="/alarms")  # a read without a route keeps the last one
    assert s.sheet.answers == {"0": "7:00", "1": ["a", "b"]}
    assert s.sheet.submitted is False  # the toggle: unsubmit after submit
    assert s.answer == "second"
    assert [x.text for x in s.screens] == ["闹钟 7:00", "no route here"]
    assert s.probes == {"version": "14"}
    assert s.totals.input_tokens == 10 and s.totals.model_ms == 5
    assert s.outcome is None
    # The fold never mutates what it was given.
    assert events[0].state == {"apps": {"clock": {"alarms": [{"id": 1, "on": False}]}}}


@pytest.mark.parametrize(
    ("doc", "ops", "result"),
    [
        ({"a": 1}, [{"op": "add", "path": "/b", "value": 2}], {"a": 1, "b": 2}),
        ({"a": [1, 2]}, [{"op": "add", "path": "/a/1", "value": 9}], {"a": [1, 9, 2]}),
        ({"a": [1, 2]}, [{"op": "add", "path": "/a/-", "value": 3}], {"a": [1, 2, 3]}),
        ({"a": 1, "b": 2}, [{"op": "remove", "path": "/a"}], {"b": 2}),
        ({"a": 1}, [{"op": "replace", "path": "/a", "value": 5}], {"a": 5}),
        ({"a": {"x": 1}}, [{"op": "move", "from": "/a/x", "path": "/y"}], {"a": {}, "y": 1}),
        ({"a": [1]}, [{"op": "copy", "from": "/a/0", "path": "/b"}], {"a": [1], "b": 1}),
        ({"a": 1}, [{"op": "test", "path": "/a", "value": 1}], {"a": 1}),
        ({"a/b": 1, "m~n": 2}, [{"op": "replace", "path": "/a~1b", "value": 3}, {"op": "remove", "path": "/m~0n"}], {"a/b": 3}),
        ({"a": 1}, [{"op": "replace", "path": "", "value": [1]}], [1]),
    ],
)
def test_patch_operations(doc, ops, result) -> None:
    before = repr(doc)
    assert apply_patch(doc, ops) == result
    assert repr(doc) == before  # input untouched


@pytest.mark.parametrize(
    ("doc", "ops"),
    [
        ({"a": 1}, [{"op": "remove", "path": "/b"}]),
        ({"a": 1}, [{"op": "replace", "path": "/b", "value": 1}]),
        ({"a": [1]}, [{"op": "add", "path": "/a/5", "value": 1}]),
        ({"a": [1]}, [{"op": "add", "path": "/a/01", "value": 1}]),
        ({"a": 1}, [{"op": "test", "path": "/a", "value": True}]),
        ({"a": {"b": 1}}, [{"op": "move", "from": "/a", "path": "/a/b/c"}]),
        ({"a": 1}, [{"op": "add", "path": "/a/b", "value": 1}]),
    ],
)
def test_patch_errors(doc, ops) -> None:
    with pytest.raises(PatchError):
        apply_patch(doc, ops)
