"""A worker exits when its parent dies, whatever kills the parent (issue 24, section 8): the
workers of a spawned pool (``judge --workers 2``) and the worker of ``traj query`` are gone soon
after a SIGKILL of the process that started them, not when their task ends (on 8ec75cb, pool
workers busy with a task outlived a killed parent for as long as the task ran)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from helpers import example_run, jsonl
from trajectory.ingest.files import ingest_bytes
from trajectory.store.delta import Store

GONE_WITHIN = 60.0  # one generous wait: the kernel's signal takes milliseconds


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def wait_gone(pids: list[int]) -> list[int]:
    deadline = time.monotonic() + GONE_WITHIN
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = [p for p in pids if alive(p)]
    for p in left:  # leave nothing behind, whatever the verdict
        os.kill(p, signal.SIGKILL)
    return left


PARENT = textwrap.dedent("""
    import os, sys, time
    from trajectory.runtime import pools

    def task(folder):
        open(os.path.join(folder, str(os.getpid())), "w").close()
        time.sleep(600)  # far longer than the test waits

    if __name__ == "__main__":
        folder = sys.argv[1]
        pool = pools.spawned_pool(2)
        with pools.spawning():
            futures = [pool.submit(task, folder) for _ in range(2)]
        while len(os.listdir(folder)) < 2:
            time.sleep(0.05)
        print("ready", flush=True)
        time.sleep(600)
""")


def test_pool_workers_die_when_their_parent_is_killed(tmp_path: Path) -> None:
    script = tmp_path / "parent.py"
    script.write_text(PARENT)
    folder = tmp_path / "pids"
    folder.mkdir()
    parent = subprocess.Popen([sys.executable, str(script), str(folder)], stdout=subprocess.PIPE, text=True,
                              start_new_session=True)
    try:
        assert parent.stdout.readline().strip() == "ready"
        workers = [int(p) for p in os.listdir(folder)]
        assert len(workers) == 2 and all(alive(p) for p in workers)
        parent.kill()
        parent.wait()
        assert wait_gone(workers) == [], "pool workers outlived their killed parent"
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()
        parent.stdout.close()


def test_the_query_worker_dies_when_traj_query_is_killed(tmp_path: Path) -> None:
    store = Store(tmp_path / "store")
    ingest_bytes(store, jsonl(example_run("r1")), "one")
    sql = "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r"
    cmd = [sys.executable, "-m", "trajectory.cli.main", "query", sql, "--timeout", "600", "--max-memory", "256MiB",
           "--store", str(store.loc)]
    env = {**os.environ, "TRAJ_MARKS": "query-running"}
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True, env=env)
    try:
        # Killed while the worker runs the query: a worker that only notices its command is gone
        # when it next sends (its first answer, an error) would outlive it here. One generous
        # wait for the line, which only a hang exceeds.
        said = _read_line(proc, 120.0)
        assert said == "traj-mark: query-running", said
        others = [p for p in _session(proc.pid) if p != proc.pid]
        proc.kill()
        proc.wait()
        assert wait_gone(others) == [], "the query's processes outlived the killed command"
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.stderr.close()


def _read_line(proc: subprocess.Popen, timeout: float) -> str:
    """The next line of ``proc``'s stderr, waiting at most ``timeout`` seconds."""
    import selectors

    with selectors.DefaultSelector() as sel:
        sel.register(proc.stderr, selectors.EVENT_READ)
        if not sel.select(timeout):
            raise AssertionError(f"no line within {timeout}s")
    return proc.stderr.readline().decode().strip()


def _session(sid: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[1].split()
            if int(fields[3]) == sid and fields[0] != "Z":
                out.append(int(entry))
    return out
