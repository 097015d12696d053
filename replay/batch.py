"""The vectorised replay: RunStates for many runs at once, from two DuckDB queries.

The per-run fold decodes every event and folds it in Python. Most events of a long run are
steps and screen reads that a judge never looks at one by one, so this path lets DuckDB group
and aggregate the typed columns of the events table (counts, token and time totals, the final
answer, the sheet's operations, the screens) and builds Python objects only for what a judge
declared it reads (:class:`Reads`); steps come as JSON that msgspec decodes into their
structs in one call per run, screens as the JSON of their columns (seqs, texts, apps) that
msgspec decodes into plain lists: a run's screens are :class:`replay.state.Screens`, whose
routes and images are decoded only when a check takes a screen whole. Only the events that must be decoded whole — the start and
finish, the rarer kinds (state changes, questions, cards, takeovers, probes, judgements), the
step details a judge reads — are read from the events' JSON (:func:`detail_sql`), so the
large column of whole events is read for a few percent of the rows.

For every part that ``reads`` asks for, the result equals the fold's; ``Reads()`` asks for all
of it, and a property test holds the batch path equal to ``replay`` for any run.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import msgspec
from msgspec import Struct

from trajectory import events as ev
from trajectory.columns import declaration

from msgspec.structs import replace

from .fold import effect, finish_fields, start_fields
from .state import RunState, Screen, ScreenRest, Screens, Sheet, Step, Totals


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

_DECL = declaration()
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


def _all_null(columns: list[tuple[str, str]]) -> str:
    return " AND ".join(f"{c} IS NULL" for c, _ in columns)


def _pack(kind: str, decl: Any) -> str:
    cols = [f"{c.name} := {c.name}" for c in decl.kind_columns(kind)]
    return "struct_pack(seq := seq, " + ", ".join(cols) + ")"


def _screen_fields(decl: Any) -> dict[str, str]:
    """Each field of a :class:`Screen` as an expression over the typed columns. A small object
    whose columns are all null is null here: whether it was given at all is read from the
    event itself (see detail_sql)."""
    fields = {"seq": "seq"}
    for c in decl.kind_columns("screen_read"):
        for k, path in c.sources:
            if k == "screen_read" and len(path) == 1 and path[0] in Screen.__struct_fields__:
                fields[path[0]] = c.name
    for field, members in _objects("screen_read", decl).items():
        pack = ", ".join(f"{key} := {col}" for col, key in members)
        fields[field] = f"CASE WHEN {_all_null(members)} THEN NULL ELSE struct_pack({pack}) END"
    return fields


#: The screens' columns that :class:`Screens` holds as plain tuples; every other field of a
#: screen travels in ``rest``, for the screens that have any of it.
SCREEN_COLUMNS = ("seq", "text", "app")


def _screens_json(decl: Any, where: str) -> str:
    """A run's screens (the screen reads that ``where`` keeps) as the JSON of their columns:
    ``{"seq": [...], "text": [...], "app": [...], "rest": [{seq, route, image}, ...]}``, each
    list in seq order, ``rest`` only for the screens that have a route or an image. msgspec
    decodes the columns into lists of plain values, and ``rest`` only if a Screen is built."""
    fields = _screen_fields(decl)
    screen = f"FILTER (WHERE kind = 'screen_read' AND {where})"
    cols = [f"{name} := list({fields[name]} ORDER BY seq) {screen}" for name in SCREEN_COLUMNS]
    others = [name for name in fields if name not in SCREEN_COLUMNS]
    given = " OR ".join(f"({fields[name]}) IS NOT NULL" for name in others) or "FALSE"
    pack = "struct_pack(seq := seq, " + ", ".join(f"{name} := {fields[name]}" for name in others) + ")"
    rest = f"rest := list({pack} ORDER BY seq) FILTER (WHERE kind = 'screen_read' AND {where} AND ({given}))"
    return "to_json(struct_pack(" + ", ".join([*cols, rest]) + "))"


def _suites_where(reads: Reads | dict[str, Reads], test: Any) -> str:
    if isinstance(reads, Reads):
        return "TRUE" if test(reads) else "FALSE"
    return _in(sorted(k for k, r in reads.items() if test(r)))


def batch_sql(reads: Reads | dict[str, Reads], source: str = "events", decl: Any = None, where: str = "TRUE") -> str:
    """One row per run with everything :func:`build_state` needs but the whole events, from
    the typed columns only (a run's whole events come from :func:`detail_sql`).

    ``reads``: one :class:`Reads` for every run, or one per suite name (runs of a suite not in
    the mapping read nothing optional). The screens and steps of each run are aggregated only
    as far as its own suite reads them; :func:`build_state` takes the run's own ``Reads``.
    Steps come as JSON text that msgspec decodes straight into their structs, screens as the
    JSON of their columns (``_screens_json``).
    The columns come from the event declaration (trajectory/columns.py; ``decl``: another
    declaration than the module's, for tests). ``where``: which events (runs) to read.
    """
    decl = decl or _DECL
    screens_where = _suites_where(reads, lambda r: r.screens != 0)
    steps_where = _suites_where(reads, lambda r: r.steps)
    route = _objects("screen_read", decl)["route"]
    given = " OR ".join(f"{c} IS NOT NULL" for c, _ in route)
    last_route = (
        "arg_max(struct_pack(seq := seq, " + ", ".join(f"{key} := {c}" for c, key in route) + "), seq) "
        f"FILTER (WHERE kind = 'screen_read' AND ({given}))"
    )
    screens = _screens_json(decl, screens_where)
    steps = (
        "to_json(list(struct_pack(seq := seq, action := action) ORDER BY seq) "
        f"FILTER (WHERE kind = 'step_taken' AND {steps_where}))"
    )
    sheet = f"list({_pack('sheet_changed', decl)} ORDER BY seq) FILTER (WHERE kind = 'sheet_changed')"
    [answer] = decl.kind_columns("answer_given")
    figures = ",\n    ".join(f"coalesce(sum({c.name}), 0) AS {c.name}" for c in decl.figures)
    return f"""
SELECT
    run_id,
    any_value(suite) AS suite,
    max(seq) AS last_seq,
    count(*) AS n_events,
    arg_max(ts, seq) AS last_at,
    arg_max({answer.name}, seq) FILTER (WHERE kind = 'answer_given') AS answer,
    {sheet} AS sheet_ops,
    {last_route} AS last_route,
    count(*) FILTER (WHERE kind = 'step_taken') AS n_steps,
    count(*) FILTER (WHERE kind = 'screen_read') AS n_screens,
    {figures},
    {screens}::VARCHAR AS screens,
    {steps}::VARCHAR AS steps
FROM {source}
WHERE {where}
GROUP BY run_id
"""


def detail_sql(reads: Reads | dict[str, Reads], source: str = "events", decl: Any = None, where: str = "TRUE") -> str:
    """The events :func:`build_state` decodes whole: ``run_id, seq, kind, data`` of each run's
    start and finish and of the kinds not aggregated, of the screen reads whose small objects
    the typed columns cannot tell given from absent, and of the steps whose details the run's
    suite reads. Ordered by run and seq.

    Three plain selections, each a filter the Parquet reader can push down: with the events
    table's files sorted by kind (see trajectory/ingest/plain.py), the row groups of the common kinds
    are skipped without reading their whole events.
    """
    decl = decl or _DECL
    whole = ", ".join(_q(k) for k in ("run_started", "run_finished", *rare_kinds(decl)))
    screens = " OR ".join(f"({_all_null(members)})" for members in _objects("screen_read", decl).values()) or "FALSE"
    if isinstance(reads, Reads):
        if not reads.steps:
            steps = "FALSE"
        elif reads.step_actions is None:
            steps = "TRUE"
        else:
            steps = f"action IN ({', '.join(_q(a) for a in reads.step_actions) or 'NULL'})"
    else:
        whens = []
        for k, r in sorted(reads.items()):
            if not r.steps:
                continue
            if r.step_actions is None:
                whens.append(f"suite = {_q(k)}")
            elif r.step_actions:
                whens.append(f"(suite = {_q(k)} AND action IN ({', '.join(_q(a) for a in r.step_actions)}))")
        steps = " OR ".join(whens) or "FALSE"
    select = f"SELECT run_id, seq, kind, data FROM {source} WHERE ({where}) AND "
    return (
        f"{select}kind IN ({whole})\n"
        f"UNION ALL {select}kind = 'screen_read' AND ({screens})\n"
        f"UNION ALL {select}kind = 'step_taken' AND ({steps})\n"
        "ORDER BY run_id, seq"
    )


def rare_kinds(decl: Any = None) -> tuple[str, ...]:
    """The kinds not aggregated: decoded and applied through the fold's own effect."""
    return tuple(k for k in (decl or _DECL).kinds if k not in AGGREGATED)


def sql_str(text: str) -> str:
    """A SQL string literal (for the few places where a value cannot be a parameter)."""
    return "'" + text.replace("'", "''") + "'"


_q = sql_str


_decode = ev.DECODER.decode
_value_decoder = msgspec.json.Decoder()


class _ScreenColumns(Struct):
    """The JSON of a run's screens (see _screens_json); ``rest`` stays undecoded."""

    seq: list[int] | None = None
    text: list[str] | None = None
    app: list[str | None] | None = None
    rest: msgspec.Raw = msgspec.Raw(b"null")


_SCREENS = msgspec.json.Decoder(_ScreenColumns)
_SCREEN = msgspec.json.Decoder(Screen)
_STEPS = msgspec.json.Decoder(tuple[Step, ...])
_STEP = msgspec.json.Decoder(Step)
_FIGURE_TYPES = tuple((c.name, int if c.type == "int64" else float) for c in _DECL.figures)

#: A run's whole events that build_state reads, in seq order: (seq, kind, data).
Detail = tuple[int, str, "str | bytes"]


def build_state(row: dict[str, Any], reads: Reads = ALL, details: Sequence[Detail] = ()) -> RunState:
    """One run's RunState from its aggregated row and its detail events (:func:`detail_sql`)."""
    start: ev.Event | None = None
    finish: ev.Event | None = None
    rare: list[str | bytes] = []
    screen_events: dict[int, str | bytes] = {}
    step_events: dict[int, str | bytes] = {}
    for seq, kind, data in details:
        if kind == "run_started":
            start = _decode(data)
        elif kind == "run_finished":
            finish = _decode(data)
        elif kind == "screen_read":
            screen_events[seq] = data
        elif kind == "step_taken":
            step_events[seq] = data
        else:
            rare.append(data)
    assert isinstance(start, ev.RunStarted), f"run {row['run_id']}: no run_started among its details"
    answers: dict[str, Any] = {}
    submitted = False
    for op in row["sheet_ops"] or ():
        if op["op"] == "set":
            answers[str(op["field"])] = _value_decoder.decode(op["value"])
        else:
            submitted = op["op"] == "submit"
    # The route: the latest screen read's that was given, else the start's. The typed columns
    # give the latest with a value; a later one given empty is among the screen details.
    route = start.route
    route_seq = -1
    if row["last_route"] is not None:
        last = dict(row["last_route"])
        route_seq = last.pop("seq")
        route = ev.Route(**last)
    fixed = {seq: _SCREEN.decode(data) for seq, data in screen_events.items()}
    for seq, screen in fixed.items():
        if screen.route is not None and seq > route_seq:
            route, route_seq = screen.route, seq
    screens = Screens()
    if reads.screens != 0 and row["screens"]:
        got = _SCREENS.decode(row["screens"])
        if got.seq:
            # A screen decoded whole from its event (fixed) holds its route and image as given.
            rest = {seq: ScreenRest(seq=seq, route=f.route, image=f.image) for seq, f in fixed.items()}
            screens = Screens(got.seq, got.text or (), got.app or (), later=(got.rest, rest))
            if reads.screens > 0:
                screens = screens[-reads.screens :]
    steps: tuple[Step, ...]
    if reads.steps and row["steps"]:
        steps = _STEPS.decode(row["steps"])
        if step_events:
            steps = tuple(_STEP.decode(step_events[s.seq]) if s.seq in step_events else s for s in steps)
    else:
        # Only the count was read: placeholders keep len(state.steps) right.
        steps = (_NO_STEP,) * row["n_steps"]
    fields = start_fields(start)
    fields.update(route=route)
    if finish is not None:
        assert isinstance(finish, ev.RunFinished)
        fields.update(finish_fields(finish))
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
    for data in rare:
        state = effect(state, _decode(data))
    return replace(state, seq=row["last_seq"], last_at=row["last_at"])


def group_details(rows: Iterable[tuple[str, int, str, Any]]) -> dict[str, list[Detail]]:
    """Detail rows (run_id, seq, kind, data; ordered by run and seq) by run."""
    out: dict[str, list[Detail]] = {}
    for run_id, seq, kind, data in rows:
        got = out.get(run_id)
        if got is None:
            got = out[run_id] = []
        got.append((seq, kind, data))
    return out


def start_state(row: dict[str, Any], details: Sequence[Detail] = ()) -> RunState:
    """What a run's start says (suite, task, batch...), from its detail events: the state a
    run whose replay failed is reported with."""
    start = next((_decode(data) for _, kind, data in details if kind == "run_started"), None)
    assert isinstance(start, ev.RunStarted), f"run {row['run_id']}: no run_started among its details"
    return RunState(run_id=row["run_id"], **start_fields(start))


_NO_STEP = Step(seq=-1, action="")
