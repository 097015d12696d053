"""The event interchange format (format 1): one msgspec tagged union, tag field ``kind``.

This module is the public contract of ``shared/spec/events.md``. Fields may be added with
defaults; none is renamed, retyped or retagged. The tag is stored on disk, so it is written out
explicitly on every class and never derived from a class name.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
from typing import Annotated, Any, Literal, Union

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


def _doc(description: str) -> Meta:
    return Meta(description=description)


class Agent(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, omit_defaults=True):
    """Who ran the attempt; closed so that a typo in a key is refused, not dropped."""

    name: Annotated[str | None, _doc("Agent or harness name.")] = None
    model: Annotated[str | None, _doc("Model identifier the agent used.")] = None


class Pair(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, omit_defaults=True):
    """Links a first attempt and a second, similar attempt (self-evolution reuse probes)."""

    id: Annotated[str, _doc("Pair identifier shared by both rounds.")]
    round: Annotated[Literal[1, 2], _doc("1 for the first attempt, 2 for the similar second one.")]


class Route(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, omit_defaults=True):
    """Where the agent is: an app and a path inside it."""

    app: Annotated[str | None, _doc("App (package or simulator app name).")] = None
    path: Annotated[str | None, _doc("Path or screen inside the app.")] = None


class Usage(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, omit_defaults=True):
    """Token counts of the model call behind one step; summed by replay for cost reports."""

    input_tokens: Count = 0
    output_tokens: Count = 0
    cached_tokens: Count = 0


class Timing(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, omit_defaults=True):
    """Milliseconds spent in one step, split the way reports show where time went."""

    model_ms: Annotated[float, Meta(ge=0)] = 0
    read_ms: Annotated[float, Meta(ge=0)] = 0
    act_ms: Annotated[float, Meta(ge=0)] = 0
    other_ms: Annotated[float, Meta(ge=0)] = 0


class PatchOp(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, omit_defaults=True):
    """One RFC 6902 JSON Patch operation."""

    op: Literal["add", "remove", "replace", "move", "copy", "test"]
    path: Annotated[str, _doc("RFC 6901 JSON Pointer ('' or starting with '/').")]
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


class Event(
    Struct,
    frozen=True,
    kw_only=True,
    forbid_unknown_fields=True,
    omit_defaults=True,
    tag_field="kind",
):
    """Envelope shared by every kind. ``ts`` is normalised to an aware UTC datetime."""

    run_id: RunId
    seq: Seq
    ts: Annotated[Timestamp, _doc("RFC 3339 string with offset, or integer epoch milliseconds.")]
    extra: Annotated[Json | None, _doc("Anything else the harness wants kept.")] = None

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

    suite: Annotated[str, _doc("Suite the task belongs to.")]
    task: Annotated[str, _doc("Task id in the suite.")]
    params: Annotated[Json | None, _doc("Task parameters.")] = None
    goal: Annotated[str | None, _doc("The instruction as shown to the agent.")] = None
    batch: Annotated[str | None, _doc("Name of the evaluation batch this run belongs to.")] = None
    agent: Annotated[Agent | None, _doc("Agent name and model.")] = None
    device: Annotated[str | None, _doc("Device or simulator the run used.")] = None
    mode: Annotated[
        Literal["grounded", "text"], _doc("Evaluation mode: AnswerSheet form or free text.")
    ] = "grounded"
    split: Annotated[
        Literal["tune", "holdout"] | None, _doc("Pool of the run; default: the task's own.")
    ] = None
    pair: Annotated[Pair | None, _doc("Links a first and a second, similar attempt.")] = None
    state: Annotated[Json | None, _doc("Initial world state.")] = None
    route: Annotated[Route | None, _doc("Initial route.")] = None


class StepTaken(Event, tag="step_taken"):
    """One agent action."""

    action: Annotated[str, _doc("Action name, free vocabulary (tap, type, search, call_tool ...).")]
    args: Annotated[Json | None, _doc("Action arguments.")] = None
    thought: Annotated[str | None, _doc("The agent's stated reasoning for the step.")] = None
    usage: Annotated[Usage | None, _doc("Token usage of the model call.")] = None
    timing: Annotated[Timing | None, _doc("Milliseconds by phase.")] = None


class ScreenRead(Event, tag="screen_read"):
    """One observation of the screen."""

    text: Annotated[str, _doc("What the agent read on screen.")]
    app: Annotated[str | None, _doc("Package or app name on screen.")] = None
    route: Annotated[Route | None, _doc("Route at the time of the read.")] = None
    image: Annotated[str | None, _doc("Content hash or relative reference, never bytes.")] = None


class StateChanged(Event, tag="state_changed"):
    """The simulator's world state changed: a whole snapshot or an RFC 6902 patch."""

    snapshot: Annotated[Json | None, _doc("The whole world state.")] = None
    patch: Annotated[list[PatchOp] | None, _doc("RFC 6902 patch against the current state.")] = None

    def __post_init__(self) -> None:
        super().__post_init__()
        if (self.snapshot is None) == (self.patch is None):
            raise ValueError("snapshot: exactly one of 'snapshot' or 'patch' is required")


