"""Running judges: one run at a time under a time budget, partitions in this process or on a
pool of worker processes, a watchdog for judges that swallow the soft stop.

Nothing here is global to a process: a pass carries a :class:`PassContext` (picklable, suites as
specs), and each process that judges makes one :class:`Judging` from it (its resolver, its DuckDB
connection, its version cache, and in a pool worker its watchdog). Two passes at once in one
process do not share anything. The only process-level value is in a pool worker, which serves
one pass and holds that pass's :class:`Judging` for the partitions it is sent.
"""

from __future__ import annotations

import dataclasses
import os
import signal
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

import msgspec

from judges.base import Verdict
from judges.contract import Pairing
from judges.memo import TextMemo, reading
from replay import ReplayError
from replay.state import RunState

from trajectory.runtime import collector, interrupts, pools
from trajectory.query.sql import Views, run_splits
from trajectory.judging.partitions import Partition
from trajectory.judging.context import PassContext
from trajectory.judging.hung import add_hung_verdicts
from trajectory.judging.passes import Unjudged, verdict_row
from trajectory.records import VerdictRow
from trajectory.judging.resolve import SuiteResolver, error_line
from trajectory.judging.selection import batch_states, load_partners, with_judgements

#: ``hook(stage, seconds)``: told how long each stage of a pass took (select, load_replay,
#: judge, write), for the benchmarks; see judge_runs.
StageHook = Callable[[str, float], None]


class JudgeTimeout(BaseException):
    """A judge ran past its per-run time budget. A BaseException, so that a judge's own broad
    ``except Exception`` cannot swallow it."""


def run_with_budget(fn: Callable[[], Any], seconds: float | None) -> Any:
    """Call ``fn`` and interrupt it after ``seconds`` (SIGALRM; main thread of a process only)."""
    if not seconds or threading.current_thread() is not threading.main_thread():
        return fn()

    def alarm(signum: int, frame: Any) -> None:
        raise JudgeTimeout(f"judge exceeded its time budget of {seconds:g}s")

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return fn()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


#: What judging a partition gives, in run order: a verdict row per run, or, for a run whose
#: suite or task cannot be resolved, an Unjudged (the pass leaves it with its current verdict).
Rows = list[VerdictRow | Unjudged]


def unresolved(resolver: SuiteResolver, state: RunState) -> str | None:
    """``"suite"`` when no suite of the run's name is registered or bundled, ``"task"`` when its
    suite has no task of the run's id (``get_task`` raises KeyError, as the suite contract
    says), else None. A suite that is registered but fails to load, or a task that fails to
    build for another reason, is not unresolved: its runs get an error verdict that says why."""
    suite = resolver.get(state.suite)
    if suite is None:
        return None if (state.suite or "") in resolver.problems else "suite"
    try:
        suite.get_task(state.task or "", state.params)
    except KeyError:
        return "task"
    except Exception:  # noqa: BLE001 - judge_state gives it an error verdict with the reason
        return None
    return None


def judge_state(
    resolver: SuiteResolver,
    state: RunState,
    partner: RunState | None = None,
    versions: dict[tuple[str | None, str | None, bytes], str] | None = None,
) -> tuple[Verdict, str]:
    """The verdict for one replayed run and the judge version; never raises.

    ``partner``: the finished run of the other round of this run's pair, for suites that are
    ``Pairing`` (see :func:`load_partners`). The judge signature stays ``(task, state)``: the
    partner rides on the task object, and the judge version still hashes only the task's own
    data. ``versions``: a cache of versions by suite, task and parameters (a task's definition
    is fixed for the life of a suite object; hashing it again for each of its runs is waste).
    """
    suite = resolver.get(state.suite)
    if suite is None:
        return Verdict.error(resolver.problems.get(state.suite or "") or f"unknown suite {state.suite!r}"), "unknown"
    try:
        task = suite.get_task(state.task or "", state.params)
        if partner is not None and isinstance(suite, Pairing):
            task = suite.bind_partner(task, partner)
    except Exception as exc:  # noqa: BLE001 - any failure to find the task is this run's error
        return Verdict.error(f"unknown task {state.task!r} in suite {state.suite!r}: {error_line(exc)}"), "unknown"
    try:
        key = (state.suite, state.task, msgspec.json.encode(state.params, order="sorted"))
        version = versions.get(key) if versions is not None else None
        if version is None:
            version = suite.version(task)
            if versions is not None:
                versions[key] = version
    except Exception as exc:  # noqa: BLE001
        return Verdict.error(f"cannot version the judge: {error_line(exc)}"), "unknown"
    try:
        verdict = suite.judge(task, state)
        if not isinstance(verdict, Verdict):
            raise TypeError(f"judge returned {type(verdict).__name__}, not a Verdict")
    except Exception as exc:  # noqa: BLE001 - a judge that raises gives this run an error verdict
        return Verdict.error(f"judge raised {type(exc).__name__}: {error_line(exc)}"), version
    return verdict, version


