"""Ingest's batch rules, checked once over a batch's columns, returning located problems.

A batch is what one file (or one importer's input) gives: per event its line, run, seq, kind
and content hash, in line order (:class:`Batch`). The rules, in the spec's order: an event
identical to one already stored, or to one earlier in the batch, is a no-op before any other
rule is looked at; then a conflict (same run and seq, other content); then the seq rules (each
run continues its stored events with the next seq, starts with run_started at seq 0 only,
nothing follows its run_finished, at most ``max_events_per_run`` events); then a state patch
must apply to the state it follows (patchcheck.py), and a run's pool may not contradict its
task's.

The rules are screened over columns: a run whose events break none of them (the usual case) is
decided without a Python object per event. Only the runs the screen flags are walked event by
event, in line order, to locate each problem as the spec words it (a broken run may have a
cascade of them: after a missing seq every later line of the run is "expected N, got M"); only
the rows a rule needs an object for (a state patch, a run_started, the two sides of a
conflict) are decoded. Every problem is a :class:`Problem` and is worded by
:meth:`Problem.worded`, here and nowhere else; tests/ingest_oracle.py holds the per-event path
this is held equal to.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from trajectory import events as ev
from trajectory.errors import ConflictError, SchemaError
from trajectory.ingest.patchcheck import WorldCheck
from trajectory.ingest.plain import (
    MAX_REPORTED, Limits, _one_line, _refusal, existing_table, pool_contradiction, run_fields, stored_event,
)
from trajectory.store.delta import Store
from trajectory.store.tables import EVENTS_SCHEMA
from trajectory.text import first_difference
from trajectory.text import short as _short


@dataclasses.dataclass(frozen=True)
class Problem:
    """One broken rule, located: the batch's row, the input line, the JSON path, the run and seq."""

    row: int
    line: int
    path: str
    message: str
    run: str
    seq: int
    conflict: bool = False

    def worded(self, source: str) -> str:
        return _one_line(f"{source}:{self.line}: {self.path}: {self.message} (run {self.run}, seq {self.seq})")


def refusal(problems: Sequence[Problem], source: str) -> Exception:
    """The one error a batch with these problems is refused with: the first ones listed in line
    order, the rest counted; a ConflictError when any is a conflict."""
    ordered = sorted(problems, key=lambda p: p.row)
    kind = ConflictError if any(p.conflict for p in ordered) else SchemaError
    return _refusal(kind, [p.worded(source) for p in ordered[:MAX_REPORTED]], len(ordered))


Events = Callable[[Sequence[int]], "dict[int, ev.Event]"]  # rows of the batch -> their events


@dataclasses.dataclass
class Batch:
    """What the rules read of a batch. ``meta``: line, run_id, seq, kind, hash, one row per event
    in line order (a row's index is its place in the batch). ``starts``: row, run_id and the run
    columns (split as the event gives it, or null) of every run_started. ``events``: the events
    of some rows, decoded when a rule needs them."""

    meta: pa.Table
    starts: pa.Table
    events: Events


@dataclasses.dataclass
class Decision:
    new: np.ndarray  # per row: the event is new (to be written)
    infos: pa.Table  # run_id and the run columns of every run with new events
    problems: list[Problem]
    present: int


def starts_table(rows: Sequence[int], events: Sequence[ev.RunStarted]) -> pa.Table:
    """The ``starts`` of a batch from its run_started events (at these rows)."""
    from trajectory.ingest.plain import run_info

    out = [{"row": r, "run_id": e.run_id, **run_info(e, None)} for r, e in zip(rows, events)]
    return pa.Table.from_pylist(out, schema=_starts_schema())


def _starts_schema() -> pa.Schema:
    return pa.schema([pa.field("row", pa.int64()), pa.field("run_id", pa.string())]
                     + [EVENTS_SCHEMA.field(f) for f in run_fields()])


class _Start:  # what pool_contradiction reads of a run_started, from the starts columns
    def __init__(self, row: dict[str, Any]):
        self.suite, self.task, self.split = row["suite"], row["task"], row["split"]


