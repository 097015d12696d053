"""Hypothesis strategies for events and runs."""

from __future__ import annotations

import datetime as dt
from typing import Any

from hypothesis import strategies as st
from msgspec import UNSET

from trajectory import events as ev

UTC = dt.timezone.utc

run_ids = st.from_regex(r"[A-Za-z0-9._:-]{1,24}", fullmatch=True)
texts = st.text(max_size=30)
names = st.text(alphabet="abcdefghij_", min_size=1, max_size=8)
json_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-(10**9), 10**9),
    st.floats(allow_nan=False, allow_infinity=False, width=64), texts,
)
json_values = st.recursive(
    json_scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=3), st.dictionaries(names, children, max_size=3)
    ),
    max_leaves=8,
)
json_objects = st.dictionaries(names, json_values, max_size=4)
timestamps = st.one_of(
    st.datetimes(
        min_value=dt.datetime(2000, 1, 1), max_value=dt.datetime(2100, 1, 1), timezones=st.just(UTC)
    ),
    st.integers(946684800000, 4102444800000),
)
opt = lambda s: st.one_of(st.none(), s)  # noqa: E731
routes = st.builds(ev.Route, app=opt(names), path=opt(texts))
# A figure may be left out (UNSET), given as 0, or given: the three must stay apart in the store.
def given(s: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(st.just(UNSET), s)


counts = st.one_of(st.just(0), st.integers(0, 10**6))
millis = st.one_of(st.just(0.0), st.integers(0, 10**6).map(float))
usages = st.builds(ev.Usage, input_tokens=given(counts), output_tokens=given(counts), cached_tokens=given(counts))
timings = st.builds(ev.Timing, model_ms=given(millis), read_ms=given(millis), act_ms=given(millis), other_ms=given(millis))
scalars = st.one_of(texts, st.integers(-1000, 1000), st.floats(allow_nan=False, allow_infinity=False, width=64))


def _env(run_id: str, seq: int) -> dict[str, Any]:
    return {"run_id": run_id, "seq": seq}


def body(kind: str) -> st.SearchStrategy[dict[str, Any]]:
    """Kind-specific fields (everything but the envelope)."""
    common = {"extra": opt(json_objects)}
    table: dict[str, dict[str, st.SearchStrategy[Any]]] = {
        "run_started": {
            "suite": names, "task": names, "params": opt(json_objects), "goal": opt(texts),
            "batch": opt(names), "agent": opt(st.builds(ev.Agent, name=opt(names), model=opt(names))),
            "device": opt(names), "mode": given(st.sampled_from(["grounded", "text"])),
            "split": opt(st.sampled_from(["tune", "holdout"])),
            "pair": opt(st.builds(ev.Pair, id=names, round=st.sampled_from([1, 2]))),
            "state": opt(json_objects), "route": opt(routes),
        },
        "step_taken": {"action": names, "args": opt(json_objects), "thought": opt(texts), "usage": opt(usages), "timing": opt(timings)},
        "screen_read": {"text": texts, "app": opt(names), "route": opt(routes), "image": opt(names)},
        "state_changed": {"snapshot": json_objects},
        "sheet_changed": {"op": st.just("set"), "field": st.integers(0, 5), "value": st.one_of(scalars, st.lists(scalars, max_size=3))},
        "answer_given": {"text": texts},
        "user_asked": {"question": texts, "reply": opt(texts)},
        "confirmation_shown": {"action": opt(texts), "target": opt(texts), "content": opt(texts), "amount": opt(texts)},
        "takeover_requested": {"reason": st.sampled_from(["login", "captcha", "verification", "other"]), "text": opt(texts)},
        "probe_read": {"name": names, "value": texts},
        "judgement_recorded": {"judge": names, "model": names, "key": names, "output": json_objects},
        "run_finished": {
            "outcome": st.sampled_from(["succeeded", "failed", "confirmation", "takeover", "error", "timeout", "cancelled"]),
            "error": opt(texts), "skip_reason": opt(texts), "metrics": opt(json_objects),
        },
    }
    return st.fixed_dictionaries({**table[kind], **common})


TYPES = {t.__struct_config__.tag: t for t in ev.EVENT_TYPES}  # type: ignore[attr-defined]

MIDDLE_KINDS = [k for k in ev.KINDS if k not in ("run_started", "run_finished")]


@st.composite
def event_of(draw: st.DrawFn, kind: str, run_id: str | None = None, seq: int | None = None) -> ev.Event:
    fields = draw(body(kind))
    if kind == "state_changed" and draw(st.booleans()):
        fields = {"patch": [ev.PatchOp(op="add", path="/k", value=draw(json_values))], "extra": fields["extra"]}
    if kind == "sheet_changed" and draw(st.booleans()):
        fields = {"op": draw(st.sampled_from(["submit", "unsubmit"])), "extra": fields["extra"]}
    return TYPES[kind](
        run_id=run_id or draw(run_ids),
        seq=seq if seq is not None else (0 if kind == "run_started" else draw(st.integers(1, 1000))),
        ts=draw(timestamps),
        **fields,
    )


any_event = st.sampled_from(list(ev.KINDS)).flatmap(event_of)


@st.composite
def runs(draw: st.DrawFn, run_id: str | None = None, min_size: int = 0, max_size: int = 12, finished: bool | None = None) -> list[ev.Event]:
    """A valid run: run_started, middle events, maybe run_finished."""
    rid = run_id or draw(run_ids)
    out: list[ev.Event] = [draw(event_of("run_started", rid, 0))]
    kinds = draw(st.lists(st.sampled_from(MIDDLE_KINDS), min_size=min_size, max_size=max_size))
    for i, kind in enumerate(kinds, start=1):
        out.append(draw(event_of(kind, rid, i)))
    fin = draw(st.booleans()) if finished is None else finished
    if fin:
        out.append(draw(event_of("run_finished", rid, len(out))))
    return out
