"""Resident memory of a process tree, read from /proc (Linux): what the benchmarks sample."""

from __future__ import annotations

import os


def status_kb(pid: int, field: str) -> int | None:
    """A ``/proc/PID/status`` figure in KiB (``VmRSS``, ``VmHWM``), or None if unreadable."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        return None
    return None


def children(pid: int) -> list[int]:
    """The direct children of a process (of every thread of it)."""
    out = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/children") as fh:
                out += [int(c) for c in fh.read().split()]
    except (OSError, ValueError):
        pass
    return out


def tree_rss_kb(root: int) -> tuple[int, int]:
    """(resident KiB of ``root`` and all its descendants, the largest descendant's) right now."""
    total = largest = 0
    todo = [root]
    while todo:
        pid = todo.pop()
        rss = status_kb(pid, "VmRSS") or 0
        total += rss
        if pid != root:
            largest = max(largest, rss)
        todo += children(pid)
    return total, largest
