"""The vectorised replay: RunStates for many runs at once, from one DuckDB aggregation.

The per-run fold decodes every event and folds it in Python. Most events of a long run are
steps and screen reads that a judge never looks at one by one, so this path lets DuckDB group
and aggregate the events table (counts, token and time totals, the final answer, the sheet's
operations, the last screens) and builds Python objects only for what a judge declared it
reads (:class:`Reads`). The rarer kinds (state changes, questions, cards, takeovers, probes,
judgements) and the start and finish events are decoded as in the fold.

For every part that ``reads`` asks for, the result equals the fold's; ``Reads()`` asks for all
of it, and a property test holds ``replay_batch`` equal to ``replay`` for any run.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import msgspec
from msgspec import Struct

from trajectory import events as ev

from .patch import apply_patch
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


class Reads(Struct, frozen=True, kw_only=True):
    """What a judge reads from a RunState, so that the batch path builds only that.

    ``screens``: -1 for every screen read, n for the last n, 0 for none.
    ``steps``: the step list with args and thoughts (the step count is always there).
    Everything else (start, finish, sheet, answer, route, world state, questions, cards,
    takeovers, probes, judgements, totals) is always built: it is small.
    """

    screens: int = -1
    steps: bool = True

    def union(self, other: Reads) -> Reads:
        if self.screens < 0 or other.screens < 0:
            screens = -1
        else:
            screens = max(self.screens, other.screens)
        return Reads(screens=screens, steps=self.steps or other.steps)


ALL = Reads()
RARE_KINDS = (
    "state_changed",
    "user_asked",
    "confirmation_shown",
    "takeover_requested",
    "probe_read",
    "judgement_recorded",
)


def batch_sql(reads: Reads, source: str = "events") -> str:
    """One row per run with everything :func:`build_state` needs."""
    screens = "NULL"
    if reads.screens != 0:
        screens = (
            "list(struct_pack(seq := seq, text := text, app := app, route := "
            "CASE WHEN json_exists(data, '$.route') THEN (data->'$.route')::VARCHAR END, image := image) "
            "ORDER BY seq) FILTER (WHERE kind = 'screen_read')"
        )
        if reads.screens > 0:
            screens = f"list_slice({screens}, -{reads.screens}, -1)"
    steps = "NULL"
    if reads.steps:
        steps = "list(data ORDER BY seq) FILTER (WHERE kind = 'step_taken')"
    rare = ", ".join(f"'{k}'" for k in RARE_KINDS)
    return f"""
SELECT
    run_id,
    max(seq) AS last_seq,
    count(*) AS n_events,
    arg_max(ts, seq) AS last_at,
    any_value(data) FILTER (WHERE kind = 'run_started') AS start,
    any_value(data) FILTER (WHERE kind = 'run_finished') AS finish,
    arg_max(text, seq) FILTER (WHERE kind = 'answer_given') AS answer,
    list(struct_pack(op := op, field := field, value := value) ORDER BY seq)
        FILTER (WHERE kind = 'sheet_changed') AS sheet_ops,
    arg_max((data->'$.route')::VARCHAR, seq) FILTER (WHERE kind = 'screen_read' AND json_exists(data, '$.route'))
        AS last_route,
    count(*) FILTER (WHERE kind = 'step_taken') AS n_steps,
    count(*) FILTER (WHERE kind = 'screen_read') AS n_screens,
    list(data ORDER BY seq) FILTER (WHERE kind IN ({rare})) AS rare,
    coalesce(sum(input_tokens), 0) AS input_tokens,
    coalesce(sum(output_tokens), 0) AS output_tokens,
    coalesce(sum(cached_tokens), 0) AS cached_tokens,
    coalesce(sum(model_ms), 0) AS model_ms,
    coalesce(sum(read_ms), 0) AS read_ms,
    coalesce(sum(act_ms), 0) AS act_ms,
    coalesce(sum(other_ms), 0) AS other_ms,
    {screens} AS screens,
    {steps} AS steps
