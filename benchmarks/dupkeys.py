"""Cost of ingest's duplicate-key check (issue 14): parse of a corpus with and without it, in
one process, alternating, and the check alone over every line.

    python -m benchmarks.dupkeys [--runs 2000]
"""

from __future__ import annotations

import argparse
import gc
import tempfile
import time
from pathlib import Path

import trajectory.ingest.plain as ingest
from trajectory import events as ev
from trajectory.ingest.jsonkeys import duplicate_key

from .corpus import write


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=4)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "corpus.jsonl"
        write(path, args.runs)
        data = path.read_bytes()
    lines = [line for line in data.split(b"\n") if line]
    bodies = [ev.stored(ev.DECODER.decode(line)) for line in lines]
    times: dict[str, list[float]] = {"without": [], "with": [], "check alone": []}
    for _ in range(args.repeat):
        for name, fn in (("without", lambda raw, body: None), ("with", duplicate_key)):
            ingest.duplicate_key = fn
            gc.collect()
            gc.disable()
            start = time.perf_counter()
            ingest.parse(data, "corpus")
            times[name].append(time.perf_counter() - start)
            gc.enable()
        gc.disable()
        start = time.perf_counter()
        for raw, body in zip(lines, bodies):
            duplicate_key(raw, body)
        times["check alone"].append(time.perf_counter() - start)
        gc.enable()
    ingest.duplicate_key = duplicate_key
    n = len(lines)
    print(f"{n:,} events, {len(data) / 1e6:.0f} MB of JSON Lines; best of {args.repeat}")
    for name, values in times.items():
        best = min(values)
        label = f"parse {name} the check" if name != "check alone" else "the check alone"
        print(f"  {label}: {best:.3f} s ({n / best:,.0f} events/s, {best / n * 1e6:.2f} us per line)")


if __name__ == "__main__":
    main()
