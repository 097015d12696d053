"""Integers round-trip exactly (issue 24, section 8): what ingest accepts, export gives back as
it was written (an integer ``timing`` figure stays an integer, 2**53 + 1 is not rounded), and
what it could not keep is refused with FILE:LINE and the field."""

from __future__ import annotations

import io
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import line
from trajectory.errors import TrajError
from trajectory.reports.export import export_events
from trajectory.ingest.files import ingest_bytes
from trajectory.store.delta import Store

FIELDS = ("model_ms", "read_ms", "act_ms", "other_ms")


def round_trip(store: Store, timing: dict, usage: dict | None = None) -> dict:
    step = {"action": "tap", "timing": timing} | ({"usage": usage} if usage is not None else {})
    written = [line("r", 0, "run_started", suite="example", task="current_temp"), line("r", 1, "step_taken", **step),
               line("r", 2, "run_finished", outcome="succeeded")]
    ingest_bytes(store, "\n".join(written).encode(), "w.jsonl")
    sink = io.BytesIO()
    export_events(store, sink)
    return json.loads(sink.getvalue().splitlines()[1])


def test_integer_timing_and_a_number_past_2_53_come_back_as_written(store: Store) -> None:
    back = round_trip(store, {"model_ms": 2**53 + 1, "read_ms": 7, "act_ms": 0, "other_ms": 2.5},
                      {"input_tokens": 2**53 + 1, "output_tokens": 2**63 - 1})
    assert back["timing"] == {"model_ms": 9007199254740993, "read_ms": 7, "act_ms": 0, "other_ms": 2.5}
    assert all(type(back["timing"][k]) is int for k in ("model_ms", "read_ms", "act_ms"))
    assert back["usage"] == {"input_tokens": 9007199254740993, "output_tokens": 2**63 - 1}


@pytest.mark.parametrize("value", [2**63, 2**64, 10**30])
def test_a_number_ingest_cannot_keep_is_refused_naming_file_line_and_field(store: Store, value: int) -> None:
    with pytest.raises(TrajError) as info:
        round_trip(store, {"model_ms": value})
    assert str(info.value).startswith("w.jsonl:2: $.timing.model_ms:"), str(info.value)
    assert not store.has_table("events")  # the refused batch wrote nothing


@settings(max_examples=40, deadline=None)
@given(st.dictionaries(st.sampled_from(FIELDS),
                       st.one_of(st.integers(0, 2**63 - 1), st.floats(0, 1e300, allow_nan=False)), min_size=1))
def test_any_timing_ingest_accepts_is_exported_exactly(tmp_path_factory, timing: dict) -> None:
    back = round_trip(Store(tmp_path_factory.mktemp("t") / "s"), timing)["timing"]
    assert back == timing and {k: type(v) for k, v in back.items()} == {k: type(v) for k, v in timing.items()}
