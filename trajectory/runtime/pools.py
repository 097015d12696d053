"""Process pools that Ctrl-C cannot leave half started or noisy.

A terminal's Ctrl-C reaches every process of its foreground group, workers included. A worker
hit while Python is still importing prints a traceback of its own, and one spawned but not yet
registered with its pool could not be torn down. So workers are spawned with SIGINT blocked
(the mask of the thread that starts a process is inherited through exec) and ignore it from
their first line of traj code on; the parent alone answers Ctrl-C, by tearing the pool down.

Every pool is spawned, never forked: the parent may hold DuckDB or Arrow threads, which a
forked child would inherit in an unknown state.
"""

from __future__ import annotations

import concurrent.futures as cf
import functools
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from trajectory.runtime import interrupts


def _quiet_worker(init: Callable[..., None] | None, args: tuple[Any, ...], parent: int | None = None,
                  by_signal: bool = True) -> None:
    # The worker started with SIGINT blocked, so none arrived before this line; one pending
    # now is discarded as it is ignored and unblocked.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    die_with_parent(parent, by_signal=by_signal)
    if init is not None:
        init(*args)


def spawned_pool(workers: int, initializer: Callable[..., None] | None = None,
                 initargs: tuple[Any, ...] = ()) -> cf.ProcessPoolExecutor:
    """A pool of ``workers`` spawned processes that ignore SIGINT. Submit to it inside
    :func:`spawning`: a submit may start a worker."""
    return cf.ProcessPoolExecutor(
        workers, mp_context=multiprocessing.get_context("spawn"), initializer=_quiet_worker,
        # The kernel's parent-death signal follows the thread that started the worker: it is
        # used only when that is the main thread (which lives as long as the process).
        initargs=(initializer, initargs, os.getpid(), threading.current_thread() is threading.main_thread()),
    )


def _ensure_tracker() -> None:
    """Start multiprocessing's resource tracker, the process that unlinks the semaphores of
    pools that did not release their own, with its stderr on /dev/null.

    Its reports go to the stderr it was started with, and a Ctrl-C makes them: a finalizer it
    lands in (KeyboardInterrupt between a semaphore's unlink and its unregistering), or an exit
    while a pool's thread is releasing one, leaves it a "leaked semaphore" warning to print
    after the command's one line. It cleans up either way; the warning tells the user nothing.
    The file descriptor is swapped for the first start in a process only (any other thread's
    write to stderr meanwhile is lost, as a progress bar's frame would be); later calls restart
    a tracker that died, as multiprocessing itself would."""
    from multiprocessing import resource_tracker

    _start_tracker_quietly()
    resource_tracker.ensure_running()


@functools.cache
def _start_tracker_quietly() -> None:
    from multiprocessing import resource_tracker

    sys.stderr.flush()
    saved = os.dup(2)
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 2)
        resource_tracker.ensure_running()
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(null)


@contextmanager
def spawning() -> Iterator[None]:
    """A section that may start workers: SIGINT is held (a Ctrl-C meanwhile is raised once the
    section ends, every worker registered) and blocked in this thread, so that the workers it
    starts begin with it blocked."""
    with interrupts.deferred():
        # Started first: starting it unblocks SIGINT in this thread (it blocks and unblocks
        # around its own spawn), which would undo the block below.
        _ensure_tracker()
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            yield
        finally:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def tear_down(pool: cf.ProcessPoolExecutor) -> None:
    """End a pool now (after Ctrl-C or an error): workers stopped, none left behind, within a
    second or two. A second Ctrl-C meanwhile is ignored: it must not cut this short."""
    with interrupts.ignored():
        procs = list((getattr(pool, "_processes", None) or {}).values())
        manager = getattr(pool, "_executor_manager_thread", None)
        results = getattr(pool, "_result_queue", None)
        for proc in procs:
            proc.terminate()
        pool.shutdown(wait=False, cancel_futures=True)
        for proc in procs:
            proc.join(1.0)
            if proc.is_alive():
                proc.kill()
                proc.join(1.0)
        # The pool's manager thread outlives shutdown(wait=False): it finds the workers gone,
        # closes the queues and drops the last references to their semaphores, whose finalizers
        # unlink each one and then tell the resource tracker. A process that ends (os._exit
        # after Ctrl-C) between those two steps leaves the tracker to report a "leaked"
        # semaphore on our stderr. So the thread is let finish first; with the workers dead it
        # ends at once, unless it was reading a result that a worker was killed while sending:
        # it would wait for the rest for ever, since this process holds the pipe's writing end
        # too. Closing that end (only workers write to it) ends the read.
        if results is not None:
            results._writer.close()
        if manager is not None and manager.is_alive():
            manager.join(2.0)


_PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int | None = None, *, by_signal: bool = True) -> None:
    """Make this worker die when its parent (``parent``, else the current one) does, whatever
    kills it, SIGKILL included: on Linux the kernel sends SIGKILL (PR_SET_PDEATHSIG), elsewhere
    (or when the worker was started from a thread that may end first) a thread watches for the
    parent to go. A worker whose parent is already gone exits at once."""
    expected = os.getppid() if parent is None else parent
    armed = False
    if by_signal and sys.platform.startswith("linux"):
        import ctypes

        try:
            libc = ctypes.CDLL(None, use_errno=True)
            armed = libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0
        except (OSError, AttributeError):
            armed = False
    if os.getppid() != expected:  # the parent died before the signal was armed
        os._exit(1)
    if not armed:

        def watch() -> None:
            while os.getppid() == expected:
                time.sleep(0.2)
            os._exit(1)

        threading.Thread(target=watch, daemon=True, name="traj-parent-watch").start()


def die_with(lifeline: Any) -> None:
    """Make this worker die when the process holding the other end of ``lifeline`` (the read
    end of a one-way pipe whose write end only that process holds, and never writes to) ends,
    whatever kills it. For a worker whose parent is not the process it works for: a forked
    server's child outlives the process that asked for it, and holds the server's own lifeline
    open, so neither would end (the kernel's parent-death signal follows the server)."""

    def watch() -> None:
        lifeline.poll(None)  # readable only at end of file: the holder is gone
        os._exit(1)  # from a thread: nothing of this worker's is left to clean up

    threading.Thread(target=watch, daemon=True, name="traj-lifeline").start()
