"""Crash workers forked from one process that has already imported them.

``python tests/crash_worker.py MODE ...`` spends about a second starting the interpreter and
importing Arrow, DuckDB, delta-rs and the suites before it says ``ready``; a crash test starts
hundreds of them. Here one server process imports what the workers import, once, and forks a
worker per request: each is still a process of its own, with its own stdin, stdout and stderr
pipes, killed with SIGKILL by the test, and it ends as ``python tests/crash_worker.py`` ends
(the interpreter's ordinary exit, or the traceback of an exception and status 1).

The server is single-threaded when it forks, apart from the allocator and BLAS threads that
importing Arrow and NumPy starts and that handle a fork themselves (as in the fork server that
``traj query`` forks its workers from). It is the workers' parent, so it also sends their
signals: a worker it has not reaped yet cannot have given its pid to another process.

    from crash_forks import worker
    p = worker("ingest", store_dir, "--seed", 3, "--batches", "0:6")   # like procs.worker
"""

from __future__ import annotations

import array
import atexit
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hang import HANG
from procs import LineReader

WORKER = Path(__file__).with_name("crash_worker.py")
_MAX_MESSAGE = 1 << 20


# -- the server (its own process) ----------------------------------------------------------------


def _preload() -> None:
    """What the worker's modes import after ``ready``, imported before any fork."""
    import crash_worker  # noqa: F401
    import suites
    import trajectory.errors  # noqa: F401
    import trajectory.ingest.files  # noqa: F401
    import trajectory.ingest.recorder  # noqa: F401
    import trajectory.judging  # noqa: F401
    import trajectory.store.delta  # noqa: F401

    suites.load_builtin("example")  # imports the suite's modules (the judge mode loads it)


def _recv(sock: socket.socket) -> tuple[dict[str, Any], list[int]]:
    fds = array.array("i")
    msg, ancdata, _, _ = sock.recvmsg(_MAX_MESSAGE, socket.CMSG_LEN(16 * fds.itemsize))
    for level, kind, data in ancdata:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(data[: len(data) - (len(data) % fds.itemsize)])
    if not msg:
        raise EOFError
    return json.loads(msg), list(fds)


def _send(sock: socket.socket, message: dict[str, Any]) -> None:
    sock.sendmsg([json.dumps(message).encode()])


def serve(sock: socket.socket) -> list[str]:
    """Answer requests until the test closes the socket (then exit). Returns only in a forked
    worker: its argv, with fds 0-2, the environment and the folder set as the test asked."""
    import selectors

    sig_r, sig_w = os.pipe()
    os.set_blocking(sig_r, False)
    os.set_blocking(sig_w, False)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.set_wakeup_fd(sig_w)
    children: set[int] = set()
    sel = selectors.DefaultSelector()
    sel.register(sock, selectors.EVENT_READ)
    sel.register(sig_r, selectors.EVENT_READ)
    _send(sock, {"op": "ready"})
    while True:
        for key, _ in sel.select():
            if key.fileobj is sig_r:
                with contextlib.suppress(BlockingIOError):
                    os.read(sig_r, 4096)
                while children:
                    pid, status = os.waitpid(-1, os.WNOHANG)
                    if pid == 0:
                        break
                    children.discard(pid)
                    _send(sock, {"op": "exit", "pid": pid, "code": os.waitstatus_to_exitcode(status)})
                continue
            try:
                req, fds = _recv(sock)
            except (EOFError, ConnectionError):
                os._exit(0)  # the test is gone: so is the server (its workers run on, as processes do)
            if req["op"] == "signal":
                if req["pid"] in children:  # not reaped: alive, or a zombie holding its pid
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(req["pid"], req["sig"])
                continue
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:
                signal.set_wakeup_fd(-1)
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                sel.close()
                for fd in (sig_r, sig_w):
                    os.close(fd)
                sock.close()
                for target, fd in enumerate(fds):
                    os.dup2(fd, target)
                for fd in fds:
                    if fd > 2:
                        os.close(fd)
                os.chdir(req["cwd"])
                os.environ.clear()
                os.environ.update(req["env"])
                sys.argv = [str(WORKER), *req["argv"]]
                return req["argv"]
            children.add(pid)
            for fd in fds:
                os.close(fd)
            _send(sock, {"op": "started", "id": req["id"], "pid": pid})


# -- the client (in the test's process) -----------------------------------------------------------


