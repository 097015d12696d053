"""The event interchange format (format 1): one msgspec tagged union, tag field ``kind``.

This module is the one declaration of every event kind and field (the format is described for
people in ``docs/events.md``). Fields may be added with defaults; none is renamed, retyped or
retagged. The tag is stored on disk, so it is written out explicitly on every class and never
derived from a class name.

Each field's metadata (:func:`doc`) says, besides what the field means, how the shell stores
it: the Arrow schema of the events table, the typed columns built at ingest, the columns the
batch replay aggregates, the ``runs`` view and the CLI's one-line summary are all derived from
it (``trajectory/columns.py``, which imports this module; this one imports nothing of the
shell). Adding a field is one edit here plus its tests.

This is a leaf module: it imports msgspec and the standard library only, so the pure core
(``replay/``, ``judges/``, ``suites/``) can import it without loading the store.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import re
from typing import Annotated, Any, ClassVar, Literal, Union

import msgspec
from msgspec import UNSET, Meta, Struct, UnsetType

FORMAT = 1

UTC = _dt.timezone.utc

RunId = Annotated[
    str,
    Meta(
        min_length=1,
        max_length=128,
        pattern=r"^[A-Za-z0-9._:-]+$",
        description="Unique across the store: 1-128 chars of [A-Za-z0-9._:-].",
    ),
]
# The store keeps integers in 64-bit columns: a larger one is refused at parse time, with its
# path, instead of failing the whole batch later inside the table writer.
INT64_MAX = 2**63 - 1
Seq = Annotated[int, Meta(ge=0, le=INT64_MAX, description="0 is run_started; gapless and strictly increasing.")]
Count = Annotated[int, Meta(ge=0, le=INT64_MAX)]
# An RFC 3339 string must carry its offset: a naive time would be read in the judging machine's
# zone, which differs between machines, and the same run would then have two histories.
Timestamp = Union[
    Annotated[_dt.datetime, Meta(tz=True)],
    Annotated[int, Meta(description="Epoch milliseconds.")],
]
Json = dict[str, Any]
Scalar = Union[str, int, float]


_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=UTC)


_NO_DEFAULT = object()


def doc(
    description: str,
    *,
    column: str | None = None,
    run: str | None = None,
    figure: bool = False,
    json: bool = False,
    show: bool = False,
    default: Any = _NO_DEFAULT,
) -> Meta:
    """A field's description and how the shell stores it.

    ``column``: the field gets a typed column of this name in the events table (for a small
    object, the prefix of its fields' columns: ``route`` -> ``route_app``, ``route_path``; ``""``
    for no prefix). ``run``: a ``run_started`` field copied onto every event of its run and
    shown in the ``runs`` view under this name. ``figure``: a number summed per run (``runs``
    view, replayed totals). ``json``: the column holds the value as JSON text. ``show``: part of
    the one-line summary ``traj show`` prints. ``default``: what an absent field reads as, for
    the fields that keep whether they were given (their msgspec default is ``UNSET``).
    """
    extra: dict[str, Any] = {}
    if column is not None:
        extra["column"] = column
    if run is not None:
        extra["run"] = run
    if figure:
        extra["figure"] = True
    if json:
        extra["json"] = True
    if show:
        extra["show"] = True
    if default is not _NO_DEFAULT:
        extra["default"] = default
    return Meta(description=description, extra=extra or None)


_STRUCT = dict(frozen=True, kw_only=True, forbid_unknown_fields=True, omit_defaults=True)


class Agent(Struct, **_STRUCT):
    """Who ran the attempt; closed so that a typo in a key is refused, not dropped."""

    name: Annotated[str | None, doc("Agent or harness name.", column="name", run="agent")] = None
    model: Annotated[str | None, doc("Model identifier the agent used.", column="model", run="model")] = None


class Pair(Struct, **_STRUCT):
    """Links a first attempt and a second, similar attempt (self-evolution reuse probes)."""

    id: Annotated[str, doc("Pair identifier shared by both rounds.", column="id", run="pair_id")]
    round: Annotated[
        Literal[1, 2], doc("1 for the first attempt, 2 for the similar second one.", column="round", run="pair_round")
    ]


class Route(Struct, **_STRUCT):
    """Where the agent is: an app and a path inside it."""

    app: Annotated[str | None, doc("App (package or simulator app name).", column="app")] = None
    path: Annotated[str | None, doc("Path or screen inside the app.", column="path")] = None


# Usage and timing figures keep whether they were given: an explicit 0 is exported as 0, an
# absent figure stays absent, and both read as 0.
class Usage(Struct, **_STRUCT):
    """Token counts of the model call behind one step; summed by replay for cost reports."""

    input_tokens: Annotated[
        Count | UnsetType, doc("Prompt tokens.", column="input_tokens", figure=True, default=0)
    ] = UNSET
    output_tokens: Annotated[
        Count | UnsetType, doc("Completion tokens.", column="output_tokens", figure=True, default=0)
    ] = UNSET
    cached_tokens: Annotated[
        Count | UnsetType,
        doc("Prompt tokens served from a cache (counted inside input_tokens too).",
            column="cached_tokens", figure=True, default=0),
    ] = UNSET


# An integer stays an integer (5 is exported as 5, 2**53 + 1 exactly), a fraction a float: a
# figure comes back as it was written.
Millis = Union[Annotated[int, Meta(ge=0, le=2**63 - 1)], Annotated[float, Meta(ge=0)]]


class Timing(Struct, **_STRUCT):
    """Milliseconds spent in one step, split the way reports show where time went."""

    model_ms: Annotated[
        Millis | UnsetType, doc("Waiting for the model.", column="model_ms", figure=True, default=0.0)
    ] = UNSET
    read_ms: Annotated[
        Millis | UnsetType, doc("Reading the screen.", column="read_ms", figure=True, default=0.0)
    ] = UNSET
    act_ms: Annotated[
        Millis | UnsetType, doc("Performing the action.", column="act_ms", figure=True, default=0.0)
    ] = UNSET
    other_ms: Annotated[
        Millis | UnsetType, doc("Everything else.", column="other_ms", figure=True, default=0.0)
    ] = UNSET


class PatchOp(Struct, **_STRUCT):
    """One RFC 6902 JSON Patch operation."""

    op: Literal["add", "remove", "replace", "move", "copy", "test"]
    path: Annotated[str, doc("RFC 6901 JSON Pointer ('' or starting with '/').")]
    value: Any | UnsetType = UNSET
    from_: str | UnsetType = msgspec.field(default=UNSET, name="from")

    def __post_init__(self) -> None:
        if self.path and not self.path.startswith("/"):
            raise ValueError(f"path: JSON Pointer must start with '/', got {self.path!r}")
        if self.op in ("add", "replace", "test") and self.value is UNSET:
            raise ValueError(f"value: required for op '{self.op}'")
        if self.op in ("move", "copy"):
            if self.from_ is UNSET:
                raise ValueError(f"from: required for op '{self.op}'")
            if self.from_ and not self.from_.startswith("/"):
                raise ValueError(f"from: JSON Pointer must start with '/', got {self.from_!r}")


class Event(Struct, tag_field="kind", **_STRUCT):
    """Envelope shared by every kind. ``ts`` is normalised to an aware UTC datetime."""

    run_id: Annotated[RunId, doc("The run this event belongs to: 1-128 characters of [A-Za-z0-9._:-], unique across the store.", column="run_id")]
    seq: Annotated[Seq, doc("Position in the run: 0 is run_started; gapless and strictly increasing.", column="seq")]
    ts: Annotated[
        Timestamp, doc("RFC 3339 string with offset, or integer epoch milliseconds.", column="ts")
    ]
    extra: Annotated[Json | None, doc("Anything else the harness wants kept.")] = None

    def __post_init__(self) -> None:
        ts = self.ts
        if isinstance(ts, int):
            # Epoch milliseconds; bounded so that datetime conversion cannot overflow.
            if not -62135596800000 <= ts <= 253402300799999:
                raise ValueError(f"ts: epoch milliseconds out of range: {ts}")
            ts = _EPOCH + _dt.timedelta(milliseconds=ts)
        elif ts.tzinfo is UTC:
            return  # already normalised
        else:
            try:
                ts = ts.astimezone(UTC)
            except OverflowError:  # 9999-12-31T23:00:00-05:00 is past the last UTC year
                raise ValueError(f"ts: out of range in UTC: {ts.isoformat()}") from None
        msgspec.structs.force_setattr(self, "ts", ts)

    @property
    def ts_us(self) -> int:
        """UTC microseconds since the epoch: the stored form of ``ts``."""
        return ts_to_us(self.ts)  # type: ignore[arg-type]


class RunStarted(Event, tag="run_started"):
    """The run begins; exactly one, at seq 0."""

    suite: Annotated[str, doc("Suite the task belongs to.", column="suite", run="suite", show=True)]
    task: Annotated[str, doc("Task id in the suite.", column="task", run="task", show=True)]
    params: Annotated[Json | None, doc("Task parameters.", show=True)] = None
    goal: Annotated[str | None, doc("The instruction as shown to the agent.")] = None
    batch: Annotated[str | None, doc("Name of the evaluation batch this run belongs to.", column="batch", run="batch")] = None
    agent: Annotated[Agent | None, doc("Agent name and model.", column="agent")] = None
    device: Annotated[str | None, doc("Device or simulator the run used.", column="device", run="device")] = None
    mode: Annotated[
        Literal["grounded", "text"] | UnsetType,
        doc("Evaluation mode: AnswerSheet form or free text.", column="mode", run="mode", default="grounded"),
    ] = UNSET
    split: Annotated[
        Literal["tune", "holdout"] | None, doc("Pool of the run; default: the task's own.", column="split", run="split")
    ] = None
    pair: Annotated[Pair | None, doc("Links a first and a second, similar attempt.", column="pair")] = None
    state: Annotated[Json | None, doc("Initial world state.")] = None
    route: Annotated[Route | None, doc("Initial route.", column="route")] = None


class SpanRef(Struct, **_STRUCT):
    """One span a harness opened around steps (a solver, a tool's execution, a sub-agent): the
    structure of its log, kept on the steps it frames rather than as steps of its own."""

    id: Annotated[str, doc("The span's id in the harness's log or trace.")]
    name: Annotated[str | None, doc("Its name (Inspect: the solver or tool; OTel: the span's name).")] = None
    type: Annotated[str | None, doc("Its type (Inspect: solver, tool, agent ...; OTel: the GenAI operation).")] = None


class StepTaken(Event, tag="step_taken"):
    """One agent action."""

    runs_count: ClassVar[str] = "steps"  # the runs view counts them under this name

    action: Annotated[
        str, doc("Action name, free vocabulary (tap, type, search, call_tool ...).", column="action", show=True)
    ]
    args: Annotated[Json | None, doc("Action arguments.", show=True)] = None
    thought: Annotated[str | None, doc("The agent's stated reasoning for the step.")] = None
    usage: Annotated[Usage | None, doc("Token usage of the model call.", column="")] = None
    timing: Annotated[Timing | None, doc("Milliseconds by phase.", column="")] = None
    spans: Annotated[
        list[SpanRef] | None,
        doc("The spans the step ran inside, outermost first, each {id, name, type} (imported Inspect logs "
            "and OTel traces): structure, not steps."),
    ] = None


class ScreenRead(Event, tag="screen_read"):
    """One observation of the screen."""

    runs_count: ClassVar[str] = "screens"

    text: Annotated[str, doc("What the agent read on screen.", column="text", show=True)]
    app: Annotated[str | None, doc("Package or app name on screen.", column="app", show=True)] = None
    route: Annotated[Route | None, doc("Route at the time of the read.", column="route")] = None
    image: Annotated[
        str | None, doc("Content hash or relative reference, never bytes.", column="image")
    ] = None


class StateChanged(Event, tag="state_changed"):
    """The simulator's world state changed: a whole snapshot or an RFC 6902 patch."""

    snapshot: Annotated[Json | None, doc("The whole world state.")] = None
    patch: Annotated[
        list[PatchOp] | None, doc("RFC 6902 patch against the current state.", show=True)
    ] = None

    def __post_init__(self) -> None:
        super().__post_init__()
        if (self.snapshot is None) == (self.patch is None):
            raise ValueError("snapshot: exactly one of 'snapshot' or 'patch' is required")


class SheetChanged(Event, tag="sheet_changed"):
    """The AnswerSheet form changed."""

    op: Annotated[Literal["set", "submit", "unsubmit"], doc("What changed.", column="op", show=True)]
    field: Annotated[Count | None, doc("Field index; required for set.", column="field", show=True)] = None
    value: Annotated[
        Scalar | list[Scalar] | None,
        doc("Field value; a list for a repeatable field.", column="value", json=True, show=True),
    ] = None

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.op == "set":
            if self.field is None:
                raise ValueError("field: required for op 'set'")
            if self.value is None:
                raise ValueError("value: required for op 'set'")


class AnswerGiven(Event, tag="answer_given"):
    """The agent's final natural-language answer."""

    text: Annotated[str, doc("Answer text.", column="text", show=True)]


class UserAsked(Event, tag="user_asked"):
    """The agent asked the user a question."""

    question: Annotated[str, doc("The question.", column="question", show=True)]
    reply: Annotated[str | None, doc("The (automatic) reply it got.", column="reply", show=True)] = None


class ConfirmationShown(Event, tag="confirmation_shown"):
    """The agent stopped at a confirmation card before an irreversible act."""

    action: Annotated[str | None, doc("What would be done.", column="action", show=True)] = None
    target: Annotated[str | None, doc("To whom or what.", show=True)] = None
    content: Annotated[str | None, doc("The content.")] = None
    amount: Annotated[str | None, doc("How much.", show=True)] = None


class TakeoverRequested(Event, tag="takeover_requested"):
    """The agent handed control to the user."""

    reason: Annotated[
        Literal["login", "captcha", "verification", "other"], doc("Why.", column="reason", show=True)
    ]
    text: Annotated[str | None, doc("Screen text at that moment.", column="text")] = None


class ProbeRead(Event, tag="probe_read"):
    """A whitelisted probe's value read before or after the run."""

    name: Annotated[str, doc("Probe name.", column="name", show=True)]
    value: Annotated[str, doc("Probe value.", column="value", json=True, show=True)]


class JudgementRecorded(Event, tag="judgement_recorded"):
    """An LLM judge's answer, kept so that re-judging replays it instead of asking again."""

    judge: Annotated[str, doc("Judge name, e.g. selfevo.L3.", column="name", show=True)]
    model: Annotated[str, doc("Model that answered.", show=True)]
    key: Annotated[str, doc("Hash of the judge's prompt.")]
    output: Annotated[Json, doc("The judge's answer.")]


class RunFinished(Event, tag="run_finished"):
    """The run ended; nothing may follow it."""

    outcome: Annotated[
        Literal["succeeded", "failed", "confirmation", "takeover", "error", "timeout", "cancelled"],
        doc("How the run ended.", column="outcome", run="outcome", show=True),
    ]
    error: Annotated[str | None, doc("Harness error message.")] = None
    skip_reason: Annotated[
        str | None, doc("Why the harness did not attempt the task.", run="skip_reason", show=True)
    ] = None
    metrics: Annotated[Json | None, doc("Run metrics.")] = None


EVENT_TYPES: tuple[type[Event], ...] = (
    RunStarted,
    StepTaken,
    ScreenRead,
    StateChanged,
    SheetChanged,
    AnswerGiven,
    UserAsked,
    ConfirmationShown,
    TakeoverRequested,
    ProbeRead,
    JudgementRecorded,
    RunFinished,
)
AnyEvent = Union[
    RunStarted,
    StepTaken,
    ScreenRead,
    StateChanged,
    SheetChanged,
    AnswerGiven,
    UserAsked,
    ConfirmationShown,
    TakeoverRequested,
    ProbeRead,
    JudgementRecorded,
    RunFinished,
]
KINDS: tuple[str, ...] = tuple(t.__struct_config__.tag for t in EVENT_TYPES)  # type: ignore[misc]

DECODER = msgspec.json.Decoder(AnyEvent)
_ENCODER = msgspec.json.Encoder()
_SORTED = msgspec.json.Encoder(order="sorted")
_PLAIN = msgspec.json.Decoder()


def _kept_fields(cls: type[Struct]) -> dict[str, Any]:
    """The fields of ``cls`` that keep whether they were given (default ``UNSET``), with what
    an absent one reads as."""
    out = {}
    for f in msgspec.inspect.type_info(cls).fields:  # type: ignore[attr-defined]
        extra = getattr(f.type, "extra", None) or {}
        if "default" in extra:
            out[f.name] = extra["default"]
    return out


def _object_fields(cls: type[Struct]) -> tuple[str, ...]:
    """The fields of ``cls`` holding a small object that has fields of that kind."""
    hints = {f.name: f for f in msgspec.inspect.type_info(cls).fields}  # type: ignore[attr-defined]
    out = []
    for name, f in hints.items():
        t = getattr(f.type, "type", f.type)
        members = t.types if isinstance(t, msgspec.inspect.UnionType) else (t,)
        if any(isinstance(m, msgspec.inspect.StructType) and _kept_fields(m.cls) for m in members):
            out.append(name)
    return tuple(out)


_KEPT: dict[type, dict[str, Any]] = {}
_OBJECTS: dict[type, tuple[str, ...]] = {}
for _t in (*EVENT_TYPES, Agent, Pair, Route, Usage, Timing):
    _KEPT[_t] = _kept_fields(_t)
    _OBJECTS[_t] = _object_fields(_t)


def value(obj: Struct, name: str) -> Any:
    """A field's value, or what it reads as when it was not given (``UNSET`` -> its default).

    Replay and the shell read fields that keep their presence through this, never directly.
    """
    v = getattr(obj, name)
    return _KEPT[type(obj)][name] if v is UNSET else v


def _kept_paths(cls: type[Struct]) -> tuple[tuple[tuple[str, ...], str, Any], ...]:
    """(path of the object, key, default) of every field of ``cls`` or of its small objects
    that keeps whether it was given."""
    out = [((), f, d) for f, d in _KEPT[cls].items()]
    for name in _OBJECTS[cls]:
        field = next(f for f in msgspec.inspect.type_info(cls).fields if f.name == name)  # type: ignore[attr-defined]
        t = field.type
        while isinstance(t, (msgspec.inspect.Metadata, msgspec.inspect.UnionType)):
            t = next(m for m in t.types if isinstance(m, msgspec.inspect.StructType)) if isinstance(
                t, msgspec.inspect.UnionType) else t.type
        sub = {f.name: f.encode_name for f in msgspec.inspect.type_info(t.cls).fields}  # type: ignore[attr-defined]
        out += [((field.encode_name,), sub[f], d) for f, d in _KEPT[t.cls].items()]
    return tuple(out)


_KEPT_PATHS = {t: _kept_paths(t) for t in EVENT_TYPES}


def _canonical(event: Event, data: bytes) -> bytes:
    """Sorted keys, and every field given with its default value left out: the form in which
    "an omitted default equals the default" (the spec's rule for comparing content). ``data``
    is the event's wire form."""
    paths = _KEPT_PATHS[type(event)]
    if not paths or not _MARKS.search(data):
        return _SORTED.encode(event)
    obj = _PLAIN.decode(data)
    for parent, key, default in paths:
        holder = obj
        for part in parent:
            holder = holder.get(part) if isinstance(holder, dict) else None
        if isinstance(holder, dict) and key in holder:
            value = holder[key]
            if value == default and not isinstance(value, bool):
                del holder[key]
    return _SORTED.encode(obj)


def decode(line: bytes | str) -> Event:
    """Parse one JSON line into its event; raises msgspec errors (callers add file and line)."""
    return DECODER.decode(line)


def encode(event: Event) -> bytes:
    """The wire form of one event: spec field order, ts in UTC, and every field as it was given
    (an explicit 0 stays, an absent field stays absent)."""
    return _ENCODER.encode(event)


def stored(event: Event) -> bytes:
    """The form kept in the store: the wire form (open objects keep their key order)."""
    return _ENCODER.encode(event)


def canonical(event: Event) -> bytes:
    """The content of an event for comparisons: sorted keys, defaults left out, so that two
    events with equal content encode to equal bytes however they were written."""
    return _canonical(event, _ENCODER.encode(event))


def _default_marks() -> tuple[bytes, ...]:
    """Bytes that an event given a field with its default value must contain (``"mode":
    "grounded"``, ``"cached_tokens":0``): a cheap test before the exact one in _identity."""
    alternatives = set()
    for kept in _KEPT.values():
        for name, default in kept.items():
            value = msgspec.json.encode(default).removesuffix(b".0")
            alternatives.add(b'"' + name.encode() + b'":' + value)
    return tuple(sorted(alternatives))


DEFAULT_MARKS = _default_marks()
_MARKS = re.compile(b"|".join(re.escape(m) for m in DEFAULT_MARKS) or b"(?!)")


def stored_and_canonical(event: Event) -> tuple[bytes, bytes]:
    """:func:`stored` and :func:`canonical` of one event."""
    data = _ENCODER.encode(event)
    return data, _canonical(event, data)


def content_hash(data: bytes) -> str:
    """Short stable digest of a canonical encoding, for idempotency checks."""
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def ts_to_us(ts: _dt.datetime) -> int:
    """UTC microseconds since the epoch, exactly (no float rounding)."""
    delta = ts - _dt.datetime(1970, 1, 1, tzinfo=UTC)
    return (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds


def us_to_ts(us: int) -> _dt.datetime:
    """Inverse of :func:`ts_to_us`."""
    return _dt.datetime(1970, 1, 1, tzinfo=UTC) + _dt.timedelta(microseconds=us)


def json_schema() -> dict[str, Any]:
    """JSON Schema of one event line, generated from the same types the decoder uses."""
    return msgspec.json.schema(AnyEvent)