def decide(store: Store, batch: Batch, limits: Limits, split_of: Callable[[str, str], str | None] | None,
           version: int | None = None) -> Decision:
    """Which events of the batch are new as of ``version`` of the events table, the run columns
    of the runs they belong to, and every problem of the batch (none: it may be committed)."""
    meta = batch.meta
    n = meta.num_rows
    fields = run_fields()
    codes = pc.dictionary_encode(meta.column("run_id")).combine_chunks()
    code = codes.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    names = codes.dictionary
    n_runs = len(names)
    stored = existing_table(store, names, version)
    seq = meta.column("seq").to_numpy()
    hashes = meta.column("hash")

    # What is stored at each row's (run, seq): present (same hash) or a conflict (other hash).
    present = np.zeros(n, dtype=bool)
    dirty = np.zeros(n_runs, dtype=bool)
    base = np.zeros(n_runs, dtype=np.int64)
    finished = np.zeros(n_runs, dtype=bool)
    if stored.num_rows:
        keyed = pa.table({"run_id": meta.column("run_id"), "seq": meta.column("seq"), "hash": hashes,
                          "i": pa.array(np.arange(n))})
        hit = keyed.join(stored.select(["run_id", "seq", "hash"]).rename_columns(["run_id", "seq", "stored_hash"]),
                         keys=["run_id", "seq"], join_type="inner")
        if hit.num_rows:
            at = hit.column("i").to_numpy()
            same = pc.equal(hit.column("hash"), hit.column("stored_hash")).to_numpy(zero_copy_only=False)
            present[at[same]] = True
            dirty[code[at[~same]]] = True
        runs = stored.group_by("run_id").aggregate([("seq", "max")])
        where = pc.fill_null(pc.index_in(names, value_set=runs.column("run_id")), -1).to_numpy(zero_copy_only=False)
        known = where >= 0
        base[known] = runs.column("seq_max").to_numpy()[where[known]] + 1
        ends = stored.filter(pc.equal(stored.column("kind"), "run_finished")).column("run_id")
        finished = pc.is_in(names, value_set=ends).to_numpy(zero_copy_only=False)
    # The new events of each run, in line order: seqs base, base + 1, ...; run_started exactly
    # at seq 0; run_finished last, and not after a stored one; within the limit. A (run, seq)
    # given twice in the batch (a repeat or a conflict) is walked.
    fresh = np.flatnonzero(~present)
    fc = code[fresh]
    counts = np.bincount(fc, minlength=n_runs)
    order = np.argsort(fc, kind="stable")
    first = np.concatenate(([0], np.cumsum(counts)))[:-1]
    position = np.empty(len(fc), dtype=np.int64)
    position[order] = np.arange(len(fc)) - np.repeat(first, counts)
    kinds = meta.column("kind")
    is_start = pc.equal(kinds, "run_started").to_numpy(zero_copy_only=False)
    is_finish = pc.equal(kinds, "run_finished").to_numpy(zero_copy_only=False)
    fs = seq[fresh]
    broken = ((fs != base[fc] + position) | finished[fc] | (is_start[fresh] != (fs == 0))
              | (is_finish[fresh] & (position != counts[fc] - 1)))
    dirty[fc[broken]] = True
    dirty |= base + counts > limits.max_events_per_run
    # A run with new events needs a start: here or stored (the seq rule above says so, unless
    # the store holds events of a run without one).
    started_here = np.zeros(n_runs, dtype=bool)
    started_here[code[is_start & ~present]] = True
    stored_info: dict[str, dict[str, Any]] = {}
    if stored.num_rows:
        for row in stored.filter(pc.equal(stored.column("kind"), "run_started")).select(["run_id", *fields]).to_pylist():
            stored_info[row.pop("run_id")] = row
    run_names = names.to_pylist()
    for k in np.flatnonzero((counts > 0) & ~started_here & ~dirty).tolist():
        if run_names[k] not in stored_info:
            dirty[k] = True

    problems: list[Problem] = []
    new = ~present
    infos: dict[str, dict[str, Any]] = {}
    walked = dirty[code]
    if walked.any():
        new[walked] = False
        walk = _Walk(store, meta, batch, stored, stored_info, version, limits, split_of)
        # The objects the walk needs for sure, decoded at once: its starts and state changes.
        worlds = walked & (is_start | pc.equal(kinds, "state_changed").to_numpy(zero_copy_only=False))
        walk.cache = batch.events(np.flatnonzero(worlds).tolist())
        for i in np.flatnonzero(walked).tolist():
            walk.one(i)
        new[walk.accepted] = True
        problems += walk.problems
        infos.update(walk.infos)
        present_n = int(present.sum()) + walk.present
    else:
        present_n = int(present.sum())
    # The clean runs: the run columns from their start (here, or stored); the pool rule on each
    # new start; the patch rule on each new state change (objects for those rows only).
    clean = new & ~walked
    start_rows = np.flatnonzero(clean & is_start)
    if len(start_rows):
        wanted = pa.array(start_rows, pa.int64())
        starts = batch.starts.filter(pc.is_in(batch.starts.column("row"), value_set=wanted))
        for row in starts.to_pylist():
            info = {f: row[f] for f in fields}
            declared = split_of(info["suite"], info["task"]) if split_of is not None else None
            contradiction = pool_contradiction(_Start(row), declared)
            if contradiction is not None:
                problems.append(Problem(row["row"], meta.column("line")[row["row"]].as_py(), "$.split", contradiction,
                                        row["run_id"], 0))
            if info["split"] is None:
                info["split"] = declared
            infos[row["run_id"]] = info
    for k in np.unique(code[clean & ~is_start]).tolist():
        if run_names[k] not in infos:
            infos[run_names[k]] = stored_info[run_names[k]]
    patches = np.flatnonzero(clean & pc.equal(kinds, "state_changed").to_numpy(zero_copy_only=False))
    if len(patches):
        world_rows = np.flatnonzero(clean & (is_start | pc.equal(kinds, "state_changed").to_numpy(zero_copy_only=False)))
        world_rows = world_rows[np.isin(code[world_rows], code[patches])]
        events = batch.events(world_rows.tolist())
        check = WorldCheck(store, set(stored.column("run_id").to_pylist()) if stored.num_rows else set())
        for i in world_rows.tolist():
            bad = check.check(events[i])
            if bad is not None:
                problems.append(_located(meta, i, *bad))
    schema = pa.schema([pa.field("run_id", pa.string())] + [EVENTS_SCHEMA.field(f) for f in fields])
    table = pa.Table.from_pylist([{"run_id": r, **i} for r, i in infos.items()], schema=schema)
    return Decision(new, table, problems, present_n)


