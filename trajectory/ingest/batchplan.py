"""Ingest's fast path for a whole file: stage its chunks, check the batch at once, commit once.

The plain path (ingest.parse, ingest.plan_batch) decides event by event. This one stages the
file's chunks in parallel (staging.py), then checks the batch's rules over columns: an event
identical to a stored one is a no-op, one with the same run and seq but other content a
conflict; each run's new events continue its stored ones with the next seq, start with
run_started at seq 0, end at most once with run_finished, stay within the events-per-run
limit. Everything it accepts, the plain path accepts with the same rows; whenever anything is
refused (or is unusual: a line repeated within the file), it steps aside and the plain path
decides, so that every refusal is worded by one piece of code. Either way a file is one batch:
the staged chunks are appended in one commit, or nothing is.
"""

from __future__ import annotations

import concurrent.futures as cf
import os
import shutil
import tempfile
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from trajectory import events as ev
from trajectory.runtime import interrupts, pools
from trajectory.errors import LimitError, SchemaError
from trajectory.ingest.rows import finish
from trajectory.ingest.staging import Chunk, Staged, stage
from trajectory.store.delta import Store
from trajectory.store.tables import EVENTS_SCHEMA
from trajectory.text import plural


#: A batch smaller than this is staged in this process: a worker spends about a second
#: importing what staging needs, as long as staging 8 MiB takes here.
PARALLEL_FROM = 8 << 20


class PlainPath(Exception):
    """The batch needs the plain path's judgement (a refusal to word, or an unusual case)."""


class Workers:
    """A pool of staging processes, started once and used for every file of a command (spawned,
    deaf to Ctrl-C, torn down at once if the command is interrupted: trajectory.runtime.pools)."""

    def __init__(self, n: int | None = None):
        self.n = max(1, n if n is not None else (os.cpu_count() or 1))
        self._pool: cf.ProcessPoolExecutor | None = None

    def _submit(self, fn: Callable[..., Staged], item: Any) -> cf.Future[Staged]:
        with pools.spawning():  # a submit may start a worker
            if self._pool is None:
                self._pool = pools.spawned_pool(self.n)
            return self._pool.submit(fn, item)

    def map(self, fn: Callable[..., Staged], items: Sequence[Any], *, here: bool = False) -> Iterator[Staged]:
        """``fn`` over ``items``, results in any order; at most two items per worker are in
        flight (an item may carry a chunk's bytes, and they are not all held at once).
        ``here``: in this process (work too small to pay for starting workers)."""
        if here or self.n == 1 or len(items) < 2:
            yield from (fn(item) for item in items)
            return
        todo = iter(items)
        running: set[cf.Future[Staged]] = set()
        for item in todo:
            running.add(self._submit(fn, item))
            if len(running) >= 2 * self.n:
                done, running = cf.wait(running, return_when=cf.FIRST_COMPLETED)
                yield from (f.result() for f in done)
        for f in cf.as_completed(running):
            yield f.result()

    def close(self, *, now: bool = False) -> None:
        if self._pool is not None:
            if now:
                pools.tear_down(self._pool)
            else:
                self._pool.shutdown()
            self._pool = None

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, kind: Any, *exc: Any) -> None:
        self.close(now=kind is not None)


class _tasks(Sequence):  # noqa: N801 - a lazy sequence of staging tasks
    """The staging tasks of a file's chunks, made one at a time as the pool takes them (a
    chunk of given bytes is a copy of its slice)."""

    def __init__(self, chunks: list[Chunk], folder: str, limits: Any):
        self.chunks, self.folder, self.limits = chunks, folder, limits

    def __len__(self) -> int:
        return len(self.chunks)

    def __getitem__(self, i: Any) -> Any:
        return (self.chunks[i].materialized(), self.folder, self.limits)


def _stage_one(args: tuple[Chunk, str, Any]) -> Staged:
    chunk, folder, limits = args
    return stage(chunk, folder, limits)