class Watchdog:
    """The hard stop for a judge that catches even JudgeTimeout: a thread in a worker that
    writes the run's id where the parent finds it and ends the process."""

    def __init__(self, folder: str):
        self.folder = folder
        self.run_id: str | None = None
        self.deadline = 0.0
        threading.Thread(target=self._watch, daemon=True).start()

    def arm(self, run_id: str, seconds: float) -> None:
        self.deadline = time.monotonic() + seconds
        self.run_id = run_id

    def disarm(self) -> None:
        self.run_id = None

    def _watch(self) -> None:
        while True:
            time.sleep(0.05)
            run_id = self.run_id
            if run_id is not None and time.monotonic() > self.deadline:
                self.record(run_id)
                os._exit(70)

    def record(self, run_id: str) -> None:
        """Tell the parent which run hung (another engine tells it its own way)."""
        path = os.path.join(self.folder, f"{os.getpid()}.hung")
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(run_id)


class Judging:
    """One process's share of a pass."""

    def __init__(
        self,
        ctx: PassContext,
        resolver: SuiteResolver | None = None,
        watchdog: Watchdog | None = None,
        hook: StageHook | None = None,
        views: Views | None = None,
    ):
        """``views``: an open connection on the store (the pass's own), closed with this."""
        self.ctx = ctx
        self.resolver = resolver or SuiteResolver.from_specs(ctx.specs)
        self.watchdog = watchdog
        self.hook = hook
        self.versions: dict[tuple[str | None, str | None, bytes], str] = {}
        # The pass's memory of the texts its judges read (judges.memo): screens and answers
        # repeat across runs, and each is read once here, whatever partition it is in.
        self.memo = TextMemo()
        self.spent: dict[str, float] = {}
        self._views: Views | None = views

    def close(self) -> None:
        if self._views is not None:
            self._views.close()
            self._views = None

    def _timed(self, stage: str, started: float) -> None:
        seconds = time.perf_counter() - started
        self.spent[stage] = self.spent.get(stage, 0.0) + seconds
        if self.hook is not None:
            self.hook(stage, seconds)

    @property
    def views(self) -> Views:
        if self._views is None:
            # In a pool of workers each process already takes a core: one DuckDB thread apiece.
            self._views = Views(self.ctx.store, split=None, threads=1 if self.watchdog else 2)
        return self._views

    def judge_one(self, state: RunState, partner: RunState | None) -> tuple[Verdict, str]:
        """The verdict of one run within its time budget; twice the budget in a worker kills it."""
        seconds = self.ctx.timeout
        if seconds and self.watchdog is not None:
            self.watchdog.arm(state.run_id, 2 * seconds)
        try:
            return run_with_budget(lambda: judge_state(self.resolver, state, partner, self.versions), seconds)
        except JudgeTimeout as exc:
            return Verdict.error(str(exc)), self.version_of(state)
        finally:
            if self.watchdog is not None:
                self.watchdog.disarm()

    def version_of(self, state: RunState) -> str:
        suite = self.resolver.get(state.suite)
        try:
            if suite is not None:
                return suite.version(suite.get_task(state.task or "", state.params))
        except Exception:  # noqa: BLE001
            pass
        return "unknown"

    def partition(self, part: Partition | Sequence[str]) -> tuple[Rows, dict[str, str]]:
        """Verdict rows of these runs, in their order, and the code version of each suite."""
        # A partition's states and readings are many small acyclic objects (runtime.collector).
        with collector.paused():
            return self._partition(part)

    def _partition(self, part: Partition | Sequence[str]) -> tuple[Rows, dict[str, str]]:
        ctx = self.ctx
        bounds = part if isinstance(part, Partition) else None
        run_ids = part.runs if isinstance(part, Partition) else part
        t = time.perf_counter()
        # Each run is replayed with what its own suite's judge reads (see replay.batch).
        names = {ctx.suites.get(r) for r in run_ids}
        reads = {n: self.resolver.reads(n) for n in names if n is not None}
        broken: dict[str, ReplayError] = {}
        states = {
            r: with_judgements(st, ctx.judgements)
            for r, st in batch_states(ctx.store, run_ids, reads, self.views, errors=broken, bounds=bounds).items()
        }
        partners = load_partners(ctx.store, self.resolver, states, self.views)
        splits = ctx.splits if all(r in ctx.splits for r in run_ids) else run_splits(self.views, run_ids)
        self._timed("load_replay", t)
        t = time.perf_counter()
        rows = []
        versions: dict[str, str] = {}
        with reading(self.memo):
            self._judge_all(run_ids, states, partners, broken, splits, rows, versions)
        self._timed("judge", t)
        return rows, versions

    def _judge_all(
        self, run_ids: Sequence[str], states: dict[str, RunState], partners: dict[str, RunState],
        broken: dict[str, ReplayError], splits: dict[str, Any], rows: Rows, versions: dict[str, str],
    ) -> None:
        ctx = self.ctx
        for run_id in run_ids:
            state = states[run_id]
            partner = partners.get(run_id)
            why = unresolved(self.resolver, state)
            if why is not None:
                # Nothing here can judge this run: it keeps the verdict it has (see judge_runs).
                rows.append(Unjudged(run_id=run_id, suite=state.suite, task=state.task, unknown=why))
                continue
            if run_id in broken:
                # The run's events cannot be replayed: its verdict says which event; the pass goes on.
                verdict, version = Verdict.error(f"cannot replay: {broken[run_id]}"), self.version_of(state)
            else:
                verdict, version = self.judge_one(state, partner)
            suite = self.resolver.get(state.suite)
            if suite is not None and (state.suite or "") not in versions:
                versions[state.suite or ""] = suite.code_version()
            rows.append(verdict_row(
                ctx.pass_id, state, verdict, version, ctx.at, splits.get(run_id),
                partner=None if partner is None else partner.run_id, judgements=len(ctx.judgements),
            ))


