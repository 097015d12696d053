"""Judging passes: replay finished runs, call each suite's pure judge, append the verdicts.

A pass is atomic. All its verdicts are appended in one commit, then one row in ``passes``
makes them visible: the views join verdicts to passes, so a pass killed before its pass row is
written leaves no visible trace, and one killed after has left everything.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import json
import os
import secrets
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import multiprocessing
import signal
import threading
import time
import weakref

import msgspec
import pyarrow as pa

import suites as suite_pkg
from judges.base import Check, Suite, Verdict
from replay import replay
from replay.batch import ALL as ALL_READS
from replay.batch import Reads, batch_sql, build_state
from replay.state import Judgement, RunState

from . import events as ev
from .errors import NotFound, QueryError
from .query import Views, check_sql
from .store import Store, now_utc
from .trust import trusted_runs

# -- suites ---------------------------------------------------------------------------------


class SuiteResolver:
    """Finds the suite for a run's ``suite`` name: a folder registered with the store first,
    then the bundled suites. ``overrides`` (tests, the demo's fixed copy) win over both."""

    def __init__(self, store: Store | None = None, overrides: dict[str, Suite] | None = None):
        self.store = store
        self.overrides = dict(overrides or {})
        self._cache: dict[str, Suite | None] = {}
        self.problems: dict[str, str] = {}  # suite name -> why its registered folder did not load
        self._builtin: dict[str, Suite] | None = None

    def registered(self) -> dict[str, dict[str, Any]]:
        """Suite name -> its latest registration ({path, at, by})."""
        if self.store is None or not self.store.has_table("meta"):
            return {}
        out: dict[str, dict[str, Any]] = {}
        for row in sorted(self.store.read("meta").to_pylist(), key=lambda r: r["at"]):
            if row["kind"] == "suite":
                out[row["key"]] = {**json.loads(row["data"]), "at": row["at"], "by": row["by"]}
        return out

    def builtin(self) -> dict[str, Suite]:
        if self._builtin is None:
            self._builtin = {}
            for name in suite_pkg.builtin_names():
                suite = suite_pkg.load_builtin(name)
                for alias in getattr(suite, "names", None) or (suite.name,):
                    self._builtin.setdefault(alias, suite)
        return self._builtin

    def get(self, name: str | None) -> Suite | None:
        if name is None:
            return None
        if name in self.overrides:
            return self.overrides[name]
        if name not in self._cache:
            reg = self.registered().get(name)
            if reg is not None:
                try:
                    self._cache[name] = suite_pkg.load_folder(Path(reg["path"]))
                except Exception as exc:  # noqa: BLE001 - a broken suite folder errs its runs, not the pass
                    self._cache[name] = None
                    self.problems[name] = (
                        f"suite {name!r} cannot be loaded from {reg['path']}: {type(exc).__name__}: {_msg(exc)}"
                    )
            else:
                self._cache[name] = self.builtin().get(name)
        return self._cache[name]

    def split_of(self, suite: str, task: str) -> str | None:
        s = self.get(suite)
        if s is None:
            return None
        try:
            return s.task_split(task)
        except Exception:  # noqa: BLE001 - an unknown task simply has no own split
            return None


def register_suite(store: Store, name: str, path: str | os.PathLike[str], by: str | None = None) -> None:
    from .query import _user

    row = {
        "kind": ["suite"],
        "key": [name],
        "at": [now_utc()],
        "by": [by or os.environ.get("TRAJ_USER") or _user()],
        "data": [json.dumps({"path": str(Path(path).absolute())})],
    }
    store.append("meta", pa.table(row))


# -- selecting and loading runs ----------------------------------------------------------------


@dataclasses.dataclass
class Selection:
    finished: list[str]
    open: list[str]
    suites: dict[str, str | None] = dataclasses.field(default_factory=dict)


def select_runs(
    store: Store,
    *,
    suite: str | None = None,
    run_ids: Sequence[str] | None = None,
    where: str | None = None,
    batch: str | None = None,
) -> Selection:
    """Runs matching the filters (all pools: holdout runs are judged too, only shown apart)."""
    conds = ["TRUE"]
    params: list[Any] = []
    if suite:
        conds.append("suite = ?")
        params.append(suite)
    if batch:
        conds.append("batch = ?")
        params.append(batch)
    if run_ids:
        conds.append("list_contains(?, run_id)")
        params.append(list(run_ids))
    if where:
        conds.append(f"({where})")
    conds.append(f"suite IS DISTINCT FROM '{JUDGEMENT_SUITE}'")
    sql = "SELECT run_id, outcome IS NOT NULL AS finished, suite FROM _runs_all WHERE " + " AND ".join(conds)
    with Views(store, split=None) as views:
        if where:
            # The condition is a person's SQL: the whole statement goes through the sandbox.
            check_sql(views.con, f"SELECT run_id FROM runs WHERE ({where})")
        try:
            rows = views.con.execute(sql + " ORDER BY run_id", params).fetchall()
        except Exception as exc:
            raise QueryError(f"--where: {str(exc).splitlines()[0]}") from exc
    if run_ids:
        found = {r[0] for r in rows}
        missing = [r for r in run_ids if r not in found]
        if missing:
            raise NotFound(f"no such run: {', '.join(missing[:5])}")
    return Selection(
        [r[0] for r in rows if r[1]], [r[0] for r in rows if not r[1]], {r[0]: r[2] for r in rows if r[1]}
    )


def load_events(store: Store, run_ids: Sequence[str], version: int | None = None) -> dict[str, list[ev.Event]]:
    """Decoded events of the given runs, in seq order."""
    out: dict[str, list[ev.Event]] = {r: [] for r in run_ids}
    if not run_ids:
        return out
    with Views(store, split=None, version=version) as views:
        views.con.register("_wanted", pa.table({"run_id": list(run_ids)}))
        table = views.arrow(
            "SELECT run_id, data FROM events WHERE run_id IN (SELECT run_id FROM _wanted) "
            "ORDER BY run_id, seq"
        )
    decode = ev.DECODER.decode
    for run_id, data in zip(table.column("run_id").to_pylist(), table.column("data").to_pylist()):
        out[run_id].append(decode(data))
    return out


def load_state(store: Store, run_id: str, at: int | None = None) -> RunState:
    events = load_events(store, [run_id])[run_id]
    if not events:
        raise NotFound(f"no such run: {run_id}")
    if at is not None:
        if at < 0:
            raise NotFound(f"run {run_id}: --at must be >= 0")
        events = [e for e in events if e.seq <= at]
    return replay(events)


# -- judging ----------------------------------------------------------------------------------


# Per suite object (weakly held: a suite that goes away takes its cache with it, and a new
# object can never inherit an old one's versions).
_VERSIONS: weakref.WeakKeyDictionary[Suite, dict[tuple[str | None, bytes], str]] = weakref.WeakKeyDictionary()


def _cached_version(suite: Suite, state: RunState, task: Any) -> str:
    """``suite.version(task)``, computed once per suite object, task id and parameters.

    The version hashes the task's definition data, which a task id and its parameters fix for
    the life of a suite object; hashing it again for each of a task's thousand runs is waste.
    """
    cache = _VERSIONS.setdefault(suite, {})
    key = (state.task, msgspec.json.encode(state.params, order="sorted"))
    version = cache.get(key)
    if version is None:
        version = cache[key] = suite.version(task)
    return version


def judge_state(
    resolver: SuiteResolver, state: RunState, partner: RunState | None = None
) -> tuple[Verdict, str]:
    """The verdict for one replayed run and the judge version; never raises.

    ``partner``: the finished run of the other round of this run's pair, for suites that judge
    a pair together (they define ``bind_partner(task, partner_state) -> task``, see
    :func:`load_partners`). The judge signature stays ``(task, state)``: the partner rides on
    the task object, and the judge version still hashes only the task's own data.
    """
    suite = resolver.get(state.suite)
    if suite is None:
        return Verdict.error(resolver.problems.get(state.suite or "") or f"unknown suite {state.suite!r}"), "unknown"
    try:
        task = suite.get_task(state.task or "", state.params)
        if partner is not None and hasattr(suite, "bind_partner"):
            task = suite.bind_partner(task, partner)
    except Exception as exc:  # noqa: BLE001 - any failure to find the task is this run's error
        return Verdict.error(f"unknown task {state.task!r} in suite {state.suite!r}: {_msg(exc)}"), "unknown"
    try:
        version = _cached_version(suite, state, task)
    except Exception as exc:  # noqa: BLE001
        return Verdict.error(f"cannot version the judge: {_msg(exc)}"), "unknown"
    try:
        verdict = suite.judge(task, state)
        if not isinstance(verdict, Verdict):
            raise TypeError(f"judge returned {type(verdict).__name__}, not a Verdict")
    except Exception as exc:  # noqa: BLE001 - a judge that raises gives this run an error verdict
        return Verdict.error(f"judge raised {type(exc).__name__}: {_msg(exc)}"), version
    return verdict, version


def _msg(exc: BaseException) -> str:
    text = str(exc).strip()
    if isinstance(exc, KeyError) and len(exc.args) == 1 and isinstance(exc.args[0], str):
        text = exc.args[0]
    return text.splitlines()[0] if text else type(exc).__name__


def _json(value: Any) -> str:
    return msgspec.json.encode(value, enc_hook=_enc_hook).decode()


def _enc_hook(value: Any) -> Any:
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=str)
    if hasattr(value, "pattern"):  # re.Pattern
        return f"re:{value.pattern}"
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return str(value)


