"""``python -m benchmarks.scaleout [--runs N] [--out FILE]``: the scale-out figures (issue 12).

On one corpus (the same generator as ``python -m benchmarks``) and the same machine, in one run:

- **S3 vs local disk**: ingest (``ingest_bytes``, events/s), a judging pass (local engine, one
  worker, written) and the example queries (median of 5), on a local folder and on a store on
  a local S3 server (moto, a process on 127.0.0.1 started and stopped here: every request goes
  through HTTP and delta-rs's object store, so the figure is the protocol's cost, not a
  network's);
- **the Ray engine beside the local one** on the same store: the local engine with 1 and 2
  workers, then a local Ray cluster (2 CPUs, 127.0.0.1) at 1, 2, 4, 8 and 16 partitions, the
  cluster's start-up timed apart; from these the per-partition overhead (a least-squares line
  through the Ray passes' CPU-seconds against their number of partitions) and the per-run cost;
- **Ray ingest** (files validated on the cluster, committed by the driver) beside local ingest;
- the machine's load average before and after each part (the machine may be shared);
- the capacity model's inputs and its figures for 100 million runs (see benchmarks/README.md).

Needs the test extra (moto) and the ray extra: ``pip install -e '.[test]'``.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from trajectory.engines.ray_engine import RayCluster, RayEngine, ingest_files_ray
from trajectory.ingest.plain import DEFAULT_LIMITS
from trajectory.ingest.files import ingest_files
from trajectory.judging import SuiteResolver, judge_runs
from trajectory.store.delta import Store

from . import harness, ingest_bench

DEFAULT_OUT = Path(__file__).with_name("results") / "scaleout.json"
PARTITIONS = (1, 2, 4, 8, 16)
TARGET_RUNS = 100_000_000


def load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


class S3:
    """moto's S3 server as a child process on 127.0.0.1, with one bucket."""

    def __init__(self) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.endpoint = f"http://127.0.0.1:{self.port}"
        self.proc = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(self.port)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(300):
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        urllib.request.urlopen(urllib.request.Request(f"{self.endpoint}/bench", method="PUT"), timeout=30).close()
        os.environ.update({"AWS_ENDPOINT_URL": self.endpoint, "AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench",
                           "AWS_REGION": "us-east-1", "AWS_ALLOW_HTTP": "true"})

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(30)


def timed_pass(store: Store, **kw: Any) -> dict[str, Any]:
    stages: dict[str, float] = {}

    def hook(stage: str, seconds: float) -> None:
        stages[stage] = stages.get(stage, 0.0) + seconds

    t = time.perf_counter()
    result = judge_runs(store, SuiteResolver(store), hook=hook, **kw)
    s = time.perf_counter() - t
    return {"seconds": round(s, 3), "runs": len(result.rows), "runs_per_s": round(len(result.rows) / s, 1),
            "stages_s": {k: round(v, 3) for k, v in stages.items()}, "written": result.written,
            "outcomes": dict(result.counts)}


def on_store(store: Store, chunks: list[Path], label: str) -> dict[str, Any]:
    out: dict[str, Any] = {"load_before": load()}
    harness._log(f"{label}: ingest")
    out["ingest"] = ingest_bench.library(store, chunks, 1)  # one process on both stores
    harness._log(f"{label}: judge (local engine, 1 worker, written)")
    out["judge"] = timed_pass(store, timeout=60.0)
    harness._log(f"{label}: queries")
    out["queries"] = harness.queries(store, 5)
    out["load_after"] = load()
    return out


def fit(points: list[tuple[float, float]]) -> tuple[float, float]:
    """Least squares y = a + b x."""
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    sxx = sum((x - mx) ** 2 for x, _ in points)
    b = sum((x - mx) * (y - my) for x, y in points) / sxx if sxx else 0.0
    return my - b * mx, b


