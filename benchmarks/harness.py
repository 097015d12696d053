"""The benchmark run: build the corpus, then measure ingest, re-judge, queries and the baselines.

Every figure and every baseline is measured in the same run on the same corpus; the result is
one JSON-able dict (see :func:`run`) that report.py prints and compares.
"""

from __future__ import annotations

import dataclasses
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any, Callable

from trajectory.ingest.files import ingest_bytes
from trajectory.judging import SuiteResolver
from trajectory.query.sql import Views
from trajectory.store.delta import Store

from . import baselines, corpus, floors, ingest_bench, inspect_baseline

# The example queries (issue 6): pass rate by suite and task, time split by batch, flips
# between the two latest passes — as a person would type them into `traj query`.
QUERIES = {
    "pass_rate_by_suite_task": """
        SELECT suite, task, count(*) AS runs,
               avg(CASE WHEN outcome = 'pass' THEN 1.0 ELSE 0.0 END) AS pass_rate
        FROM verdicts GROUP BY suite, task ORDER BY suite, task""",
    "time_split_by_batch": """
        SELECT batch, count(*) AS runs, sum(model_ms) AS model_ms, sum(read_ms) AS read_ms,
               sum(act_ms) AS act_ms, sum(other_ms) AS other_ms, sum(tokens) AS tokens,
               avg(duration_ms) AS mean_duration_ms
        FROM runs GROUP BY batch ORDER BY batch""",
    "flips_between_latest_passes": """
        WITH latest AS (
            SELECT pass_id, row_number() OVER (ORDER BY started_at DESC, pass_id DESC) AS k
            FROM passes WHERE kind = 'judge' QUALIFY k <= 2),
        h AS (
            SELECT h.run_id, h.suite, h.task, h.outcome, h.score, l.k
            FROM verdict_history h JOIN latest l USING (pass_id))
        SELECT b.suite, b.task, b.run_id, b.outcome AS before, a.outcome AS after,
               b.score AS score_before, a.score AS score_after
        FROM h a JOIN h b ON a.run_id = b.run_id AND a.k = 1 AND b.k = 2
        WHERE a.outcome <> b.outcome ORDER BY b.suite, b.task, b.run_id""",
}

FULL_RUNS = 100_000
QUICK_RUNS = 2_000


@dataclasses.dataclass
class Config:
    runs: int = FULL_RUNS
    events_per_run: int = 100
    workers: int = 2
    seed: int = 7
    quick: bool = False
    chunk_runs: int = 10_000  # runs per corpus file (one ingest batch each)
    partition: int = 2000
    per_run_runs: int = 10_000  # baseline (b) judges at most this many runs
    inspect_samples: int = 2_000  # baseline (c) re-scores at most this many runs
    device_runs: int = 10_000  # the held-out-style corpus: device runs with many screens
    device_events_per_run: int = 90
    query_repeat: int = 5
    profile: bool = True
    partial: str | None = None  # where each finished section's results are written as it ends
    workdir: str | None = None
    keep: bool = False