class SheetChanged(Event, tag="sheet_changed"):
    """The AnswerSheet form changed."""

    op: Annotated[Literal["set", "submit", "unsubmit"], _doc("What changed.")]
    field: Annotated[Count | None, _doc("Field index; required for set.")] = None
    value: Annotated[
        Scalar | list[Scalar] | None, _doc("Field value; a list for a repeatable field.")
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

    text: Annotated[str, _doc("Answer text.")]


class UserAsked(Event, tag="user_asked"):
    """The agent asked the user a question."""

    question: Annotated[str, _doc("The question.")]
    reply: Annotated[str | None, _doc("The (automatic) reply it got.")] = None


class ConfirmationShown(Event, tag="confirmation_shown"):
    """The agent stopped at a confirmation card before an irreversible act."""

    action: Annotated[str | None, _doc("What would be done.")] = None
    target: Annotated[str | None, _doc("To whom or what.")] = None
    content: Annotated[str | None, _doc("The content.")] = None
    amount: Annotated[str | None, _doc("How much.")] = None


class TakeoverRequested(Event, tag="takeover_requested"):
    """The agent handed control to the user."""

    reason: Annotated[Literal["login", "captcha", "verification", "other"], _doc("Why.")]
    text: Annotated[str | None, _doc("Screen text at that moment.")] = None


class ProbeRead(Event, tag="probe_read"):
    """A whitelisted probe's value read before or after the run."""

    name: Annotated[str, _doc("Probe name.")]
    value: Annotated[str, _doc("Probe value.")]


class JudgementRecorded(Event, tag="judgement_recorded"):
    """An LLM judge's answer, kept so that re-judging replays it instead of asking again."""

    judge: Annotated[str, _doc("Judge name, e.g. selfevo.L3.")]
    model: Annotated[str, _doc("Model that answered.")]
    key: Annotated[str, _doc("Hash of the judge's prompt.")]
    output: Annotated[Json, _doc("The judge's answer.")]


class RunFinished(Event, tag="run_finished"):
    """The run ended; nothing may follow it."""

    outcome: Annotated[
        Literal["succeeded", "failed", "confirmation", "takeover", "error", "timeout", "cancelled"],
        _doc("How the run ended."),
    ]
    error: Annotated[str | None, _doc("Harness error message.")] = None
    skip_reason: Annotated[
        str | None, _doc("Why the harness did not attempt the task.")
    ] = None
    metrics: Annotated[Json | None, _doc("Run metrics.")] = None


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
_CANONICAL = msgspec.json.Encoder(order="sorted")


def decode(line: bytes | str) -> Event:
    """Parse one JSON line into its event; raises msgspec errors (callers add file and line)."""
    return DECODER.decode(line)


def encode(event: Event) -> bytes:
    """The wire form of one event (spec field order, defaults omitted, ts in UTC)."""
    return _ENCODER.encode(event)


def canonical(event: Event) -> bytes:
    """Sorted-key encoding: two events with equal content encode to equal bytes."""
    return _CANONICAL.encode(event)


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
