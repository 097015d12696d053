"""Which runs a pass judges, and loading them: selection SQL, the per-run fold for single runs,
the vectorised batch replay for many, recorded LLM judgements and pair partners."""

from __future__ import annotations

import dataclasses
import re
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import msgspec
import pyarrow as pa

from replay import ReplayError, replay
from replay.batch import ALL, Reads, batch_sql, build_state, detail_sql, group_details, start_state
from replay.state import Judgement, RunState

from trajectory import events as ev
from trajectory.errors import NotFound, QueryError
from trajectory.query.names import check_names
from trajectory.query.sql import Views, run_filter, sql_str
from trajectory.store.delta import Store
from trajectory.judging.trust import JUDGEMENT_SUITE, trusted_runs
from trajectory.judging.resolve import SuiteResolver

#: The suite of the runs that hold recorded LLM judgements (see recorded_judgements).


@dataclasses.dataclass
class Selection:
    """The runs a pass looks at: finished ones (judged) and open ones (left unjudged)."""

    finished: list[str]
    open: list[str]
    suites: dict[str, str | None] = dataclasses.field(default_factory=dict)  # finished run -> suite
    #: One row per finished run: run_id, suite, task, last_seq, pair_id, pair_round (what an
    #: incremental pass compares with the runs' current verdicts; see incremental.py).
    ends: pa.Table | None = None


# The first and the last event of every run: run_started says what the run is, run_finished that
# it is over and at which seq (nothing follows it). Reading these rows only, instead of grouping
# every event by run, keeps selection cheap in a store of millions of events.
# ``split``: the run's pool, as _run_split gives it (its run_started, the event at seq 0),
# read here so that judging a partition need not scan the events for it again.
_ENDS_SQL = (
    "SELECT run_id, suite, task, seq AS last_seq, pair_id, pair_round, kind = 'run_finished' AS finished, "
    "max(CASE WHEN seq = 0 THEN coalesce(split, 'tune') END) OVER (PARTITION BY run_id) AS split "
    "FROM events WHERE kind IN ('run_started', 'run_finished') AND {cond} ORDER BY run_id, seq"
)


def select_runs(
    store: Store,
    *,
    suite: str | None = None,
    run_ids: Sequence[str] | None = None,
    where: str | None = None,
    batch: str | None = None,
    views: Views | None = None,
    where_split: str | None = None,
) -> Selection:
    """Runs matching the filters (all pools: holdout runs are judged too, only shown apart).

    ``where_split``: the pool a person's ``where`` reads (``traj judge --where``, in the pool of
    ``--split``): the condition sees that pool's views only, so nothing of the holdout pool
    reaches its answer or its errors unless the pool is holdout, and then the look is recorded.
    None: every pool (traj's own conditions, such as the demo's)."""
    cond, params = run_filter(suite=suite, batch=batch, run_ids=run_ids)
    cond += f" AND suite IS DISTINCT FROM {sql_str(JUDGEMENT_SUITE)}"
    if where:
        # Answered as `traj query` answers: in the query worker, within the query limits.
        chosen = runs_where(store, where, where_split)
        cond += " AND list_contains(?, run_id)" if chosen else " AND FALSE"
        params += [chosen] if chosen else []
    own = views is None
    views = views or Views(store, split=None)
    try:
        check_names(views.con, suite=suite, batch=batch, run_ids=run_ids)
        try:
            table = views.con.sql(_ENDS_SQL.format(cond=cond), params=params).to_arrow_table()
        except Exception as exc:
            raise QueryError(f"--where: {str(exc).splitlines()[0]}") from exc
    finally:
        if own:
            views.close()
    ends = table.filter(table.column("finished")).drop_columns(["finished"])
    finished = ends.column("run_id").to_pylist()
    done = set(finished)
    open_ = [r for r in dict.fromkeys(table.column("run_id").to_pylist()) if r not in done]
    if run_ids:
        found = done | set(open_)
        missing = [r for r in run_ids if r not in found]
        if missing:
            raise NotFound(f"no such run: {', '.join(missing[:5])}")
    return Selection(finished, open_, dict(zip(finished, ends.column("suite").to_pylist())), ends)


# The limits of a ``--where`` condition: ``traj query``'s defaults, any number of runs.
WHERE_LIMITS: Any = None