def ingest_chunks(
    store: Store,
    chunks: list[Chunk],
    source: str,
    limits: Any,
    split_of: Callable[[str, str], str | None] | None,
    workers: Workers,
    report: Any,
    progress: Callable[[int, int], None] | None = None,
) -> Any:
    """Stage, check and commit one file's chunks; the filled-in ``report``. Raises the
    refusal of the first problems of the file's lines, or PlainPath.

    The plain path decides what this one does not: a store without a writer lock (object
    storage: its commits are conditional, see Store.append_decided), and batches with state
    patches (each is checked against the state it follows, trajectory/ingest/patchcheck.py)."""
    from trajectory.ingest.plain import MAX_REPORTED, _one_line, _refusal

    if not store.backend.serialised:
        raise PlainPath("a store without a writer lock")
    with _staging_folder() as folder:
        staged = []
        lines = 0
        if progress is not None:
            progress(0, None)  # the file's name on the bar while its first chunks are staged
        small = sum(c.size for c in chunks) < PARALLEL_FROM
        try:
            for one in workers.map(_stage_one, _tasks(chunks, folder, limits), here=small):
                staged.append(one)
                lines += one.newlines
                if progress is not None:
                    progress(lines, None)
        except BaseException:
            # Ctrl-C or a failed chunk: chunks still being staged would write into the folder
            # as it is removed, and keep it.
            workers.close(now=True)
            raise
        staged.sort(key=lambda s: s.index)
        # Line numbers: a chunk's first line is the next after the previous chunks' newlines.
        offsets = np.concatenate(([0], np.cumsum([s.newlines for s in staged])))[:-1].tolist()
        n_problems = sum(s.n_problems for s in staged)
        if n_problems:
            problems = [
                _one_line(f"{source}:{offset + line + 1}: {message}")
                for s, offset in zip(staged, offsets)
                for line, message in s.problems
            ][:MAX_REPORTED]
            over = sum(s.over_limit for s in staged)
            raise _refusal(LimitError if over == n_problems else SchemaError, problems, n_problems)
        metas = [s.meta for s in staged if s.meta is not None and s.meta.num_rows]
        if not metas:
            return report
        meta = pa.concat_tables(
            m.set_column(0, "line", pc.add(m.column("line"), pa.scalar(offset + 1, pa.int64())))
            for m, offset in zip((s.meta for s in staged), offsets)
            if m is not None and m.num_rows
        )
        starts = pa.concat_tables([s.starts for s in staged if s.starts is not None and s.starts.num_rows]
                                  or [pa.table({"run_id": pa.array([], pa.string())})], promote_options="default")
        patched = pc.any(pc.equal(meta.column("kind"), "state_changed")).as_py()
        report.events = meta.num_rows
        report.runs = len(pc.unique(meta.column("run_id")))
        # Staged rows are in the table's layout; the rules read the events in line order.
        order = pc.sort_indices(meta, sort_keys=[("line", "ascending")]).to_numpy()
        if not store.exists:
            # Into a new store the batch is checked before the lock creates its folder: a
            # refused first batch leaves none (the plan is made again under the lock).
            plan(store, meta.take(order), starts, limits, split_of)
        with store.lock():
            in_order, infos = plan(store, meta.take(order), starts, limits, split_of)
            new = np.empty(meta.num_rows, dtype=bool)
            new[order] = np.asarray(in_order.to_numpy(), dtype=bool)
            if patched:
                _check_patches(store, staged, offsets, meta.column("line").filter(pa.array(new)))
            n_new = int(new.sum())
            report.new = n_new
            report.present = meta.num_rows - n_new
            report.new_runs = int((new & (meta.column("seq").to_numpy() == 0)).sum())
            if n_new:
                report.commit_id = uuid.uuid4().hex
                masks = _split(new, [s.meta.num_rows if s.meta is not None else 0 for s in staged])
                batches = _rows(staged, masks, infos, report.commit_id)
                with interrupts.deferred():  # the commit and its note: one step for Ctrl-C
                    report.version = store.append("events", batches)
                    interrupts.note(f"{source} ({plural(n_new, 'new event')})")
    return report