def machine() -> dict[str, Any]:
    """What the figures were measured on."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem_gb = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                mem_gb = round(int(line.split()[1]) / 1024 / 1024, 1)
    except OSError:
        pass
    packages = {}
    for name in ("duckdb", "pyarrow", "msgspec", "deltalake", "inspect-ai"):
        try:
            packages[name] = version(name)
        except PackageNotFoundError:
            packages[name] = None
    commit = None
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
            cwd=Path(__file__).parent, timeout=10,
        ).stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        pass
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory_gb": mem_gb,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "packages": packages,
        "git_commit": commit,
    }


def _log(msg: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


# -- corpus ----------------------------------------------------------------------------------


@dataclasses.dataclass
class Corpus:
    chunks: list[Path]  # JSON Lines files, one ingest batch each; the first is the small size
    chunk_runs: list[int]
    run_dir: Path  # per-run JSON Lines for baseline (b)
    per_run: list[str]  # run ids written to run_dir
    pairs: dict[str, list[str]]
    events: int
    bytes: int
    suites: dict[str, int]
    seconds: float


def build_corpus(cfg: Config, root: Path) -> Corpus:
    """Write the corpus as JSON Lines chunks; the first chunk is a quarter of the runs (the
    small size of the memory figure), the rest in chunks of ``chunk_runs``."""
    t0 = time.perf_counter()
    small = max(1, cfg.runs // 4)
    bounds = [small]
    while bounds[-1] < cfg.runs:
        bounds.append(min(cfg.runs, bounds[-1] + cfg.chunk_runs))
    starts = set(bounds[:-1])
    run_dir = root / "per-run"
    run_dir.mkdir(parents=True, exist_ok=True)
    planned = corpus.plan(cfg.runs)
    limit = min(cfg.runs, cfg.per_run_runs)
    # Never cut a pair in two: its partner's file must be there for the per-run baseline.
    if 0 < limit < len(planned) and planned[limit - 1].pair_id is not None \
            and planned[limit].pair_id == planned[limit - 1].pair_id:
        limit += 1
    pairs: dict[str, list[str]] = {}
    for p in planned[:limit]:
        if p.pair_id is not None:
            pairs.setdefault(p.pair_id, []).append(p.run_id)
    chunks: list[Path] = []
    chunk_runs: list[int] = []
    per_run: list[str] = []
    suites: dict[str, int] = {}
    events = size = 0
    current = None
    for p, lines in corpus.generate_runs(cfg.runs, cfg.events_per_run, cfg.seed):
        if current is None or p.index in starts:
            if current is not None:
                current.close()
            path = root / f"corpus-{len(chunks):03d}.jsonl"
            chunks.append(path)
            chunk_runs.append(0)
            current = open(path, "wb")
        chunk_runs[-1] += 1
        blob = b"\n".join(lines) + b"\n"
        current.write(blob)
        if p.index < limit:
            (run_dir / f"{p.run_id}.jsonl").write_bytes(blob)
            per_run.append(p.run_id)
        suite = json.loads(lines[0]).get("suite") or "?"
        suites[suite] = suites.get(suite, 0) + 1
        events += len(lines)
        size += len(blob)
    if current is not None:
        current.close()
    pair_of = {r: members for members in pairs.values() for r in members}
    return Corpus(
        chunks, chunk_runs, run_dir, per_run, {r: pair_of[r] for r in per_run if r in pair_of},
        events, size, dict(sorted(suites.items())), time.perf_counter() - t0,
    )


# -- measurements ------------------------------------------------------------------------------


def rejudge_child(spec: dict[str, Any]) -> dict[str, Any]:
    """One re-judge measurement in a fresh Python process (see rejudge.py)."""
    t = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks.rejudge", json.dumps(spec)],
        capture_output=True, text=True, cwd=Path(__file__).parent.parent,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"re-judge child failed ({spec['mode']}): {proc.stderr.strip()[-2000:]}")
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    out["process_wall_s"] = round(time.perf_counter() - t, 3)
    return out


def queries(store: Store, repeat: int) -> dict[str, Any]:
    """Each example query through Views.user_query (the sandboxed path of `traj query`):
    the median of ``repeat`` runs on one connection, plus the time to open the views."""
    out: dict[str, Any] = {}
    t = time.perf_counter()
    views = Views(store, split=None)
    out["open_views_s"] = round(time.perf_counter() - t, 4)
    try:
        for name, sql in QUERIES.items():
            times = []
            rows = 0
            for _ in range(repeat):
                t = time.perf_counter()
                table = views.user_query(sql)
                times.append(time.perf_counter() - t)
                rows = table.num_rows
            out[name] = {"median_s": round(statistics.median(times), 4), "times_s": [round(x, 4) for x in times], "rows": rows}
    finally:
        views.close()
    return out


def load() -> list[float]:
    """The machine's load averages (1, 5, 15 minutes): how busy the cores were."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return []


