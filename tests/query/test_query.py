"""`traj query`: the views answer plain SQL; the sandbox refuses every way out."""

from __future__ import annotations

import pytest

from helpers import example_run, jsonl
from trajectory.errors import QueryError
from trajectory.ingest.files import ingest_bytes
from trajectory.judging import SuiteResolver, judge_runs
from trajectory.query.sql import Views
from trajectory.store.delta import Store


@pytest.fixture
def filled(store: Store) -> Store:
    ingest_bytes(store, jsonl(example_run("r1") + example_run("r2", "北京现在25度") + example_run("r3", finished=False)), "a")
    judge_runs(store, SuiteResolver(store))
    return store


def test_runs_view_has_one_row_per_run(filled: Store) -> None:
    with Views(filled) as v:
        rows = v.user_query("SELECT run_id, suite, task, batch, agent, model, outcome, steps, tokens, duration_ms FROM runs ORDER BY run_id").to_pylist()
    assert [r["run_id"] for r in rows] == ["r1", "r2", "r3"]
    assert rows[0] == {"run_id": "r1", "suite": "example", "task": "current_temp", "batch": "b1", "agent": "a",
                       "model": "m", "outcome": "succeeded", "steps": 1, "tokens": 110, "duration_ms": 0}
    assert rows[2]["outcome"] is None  # open


def test_verdicts_view_columns(filled: Store) -> None:
    with Views(filled) as v:
        rows = v.user_query("SELECT run_id, suite, task, outcome, score, checks, judge_version, pass_id, judged_at FROM verdicts ORDER BY run_id").to_pylist()
    assert [(r["run_id"], r["outcome"]) for r in rows] == [("r1", "pass"), ("r2", "fail")]
    assert rows[1]["checks"][0]["name"] == "answer" and rows[1]["checks"][0]["passed"] is False


ESCAPES = [
    "CREATE TABLE x AS SELECT 1",
    "INSERT INTO passes VALUES (1)",
    "DELETE FROM events",
    "DROP VIEW events",
    "COPY (SELECT 1) TO '/tmp/traj-escape.csv'",
    "EXPORT DATABASE '/tmp/traj-escape'",
    "ATTACH '/tmp/traj-escape.db' AS x",
    "INSTALL httpfs",
    "LOAD httpfs",
    "SET enable_external_access = true",
    "PRAGMA database_list",
    "SELECT 1; SELECT 2",
    "SELECT * FROM read_csv('/etc/passwd')",
    "SELECT * FROM read_csv_auto('/etc/passwd')",
    "SELECT * FROM read_text('/etc/passwd')",
    "SELECT * FROM read_parquet('/tmp/x.parquet')",
    "SELECT * FROM read_json('https://example.com/x.json')",
    "SELECT * FROM '/etc/passwd'",
    "SELECT * FROM 'https://example.com/data.csv'",
    "SELECT * FROM glob('/*')",
    "SELECT getenv('HOME')",
    "SELECT * FROM duckdb_settings()",
    "SELECT * FROM query('SELECT 1')",
    "WITH x AS (SELECT * FROM read_csv('/etc/passwd')) SELECT * FROM x",
    "SELECT (SELECT count(*) FROM read_blob('/etc/passwd'))",
    "CALL pragma_version()",
]


@pytest.mark.parametrize("sql", ESCAPES)
def test_sandbox_refuses(filled: Store, sql: str) -> None:
    with Views(filled) as v:
        with pytest.raises(QueryError) as info:
            v.user_query(sql)
    assert "\n" not in str(info.value)


def test_allowed_table_functions_still_work(filled: Store) -> None:
    with Views(filled) as v:
        assert v.user_query("SELECT sum(range) AS s FROM range(4)").to_pylist() == [{"s": 6}]


def test_internal_unfiltered_views_are_not_for_queries(filled: Store) -> None:
    with Views(filled) as v:
        for name in ("_runs_all", "_history_all", "_events", "_verdicts"):
            with pytest.raises(QueryError, match="internal"):
                v.user_query(f"SELECT count(*) FROM {name}")