@contextmanager
def _staging_folder() -> Iterator[str]:
    """A folder for a file's staged chunks, removed on the way out, whatever the way: a Ctrl-C
    that comes while it is being removed waits until it is gone."""
    folder = tempfile.mkdtemp(prefix="traj-stage-")
    try:
        yield folder
    finally:
        with interrupts.deferred():
            shutil.rmtree(folder, ignore_errors=True)


def _check_patches(store: Store, staged: list[Staged], offsets: list[int], new_lines: pa.ChunkedArray) -> None:
    """PlainPath when a new state patch cannot apply to the state it follows (the plain path
    words the refusal). ``offsets``: each chunk's first line in the batch, less one.

    The batch's run starts and state changes are read in line order and the new ones checked
    as the plain path checks them; a run not started in the batch has its state read from the
    store (a run with nothing stored reads as no state, as it does there)."""
    from trajectory.ingest.patchcheck import WorldCheck

    worlds = pa.concat_tables(
        w.set_column(0, "line", pc.add(w.column("line"), pa.scalar(offset + 1, pa.int64())))
        for w, offset in zip((s.worlds for s in staged), offsets)
        if w is not None and w.num_rows
    )
    order = pc.sort_indices(worlds, sort_keys=[("line", "ascending")])
    worlds = worlds.take(order)
    fresh = pc.is_in(worlds.column("line"), value_set=new_lines).to_pylist()
    check = WorldCheck(store, set(worlds.column("run_id").to_pylist()))
    for data, is_new in zip(worlds.column("data").to_pylist(), fresh):
        if is_new and check.check(ev.decode(data)) is not None:
            raise PlainPath("a state patch that cannot apply")


def _split(flat: np.ndarray, sizes: list[int]) -> list[np.ndarray]:
    bounds = np.cumsum([0, *sizes])
    return [flat[a:b] for a, b in zip(bounds[:-1], bounds[1:])]


def _rows(staged: list[Staged], masks: list[np.ndarray], infos: pa.Table, commit_id: str) -> Iterator[pa.RecordBatch]:
    """The new rows of each staged chunk, completed and in the table's layout, one chunk at a
    time (only one chunk's rows are in memory at once)."""
    run_names = [n for n in infos.column_names if n != "run_id"]
    for s, mask in zip(staged, masks):
        if s.path is None or not mask.any():
            continue
        with pa.OSFile(s.path, "rb") as source:
            table = pa.ipc.open_file(source).read_all()
        os.unlink(s.path)
        if not mask.all():
            table = table.filter(pa.array(mask))  # the layout's order survives a filter
        where = pc.index_in(table.column("run_id"), value_set=infos.column("run_id"))
        cols = {name: table.column(name) for name in table.column_names if name != "line"}
        for name in run_names:
            cols[name] = infos.column(name).take(where)
        yield from finish(cols, table.num_rows, commit_id, EVENTS_SCHEMA).to_batches()