def run(cfg: Config, view_pages: Callable[[Path], dict[str, Any]] | None = None) -> dict[str, Any]:
    """Measure everything; returns the results dict (also the JSON written to --out).

    ``view_pages`` measures ``traj view`` on the judged store (benchmarks/view.py, which builds
    its own corpora with this module: the caller hands it in, so neither imports the other back).
    """
    t_all = time.perf_counter()
    results: dict[str, Any] = {"machine": machine(), "config": dataclasses.asdict(cfg), "load_at_start": load()}
    root = Path(cfg.workdir) if cfg.workdir else Path(tempfile.mkdtemp(prefix="traj-bench-"))
    root.mkdir(parents=True, exist_ok=True)
    w = cfg.workers

    def checkpoint() -> None:
        """What is measured so far, written out: a run cut short still leaves its figures."""
        if cfg.partial:
            Path(cfg.partial).write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n")

    try:
        _log(f"corpus: {cfg.runs} runs x ~{cfg.events_per_run} events in {root}")
        t = time.perf_counter()
        corpus.templates()
        t_templates = time.perf_counter() - t
        c = build_corpus(cfg, root)
        results["corpus"] = {
            "runs": cfg.runs, "events": c.events, "bytes": c.bytes, "suites": c.suites,
            "templates": len(corpus.templates()), "templates_s": round(t_templates, 3),
            "generate_s": round(c.seconds, 3), "chunks": len(c.chunks), "chunk_runs": c.chunk_runs,
        }
        _log(f"corpus: {c.events} events, {c.bytes / 1e6:.0f} MB in {c.seconds:.1f}s; {c.suites}")

        # -- ingest -------------------------------------------------------------------------
        store = Store(root / "store")
        small_runs = c.chunk_runs[0]

        def after_chunk(i: int) -> None:
            if i == 0 and len(c.chunks) > 1:
                shutil.copytree(root / "store", root / "store-small")

        results["ingest"] = ingest_bench.library(store, c.chunks, w, after_chunk)
        results["ingest"]["load"] = load()
        if len(c.chunks) == 1:
            small_runs = _small_store(cfg, c, root)
        checkpoint()
        _log(f"ingest floor: DuckDB parsing and grouping the same files on {w} threads")
        results["ingest"]["floor"] = floors.ingest_floor(c.chunks, w)
        sizes = sorted({min(c.chunks, key=lambda p: p.stat().st_size), max(c.chunks, key=lambda p: p.stat().st_size)})
        results["ingest"]["memory"] = ingest_bench.memory_by_size(root, sizes, w)

        checkpoint()
        # -- re-judge everything (traj judge --all) --------------------------------------------
        base = {"store": str(root / "store"), "partition": cfg.partition}
        _log("re-judge --all: staged (workers=1, timed by stage)")
        staged = rejudge_child({**base, "mode": "staged", "verdicts_out": str(root / "staged.json")})
        profile = None
        if cfg.profile:
            profile = rejudge_child({**base, "mode": "staged", "profile": True}).get("profile")
        _log(f"re-judge --all: workers=1 ({staged['seconds']:.1f}s staged)")
        w1 = rejudge_child({**base, "mode": "judge_runs", "workers": 1, "verdicts_out": str(root / "w1.json")})
        _log(f"re-judge --all: workers={w} ({w1['seconds']:.1f}s with 1)")
        ww = rejudge_child({**base, "mode": "judge_runs", "workers": w, "verdicts_out": str(root / "ww.json")})
        _log(f"re-judge --all: small store ({small_runs} runs) for memory growth")
        small_base = {"store": str(root / "store-small"), "partition": cfg.partition}
        s1 = rejudge_child({**small_base, "mode": "judge_runs", "workers": 1})
        sw = rejudge_child({**small_base, "mode": "judge_runs", "workers": w})
        v_staged = json.loads((root / "staged.json").read_text())
        v_w1 = json.loads((root / "w1.json").read_text())
        v_ww = json.loads((root / "ww.json").read_text())
        results["rejudge"] = {
            "runs": w1["runs"], "events": c.events, "staged": staged, "workers_1": w1, f"workers_{w}": ww,
            "workers": w, "same_verdicts_any_workers": v_w1 == v_ww == v_staged, "profile_staged": profile,
            "load": load(),
        }
        results["memory"] = _memory(cfg, small_runs, w1, ww, s1, sw)

        checkpoint()
        # -- re-judge what changed (traj judge) ------------------------------------------------
        _log("incremental: nothing changed, then one task changed")
        results["incremental"] = rejudge_child({**base, "mode": "incremental"})
        results["incremental"]["load"] = load()

        checkpoint()
        _log(f"judge floor: DuckDB reading what the judges need, grouped by run ({w} and 1 threads)")
        results["floors"] = {f"judge_{w}": floors.judge_floor(store, w), "judge_1": floors.judge_floor(store, 1)}

        checkpoint()
        # -- the held-out-style corpus: device runs, many screens each -------------------------
        results["device_corpus"] = device_corpus(cfg, root)

        checkpoint()
        _log("queries")
        results["query"] = queries(store, cfg.query_repeat)
        results["query"]["load"] = load()
        if view_pages is not None:
            _log("traj view: start-up and time to first byte of each page")
            results["view"] = view_pages(root / "store")
            results["view"]["load"] = load()

        checkpoint()
        _log(f"baseline (b): per-run path on {len(c.per_run)} runs (one process)")
        results["baselines"] = {}
        pr = baselines.per_run(c.run_dir, c.per_run, c.pairs)
        pr_verdicts = pr.pop("verdicts")
        mismatches = [r for r in pr_verdicts if v_staged.get(r) != pr_verdicts[r]]
        pr["same_verdicts_as_batch"] = not mismatches
        pr["mismatches"] = mismatches[:20]
        results["baselines"]["per_run"] = pr
        checkpoint()
        samples = _inspect_runs(c, cfg.inspect_samples)
        _log(f"baseline (c): inspect score on {len(samples)} of the corpus's runs (one process)")
        if samples:
            results["baselines"]["inspect"] = inspect_baseline.measure(
                root / "inspect", c.run_dir, samples, c.pairs, v_staged)
        else:
            results["baselines"]["inspect"] = {"status": "skipped (--inspect-samples 0)"}
        checkpoint()
        results["verify"] = _verify_small(cfg)
    finally:
        if not cfg.keep and not cfg.workdir:
            shutil.rmtree(root, ignore_errors=True)
    results["load_at_end"] = load()
    results["total_s"] = round(time.perf_counter() - t_all, 1)
    return results