def _located(meta: pa.Table, i: int, path: str, message: str, conflict: bool = False) -> Problem:
    return Problem(i, meta.column("line")[i].as_py(), path, message, meta.column("run_id")[i].as_py(),
                   meta.column("seq")[i].as_py(), conflict)


class _Walk:
    """The rules event by event, over the rows of the runs the screen flagged, in line order."""

    def __init__(self, store: Store, meta: pa.Table, batch: Batch, stored: pa.Table,
                 stored_info: dict[str, dict[str, Any]], version: int | None, limits: Limits,
                 split_of: Callable[[str, str], str | None] | None):
        self.store, self.meta, self.batch, self.version, self.limits, self.split_of = (
            store, meta, batch, version, limits, split_of)
        self.runs = meta.column("run_id").to_pylist()
        self.seqs = meta.column("seq").to_pylist()
        self.kinds = meta.column("kind").to_pylist()
        self.hashes = meta.column("hash").to_pylist()
        self.lines = meta.column("line").to_pylist()
        self.stored_hashes: dict[tuple[str, int], str] = {}
        self.last: dict[str, int] = {}
        self.finished_at: dict[str, int] = {}
        walked = set(self.runs)
        for r, s, h, k in zip(*(stored.column(c).to_pylist() for c in ("run_id", "seq", "hash", "kind"))):
            if r not in walked:
                continue
            self.stored_hashes[(r, s)] = h
            self.last[r] = max(self.last.get(r, -1), s)
            if k == "run_finished":
                self.finished_at[r] = s
        self.stored_info = stored_info
        self.worlds = WorldCheck(store, set(self.last))
        self.seen: dict[tuple[str, int], int] = {}  # (run, seq) -> the accepted row
        self.nxt: dict[str, int] = {}
        self.counts: dict[str, int] = {}
        self.infos: dict[str, dict[str, Any]] = {}
        self.accepted: list[int] = []
        self.problems: list[Problem] = []
        self.present = 0
        self.cache: dict[int, ev.Event] = {}

    def refuse(self, i: int, path: str, message: str, conflict: bool = False) -> None:
        self.problems.append(Problem(i, self.lines[i], path, message, self.runs[i], self.seqs[i], conflict))

    def event(self, i: int) -> ev.Event:
        if i not in self.cache:
            self.cache.update(self.batch.events([i]))
        return self.cache[i]

    def one(self, i: int) -> None:
        run, seq, kind = self.runs[i], self.seqs[i], self.kinds[i]
        if run not in self.nxt:
            self.nxt[run] = self.last.get(run, -1) + 1
            self.counts[run] = self.nxt[run]
            if run in self.stored_info:
                self.infos.setdefault(run, self.stored_info[run])
        # 1. Identical to what is stored, or to an earlier line of this batch: a no-op.
        stored_hash = self.stored_hashes.get((run, seq))
        earlier = self.seen.get((run, seq))
        known = stored_hash or (self.hashes[earlier] if earlier is not None else None)
        if known is not None:
            if known == self.hashes[i]:
                self.present += 1
                return
            other = (stored_event(self.store, run, seq, self.version) if stored_hash is not None
                     else self.event(earlier))  # type: ignore[arg-type]
            diff = first_difference(other, self.event(i)) if other is not None else None
            where = "stored" if stored_hash is not None else "earlier in this batch"
            if diff:
                path, was, now = diff
                self.refuse(i, path, f"conflict: {where} with {_short(was)}, got {_short(now)}", True)
            else:
                self.refuse(i, "$", f"conflict: {where} with different content", True)
            return
        # 2. The seq rules.
        if run in self.finished_at:
            self.refuse(i, "$.seq", f"run already finished at seq {self.finished_at[run]}; nothing may follow it")
            return
        if seq != self.nxt[run]:
            self.refuse(i, "$.seq", f"expected {self.nxt[run]}, got {seq}")
            return
        if (seq == 0) != (kind == "run_started"):
            self.refuse(i, "$.kind", "seq 0 must be run_started" if seq == 0 else "run_started only at seq 0")
            return
        self.counts[run] += 1
        if self.counts[run] > self.limits.max_events_per_run:
            self.refuse(i, "$.seq", f"run has more than {self.limits.max_events_per_run} events (limit)")
            return
        # 3. A state patch applies to the state it follows; a run's pool is its task's.
        if kind in ("run_started", "state_changed"):
            e = self.event(i)
            bad = self.worlds.check(e)
            if bad is not None:
                self.refuse(i, *bad)
                self.nxt[run] = seq + 1  # the lines after it are not out of order because of it
                return
            if isinstance(e, ev.RunStarted):
                from trajectory.ingest.plain import run_info

                declared = self.split_of(e.suite, e.task) if self.split_of else None
                contradiction = pool_contradiction(e, declared)
                if contradiction is not None:
                    self.refuse(i, "$.split", contradiction)  # refused; its lines are still checked
                self.infos[run] = run_info(e, declared if e.split is None else None)
        if kind == "run_finished":
            self.finished_at[run] = seq
        self.seen[(run, seq)] = i
        self.nxt[run] = seq + 1
        self.accepted.append(i)
