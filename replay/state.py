"""RunState: everything a judge may read about one run, as replayed from its events.

All structs are frozen. Containers inside them (the world state dicts, sheet answers) are
never mutated after construction: the fold builds new ones. That is what lets a judge hold a
state, and lets ``state_at`` and the full replay share structure safely.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, overload

import msgspec
from msgspec import Struct, defstruct, field
from msgspec.structs import force_setattr

from trajectory import events as ev
from trajectory.columns import declaration
from trajectory.events import Route


class Screen(Struct, frozen=True, kw_only=True):
    """One screen read, in the order the agent saw it."""

    seq: int
    text: str
    app: str | None = None
    route: Route | None = None
    image: str | None = None


class ScreenRest(Struct, frozen=True, kw_only=True):
    """What a screen read holds besides its seq, text and app: kept apart by :class:`Screens`,
    for the screens that have any of it."""

    seq: int
    route: Route | None = None
    image: str | None = None


# A field added to Screen is a column of Screens or a field of ScreenRest, never lost between.
assert set(Screen.__struct_fields__) == {"text", "app"} | set(ScreenRest.__struct_fields__)

_RESTS = msgspec.json.Decoder(list[ScreenRest] | None)


class Screens(Sequence[Screen]):
    """A run's screen reads as columns, in the order the agent saw them: ``seqs``, ``texts``
    and ``apps``, what the checks that search screens read (``screen_has``, grounding), as
    plain tuples. A :class:`Screen` is built only for a screen taken whole (indexing,
    iterating); its other fields (:class:`ScreenRest`: route, image) are kept by seq for the
    screens that have any. The batch path hands those in as JSON (``later``, with the screens
    it decoded from their events), decoded the first time a Screen is built; a check that reads
    the columns never decodes them. Equal to any sequence of the same screens, as the tuple of
    screens it replaces was.
    """

    __slots__ = ("seqs", "texts", "apps", "_rest", "_later")

    def __init__(
        self,
        seqs: Sequence[int] = (),
        texts: Sequence[str] = (),
        apps: Sequence[str | None] = (),
        rest: dict[int, ScreenRest] | None = None,
        later: tuple[Any, dict[int, ScreenRest]] | None = None,
    ):
        self.seqs: tuple[int, ...] = tuple(seqs)
        self.texts: tuple[str, ...] = tuple(texts)
        self.apps: tuple[str | None, ...] = tuple(apps)
        self._rest = rest if rest is not None else {}
        self._later = later

    @classmethod
    def of(cls, screens: Iterable[Screen]) -> Screens:
        """The columns of these screens."""
        if isinstance(screens, Screens):
            return screens
        screens = tuple(screens)
        rest = {s.seq: ScreenRest(seq=s.seq, route=s.route, image=s.image) for s in screens
                if s.route is not None or s.image is not None}
        return cls([s.seq for s in screens], [s.text for s in screens], [s.app for s in screens], rest)

    def rest(self) -> dict[int, ScreenRest]:
        """The other fields by seq (decoded now, if the batch path handed them in as JSON)."""
        if self._later is not None:
            data, fixed = self._later
            rest = {r.seq: r for r in (_RESTS.decode(data) if data else None) or ()}
            rest.update(fixed)
            self._rest, self._later = rest, None
        return self._rest

    def __len__(self) -> int:
        return len(self.seqs)

    @overload
    def __getitem__(self, i: int) -> Screen: ...
    @overload
    def __getitem__(self, i: slice) -> Screens: ...
    def __getitem__(self, i: int | slice) -> Screen | Screens:
        if isinstance(i, slice):
            return Screens(self.seqs[i], self.texts[i], self.apps[i], self._rest, self._later)
        seq = self.seqs[i]
        r = self.rest().get(seq)
        if r is None:
            return Screen(seq=seq, text=self.texts[i], app=self.apps[i])
        return Screen(seq=seq, text=self.texts[i], app=self.apps[i], route=r.route, image=r.image)

    def __iter__(self) -> Iterator[Screen]:
        return (self[i] for i in range(len(self.seqs)))

    def __add__(self, more: Iterable[Screen]) -> Screens:
        more = Screens.of(more)
        return Screens(self.seqs + more.seqs, self.texts + more.texts, self.apps + more.apps,
                       {**self.rest(), **more.rest()})

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, (Screens, tuple, list)):
            return NotImplemented
        return tuple(self) == tuple(other)

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"Screens({tuple(self)!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (Screens, (self.seqs, self.texts, self.apps, self.rest()))


class Step(Struct, frozen=True, kw_only=True):
    """One agent action."""

    seq: int
    action: str
    args: dict[str, Any] | None = None
    thought: str | None = None


class Question(Struct, frozen=True, kw_only=True):
    seq: int
    question: str
    reply: str | None = None


class Confirmation(Struct, frozen=True, kw_only=True):
    seq: int
    action: str | None = None
    target: str | None = None
    content: str | None = None
    amount: str | None = None


class Takeover(Struct, frozen=True, kw_only=True):
    seq: int
    reason: str
    text: str | None = None


class Judgement(Struct, frozen=True, kw_only=True):
    """A recorded LLM judgement, replayed instead of asking the model again."""

    seq: int
    judge: str
    model: str
    key: str
    output: dict[str, Any]


class Sheet(Struct, frozen=True, kw_only=True):
    """The AnswerSheet: values by field index (as a string key, like the simulator's state)."""

    answers: dict[str, Any] = field(default_factory=dict)
    submitted: bool = False

    def value(self, index: int) -> Any:
        return self.answers.get(str(index))


def _totals_type() -> type[Struct]:
    """Token and time totals over all steps: one field per figure of the event declaration
    (``figure=True`` in trajectory/events.py), so a figure added there is totalled here."""
    figures = declaration().figures
    return defstruct(
        "Totals",
        [(c.name, int if c.type == "int64" else float, 0 if c.type == "int64" else 0.0) for c in figures],
        frozen=True,
        kw_only=True,
        module=__name__,
    )


Totals = _totals_type()


class RunState(Struct, frozen=True, kw_only=True):
    """The replayed state of one run after applying events 0..seq."""

    run_id: str
    seq: int = -1  # the last event applied; -1 before any
    # From run_started.
    suite: str | None = None
    task: str | None = None
    params: dict[str, Any] | None = None
    goal: str | None = None
    batch: str | None = None
    agent_name: str | None = None
    agent_model: str | None = None
    device: str | None = None
    mode: str = "grounded"
    split: str | None = None
    pair_id: str | None = None
    pair_round: int | None = None
    # World state: the initial one from run_started, and the current one after patches.
    initial_state: dict[str, Any] | None = None
    state: dict[str, Any] | None = None
    state_changes: int = 0
    route: Route | None = None
    sheet: Sheet = field(default_factory=Sheet)
    answer: str | None = None
    screens: Screens = field(default_factory=Screens)  # any sequence of Screen given becomes Screens
    steps: tuple[Step, ...] = ()
    questions: tuple[Question, ...] = ()
    confirmations: tuple[Confirmation, ...] = ()
    takeovers: tuple[Takeover, ...] = ()
    probes: dict[str, str] = field(default_factory=dict)
    judgements: tuple[Judgement, ...] = ()
    totals: Totals = field(default_factory=Totals)
    started_at: _dt.datetime | None = None
    last_at: _dt.datetime | None = None
    finished_at: _dt.datetime | None = None
    # From run_finished; outcome stays None while the run is open.
    outcome: str | None = None
    error: str | None = None
    skip_reason: str | None = None
    metrics: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        if type(self.screens) is not Screens:
            force_setattr(self, "screens", Screens.of(self.screens))

    @property
    def finished(self) -> bool:
        return self.outcome is not None

    @property
    def n_steps(self) -> int:
        return len(self.steps)

    @property
    def duration_ms(self) -> float | None:
        if self.started_at is None or self.last_at is None:
            return None
        return (self.last_at - self.started_at).total_seconds() * 1000.0

    def judgement(self, judge: str, key: str, model: str | None = None) -> Judgement | None:
        """The latest recorded judgement for (judge, prompt key[, model])."""
        for j in reversed(self.judgements):
            if j.judge == judge and j.key == key and (model is None or j.model == model):
                return j
        return None

    def last_screens(self, n: int) -> Screens:
        return self.screens[-n:] if n > 0 else self.screens[:0]
