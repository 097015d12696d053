"""Crash safety: real writer processes killed with SIGKILL at random moments.

Each trial starts ``tests/crash_worker.py`` (a process forked from one that has imported it,
tests/crash_forks.py) or the ``traj`` CLI on a store of its own, kills it after a delay drawn
from a seeded RNG inside a window measured on an uninterrupted run of the same operation, and
then checks the store against what the writer had printed. A line on the writer's stdout is
printed after the operation returned, so it is a promise of durability:

- the store opens; every batch reported committed is complete; no batch is partly visible;
- re-running the same ingest converges to exactly the expected events (no duplicates);
- a Recorder's journal loses at most the event being written, and ``traj recover`` seals the
  journals of dead writers while leaving live ones alone;
- a killed judging pass never leaves a half-written pass visible;
- a killed compaction changes no row.

The schedule is seeded (``TRAJ_CRASH_SEED``) and sized by ``TRAJ_CRASH_SCALE`` (1 = the CI
budget: a little over 200 kill points in about a minute and a half on 2 cores). A failure
message names the trial and its seed, and the trial's store is kept in pytest's tmp folder.
"""

from __future__ import annotations

from hang import HANG
import collections
import functools
import random
import re
import shutil
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pyarrow.compute as pc
import pytest

import crash_worker as cw
from built_cli import invoke
import crash_forks
from crash_forks import worker
from helpers import example_run, jsonl
from procs import TRAJ, Proc, ended_cleanly
from suites import load_builtin
from trajectory import events as ev
from trajectory.ingest.plain import parse, run_info
from trajectory.ingest.files import ingest_bytes
from trajectory.ingest.plain import rows as event_rows
from trajectory.judging import SuiteResolver, judge_runs
from trajectory.query.sql import Views
from trajectory.ingest.recorder import open_journals
from trajectory.store.delta import Store

from crash_harness import (  # noqa: F401 - shared with the other crash tests
    FIGURES,
    PARALLEL,
    SCALE,
    SEED,
    batch_hashes,
    check_batches,
    converged,
    keys_and_hashes,
    pause,
    reingest,
    reported_batches,
    run_trials,
    sequential_rule,
)

_cli_lock = threading.Lock()  # CliRunner swaps sys.stdout: one invocation at a time


def traj_in_process(*args: str) -> Any:
    with _cli_lock:
        return invoke(args)


# -- calibration: how long an uninterrupted operation takes here ----------------------------------


@functools.lru_cache(maxsize=None)
def _calibrated(name: str, root: str) -> dict[str, float]:
    """Timings of one uninterrupted run of each operation on this machine (seconds)."""
    tmp = Path(root)
    out: dict[str, float] = {}
    if name == "ingest":
        p = worker("ingest", tmp / "cal-ingest", "--seed", 1, "--batches", "0:6")
        t0 = p.wait_line(lambda s: s == "ready")
        t1 = p.wait_line(lambda s: s == "done")
        ended_cleanly(p)
        out["run"] = t1 - t0
    elif name == "cli":
        files = write_batch_files(tmp / "cal-cli", 1, range(6))
        p = Proc([*TRAJ, "ingest", *map(str, files), "--store", str(tmp / "cal-cli" / "store")])
        ended_cleanly(p)
        times = [t - p.started for t, _ in p.lines]
        out["first"], out["last"] = times[0], times[-1]
    elif name == "record":
        p = worker("record", tmp / "cal-record", "--seed", 1, "--runs", 3, "--events", 12)
        t0 = p.wait_line(lambda s: s == "ready")
        t1 = p.wait_line(lambda s: s == "done")
        ended_cleanly(p)
        out["run"] = t1 - t0
    elif name == "judge":
        store = judge_template(tmp / "cal-judge-template")
        shutil.copytree(store, tmp / "cal-judge")
        p = worker("judge", tmp / "cal-judge", "--passes", 2)
        t0 = p.wait_line(lambda s: s == "ready")
        tj = p.wait_line(lambda s: s.startswith("judged "))
        tp = p.wait_line(lambda s: s.startswith("pass "))
        t1 = p.wait_line(lambda s: s == "done")
        ended_cleanly(p)
        out["run"], out["write"] = t1 - t0, tp - tj
    elif name == "compact":
        template = compact_template(tmp / "cal-compact-template")
        shutil.copytree(template, tmp / "cal-compact")
        p = worker("compact", tmp / "cal-compact", "--seed", COMPACT_SEED, "--batches", "10:13")
        t0 = p.wait_line(lambda s: s == "ready")
        t1 = p.wait_line(lambda s: s == "done")
        ended_cleanly(p)
        out["run"] = t1 - t0
        p = Proc([*TRAJ, "compact", "--store", str(tmp / "cal-compact")])
        ended_cleanly(p)
        out["cli"] = p.lines[-1][0] - p.started
    return out


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("crash")