class Forks:
    """The server and its reader: starts workers, routes their exit statuses."""

    def __init__(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}  # as procs.Proc starts its processes
        env.pop("TRAJ_STORE", None)
        self.sock = ours
        self.server = subprocess.Popen([sys.executable, __file__, str(theirs.fileno())], pass_fds=[theirs.fileno()],
                                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                       env=env)
        theirs.close()
        self._server_err: list[bytes] = []  # read as it comes: a full pipe would stop the server
        self._err_reader = threading.Thread(target=lambda: self._server_err.append(self.server.stderr.read()),
                                            daemon=True, name="crash-forks-stderr")
        self._err_reader.start()
        self._lock = threading.Lock()  # one request on the socket at a time
        self._cond = threading.Condition()
        self._ready = False
        self._next = 0
        self._started: dict[int, int] = {}
        self._exits: dict[int, int] = {}
        self._gone = False
        self._reader = threading.Thread(target=self._read, daemon=True, name="crash-forks")
        self._reader.start()

    def _read(self) -> None:
        while True:
            try:
                msg, _ = _recv(self.sock)
            except (EOFError, OSError):
                break
            with self._cond:
                if msg["op"] == "ready":
                    self._ready = True
                elif msg["op"] == "started":
                    self._started[msg["id"]] = msg["pid"]
                elif msg["op"] == "exit":
                    self._exits[msg["pid"]] = msg["code"]
                self._cond.notify_all()
        with self._cond:
            self._gone = True
            self._cond.notify_all()

    def _wait(self, done: Callable[[], Any], timeout: float, what: str) -> Any:
        deadline = time.monotonic() + timeout
        with self._cond:
            while (got := done()) is None:
                if self._gone:
                    raise AssertionError(f"the crash worker server ended while waiting for {what}: {self._stderr()}")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"no {what} within {timeout}s")
                self._cond.wait(left)
            return got

    def _stderr(self) -> str:
        if self.server.poll() is None:
            return "(still running)"
        self._err_reader.join(5.0)
        return b"".join(self._server_err).decode("utf-8", "replace")[-3000:]

    def start(self, argv: list[str], fds: list[int]) -> int:
        """Fork a worker with ``argv`` on stdin/stdout/stderr ``fds``; its pid."""
        self._wait(lambda: self._ready or None, HANG, "ready from the crash worker server")
        with self._lock:
            self._next += 1
            rid = self._next
            req = {"op": "start", "id": rid, "argv": argv, "cwd": os.getcwd(),
                   "env": {**{k: v for k, v in os.environ.items() if k != "TRAJ_STORE"}, "PYTHONUNBUFFERED": "1"}}
            rights = (socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))
            self.sock.sendmsg([json.dumps(req).encode()], [rights])
        return self._wait(lambda: self._started.pop(rid, None), HANG, "a forked worker's pid")

    def signal(self, pid: int, sig: int) -> None:
        with self._lock:
            _send(self.sock, {"op": "signal", "pid": pid, "sig": int(sig)})

    def exit_code(self, pid: int, timeout: float) -> int | None:
        """The worker's exit status (negative: the signal), None if not ended within ``timeout``."""
        try:
            return self._wait(lambda: self._exits.get(pid), timeout, f"exit of worker {pid}")
        except AssertionError:
            if self._gone:
                raise
            return None

    def exited(self, pid: int) -> int | None:
        """The worker's exit status if it has ended, else None."""
        with self._cond:
            return self._exits.get(pid)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()
        self.server.wait(HANG)
        self._err_reader.join(HANG)
        self.server.stderr.close()


class ForkedProc(LineReader):
    """A forked crash worker, read and stopped like :class:`procs.Proc`."""

    def __init__(self, forks: Forks, args: list[str], *, stdin: bool = False):
        self.forks = forks
        self.argv = [sys.executable, str(WORKER), *args]
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        in_r, in_w = os.pipe() if stdin else (os.open(os.devnull, os.O_RDONLY), None)
        self.started = time.monotonic()
        try:
            self.pid = forks.start(args, [in_r, out_w, err_w])
        finally:
            for fd in (in_r, out_w, err_w):
                os.close(fd)
        self.stdin = os.fdopen(in_w, "wb") if in_w is not None else None
        self._out = os.fdopen(out_r, "rb")
        self._err_pipe = os.fdopen(err_r, "rb")
        self._read_pipes(self._out, self._err_pipe)
        self.returncode: int | None = None

    def poll(self) -> int | None:
        return self.forks.exited(self.pid)

    def kill(self) -> bool:
        """SIGKILL the process if it still runs; True when the kill is what ended it."""
        if self.forks.exited(self.pid) is None:
            self.forks.signal(self.pid, signal.SIGKILL)
        return self.finish() == -signal.SIGKILL

    def finish(self, timeout: float = HANG) -> int:
        if self.returncode is None:
            rc = self.forks.exit_code(self.pid, timeout)
            if rc is None:
                stacks = self._stacks()
                raise AssertionError(f"process hung: {self.texts()}{stacks}")
            self.returncode = rc
            self._reader.join(timeout)
            self._err_reader.join(timeout)
            self.stderr = b"".join(self._err).decode("utf-8", "replace")
            for pipe in (self.stdin, self._out, self._err_pipe):
                if pipe is not None:
                    with contextlib.suppress(OSError):
                        pipe.close()
        return self.returncode

    def _stacks(self) -> str:
        """The hung worker's thread stacks (it dumps them to stderr on SIGUSR1), then SIGKILL."""
        self.forks.signal(self.pid, signal.SIGUSR1)
        time.sleep(1.0)
        self.forks.signal(self.pid, signal.SIGKILL)
        self._err_reader.join(5.0)
        return "\nstacks:\n" + b"".join(self._err).decode("utf-8", "replace")[-6000:]

    def release(self) -> None:
        """Send one line to a worker waiting on stdin."""
        assert self.stdin is not None
        self.stdin.write(b"\n")
        self.stdin.flush()


_forks: Forks | None = None
_forks_lock = threading.Lock()


def forks() -> Forks:
    """The test process's server, started on first use."""
    global _forks
    with _forks_lock:
        if _forks is None:
            _forks = Forks()
            atexit.register(stop)
        return _forks


def stop() -> None:
    global _forks
    with _forks_lock:
        if _forks is not None:
            _forks.close()
            _forks = None


def worker(*args: Any, stdin: bool = False) -> ForkedProc:
    """``python tests/crash_worker.py ARGS`` as a process forked from the server."""
    return ForkedProc(forks(), [str(a) for a in args], stdin=stdin)


if __name__ == "__main__":
    _sock = socket.socket(fileno=int(sys.argv[1]))
    _preload()
    _argv = serve(_sock)
    # Only a forked worker gets here: it runs as `python tests/crash_worker.py ARGV` would.
    import crash_worker

    crash_worker.main(_argv)
