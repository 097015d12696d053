"""Judging passes: replay finished runs, call each suite's pure judge, append the verdicts.

The shell's judging, in rooms of its own: :mod:`.resolve` (which suite judges a run),
:mod:`.selection` (which runs, and loading them), :mod:`.execution` (budgets, the worker pool,
the watchdog), :mod:`.passes` (writing a pass and reading passes) and :mod:`.diff` (what flipped
between two passes). :func:`judge_runs` puts them together.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from ..store import Store, now_utc
from .diff import CheckChange, Diff, Flip, compare, diff_passes, dry_run_diff, render_diff
from .execution import JudgeTimeout, Judging, PassContext, StageHook, judge_on_workers, judge_state, run_with_budget
from .passes import PassResult, current_rows, new_pass_id, pass_rows, passes, to_json, verdict_row, write_pass
from .resolve import SuiteResolver, register_suite
from .selection import (
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
) -> PassResult:
    """One judging pass over the selected finished runs.

    Runs are judged in partitions of ``partition`` runs (never all events in memory at once),
    on ``workers`` processes when more than one; verdicts come back in run order either way,
    so the result does not depend on the number of workers. A judge that raises, or runs past
    ``timeout`` seconds on one run, gives that run an ``error`` verdict and the pass goes on.
    ``hook(stage, seconds)`` is told the time of each stage (select, load_replay, judge, write).
    ``engine``: another engine that judges the partitions (``trajectory.engines``: a Ray
    cluster), with the same budgets and isolation; selection and the pass's commit stay here.
    """
    started = now_utc()
    t = time.perf_counter()
    sel = select_runs(store, suite=suite, run_ids=run_ids, where=where, batch=batch)
    ctx = PassContext(
        store=store,
        specs=resolver.specs(set(sel.suites.values())) if workers > 1 or engine is not None else {},
        suites=sel.suites,
        judgements=recorded_judgements(store),
        timeout=timeout,
        pass_id=new_pass_id(started),
        at=started,
    )
    if hook is not None:
        hook("select", time.perf_counter() - t)
    finished = sel.finished
    parts = [finished[i : i + partition] for i in range(0, len(finished), partition)]
    rows: list[dict[str, Any]] = []
    versions: dict[str, str] = {}
    judging = Judging(ctx, resolver=resolver, hook=hook)
    try:
        if engine is not None or (workers > 1 and len(parts) > 1):
            if engine is not None:
                done = engine.judge(parts, ctx, judging, progress)
            else:
                done = judge_on_workers(parts, workers, ctx, judging, progress)
            for part in parts:
                part_rows, part_versions = done[part[0]]
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
    result = PassResult(ctx.pass_id, started, now_utc(), rows, len(sel.open), False, versions, dry_run=dry_run)
    if not dry_run and rows:
        t = time.perf_counter()
        write_pass(
            store, result, kind=kind, by=by, command=command,
            filters={"suite": suite, "run_ids": list(run_ids or []), "where": where, "batch": batch},
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
    "select_runs", "to_json", "verdict_row", "with_judgements", "write_pass",
]
