"""Re-judge measurements, each in a fresh process so that its peak memory is its own.

``python -m benchmarks.rejudge '{"store": ..., "mode": "staged"|"judge_runs", ...}'`` prints one
JSON object: the timings, the verdict counts and the peak resident memory of the process
(``RUSAGE_SELF``) and of its largest worker (``RUSAGE_CHILDREN``).

``staged`` runs :func:`trajectory.judging.judge_runs` on one process and times its stages
(select, load/replay, judge, write) through its ``hook`` argument; ``judge_runs`` calls it with
``workers`` (every run judged: ``traj judge --all``). Both write a pass, as a real re-judge
does. ``incremental`` is ``traj judge`` without --all: nothing changed, then one task changed.
"""

from __future__ import annotations

import cProfile
import io
import json
import os
import pstats
import resource
import sys
import threading
import time
from pathlib import Path
from typing import Any

from trajectory import judging
from trajectory.store.delta import Store

from .procmem import status_kb, tree_rss_kb


def peak_rss_mb() -> dict[str, float]:
    """Peak resident memory so far, in MiB.

    ``ru_maxrss`` survives fork and exec: a process started from a big one reports the big
    one's size. So the process's own peak is read from /proc (VmHWM, reset by exec) where
    there is one, and ``getrusage`` is kept as reported for reference.
    """
    self_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    child_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    hwm = status_kb(os.getpid(), "VmHWM")
    return {
        "self_mb": round((hwm if hwm is not None else self_kb) / 1024, 1),
        "ru_maxrss_self_mb": round(self_kb / 1024, 1),
        "ru_maxrss_children_mb": round(child_kb / 1024, 1),
    }


class TreeSampler:
    """Samples the resident memory of this process and all its descendants (the judging
    workers) every ``interval`` seconds; ``peak_mb`` is the largest sum seen, ``peak_child_mb``
    the largest single worker. Sampled, so a spike shorter than the interval can be missed."""

    def __init__(self, interval: float = 0.05):
        self.interval = interval
        self.peak_kb = 0
        self.peak_child_kb = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self) -> None:
        me = os.getpid()
        while not self._stop.is_set():
            total, largest = tree_rss_kb(me)
            self.peak_child_kb = max(self.peak_child_kb, largest)
            self.peak_kb = max(self.peak_kb, total)
            self._stop.wait(self.interval)

    def __enter__(self) -> TreeSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self._thread.join()


STAGES = ("select_s", "load_replay_s", "judge_s", "write_s")


def staged(store: Store, partition: int = 2000, timeout: float | None = 60.0) -> dict[str, Any]:
    """One real judge_runs pass on one process, timed by stage through its ``hook``."""
    spent = {stage: 0.0 for stage in STAGES}

    def hook(stage: str, seconds: float) -> None:
        spent[f"{stage}_s"] += seconds

    t0 = time.perf_counter()
    result = judging.judge_runs(
        store, judging.SuiteResolver(store), workers=1, partition=partition, timeout=timeout,
        by="benchmark", command="benchmarks staged", hook=hook,
    )
    total = time.perf_counter() - t0
    stages = {k: round(v, 4) for k, v in spent.items()}
    stages["other_s"] = round(max(0.0, total - sum(spent.values())), 4)
    return {
        "runs": len(result.rows),
        "seconds": round(total, 4),
        "stages": stages,
        "verdicts": {r.run_id: [r.outcome, round(r.score, 9)] for r in result.rows},
    }


def end_to_end(store: Store, workers: int, partition: int = 2000) -> dict[str, Any]:
    """The real judge_runs, timed whole."""
    t0 = time.perf_counter()
    result = judging.judge_runs(
        store, judging.SuiteResolver(store), workers=workers, partition=partition,
        by="benchmark", command=f"benchmarks judge_runs workers={workers}",
    )
    return {
        "runs": len(result.rows),
        "seconds": round(time.perf_counter() - t0, 4),
        "verdicts": {r.run_id: [r.outcome, round(r.score, 9)] for r in result.rows},
    }