FROM {source}
GROUP BY run_id
"""


_decode = ev.DECODER.decode
_route_decoder = msgspec.json.Decoder(ev.Route)
_value_decoder = msgspec.json.Decoder()


def build_state(row: dict[str, Any], reads: Reads = ALL) -> RunState:
    """One run's RunState from its aggregated row."""
    start = _decode(row["start"])
    assert isinstance(start, ev.RunStarted)
    agent, pair = start.agent, start.pair
    world = start.state
    changes = 0
    questions: list[Question] = []
    cards: list[Confirmation] = []
    takeovers: list[Takeover] = []
    probes: dict[str, str] = {}
    judgements: list[Judgement] = []
    for data in row["rare"] or ():
        e = _decode(data)
        match e:
            case ev.StateChanged():
                world = e.snapshot if e.snapshot is not None else apply_patch(world if world is not None else {}, e.patch or ())
                changes += 1
            case ev.UserAsked():
                questions.append(Question(seq=e.seq, question=e.question, reply=e.reply))
            case ev.ConfirmationShown():
                cards.append(Confirmation(seq=e.seq, action=e.action, target=e.target, content=e.content, amount=e.amount))
            case ev.TakeoverRequested():
                takeovers.append(Takeover(seq=e.seq, reason=e.reason, text=e.text))
            case ev.ProbeRead():
                probes[e.name] = e.value
            case ev.JudgementRecorded():
                judgements.append(Judgement(seq=e.seq, judge=e.judge, model=e.model, key=e.key, output=e.output))
    answers: dict[str, Any] = {}
    submitted = False
    for op in row["sheet_ops"] or ():
        if op["op"] == "set":
            answers[str(op["field"])] = _value_decoder.decode(op["value"])
        else:
            submitted = op["op"] == "submit"
    route = start.route
    if row["last_route"] is not None:
        route = _route_decoder.decode(row["last_route"])
    screens: tuple[Screen, ...] = ()
    if row["screens"]:
        screens = tuple(
            Screen(
                seq=s["seq"],
                text=s["text"],
                app=s["app"],
                route=None if s["route"] is None else _route_decoder.decode(s["route"]),
                image=s["image"],
            )
            for s in row["screens"]
        )
    steps: tuple[Step, ...]
    if row["steps"] is not None:
        decoded = [_decode(d) for d in row["steps"]]
        steps = tuple(Step(seq=e.seq, action=e.action, args=e.args, thought=e.thought) for e in decoded)  # type: ignore[attr-defined]
    else:
        # Only the count was read: placeholders keep len(state.steps) right.
        steps = (_NO_STEP,) * row["n_steps"]
    outcome = error = skip_reason = None
    metrics = None
    finished_at = None
    if row["finish"] is not None:
        fin = _decode(row["finish"])
        assert isinstance(fin, ev.RunFinished)
        outcome, error, skip_reason, metrics, finished_at = fin.outcome, fin.error, fin.skip_reason, fin.metrics, fin.ts
    last_at = row["last_at"]
    return RunState(
        run_id=row["run_id"],
        seq=row["last_seq"],
        suite=start.suite,
        task=start.task,
        params=start.params,
        goal=start.goal,
        batch=start.batch,
        agent_name=agent.name if agent else None,
        agent_model=agent.model if agent else None,
        device=start.device,
        mode=start.mode,
        split=start.split,
        pair_id=pair.id if pair else None,
        pair_round=pair.round if pair else None,
        initial_state=start.state,
        state=world,
        state_changes=changes,
        route=route,
        sheet=Sheet(answers=answers, submitted=submitted),
        answer=row["answer"],
        screens=screens,
        steps=steps,
        questions=tuple(questions),
        confirmations=tuple(cards),
        takeovers=tuple(takeovers),
        probes=probes,
        judgements=tuple(judgements),
        totals=Totals(
            input_tokens=int(row["input_tokens"]),
            output_tokens=int(row["output_tokens"]),
            cached_tokens=int(row["cached_tokens"]),
            model_ms=float(row["model_ms"]),
            read_ms=float(row["read_ms"]),
            act_ms=float(row["act_ms"]),
            other_ms=float(row["other_ms"]),
        ),
        started_at=start.ts,
        last_at=last_at,
        finished_at=finished_at,
        outcome=outcome,
        error=error,
        skip_reason=skip_reason,
        metrics=metrics,
    )


_NO_STEP = Step(seq=-1, action="")


def iter_states(rows: Sequence[dict[str, Any]], reads: Reads = ALL) -> Iterator[RunState]:
    for row in rows:
        yield build_state(row, reads)