def verdict_row(pass_id: str, state: RunState, verdict: Verdict, version: str, at: _dt.datetime) -> dict[str, Any]:
    return {
        "pass_id": pass_id,
        "run_id": state.run_id,
        "suite": state.suite,
        "task": state.task,
        "batch": state.batch,
        "split": state.split,
        "outcome": verdict.outcome,
        "score": float(verdict.score),
        "reason": verdict.reason,
        "checks": [
            {
                "name": c.name,
                "passed": bool(c.passed),
                "expected": _json(c.expected),
                "actual": _json(c.actual),
                "reason": c.reason,
            }
            for c in verdict.checks
        ],
        "judge_version": version,
        "judged_at": at,
        "details": None if verdict.details is None else _json(verdict.details),
    }


def new_pass_id(at: _dt.datetime) -> str:
    # Sorts by time, then by a random tail so that two passes in one microsecond still differ.
    return f"p{at.strftime('%Y%m%dT%H%M%S%f')}-{secrets.token_hex(2)}"


@dataclasses.dataclass
class PassResult:
    pass_id: str
    started_at: _dt.datetime
    finished_at: _dt.datetime
    rows: list[dict[str, Any]]
    open_runs: int
    written: bool
    versions: dict[str, str]

    @property
    def counts(self) -> Counter[str]:
        return Counter(r["outcome"] for r in self.rows)

    def summary(self) -> str:
        c = self.counts
        parts = ", ".join(f"{c[k]} {k}" for k in ("pass", "fail", "error", "skipped", "na") if c[k])
        line = f"pass {self.pass_id}: judged {len(self.rows)} runs" + (f" ({parts})" if parts else "")
        if self.open_runs:
            line += f"; left {self.open_runs} open run{'s' if self.open_runs != 1 else ''} unjudged"
        if not self.written:
            line += " [dry run: nothing written]"
        return line


