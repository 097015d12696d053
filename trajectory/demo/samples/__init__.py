"""Deterministic sample runs of the bundled suites, recorded live through the Recorder as a
harness would record them. They belong to the demo (and the benchmarks' corpus), not to the
suites: a suite never touches the store."""

from __future__ import annotations

import importlib
from typing import Any

# Suite name -> module here with ``record(store) -> run ids``.
SAMPLES: dict[str, str] = {
    "example": "trajectory.demo.samples.example",
    "selfevo": "trajectory.demo.samples.selfevo",
    "device": "trajectory.demo.samples.device",
    "gui": "trajectory.demo.samples.gui",
}


def record(store: Any, name: str) -> list[str]:
    """Record the sample runs of one bundled suite into ``store``; none for a suite without."""
    if name not in SAMPLES:
        return []
    return importlib.import_module(SAMPLES[name]).record(store) or []