def runs_where(store: Store, where: str, split: str | None) -> list[str]:
    """The runs of pool ``split`` (None: all) that a person's condition selects, evaluated on
    that pool's views alone (holdout: the look is recorded first, whatever the condition then
    does), as ``traj query`` answers: sandboxed, in the query worker, stopped at its limits."""
    from trajectory.query.limits import MAX_ROWS, QueryLimits
    from trajectory.query.sql import record_holdout_view
    from trajectory.query.worker import answer

    if split == "holdout":
        record_holdout_view(store, "judge --where", {"where": where})
    limits = WHERE_LIMITS or QueryLimits(max_rows=int(MAX_ROWS.high))
    try:
        table = answer(store, f"SELECT DISTINCT run_id FROM runs WHERE ({where})", split=split, version=None,
                       limits=limits)
    except QueryError as exc:
        # The limit's own advice names traj query's options, which judge does not have.
        line = re.sub(r" \((?:add LIMIT, |)raise --[^)]*\)$", "", str(exc).splitlines()[0])
        raise QueryError(f"--where: {line}") from None
    return sorted(table.column("run_id").to_pylist())


def load_events(store: Store, run_ids: Sequence[str], version: int | None = None) -> dict[str, list[ev.Event]]:
    """Decoded events of the given runs, in seq order (a superseded run's too: asked for by id,
    its history is read)."""
    out: dict[str, list[ev.Event]] = {r: [] for r in run_ids}
    if not run_ids:
        return out
    with Views(store, split=None, version=version) as views:
        views.con.register("_wanted", pa.table({"run_id": list(run_ids)}))
        table = views.arrow(
            "SELECT run_id, data FROM _events_pooled WHERE run_id IN (SELECT run_id FROM _wanted) "
            "ORDER BY run_id, seq"
        )
    decode = ev.DECODER.decode
    for run_id, data in zip(table.column("run_id").to_pylist(), table.column("data").to_pylist()):
        out[run_id].append(decode(data))
    return out


def load_state(store: Store, run_id: str, at: int | None = None) -> RunState:
    """A stored run's state after events 0..at (the whole run without ``at``)."""
    events = load_events(store, [run_id])[run_id]
    if not events:
        check_names(store, run_ids=[run_id])
        raise NotFound(f"no such run: {run_id}")
    if at is not None:
        if at < 0:
            raise NotFound(f"run {run_id}: --at must be >= 0")
        events = [e for e in events if e.seq <= at]
    return replay(events)


def recorded_judgements(store: Store, views: Views | None = None) -> tuple[Judgement, ...]:
    """Every LLM judgement recorded in the store's judgement runs.

    A judgement cannot be appended to the run it judges (nothing may follow run_finished), so
    ``traj judge --llm`` records the answers in a run of its own (suite ``traj.judgements``).
    They are keyed by judge, model and prompt hash, so any run whose prompt is the same gets
    the same recorded answer back: re-judging never asks the model twice for one prompt.

    Only registered judgement runs count (see trajectory/judging/trust.py), oldest registration first,
    so the latest answer is the last one recorded, whatever ``ts`` its events carry.
    """
    order = trusted_runs(store)
    if not order or not store.has_table("events"):
        return ()
    own = views is None
    views = views or Views(store, split=None)
    try:
        table = views.arrow(
            "SELECT run_id, seq, data FROM events WHERE kind = 'judgement_recorded' AND suite = ? "
            "AND list_contains(?, run_id)",
            [JUDGEMENT_SUITE, list(order)],
        )
    finally:
        if own:
            views.close()
    rows = sorted(table.to_pylist(), key=lambda r: (order[r["run_id"]], r["seq"]))
    out = []
    for row in rows:
        e = ev.DECODER.decode(row["data"])
        assert isinstance(e, ev.JudgementRecorded)
        out.append(Judgement(seq=e.seq, judge=e.judge, model=e.model, key=e.key, output=e.output))
    return tuple(out)


def with_judgements(state: RunState, judgements: tuple[Judgement, ...]) -> RunState:
    """The state with the store's trusted judgements in place of the run's own: a
    judgement_recorded event inside a run came from a file, and is kept but not read."""
    if not judgements and not state.judgements:
        return state
    return msgspec.structs.replace(state, judgements=judgements)


