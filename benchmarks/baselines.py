"""Baseline (b), the straightforward path: per run, read its JSON Lines, decode each event with
msgspec, fold it with ``replay.replay``, judge it with the same suite judge — no batching, one
process. (The floors are in floors.py, baseline (c) in inspect_baseline.py.)"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from replay import replay
from trajectory import events as ev
from trajectory.judging import SuiteResolver, judge_state


def per_run(folder: Path, run_files: list[str], pairs: dict[str, list[str]]) -> dict[str, Any]:
    """Read, decode, fold and judge each run on its own.

    ``run_files``: the run ids to judge (each in ``folder/<run_id>.jsonl``); ``pairs``: run id
    -> the run ids of its pair, so that a paired run reads and folds its partner's file too,
    as a per-run scorer of a pair must.
    """
    resolver = SuiteResolver(None)
    decode = ev.DECODER.decode
    t_read = t_fold = t_judge = 0.0
    verdicts: dict[str, list[Any]] = {}
    events = 0

    def fold(run_id: str) -> Any:
        nonlocal t_read, t_fold, events
        t = time.perf_counter()
        lines = (folder / f"{run_id}.jsonl").read_bytes().splitlines()
        t_read += time.perf_counter() - t
        t = time.perf_counter()
        decoded = [decode(line) for line in lines]
        state = replay(decoded)
        t_fold += time.perf_counter() - t
        events += len(lines)
        return state

    t0 = time.perf_counter()
    for run_id in run_files:
        state = fold(run_id)
        partner = None
        others = [r for r in pairs.get(run_id, ()) if r != run_id]
        if others:
            partner = fold(others[0])
        t = time.perf_counter()
        verdict, _version = judge_state(resolver, state, partner)
        t_judge += time.perf_counter() - t
        verdicts[run_id] = [verdict.outcome, round(verdict.score, 9)]
    seconds = time.perf_counter() - t0
    return {
        "runs": len(run_files),
        "events_read": events,
        "seconds": round(seconds, 4),
        "runs_per_s": round(len(run_files) / seconds, 1) if seconds else None,
        "stages": {"read_s": round(t_read, 4), "decode_fold_s": round(t_fold, 4), "judge_s": round(t_judge, 4)},
        "verdicts": verdicts,
    }