def plan(store: Store, meta: pa.Table, starts: pa.Table, limits: Any,
         split_of: Callable[[str, str], str | None] | None) -> tuple[pa.ChunkedArray, pa.Table]:
    """Which events of the batch are new, and the run columns of every run with new events;
    PlainPath when any rule is broken (or a line repeats within the batch)."""
    from trajectory.ingest.plain import existing_table, run_fields

    fields = run_fields()
    run_ids = pc.unique(meta.column("run_id"))
    stored = existing_table(store, run_ids)
    # 1. Identical to what is stored: a no-op; the same run and seq with other content: refused.
    present = pa.chunked_array([np.zeros(meta.num_rows, dtype=bool)])
    if stored.num_rows:
        keyed = meta.append_column("i", pa.array(np.arange(meta.num_rows)))
        hit = keyed.join(stored.select(["run_id", "seq", "hash"]).rename_columns(["run_id", "seq", "stored_hash"]),
                         keys=["run_id", "seq"], join_type="inner")
        if hit.num_rows:
            if not pc.all(pc.equal(hit.column("hash"), hit.column("stored_hash"))).as_py():
                raise PlainPath("conflict with a stored event")
            flags = np.zeros(meta.num_rows, dtype=bool)
            flags[hit.column("i").to_numpy()] = True
            present = pa.chunked_array([flags])
    new = pc.invert(present)
    fresh = meta.filter(new)
    # 2. A line repeated in the batch (the plain path makes the repeats no-ops, or refuses).
    if len(pc.unique(pc.binary_join_element_wise(fresh.column("run_id"), pc.cast(fresh.column("seq"), pa.string()),
                                                 "\x00"))) != fresh.num_rows:
        raise PlainPath("a run and seq twice in the batch")
    # 3. The seq rules, per run, over the new events in line order.
    codes = pc.dictionary_encode(fresh.column("run_id")).combine_chunks()
    code = codes.indices.to_numpy()
    names = codes.dictionary
    n_runs = len(names)
    counts = np.bincount(code, minlength=n_runs)
    order = np.argsort(code, kind="stable")
    first = np.concatenate(([0], np.cumsum(counts)))[:-1]
    position = np.empty(len(code), dtype=np.int64)
    position[order] = np.arange(len(code)) - np.repeat(first, counts)
    base = np.zeros(n_runs, dtype=np.int64)
    finished = np.zeros(n_runs, dtype=bool)
    stored_info: dict[str, dict[str, Any]] = {}
    if stored.num_rows:
        runs = stored.group_by("run_id").aggregate([("seq", "max")])
        at = pc.fill_null(pc.index_in(names, value_set=runs.column("run_id")), -1).to_numpy(zero_copy_only=False)
        known = at >= 0
        if known.any():
            last = runs.column("seq_max").to_numpy()
            base[known] = last[at[known]] + 1
        ends = stored.filter(pc.equal(stored.column("kind"), "run_finished")).column("run_id")
        finished = pc.is_in(names, value_set=ends).to_numpy(zero_copy_only=False)
        for row in stored.filter(pc.equal(stored.column("kind"), "run_started")).select(["run_id", *fields]).to_pylist():
            stored_info[row.pop("run_id")] = row
    seq = fresh.column("seq").to_numpy()
    is_start = pc.equal(fresh.column("kind"), "run_started").to_numpy(zero_copy_only=False)
    is_finish = pc.equal(fresh.column("kind"), "run_finished").to_numpy(zero_copy_only=False)
    ok = (
        np.all(seq == base[code] + position)
        and not finished[code].any()
        and np.array_equal(is_start, seq == 0)
        and np.all(position[is_finish] == counts[code[is_finish]] - 1)
        and np.all(base + counts <= limits.max_events_per_run)
    )
    if not ok:
        raise PlainPath("a seq rule is broken")
    # 4. The run columns of each run with new events: its run_started's, here or stored.
    info_rows = []
    started = {}
    if starts.num_rows:
        for row in starts.to_pylist():
            started[row["run_id"]] = row
    for name in names.to_pylist():
        row = started.get(name)
        if row is not None:
            info = {f: row.get(f) for f in fields}
            declared = split_of(info.get("suite"), info.get("task")) if split_of is not None else None
            if info.get("split") is None:
                info["split"] = declared
            elif declared is not None and info["split"] != declared:
                raise PlainPath(f"run {name}: its split contradicts its task's")  # refused there, by line
        else:
            info = stored_info.get(name)
            if info is None:
                raise PlainPath(f"run {name}: no run_started")
        info_rows.append({"run_id": name, **info})
    schema = pa.schema([pa.field("run_id", pa.string())] + [EVENTS_SCHEMA.field(f) for f in fields])
    return new, pa.Table.from_pylist(info_rows, schema=schema)
