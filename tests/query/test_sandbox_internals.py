"""Neither the store's paths nor the internal views are visible to a query (issue 24, section 3):
built-in macros that read the catalog (``pg_get_viewdef`` ...) are refused, ``SHOW TABLES``
is refused, and catalog views that list tables by name list only the documented views; on the
CLI (the query worker) and on the viewer alike."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from helpers import example_run, jsonl
from trajectory.cli.main import app
from trajectory.ingest.files import ingest_bytes
from trajectory.query.sql import VIEWS, catalog_macros
from trajectory.store.delta import Store

LEAKS = [
    "SELECT pg_get_viewdef('events'::regclass)",
    "SELECT pg_get_viewdef(oid) FROM pg_catalog.pg_class",
    "SELECT pg_catalog.pg_get_viewdef('runs'::regclass) AS d",
    "SELECT PG_GET_VIEWDEF('verdicts'::regclass)",
    "SELECT (SELECT pg_get_viewdef('passes'::regclass)) AS d",
    "SELECT format_type(1, 1)",
    "SHOW ALL TABLES",
    "SHOW TABLES",
    "SELECT * FROM (SHOW ALL TABLES)",
]


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Store:
    s = Store(tmp_path_factory.mktemp("internals") / "store")
    ingest_bytes(s, jsonl(example_run("r1") + example_run("r2")), "two")
    return s


def query(store: Store, sql: str):  # noqa: ANN201
    return CliRunner().invoke(app, ["query", sql, "--format", "csv", "--store", str(store.loc)])


@pytest.mark.parametrize("sql", LEAKS)
def test_a_query_that_would_show_internals_is_refused_in_one_line(store: Store, sql: str) -> None:
    r = query(store, sql)
    assert r.exit_code == 1, r.output
    assert len(r.output.splitlines()) == 1 and r.output.startswith("error: refused: "), r.output
    assert str(store.loc) not in r.output and "_events" not in r.output


def test_every_builtin_macro_that_reads_the_catalog_is_refused(store: Store) -> None:
    import duckdb

    macros = catalog_macros(duckdb.connect())
    assert "pg_get_viewdef" in macros  # found from the definitions, not listed
    for name in sorted(macros):
        r = query(store, f"SELECT {name}(NULL) AS x")
        assert r.exit_code == 1 and "refused: function" in r.output, (name, r.output)


@pytest.mark.parametrize("sql", [
    "SELECT table_name FROM information_schema.tables",
    "SELECT t.table_name AS name FROM information_schema.tables AS t WHERE t.table_schema = 'main'",
    "SELECT DISTINCT table_name FROM information_schema.columns",
    "SELECT DISTINCT table_name FROM duckdb_columns",
    "SELECT DISTINCT c.table_name FROM duckdb_columns() c",
])
def test_catalog_views_list_only_the_documented_views(store: Store, sql: str) -> None:
    r = query(store, sql)
    if "duckdb_columns()" in sql:  # a table function: refused as every other
        assert r.exit_code == 1 and "refused" in r.output
        return
    assert r.exit_code == 0, r.output
    names = set(r.output.splitlines()[1:])
    assert names and names <= set(VIEWS), names


def test_describe_still_lists_a_views_columns(store: Store) -> None:
    r = query(store, "DESCRIBE runs")
    assert r.exit_code == 0 and "run_id" in r.output and "_" != r.output[0]


def test_an_error_names_no_path_of_the_store(store: Store) -> None:
    r = query(store, "SELECT CAST(data AS INTEGER) FROM events")
    assert r.exit_code == 1 and str(store.loc) not in r.output and len(r.output.splitlines()) == 1


def test_the_viewer_shows_no_internals_either(store: Store) -> None:
    from trajectory.errors import QueryError
    from trajectory.view.data import StoreData

    data = StoreData(str(store.loc), background_index=False)
    try:
        for sql in LEAKS:
            with pytest.raises(QueryError, match="refused"):
                data.query(sql, 10)
        got = data.query("SELECT table_name FROM information_schema.tables", 100)
        assert {r[0] for r in got["rows"]} <= set(VIEWS)
    finally:
        data.close()