def ray_part(store: Store, runs: int, chunks: list[Path], workdir: Path) -> dict[str, Any]:
    out: dict[str, Any] = {"load_before": load()}
    harness._log("local engine, 1 and 2 workers (dry runs)")
    quarter = max(1, runs // 4)
    out["local_1_worker"] = timed_pass(store, dry_run=True, partition=quarter)
    out["local_2_workers"] = timed_pass(store, dry_run=True, partition=quarter, workers=2)
    t = time.perf_counter()
    with RayCluster(num_cpus=2) as cluster:
        out["cluster_start_s"] = round(time.perf_counter() - t, 3)
        out["cpus"] = RayCluster.cpus()
        engine = RayEngine(cluster)
        timed_pass(store, dry_run=True, partition=runs, engine=engine)  # warm the workers once
        passes = {}
        for n in PARTITIONS:
            harness._log(f"ray engine, {n} partitions")
            size = -(-runs // n)
            passes[str(n)] = timed_pass(store, dry_run=True, partition=size, engine=engine)
        out["ray_passes"] = passes
        harness._log("ray ingest vs local ingest")
        local_store, ray_store = Store(workdir / "ingest-local"), Store(workdir / "ingest-ray")
        names = [str(c) for c in chunks]
        t = time.perf_counter()
        list(ingest_files(local_store, names, DEFAULT_LIMITS))
        local_s = time.perf_counter() - t
        t = time.perf_counter()
        list(ingest_files_ray(ray_store, names, DEFAULT_LIMITS))
        ray_s = time.perf_counter() - t
        events = sum(p.read_bytes().count(b"\n") for p in chunks)
        out["ingest_files"] = {"files": len(names), "events": events, "local_s": round(local_s, 3),
                               "ray_s": round(ray_s, 3), "local_events_per_s": round(events / local_s),
                               "ray_events_per_s": round(events / ray_s)}
    out["load_after"] = load()
    out["model_inputs"] = model_inputs(out)
    return out


def model_inputs(ray: dict[str, Any]) -> dict[str, Any]:
    """The capacity model's inputs, from the measured passes.

    Per-partition overhead: the slope of a least-squares line through the Ray passes' worker
    seconds (load/replay plus judge, summed over partitions as the workers report them) against
    their number of partitions: what one more partition costs the cluster (a task, a scan and
    replay set-up of its own). Worker seconds, not wall time: on a shared 2-core machine the
    wall time of a pass swings with the other load more than with its partitions. The
    driver's dispatch cost per partition: the slope of the passes' wall time beyond their
    worker seconds spread over the CPUs.
    """
    passes = {int(k): v for k, v in ray["ray_passes"].items()}
    cpus = ray.get("cpus") or 2
    work = [(n, p["stages_s"].get("load_replay", 0.0) + p["stages_s"].get("judge", 0.0)) for n, p in passes.items()]
    intercept, slope = fit(work)
    spare = [(n, p["seconds"] - (w / min(n, cpus))) for (n, p), (_, w) in zip(passes.items(), work)]
    _, dispatch = fit(spare)
    local = ray["local_1_worker"]
    return {
        "cpus": cpus,
        "per_run_s": round(local["seconds"] / local["runs"], 6),
        "per_partition_overhead_s": round(max(slope, 0.0), 4),
        "worker_seconds_at_1_partition": round(intercept + slope, 3),
        "driver_dispatch_s_per_partition": round(max(dispatch, 0.0), 4),
        "select_s_per_run": round(local["stages_s"].get("select", 0.0) / local["runs"], 8),
        "cluster_start_s": ray.get("cluster_start_s"),
    }


def capacity(inputs: dict[str, Any], partition: int = 2000, cores: tuple[int, ...] = (64, 256, 1024)) -> dict[str, Any]:
    """Hours to judge 100M runs on a cluster of N cores (assumptions in benchmarks/README.md):
    worker seconds = runs x per-run cost + partitions x per-partition overhead, spread evenly
    over the cores; the driver dispatches partitions and selects the runs alone."""
    parts = -(-TARGET_RUNS // partition)
    cpu_s = TARGET_RUNS * inputs["per_run_s"] + parts * inputs["per_partition_overhead_s"]
    driver_s = parts * inputs["driver_dispatch_s_per_partition"] + TARGET_RUNS * inputs["select_s_per_run"]
    return {
        "runs": TARGET_RUNS, "partition": partition, "partitions": parts,
        "worker_core_hours": round(cpu_s / 3600, 1),
        "hours_by_cores": {str(n): round(cpu_s / n / 3600 + driver_s / 3600, 2) for n in cores},
        "driver_hours": round(driver_s / 3600, 2),
        "cores_for_2_hours": int(-(-cpu_s // max(1.0, 2 * 3600 - driver_s))) if driver_s < 2 * 3600 else None,
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.scaleout", description=__doc__)
    p.add_argument("--runs", type=int, default=4000)
    p.add_argument("--events-per-run", type=int, default=100)
    p.add_argument("--out", default=str(DEFAULT_OUT))
    p.add_argument("--recompute", action="store_true",
                   help="recompute the model's inputs and figures from the measurements in --out, measure nothing")
    a = p.parse_args(argv)
    if a.recompute:
        results = json.loads(Path(a.out).read_text())
        results["ray"].setdefault("cpus", results["ray"].get("model_inputs", {}).get("cpus", 2))
        results["ray"]["model_inputs"] = model_inputs(results["ray"])
        results["capacity"] = capacity(results["ray"]["model_inputs"])
        Path(a.out).write_text(json.dumps(results, indent=1) + "\n")
        print(json.dumps({"model_inputs": results["ray"]["model_inputs"], "capacity": results["capacity"]}, indent=1))
        return 0
    cfg = harness.Config(runs=a.runs, events_per_run=a.events_per_run, chunk_runs=max(1, a.runs // 4),
                         per_run_runs=0, profile=False)
    results: dict[str, Any] = {"machine": harness.machine(), "runs": a.runs, "load_start": load(),
                               "command": "python -m benchmarks.scaleout " + " ".join(argv or sys.argv[1:])}
    with tempfile.TemporaryDirectory(prefix="traj-scaleout-") as tmp:
        root = Path(tmp)
        corpus = harness.build_corpus(cfg, root)
        results["corpus"] = {"runs": a.runs, "events": corpus.events, "bytes": corpus.bytes, "files": len(corpus.chunks)}
        local = Store(root / "local")
        results["local_disk"] = on_store(local, corpus.chunks, "local disk")
        s3 = S3()
        try:
            results["s3"] = on_store(Store("s3://bench/store"), corpus.chunks, "s3 (moto on 127.0.0.1)")
        finally:
            s3.stop()
        results["ray"] = ray_part(local, a.runs, corpus.chunks, root)
    results["capacity"] = capacity(results["ray"]["model_inputs"])
    results["load_end"] = load()
    out = Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=1) + "\n")
    print(json.dumps({k: results[k] for k in ("corpus", "capacity", "load_start", "load_end")}, indent=1))
    print(f"results written to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
