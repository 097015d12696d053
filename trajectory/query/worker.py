"""A person's query in a process of its own, stopped from outside at its limits.

DuckDB's own limits (``memory_limit``, an interrupt at the deadline) are asked of the engine,
and the engine does not always answer: ``unnest(range(1e9))`` or ``list_sum(range(1e9))``
build lists outside its buffer manager and pass any memory limit, and an interrupt is only
seen between chunks. So the query runs in a worker process, and this process, which runs no
SQL, watches it: the worker is killed when its resident memory passes the limit (over what it
used before the query began) or when the time limit has passed, and the caller gets the same
one line as for a limit DuckDB itself enforced. The worker also dies with its parent.

Workers are forked from a fork server started once per process (spawned, single-threaded,
with the query modules already imported): the parent may hold DuckDB, Arrow or delta-rs
threads, which a plain fork would copy in an unknown state, and a warm server makes each query
after the first cost a fork, not an interpreter start. ``traj query`` and ``traj view`` both
ask through :func:`answer` / :func:`answer_batches`.
"""

from __future__ import annotations

import functools
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Iterator
from typing import Any

# Nothing heavy at the top: ``traj query`` starts the fork server (warm) from its first line,
# before the CLI itself has loaded DuckDB and Arrow, so that both import at once.

# Seconds the worker is given past the time limit to stop by DuckDB's own interrupt (its line
# is the same) before it is killed.
GRACE = 1.0
# How often the worker's memory and the clock are looked at.
POLL = 0.02
# Memory the worker may use past the limit for the result batches it is sending.
SLACK = 128 * 1024**2
# Before the worker says how much it uses idle, it is allowed this much besides the limit.
STARTUP = 768 * 1024**2

_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


@functools.cache
def _context() -> Any:
    """The start method of query workers, set up once per process: forked from a server that
    has imported the query modules, where there is one."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["trajectory.query.worker", "trajectory.query.sql"])
        return ctx
    return multiprocessing.get_context("spawn")


def warm() -> None:
    """Start the fork server now (it imports the query modules while the caller does its own
    work); a no-op once it runs."""
    ctx = _context()
    if ctx.get_start_method() != "forkserver":
        return
    from multiprocessing import forkserver

    from trajectory.runtime import pools

    with pools.spawning():  # SIGINT blocked in the server and so in every worker it forks
        forkserver.ensure_running()


def rss(pid: int) -> int | None:
    """Resident memory of process ``pid`` in bytes (None where /proc does not say)."""
    try:
        with open(f"/proc/{pid}/statm", "rb") as f:
            return int(f.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        return None


def answer(store: Any, sql: str, *, split: str | None, version: int | None, limits: QueryLimits) -> pa.Table:
    """The whole result of a person's SQL (see :func:`answer_batches`)."""
    import pyarrow as pa

    parts = answer_batches(store, sql, split=split, version=version, limits=limits)
    schema = next(parts)
    return pa.Table.from_batches(list(parts), schema=schema)


def answer_batches(
    store: Any, sql: str, *, split: str | None, version: int | None, limits: QueryLimits
) -> Iterator[Any]:
    """A person's SQL, checked by the sandbox and run in a worker within ``limits``: first the
    result's schema, then its record batches. A limit that stops it, or any error, is one
    QueryError line; the worker is gone when this returns or raises (or is closed)."""
    import pyarrow as pa

    from trajectory.errors import QueryError
    from trajectory.query.limits import STOPPED, size_stop
    warm()
    ctx = _context()
    receive, send = ctx.Pipe(duplex=False)
    # The worker is the fork server's child: it dies when this process closes ``alive``.
    lifeline, alive = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_work, args=(send, lifeline, store, sql, split, version, limits), daemon=True,
                       name="traj-query")
    proc.start()
    send.close()
    lifeline.close()
    watch = _Watch(proc, limits)
    watch.start()
    received = 0
    schema = None
    try:
        while True:
            try:
                kind, body = _recv(receive)
            except (EOFError, OSError):
                proc.join(5)
                raise watch.verdict() or QueryError(
                    f"query stopped: its worker ended without an answer (exit {proc.exitcode})"
                ) from None
            if kind == "ready":
                watch.base = int(body)
            elif kind == "schema":
                schema = pa.ipc.read_schema(pa.py_buffer(body))
                yield schema
            elif kind == "batch":
                received += len(body)
                if received > limits.memory:
                    watch.kill()
                    raise size_stop(limits)
                yield pa.ipc.read_record_batch(pa.py_buffer(body), schema)
            elif kind == "error":
                message, stopped = body
                if stopped is not None:  # the worker's count of stops is its own
                    STOPPED[stopped] += 1
                raise QueryError(message)
            else:
                break
    finally:
        watch.kill()
        receive.close()
        alive.close()
        proc.join(5)


