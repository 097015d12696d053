"""The Inspect mapper on samples built in memory: every event of the agent's part is kept (as a
step, a state change or a screen read), and the store and state patches replay to the sample's
final store and state, whatever keys and values they hold."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("inspect_ai")

from inspect_ai._util.json import json_changes  # noqa: E402
from inspect_ai.event import (  # noqa: E402
    ApprovalEvent,
    CompactionEvent,
    InputEvent,
    SampleLimitEvent,
    SandboxEvent,
    StepEvent,
    StoreEvent,
    SubtaskEvent,
    ToolEvent,
)
from inspect_ai.log import EvalSample  # noqa: E402
from inspect_ai.tool import ToolCall  # noqa: E402
from inspect_logs import SAMPLES, T0, build_log, build_sample  # noqa: E402

from replay import replay  # noqa: E402
from trajectory import events as ev  # noqa: E402
from trajectory.importers.inspect_log import LogInfo, map_sample  # noqa: E402
from trajectory.ingest.plain import parse  # noqa: E402

INFO = LogInfo.of(build_log([]))


def replayed(events: list[dict[str, Any]]) -> Any:
    import json

    data = b"\n".join(json.dumps(e).encode() for e in events)
    return replay([p.event for p in parse(data, "mapped")])


def at(s: float) -> dict[str, Any]:
    return {"timestamp": T0 + dt.timedelta(seconds=s), "working_start": s}


OTHER_KINDS = [
    CompactionEvent(type="trim", tokens_before=900, tokens_after=300, **at(1)),
    SampleLimitEvent(type="message", message="message limit reached", limit=20, **at(2)),
    StepEvent(action="begin", type="solver", name="plan", **at(3)),
    SandboxEvent(action="exec", cmd="ls /", result=0, output="bin\netc", **at(4)),
    InputEvent(input="y", input_ansi="y", **at(5)),
    ApprovalEvent(message="run ls?", call=ToolCall(id="c1", function="bash", arguments={"cmd": "ls"}),
                  approver="human", decision="approve", **at(6)),
    SubtaskEvent(name="research", input={"q": "capitals"}, result="done", events=[
        ToolEvent(id="t9", function="search", arguments={"q": "Peru"}, result="Lima", **at(7.5)),
    ], **at(7)),
]


def test_every_kind_the_reader_knows_is_kept() -> None:
    sample = build_sample(SAMPLES[0], 1, minute=1)
    sample.events = sample.events[:3] + OTHER_KINDS + sample.events[3:]
    mapped = map_sample(INFO, sample)
    # Steps are the model and tool calls (the subtask's nested tool call among them); every
    # other kind is kept, in order, on the next step's extra.inspect.events (issue 23, item 3).
    steps = [e for e in mapped.events if e["kind"] == "step_taken"]
    assert [e["action"] for e in steps] == ["search", "model", "lookup", "model"]
    nested = steps[0]
    assert nested["extra"]["inspect"]["parent_event"] == OTHER_KINDS[-1].uuid
    notes = nested["extra"]["inspect"]["events"]
    assert [n["event"] for n in notes] == ["info", "compaction", "sample_limit", "step", "sandbox", "input",
                                           "approval", "subtask"]
    sandbox = notes[4]
    assert {k: sandbox[k] for k in ("action", "cmd", "result", "output")} == {
        "action": "exec", "cmd": "ls /", "result": 0, "output": "bin\netc"}
    assert "events" not in notes[7]  # the subtask's nested events are mapped on their own
    # everything replays
    state = replayed(mapped.events)
    assert state.outcome == "succeeded" and state.answer == "Paris"


json_keys = st.text(st.sampled_from("ab/~0 é"), min_size=1, max_size=4)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(json_keys, inner, max_size=3),
    max_leaves=8,
)
stores = st.dictionaries(json_keys, json_values, max_size=4)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(stores, min_size=1, max_size=5))
def test_store_patches_replay_to_the_final_store(history) -> None:
    sample = build_sample(SAMPLES[1], 2, minute=4)
    events = list(sample.events)
    before: dict[str, Any] = {}
    for i, after in enumerate(history):
        changes = json_changes(before, after)
        if changes:
            events.insert(3 + i, StoreEvent(changes=changes, **at(1 + i / 10)))
        before = after
    sample = EvalSample.model_validate({**sample.model_dump(), "events": [e.model_dump() for e in events],
                                        "store": history[-1]}, context={"deserializing": True})
    mapped = map_sample(INFO, sample)
    state = replayed(mapped.events)
    assert state.state["store"] == history[-1]
    # the patches were enough: no correcting patch of the store at the end
    final = [e for e in mapped.events if e.get("extra", {}).get("inspect", {}).get("event") == "final_state"]
    assert all(op["path"] != "/store" for e in final for op in e["patch"])
    for e in mapped.events:
        ev.decode(__import__("json").dumps(e))  # every mapped event is a valid event of the format
