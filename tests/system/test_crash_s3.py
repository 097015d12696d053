"""Crash safety on S3: the crash tests that apply to a store on object storage, against a real
S3 server (moto) on 127.0.0.1 that outlives the writers it serves.

The same promises as tests/system/test_crash.py, with fewer kills each (every trial builds its store
over HTTP): a killed ingest leaves whole batches and re-ingest converges; a killed judging pass
is never half visible; a killed compaction changes no row; a killed recorder loses at most the
event it was writing, its journal is in the local spool for the store's URI, and ``traj
recover --store s3://...`` seals it while leaving a live recorder's journal alone.
"""

from __future__ import annotations

import collections
import random
import re

import pytest

import crash_worker as cw
from crash_harness import check_batches, converged, pause, reingest, reported_batches, run_trials, sequential_rule
from helpers import example_run, jsonl
from procs import TRAJ, Proc, ended_cleanly, worker
from suites import load_builtin
from system.test_crash import COMPACT_SEED, JUDGED_RUNS, complete_passes, no_row_changed_by_compaction, traj_in_process
from trajectory.ingest.files import ingest_bytes
from trajectory.judging import SuiteResolver, judge_runs
from trajectory.ingest.recorder import open_journals
from trajectory.store.delta import Store

KILLS = 6
N_BATCHES = 5


@pytest.fixture
def bucket(s3_server, s3_env) -> str:
    return f"s3://{s3_server.bucket()}"


def timed(p: Proc, first: str = "ready", last: str = "done") -> float:
    t0 = p.wait_line(lambda s: s == first)
    t1 = p.wait_line(lambda s: s == last)
    ended_cleanly(p)
    assert t0 is not None and t1 is not None
    return t1 - t0


@pytest.mark.slow
def test_killed_ingest_on_s3_commits_whole_batches_and_reingest_converges(bucket) -> None:
    window = timed(worker("ingest", f"{bucket}/cal", "--seed", 1, "--batches", f"0:{N_BATCHES}"))

    def trial(i: int, rng: random.Random) -> bool:
        seed = 1100 + i
        uri = f"{bucket}/ingest-{i}"
        p = worker("ingest", uri, "--seed", seed, "--batches", f"0:{N_BATCHES}")
        p.wait_line(lambda s: s == "ready")
        pause(rng, 0, window)
        killed = p.kill()
        store = Store(uri)
        batches = [(seed, k) for k in range(N_BATCHES)]
        reported = reported_batches(p)
        present = check_batches(store, batches, {(seed, k) for k in reported}, "ingest (S3)")
        sequential_rule({k for _, k in present}, reported, "ingest (S3)")
        reingest(store, batches, present)
        converged(store, batches, "ingest (S3)")
        return killed

    run_trials("ingest (S3)", KILLS, trial)


def judged_store(uri: str) -> Store:
    store = Store(uri)
    lines = []
    for j in range(JUDGED_RUNS):
        lines += example_run(f"j{j}", "北京现在20度" if j % 2 else "北京现在二十度")
    lines += example_run("open-run", finished=False)
    ingest_bytes(store, jsonl(lines), "judge-template")
    return store


@pytest.mark.slow
def test_killed_judging_pass_on_s3_is_never_half_visible(bucket) -> None:
    judged_store(f"{bucket}/cal-judge")
    p = worker("judge", f"{bucket}/cal-judge", "--passes", 2)
    p.wait_line(lambda s: s == "ready")
    tj = p.wait_line(lambda s: s.startswith("judged "))
    tp = p.wait_line(lambda s: s.startswith("pass "))
    ended_cleanly(p)
    write = tp - tj

    def trial(i: int, rng: random.Random) -> bool:
        uri = f"{bucket}/judge-{i}"
        judged_store(uri)
        p = worker("judge", uri, "--passes", 2)
        p.wait_line(lambda s: s == "ready")
        # Aim at the two commits of a pass: after "judged", within the write's duration.
        p.wait_line(lambda s: s.startswith("judged "), nth=rng.randrange(2))
        pause(rng, 0, 1.2 * write)
        killed = p.kill()
        store = Store(uri)
        texts = p.texts()
        reported = {t.split()[1] for t in texts if t.startswith("pass ")}
        judged = [t.split()[1] for t in texts if t.startswith("judged ")]
        complete_passes(store)
        visible = {r["pass_id"] for r in store.read("passes").to_pylist()} if store.has_table("passes") else set()
        assert reported <= visible <= reported | set(judged[-1:]), (reported, visible, judged)
        if i % 2 == 0:
            result = judge_runs(store, SuiteResolver(store, overrides={"example": load_builtin("example")}))
            complete_passes(store)
            assert {r["pass_id"] for r in store.read("passes").to_pylist()} >= {result.pass_id}
        return killed

    run_trials("judge (S3)", KILLS, trial)


