"""Child processes for the crash and concurrency tests: start, read stdout lines as they come,
kill with SIGKILL, and finish without leaking pipes."""

from __future__ import annotations

from hang import HANG
import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

WORKER = Path(__file__).with_name("crash_worker.py")
from helpers import TRAJ  # noqa: E402, F401 - the one command line, shared
TIMEOUT = HANG


class LineReader:
    """A child's stdout lines collected with their arrival time, and its stderr whole, each by a
    thread; shared by :class:`Proc` and the forked crash workers (tests/crash_forks.py)."""

    lines: list[tuple[float, str]]
    stderr: str

    def _read_pipes(self, out: IO[bytes], err: IO[bytes]) -> None:
        self.lines = []
        self._cond = threading.Condition()
        self._eof = False
        self._reader = threading.Thread(target=self._read, args=(out,), daemon=True)
        self._reader.start()
        self._err: list[bytes] = []
        self._err_reader = threading.Thread(target=lambda: self._err.append(err.read()), daemon=True)
        self._err_reader.start()
        self.stderr = ""

    def _read(self, out: IO[bytes]) -> None:
        for raw in out:
            with self._cond:
                self.lines.append((time.monotonic(), raw.decode("utf-8", "replace").rstrip("\n")))
                self._cond.notify_all()
        with self._cond:
            self._eof = True
            self._cond.notify_all()

    def wait_line(self, pred: Callable[[str], bool], timeout: float = TIMEOUT, nth: int = 0) -> float | None:
        """The arrival time of the ``nth`` (0-based) line matching ``pred``; None if the process
        ended first."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                hits = [t for t, text in self.lines if pred(text)]
                if len(hits) > nth:
                    return hits[nth]
                if self._eof:
                    return None
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"no expected line within {timeout}s; got {self.texts()}")
                self._cond.wait(left)

    def texts(self) -> list[str]:
        with self._cond:
            return [t for _, t in self.lines]


class Proc(LineReader):
    """A child process whose stdout lines are collected (with their arrival time) by a thread."""

    def __init__(self, argv: list[str], *, stdin: bool = False):
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        env.pop("TRAJ_STORE", None)
        self.started = time.monotonic()
        self.argv = [str(a) for a in argv]
        self.p = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        assert self.p.stdout is not None and self.p.stderr is not None
        self._read_pipes(self.p.stdout, self.p.stderr)

    def kill(self) -> bool:
        """SIGKILL the process if it still runs; True when the kill is what ended it."""
        if self.p.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                self.p.send_signal(signal.SIGKILL)
        return self.finish() == -signal.SIGKILL

    def finish(self, timeout: float = TIMEOUT) -> int:
        try:
            rc = self.p.wait(timeout)
        except subprocess.TimeoutExpired:
            stacks = self._stacks()
            self.p.kill()
            raise AssertionError(f"process hung: {self.texts()}{stacks}") from None
        self._reader.join(timeout)
        self._err_reader.join(timeout)
        self.stderr = b"".join(self._err).decode("utf-8", "replace")
        for pipe in (self.p.stdin, self.p.stdout, self.p.stderr):
            if pipe is not None:
                with contextlib.suppress(OSError):
                    pipe.close()
        return rc

    def _stacks(self) -> str:
        """A hung crash worker's thread stacks (it dumps them to stderr on SIGUSR1), for the
        failure message; nothing from a process that does not."""
        if self.argv[1:2] != [str(WORKER)]:
            return ""
        with contextlib.suppress(ProcessLookupError):
            self.p.send_signal(signal.SIGUSR1)
        time.sleep(1.0)
        self.p.kill()
        self._err_reader.join(5.0)
        return "\nstacks:\n" + b"".join(self._err).decode("utf-8", "replace")[-6000:]

    def release(self) -> None:
        """Send one line to a worker waiting on stdin."""
        assert self.p.stdin is not None
        self.p.stdin.write(b"\n")
        self.p.stdin.flush()


def worker(*args: Any, stdin: bool = False) -> Proc:
    return Proc([sys.executable, str(WORKER), *map(str, args)], stdin=stdin)


def ended_cleanly(proc: Proc, timeout: float = TIMEOUT) -> None:
    rc = proc.finish(timeout)
    assert rc == 0 and "Traceback" not in proc.stderr, f"exit {rc}: {proc.stderr[-2000:]}"
