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

from typing import Any

import msgspec
from msgspec import Struct

from trajectory import events as ev

from msgspec.structs import replace

from .fold import effect, finish_fields, start_fields
from .state import RunState, Screen, Sheet, Step, Totals


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


ALL = Reads()

_DECL = ev.declaration()
# The kinds aggregated here; every other kind of the declaration is decoded and applied through
# the fold's own effect (replay.fold.effect), so a new kind needs nothing here.
AGGREGATED = ("run_started", "run_finished", "step_taken", "screen_read", "sheet_changed", "answer_given")


def _in(suites: list[str]) -> str:
    return "suite IN (" + ", ".join(_q(x) for x in suites) + ")" if suites else "FALSE"


def _objects(kind: str, decl: Any = None) -> dict[str, list[tuple[str, str]]]:
    """A kind's small-object fields with columns: field -> [(column, key in the object)]."""
    out: dict[str, list[tuple[str, str]]] = {}
    for c in (decl or _DECL).kind_columns(kind):
        for k, path in c.sources:
            if k == kind and len(path) == 2:
                out.setdefault(path[0], []).append((c.name, path[1]))
    return out


def _given(columns: list[tuple[str, str]], field: str) -> str:
    """SQL: was the object given? Its columns say so, or (all of them null) the JSON does."""
    nulls = " AND ".join(f"{c} IS NULL" for c, _ in columns)
    return f"CASE WHEN {nulls} THEN json_exists(data, '$.{field}') ELSE TRUE END"


def _pack(kind: str, decl: Any) -> str:
    cols = [f"{c.name} := {c.name}" for c in decl.kind_columns(kind)]
    cols += [f"{field}__given := {_given(members, field)}" for field, members in _objects(kind, decl).items()]
    return "struct_pack(seq := seq, " + ", ".join(cols) + ")"


def batch_sql(reads: Reads | dict[str, Reads], source: str = "events", decl: Any = None) -> str:
    """One row per run with everything :func:`build_state` needs.

    ``reads``: one :class:`Reads` for every run, or one per suite name (runs of a suite not in
    the mapping read nothing optional). The screens and steps of each run are aggregated only
    as far as its own suite reads them; :func:`build_state` takes the run's own ``Reads``.
    The columns come from the event declaration (trajectory/columns.py; ``decl``: another
    declaration than the module's, for tests).
    """
    decl = decl or _DECL
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
    route = _objects("screen_read", decl)["route"]
    last_route = (
        "arg_max(struct_pack(" + ", ".join(f"{key} := {c}" for c, key in route) + "), seq) "
        f"FILTER (WHERE kind = 'screen_read' AND {_given(route, 'route')})"
    )
    screens = f"list({_pack('screen_read', decl)} ORDER BY seq) FILTER (WHERE kind = 'screen_read' AND {screens_where})"
    steps = (
        f"list(struct_pack(seq := seq, action := action, data := {detail}) ORDER BY seq) "
        f"FILTER (WHERE kind = 'step_taken' AND {steps_where})"
    )
    sheet = f"list({_pack('sheet_changed', decl)} ORDER BY seq) FILTER (WHERE kind = 'sheet_changed')"
    [answer] = decl.kind_columns("answer_given")
    rare = ", ".join(_q(k) for k in decl.kinds if k not in AGGREGATED) or "NULL"
    figures = ",\n    ".join(f"coalesce(sum({c.name}), 0) AS {c.name}" for c in decl.figures)
    return f"""
SELECT
    run_id,
    any_value(suite) AS suite,
    max(seq) AS last_seq,
    count(*) AS n_events,
    arg_max(ts, seq) AS last_at,
    any_value(data) FILTER (WHERE kind = 'run_started') AS start,
    any_value(data) FILTER (WHERE kind = 'run_finished') AS finish,
    arg_max({answer.name}, seq) FILTER (WHERE kind = 'answer_given') AS answer,
    {sheet} AS sheet_ops,
    {last_route} AS last_route,
    count(*) FILTER (WHERE kind = 'step_taken') AS n_steps,
    count(*) FILTER (WHERE kind = 'screen_read') AS n_screens,
    list(data ORDER BY seq) FILTER (WHERE kind IN ({rare})) AS rare,
    {figures},
    {screens} AS screens,
    {steps} AS steps
FROM {source}
GROUP BY run_id
"""


def sql_str(text: str) -> str:
    """A SQL string literal (for the few places where a value cannot be a parameter)."""
    return "'" + text.replace("'", "''") + "'"


_q = sql_str


_decode = ev.DECODER.decode
_value_decoder = msgspec.json.Decoder()
_SCREEN_OBJECTS = {field: (_DECL.by_kind["screen_read"], members) for field, members in _objects("screen_read").items()}
_SCREEN_COLUMNS = tuple(c.name for c in _DECL.kind_columns("screen_read") if c.name in Screen.__struct_fields__)
_FIGURE_TYPES = tuple((c.name, int if c.type == "int64" else float) for c in _DECL.figures)


def _screen(s: dict[str, Any]) -> Screen:
    fields = {name: s[name] for name in _SCREEN_COLUMNS}
    for field, (_, members) in _SCREEN_OBJECTS.items():
        if s[f"{field}__given"]:
            fields[field] = ev.Route(**{key: s[col] for col, key in members})
        else:
            fields[field] = None
    return Screen(seq=s["seq"], **fields)


def build_state(row: dict[str, Any], reads: Reads = ALL) -> RunState:
    """One run's RunState from its aggregated row."""
    start = _decode(row["start"])
    assert isinstance(start, ev.RunStarted)
    answers: dict[str, Any] = {}
    submitted = False
    for op in row["sheet_ops"] or ():
        if op["op"] == "set":
            answers[str(op["field"])] = _value_decoder.decode(op["value"])
        else:
            submitted = op["op"] == "submit"
    route = start.route
    if row["last_route"] is not None:
        route = ev.Route(**row["last_route"])
    screens: tuple[Screen, ...] = ()
    read_screens = row["screens"] if reads.screens != 0 else None
    if read_screens and reads.screens > 0:
        read_screens = read_screens[-reads.screens :]
    if read_screens:
        screens = tuple(_screen(s) for s in read_screens)
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
    fields.update(route=route)
    totals = {name: cast(row[name]) for name, cast in _FIGURE_TYPES}
    state = RunState(
        run_id=row["run_id"],
        **fields,
        sheet=Sheet(answers=answers, submitted=submitted),
        answer=row["answer"],
        screens=screens,
        steps=steps,
        totals=Totals(**totals),
    )
    for data in row["rare"] or ():
        state = effect(state, _decode(data))
    return replace(state, seq=row["last_seq"], last_at=row["last_at"], **finish)


def start_state(row: dict[str, Any]) -> RunState:
    """What a run's aggregated row says before any event but its start (suite, task, batch...):
    the state a run whose replay failed is reported with."""
    start = _decode(row["start"])
    assert isinstance(start, ev.RunStarted)
    return RunState(run_id=row["run_id"], **start_fields(start))


_NO_STEP = Step(seq=-1, action="")


def _step(s: dict[str, Any]) -> Step:
    # Only the action was read for this step (see Reads.step_actions).
    if s["data"] is None:
        return Step(seq=s["seq"], action=s["action"])
    e = _decode(s["data"])
    return Step(seq=e.seq, action=e.action, args=e.args, thought=e.thought)  # type: ignore[attr-defined]