@pytest.mark.slow
def test_killed_compaction_on_s3_changes_no_row(bucket) -> None:
    def template(uri: str) -> Store:
        store = Store(uri)
        for k in range(6):
            ingest_bytes(store, cw.batch_bytes(COMPACT_SEED, k), f"b{k}")
        return store

    template(f"{bucket}/cal-compact")
    window = timed(worker("compact", f"{bucket}/cal-compact", "--seed", COMPACT_SEED, "--batches", "6:9"))

    def trial(i: int, rng: random.Random) -> bool:
        uri = f"{bucket}/compact-{i}"
        template(uri)
        p = worker("compact", uri, "--seed", COMPACT_SEED, "--batches", "6:9")
        p.wait_line(lambda s: s == "ready")
        pause(rng, 0, window)
        killed = p.kill()
        store = Store(uri)
        batches = [(COMPACT_SEED, k) for k in range(9)]
        reported = set(range(6)) | reported_batches(p)
        present = check_batches(store, batches, {(COMPACT_SEED, k) for k in reported}, "compact (S3)")
        sequential_rule({k for _, k in present}, reported, "compact (S3)")
        no_row_changed_by_compaction(store)
        store.compact("events")
        reingest(store, batches[6:], present)
        converged(store, batches, "compact (S3)")
        no_row_changed_by_compaction(store)
        return killed

    run_trials("compact (S3)", KILLS, trial)


@pytest.mark.slow
def test_killed_recorder_on_s3_journals_locally_and_recover_seals_it(bucket) -> None:
    runs, events = 2, 10
    window = timed(worker("record", f"{bucket}/cal-record", "--seed", 1, "--runs", runs, "--events", events))
    wrote = re.compile(r"^wrote (\S+) (\d+)$")

    def trial(i: int, rng: random.Random) -> bool:
        seed = 1500 + i
        uri = f"{bucket}/record-{i}"
        holder = None
        if i % 2 == 0:  # a live recorder of another run holds its journal open meanwhile
            holder = worker("record", uri, "--seed", 91000 + i, "--runs", 1, "--events", 6, "--hold", 3, stdin=True)
            holder.wait_line(lambda s: s == "holding")
        p = worker("record", uri, "--seed", seed, "--runs", runs, "--events", events)
        p.wait_line(lambda s: s == "ready")
        pause(rng, 0, window)
        killed = p.kill()
        reported: dict[str, set[int]] = collections.defaultdict(set)
        for text in p.texts():
            if m := wrote.match(text):
                reported[m.group(1)].add(int(m.group(2)))
        store = Store(uri)
        assert all(j.parent == store.journal_dir() for j in open_journals(store))
        res = traj_in_process("recover", "--store", uri)
        assert res.exit_code == 0, res.output
        if holder is not None:
            live = cw.recorder_run_id(91000 + i, 0)
            assert f"{live}.jsonl: writer still alive, left alone" in res.output
        stored: dict[str, dict[int, bytes]] = collections.defaultdict(dict)
        if store.has_table("events"):
            t = store.read("events", columns=["run_id", "seq", "data"])
            for run_id, seq, data in zip(*(t.column(c).to_pylist() for c in ("run_id", "seq", "data"))):
                assert seq not in stored[run_id], f"{run_id} seq {seq} stored twice"
                stored[run_id][seq] = data.encode()
        for k in range(runs):
            run_id = cw.recorder_run_id(seed, k)
            got = stored.get(run_id, {})
            seqs = sorted(got)
            assert seqs == list(range(len(seqs))), f"{run_id}: stored seqs {seqs} have a gap"
            assert [got[s] for s in seqs] == cw.recorder_events(seed, k, events)[: len(seqs)]
            assert reported.get(run_id, set()) <= set(seqs), f"{run_id}: reported events are missing"
            assert len(set(seqs) - reported.get(run_id, set())) <= 1
        if holder is not None:
            holder.release()
            ended_cleanly(holder)
        assert open_journals(store) == []
        return killed

    run_trials("record (S3)", KILLS, trial)
