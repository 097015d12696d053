"""Disk faults as one line: a full disk, a read-only file system, a permission refused.

They reach traj from Python (``OSError``), from the Delta Lake writer (its errors carry the OS
error as text, ``... (os error 28)``) or as a panic of the Rust code behind it. Whatever the
source, the person gets the path, what happened, what to do, and the fact that matters most:
the store is intact, because every commit is written whole or not at all (files written
before a failed commit are not part of any version, and journals keep what a recorder wrote).
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import sys
import threading
from collections.abc import Iterator

# errno -> (what happened, what to do)
_FAULTS: dict[int, tuple[str, str]] = {
    errno.ENOSPC: ("no space left on the device", "free some space and run the command again"),
    errno.EDQUOT: ("disk quota exceeded", "free some space or raise the quota, then run the command again"),
    errno.EROFS: ("read-only file system", "remount it read-write, or copy the store somewhere writable, and run again"),
    errno.EACCES: ("permission denied", "run as a user who may write there, or fix the permissions, and run again"),
    errno.EPERM: ("operation not permitted", "run as a user who may write there, or fix the permissions, and run again"),
}
# The same faults as the Rust side words them.
_TEXTS = [
    (re.compile(r"os error (\d+)"), None),
    (re.compile(r"no space left on device", re.I), errno.ENOSPC),
    (re.compile(r"disk quota exceeded", re.I), errno.EDQUOT),
    (re.compile(r"read-only file system", re.I), errno.EROFS),
    (re.compile(r"permission denied", re.I), errno.EACCES),
    (re.compile(r"operation not permitted", re.I), errno.EPERM),
]
_PATH = re.compile(r"(/[^\s:'\"#,)]+)")
INTACT = "the store is intact (a commit is written whole or not at all)"


def _errno_of(exc: BaseException) -> int | None:
    if isinstance(exc, OSError) and exc.errno in _FAULTS:
        return exc.errno
    text = str(exc)
    for pattern, code in _TEXTS:
        m = pattern.search(text)
        if m is None:
            continue
        if code is None:
            number = int(m.group(1))
            if number in _FAULTS:
                return number
            continue
        return code
    return None


def disk_fault(exc: BaseException, store: str) -> str | None:
    """One line for a disk fault anywhere in ``exc``'s chain, or None for anything else."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, (OSError, Exception)) or type(seen).__name__ == "PanicException":
            code = _errno_of(seen)
            if code is not None:
                what, todo = _FAULTS[code]
                path = getattr(seen, "filename", None)
                if not path:
                    m = _PATH.search(str(seen))
                    path = m.group(1) if m else store
                return f"{path}: {what}; {todo}. {INTACT.capitalize()}"
        seen = seen.__cause__ or seen.__context__
    return None


@contextlib.contextmanager
def held_native_stderr() -> Iterator[None]:
    """Hold what native code writes to stderr while the block runs (a Rust panic report from
    a writer thread on a full disk); write it out afterwards unless the block failed with a disk
    fault, which the CLI then reports in one line. Held in memory through a pipe: on a full
    disk there is no room for a temporary file.

    File descriptor 2 belongs to the process: while one thread holds it, another thread's
    block runs without holding (two holders would restore each other's pipe).
    """
    if not _HOLDER.acquire(blocking=False):
        yield
        return
    try:
        with _held():
            yield
    finally:
        _HOLDER.release()


_HOLDER = threading.Lock()


@contextlib.contextmanager
def _held() -> Iterator[None]:
    try:
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    try:
        saved = os.dup(2)
    except OSError:  # no stderr at all (a daemon): nothing to hold
        yield
        return
    read_end, write_end = os.pipe()
    chunks: list[bytes] = []

    def drain() -> None:
        while data := os.read(read_end, 65536):
            chunks.append(data)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    os.dup2(write_end, 2)
    os.close(write_end)
    fault = False
    try:
        yield
    except BaseException as exc:
        fault = disk_fault(exc, "") is not None
        raise
    finally:
        os.dup2(saved, 2)  # the pipe's last writer gone: the reader sees its end
        os.close(saved)
        reader.join(timeout=5)
        os.close(read_end)
        if chunks and not fault:
            os.write(2, b"".join(chunks))
