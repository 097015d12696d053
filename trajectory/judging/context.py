"""What every partition of one judging pass needs, below the engines that judge them (a local
pool in execution.py, a Ray cluster) and the verdicts they write for hung runs (hung.py)."""

from __future__ import annotations

import dataclasses
import datetime as _dt

from replay.state import Judgement
from suites.registry import SuiteSpec

from trajectory.store.delta import Store


@dataclasses.dataclass(frozen=True)
class PassContext:
    """What every partition of one pass needs, small enough to send to a worker."""

    store: Store
    specs: dict[str, SuiteSpec | None]  # suite name -> where it loads from
    suites: dict[str, str | None]  # run id -> suite name
    judgements: tuple[Judgement, ...]
    timeout: float | None
    pass_id: str
    at: _dt.datetime
    #: run id -> its pool, read with the selection (a run missing here is looked up).
    splits: dict[str, str | None] = dataclasses.field(default_factory=dict)
