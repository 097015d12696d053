"""Baseline (c): Inspect AI's ``inspect score`` re-scoring an eval log, fully offline.

The log is built with inspect_ai.log's own types (an EvalLog of ``samples`` samples, each with
``events_per_sample`` transcript events: info events for the agent's steps and screens, like a
traj run's), written with ``write_eval_log``, then re-scored by the ``inspect score`` command
with the deterministic scorer in inspect_scorer.py. Nothing calls a model: the scorer reads
the recorded output. Optional: without the ``bench`` extra this reports why it was skipped.
"""

from __future__ import annotations

import importlib.util
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


def write_log(path: Path, samples: int, events_per_sample: int = 20) -> None:
    """An eval log of ``samples`` finished samples with recorded outputs and transcripts."""
    from inspect_ai.event import InfoEvent
    from inspect_ai.log import EvalConfig, EvalDataset, EvalLog, EvalPlan, EvalSample, EvalSpec, EvalStats
    from inspect_ai.log import write_eval_log
    from inspect_ai.model import ChatMessageAssistant, ChatMessageUser, ModelOutput

    items = []
    for i in range(samples):
        answer = "12" if i % 3 else "13"  # two in three right, deterministically
        events = [
            InfoEvent(source="agent", data={"step": j, "action": "tap", "x": 7 * j, "y": 11 * j,
                                            "screen": f"列表 第{j}项 {100 + j} 条结果"})
            for j in range(max(0, events_per_sample - 1))
        ]
        items.append(
            EvalSample(
                id=i + 1, epoch=1, input=f"question {i}", target="12",
                messages=[ChatMessageUser(content=f"question {i}"), ChatMessageAssistant(content=answer)],
                output=ModelOutput.from_content("mockllm/model", answer),
                events=events,
            )
        )
    spec = EvalSpec(
        created="2026-06-01T00:00:00+00:00", task="traj_bench",
        dataset=EvalDataset(name="traj_bench", samples=samples), model="mockllm/model", config=EvalConfig(),
    )
    log = EvalLog(
        eval=spec, plan=EvalPlan(), samples=items, status="success",
        stats=EvalStats(started_at="2026-06-01T00:00:00+00:00", completed_at="2026-06-01T00:10:00+00:00"),
    )
    write_eval_log(log, str(path))


def measure(workdir: Path, samples: int, events_per_sample: int = 20) -> dict[str, Any]:
    """Time ``inspect score`` on a log of ``samples`` samples (wall time of the command, and its
    peak memory), and on a log of one sample (the command's fixed start-up cost), so that the
    per-sample cost is shown both with and without start-up."""
    if not available():
        return {"status": SKIPPED}
    one = _measure(workdir / "one", 1, events_per_sample)
    out = _measure(workdir / "n", samples, events_per_sample)
    if out.get("status") == "ok" and one.get("status") == "ok":
        out["startup_s"] = one["seconds"]
        out["marginal_per_sample_ms"] = round(1000 * max(0.0, out["seconds"] - one["seconds"]) / max(1, samples - 1), 3)
    return out


def _measure(workdir: Path, samples: int, events_per_sample: int) -> dict[str, Any]:
    if not available():
        return {"status": SKIPPED}
    exe = shutil.which("inspect", path=os.path.dirname(sys.executable)) or shutil.which("inspect")
    if exe is None:
        return {"status": "skipped: inspect-ai is installed but its `inspect` command is not on PATH"}
    workdir.mkdir(parents=True, exist_ok=True)
    log_file = workdir / "bench.eval"
    t = time.perf_counter()
    write_log(log_file, samples, events_per_sample)
    t_write = time.perf_counter() - t
    scorer = Path(__file__).with_name("inspect_scorer.py")
    cmd = [exe, "score", str(log_file), "--scorer", f"{scorer}@bench_match", "--display", "none",
           "--output-file", str(workdir / "scored.eval"), "--log-dir", str(workdir / "logs")]
    # Offline: no model is called (the scorer reads recorded outputs); keep Inspect from
    # reaching out for anything else.
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
    import json

    out = json.loads(proc.stdout)
    if out["rc"] != 0:
        last = (out["stderr"].strip().splitlines() or [""])[-1]
        return {"status": f"failed: inspect score exited {out['rc']}: {last[:300]}", "stderr": out["stderr"][-2000:]}
    scored = _check_scores(workdir / "scored.eval", samples)
    seconds = out["seconds"]
    return {
        "status": "ok",
        "version": _version(),
        "samples": samples,
        "events_per_sample": events_per_sample,
        "write_log_s": round(t_write, 3),
        "seconds": round(seconds, 3),
        "samples_per_s": round(samples / seconds, 1),
        "per_sample_ms": round(1000 * seconds / samples, 3),
        "peak_rss_mb": round(out["peak_mb"], 1),
        "scored": scored,
        "command": " ".join(["inspect", *cmd[1:]]),
    }


def _check_scores(path: Path, samples: int) -> dict[str, Any]:
    """The re-scored log really has a score per sample (the accuracy is 2/3 by construction)."""
    from inspect_ai.log import read_eval_log

    log = read_eval_log(str(path), header_only=True)
    metrics = {}
    if log.results is not None:
        for score in log.results.scores:
            metrics.update({k: round(m.value, 4) for k, m in score.metrics.items()})
    return {"samples": log.results.completed_samples if log.results else 0, "expected": samples, **metrics}


def _version() -> str | None:
    try:
        from importlib.metadata import version

        return version("inspect-ai")
    except Exception:  # noqa: BLE001
        return None
