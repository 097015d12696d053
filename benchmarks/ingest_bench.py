"""Ingest measurements: the library on a pool of workers, the ``traj ingest`` command in a
fresh process with the peak memory of its whole process tree per input size."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable

from trajectory.ingest.files import Workers, ingest_bytes
from trajectory.judging import SuiteResolver
from trajectory.store.delta import Store

from .procmem import tree_rss_kb


def _log(msg: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def library(store: Store, chunks: list[Path], workers: int,
            on_chunk: Callable[[int], None] | None = None) -> dict[str, Any]:
    """``ingest_bytes`` on each file's bytes (read before its clock starts) with one pool of
    ``workers`` processes for all of them, its start-up counted in the first file's time."""
    total_s = 0.0
    events = 0
    per_chunk = []
    resolver = SuiteResolver(store)
    with Workers(workers) as pool:
        for i, path in enumerate(chunks):
            data = path.read_bytes()
            t = time.perf_counter()
            report = ingest_bytes(store, data, path.name, split_of=resolver.split_of, workers=pool)
            s = time.perf_counter() - t
            del data
            total_s += s
            events += report.new
            per_chunk.append({"events": report.new, "runs": report.runs, "bytes": path.stat().st_size,
                              "seconds": round(s, 3)})
            _log(f"ingest file {i + 1}/{len(chunks)}: {report.new} events in {s:.1f}s")
            if on_chunk is not None:
                on_chunk(i)
    return {
        "workers": workers,
        "events": events,
        "files": len(chunks),
        "seconds": round(total_s, 3),
        "events_per_s": round(events / total_s) if total_s else None,
        "per_file": per_chunk,
    }


def tree_peak(proc: subprocess.Popen, interval: float = 0.05) -> int:
    """The largest resident memory (KiB) of a process and all its descendants, sampled every
    ``interval`` seconds until it ends (a spike shorter than that can be missed)."""
    peak = 0

    def sample() -> None:
        nonlocal peak
        while proc.poll() is None:
            total, _ = tree_rss_kb(proc.pid)
            peak = max(peak, total)
            time.sleep(interval)

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    proc.wait()
    thread.join()
    return peak


def cli(root: Path, path: Path, workers: int) -> dict[str, Any]:
    """``traj ingest FILE`` in a fresh process into a fresh store: wall time, and the peak
    resident memory of the command and its workers."""
    store = root / "cli-store"
    shutil.rmtree(store, ignore_errors=True)
    exe = shutil.which("traj", path=os.path.dirname(sys.executable)) or "traj"
    events = path.read_bytes().count(b"\n")
    size = path.stat().st_size
    errors = root / "cli-stderr.txt"
    with open(errors, "wb") as err_fh:
        t = time.perf_counter()
        proc = subprocess.Popen([exe, "ingest", "--store", str(store), "--workers", str(workers), str(path)],
                                stdout=subprocess.DEVNULL, stderr=err_fh)
        peak_kb = tree_peak(proc)
        s = time.perf_counter() - t
    err = errors.read_text(errors="replace")
    shutil.rmtree(store, ignore_errors=True)
    if proc.returncode != 0:
        return {"status": f"failed: {err.strip()[-300:]}"}
    return {
        "status": "ok", "file_bytes": size, "events": events, "workers": workers, "wall_s": round(s, 3),
        "events_per_s": round(events / s) if s else None, "peak_tree_mb": round(peak_kb / 1024, 1),
        "peak_per_input": round(peak_kb * 1024 / size, 2) if size else None,
    }


def memory_by_size(root: Path, files: list[Path], workers: int) -> dict[str, Any]:
    """``traj ingest`` of a tiny file (the command's fixed footprint: Python, Arrow, DuckDB,
    Delta and the workers) and of each given file; the peak above the footprint per input
    byte is what grows with the input."""
    tiny = root / "tiny.jsonl"
    with open(files[0], "rb") as fh:
        lines = []
        for line in fh:
            lines.append(line)
            if len(lines) >= 200 and b'"run_finished"' in line:
                break
    tiny.write_bytes(b"".join(lines))
    base = cli(root, tiny, workers)
    out: dict[str, Any] = {"footprint": base, "sizes": []}
    for path in files:
        _log(f"traj ingest {path.name} ({path.stat().st_size / 1e6:.0f} MB) for its peak memory")
        got = cli(root, path, workers)
        if got.get("status") == "ok" and base.get("status") == "ok":
            grown = max(0.0, got["peak_tree_mb"] - base["peak_tree_mb"])
            got["above_footprint_mb"] = round(grown, 1)
            got["above_footprint_per_input"] = round(grown * 1024 * 1024 / got["file_bytes"], 2)
        out["sizes"].append(got)
    return out
