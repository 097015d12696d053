"""Which finished runs an incremental pass judges: those whose current verdict no longer stands.

A verdict is a pure function of the judge code, the task's definition and what was replayed.
It stands while all of these are what they were when it was given:

- the judge version for the run's task (code and task data; computed here in Python from the
  suites, once per distinct suite, task and parameters, and compared with the version the
  verdict recorded);
- the run's events (the verdict records the last seq it was judged on: a run continued since
  has a later one; events are append-only, so the same last seq means the same events);
- for a suite that judges pairs (``Pairing``), which run was the partner;
- for a suite whose verdicts read recorded LLM judgements (``LLMJudged``), how many the store
  held (they are append-only too, so the same number means the same judgements).

A run without a current verdict is judged, and so is one whose verdict predates these records.
Everything but the versions is compared in one query over the runs' last events and their
current verdicts, so an up-to-date store of 100,000 runs is checked without replaying any.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pyarrow as pa
import pyarrow.compute as pc

from judges.contract import LLMJudged, Pairing

from trajectory.query.sql import Views
from trajectory.judging.resolve import SuiteResolver
from trajectory.judging.selection import Selection

#: The verdict columns an incremental pass compares (older stores' verdicts lack them: stale).
BASIS = ("params", "judged_seq", "partner", "judgements")


def current_version(resolver: SuiteResolver, suite: str | None, task: str | None, params: Any) -> str:
    """The judge version a run of this suite, task and parameters gets now (as judge_state
    records it: ``unknown`` when the suite or the task cannot be had)."""
    s = resolver.get(suite)
    if s is None:
        return "unknown"
    try:
        return s.version(s.get_task(task or "", params))
    except Exception:  # noqa: BLE001 - judge_state records "unknown" for the same failures
        return "unknown"


def _capable(resolver: SuiteResolver, names: list[str], capability: type) -> list[str]:
    return sorted(n for n in names if isinstance(resolver.get(n), capability))


def _basis_sql(views: Views) -> str:
    """The current verdict of every run with what it was judged on (nulls where the store's
    verdicts were written before these columns existed)."""
    have = {row[0] for row in views.con.execute("DESCRIBE _verdicts").fetchall()}
    cols = ", ".join(f"v.{c}" if c in have else f"NULL::{'BIGINT' if c in ('judged_seq', 'judgements') else 'VARCHAR'} AS {c}"
                     for c in BASIS)
    # The latest verdict of each run (as the verdicts view orders them), by a hash aggregate:
    # cheaper than sorting every verdict of every pass for a window.
    latest = ", ".join(f"v.{c}" for c in ("judge_version", *BASIS))
    return (
        f"SELECT run_id, unnest(arg_max(struct_pack({latest}), (judged_at, pass_id))) FROM "
        f"(SELECT v.run_id, v.judge_version, {cols}, v.judged_at, v.pass_id FROM _verdicts v "
        "WHERE v.pass_id IN (SELECT pass_id FROM _passes)) v GROUP BY run_id"
    )


def stale_runs(
    resolver: SuiteResolver, sel: Selection, judgements: int, views: Views
) -> list[str]:
    """The finished runs of ``sel`` (in its order) whose current verdict no longer stands."""
    if sel.ends is None:
        raise ValueError("an incremental pass needs the selection's last events (select_runs gives them)")
    if not sel.finished:
        return []
    names = sorted({s for s in sel.suites.values() if s is not None})
    pairing = _capable(resolver, names, Pairing)
    llm = _capable(resolver, names, LLMJudged)
    views.con.register("_ends", sel.ends)
    try:
        table = views.con.sql(
            f"""
            WITH cur AS ({_basis_sql(views)}),
            paired AS (
                SELECT run_id, pair_id, pair_round FROM events
                WHERE kind = 'run_finished' AND pair_id IS NOT NULL AND list_contains(?, suite)),
            now_partner AS (
                SELECT a.run_id, min(b.run_id) AS partner FROM _ends a JOIN paired b
                ON a.pair_id = b.pair_id AND a.run_id <> b.run_id AND a.pair_round IS DISTINCT FROM b.pair_round
                GROUP BY a.run_id)
            SELECT e.run_id, e.suite, e.task, c.params, c.judge_version,
                json_array(e.suite, e.task, c.params, c.judge_version)::VARCHAR AS combo,
                c.run_id IS NULL
                OR c.judged_seq IS DISTINCT FROM e.last_seq
                OR (list_contains(?, e.suite) AND c.partner IS DISTINCT FROM p.partner)
                OR (list_contains(?, e.suite) AND c.judgements IS DISTINCT FROM ?) AS changed
            FROM _ends e LEFT JOIN cur c USING (run_id) LEFT JOIN now_partner p USING (run_id)
            ORDER BY e.run_id
            """,
            params=[pairing, pairing, llm, judgements],
        ).to_arrow_table()
    finally:
        views.con.unregister("_ends")
    changed = table.column("changed")
    # One version computation per distinct suite, task and parameters among the standing verdicts.
    standing = table.filter(pc.invert(changed))
    first = standing.select(["combo"]).append_column("i", pa.array(range(standing.num_rows))).group_by(
        "combo").aggregate([("i", "min")])
    rows = standing.take(first.column("i_min")).select(["combo", "suite", "task", "params", "judge_version"])
    outdated = [
        combo
        for combo, suite, task, params, version in zip(*(c.to_pylist() for c in rows.columns))
        if current_version(resolver, suite, task, None if params is None else msgspec.json.decode(params)) != version
    ]
    mask = changed
    if outdated:
        mask = pc.or_(mask, pc.is_in(table.column("combo"), value_set=pa.array(outdated, pa.string())))
    return table.filter(mask).column("run_id").to_pylist()
