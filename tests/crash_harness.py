"""The crash harness's trials and store checks (split from test_crash.py)."""

from __future__ import annotations

import collections
import functools
import os
import random
import re
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor

import crash_worker as cw
from figures import CRASH
from procs import Proc
from trajectory.ingest.plain import parse
from trajectory.ingest.files import ingest_bytes
from trajectory.store.delta import Store

SEED = int(os.environ.get("TRAJ_CRASH_SEED", "20260405"))  # as tests/figures.py prints it
SCALE = float(os.environ.get("TRAJ_CRASH_SCALE", "1"))
PARALLEL = 2

# kind -> figures; filled by each test, printed after the run (tests/figures.py).
FIGURES = CRASH


# -- running trials -------------------------------------------------------------------------------


def run_trials(kind: str, target: int, trial: Callable[[int, random.Random], bool]) -> None:
    """Run seeded trials two at a time until ``target`` of them were killed mid-operation."""
    target = max(1, round(target * SCALE))
    kills = 0
    started = 0
    limit = 3 * target

    def one(i: int) -> bool:
        rng = random.Random(f"{SEED}-{kind}-{i}")
        try:
            return trial(i, rng)
        except AssertionError as exc:
            raise AssertionError(f"{kind} trial {i} (TRAJ_CRASH_SEED={SEED}): {exc}") from exc

    with ThreadPoolExecutor(PARALLEL) as pool:
        futures: collections.deque = collections.deque()
        while True:
            done = kills >= target or started >= limit
            if not done and len(futures) < PARALLEL:
                futures.append(pool.submit(one, started))
                started += 1
                continue
            if not futures:
                break
            if futures[0].result():
                kills += 1
            futures.popleft()
    FIGURES[kind]["kill points"] += kills
    FIGURES[kind]["trials"] += started
    assert kills >= target, f"{kind}: only {kills} of {started} trials killed the writer mid-operation"


def pause(rng: random.Random, low: float, high: float) -> None:
    time.sleep(rng.uniform(low, max(low, high)))


# -- reading the store -------------------------------------------------------------------------


def keys_and_hashes(store: Store) -> list[tuple[str, int, str]]:
    if not store.has_table("events"):
        return []
    t = store.read("events", columns=["run_id", "seq", "hash"])
    return list(zip(t.column("run_id").to_pylist(), t.column("seq").to_pylist(), t.column("hash").to_pylist()))


@functools.lru_cache(maxsize=None)
def batch_hashes(seed: int, k: int) -> dict[tuple[str, int], str]:
    return {(p.event.run_id, p.event.seq): p.hash for p in parse(cw.batch_bytes(seed, k), "b")}


def check_batches(store: Store, batches: Iterable[tuple[int, int]], reported: set[tuple[int, int]],
                  kind: str) -> set[tuple[int, int]]:
    """Every (seed, k) batch is wholly present or wholly absent, reported ones present, nothing
    else stored, nothing twice. Returns the present batches and counts lost/duplicated events."""
    rows = keys_and_hashes(store)
    counts = collections.Counter((r, s) for r, s, _ in rows)
    dups = sum(c - 1 for c in counts.values())
    stored = {(r, s): h for r, s, h in rows}
    present: set[tuple[int, int]] = set()
    known: set[tuple[str, int]] = set()
    lost = 0
    for seed, k in batches:
        want = batch_hashes(seed, k)
        known |= want.keys()
        here = [key for key in want if key in stored]
        for key in here:
            assert stored[key] == want[key], f"batch {seed}/{k}: {key} stored with other content"
        assert len(here) in (0, len(want)), f"batch {seed}/{k} partly visible: {len(here)} of {len(want)}"
        if (seed, k) in reported:
            lost += len(want) - len(here)
        if here:
            present.add((seed, k))
    FIGURES[kind]["events lost"] += lost
    FIGURES[kind]["events duplicated"] += dups
    assert dups == 0, f"{dups} duplicated events"
    assert lost == 0, f"{lost} events of batches reported committed are missing"
    stray = set(stored) - known
    assert not stray, f"events of no batch: {sorted(stray)[:5]}"
    return present


def sequential_rule(present: set[int], reported: set[int], kind: str) -> None:
    """A writer going batch by batch can have committed at most one batch it did not report
    (it died between its commit and its line)."""
    nxt = max(reported, default=-1) + 1
    assert reported <= present <= reported | {nxt}, f"present {sorted(present)}, reported {sorted(reported)}"
    FIGURES[kind]["commits done but unreported"] += len(present - reported)


def reingest(store: Store, batches: Iterable[tuple[int, int]], present: set[tuple[int, int]]) -> None:
    """The same ingest again: absent batches come in whole, present ones are no-ops."""
    for seed, k in batches:
        n = len(batch_hashes(seed, k))
        r = ingest_bytes(store, cw.batch_bytes(seed, k), f"batch-{seed}-{k}")
        assert (r.new, r.present) == ((0, n) if (seed, k) in present else (n, 0)), (seed, k, r)


def converged(store: Store, batches: list[tuple[int, int]], kind: str) -> None:
    every = set(batches)
    assert check_batches(store, batches, every, kind) == every


def reported_batches(proc: Proc, pattern: str = r"^committed (\d+)\b") -> set[int]:
    rx = re.compile(pattern)
    return {int(m.group(1)) for text in proc.texts() if (m := rx.search(text))}