@pytest.fixture(scope="module", autouse=True)
def _worker_server() -> Any:
    """The process the crash workers are forked from ends with this module's tests."""
    yield
    crash_forks.stop()


def calibrated(name: str, workdir: Path) -> dict[str, float]:
    return _calibrated(name, str(workdir))


def wait_for_path(proc: Proc, path: Path, timeout: float = HANG) -> bool:
    """Wait until ``path`` exists (True) or the process ended without making it (False)."""
    deadline = time.monotonic() + timeout
    while not path.exists():
        if proc.p.poll() is not None:
            return path.exists()
        assert time.monotonic() < deadline, f"{path} not made within {timeout}s; got {proc.texts()}"
        time.sleep(0.001)
    return True


def write_batch_files(folder: Path, seed: int, ks: Iterable[int]) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    files = []
    for k in ks:
        f = folder / f"{k}.jsonl"
        f.write_bytes(cw.batch_bytes(seed, k))
        files.append(f)
    return files


# -- ingest -----------------------------------------------------------------------------------------

N_BATCHES = 6


@pytest.mark.slow
def test_killed_ingest_commits_whole_batches_and_reingest_converges(workdir) -> None:
    window = calibrated("ingest", workdir)["run"]

    def trial(i: int, rng: random.Random) -> bool:
        seed = 100 + i
        store_dir = workdir / f"ingest-{i}"
        p = worker("ingest", store_dir, "--seed", seed, "--batches", f"0:{N_BATCHES}")
        p.wait_line(lambda s: s == "ready")
        pause(rng, 0, window)
        killed = p.kill()
        store = Store(store_dir)
        batches = [(seed, k) for k in range(N_BATCHES)]
        reported = reported_batches(p)
        present = check_batches(store, batches, {(seed, k) for k in reported}, "ingest")
        sequential_rule({k for _, k in present}, reported, "ingest")
        reingest(store, batches, present)
        converged(store, batches, "ingest")
        return killed

    run_trials("ingest", 40, trial)


@pytest.mark.slow
def test_killed_traj_ingest_cli_commits_whole_files(workdir) -> None:
    cal = calibrated("cli", workdir)
    files_line = re.compile(r"(\d+)\.jsonl: \d+ runs, \d+ events read")

    # One file's read, parse, commit and line take a few hundredths of a second; starting the
    # interpreter takes from under one to several seconds, more under load. So a kill point is
    # not a time since the start but a moment in the ingest itself: file k's commit begins when
    # the first file takes the store's writer lock (k = 0) or file k-1's line arrives, and the
    # kill falls within one file's time (measured on an uninterrupted run) after that.
    step = (cal["last"] - cal["first"]) / (N_BATCHES - 1)

    def trial(i: int, rng: random.Random) -> bool:
        seed = 200 + i
        folder = workdir / f"cli-{i}"
        files = write_batch_files(folder, seed, range(N_BATCHES))
        store_dir = folder / "store"
        argv = [*TRAJ, "ingest", *map(str, files), "--store", str(store_dir)]
        p = Proc(argv)
        k = rng.randrange(N_BATCHES)
        if k == 0:
            began = wait_for_path(p, store_dir / "write.lock")
        else:
            began = p.wait_line(lambda s: files_line.search(s) is not None, nth=k - 1) is not None
        time.sleep(rng.uniform(0, step))
        killed = p.kill()
        reported = {int(m.group(1)) for t in p.texts() if (m := files_line.search(t))}
        # A kill point counts only inside the ingest: after file k's commit began (not while
        # the interpreter starts) and before the last file's line (not while it exits).
        killed = killed and began and len(reported) < N_BATCHES
        batches = [(seed, k) for k in range(N_BATCHES)]
        present = check_batches(Store(store_dir), batches, {(seed, k) for k in reported}, "ingest (traj CLI)")
        sequential_rule({k for _, k in present}, reported, "ingest (traj CLI)")
        # The same command again finishes the job and adds nothing twice.
        if i % 3 == 0:
            again = Proc(argv)
            ended_cleanly(again)
            assert f"{sum(len(batch_hashes(seed, k)) for k in range(N_BATCHES))} events read" in again.texts()[-1]
        else:
            reingest(Store(store_dir), batches, present)
        converged(Store(store_dir), batches, "ingest (traj CLI)")
        return killed

    run_trials("ingest (traj CLI)", 12, trial)