def batch_states(
    store: Store,
    run_ids: Sequence[str],
    reads: Reads | dict[str, Reads] = ALL,
    views: Views | None = None,
    errors: dict[str, ReplayError] | None = None,
    bounds: Any = None,
) -> dict[str, RunState]:
    """Replayed states of many runs through the vectorised path (see replay.batch).

    ``errors``: where a run whose events cannot be replayed (a patch on a missing path) is
    told, with only its start in the state; without it such a run raises.

    ``reads`` per suite builds each run with what its own judge reads. The scan is bounded —
    by ``bounds`` (a partitions.Partition: the ranges of the runs' ids, suites and tasks), else
    by the least and greatest run id — so that DuckDB skips, by their statistics, the row
    groups that cannot hold these runs instead of reading every event to filter it.
    """
    if not run_ids:
        return {}
    own = views is None
    views = views or Views(store, split=None)
    try:
        views.con.register("_wanted", pa.table({"run_id": list(run_ids)}))
        if bounds is not None:
            bound, params = bounds.where()
        else:
            bound, params = "run_id BETWEEN ? AND ?", [min(run_ids), max(run_ids)]
        where = f"{bound} AND run_id IN (SELECT run_id FROM _wanted)"
        table = views.con.sql(batch_sql(reads, where=where), params=params).to_arrow_table()
        detail = views.con.sql(detail_sql(reads, where=where), params=params * 3).to_arrow_table()
        views.con.unregister("_wanted")
    finally:
        if own:
            views.close()
    details = group_details(zip(*(detail.column(c).to_pylist() for c in ("run_id", "seq", "kind", "data"))))
    none = Reads(screens=0, steps=False)
    out = {}
    for row in table.to_pylist():
        r = reads if isinstance(reads, Reads) else reads.get(row["suite"], none)
        mine = details.get(row["run_id"], ())
        try:
            out[row["run_id"]] = build_state(row, r, mine)
        except ReplayError as exc:
            if errors is None:
                raise
            errors[row["run_id"]] = exc
            out[row["run_id"]] = start_state(row, mine)
    return out


def load_partners(
    store: Store, resolver: SuiteResolver, states: dict[str, RunState], views: Views | None = None
) -> dict[str, RunState]:
    """run_id -> the replayed state of its pair partner, for runs of suites that are Pairing.

    The partner is the finished run with the same ``pair_id`` and the other ``pair_round``
    (the first by run_id if there are several); it need not be among the runs being judged.
    An open partner is left out: an unfinished second attempt is not a second attempt yet.
    """
    from judges.contract import Pairing

    wanted = {
        rid: st for rid, st in states.items()
        if st.pair_id is not None and isinstance(resolver.get(st.suite), Pairing)
    }
    if not wanted:
        return {}
    own = views is None
    views = views or Views(store, split=None)
    try:
        views.con.register("_pairs", pa.table({"pair_id": sorted({st.pair_id for st in wanted.values()})}))
        # Straight from the events (pair_id is a typed column on every event of a run): the
        # runs view would aggregate the whole table for each partition.
        rows: list[Any] = views.con.execute(
            "SELECT run_id, any_value(pair_id), any_value(pair_round) FROM events "
            "WHERE pair_id IN (SELECT pair_id FROM _pairs) GROUP BY run_id "
            "HAVING count(*) FILTER (WHERE kind = 'run_finished') > 0 ORDER BY run_id"
        ).fetchall()
        views.con.unregister("_pairs")
    finally:
        if own:
            views.close()
    members: dict[str, list[tuple[str, int | None]]] = defaultdict(list)
    for rid, pid, rnd in rows:
        members[pid].append((rid, rnd))
    chosen = {}
    for rid, st in wanted.items():
        other = [m for m, rnd in members.get(st.pair_id or "", []) if m != rid and rnd != st.pair_round]
        if other:
            chosen[rid] = other[0]
    missing = sorted(set(chosen.values()) - set(states))
    loaded = dict(states)
    for r, events in load_events(store, missing).items():
        try:
            loaded[r] = replay(events)
        except ReplayError:
            continue  # a partner that cannot be replayed is no partner; its own pass says why
    return {rid: loaded[p] for rid, p in chosen.items() if p in loaded}
