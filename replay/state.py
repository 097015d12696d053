"""RunState: everything a judge may read about one run, as replayed from its events.

All structs are frozen. Containers inside them (the world state dicts, sheet answers) are
never mutated after construction: the fold builds new ones. That is what lets a judge hold a
state, and lets ``state_at`` and the full replay share structure safely.
"""

from __future__ import annotations

import datetime as _dt
from typing import Any

from msgspec import Struct, defstruct, field

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
    screens: tuple[Screen, ...] = ()
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

    def last_screens(self, n: int) -> tuple[Screen, ...]:
        return self.screens[-n:] if n > 0 else ()
