"""`traj query` limits, attack by attack: a query that would run for ever, fill memory or print
millions of rows is stopped by its limit with one line; catalog views that show the store's
absolute paths are refused."""

from __future__ import annotations

import time

import pytest
from typer.testing import CliRunner

from figures import RELIABILITY_FIGURES
from helpers import example_run, jsonl
from trajectory.cli.main import app
from trajectory.errors import QueryError
from trajectory.ingest.files import ingest_bytes
from trajectory.query.sql import Views
from trajectory.query.limits import STOPPED, QueryLimits, parse_size
from trajectory.store.delta import Store

runner = CliRunner()


@pytest.fixture(scope="module")
def big(tmp_path_factory) -> Store:
    """600 runs, 3000 events: a 4-way self-join of them has 8e13 rows."""
    store = Store(tmp_path_factory.mktemp("limits") / "store")
    lines: list[str] = []
    for i in range(600):
        lines += example_run(f"r{i:04d}")
    ingest_bytes(store, jsonl(lines), "big")
    return store


# (attack, the limit options it runs under, the limit that must stop it)
ATTACKS = [
    ("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r",
     ["--timeout", "1"], "time limit of 1 s"),
    ("SELECT count(*) FROM range(10000000000000)", ["--timeout", "1"], "time limit of 1 s"),
    ("SELECT sum(range) FROM range(1e13::BIGINT)", ["--timeout", "1"], "time limit of 1 s"),
    ("SELECT count(*) FROM events a, events b, events c, events d", ["--timeout", "2", "--max-memory", "256MiB"],
     "limit of"),
    ("SELECT count(*) FROM events a JOIN events b USING (kind) JOIN events c USING (kind) "
     "JOIN events d USING (kind)", ["--timeout", "2", "--max-memory", "256MiB"], "limit of"),
    ("SELECT length(string_agg(a.data, ',')) FROM events a, events b", ["--max-memory", "128MiB"],
     "memory limit of 128 MiB"),
    ("SELECT len(list(a.data)) FROM events a, events b", ["--max-memory", "128MiB"], "memory limit of 128 MiB"),
    ("SELECT * FROM range(100000000)", ["--max-rows", "1000"], "more than 1,000 rows"),
    ("SELECT a.run_id, b.seq FROM events a, events b", [], "more than 1,000,000 rows"),
]


@pytest.mark.parametrize(("sql", "options", "stop"), ATTACKS, ids=[a[0][:60] for a in ATTACKS])
def test_an_unbounded_query_is_stopped_by_its_limit_in_one_line(big: Store, sql, options, stop) -> None:
    before = sum(STOPPED.values())
    start = time.monotonic()
    r = runner.invoke(app, ["query", sql, *options, "--store", str(big.loc)])
    elapsed = time.monotonic() - start
    assert r.exit_code == 1, r.output
    lines = r.output.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: query stopped: ") and stop in lines[0], r.output
    assert "--" in lines[0]  # it names the option that raises the limit
    assert sum(STOPPED.values()) == before + 1
    # Stopped by the limit, not left to finish: far less than these queries take unbounded (> 60 s).
    assert elapsed < 30, elapsed


def test_queries_within_the_limits_still_answer(big: Store) -> None:
    with Views(big, limits=QueryLimits(timeout=20, max_rows=600, memory=parse_size("256MiB"))) as v:
        assert v.user_query("SELECT count(*) AS n FROM events").to_pylist() == [{"n": 3000}]
        assert v.user_query("SELECT run_id FROM runs").num_rows == 600  # exactly at the row limit
        rows = v.user_query("WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 5) SELECT sum(n) AS s FROM t")
        assert rows.to_pylist() == [{"s": 15}]


def test_the_limits_cannot_be_raised_from_sql(big: Store) -> None:
    with Views(big, limits=QueryLimits(memory=parse_size("128MiB"))) as v:
        for sql in ("SET memory_limit = '16GB'", "SET temp_directory = '/tmp/x'", "RESET memory_limit"):
            with pytest.raises(Exception, match="locked|disabled"):
                v.con.execute(sql)
        assert v.con.execute("SELECT current_setting('memory_limit')").fetchone()[0] == "128.0 MiB"
        assert v.con.execute("SELECT current_setting('temp_directory')").fetchone()[0] == ""


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--timeout", "0"], "--timeout must be between 0.1 s and 3600 s, got 0 s"),
        (["--timeout", "100000"], "--timeout must be between"),
        (["--max-rows", "0"], "--max-rows must be between 1 and 50,000,000"),
        (["--max-memory", "1TiB"], "--max-memory must be between 64 MiB and 16 GiB, got 1024 GiB"),
        (["--max-memory", "1MiB"], "--max-memory must be between"),
        (["--max-memory", "lots"], "--max-memory: not a size: 'lots'"),
    ],
)
def test_limit_options_out_of_bounds_are_refused_in_one_line(big: Store, options, message) -> None:
    r = runner.invoke(app, ["query", "SELECT 1", *options, "--store", str(big.loc)])
    assert r.exit_code == 1 and r.output.splitlines() == [f"error: {message}"] or message in r.output, r.output
    assert len(r.output.splitlines()) == 1


CATALOG = [
    "SELECT sql FROM duckdb_views",
    "SELECT sql FROM main.duckdb_views WHERE NOT internal",
    "SELECT view_definition FROM information_schema.views",
    "SELECT definition FROM pg_views",
    "SELECT definition FROM pg_catalog.pg_views",
    "SELECT sql FROM sqlite_master",
    "SELECT sql FROM sqlite_schema",
    "SELECT sql FROM sqlite_temp_master",
    "SELECT sql FROM duckdb_tables",
    "SELECT path FROM duckdb_databases",
    "SELECT file FROM pragma_database_list",
    "SELECT * FROM duckdb_logs",
    "SELECT * FROM pg_class",
    "SELECT * FROM system.main.duckdb_views",
    "WITH v AS (SELECT * FROM duckdb_views) SELECT sql FROM v",
    "SELECT (SELECT string_agg(sql) FROM duckdb_views) AS s",
]


@pytest.mark.parametrize("sql", CATALOG)
def test_catalog_views_that_show_the_stores_paths_are_refused(big: Store, sql: str) -> None:
    with Views(big, split=None) as v, pytest.raises(QueryError) as info:
        v.user_query(sql)
    assert "refused: the catalog view" in str(info.value) and "\n" not in str(info.value)


def test_no_catalog_view_that_is_still_allowed_shows_a_path(big: Store) -> None:
    root = str(big.loc)
    with Views(big, split=None) as v:
        for sql in ("SELECT * FROM information_schema.tables", "SELECT * FROM information_schema.columns",
                    "SELECT * FROM information_schema.schemata", "SELECT * FROM duckdb_columns",
                    "SELECT * FROM duckdb_schemas", "SELECT * FROM duckdb_types"):
            text = str(v.user_query(sql).to_pylist())
            assert root not in text and ".parquet" not in text, sql
        # A CTE that happens to share a catalog view's name is the user's own.
        assert v.user_query("WITH views AS (SELECT 1 AS x) SELECT x FROM views").to_pylist() == [{"x": 1}]


def test_figure_queries_stopped_by_limits() -> None:
    # Runs after the attacks above (file order): the figure the suite prints at its end.
    total = sum(STOPPED.values())
    RELIABILITY_FIGURES.append(
        f"query limits: {total} queries stopped by limits (time {STOPPED['time']}, memory {STOPPED['memory']}, "
        f"rows {STOPPED['rows']}), each in one line"
    )