def _small_store(cfg: Config, c: Corpus, root: Path) -> int:
    """One corpus file only: the small size of the memory figure gets its own store from the
    first quarter of the runs."""
    small_runs = max(1, cfg.runs // 4)
    lines = []
    with open(c.chunks[0], "rb") as fh:
        wanted = {p.run_id for p in corpus.plan(cfg.runs)[:small_runs]}
        for line in fh:
            if json.loads(line)["run_id"] in wanted:
                lines.append(line)
    small = Store(root / "store-small")
    ingest_bytes(small, b"".join(lines), "small", split_of=SuiteResolver(small).split_of)
    return small_runs


def _inspect_runs(c: Corpus, limit: int) -> list[str]:
    """The first runs of the per-run files for the Inspect log, a pair never cut in two."""
    runs = c.per_run[:limit]
    if runs and runs[-1] in c.pairs and not set(c.pairs[runs[-1]]) <= set(runs):
        runs = runs[:-1]
    return runs


def device_corpus(cfg: Config, root: Path) -> dict[str, Any]:
    """The held-out-style corpus (device runs, ~90 events each, many screens): ingest, a full
    re-judge on every worker, and the judge floor on as many threads."""
    n = min(cfg.runs, cfg.device_runs)
    if n <= 0:
        return {"status": "skipped"}
    path = root / "device.jsonl"
    _log(f"device corpus: {n} runs x ~{cfg.device_events_per_run} events")
    with open(path, "wb") as fh:
        for line in corpus.generate(n, cfg.device_events_per_run, cfg.seed, names=("device",)):
            fh.write(line + b"\n")
    store = Store(root / "device-store")
    ing = ingest_bench.library(store, [path], cfg.workers)
    rj = rejudge_child({"store": str(root / "device-store"), "partition": cfg.partition, "mode": "judge_runs",
                        "workers": cfg.workers})
    floor = floors.judge_floor(store, cfg.workers)
    return {
        "runs": n, "events": ing["events"], "bytes": path.stat().st_size, "ingest": ing, "rejudge": rj,
        "floor": floor, "rejudge_over_floor": round(rj["seconds"] / floor["median_s"], 2) if floor["median_s"] else None,
        "load": load(),
    }


def _memory(cfg: Config, small_runs: int, w1: dict, ww: dict, s1: dict, sw: dict) -> dict[str, Any]:
    """Peak resident memory of the re-judge at two store sizes: the process's own peak (VmHWM)
    with one worker; the sampled peak of the process tree (parent + workers) with several.
    Growth is sublinear when the memory ratio is below the size ratio."""

    def total(child: dict, workers: int) -> float:
        rss = child["peak_rss"]
        return max(rss["self_mb"], rss["tree_peak_mb"]) if workers > 1 else rss["self_mb"]

    size_ratio = cfg.runs / small_runs if small_runs else None
    out: dict[str, Any] = {
        "small_runs": small_runs,
        "large_runs": cfg.runs,
        "size_ratio": round(size_ratio, 2) if size_ratio else None,
        "workers_1": {"small_mb": total(s1, 1), "large_mb": total(w1, 1)},
        f"workers_{cfg.workers}": {
            "small_mb": total(sw, cfg.workers), "large_mb": total(ww, cfg.workers),
            "parent_large_mb": ww["peak_rss"]["self_mb"], "largest_worker_large_mb": ww["peak_rss"]["largest_worker_mb"],
        },
    }
    for key in ("workers_1", f"workers_{cfg.workers}"):
        m = out[key]
        m["growth_ratio"] = round(m["large_mb"] / m["small_mb"], 2) if m["small_mb"] else None
        m["sublinear"] = bool(size_ratio and m["growth_ratio"] is not None and m["growth_ratio"] < size_ratio)
    return out


def _verify_small(cfg: Config) -> dict[str, Any]:
    """The corpus judges as its templates do (a small corpus covering every template)."""
    from . import verify

    n = min(cfg.runs, 400) if cfg.runs < 400 else 400
    r = verify.corpus_matches_templates(n, cfg.events_per_run)
    return {"runs": r["runs"], "templates_covered": r["templates_covered"], "templates": r["templates"],
            "mismatches": len(r["mismatches"]), "examples": r["mismatches"][:5]}