@pytest.mark.slow
def test_killing_one_of_two_concurrent_writers_leaves_the_other_unharmed(workdir) -> None:
    window = calibrated("ingest", workdir)["run"]

    def trial(i: int, rng: random.Random) -> bool:
        store_dir = workdir / f"pair-{i}"
        seeds = (300 + 2 * i, 301 + 2 * i)
        procs = [worker("ingest", store_dir, "--seed", s, "--batches", f"0:{N_BATCHES}") for s in seeds]
        for p in procs:
            p.wait_line(lambda s: s == "ready")
        victim = rng.randrange(2)
        pause(rng, 0, 1.5 * window)  # two writers share the lock: each takes about twice as long
        killed = procs[victim].kill()
        # The survivor is not blocked by the lock the victim held when it died.
        ended_cleanly(procs[1 - victim])
        store = Store(store_dir)
        all_batches = [(s, k) for s in seeds for k in range(N_BATCHES)]
        reported = {(s, k) for s, p in zip(seeds, procs) for k in reported_batches(p)}
        present = check_batches(store, all_batches, reported, "ingest (2 writers)")
        survivor = seeds[1 - victim]
        assert {k for s, k in present if s == survivor} == set(range(N_BATCHES))
        sequential_rule({k for s, k in present if s == seeds[victim]},
                        {k for s, k in reported if s == seeds[victim]}, "ingest (2 writers)")
        reingest(store, all_batches, present)
        converged(store, all_batches, "ingest (2 writers)")
        return killed

    run_trials("ingest (2 writers)", 12, trial)


CHECKPOINT_SEED = 7
CHECKPOINT_FROM = 96  # delta-rs writes a checkpoint at table version 99: trials cross it


@pytest.fixture(scope="module")
def checkpoint_template(workdir) -> Path:
    """A store whose events table is at version 95, written straight (one commit per batch,
    as ingest would) to save the ingest checks' reads of a growing table."""
    root = workdir / "checkpoint-template"
    store = Store(root)
    parsed = {k: parse(cw.batch_bytes(CHECKPOINT_SEED, k), f"b{k}") for k in range(CHECKPOINT_FROM)}
    info = {p.event.run_id: run_info(p.event, None) for ps in parsed.values() for p in ps
            if isinstance(p.event, ev.RunStarted)}
    for k in range(CHECKPOINT_FROM):
        store.append("events", event_rows([(p, info[p.event.run_id]) for p in parsed[k]], f"template-{k}"))
    assert store.version("events") == CHECKPOINT_FROM - 1
    return root


