"""Judging passes: replay finished runs, call each suite's pure judge, append the verdicts.

The shell's judging, in rooms of its own: :mod:`.resolve` (which suite judges a run),
:mod:`.selection` (which runs, and loading them), :mod:`.execution` (budgets, the worker pool,
the watchdog), :mod:`.passes` (writing a pass and reading passes) and :mod:`.diff` (what flipped
between two passes). :func:`judge_runs` puts them together.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from trajectory.query.sql import Views
from trajectory.store.delta import Store, now_utc
from trajectory.judging.diff import CheckChange, Diff, Flip, compare, diff_passes, dry_run_diff, render_diff
from trajectory.judging.execution import JudgeTimeout, Judging, PassContext, StageHook, judge_on_workers, judge_state, run_with_budget
from trajectory.records import VerdictRow
from trajectory.judging.passes import PassResult, Unjudged, current_rows, new_pass_id, pass_rows, passes, to_json, verdict_row, write_pass
from trajectory.judging.incremental import current_version, stale_runs
from trajectory.judging.partitions import Partition, restrict
from trajectory.judging.partitions import plan as plan_partitions
from trajectory.judging.resolve import SuiteResolver, register_suite
from trajectory.judging.selection import (
    JUDGEMENT_SUITE,
    Selection,
    batch_states,
    load_events,
    load_partners,
    load_state,
    recorded_judgements,
    select_runs,
    with_judgements,
)


#: Above this many files (a store of many small commits, not yet compacted) partitions are cut
#: in run order without reading every file's statistics first.
MAX_COSTED_FILES = 2000


def judge_runs(
    store: Store,
    resolver: SuiteResolver,
    *,
    suite: str | None = None,
    run_ids: Sequence[str] | None = None,
    where: str | None = None,
    batch: str | None = None,
    dry_run: bool = False,
    by: str | None = None,
    command: str | None = None,
    note: str | None = None,
    kind: str = "judge",
    workers: int = 1,
    timeout: float | None = 60.0,
    partition: int = 2000,
    progress: Callable[[int, int], None] | None = None,
    hook: StageHook | None = None,
    engine: Any = None,
    incremental: bool = False,
    where_split: str | None = None,
) -> PassResult:
    """One judging pass over the selected finished runs.

    ``incremental``: judge only the selected runs whose current verdict no longer stands (none
    yet, another judge version for their task now, events added since, another pair partner or
    more recorded LLM judgements; see incremental.py); the others keep their verdicts, which
    are what judging them again would give. Without it, every selected finished run is judged.

    Runs are judged in partitions of ``partition`` runs (never all events in memory at once),
    on ``workers`` processes when more than one; verdicts come back in run order either way,
    so the result does not depend on the number of workers. A judge that raises, or runs past
    ``timeout`` seconds on one run, gives that run an ``error`` verdict and the pass goes on.
    ``hook(stage, seconds)`` is told the time of each stage (select, load_replay, judge, write).
    ``where_split``: the pool ``where`` reads (a person's condition: see select_runs).
    ``engine``: another engine that judges the partitions (``trajectory.engines``: a Ray
    cluster), with the same budgets and isolation; selection and the pass's commit stay here.
    """
    started = now_utc()
    t = time.perf_counter()
    # The selection's connection is the one the partitions are judged with here (opening the
    # store's views reads every table's log: once per pass); workers open their own.
    views = Views(store, split=None)
    try:
        sel = select_runs(store, suite=suite, run_ids=run_ids, where=where, batch=batch, views=views,
                          where_split=where_split)
        judgements = recorded_judgements(store, views)
        # A suite registered in the store that nobody here trusted is never imported: its runs
        # are left unjudged (their verdicts stand), and the pass names it.
        # (An override is the caller's own object, trusted by being passed in.)
        untrusted = {n for n in set(sel.suites.values()) if n is not None and n not in resolver.overrides
                     and resolver.spec(n) is None and n in resolver.untrusted}
        if untrusted:
            keep = [r for r in sel.finished if sel.suites.get(r) not in untrusted]
            ends = None if sel.ends is None else sel.ends.filter(
                pc.invert(pc.is_in(sel.ends.column("suite"), value_set=pa.array(sorted(untrusted), pa.string()))))
            sel = dataclasses.replace(sel, finished=keep, ends=ends)
        finished = stale_runs(resolver, sel, len(judgements), views) if incremental else sel.finished
        ctx = PassContext(
            store=store,
            specs=resolver.specs(set(sel.suites.values()) - untrusted) if workers > 1 or engine is not None else {},
            suites=sel.suites,
            judgements=judgements,
            timeout=timeout,
            pass_id=new_pass_id(started),
            at=started,
            splits=dict(zip(sel.ends.column("run_id").to_pylist(), sel.ends.column("split").to_pylist()))
            if sel.ends is not None and "split" in sel.ends.column_names else {},
        )
        if hook is not None:
            hook("select", time.perf_counter() - t)
        files = store.files("events") if finished else []
        # Costing reads the files' Parquet footers from local disk; on object storage the runs are
        # cut in run order without it.
        costed = len(files) <= MAX_COSTED_FILES and not any("://" in f for f in files)
        parts = plan_partitions(restrict(sel.ends, finished), partition, files if costed else ())
        rows: list[VerdictRow | Unjudged] = []
        versions: dict[str, str] = {}
        elsewhere = engine is not None or (workers > 1 and len(parts) > 1)
        if elsewhere or not parts:
            views.close()
    except BaseException:
        views.close()
        raise
    judging = Judging(ctx, resolver=resolver, hook=hook, views=None if elsewhere or not parts else views)
    try:
        if elsewhere:
            if engine is not None:
                done = engine.judge(parts, ctx, judging, progress)
            else:
                done = judge_on_workers(parts, workers, ctx, judging, progress)
            for part in parts:
                part_rows, part_versions = done[part.runs[0]]
                rows.extend(part_rows)
                versions.update(part_versions)
        else:
            for part in parts:
                part_rows, part_versions = judging.partition(part)
                rows.extend(part_rows)
                versions.update(part_versions)
                if progress is not None:
                    progress(len(rows), len(finished))
    finally:
        judging.close()
    rows.sort(key=lambda r: r.run_id)  # run order, however the partitions were cut
    # A run whose suite or task cannot be resolved is not judged: it keeps its verdict (an
    # imported one, say), and the pass says which names to register.
    skipped = [r for r in rows if isinstance(r, Unjudged)]
    rows = [r for r in rows if not isinstance(r, Unjudged)]
    result = PassResult(
        ctx.pass_id, started, now_utc(), rows, len(sel.open), False, versions,
        up_to_date=len(sel.finished) - len(finished), dry_run=dry_run,
        untrusted={n: resolver.untrusted[n] for n in sorted(untrusted)},
        untrusted_runs=sum(1 for s in sel.suites.values() if s in untrusted),
        unresolved=skipped,
    )
    if not dry_run and rows:
        t = time.perf_counter()
        write_pass(
            store, result, kind=kind, by=by, command=command,
            filters={"suite": suite, "run_ids": list(run_ids or []), "where": where, "batch": batch,
                     "all": not incremental},
            note=note,
        )
        if hook is not None:
            hook("write", time.perf_counter() - t)
    return result


__all__ = [
    "JUDGEMENT_SUITE", "CheckChange", "Diff", "Flip", "JudgeTimeout", "Judging", "PassContext", "PassResult",
    "Selection", "StageHook", "SuiteResolver", "batch_states", "compare", "current_rows", "diff_passes",
    "dry_run_diff", "judge_runs", "judge_state", "load_events", "load_partners", "load_state", "new_pass_id",
    "pass_rows", "passes", "recorded_judgements", "register_suite", "render_diff", "run_with_budget",
    "Partition", "plan_partitions", "select_runs", "stale_runs", "current_version", "to_json", "verdict_row", "with_judgements", "write_pass",
]