JUDGEMENT_SUITE = "traj.judgements"


def recorded_judgements(store: Store) -> tuple[Judgement, ...]:
    """Every LLM judgement recorded in the store's judgement runs.

    A judgement cannot be appended to the run it judges (nothing may follow run_finished), so
    ``traj judge --llm`` records the answers in a run of its own (suite ``traj.judgements``).
    They are keyed by judge, model and prompt hash, so any run whose prompt is the same gets
    the same recorded answer back: re-judging never asks the model twice for one prompt.

    Only registered judgement runs count (see trajectory/trust.py), oldest registration first,
    so the latest answer is the last one recorded, whatever ``ts`` its events carry.
    """
    order = trusted_runs(store)
    if not order or not store.has_table("events"):
        return ()
    with Views(store, split=None) as views:
        table = views.arrow(
            "SELECT run_id, seq, data FROM events WHERE kind = 'judgement_recorded' AND suite = ? "
            "AND list_contains(?, run_id)",
            [JUDGEMENT_SUITE, list(order)],
        )
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


def load_partners(
    store: Store, resolver: SuiteResolver, states: dict[str, RunState], views: Views | None = None
) -> dict[str, RunState]:
    """run_id -> the replayed state of its pair partner, for runs of suites with ``bind_partner``.

    The partner is the finished run with the same ``pair_id`` and the other ``pair_round``
    (the first by run_id if there are several); it need not be among the runs being judged.
    An open partner is left out: an unfinished second attempt is not a second attempt yet.
    """
    wanted = {
        rid: st for rid, st in states.items()
        if st.pair_id is not None and hasattr(resolver.get(st.suite), "bind_partner")
    }
    if not wanted:
        return {}
    own = views is None
    views = views or Views(store, split=None)
    try:
        views.con.register("_pairs", pa.table({"pair_id": sorted({st.pair_id for st in wanted.values()})}))
        # Straight from the events (pair_id is a typed column on every event of a run): the
        # runs view would aggregate the whole table for each partition.
        rows = views.con.execute(
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
    loaded = {**states, **{r: replay(e) for r, e in load_events(store, missing).items()}}
    return {rid: loaded[p] for rid, p in chosen.items()}


class JudgeTimeout(BaseException):
    """A judge ran past its per-run time budget. A BaseException, so that a judge's own broad
    ``except Exception`` cannot swallow it."""


def _run_with_budget(fn: Callable[[], Any], seconds: float | None) -> Any:
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


def judge_with_budget(
    resolver: SuiteResolver, state: RunState, partner: RunState | None, seconds: float | None
) -> tuple[Verdict, str]:
    if seconds and "watchdog" in _WORKER:
        # In a worker, a judge that swallows the soft stop is killed at twice its budget.
        _WORKER["watchdog"].arm(state.run_id, 2 * seconds)
    try:
        return _run_with_budget(lambda: judge_state(resolver, state, partner), seconds)
    except JudgeTimeout as exc:
        return Verdict.error(str(exc)), _version_of(resolver, state)
    finally:
        if "watchdog" in _WORKER:
            _WORKER["watchdog"].disarm()


def _version_of(resolver: SuiteResolver, state: RunState) -> str:
    suite = resolver.get(state.suite)
    try:
        if suite is not None:
            return suite.version(suite.get_task(state.task or "", state.params))
    except Exception:  # noqa: BLE001
        pass
    return "unknown"


class _Watchdog:
    """The hard stop for a judge that catches even JudgeTimeout: a thread in the worker that
    writes the run's id where the parent finds it and ends the process."""

    def __init__(self, folder: str):
        self.folder = folder
        self.run_id: str | None = None
        self.deadline = 0.0
        thread = threading.Thread(target=self._watch, daemon=True)
        thread.start()

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
                path = os.path.join(self.folder, f"{os.getpid()}.hung")
                with open(path, "w", encoding="utf-8") as fh:
                    fh.write(run_id)
                os._exit(70)


def _init_pool_worker(context: dict[str, Any], folder: str) -> None:
    _init_worker(context)
    _WORKER["watchdog"] = _Watchdog(folder)


def _judge_on_workers(
    parts: list[list[str]], workers: int, context: dict[str, Any]
) -> dict[str, tuple[list[dict[str, Any]], dict[str, str]]]:
    """Judge partitions on spawned processes. A worker killed by its watchdog breaks the pool:
    the run it was on gets an error verdict, and the partitions not yet done are judged again
    on a fresh pool without that run."""
    import concurrent.futures as cf
    import tempfile

    done: dict[str, tuple[list[dict[str, Any]], dict[str, str]]] = {}
    hung: dict[str, str] = {}
    pending = {p[0]: list(p) for p in parts}
    with tempfile.TemporaryDirectory(prefix="traj-judge-") as folder:
        while pending:
            ctx = multiprocessing.get_context("spawn")
            todo = {key: [r for r in runs if r not in hung] for key, runs in pending.items()}
            with cf.ProcessPoolExecutor(
                min(workers, len(todo)), mp_context=ctx,
                initializer=_init_pool_worker, initargs=(context, folder),
            ) as pool:
                futures = {pool.submit(_judge_partition, runs): key for key, runs in todo.items() if runs}
                for key, runs in todo.items():
                    if not runs:
                        done[key] = ([], {})
                        pending.pop(key)
                broken = False
                for fut in cf.as_completed(futures):
                    key = futures[fut]
                    try:
                        done[key] = fut.result()
                        pending.pop(key)
                    except cf.process.BrokenProcessPool:
                        broken = True
            if broken:
                found = False
                for name in os.listdir(folder):
                    path = os.path.join(folder, name)
                    with open(path, encoding="utf-8") as fh:
                        run_id = fh.read().strip()
                    os.unlink(path)
                    if run_id:
                        hung[run_id] = key
                        found = True
                if not found:
                    raise RuntimeError("a judging worker died without its watchdog saying why")
        # Each run the watchdog killed gets its error verdict in its partition, in run order.
        for run_id in hung:
            key = next(k for k, p in ((p[0], p) for p in parts) if run_id in p)
            part_rows, versions = done[key]
            store = context["store"]
            state = batch_states(store, [run_id], Reads(screens=0, steps=False)).get(run_id)
            assert state is not None
            verdict = Verdict.error(
                f"judge did not stop at its time budget of {context['timeout']:g}s; its worker was killed"
            )
            resolver = context["resolver"]
            row = verdict_row(context["pass_id"], state, verdict, _version_of(resolver, state), context["at"])
            order = {r: i for i, r in enumerate(next(p for p in parts if p[0] == key))}
            part_rows = sorted(part_rows + [row], key=lambda r: order[r["run_id"]])
            done[key] = (part_rows, versions)
    return done


def batch_states(
    store: Store,
    run_ids: Sequence[str],
    reads: Reads | dict[str, Reads] = ALL_READS,
    views: Views | None = None,
) -> dict[str, RunState]:
    """Replayed states of many runs through the vectorised path (see replay.batch).

    ``reads`` per suite builds each run with what its own judge reads. The runs' ids bound the
    scan (``run_id BETWEEN`` the least and the greatest), so that DuckDB skips the row groups
    of other runs instead of reading every event's JSON to filter it.
    """
    if not run_ids:
        return {}
    own = views is None
    views = views or Views(store, split=None)
    try:
        views.con.register("_wanted", pa.table({"run_id": list(run_ids)}))
        lo, hi = min(run_ids), max(run_ids)
        source = (
            "(SELECT * FROM events WHERE run_id BETWEEN ? AND ? "
            "AND run_id IN (SELECT run_id FROM _wanted))"
        )
        table = views.con.sql(batch_sql(reads, source), params=[lo, hi]).to_arrow_table()
        views.con.unregister("_wanted")
    finally:
        if own:
            views.close()
    none = Reads(screens=0, steps=False)
    out = {}
    for row in table.to_pylist():
        r = reads if isinstance(reads, Reads) else reads.get(row["suite"], none)
        out[row["run_id"]] = build_state(row, r)
    return out


def _reads_of(resolver: SuiteResolver, suite_name: str | None) -> Reads:
    """What the judge of this suite reads (nothing much for an unknown suite: its runs get an
    error verdict without being looked at)."""
    suite = resolver.get(suite_name)
    if suite is None:
        return Reads(screens=0, steps=False)
    return getattr(suite, "reads", ALL_READS)


# The judging context of this process: set in the parent for in-process judging, and in each
# worker by its initializer (workers are spawned: forking a process that runs DuckDB threads
# can deadlock the child on a lock held by a thread that does not exist there).
_WORKER: dict[str, Any] = {}


def _init_worker(context: dict[str, Any]) -> None:
    _WORKER.clear()
    _WORKER.update(context)


def _judge_partition(run_ids: Sequence[str]) -> tuple[list[dict[str, Any]], dict[str, str]]:
    w = _WORKER
    store: Store = w["store"]
    resolver: SuiteResolver = w["resolver"]
    # Each run is replayed with what its own suite's judge reads (see replay.batch).
    names = {w["suites"].get(r) for r in run_ids}
    reads = {n: _reads_of(resolver, n) for n in names if n is not None}
    if "views" not in w:
        # In a pool of workers each process already takes a core: one DuckDB thread apiece.
        w["views"] = Views(store, split=None, threads=1 if "watchdog" in w else 2)
    states = {}
    for r, st in batch_states(store, run_ids, reads, w["views"]).items():
        states[r] = with_judgements(st, w["judgements"])
    partners = load_partners(store, resolver, states, w["views"])
    rows = []
    versions: dict[str, str] = {}
    for run_id in run_ids:
        state = states[run_id]
        verdict, version = judge_with_budget(resolver, state, partners.get(run_id), w["timeout"])
        suite = resolver.get(state.suite)
        if suite is not None and (state.suite or "") not in versions:
            versions[state.suite or ""] = suite.code_version()
        rows.append(verdict_row(w["pass_id"], state, verdict, version, w["at"]))
    return rows, versions


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
) -> PassResult:
    """One judging pass over the selected finished runs.

    Runs are judged in partitions of ``partition`` runs (never all events in memory at once),
    on ``workers`` processes when more than one; verdicts come back in run order either way,
    so the result does not depend on the number of workers. A judge that raises, or runs past
    ``timeout`` seconds on one run, gives that run an ``error`` verdict and the pass goes on.
    """
    started = now_utc()
    pass_id = new_pass_id(started)
    sel = select_runs(store, suite=suite, run_ids=run_ids, where=where, batch=batch)
    finished = sel.finished
    context = {
        "store": store,
        "resolver": resolver,
        "suites": sel.suites,
        "judgements": recorded_judgements(store),
        "timeout": timeout,
        "pass_id": pass_id,
        "at": started,
    }
    _init_worker(context)
    parts = [finished[i : i + partition] for i in range(0, len(finished), partition)]
    rows: list[dict[str, Any]] = []
    versions: dict[str, str] = {}
    try:
        if workers > 1 and len(parts) > 1:
            done = _judge_on_workers(parts, workers, context)
            for part in parts:
                part_rows, part_versions = done[part[0]]
                rows.extend(part_rows)
                versions.update(part_versions)
        else:
            for part in parts:
                part_rows, part_versions = _judge_partition(part)
                rows.extend(part_rows)
                versions.update(part_versions)
                if progress is not None:
                    progress(len(rows), len(finished))
    finally:
        views = _WORKER.get("views")
        if views is not None:
            views.close()
        _WORKER.clear()
    result = PassResult(pass_id, started, now_utc(), rows, len(sel.open), False, versions)
    if not dry_run and rows:
        write_pass(
            store,
            result,
            kind=kind,
            by=by,
            command=command,
            filters={"suite": suite, "run_ids": list(run_ids or []), "where": where, "batch": batch},
            note=note,
        )
    return result