@pytest.mark.slow
def test_killed_ingest_across_a_delta_checkpoint(workdir, checkpoint_template) -> None:
    stop = CHECKPOINT_FROM + N_BATCHES
    cal = workdir / "cal-checkpoint"
    shutil.copytree(checkpoint_template, cal)
    p = worker("ingest", cal, "--seed", CHECKPOINT_SEED, "--batches", f"{CHECKPOINT_FROM}:{stop}")
    window = -p.wait_line(lambda s: s == "ready") + p.wait_line(lambda s: s == "done")
    ended_cleanly(p)

    def trial(i: int, rng: random.Random) -> bool:
        store_dir = workdir / f"checkpoint-{i}"
        shutil.copytree(checkpoint_template, store_dir)
        p = worker("ingest", store_dir, "--seed", CHECKPOINT_SEED, "--batches", f"{CHECKPOINT_FROM}:{stop}")
        p.wait_line(lambda s: s == "ready")
        pause(rng, 0, window)
        killed = p.kill()
        store = Store(store_dir)
        batches = [(CHECKPOINT_SEED, k) for k in range(stop)]
        reported = set(range(CHECKPOINT_FROM)) | reported_batches(p)
        present = check_batches(store, batches, {(CHECKPOINT_SEED, k) for k in reported}, "ingest (checkpoint)")
        sequential_rule({k for _, k in present}, reported, "ingest (checkpoint)")
        reingest(store, batches[CHECKPOINT_FROM:], present)
        converged(store, batches, "ingest (checkpoint)")
        # A kill between commit 99 and its checkpoint leaves no checkpoint: the log alone is whole.
        if not (store_dir / "events" / "_delta_log" / "00000000000000000099.checkpoint.parquet").exists():
            FIGURES["ingest (checkpoint)"]["checkpoints skipped by the kill"] += 1
        return killed

    run_trials("ingest (checkpoint)", 12, trial)


def test_a_first_commit_killed_before_its_log_entry_leaves_no_table(tmp_path) -> None:
    """What SIGKILL during a table's first append leaves: a data file and an empty log folder.
    Found by the trials above; the store must open, read as empty, and take the append again."""
    store_dir = tmp_path / "store"
    donor = Store(tmp_path / "donor")
    ingest_bytes(donor, cw.batch_bytes(1, 0), "b")
    store = Store(store_dir)
    store.init()
    (store_dir / "events" / "_delta_log").mkdir(parents=True)
    shutil.copy(donor.files("events")[0], store_dir / "events" / "orphan.parquet")
    store = Store(store_dir)
    assert not store.has_table("events") and store.files("events") == []
    r = traj_in_process("query", "SELECT count(*) AS n FROM events", "--format", "json", "--store", str(store_dir))
    assert r.exit_code == 0 and r.stdout.strip() == '[{"n": 0}]', r.output
    reingest(store, [(1, 0)], set())
    converged(store, [(1, 0)], "ingest")
    assert store.version("events") == 0


# -- the recorder -----------------------------------------------------------------------------------

REC_RUNS, REC_EVENTS = 3, 12


