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

from .fold import finish_fields, start_fields
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
    #: With ``steps``: every step's action, but args and thought only for steps with these
    #: actions (None: for every step). A judge that reads the arguments of a few kinds of
    #: action need not decode thousands of taps.
    step_actions: tuple[str, ...] | None = None

    def union(self, other: Reads) -> Reads:
        if self.screens < 0 or other.screens < 0:
            screens = -1
        else:
            screens = max(self.screens, other.screens)
        if not (self.steps and other.steps):
            actions = self.step_actions if self.steps else other.step_actions
        elif self.step_actions is None or other.step_actions is None:
            actions = None
        else:
            actions = tuple(sorted(set(self.step_actions) | set(other.step_actions)))
        return Reads(screens=screens, steps=self.steps or other.steps, step_actions=actions)


ALL = Reads()
RARE_KINDS = (
    "state_changed",
    "user_asked",
    "confirmation_shown",
    "takeover_requested",
    "probe_read",
    "judgement_recorded",
)


def _in(suites: list[str]) -> str:
    return "suite IN (" + ", ".join(_q(x) for x in suites) + ")" if suites else "FALSE"


def batch_sql(reads: Reads | dict[str, Reads], source: str = "events") -> str:
    """One row per run with everything :func:`build_state` needs.

    ``reads``: one :class:`Reads` for every run, or one per suite name (runs of a suite not in
    the mapping read nothing optional). The screens and steps of each run are aggregated only
    as far as its own suite reads them; :func:`build_state` takes the run's own ``Reads``.
    """
    if isinstance(reads, Reads):
        screens_where = "TRUE" if reads.screens != 0 else "FALSE"
        steps_where = "TRUE" if reads.steps else "FALSE"
        detail = "data" if reads.step_actions is None else (
            f"CASE WHEN action IN ({', '.join(_q(a) for a in reads.step_actions) or 'NULL'}) THEN data END"
        )
    else:
        screens_where = _in(sorted(k for k, r in reads.items() if r.screens != 0))
        steps_where = _in(sorted(k for k, r in reads.items() if r.steps))
        whens = []
        for k, r in sorted(reads.items()):
            if not r.steps:
                continue
            if r.step_actions is None:
                whens.append(f"WHEN suite = {_q(k)} THEN data")
            elif r.step_actions:
                whens.append(
                    f"WHEN suite = {_q(k)} AND action IN ({', '.join(_q(a) for a in r.step_actions)}) THEN data"
                )
        detail = f"CASE {' '.join(whens)} END" if whens else "NULL"
    # A read's route comes from the typed columns; the JSON is looked at only for the rare
    # route object with neither app nor path.
    screens = (
        "list(struct_pack(seq := seq, text := text, app := app, route_app := route_app, "
        "route_path := route_path, empty_route := CASE WHEN route_app IS NULL AND route_path IS NULL "
        "THEN json_exists(data, '$.route') ELSE FALSE END, image := image) "
        f"ORDER BY seq) FILTER (WHERE kind = 'screen_read' AND {screens_where})"
    )
    steps = (
        f"list(struct_pack(seq := seq, action := action, data := {detail}) ORDER BY seq) "
        f"FILTER (WHERE kind = 'step_taken' AND {steps_where})"
    )
    rare = ", ".join(f"'{k}'" for k in RARE_KINDS)
    return f"""
SELECT
    run_id,
    any_value(suite) AS suite,
    max(seq) AS last_seq,
    count(*) AS n_events,
    arg_max(ts, seq) AS last_at,
    any_value(data) FILTER (WHERE kind = 'run_started') AS start,
    any_value(data) FILTER (WHERE kind = 'run_finished') AS finish,
    arg_max(text, seq) FILTER (WHERE kind = 'answer_given') AS answer,
    list(struct_pack(op := op, field := field, value := value) ORDER BY seq)
        FILTER (WHERE kind = 'sheet_changed') AS sheet_ops,
    arg_max(struct_pack(app := route_app, path := route_path), seq) FILTER (WHERE kind = 'screen_read'
        AND (route_app IS NOT NULL OR route_path IS NOT NULL OR json_exists(data, '$.route'))) AS last_route,
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


def _q(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


_decode = ev.DECODER.decode
_value_decoder = msgspec.json.Decoder()


def build_state(row: dict[str, Any], reads: Reads = ALL) -> RunState:
    """One run's RunState from its aggregated row."""
    start = _decode(row["start"])
    assert isinstance(start, ev.RunStarted)
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
        r = row["last_route"]
        route = ev.Route(app=r["app"], path=r["path"])
    screens: tuple[Screen, ...] = ()
    read_screens = row["screens"] if reads.screens != 0 else None
    if read_screens and reads.screens > 0:
        read_screens = read_screens[-reads.screens :]
    if read_screens:
        screens = tuple(
            Screen(
                seq=s["seq"],
                text=s["text"],
                app=s["app"],
                route=(
                    ev.Route(app=s["route_app"], path=s["route_path"])
                    if s["route_app"] is not None or s["route_path"] is not None or s["empty_route"]
                    else None
                ),
                image=s["image"],
            )
            for s in read_screens
        )
    steps: tuple[Step, ...]
    if reads.steps and row["steps"] is not None:
        steps = tuple(_step(s) for s in row["steps"])
    else:
        # Only the count was read: placeholders keep len(state.steps) right.
        steps = (_NO_STEP,) * row["n_steps"]
    finish: dict[str, Any] = {}
    if row["finish"] is not None:
        fin = _decode(row["finish"])
        assert isinstance(fin, ev.RunFinished)
        finish = finish_fields(fin)
    fields = start_fields(start)
    fields.update(state=world, route=route)
    return RunState(
        run_id=row["run_id"],
        seq=row["last_seq"],
        **fields,
        state_changes=changes,
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
        last_at=row["last_at"],
        **finish,
    )


_NO_STEP = Step(seq=-1, action="")


def _step(s: dict[str, Any]) -> Step:
    # Only the action was read for this step (see Reads.step_actions).
    if s["data"] is None:
        return Step(seq=s["seq"], action=s["action"])
    e = _decode(s["data"])
    return Step(seq=e.seq, action=e.action, args=e.args, thought=e.thought)  # type: ignore[attr-defined]


def iter_states(rows: Sequence[dict[str, Any]], reads: Reads = ALL) -> Iterator[RunState]:
    for row in rows:
        yield build_state(row, reads)
