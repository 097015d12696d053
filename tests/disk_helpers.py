"""Real disk faults for the tests: a small tmpfs that fills up, a read-only mount.

Mounting needs root (or the capability); where it cannot be done the test is skipped with a
message that says so, never passed silently. Every mount is unmounted when the test ends.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest


def _mount(*args: str) -> str | None:
    """None when mounted, else why not."""
    if os.geteuid() != 0:
        return "not root: mounting a small tmpfs needs root"
    try:
        r = subprocess.run(["mount", *args], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"cannot run mount: {exc}"
    return None if r.returncode == 0 else f"mount refused: {r.stderr.strip() or r.returncode}"


@contextlib.contextmanager
def small_disk(folder: Path, size: str = "4m") -> Iterator[Path]:
    """A tmpfs of ``size`` mounted on ``folder`` (created), unmounted afterwards."""
    folder.mkdir(parents=True, exist_ok=True)
    why = _mount("-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(folder))
    if why is not None:
        pytest.skip(f"no real full disk here ({why})")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], capture_output=True, timeout=30)


def remount(folder: Path, mode: str) -> None:
    """Remount a small_disk read-only ("ro") or read-write ("rw")."""
    why = _mount("-o", f"remount,{mode}", str(folder))
    if why is not None:
        pytest.skip(f"cannot remount {mode} ({why})")


def fill(folder: Path, leave: int = 0) -> Path:
    """Fill the file system that holds ``folder``; then free ``leave`` bytes again. Returns the
    filler file (delete it to free the space)."""
    filler = folder / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        chunk = b"\0" * 65536
        while True:
            try:
                if os.write(fd, chunk) == 0:
                    break
            except OSError:
                break
        if leave:
            os.ftruncate(fd, max(0, os.fstat(fd).st_size - leave))
    finally:
        os.close(fd)
    return filler
