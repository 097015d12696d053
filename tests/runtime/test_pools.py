"""Pools torn down after Ctrl-C or an error leave nothing running in the process: no worker and
no thread of the pool, so that the os._exit which follows an interrupt cannot cut a semaphore's
clean-up in half (the resource tracker would then report a "leaked" semaphore on stderr)."""

from __future__ import annotations

from hang import HANG
import threading
import time

from trajectory.runtime import pools


def _nap(seconds: float) -> float:
    time.sleep(seconds)
    return seconds


def test_tear_down_leaves_no_worker_and_no_thread_of_the_pool() -> None:
    before = set(threading.enumerate())
    pool = pools.spawned_pool(2)
    with pools.spawning():
        futures = [pool.submit(_nap, 30.0) for _ in range(4)]
    procs = list(pool._processes.values())
    while not any(f.running() for f in futures):
        time.sleep(0.01)
    started = time.monotonic()
    pools.tear_down(pool)
    took = time.monotonic() - started
    assert all(not p.is_alive() for p in procs)
    left = [t.name for t in set(threading.enumerate()) - before if t.is_alive()]
    assert left == [], f"threads of the torn-down pool still running: {left}"
    assert took < 10.0  # a worker asleep for 30 s was not waited for
    assert all(f.done() for f in futures)


def _half_a_result() -> None:
    """Start sending a result, as a worker killed while sending a large one leaves it: the
    message's length, a few of its bytes, and no more."""
    import gc
    import os
    import struct
    from multiprocessing.queues import SimpleQueue

    (results,) = [q for q in gc.get_objects() if isinstance(q, SimpleQueue)]
    os.write(results._writer.fileno(), struct.pack("!i", 1 << 20) + b"x" * 100)
    time.sleep(30)


def test_tear_down_while_a_result_was_half_sent() -> None:
    # The pool's manager thread is then reading the rest of that result; tear_down must not
    # leave it there (it would hold the pool's semaphores until the process ends).
    before = set(threading.enumerate())
    pool = pools.spawned_pool(1)
    with pools.spawning():
        future = pool.submit(_half_a_result)
    while not future.running():
        time.sleep(0.01)
    time.sleep(1.0)  # the worker has written its half
    started = time.monotonic()
    pools.tear_down(pool)
    took = time.monotonic() - started
    left = [t.name for t in set(threading.enumerate()) - before if t.is_alive()]
    assert left == [], f"threads of the torn-down pool still running: {left}"
    assert took < 1.5  # the manager thread was not waited for in vain


LEFT_TO_THE_TRACKER = """
import multiprocessing, os, sys
from trajectory.runtime import pools
with pools.spawning():
    pass
lock = multiprocessing.get_context("spawn").Lock()  # registered with the resource tracker
print(lock._semlock.name, flush=True)
sys.stderr.write("still ours\\n")
sys.stderr.flush()
os._exit(0)  # leaves it to the tracker, as an exit after Ctrl-C can
"""


def test_the_resource_tracker_cleans_up_without_a_word() -> None:
    import subprocess
    import sys
    from pathlib import Path

    done = subprocess.run([sys.executable, "-c", LEFT_TO_THE_TRACKER], capture_output=True, text=True, timeout=HANG)
    # stderr reaches EOF only once the tracker, which shares it, has ended: its clean-up is done
    assert done.returncode == 0
    assert done.stderr == "still ours\n"  # our stderr is ours again after the tracker's spawn
    name = done.stdout.strip()
    assert name and not Path(f"/dev/shm/sem.{name.lstrip('/')}").exists()  # unlinked all the same
