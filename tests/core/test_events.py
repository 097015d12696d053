"""The event format: every kind round-trips; the spec's rules on bad input hold."""

from __future__ import annotations

import datetime as dt
import json

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trajectory import events as ev

from strategies import any_event, event_of

SPEC_EXAMPLE = [
    '{"run_id":"wx-001","seq":0,"ts":"2026-04-05T10:00:00+08:00","kind":"run_started","suite":"weather","task":"CheckCurrentTemp","params":{"city":"北京"},"mode":"grounded","state":{"apps":{"weather":{"cities":{"北京":{"temp":20}}}},"os":{"time":{"timestamp":1775354400000}}}}',
    '{"run_id":"wx-001","seq":1,"ts":"2026-04-05T10:00:03+08:00","kind":"step_taken","action":"open_app","args":{"app":"weather"},"usage":{"input_tokens":1200,"output_tokens":40}}',
    '{"run_id":"wx-001","seq":2,"ts":"2026-04-05T10:00:05+08:00","kind":"screen_read","text":"北京 20° 多云","route":{"app":"weather","path":"/"}}',
]


@pytest.mark.parametrize("kind", ev.KINDS)
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_every_kind_round_trips(kind: str, data: st.DataObject) -> None:
    e = data.draw(event_of(kind))
    assert ev.decode(ev.encode(e)) == e
    # The canonical form is stable: equal content, equal bytes.
    assert ev.canonical(ev.decode(ev.encode(e))) == ev.canonical(e)


@settings(max_examples=200, deadline=None)
@given(any_event)
def test_encoded_event_is_plain_json_with_its_kind(e: ev.Event) -> None:
    obj = json.loads(ev.encode(e))
    assert obj["kind"] == type(e).__struct_config__.tag
    assert obj["run_id"] == e.run_id and obj["seq"] == e.seq


def test_spec_example_decodes() -> None:
    events = [ev.decode(line) for line in SPEC_EXAMPLE]
    assert [type(e).__name__ for e in events] == ["RunStarted", "StepTaken", "ScreenRead"]
    assert events[0].ts == dt.datetime(2026, 4, 5, 2, 0, tzinfo=dt.timezone.utc)
    assert events[0].mode == "grounded"


def test_same_instant_in_two_forms_is_the_same_event() -> None:
    a = ev.decode('{"run_id":"r","seq":1,"ts":"2026-04-05T10:00:00+08:00","kind":"answer_given","text":"x"}')
    b = ev.decode('{"run_id":"r","seq":1,"ts":1775354400000,"kind":"answer_given","text":"x"}')
    c = ev.decode('{"run_id":"r","seq":1,"ts":"2026-04-05T02:00:00Z","kind":"answer_given","text":"x"}')
    assert a == b == c
    assert ev.canonical(a) == ev.canonical(b) == ev.canonical(c)


def test_omitted_default_equals_default() -> None:
    a = ev.decode('{"run_id":"r","seq":0,"ts":0,"kind":"run_started","suite":"s","task":"t"}')
    b = ev.decode('{"run_id":"r","seq":0,"ts":0,"kind":"run_started","suite":"s","task":"t","mode":"grounded"}')
    assert ev.canonical(a) == ev.canonical(b)


@pytest.mark.parametrize(
    ("line", "needle"),
    [
        ('{"run_id":"r","seq":1,"ts":0,"kind":"teleport"}', "$.kind"),
        ('{"run_id":"r","seq":1,"ts":0,"kind":"answer_given","text":"x","colour":1}', "colour"),
        ('{"run_id":"r","seq":"1","ts":0,"kind":"answer_given","text":"x"}', "$.seq"),
        ('{"run_id":"r","seq":-1,"ts":0,"kind":"answer_given","text":"x"}', "$.seq"),
        ('{"run_id":"bad id","seq":1,"ts":0,"kind":"answer_given","text":"x"}', "$.run_id"),
        ('{"run_id":"r","seq":1,"ts":"2026-04-05T10:00:00","kind":"answer_given","text":"x"}', "$.ts"),
        ('{"run_id":"r","seq":1,"ts":0,"kind":"step_taken","action":"tap","usage":{"tokens":3}}', "tokens"),
        ('{"run_id":"r","seq":1,"ts":0,"kind":"route_changed"}', "$.kind"),
        ('{"run_id":"r","seq":1,"ts":0,"kind":"state_changed"}', "snapshot"),
        ('{"run_id":"r","seq":1,"ts":0,"kind":"state_changed","snapshot":{},"patch":[]}', "snapshot"),
        ('{"run_id":"r","seq":1,"ts":0,"kind":"sheet_changed","op":"set","value":"1"}', "field"),
        ('{"run_id":"r","seq":1,"ts":0,"kind":"sheet_changed","op":"set","field":0}', "value"),
        ('{"run_id":"r","seq":1,"ts":0,"kind":"takeover_requested","reason":"bored"}', "$.reason"),
        ('{"run_id":"r","seq":1,"ts":0,"kind":"state_changed","patch":[{"op":"add","path":"/a"}]}', "value"),
    ],
)
def test_bad_events_are_refused(line: str, needle: str) -> None:
    with pytest.raises(msgspec.ValidationError) as info:
        ev.decode(line)
    assert needle in str(info.value)


def test_schema_describes_every_kind() -> None:
    schema = json.dumps(ev.json_schema())
    for kind in ev.KINDS:
        assert f'"{kind}"' in schema
