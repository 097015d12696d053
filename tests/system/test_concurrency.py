"""Concurrency: many writer processes on one store at once, writers racing for the same run,
and readers (`traj query`, `traj show`, in-process Views) running while they write.

Writers are ``tests/crash_worker.py`` processes that wait on stdin after they are ready, so the
test releases them together and they really contend for the store. The tests marked with the
``where`` parameter run on a local folder (writers serialised by a lock) and on S3 (a moto
server on 127.0.0.1: no lock, conditional commits and re-decided batches).
"""

from __future__ import annotations

import collections
import fcntl
import json
import re
import threading
import time
from pathlib import Path

import pytest

import crash_worker as cw
from figures import RELIABILITY_FIGURES
from procs import TIMEOUT, TRAJ, Proc, ended_cleanly, worker
from trajectory.errors import ConflictError
from trajectory.ingest.plain import parse
from trajectory.ingest.files import ingest_bytes
from trajectory.query.sql import Views
from trajectory.ingest.recorder import Recorder, RecorderError, recover
from trajectory.store.delta import Store

WRITERS = 8
BATCHES = 4
EVENTS_PER_BATCH = cw.RUNS_PER_BATCH * 5  # complete batches: every run whole and finished


def stored_keys(store: Store) -> collections.Counter[tuple[str, int]]:
    t = store.read("events", columns=["run_id", "seq"])
    return collections.Counter(zip(t.column("run_id").to_pylist(), t.column("seq").to_pylist()))


def expected_hashes(seeds: list[int]) -> dict[tuple[str, int], str]:
    out = {}
    for s in seeds:
        for k in range(BATCHES):
            for p in parse(cw.batch_bytes(s, k, complete=True), "b"):
                out[(p.event.run_id, p.event.seq)] = p.hash
    return out


def hang_after(where: str) -> float:
    """How long a writer among many may take before it counts as hung. On S3 every writer's
    commit is a round of requests to one moto process that all the writers share: 8 writers'
    4 batches each took ~50 s on the idle 2-core machine (commits lost and retried), close to
    the 60 s that suits a local store, and a CI run went past it. A writer that really hangs
    still fails, and shows its threads' stacks."""
    return 4 * TIMEOUT if str(where).startswith("s3://") else TIMEOUT


@pytest.fixture(params=["local", "s3"])
def where(request, tmp_path) -> str:
    """A fresh store location: a folder, or ``s3://BUCKET/store`` on the test server."""
    if request.param == "s3":
        return request.getfixturevalue("s3_store_uri")
    return str(tmp_path / "store")


