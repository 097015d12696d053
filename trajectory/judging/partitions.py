"""How a pass's runs are cut into partitions, each replayed by one query over the events table.

A partition's query reads the row groups whose statistics say they may hold its runs: the range
of its run ids, of its suites and of its tasks. How many row groups that is depends on the
order the runs were cut in and on how the files were written: files written since ingest sorts
rows by kind, suite, task and run (trajectory/ingest/rows.py) are read least when the runs are
cut in suite, task, run order — a fix to one task then reads that task's row groups only —
while older files, in run order, are read least when the runs are cut in run order. So both
orders are costed against the row groups' statistics (the rows each partition would read,
summed) and the cheaper one is taken: any store, old, new or mixed, gets the better plan.

Plain data in, plain data out (an Arrow table of the runs, the files' statistics): an engine
that judges partitions elsewhere (a Ray cluster) can call :func:`plan` and ship the partitions.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

#: The columns whose ranges bound a partition's scan.
BOUNDED = ("run_id", "suite", "task")


@dataclasses.dataclass(frozen=True)
class Partition:
    """Runs replayed and judged together, and the ranges of their run ids, suites and tasks."""

    runs: tuple[str, ...]
    bounds: tuple[tuple[str, str, str], ...] = ()  # (column, least, greatest)

    def where(self) -> tuple[str, list[str]]:
        """SQL bounding a scan of the events table to these runs' row groups, and its params."""
        conds, params = [], []
        for column, lo, hi in self.bounds:
            conds.append(f"{column} BETWEEN ? AND ?")
            params += [lo, hi]
        return " AND ".join(conds) or "TRUE", params


def row_groups(files: Sequence[str]) -> dict[str, np.ndarray]:
    """Per row group of the events files: its rows and the min and max of each bounded column
    (None where a file has no statistics for it: such a group is read by every partition)."""
    rows: list[int] = []
    mins: dict[str, list[str | None]] = {c: [] for c in BOUNDED}
    maxs: dict[str, list[str | None]] = {c: [] for c in BOUNDED}
    for path in files:
        meta = pq.ParquetFile(path).metadata
        names = [meta.schema.column(i).name for i in range(meta.num_columns)]
        for g in range(meta.num_row_groups):
            group = meta.row_group(g)
            rows.append(group.num_rows)
            for column in BOUNDED:
                stats = group.column(names.index(column)).statistics if column in names else None
                ok = stats is not None and stats.has_min_max
                mins[column].append(_text(stats.min) if ok else None)
                maxs[column].append(_text(stats.max) if ok else None)
    out: dict[str, np.ndarray] = {"rows": np.array(rows, dtype=np.int64)}
    for column in BOUNDED:
        out[f"{column}_min"] = np.array(mins[column], dtype=object)
        out[f"{column}_max"] = np.array(maxs[column], dtype=object)
    return out


def _text(value: object) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def _cut(ends: pa.Table, keys: list[str], size: int) -> list[Partition]:
    order = ends.sort_by([(k, "ascending") for k in keys])
    cols = {c: order.column(c).to_pylist() for c in BOUNDED}
    parts = []
    for i in range(0, order.num_rows, size):
        bounds = []
        for c in BOUNDED:
            values = [v for v in cols[c][i : i + size] if v is not None]
            if len(values) == len(cols[c][i : i + size]) and values:
                bounds.append((c, min(values), max(values)))
        parts.append(Partition(tuple(cols["run_id"][i : i + size]), tuple(bounds)))
    return parts


def _cost(parts: list[Partition], groups: dict[str, np.ndarray]) -> int:
    """Rows read by the partitions' scans: each reads every row group its bounds overlap."""
    total = 0
    for p in parts:
        hit = np.ones(len(groups["rows"]), dtype=bool)
        for column, lo, hi in p.bounds:
            gmin, gmax = groups[f"{column}_min"], groups[f"{column}_max"]
            known = np.array([a is not None and b is not None for a, b in zip(gmin, gmax)], dtype=bool)
            overlap = np.ones(len(hit), dtype=bool)
            if known.any():
                overlap[known] = np.array([not (b < lo or a > hi) for a, b in zip(gmin[known], gmax[known])])
            hit &= overlap
        total += int(groups["rows"][hit].sum())
    return total


def plan(ends: pa.Table, size: int, files: Sequence[str] = ()) -> list[Partition]:
    """Partitions of at most ``size`` runs of ``ends`` (columns run_id, suite, task; one row per
    run), cut in the order that reads the fewest rows of the events ``files`` (run order when
    the files give no statistics)."""
    if ends.num_rows == 0:
        return []
    by_run = _cut(ends, ["run_id"], size)
    if not files:
        return by_run
    groups = row_groups(files)
    by_task = _cut(ends, ["suite", "task", "run_id"], size)
    return by_task if _cost(by_task, groups) < _cost(by_run, groups) else by_run


def restrict(ends: pa.Table, run_ids: Sequence[str]) -> pa.Table:
    """The rows of ``ends`` for these runs."""
    return ends.filter(pc.is_in(ends.column("run_id"), value_set=pa.array(list(run_ids), pa.string())))