@pytest.mark.slow
def test_killed_recorder_loses_at_most_the_event_being_written(workdir) -> None:
    window = calibrated("record", workdir)["run"]
    wrote = re.compile(r"^wrote (\S+) (\d+)$")

    def trial(i: int, rng: random.Random) -> bool:
        seed = 500 + i
        store_dir = workdir / f"record-{i}"
        # Every third trial has a live recorder of another run holding its journal open.
        holder = None
        if i % 3 == 0:
            holder = worker("record", store_dir, "--seed", 90000 + i, "--runs", 1, "--events", 8,
                            "--hold", 3, stdin=True)
            holder.wait_line(lambda s: s == "holding")
        p = worker("record", store_dir, "--seed", seed, "--runs", REC_RUNS, "--events", REC_EVENTS)
        p.wait_line(lambda s: s == "ready")
        pause(rng, 0, window)
        killed = p.kill()
        reported: dict[str, set[int]] = collections.defaultdict(set)
        for text in p.texts():
            if m := wrote.match(text):
                reported[m.group(1)].add(int(m.group(2)))
        sealed = {t.split()[1] for t in p.texts() if t.startswith("sealed ")}

        # traj recover: in process through the CLI, or as a process of its own. A recorder killed
        # before it created the store left none: recover says so (exit 1), as any reader does.
        exists = Store(store_dir).exists
        if i % 6 == 1:
            r = Proc([*TRAJ, "recover", "--store", str(store_dir)])
            if exists:
                ended_cleanly(r)
            else:
                assert r.finish() == 1 and "no traj store at" in r.stderr, r.stderr
            out = "\n".join(r.texts())
        else:
            res = traj_in_process("recover", "--store", str(store_dir))
            assert res.exit_code == (0 if exists else 1), res.output
            out = res.output
        store = Store(store_dir)
        left = open_journals(store)
        if holder is not None:
            live = cw.recorder_run_id(90000 + i, 0)
            assert f"{live}.jsonl: writer still alive, left alone" in out
            assert [j.name for j in left] == [f"{live}.jsonl"]
        else:
            assert left == []

        rows = store.read("events", columns=["run_id", "seq", "data"]) if store.has_table("events") else None
        stored: dict[str, dict[int, bytes]] = collections.defaultdict(dict)
        n_rows = 0
        if rows is not None:
            for run_id, seq, data in zip(*(rows.column(c).to_pylist() for c in ("run_id", "seq", "data"))):
                assert seq not in stored[run_id], f"{run_id} seq {seq} stored twice"
                stored[run_id][seq] = data.encode()
                n_rows += 1
        lost = extra = 0
        for k in range(REC_RUNS):
            run_id = cw.recorder_run_id(seed, k)
            want = cw.recorder_events(seed, k, REC_EVENTS)
            got = stored.get(run_id, {})
            seqs = sorted(got)
            assert seqs == list(range(len(seqs))), f"{run_id}: stored seqs {seqs} have a gap"
            assert [got[s] for s in seqs] == want[: len(seqs)], f"{run_id}: stored events differ"
            mine = reported.get(run_id, set())
            lost += len(mine - set(seqs))
            extra += len(set(seqs) - mine)
            assert len(set(seqs) - mine) <= 1, f"{run_id}: reported {sorted(mine)}, stored {seqs}"
            if run_id in sealed:
                assert len(seqs) == REC_EVENTS
        FIGURES["record"]["events lost"] += lost
        FIGURES["record"]["events duplicated"] += 0
        FIGURES["record"]["unreported events recovered"] += extra
        assert lost == 0, f"{lost} events reported written are missing"

        if holder is not None:
            holder.release()
            ended_cleanly(holder)
            live = cw.recorder_run_id(90000 + i, 0)
            t = store.read("events", columns=["data"], filter=pc.field("run_id") == live)
            assert sorted(d.encode() for d in t.column("data").to_pylist()) == sorted(
                cw.recorder_events(90000 + i, 0, 8))
            assert open_journals(store) == []
        if exists:
            assert "no journals to recover" in traj_in_process("recover", "--store", str(store_dir)).output
        return killed

    run_trials("record", 60, trial)


# -- judging ------------------------------------------------------------------------------------------

JUDGED_RUNS = 8
_judge_lock = threading.Lock()


def judge_template(root: Path) -> Path:
    if not root.exists():
        lines = []
        for j in range(JUDGED_RUNS):
            lines += example_run(f"j{j}", "北京现在20度" if j % 2 else "北京现在二十度")
        lines += example_run("open-run", finished=False)
        ingest_bytes(Store(root), jsonl(lines), "judge-template")
    return root


def complete_passes(store: Store) -> None:
    """Every pass in the passes table has exactly its runs; orphan verdicts are invisible."""
    finished = {f"j{j}" for j in range(JUDGED_RUNS)}
    if not store.has_table("passes"):
        assert not store.has_table("verdicts") or store.read("verdicts").num_rows in (0, JUDGED_RUNS)
        with Views(store, split=None) as v:
            assert v.con.execute("SELECT count(*) FROM verdict_history").fetchone() == (0,)
        return
    passes = {r["pass_id"]: r["runs"] for r in store.read("passes", columns=["pass_id", "runs"]).to_pylist()}
    raw = collections.defaultdict(list)
    for r in store.read("verdicts", columns=["pass_id", "run_id"]).to_pylist():
        raw[r["pass_id"]].append(r["run_id"])
    for pass_id, runs in passes.items():
        assert runs == JUDGED_RUNS and sorted(raw[pass_id]) == sorted(finished), (
            f"pass {pass_id}: {runs} runs recorded, {len(raw[pass_id])} verdicts stored")
    orphans = set(raw) - set(passes)
    assert len(orphans) <= 1
    FIGURES["judge"]["half-written passes hidden"] += len(orphans)
    with Views(store, split=None) as v:
        history = v.con.execute("SELECT pass_id, count(*), count(DISTINCT run_id) FROM verdict_history GROUP BY pass_id").fetchall()
        current = v.con.execute("SELECT run_id, pass_id FROM verdicts").fetchall()
    assert {p for p, _, _ in history} == set(passes)
    assert all(n == d == JUDGED_RUNS for _, n, d in history)
    assert {r for r, _ in current} == (finished if passes else set())
    assert {p for _, p in current} <= set(passes)