# -- the pool ---------------------------------------------------------------------------------

# In a pool worker only: the Judging of the one pass this worker process serves.
_POOL_WORKER: list[Judging] = []


def _init_pool_worker(ctx: PassContext, folder: str) -> None:
    _POOL_WORKER[:] = [Judging(ctx, watchdog=Watchdog(folder))]


def _judge_in_worker(part: Partition) -> tuple[Rows, dict[str, str], dict[str, float]]:
    judging = _POOL_WORKER[0]
    judging.spent = {}
    rows, versions = judging.partition(part)
    return rows, versions, dict(judging.spent)


def _start_pool(workers: int, ctx: PassContext, folder: str, todo: dict[str, Partition]) -> tuple[Any, dict[Any, str]]:
    """Make the pool and submit the partitions; the pool spawns its workers here, with Ctrl-C
    held until every one is registered (trajectory.runtime.pools)."""
    pool = None
    try:
        with pools.spawning():
            pool = pools.spawned_pool(workers, _init_pool_worker, (ctx, folder))
            futures = {pool.submit(_judge_in_worker, part): key for key, part in todo.items() if part.runs}
    except BaseException:  # the Ctrl-C held above comes out here, once the workers exist
        if pool is not None:
            pools.tear_down(pool)
        raise
    return pool, futures


def judge_on_workers(
    parts: list[Partition],
    workers: int,
    ctx: PassContext,
    parent: Judging,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, tuple[Rows, dict[str, str]]]:
    """Judge partitions on spawned processes (forking a process that runs DuckDB threads can
    deadlock the child). A worker killed by its watchdog breaks the pool: the run it was on
    gets an error verdict, and the partitions not yet done are judged again on a fresh pool
    without that run. On Ctrl-C (or any error) the pool is torn down before it propagates."""
    import concurrent.futures as cf

    done: dict[str, tuple[Rows, dict[str, str]]] = {}
    hung: dict[str, str] = {}
    pending = {p.runs[0]: p for p in parts}
    total = sum(len(p.runs) for p in parts)
    with interrupts.scratch_folder("traj-judge-") as folder:
        while pending:
            todo = {
                key: dataclasses.replace(p, runs=tuple(r for r in p.runs if r not in hung)) for key, p in pending.items()
            }
            pool, futures = _start_pool(min(workers, len(todo)), ctx, folder, todo)
            try:
                for key, part in todo.items():
                    if not part.runs:
                        done[key] = ([], {})
                        pending.pop(key)
                broken = False
                for fut in cf.as_completed(futures):
                    key = futures[fut]
                    try:
                        rows, versions, spent = fut.result()
                    except cf.process.BrokenProcessPool:
                        broken = True
                        continue
                    done[key] = (rows, versions)
                    pending.pop(key)
                    for stage, seconds in spent.items():
                        if parent.hook is not None:
                            parent.hook(stage, seconds)
                    if progress is not None:
                        progress(sum(len(d[0]) for d in done.values()), total)
                pool.shutdown(wait=True)
            except BaseException:
                pools.tear_down(pool)
                raise
            if broken:
                found = False
                for name in os.listdir(folder):
                    path = os.path.join(folder, name)
                    with open(path, encoding="utf-8") as fh:
                        run_id = fh.read().strip()
                    os.unlink(path)
                    if run_id:
                        hung[run_id] = run_id
                        found = True
                if not found:
                    raise RuntimeError("a judging worker died without its watchdog saying why")
    add_hung_verdicts(done, parts, hung, ctx, parent.resolver, parent.version_of)
    return done
