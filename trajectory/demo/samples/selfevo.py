"""The self-evolution suite's sample runs, recorded live through the Recorder.

The runs come from the suite's offline reference agent (:mod:`suites.selfevo.agent`).
"""

from __future__ import annotations

import datetime as _dt
import itertools
import json
from pathlib import Path
from typing import Any

import suites.selfevo as selfevo_suite
from suites.selfevo.agent import trajectories
from suites.selfevo.trajectories import parse_trajectory, run_started_fields
from trajectory.ingest.batchplan import ingest_events
from trajectory.ingest.plain import parse
from trajectory.ingest.recorder import Recorder

BATCH = "selfevo-demo"
MODEL = "offline-template"


def _clock(start: _dt.datetime) -> Any:
    ticks = itertools.count()
    return lambda: start + _dt.timedelta(milliseconds=250 * next(ticks))


def record(store: Any, batch: str = BATCH, dataset: dict[str, Any] | None = None) -> list[str]:
    """Record every sample trajectory as a run, through the Recorder; returns the run ids.

    Each run is written to its Recorder journal as it happens; the journals are then sealed
    into the store in one batch instead of one commit per run (83 commits make every later
    open of the events table slower). A journal left by a crash is sealed by ``traj recover``.
    """
    if dataset is None:
        dataset = json.loads((Path(selfevo_suite.__file__).parent / "dataset.json").read_text(encoding="utf-8"))
    start = _dt.datetime(2026, 4, 5, 3, 0, tzinfo=_dt.timezone.utc)
    run_ids, journals = [], []
    for i, obj in enumerate(trajectories(dataset)):
        traj = parse_trajectory(obj, f"sample {i}")
        fields = run_started_fields(traj, batch, MODEL)
        run_ids.append(fields["run_id"])
        rec = Recorder(store, clock=_clock(start + _dt.timedelta(minutes=i)), seal_on_exit=False, **fields)
        with rec:
            for action, args in traj.steps:
                rec.step(action, args or None)
            if traj.final_answer is not None:
                rec.answer(traj.final_answer)
            rec.finish("succeeded")
        journals.append(rec.journal)
    parsed = [p for j in journals for p in parse(j.read_bytes(), str(j))]
    ingest_events(store, parsed, "selfevo samples")
    for j in journals:
        j.unlink(missing_ok=True)
    return run_ids
