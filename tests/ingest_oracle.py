"""The per-event ingest path: the oracle the pipeline (trajectory/ingest/rules.py and
batchplan.py) is held equal to, as the fold is for batch replay.

Written event by event, the way the spec states the rules, with nothing shared with the
pipeline's decisions but the wording of the messages and the store readers.
"""

from __future__ import annotations

import uuid
from typing import Any

import pyarrow as pa

from trajectory import events as ev
from trajectory.errors import ConflictError, SchemaError
from trajectory.ingest.patchcheck import WorldCheck
from trajectory.ingest.plain import (
    DEFAULT_LIMITS, MAX_REPORTED, IngestReport, Limits, Parsed, RunInfo, SplitResolver, _one_line, _refusal,
    existing_runs, pool_contradiction, run_info, stored_event,
)
from trajectory.ingest.rows import rows, sort_for_layout
from trajectory.store.delta import Store
from trajectory.text import first_difference, plural
from trajectory.text import short as _short


def plan_batch(
    store: Store,
    parsed: list[Parsed],
    source: str,
    limits: Limits = DEFAULT_LIMITS,
    split_of: SplitResolver | None = None,
    version: int | None = None,
) -> tuple[list[tuple[Parsed, RunInfo]], int]:
    """Decide which events are new as of ``version`` of the events table; raise if the batch breaks a rule."""
    run_ids = list(dict.fromkeys(p.event.run_id for p in parsed))
    stored = existing_runs(store, run_ids, version)
    worlds = WorldCheck(store, set(stored))
    new: list[tuple[Parsed, RunInfo]] = []
    present = 0
    problems: list[str] = []
    n_problems = 0
    conflict = False
    seen: dict[tuple[str, int], str] = {}
    nxt: dict[str, int] = {}
    finished: dict[str, int] = {}
    infos: dict[str, RunInfo | None] = {}
    counts: dict[str, int] = {}

    def refuse(p: Parsed, path: str, msg: str) -> None:
        nonlocal n_problems
        n_problems += 1
        if len(problems) < MAX_REPORTED:
            problems.append(
                _one_line(f"{source}:{p.line}: {path}: {msg} (run {p.event.run_id}, seq {p.event.seq})")
            )

    for p in parsed:
        e = p.event
        run, seq = e.run_id, e.seq
        old = stored.get(run)
        if run not in nxt:
            nxt[run] = old.last_seq + 1 if old else 0
            if old and old.finished_seq is not None:
                finished[run] = old.finished_seq
            infos[run] = old.info if old else None
            counts[run] = (old.last_seq + 1) if old else 0
        # 1. identical to what is stored, or to an earlier line of this batch: a no-op.
        stored_hash = old.hashes.get(seq) if old else None
        batch_hash = seen.get((run, seq))
        known = stored_hash or batch_hash
        if known is not None:
            if known == p.hash:
                present += 1
                continue
            conflict = True
            if stored_hash is not None:
                other = stored_event(store, run, seq, version)
            else:
                other = next(q.event for q, _ in new if q.event.run_id == run and q.event.seq == seq)
            diff = first_difference(other, e) if other is not None else None
            where = "stored" if stored_hash is not None else "earlier in this batch"
            if diff:
                path, was, now = diff
                refuse(p, path, f"conflict: {where} with {_short(was)}, got {_short(now)}")
            else:
                refuse(p, "$", f"conflict: {where} with different content")
            continue
        # 2. seq rules.
        if run in finished:
            refuse(p, "$.seq", f"run already finished at seq {finished[run]}; nothing may follow it")
            continue
        if seq != nxt[run]:
            refuse(p, "$.seq", f"expected {nxt[run]}, got {seq}")
            continue
        if (seq == 0) != isinstance(e, ev.RunStarted):
            msg = "seq 0 must be run_started" if seq == 0 else "run_started only at seq 0"
            refuse(p, "$.kind", msg)
            continue
        counts[run] += 1
        if counts[run] > limits.max_events_per_run:
            refuse(p, "$.seq", f"run has more than {limits.max_events_per_run} events (limit)")
            continue
        bad_patch = worlds.check(e)
        if bad_patch is not None:
            refuse(p, *bad_patch)
            nxt[run] = seq + 1  # the lines after it are not out of order because of it
            continue
        if isinstance(e, ev.RunStarted):
            declared = split_of(e.suite, e.task) if split_of else None
            contradiction = pool_contradiction(e, declared)
            if contradiction is not None:
                refuse(p, "$.split", contradiction)  # the batch is refused; its lines are still checked
            infos[run] = run_info(e, declared if e.split is None else None)
        if isinstance(e, ev.RunFinished):
            finished[run] = seq
        seen[(run, seq)] = p.hash
        nxt[run] = seq + 1
        info = infos[run]
        assert info is not None  # seq 0 is always run_started, so info is known by now
        new.append((p, info))
    if problems:
        kind = ConflictError if conflict else SchemaError
        raise _refusal(kind, problems, n_problems)
    return new, present


# -- the command ----------------------------------------------------------------------------


def ingest_events(
    store: Store,
    parsed: list[Parsed],
    source: str,
    limits: Limits = DEFAULT_LIMITS,
    split_of: SplitResolver | None = None,
) -> IngestReport:
    report = IngestReport(source, runs=len({p.event.run_id for p in parsed}), events=len(parsed))
    if not parsed:
        return report
    if split_of is None:  # the pool is resolved once, here, whoever ingests (recorder, importers)
        from trajectory.catalog.pools import Pools

        split_of = Pools(store).split_of
    if not store.exists:
        # Into a new store the batch is checked before the lock creates its folder: a refused
        # first batch leaves none (the plan is made again under the lock).
        plan_batch(store, parsed, source, limits, split_of, version=-1)

    def decide(version: int) -> pa.Table | None:  # the batch against the events as of version
        new, report.present = plan_batch(store, parsed, source, limits, split_of, version=version)
        report.new, report.new_runs = len(new), len({p.event.run_id for p, _ in new if p.event.seq == 0})
        report.commit_id = uuid.uuid4().hex if new else None
        return sort_for_layout(rows(new, report.commit_id)) if new else None

    report.version = store.append_decided(
        "events", decide, source, keys=("run_id", {p.event.run_id for p in parsed}),
        note=lambda: f"{source} ({plural(report.new, 'new event')})",
    )
    return report