def one_task_changed(store: Store, suite_name: str = "device") -> tuple[judging.SuiteResolver, str, list[str]]:
    """A resolver whose ``suite_name`` suite has one task's data changed (what a fix to one
    task file does: that task's judge version changes, no other's, and no verdict), the task,
    and the finished runs of it. The task with the most finished runs is taken."""
    import suites as suite_pkg
    from msgspec.structs import replace

    from trajectory.query.sql import Views

    with Views(store, split=None) as views:
        rows = views.con.execute(
            "SELECT task, list(run_id ORDER BY run_id) FROM events WHERE kind = 'run_finished' AND suite = ? "
            "GROUP BY task ORDER BY count(*) DESC, task LIMIT 1", [suite_name]
        ).fetchall()
    if not rows:
        raise RuntimeError(f"no finished {suite_name} runs to change a task of")
    task, runs = rows[0]
    suite = suite_pkg.load_builtin(suite_name)
    tf = suite.tasks[task]
    suite.tasks[task] = replace(tf, raw={**tf.raw, "maxSteps": (tf.raw.get("maxSteps") or 0) + 1})
    return judging.SuiteResolver(store, overrides={a: suite for a in suite_pkg.aliases(suite)}), task, runs


def incremental(store: Store, partition: int = 2000) -> dict[str, Any]:
    """``traj judge`` without --all, twice: with nothing changed since the last pass, then
    after one task's data changed. Timed inside the call (the process's start-up is the
    difference to its wall time, measured by the parent)."""
    t0 = time.perf_counter()
    none = judging.judge_runs(store, judging.SuiteResolver(store), incremental=True, partition=partition,
                              by="benchmark", command="benchmarks incremental (nothing changed)")
    t_none = time.perf_counter() - t0
    resolver, task, runs = one_task_changed(store)
    before = {r["run_id"]: r for r in judging.current_rows(store, runs).values()}
    t0 = time.perf_counter()
    result = judging.judge_runs(store, resolver, incremental=True, partition=partition,
                                by="benchmark", command=f"benchmarks incremental (task {task} changed)")
    t_one = time.perf_counter() - t0
    judged = sorted(r.run_id for r in result.rows)
    same = all(
        (r.outcome, round(r.score, 9)) == (before[r.run_id]["outcome"], round(before[r.run_id]["score"], 9))
        for r in result.rows if r.run_id in before
    )
    return {
        "nothing_changed": {"seconds": round(t_none, 4), "judged": len(none.rows), "up_to_date": none.up_to_date},
        "one_task": {
            "task": task, "seconds": round(t_one, 4), "judged": len(judged), "runs_of_task": len(runs),
            "judged_exactly_its_runs": judged == sorted(runs), "up_to_date": result.up_to_date,
            "same_verdicts_as_full_pass": same and len(before) == len(runs),
        },
    }


def top_functions(profile: cProfile.Profile, n: int = 15) -> list[str]:
    """The ``n`` functions with the most cumulative time, one line each."""
    out = io.StringIO()
    stats = pstats.Stats(profile, stream=out)
    stats.sort_stats("cumulative").print_stats(n)
    lines = [ln.rstrip() for ln in out.getvalue().splitlines()]
    start = next((i for i, ln in enumerate(lines) if ln.lstrip().startswith("ncalls")), 0)
    return [ln for ln in lines[start:] if ln.strip()]


def run(spec: dict[str, Any]) -> dict[str, Any]:
    store = Store(Path(spec["store"]))
    partition = int(spec.get("partition", 2000))
    profile = cProfile.Profile() if spec.get("profile") else None
    if profile is not None:
        profile.enable()
    with TreeSampler() as sampler:
        if spec["mode"] == "staged":
            out = staged(store, partition)
        elif spec["mode"] == "incremental":
            out = incremental(store, partition)
        else:
            out = end_to_end(store, int(spec.get("workers", 1)), partition)
    if profile is not None:
        profile.disable()
        out["profile"] = top_functions(profile, 25)
    out["peak_rss"] = {
        **peak_rss_mb(),
        "tree_peak_mb": round(sampler.peak_kb / 1024, 1),
        "largest_worker_mb": round(sampler.peak_child_kb / 1024, 1),
    }
    verdict_file = spec.get("verdicts_out")
    if verdict_file:
        Path(verdict_file).write_text(json.dumps(out["verdicts"]))
    if "verdicts" in out:
        out["outcomes"] = _count(v[0] for v in out.pop("verdicts").values())
    return out


def _count(values: Any) -> dict[str, int]:
    out: dict[str, int] = {}
    for v in values:
        out[v] = out.get(v, 0) + 1
    return dict(sorted(out.items()))


if __name__ == "__main__":
    print(json.dumps(run(json.loads(sys.argv[1]))))
