"""``python -m benchmarks [--quick] [--runs N] [--events-per-run K] [--workers W] [--out FILE]
[--compare FILE]``: measure ingest, incremental and full re-judge, queries and the baselines;
print; write JSON."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from . import harness, report, view

DEFAULT_OUT = Path(__file__).with_name("results") / "latest.json"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    p.add_argument("--quick", action="store_true", help=f"{harness.QUICK_RUNS:,} runs: under a minute")
    p.add_argument("--runs", type=int, help=f"runs in the corpus (default {harness.FULL_RUNS:,}, quick {harness.QUICK_RUNS:,})")
    p.add_argument("--events-per-run", type=int, default=100)
    p.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    p.add_argument("--chunk-runs", type=int, default=10_000, help="runs per ingest batch")
    p.add_argument("--per-run-runs", type=int, default=10_000, help="most runs for the per-run baseline (b)")
    p.add_argument("--inspect-samples", type=int, default=2_000, help="most runs re-scored by inspect score, baseline (c)")
    p.add_argument("--device-runs", type=int, default=10_000, help="runs of the held-out-style device corpus (0: none)")
    p.add_argument("--partition", type=int, help="runs per judging partition (default 2000, fewer for small corpora)")
    p.add_argument("--no-profile", action="store_true", help="skip the profiled re-judge (always skipped with --quick)")
    p.add_argument("--workdir", help="keep the corpus and stores here (default: a temporary folder, removed)")
    p.add_argument("--out", default=str(DEFAULT_OUT), help="results JSON (default benchmarks/results/latest.json)")
    p.add_argument("--compare", help="an earlier results JSON to compare with")
    p.add_argument("--label", help="a note stored in the results (e.g. 'full run')")
    a = p.parse_args(argv)
    runs = a.runs or (harness.QUICK_RUNS if a.quick else harness.FULL_RUNS)
    cfg = harness.Config(
        runs=runs, events_per_run=a.events_per_run, workers=max(1, a.workers), quick=a.quick,
        chunk_runs=a.chunk_runs, per_run_runs=a.per_run_runs,
        inspect_samples=min(a.inspect_samples, 200) if a.quick else a.inspect_samples,
        device_runs=min(a.device_runs, 1000) if a.quick else a.device_runs,
        # judge_runs' default partition (2000 runs), but at least two partitions per worker so
        # that a small corpus still exercises the worker pool.
        partition=a.partition or min(2000, max(50, runs // (2 * max(1, a.workers)))),
        profile=not (a.no_profile or a.quick), workdir=a.workdir, keep=bool(a.workdir),
        partial=str(Path(a.out).with_suffix(".partial.json")),
    )
    results = harness.run(cfg, view_pages=view.view_pages)
    results["label"] = a.label
    results["targets"] = report.targets(results)
    print(report.render(results))
    out = Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n")
    print(f"results written to {out}")
    if cfg.partial:
        Path(cfg.partial).unlink(missing_ok=True)
    if a.compare:
        print()
        print(report.compare(report.load(a.compare), results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
