"""Which recorded LLM judgements count.

A ``judgement_recorded`` event is an ordinary event: anyone can put one in a file and ingest
it, with any score and any ``ts``. So an event alone is never trusted. A judgement run counts
only when it is registered here, in the store's ``meta`` log, by the command that wrote it
(``traj judge --llm``) or by a person who said so (``traj ingest --trust-judgements``).

Each registration gets the next number under the store's writer lock: that number, not a
timestamp in an event, says which of two answers to the same prompt is the later one.
"""

from __future__ import annotations

import getpass
import json
import os
from collections.abc import Sequence

import pyarrow as pa
import pyarrow.compute as pc

from trajectory.ingest.plain import DEFAULT_LIMITS, Limits, parse
from trajectory.store.delta import Store, now_utc
from trajectory.text import plural

#: The suite name of an LLM judgement run: its events carry recorded judgements, not an agent.
JUDGEMENT_SUITE = "traj.judgements"

TRUSTED = "trusted_judgements"  # meta kind; key = the judgement run's id


def trusted_runs(store: Store) -> dict[str, int]:
    """Registered judgement runs and their order (1 = first registered)."""
    if not store.has_table("meta"):
        return {}
    rows = store.meta_rows([TRUSTED], columns=["kind", "key", "data"])
    out: dict[str, int] = {}
    for r in rows:
        if r["kind"] == TRUSTED:
            order = json.loads(r["data"] or "{}").get("order")
            if isinstance(order, int) and r["key"] not in out:
                out[r["key"]] = order
    return out


def trust_runs(store: Store, run_ids: Sequence[str], *, by: str, via: str) -> int:
    """Register judgement runs as trusted (each once); returns how many were new.

    Read, check and append as one step (Store.append_decided): on a store without a writer
    lock (object storage), a registration committed meanwhile makes this one decide again.
    """
    added: list[str] = []

    def decide(version: int) -> pa.Table | None:
        known = trusted_runs(store)
        added[:] = [r for r in dict.fromkeys(run_ids) if r not in known]
        if not added:
            return None
        first = max(known.values(), default=0) + 1
        return _rows(added, first, by, via)

    store.append_decided(
        "meta", decide, "trusted judgement runs", note=lambda: f"trust in {plural(len(added), 'judgement run')}"
    )
    return len(added)


def _rows(new: list[str], first: int, by: str, via: str) -> pa.Table:
    now = now_utc()
    return pa.table(
        {
            "kind": [TRUSTED] * len(new),
            "key": new,
            "at": [now] * len(new),
            "by": [by] * len(new),
            "data": [json.dumps({"order": first + i, "via": via}) for i in range(len(new))],
        }
    )


def trust_file_judgements(store: Store, data: bytes, source: str, limits: Limits = DEFAULT_LIMITS) -> int:
    """``traj ingest --trust-judgements``: a person vouches for the judgement runs of a file
    (already ingested, within ``limits``). Only runs of the judgement suite are registered."""
    parsed = parse(data, source, limits)
    runs = {p.event.run_id for p in parsed if type(p.event).__struct_config__.tag == "judgement_recorded"}
    if not runs:
        return 0
    table = store.read("events", columns=["run_id", "suite"], filter=pc.field("run_id").isin(sorted(runs)))
    judged = {r for r, s in zip(table.column("run_id").to_pylist(), table.column("suite").to_pylist())
              if s == JUDGEMENT_SUITE and r in runs}
    return trust_runs(store, sorted(judged), by=_person(), via=f"traj ingest --trust-judgements {source}")


def _person() -> str:
    try:
        return os.environ.get("TRAJ_USER") or getpass.getuser()
    except (KeyError, OSError):
        return "unknown"