def _recv(conn: Any) -> tuple[str, Any]:
    kind, body = conn.recv()
    if kind in ("schema", "batch"):
        return kind, conn.recv_bytes()
    return kind, body


class _Watch(threading.Thread):
    """Kills the worker at the deadline or when its memory passes the limit."""

    def __init__(self, proc: Any, limits: QueryLimits):
        super().__init__(daemon=True, name="traj-query-watch")
        self.proc = proc
        self.limits = limits
        self.base: int | None = None
        self.reason: str | None = None
        self.done = threading.Event()

    def run(self) -> None:
        deadline = time.monotonic() + self.limits.timeout + GRACE
        while not self.done.wait(POLL):
            if not self.proc.is_alive():
                return
            if time.monotonic() > deadline:
                self._halt("time")
                return
            used = rss(self.proc.pid)
            allowed = self.limits.memory + SLACK + (STARTUP if self.base is None else self.base)
            if used is not None and used > allowed:
                self._halt("memory")
                return

    def _halt(self, reason: str) -> None:
        self.reason = reason
        _kill(self.proc)

    def kill(self) -> None:
        self.done.set()
        if self.is_alive() and self is not threading.current_thread():
            self.join()
        _kill(self.proc)

    def verdict(self) -> QueryError | None:
        from trajectory.query.limits import memory_stop, time_stop

        self.done.set()
        if self.is_alive():
            self.join()
        if self.reason == "time":
            return time_stop(self.limits)
        if self.reason == "memory":
            return memory_stop(self.limits)
        return None


def _kill(proc: Any) -> None:
    if proc.pid is not None and proc.exitcode is None:
        try:
            os.kill(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


# -- in the worker ------------------------------------------------------------------------
def _work(conn: Any, lifeline: Any, store: Any, sql: str, split: str | None, version: int | None, limits: QueryLimits) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent answers Ctrl-C, by killing this
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    from trajectory.runtime.marks import mark
    from trajectory.runtime.pools import die_with

    die_with(lifeline)
    from trajectory.errors import QueryError
    from trajectory.query.limits import STOPPED, limited_batches, memory_stop
    from trajectory.query.sql import Views, scrub_paths, unknown_table

    before = dict(STOPPED)
    try:
        try:
            with Views(store, split=split, version=version, limits=limits) as views:
                shown = views.checked(sql)
                conn.send(("ready", rss(os.getpid()) or 0))
                mark("query-running")
                parts = limited_batches(views.con, shown, limits)
                _send(conn, "schema", next(parts).serialize())
                for batch in parts:
                    _send(conn, "batch", batch.serialize())
        except QueryError as exc:
            stopped = next((k for k in STOPPED if STOPPED[k] != before[k]), None)
            conn.send(("error", (unknown_table(str(exc)) or scrub_paths(str(exc), store), stopped)))
            return
        except MemoryError:
            conn.send(("error", (str(memory_stop(limits)), "memory")))
            return
        except Exception as exc:  # noqa: BLE001 - whatever it is, the person gets one line, not a dead worker
            text = str(exc).strip().splitlines()
            conn.send(("error", (scrub_paths(text[0] if text else type(exc).__name__, store), None)))
            return
        conn.send(("done", None))
    except (BrokenPipeError, EOFError):  # the parent is gone or stopped listening
        pass
    finally:
        conn.close()


def _send(conn: Any, kind: str, body: Any) -> None:
    conn.send((kind, None))
    conn.send_bytes(body)
