"""The fold: ``apply(state, event) -> state`` and ``replay = reduce(apply, events, initial)``.

Pure: no I/O, no clock. The same events always give the same state, which is what makes a
verdict computed from it reproducible forever.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import reduce
from typing import Any

from msgspec.structs import replace

from trajectory import events as ev
from trajectory.columns import declaration
from trajectory.errors import TrajError

from .patch import PatchError, apply_patch
from .state import (
    Confirmation,
    Judgement,
    Question,
    RunState,
    Screen,
    Sheet,
    Step,
    Takeover,
    Totals,
)


class ReplayError(TrajError, ValueError):
    """Events that cannot follow each other (wrong run, skipped or repeated seq), or one that
    cannot apply to the state it follows (``seq``: that event, e.g. a patch on a missing path)."""

    def __init__(
        self,
        message: str,
        *,
        run_id: str,
        expected: int | None = None,
        actual: int | None = None,
        seq: int | None = None,
    ):
        super().__init__(message)
        self.run_id = run_id
        self.expected = expected
        self.actual = actual
        self.seq = seq


_FIGURES = tuple(
    (c.name, path) for c in declaration().figures for kind, path in c.sources if kind == "step_taken"
)


def _add_totals(t: Totals, step: ev.StepTaken) -> Totals:
    if step.usage is None and step.timing is None:
        return t
    # A figure left out reads as 0 (ev.value), whether or not its object was given.
    sums = {}
    for name, (obj_name, figure) in _FIGURES:
        obj = getattr(step, obj_name)
        if obj is not None:
            sums[name] = getattr(t, name) + ev.value(obj, figure)
    return replace(t, **sums)


def start_fields(event: ev.RunStarted) -> dict[str, Any]:
    """The RunState fields a run_started sets (shared by the fold and the batch path)."""
    agent, pair = event.agent, event.pair
    return {
        "suite": event.suite,
        "task": event.task,
        "params": event.params,
        "goal": event.goal,
        "batch": event.batch,
        "agent_name": agent.name if agent else None,
        "agent_model": agent.model if agent else None,
        "device": event.device,
        "mode": ev.value(event, "mode"),
        "split": event.split,
        "pair_id": pair.id if pair else None,
        "pair_round": pair.round if pair else None,
        "initial_state": event.state,
        "state": event.state,
        "route": event.route,
        "started_at": event.ts,
    }


def finish_fields(event: ev.RunFinished) -> dict[str, Any]:
    """The RunState fields a run_finished sets (shared by the fold and the batch path)."""
    return {
        "outcome": event.outcome,
        "error": event.error,
        "skip_reason": event.skip_reason,
        "metrics": event.metrics,
        "finished_at": event.ts,
    }


def apply(state: RunState, event: ev.Event) -> RunState:
    """The state after one more event. Raises :class:`ReplayError` on a seq that does not follow."""
    if event.run_id != state.run_id:
        raise ReplayError(
            f"event of run {event.run_id} applied to run {state.run_id}", run_id=state.run_id
        )
    expected = state.seq + 1
    if event.seq != expected:
        raise ReplayError(
            f"run {state.run_id}: expected seq {expected}, got {event.seq}",
            run_id=state.run_id,
            expected=expected,
            actual=event.seq,
        )
    if state.finished:
        raise ReplayError(
            f"run {state.run_id}: seq {event.seq} after run_finished", run_id=state.run_id
        )
    return effect(state, event, seq=event.seq, last_at=event.ts)


def effect(state: RunState, event: ev.Event, **base: Any) -> RunState:
    """What one event does to a state, without the seq rules (``base``: more fields to set in
    the same step). The batch path applies the kinds it does not aggregate through this."""
    match event:
        case ev.RunStarted():
            return replace(state, **base, **start_fields(event))
        case ev.StepTaken():
            step = Step(seq=event.seq, action=event.action, args=event.args, thought=event.thought)
            return replace(
                state, **base, steps=state.steps + (step,), totals=_add_totals(state.totals, event)
            )
        case ev.ScreenRead():
            screen = Screen(
                seq=event.seq, text=event.text, app=event.app, route=event.route, image=event.image
            )
            route = event.route if event.route is not None else state.route
            return replace(state, **base, screens=state.screens + (screen,), route=route)
        case ev.StateChanged():
            if event.snapshot is not None:
                world = event.snapshot
            else:
                try:
                    world = apply_patch(state.state if state.state is not None else {}, event.patch or ())
                except PatchError as exc:
                    # The run's own fault: it names the event, so that the run (not the pass) fails.
                    raise ReplayError(
                        f"seq {event.seq} (state_changed): {exc}", run_id=state.run_id, seq=event.seq
                    ) from None
            return replace(state, **base, state=world, state_changes=state.state_changes + 1)
        case ev.SheetChanged():
            sheet = state.sheet
            if event.op == "set":
                answers = dict(sheet.answers)
                answers[str(event.field)] = event.value
                sheet = Sheet(answers=answers, submitted=sheet.submitted)
            else:
                sheet = Sheet(answers=sheet.answers, submitted=event.op == "submit")
            return replace(state, **base, sheet=sheet)
        case ev.AnswerGiven():
            return replace(state, **base, answer=event.text)
        case ev.UserAsked():
            q = Question(seq=event.seq, question=event.question, reply=event.reply)
            return replace(state, **base, questions=state.questions + (q,))
        case ev.ConfirmationShown():
            c = Confirmation(
                seq=event.seq,
                action=event.action,
                target=event.target,
                content=event.content,
                amount=event.amount,
            )
            return replace(state, **base, confirmations=state.confirmations + (c,))
        case ev.TakeoverRequested():
            t = Takeover(seq=event.seq, reason=event.reason, text=event.text)
            return replace(state, **base, takeovers=state.takeovers + (t,))
        case ev.ProbeRead():
            probes = dict(state.probes)
            probes[event.name] = event.value
            return replace(state, **base, probes=probes)
        case ev.JudgementRecorded():
            j = Judgement(
                seq=event.seq,
                judge=event.judge,
                model=event.model,
                key=event.key,
                output=event.output,
            )
            return replace(state, **base, judgements=state.judgements + (j,))
        case ev.RunFinished():
            return replace(state, **base, **finish_fields(event))
    raise ReplayError(f"unknown event kind {type(event).__name__}", run_id=state.run_id)


def replay(events: Iterable[ev.Event], start: RunState | None = None) -> RunState:
    """Fold events into a state; ``start`` continues an earlier replay of the same run."""
    it = iter(events)
    if start is None:
        try:
            first = next(it)
        except StopIteration:
            raise ReplayError("no events to replay", run_id="") from None
        start = apply(RunState(run_id=first.run_id), first)
    return reduce(apply, it, start)


def state_at(events: Iterable[ev.Event], seq: int) -> RunState:
    """The state after events 0..seq inclusive."""
    return replay(e for e in events if e.seq <= seq)


def view(state: RunState) -> dict:
    """The JSON shape ``traj show --json`` prints (docs/events.md, "Replayed state")."""
    route = None
    if state.route is not None:
        route = {"app": state.route.app, "path": state.route.path}
    return {
        "run_id": state.run_id,
        "seq": state.seq,
        "suite": state.suite,
        "task": state.task,
        "batch": state.batch,
        "mode": state.mode,
        "route": route,
        "sheet": {"answers": dict(state.sheet.answers), "submitted": state.sheet.submitted},
        "answer": state.answer,
        "screens": [s.text for s in state.screens],
        "state": state.state,
        "initial_state": state.initial_state,
        "steps": len(state.steps),
        "questions": [{"question": q.question, "reply": q.reply} for q in state.questions],
        "confirmations": [
            {"action": c.action, "target": c.target, "content": c.content, "amount": c.amount}
            for c in state.confirmations
        ],
        "takeovers": [{"reason": t.reason, "text": t.text} for t in state.takeovers],
        "probes": dict(state.probes),
        "tokens": {
            "input": state.totals.input_tokens,
            "output": state.totals.output_tokens,
            "cached": state.totals.cached_tokens,
        },
        "outcome": state.outcome,
        "skip_reason": state.skip_reason,
        # What run_started and run_finished recorded about the attempt (importers map the
        # harness's own fields here: the sample's input and target, the model, an error).
        "goal": state.goal,
        "params": state.params,
        "agent": {"name": state.agent_name, "model": state.agent_model},
        "error": state.error,
        "metrics": state.metrics,
        "actions": [s.action for s in state.steps],
    }
