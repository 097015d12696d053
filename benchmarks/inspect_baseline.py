"""Baseline (c): Inspect AI's ``inspect score`` doing the same work as a traj re-judge.

The benchmark corpus's own runs are written as an Inspect eval log, one sample per run: the
run's events (its JSON Lines, and its pair partner's for a paired run) in the sample's
metadata, the final answer as the sample's output. ``inspect score`` then re-scores the log
with the scorer in inspect_scorer.py, which decodes the events, replays them with traj's fold
and judges them with traj's own suites: the same verdicts, computed the way a per-sample scorer
computes them. The scored log is read back and every sample's outcome and score compared
with traj's verdict for that run. Nothing calls a model. ``inspect score`` runs in one process
(asyncio), so it is compared with traj's re-judge on one worker: per run, core for core.

Optional: without the ``bench`` extra this reports why it was skipped.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

SKIPPED = "skipped (pip install -e '.[bench]')"


def available() -> bool:
    return importlib.util.find_spec("inspect_ai") is not None


def write_log(path: Path, folder: Path, run_ids: list[str], pairs: dict[str, list[str]]) -> None:
    """An eval log with one finished sample per run (its events read from ``folder/<run>.jsonl``)."""
    from inspect_ai.log import EvalConfig, EvalDataset, EvalLog, EvalPlan, EvalSample, EvalSpec, EvalStats
    from inspect_ai.log import write_eval_log
    from inspect_ai.model import ModelOutput

    items = []
    for run_id in run_ids:
        events = (folder / f"{run_id}.jsonl").read_text(encoding="utf-8")
        others = [r for r in pairs.get(run_id, ()) if r != run_id]
        partner = (folder / f"{others[0]}.jsonl").read_text(encoding="utf-8") if others else None
        answer = ""
        for text in reversed(events.splitlines()):
            if '"answer_given"' in text:
                answer = json.loads(text).get("text") or ""
                break
        items.append(
            EvalSample(
                id=run_id, epoch=1, input=f"run {run_id}", target="",
                output=ModelOutput.from_content("mockllm/model", answer),
                metadata={"traj_events": events, "traj_partner": partner},
            )
        )
    spec = EvalSpec(
        created="2026-06-01T00:00:00+00:00", task="traj_bench",
        dataset=EvalDataset(name="traj_bench", samples=len(items)), model="mockllm/model", config=EvalConfig(),
    )
    log = EvalLog(
        eval=spec, plan=EvalPlan(), samples=items, status="success",
        stats=EvalStats(started_at="2026-06-01T00:00:00+00:00", completed_at="2026-06-01T00:10:00+00:00"),
    )
    write_eval_log(log, str(path))


def measure(workdir: Path, folder: Path, run_ids: list[str], pairs: dict[str, list[str]],
            verdicts: dict[str, list[Any]]) -> dict[str, Any]:
    """Time ``inspect score`` on the log of these runs (wall time of the command and its peak
    memory) and on a one-sample log (its fixed start-up cost), and check its verdicts."""
    if not available():
        return {"status": SKIPPED}
    one = _measure(workdir / "one", folder, run_ids[:1], pairs)
    out = _measure(workdir / "n", folder, run_ids, pairs)
    if out.get("status") != "ok":
        return out
    if one.get("status") == "ok":
        out["startup_s"] = one["seconds"]
        out["marginal_per_sample_ms"] = round(
            1000 * max(0.0, out["seconds"] - one["seconds"]) / max(1, len(run_ids) - 1), 3)
    scored = out.pop("scored_verdicts")
    mismatches = [r for r in run_ids if scored.get(r) != verdicts.get(r)]
    out["same_verdicts_as_traj"] = not mismatches
    out["mismatches"] = mismatches[:10]
    return out


def _measure(workdir: Path, folder: Path, run_ids: list[str], pairs: dict[str, list[str]]) -> dict[str, Any]:
    exe = shutil.which("inspect", path=os.path.dirname(sys.executable)) or shutil.which("inspect")
    if exe is None:
        return {"status": "skipped: inspect-ai is installed but its `inspect` command is not on PATH"}
    workdir.mkdir(parents=True, exist_ok=True)
    log_file = workdir / "bench.eval"
    t = time.perf_counter()
    write_log(log_file, folder, run_ids, pairs)
    t_write = time.perf_counter() - t
    scorer = Path(__file__).with_name("inspect_scorer.py")
    cmd = [exe, "score", str(log_file), "--scorer", f"{scorer}@traj_verdict", "--display", "none",
           "--output-file", str(workdir / "scored.eval"), "--log-dir", str(workdir / "logs")]
    # Offline: no model is called (the scorer replays recorded events).
    env = {**os.environ, "INSPECT_DISPLAY": "none", "NO_COLOR": "1"}
    wrapper = (
        "import resource, subprocess, sys, time, json\n"
        "t = time.perf_counter(); p = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
        "s = time.perf_counter() - t\n"
        "print(json.dumps({'rc': p.returncode, 'seconds': s, 'stderr': p.stderr[-2000:],"
        " 'peak_mb': resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}))\n"
    )
    proc = subprocess.run([sys.executable, "-c", wrapper, *cmd], capture_output=True, text=True, env=env, cwd=workdir)
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or [""])[-1]
        return {"status": f"failed: wrapper exited {proc.returncode}: {last[:300]}"}
    out = json.loads(proc.stdout)
    if out["rc"] != 0:
        last = (out["stderr"].strip().splitlines() or [""])[-1]
        return {"status": f"failed: inspect score exited {out['rc']}: {last[:300]}", "stderr": out["stderr"][-2000:]}
    seconds = out["seconds"]
    return {
        "status": "ok",
        "version": _version(),
        "samples": len(run_ids),
        "events_per_sample": _events(folder, run_ids),
        "write_log_s": round(t_write, 3),
        "seconds": round(seconds, 3),
        "samples_per_s": round(len(run_ids) / seconds, 1),
        "per_sample_ms": round(1000 * seconds / len(run_ids), 3),
        "peak_rss_mb": round(out["peak_mb"], 1),
        "command": " ".join(["inspect", *cmd[1:]]),
        "scored_verdicts": _scored(workdir / "scored.eval"),
    }


def _events(folder: Path, run_ids: list[str]) -> int:
    n = sum((folder / f"{r}.jsonl").read_bytes().count(b"\n") for r in run_ids)
    return round(n / max(1, len(run_ids)))


def _scored(path: Path) -> dict[str, list[Any]]:
    """run id -> [outcome, score] as the re-scored log says."""
    from inspect_ai.log import read_eval_log

    log = read_eval_log(str(path))
    out = {}
    for sample in log.samples or []:
        score = (sample.scores or {}).get("traj_verdict")
        if score is not None:
            out[str(sample.id)] = [score.answer, round(float(score.value), 9)]
    return out


def _version() -> str | None:
    try:
        from importlib.metadata import version

        return version("inspect-ai")
    except Exception:  # noqa: BLE001
        return None