def write_pass(
    store: Store,
    result: PassResult,
    *,
    kind: str,
    by: str | None,
    command: str | None,
    filters: dict[str, Any],
    note: str | None = None,
) -> None:
    from .query import _user

    store.append("verdicts", pa.Table.from_pylist(result.rows, schema=_verdict_schema()))
    store.append(
        "passes",
        pa.table(
            {
                "pass_id": [result.pass_id],
                "kind": [kind],
                "started_at": [result.started_at],
                "finished_at": [now_utc()],
                "runs": [len(result.rows)],
                "by": [by or os.environ.get("TRAJ_USER") or _user()],
                "command": [command],
                "filters": [json.dumps(filters, ensure_ascii=False)],
                "versions": [json.dumps(result.versions)],
                "note": [note],
            }
        ),
    )
    result.written = True


def _verdict_schema() -> pa.Schema:
    from .store import VERDICTS_SCHEMA

    return VERDICTS_SCHEMA


# -- current verdicts and diffs --------------------------------------------------------------------


def pass_rows(store: Store, pass_id: str) -> list[dict[str, Any]]:
    with Views(store, split=None) as views:
        table = views.arrow("SELECT * FROM _history_all WHERE pass_id = ? ORDER BY run_id", [pass_id])
    return table.to_pylist()