class Readers:
    """Reader loops that run until stopped and check every snapshot they see."""

    def __init__(self, store_dir: Path | str):
        self.store_dir = store_dir
        self.stop = threading.Event()
        self.snapshots: collections.Counter[str] = collections.Counter()
        self.counts: set[int] = set()
        self.errors: list[str] = []
        self.threads = [
            threading.Thread(target=self._guard(self.views_loop), daemon=True),
            threading.Thread(target=self._guard(self.cli_loop), daemon=True),
        ]

    def _guard(self, fn):
        def run() -> None:
            try:
                fn()
            except Exception as exc:  # noqa: BLE001 - reported by the test thread
                self.errors.append(f"{fn.__name__}: {type(exc).__name__}: {exc}")

        return run

    def start(self) -> None:
        for t in self.threads:
            t.start()

    def finish(self) -> None:
        self.stop.set()
        for t in self.threads:
            t.join(120)
        assert not self.errors, self.errors

    def check(self, n: int, runs: int, incomplete: int, source: str) -> None:
        if n % EVENTS_PER_BATCH or n != 5 * runs or incomplete:
            self.errors.append(f"{source}: inconsistent snapshot: {n} events, {runs} runs, {incomplete} incomplete")
        self.counts.add(n)
        self.snapshots[source] += 1

    def views_loop(self) -> None:
        """In-process readers: one Views is one table version, whatever commits meanwhile."""
        while not self.stop.is_set():
            store = Store(self.store_dir)
            with Views(store, split=None) as v:
                n, runs = v.con.execute("SELECT count(*), count(DISTINCT run_id) FROM events").fetchone()
                time.sleep(0.02)  # commits land while this snapshot is still being read
                (incomplete,) = v.con.execute(
                    "SELECT count(*) FROM runs WHERE events <> 5 OR outcome IS NULL OR last_seq <> 4"
                ).fetchone()
                again = v.con.execute("SELECT count(*) FROM events").fetchone()[0]
            if again != n:
                self.errors.append(f"Views: one snapshot changed from {n} to {again} events")
            self.check(n, runs, incomplete, "Views")

    def cli_loop(self) -> None:
        """`traj query` and `traj show` as processes of their own, alternately."""
        i = 0
        while not self.stop.is_set():
            i += 1
            if i % 2:
                sql = ("SELECT (SELECT count(*) FROM events) AS n, (SELECT count(*) FROM runs) AS r, "
                       "(SELECT count(*) FROM runs WHERE events <> 5 OR outcome IS NULL) AS bad")
                p = Proc([*TRAJ, "query", sql, "--split", "tune", "--format", "json", "--store", str(self.store_dir)])
                ended_cleanly(p)
                [row] = json.loads(p.texts()[0])
                self.check(row["n"], row["r"], row["bad"], "traj query")
            else:
                store = Store(self.store_dir)
                if not store.has_table("events"):
                    continue
                runs = store.read("events", columns=["run_id"]).column("run_id").to_pylist()
                run = runs[len(runs) // 2]
                p = Proc([*TRAJ, "show", run, "--json", "--store", str(self.store_dir)])
                ended_cleanly(p)
                state = json.loads(p.texts()[0])
                if state["seq"] != 4 or state["outcome"] != "succeeded":
                    self.errors.append(f"traj show {run}: an incomplete run: seq {state['seq']}")
                self.snapshots["traj show"] += 1


@pytest.mark.slow
def test_eight_writers_at_once_lose_nothing_and_readers_see_whole_batches(where) -> None:
    store_dir = where
    seeds = list(range(1, WRITERS + 1))
    writers = [worker("ingest", store_dir, "--seed", s, "--batches", f"0:{BATCHES}", "--complete", "--wait",
                      stdin=True) for s in seeds]
    for w in writers:
        w.wait_line(lambda s: s == "ready")
    readers = Readers(store_dir)
    # A compactor joins them: compaction commits must not show readers a torn table either.
    compactor = Proc([*TRAJ, "compact", "--store", str(store_dir)])
    for w in writers:
        w.release()
    readers.start()
    t0 = time.monotonic()
    for w in writers:
        ended_cleanly(w, hang_after(store_dir))
    ended_cleanly(compactor, hang_after(store_dir))
    while sum(readers.snapshots.values()) < 10 and time.monotonic() - t0 < 60:
        time.sleep(0.05)
    readers.finish()

    store = Store(store_dir)
    keys = stored_keys(store)
    want = expected_hashes(seeds)
    duplicated = sum(c - 1 for c in keys.values())
    lost = len(set(want) - set(keys))
    t = store.read("events", columns=["run_id", "seq", "hash"])
    got = dict(zip(zip(t.column("run_id").to_pylist(), t.column("seq").to_pylist()), t.column("hash").to_pylist()))
    assert duplicated == 0 and lost == 0 and set(keys) == set(want) and got == want
    for w in writers:
        assert [x for x in w.texts() if x.startswith("committed")] == [
            f"committed {k} new={EVENTS_PER_BATCH} present=0" for k in range(BATCHES)]
    # Readers saw the store grow batch by batch, never between two states.
    assert readers.snapshots["Views"] >= 3 and readers.snapshots["traj query"] >= 1
    RELIABILITY_FIGURES.append(
        f"concurrency ({'S3' if str(where).startswith('s3://') else 'local'}): "
        f"{WRITERS} writer processes + 1 compactor, {len(want)} events: lost {lost}, "
        f"duplicated {duplicated}; {sum(readers.snapshots.values())} reader snapshots "
        f"({', '.join(f'{k} {v}' for k, v in sorted(readers.snapshots.items()))}), all whole batches"
    )


RACE_ROUNDS = 3
PAIRS = 4
conflict_line = re.compile(r"race-(\d)\.jsonl:3: \$\.text: conflict: stored with .*, got .* \(run (\S+), seq 2\)")


@pytest.mark.slow
def test_pairs_racing_for_the_same_run_one_wins_the_other_is_told_run_and_seq(where) -> None:
    store_dir = where
    conflicts = ties = 0
    for rnd in range(RACE_ROUNDS):
        procs: list[tuple[str, int, Proc]] = []
        for pair in range(PAIRS):
            run = f"race-{rnd}-{pair}"
            # The last pair writes identical content: both succeed, one of them as a no-op.
            variants = (1, 1) if pair == PAIRS - 1 else (1, 2)
            for v in variants:
                procs.append((run, v, worker("race", store_dir, "--run", run, "--variant", v, "--wait", stdin=True)))
        for _, _, p in procs:
            p.wait_line(lambda s: s == "ready")
        for _, _, p in procs:
            p.release()
        results: dict[str, list[tuple[int, str]]] = collections.defaultdict(list)
        for run, v, p in procs:
            ended_cleanly(p, hang_after(store_dir))
            results[run].append((v, p.texts()[1]))
        store = Store(store_dir)
        t = store.read("events", columns=["run_id", "seq", "hash"])
        stored = collections.defaultdict(dict)
        for r, s, h in zip(*(t.column(c).to_pylist() for c in ("run_id", "seq", "hash"))):
            assert s not in stored[r], f"{r} seq {s} stored twice"
            stored[r][s] = h
        for run, outs in results.items():
            won = [(v, o) for v, o in outs if o.startswith("won ")]
            lost = [(v, o) for v, o in outs if o.startswith("conflict ")]
            if run.endswith(f"-{PAIRS - 1}"):
                assert sorted(o for _, o in won) == ["won new=0 present=5", "won new=5 present=0"], outs
                ties += 1
                winner = 1
            else:
                assert len(won) == 1 and len(lost) == 1, outs
                winner = won[0][0]
                message = json.loads(lost[0][1].removeprefix("conflict "))
                m = conflict_line.search(message)
                assert m and m.group(2) == run and int(m.group(1)) == lost[0][0], message
                assert f"answer {lost[0][0]}" in message  # seq 3 is named too: every line is listed
                conflicts += 1
            want = {p.event.seq: p.hash for p in parse(("\n".join(cw.run_lines(run, variant=winner)) + "\n").encode(), "w")}
            assert stored[run] == want, f"{run}: stored events are not exactly the winner's"
    RELIABILITY_FIGURES.append(
        f"concurrency ({'S3' if str(where).startswith('s3://') else 'local'}): {RACE_ROUNDS * PAIRS * 2} racing writers for {RACE_ROUNDS * PAIRS} runs: "
        f"{conflicts} conflicts reported to the loser with run and seq, {ties} identical pairs both accepted once"
    )


def test_traj_ingest_processes_racing_for_a_run(tmp_path, where) -> None:
    """The same race through the CLI: exit 1, one line per problem, nothing of the loser written."""
    store_dir = where
    files = []
    for v in (1, 2):
        f = tmp_path / f"race-{v}.jsonl"
        f.write_text("\n".join(cw.run_lines("cli-race", variant=v)) + "\n")
        files.append(f)
    procs = [Proc([*TRAJ, "ingest", str(f), "--store", str(store_dir)]) for f in files]
    rcs = [p.finish() for p in procs]
    assert sorted(rcs) == [0, 1]
    loser = procs[rcs.index(1)]
    lost_file = files[rcs.index(1)]
    assert "Traceback" not in loser.stderr
    assert f"error: {lost_file}:3: $.text: conflict: stored with" in loser.stderr
    assert "(run cli-race, seq 2)" in loser.stderr and f"{lost_file}: refused, nothing written" in loser.stderr
    assert sum(stored_keys(Store(store_dir)).values()) == 5


def test_a_second_recorder_for_a_live_run_is_refused_by_name(tmp_path) -> None:
    store_dir = tmp_path / "store"
    live = worker("record", store_dir, "--seed", 5, "--runs", 1, "--events", 6, "--hold", 2, stdin=True)
    live.wait_line(lambda s: s == "holding")
    run = cw.recorder_run_id(5, 0)
    with pytest.raises(RecorderError, match=f"run {run} is being recorded by another writer"):
        Recorder(Store(store_dir), run_id=run, suite="crash", task="rec").open()
    live.release()
    ended_cleanly(live)
    with pytest.raises(RecorderError, match="already in the store"):
        Recorder(Store(store_dir), run_id=run, suite="crash", task="rec").open()


def test_a_conflict_in_process_names_the_run_and_seq(tmp_path) -> None:
    store = Store(tmp_path / "s")
    ingest_bytes(store, ("\n".join(cw.run_lines("r", variant=1)) + "\n").encode(), "a.jsonl")
    with pytest.raises(ConflictError, match=r"b\.jsonl:3: \$\.text: .*\(run r, seq 2\)"):
        ingest_bytes(store, ("\n".join(cw.run_lines("r", variant=2)) + "\n").encode(), "b.jsonl")


# -- the Recorder against a concurrent `traj recover` ----------------------------------------------
# The windows are microseconds wide, so the other process's recover pass is run at the exact
# moment by wrapping flock; everything else is the real code on a real store.


def test_recover_in_the_instant_a_recorder_creates_its_journal_loses_nothing(tmp_path, monkeypatch) -> None:
    store = Store(tmp_path / "store")
    real = fcntl.flock
    sealed = []

    def flock(fd, op):
        # The recorder's lock on its brand-new, still empty journal: a recover pass comes first.
        if op == fcntl.LOCK_EX and not sealed:
            sealed.append(recover(Store(tmp_path / "store")))
        return real(fd, op)

    monkeypatch.setattr(fcntl, "flock", flock)
    with Recorder(store, run_id="r", suite="crash", task="rec") as rec:
        rec.answer("kept")
        rec.finish("succeeded")
    monkeypatch.setattr(fcntl, "flock", real)
    [[(path, report)]] = sealed
    assert path.name == "r.jsonl" and report is not None and report.events == 0  # it did seal the empty one
    t = store.read("events", columns=["seq", "kind"])
    assert sorted(zip(t.column("seq").to_pylist(), t.column("kind").to_pylist())) == [
        (0, "run_started"), (1, "answer_given"), (2, "run_finished")]
    assert recover(store) == []


def test_a_late_recover_pass_leaves_a_new_journal_alone(tmp_path, monkeypatch) -> None:
    """Recover pass A opened a dead writer's empty journal; pass B sealed and removed it; a new
    recorder created the journal again. A must not seal or remove the new one."""
    store = Store(tmp_path / "store")
    folder = store.loc.path("journal")
    folder.mkdir(parents=True)
    (folder / "r.jsonl").write_bytes(b"")  # a writer died between creating and writing
    real = fcntl.flock
    live: list[Recorder] = []

    def flock(fd, op):
        if op == fcntl.LOCK_EX | fcntl.LOCK_NB and not live:
            live.append(None)  # type: ignore[arg-type]
            recover(Store(tmp_path / "store"))  # pass B
            live[0] = Recorder(Store(tmp_path / "store"), run_id="r", suite="crash", task="rec").open()
        return real(fd, op)

    monkeypatch.setattr(fcntl, "flock", flock)
    results = recover(store)  # pass A
    monkeypatch.setattr(fcntl, "flock", real)
    assert results == [(folder / "r.jsonl", None)]
    rec = live[0]
    assert rec.journal.exists()
    rec.answer("kept")
    rec.finish("succeeded")
    assert store.read("events").num_rows == 3
