"""``python -m benchmarks.profile_ingest [--runs N] [--top K]``: where one ingest's time goes.

Writes ``N`` corpus runs (benchmarks/corpus.py, ~100 events each) as one JSON Lines file, then
ingests it into a fresh store with ``ingest_bytes`` on this process alone (staging in-process, so
that cProfile sees every stage) and prints the events/s and the top functions by cumulative and
by own time. A hand tool for the profile behind the ingest figures; it writes no results file.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import shutil
import sys
import tempfile
import time
from pathlib import Path

from trajectory.ingest.files import Workers, ingest_bytes
from trajectory.judging import SuiteResolver
from trajectory.store.delta import Store

from . import corpus


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.profile_ingest", description=__doc__)
    p.add_argument("--runs", type=int, default=2000)
    p.add_argument("--top", type=int, default=30)
    a = p.parse_args(argv)
    root = Path(tempfile.mkdtemp(prefix="traj-profile-ingest-"))
    try:
        path = root / "corpus.jsonl"
        with open(path, "wb") as fh:
            for line in corpus.generate(a.runs):
                fh.write(line if line.endswith(b"\n") else line + b"\n")
        data = path.read_bytes()
        store = Store(root / "store")
        split_of = SuiteResolver(store).split_of
        profile = cProfile.Profile()
        t = time.perf_counter()
        profile.enable()
        with Workers(1) as here:
            report = ingest_bytes(store, data, path.name, split_of=split_of, workers=here)
        profile.disable()
        seconds = time.perf_counter() - t
        print(f"{report.new:,} events, {len(data) / 1e6:.0f} MB in {seconds:.2f} s under cProfile: "
              f"{report.new / seconds:,.0f} events/s on one process")
        stats = pstats.Stats(profile, stream=sys.stdout)
        stats.sort_stats("cumulative").print_stats(a.top)
        stats.sort_stats("tottime").print_stats(a.top)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