def current_rows(store: Store, run_ids: Sequence[str] | None = None) -> dict[str, dict[str, Any]]:
    """The current (latest) verdict per run, all pools."""
    with Views(store, split=None) as views:
        table = views.arrow(
            "SELECT * FROM _history_all QUALIFY row_number() OVER "
            "(PARTITION BY run_id ORDER BY judged_at DESC, pass_id DESC) = 1"
        )
    rows = {r["run_id"]: r for r in table.to_pylist()}
    if run_ids is not None:
        wanted = set(run_ids)
        rows = {k: v for k, v in rows.items() if k in wanted}
    return rows


def passes(store: Store) -> list[dict[str, Any]]:
    if not store.has_table("passes"):
        return []
    return sorted(store.read("passes").to_pylist(), key=lambda r: (r["started_at"], r["pass_id"]))


@dataclasses.dataclass
class CheckChange:
    name: str
    before: dict[str, Any] | None
    after: dict[str, Any] | None


@dataclasses.dataclass
class Flip:
    run_id: str
    suite: str | None
    task: str | None
    before: str
    after: str
    before_score: float
    after_score: float
    before_reason: str
    after_reason: str
    changes: list[CheckChange]

    @property
    def kind(self) -> str:
        return f"{self.before}→{self.after}"


@dataclasses.dataclass
class Diff:
    before_label: str
    after_label: str
    common: int
    flips: list[Flip]
    score_changes: int

    def to_json(self) -> dict[str, Any]:
        return {
            "before": self.before_label,
            "after": self.after_label,
            "runs_in_both": self.common,
            "flips": [
                {
                    "run_id": f.run_id,
                    "suite": f.suite,
                    "task": f.task,
                    "from": f.before,
                    "to": f.after,
                    "score_from": f.before_score,
                    "score_to": f.after_score,
                    "reason_from": f.before_reason,
                    "reason_to": f.after_reason,
                    "checks": [
                        {"name": c.name, "before": c.before, "after": c.after} for c in f.changes
                    ],
                }
                for f in self.flips
            ],
            "score_changes_without_flip": self.score_changes,
        }