@pytest.mark.slow
def test_killed_judging_pass_is_never_half_visible(workdir) -> None:
    cal = calibrated("judge", workdir)
    template = judge_template(workdir / "judge-template")

    def trial(i: int, rng: random.Random) -> bool:
        store_dir = workdir / f"judge-{i}"
        shutil.copytree(template, store_dir)
        p = worker("judge", store_dir, "--passes", 2)
        p.wait_line(lambda s: s == "ready")
        if i % 4 == 0:
            pause(rng, 0, cal["run"])
        else:
            # Aim at the two commits of a pass: after "judged", within the write's duration.
            p.wait_line(lambda s: s.startswith("judged "), nth=rng.randrange(2))
            pause(rng, 0, 1.2 * cal["write"])
        killed = p.kill()
        store = Store(store_dir)
        texts = p.texts()
        reported = {t.split()[1] for t in texts if t.startswith("pass ")}
        judged = [t.split()[1] for t in texts if t.startswith("judged ")]
        complete_passes(store)
        visible = {r["pass_id"] for r in store.read("passes").to_pylist()} if store.has_table("passes") else set()
        assert reported <= visible <= reported | set(judged[-1:]), (reported, visible, judged)
        lost_passes = len(reported - visible)
        FIGURES["judge"]["events lost"] += lost_passes
        if i % 4 == 0:
            # The next pass works and becomes the current verdicts.
            with _judge_lock:  # judge_runs keeps per-process judging state: one pass at a time here
                result = judge_runs(store, SuiteResolver(store, overrides={"example": load_builtin("example")}))
            complete_passes(store)
            with Views(store, split=None) as v:
                current = v.con.execute("SELECT DISTINCT pass_id FROM verdicts").fetchall()
            assert {r[0] for r in current} == {result.pass_id}
        return killed

    run_trials("judge", 36, trial)


# -- compaction ----------------------------------------------------------------------------------------

COMPACT_SEED = 9


def compact_template(root: Path) -> Path:
    if not root.exists():
        store = Store(root)
        for k in range(10):
            ingest_bytes(store, cw.batch_bytes(COMPACT_SEED, k), f"b{k}")
    return root


def no_row_changed_by_compaction(store: Store) -> None:
    """Every OPTIMIZE commit in the history reads exactly the rows of the version before it."""
    for entry in store.history("events"):
        if entry.get("operation") == "OPTIMIZE":
            v = entry["version"]
            before = sorted(store.read("events", ["run_id", "seq", "hash"], version=v - 1).to_pylist(), key=str)
            after = sorted(store.read("events", ["run_id", "seq", "hash"], version=v).to_pylist(), key=str)
            assert before == after, f"compaction at version {v} changed rows"


@pytest.mark.slow
def test_killed_compaction_changes_no_row(workdir) -> None:
    cal = calibrated("compact", workdir)
    template = compact_template(workdir / "compact-template")

    def trial(i: int, rng: random.Random) -> bool:
        store_dir = workdir / f"compact-{i}"
        shutil.copytree(template, store_dir)
        cli = i % 3 == 0
        if cli:
            p = Proc([*TRAJ, "compact", "--store", str(store_dir)])
            pause(rng, 0.6 * cal["cli"], cal["cli"])  # the process starts before it compacts
        else:
            p = worker("compact", store_dir, "--seed", COMPACT_SEED, "--batches", "10:13")
            p.wait_line(lambda s: s == "ready")
            pause(rng, 0, cal["run"])
        killed = p.kill()
        store = Store(store_dir)
        batches = [(COMPACT_SEED, k) for k in range(13)]
        reported = set(range(10)) | reported_batches(p)
        present = check_batches(store, batches, {(COMPACT_SEED, k) for k in reported}, "compact")
        sequential_rule({k for _, k in present}, reported, "compact")
        no_row_changed_by_compaction(store)
        store.compact("events")
        reingest(store, batches[10:], present)
        converged(store, batches, "compact")
        no_row_changed_by_compaction(store)
        return killed

    run_trials("compact", 36, trial)
