"""The floors each figure is set against: DuckDB doing the reading and grouping alone.

- Judging: DuckDB reads the columns the judges need — the batch replay's own two queries
  (replay.batch: the typed columns aggregated per run, and the whole events it decodes) for
  every finished run, each suite's runs with what its judge declares it reads — grouped by run,
  with as many threads as the re-judge it is compared with has cores. No Python object is
  built: what remains above it is decoding, building states and judging.
- Ingest: DuckDB parses the same JSON Lines files (every line whole: its JSON reader parses
  each object completely) and groups the events by run, with as many threads as ingest has
  workers.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from replay.batch import batch_sql, detail_sql, sql_str
from trajectory.judging import SuiteResolver, select_runs
from trajectory.store.delta import Store


def judge_floor(store: Store, threads: int, repeat: int = 3) -> dict[str, Any]:
    """The batch replay's queries over every finished run, on ``threads`` DuckDB threads."""
    resolver = SuiteResolver(store)
    sel = select_runs(store)
    reads = {name: resolver.reads(name) for name in set(sel.suites.values()) if name is not None}
    files = store.files("events")
    source = "read_parquet([" + ", ".join(sql_str(f) for f in files) + "], union_by_name=true)"
    con = duckdb.connect(":memory:")
    times = []
    rows = details = 0
    try:
        con.execute(f"SET threads TO {int(threads)}")
        con.execute("SET enable_progress_bar = false")
        con.register("_finished", pa.table({"run_id": sel.finished}))
        where = "run_id IN (SELECT run_id FROM _finished)"
        main, detail = batch_sql(reads, source, where=where), detail_sql(reads, source, where=where)
        for _ in range(repeat):
            t = time.perf_counter()
            rows = con.sql(main).to_arrow_table().num_rows
            details = con.sql(detail).to_arrow_table().num_rows
            times.append(time.perf_counter() - t)
    finally:
        con.close()
    median = statistics.median(times)
    return {
        "what": "DuckDB: replay.batch's typed aggregate + whole-event detail query, all finished runs",
        "threads": threads,
        "runs": rows,
        "detail_rows": details,
        "median_s": round(median, 4),
        "times_s": [round(x, 4) for x in times],
    }


INGEST_FLOOR_SQL = (
    "SELECT run_id, count(*) AS events, max(seq) AS last_seq, count(DISTINCT kind) AS kinds "
    "FROM read_json($files, format = 'newline_delimited', "
    "columns = {run_id: 'VARCHAR', seq: 'BIGINT', ts: 'VARCHAR', kind: 'VARCHAR'}) GROUP BY run_id"
)


def ingest_floor(files: list[Path], threads: int, repeat: int = 3) -> dict[str, Any]:
    """DuckDB parsing the JSON Lines files and grouping by run, on ``threads`` threads."""
    sql = INGEST_FLOOR_SQL.replace("$files", "[" + ", ".join(sql_str(str(f)) for f in files) + "]")
    con = duckdb.connect(":memory:")
    times = []
    runs = events = 0
    try:
        con.execute(f"SET threads TO {int(threads)}")
        con.execute("SET enable_progress_bar = false")
        for _ in range(repeat):
            t = time.perf_counter()
            table = con.sql(sql).to_arrow_table()
            times.append(time.perf_counter() - t)
            runs = table.num_rows
            events = int(sum(table.column("events").to_pylist()))
    finally:
        con.close()
    median = statistics.median(times)
    return {
        "what": "DuckDB read_json (every line parsed whole) grouped by run_id",
        "sql": INGEST_FLOOR_SQL,
        "threads": threads,
        "runs": runs,
        "events": events,
        "median_s": round(median, 4),
        "times_s": [round(x, 4) for x in times],
        "events_per_s": round(events / median) if median else None,
    }
