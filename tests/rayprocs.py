"""Processes and listening sockets on this machine, from /proc: which processes a Ray cluster
started (descendants of a process whose command line names Ray) and where they listen."""

from __future__ import annotations

from hang import HANG
import os
import time
from pathlib import Path


def _ppids() -> dict[int, int]:
    out = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                stat = (d / "stat").read_text()
                out[int(d.name)] = int(stat.rsplit(") ", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    return out


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def descendants(root: int) -> set[int]:
    ppid = _ppids()
    kids: dict[int, list[int]] = {}
    for pid, parent in ppid.items():
        kids.setdefault(parent, []).append(pid)
    out, todo = set(), [root]
    while todo:
        for k in kids.get(todo.pop(), []):
            if k not in out:
                out.add(k)
                todo.append(k)
    return out


def ray_processes(root: int | None = None) -> set[int]:
    """Descendants of ``root`` (this process by default) that are Ray's."""
    return {p for p in descendants(root or os.getpid()) if "ray" in _cmdline(p).lower()}


def alive(pids: set[int]) -> set[int]:
    out = set()
    for p in pids:
        try:
            state = Path(f"/proc/{p}/stat").read_text().rsplit(") ", 1)[1][0]
        except (OSError, IndexError):
            continue
        if state != "Z":
            out.add(p)
    return out


def wait_gone(pids: set[int], timeout: float = HANG) -> set[int]:
    deadline = time.monotonic() + timeout
    left = alive(pids)
    while left and time.monotonic() < deadline:
        time.sleep(0.2)
        left = alive(left)
    return left


def _decode(addr: str) -> str:
    host, port = addr.split(":")
    if len(host) == 8:
        raw = bytes.fromhex(host)[::-1]
        return ".".join(str(b) for b in raw) + f":{int(port, 16)}"
    words = [bytes.fromhex(host[i : i + 8])[::-1].hex() for i in range(0, 32, 8)]
    full = "".join(words)
    if full.startswith("00000000000000000000ffff"):
        return ".".join(str(b) for b in bytes.fromhex(full[24:])) + f":{int(port, 16)}"
    return f"[{':'.join(full[i:i + 4] for i in range(0, 32, 4))}]:{int(port, 16)}"


def listeners(pids: set[int]) -> dict[str, int]:
    """Listening TCP addresses (``HOST:PORT``) of these processes -> the pid."""
    inodes: dict[str, int] = {}
    for pid in pids:
        try:
            for fd in Path(f"/proc/{pid}/fd").iterdir():
                try:
                    target = os.readlink(fd)
                except OSError:
                    continue
                if target.startswith("socket:["):
                    inodes[target[8:-1]] = pid
        except OSError:
            continue
    out = {}
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            parts = line.split()
            if parts[3] == "0A" and parts[9] in inodes:  # 0A: LISTEN
                out[_decode(parts[1])] = inodes[parts[9]]
    return out


def loopback(address: str) -> bool:
    host = address.rsplit(":", 1)[0]
    return host.startswith("127.") or host == "[0000:0000:0000:0000:0000:0000:0000:0001]"