def _checks_by_name(row: dict[str, Any]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for c in row.get("checks") or []:
        name = c["name"]
        while name in out:  # repeated names keep their order
            name += "'"
        out[name] = {
            "passed": c["passed"],
            "expected": json.loads(c["expected"]) if c["expected"] is not None else None,
            "actual": json.loads(c["actual"]) if c["actual"] is not None else None,
            "reason": c["reason"],
        }
    return out


def compare(
    before: dict[str, dict[str, Any]],
    after: dict[str, dict[str, Any]],
    before_label: str,
    after_label: str,
) -> Diff:
    common = sorted(set(before) & set(after))
    flips = []
    score_changes = 0
    for run_id in common:
        a, b = before[run_id], after[run_id]
        if a["outcome"] == b["outcome"]:
            if abs((a["score"] or 0) - (b["score"] or 0)) > 1e-12:
                score_changes += 1
            continue
        ca, cb = _checks_by_name(a), _checks_by_name(b)
        changes = [
            CheckChange(n, ca.get(n), cb.get(n))
            for n in list(ca) + [n for n in cb if n not in ca]
            if ca.get(n) != cb.get(n)
        ]
        flips.append(
            Flip(
                run_id, b["suite"], b["task"], a["outcome"], b["outcome"],
                a["score"] or 0.0, b["score"] or 0.0, a["reason"] or "", b["reason"] or "", changes,
            )
        )
    flips.sort(key=lambda f: (f.suite or "", f.task or "", f.run_id))
    return Diff(before_label, after_label, len(common), flips, score_changes)


def diff_passes(store: Store, pass_a: str | None = None, pass_b: str | None = None) -> Diff:
    """Flips between two passes; by default the latest pass and the latest earlier one that
    judged some of the same runs."""
    all_passes = passes(store)
    ids = [p["pass_id"] for p in all_passes]
    for p in (pass_a, pass_b):
        if p is not None and p not in ids:
            raise NotFound(f"no such pass: {p}")
    if pass_a is None and pass_b is None:
        if len(all_passes) < 2:
            raise NotFound("need two judging passes to diff; run `traj judge` again after a change")
        pass_b = ids[-1]
        runs_b = {r["run_id"] for r in pass_rows(store, pass_b)}
        for cand in reversed(ids[:-1]):
            if runs_b & {r["run_id"] for r in pass_rows(store, cand)}:
                pass_a = cand
                break
        if pass_a is None:
            raise NotFound(f"no earlier pass judged any run of {pass_b}")
    elif pass_a is None or pass_b is None:
        raise NotFound("give two passes, or none for the latest two")
    rows_a = {r["run_id"]: r for r in pass_rows(store, pass_a)}
    rows_b = {r["run_id"]: r for r in pass_rows(store, pass_b)}
    return compare(rows_a, rows_b, pass_a, pass_b)


def dry_run_diff(store: Store, result: PassResult) -> Diff:
    current = current_rows(store, [r["run_id"] for r in result.rows])
    new = {r["run_id"]: {**r, "checks": r["checks"]} for r in result.rows}
    return compare(current, new, "current verdicts", "dry run")


def _show(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 70 else text[:67] + "..."


def render_diff(diff: Diff) -> str:
    lines = [
        f"diff {diff.before_label} → {diff.after_label}: {diff.common} runs in both, "
        f"{len(diff.flips)} flip{'s' if len(diff.flips) != 1 else ''}"
    ]
    kinds = Counter(f.kind for f in diff.flips)
    if kinds:
        lines.append("  " + ", ".join(f"{n} {k}" for k, n in sorted(kinds.items())))
    by_suite: dict[str, dict[str, list[Flip]]] = defaultdict(lambda: defaultdict(list))
    for f in diff.flips:
        by_suite[f.suite or "?"][f.task or "?"].append(f)
    for suite_name, tasks in by_suite.items():
        lines.append(f"suite {suite_name}")
        for task, flips in tasks.items():
            lines.append(f"  task {task}")
            for f in flips:
                lines.append(
                    f"    {f.run_id}: {f.before} → {f.after} (score {f.before_score:.3g} → {f.after_score:.3g})"
                )
                for c in f.changes:
                    b, a = c.before or {}, c.after or {}
                    state = lambda d: "—" if not d else ("passed" if d["passed"] else "failed")  # noqa: E731
                    lines.append(f"      check {c.name}: {state(b)} → {state(a)}")
                    exp = a.get("expected", b.get("expected"))
                    act = a.get("actual", b.get("actual"))
                    lines.append(f"        expected {_show(exp)}, actual {_show(act)}")
                    if b.get("expected") != a.get("expected") and b and a:
                        lines.append(f"        (expected was {_show(b.get('expected'))})")
                    if b.get("reason"):
                        lines.append(f"        before: {b['reason']}")
                    if a.get("reason"):
                        lines.append(f"        after: {a['reason']}")
                if not f.changes and (f.before_reason or f.after_reason):
                    lines.append(f"      reason: {f.before_reason!r} → {f.after_reason!r}")
    if diff.score_changes:
        lines.append(f"({diff.score_changes} runs changed score without changing outcome)")
    return "\n".join(lines)

