"""`traj query`'s sandbox, attempt by attempt: every way out is refused with one line.

tests/query/test_query.py has the first list; this one adds the file-reading table functions by name,
replacement scans of every spelling, statements hidden in CTEs, subqueries, LATERAL, UNION and
lambdas, the statement kinds DuckDB has besides SELECT, settings read through catalog views,
and the second wall (the locked connection) on its own.
"""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from built_cli import invoke
from figures import RELIABILITY_FIGURES
from helpers import example_run, jsonl
from trajectory.cli.main import app
from trajectory.errors import QueryError
from trajectory.ingest.files import ingest_bytes
from trajectory.query.sql import Views
from trajectory.store.delta import Store

# (attempt, a fragment of its one-line refusal)
ESCAPES: list[tuple[str, str]] = [
    # DDL and DML
    ("CREATE TABLE t AS SELECT 1", "got CREATE"),
    ("CREATE TEMP VIEW v AS SELECT 1", "got CREATE"),
    ("CREATE MACRO m() AS 1", "got CREATE"),
    ("CREATE SECRET (TYPE s3, KEY_ID 'k', SECRET 's')", "got CREATE"),
    ("CREATE OR REPLACE VIEW events AS SELECT 1 AS x", "got CREATE"),
    ("INSERT INTO passes SELECT * FROM passes", "got INSERT"),
    ("UPDATE events SET text = 'x'", "got UPDATE"),
    ("DELETE FROM verdicts", "got DELETE"),
    ("DROP VIEW verdicts", "got DROP"),
    ("ALTER VIEW events RENAME TO e", "got ALTER"),
    ("TRUNCATE events", "got DELETE"),
    # COPY, EXPORT, IMPORT
    ("COPY events TO '/tmp/traj-escape.csv'", "got COPY"),
    ("COPY (SELECT * FROM events) TO '/tmp/traj-escape.parquet' (FORMAT parquet)", "got COPY"),
    ("COPY (SELECT 1) TO STDOUT", "got COPY"),
    ("COPY passes FROM '/etc/passwd'", "got COPY"),
    ("EXPORT DATABASE '/tmp/traj-escape-db'", "got EXPORT"),
    ("IMPORT DATABASE '/tmp/traj-escape-db'", "got PRAGMA"),
    # ATTACH, DETACH, USE
    ("ATTACH '/tmp/traj-escape.duckdb' AS x", "got ATTACH"),
    ("ATTACH 'https://example.com/x.duckdb' AS x (READ_ONLY)", "got ATTACH"),
    ("DETACH memory", "got DETACH"),
    ("USE system", "got SET"),
    # extensions
    ("INSTALL httpfs", "got LOAD"),
    ("FORCE INSTALL httpfs", "got LOAD"),
    ("INSTALL x FROM 'https://example.com/repo'", "got LOAD"),
    ("LOAD httpfs", "got LOAD"),
    ("LOAD '/tmp/evil.duckdb_extension'", "got LOAD"),
    # settings
    ("SET enable_external_access = true", "got SET"),
    ("SET GLOBAL lock_configuration = false", "got SET"),
    ("RESET enable_external_access", "got SET"),
    ("SET VARIABLE x = 1", "got SET"),
    ("PRAGMA database_list", "got PRAGMA"),
    ("PRAGMA enable_profiling", "got PRAGMA"),
    ("CALL pragma_version()", "got CALL"),
    ("CALL duckdb_settings()", "got CALL"),
    ("SELECT current_setting('allowed_directories')", "current_setting() is not allowed"),
    ("SELECT main.current_setting('home_directory')", "current_setting() is not allowed"),
    ('SELECT "current_setting"(\'temp_directory\')', "current_setting() is not allowed"),
    ("SELECT * FROM duckdb_settings()", "duckdb_settings() is not allowed"),
    ("SELECT * FROM system.main.duckdb_settings()", "duckdb_settings() is not allowed"),
    ("SELECT * FROM pg_settings", "pg_settings shows the connection's settings"),
    ("SELECT name, setting FROM pg_catalog.pg_settings WHERE name LIKE '%dir%'", "pg_settings shows"),
    ("SELECT * FROM pg_catalog.PG_SETTINGS", "PG_SETTINGS shows"),
    ("SELECT getenv('HOME')", "getenv() is not allowed"),
    ("SELECT list_transform([1], x -> getenv('HOME'))", "getenv() is not allowed"),
    # other statement kinds
    ("SELECT 1; SELECT 2", "exactly one statement is allowed, got 2"),
    ("SELECT 1;; DROP VIEW events", "exactly one statement is allowed"),
    ("SELECT 1; -- comment\nDROP VIEW events", "exactly one statement is allowed"),
    ("SELECT 1 /* ; */ ; COPY events TO 'x.csv'", "exactly one statement is allowed"),
    ("EXPLAIN SELECT 1", "got EXPLAIN"),
    ("EXPLAIN ANALYZE SELECT * FROM read_csv('/etc/passwd')", "got EXPLAIN"),
    ("PREPARE p AS SELECT 1", "got PREPARE"),
    ("EXECUTE p", "got EXECUTE"),
    ("BEGIN TRANSACTION", "got TRANSACTION"),
    ("CHECKPOINT", "got CALL"),
    ("VACUUM", "got VACUUM"),
    ("PIVOT events ON kind USING count(*)", "got MULTI"),
    # table functions that read files or URLs
    ("SELECT * FROM read_csv('/etc/passwd')", "read_csv() is not allowed"),
    ("SELECT * FROM read_csv_auto('/etc/passwd')", "read_csv_auto() is not allowed"),
    ("SELECT * FROM read_csv(['/etc/passwd', '/etc/hosts'])", "read_csv() is not allowed"),
    ("SELECT * FROM sniff_csv('/etc/passwd')", "sniff_csv() is not allowed"),
    ("SELECT * FROM read_json('/etc/hostname')", "read_json() is not allowed"),
    ("SELECT * FROM read_json_auto('/etc/hostname')", "read_json_auto() is not allowed"),
    ("SELECT * FROM read_ndjson('/etc/hostname')", "read_ndjson() is not allowed"),
    ("SELECT * FROM read_ndjson_auto('/etc/hostname')", "read_ndjson_auto() is not allowed"),
    ("SELECT * FROM read_json_objects('/etc/hostname')", "read_json_objects() is not allowed"),
    ("SELECT * FROM read_parquet('/tmp/x.parquet')", "read_parquet() is not allowed"),
    ("SELECT * FROM parquet_scan('/tmp/x.parquet')", "parquet_scan() is not allowed"),
    ("SELECT * FROM parquet_metadata('/tmp/x.parquet')", "parquet_metadata() is not allowed"),
    ("SELECT * FROM parquet_schema('/tmp/x.parquet')", "parquet_schema() is not allowed"),
    ("SELECT * FROM parquet_file_metadata('/tmp/x.parquet')", "parquet_file_metadata() is not allowed"),
    ("SELECT * FROM iceberg_scan('/tmp/x')", "iceberg_scan() is not allowed"),
    ("SELECT * FROM delta_scan('/tmp/x')", "delta_scan() is not allowed"),
    ("SELECT * FROM read_text('/etc/passwd')", "read_text() is not allowed"),
    ("SELECT * FROM read_blob('/etc/passwd')", "read_blob() is not allowed"),
    ("SELECT * FROM glob('/*')", "glob() is not allowed"),
    ("SELECT * FROM read_json('https://example.com/x.json')", "read_json() is not allowed"),
    ("SELECT * FROM read_parquet('s3://bucket/x.parquet')", "read_parquet() is not allowed"),
    ("SELECT * FROM sqlite_scan('/tmp/x.db', 't')", "sqlite_scan() is not allowed"),
    ("SELECT * FROM postgres_scan('host=localhost', 'public', 't')", "postgres_scan() is not allowed"),
    ("SELECT * FROM read_xlsx('/tmp/x.xlsx')", "read_xlsx() is not allowed"),
    ("SELECT * FROM query('SELECT 1')", "query() is not allowed"),
    ("SELECT * FROM query_table('events')", "query_table() is not allowed"),
    ("SELECT * FROM duckdb_secrets()", "duckdb_secrets() is not allowed"),
    ("SELECT * FROM which_secret('s3://x', 's3')", "which_secret() is not allowed"),
    ("SELECT * FROM duckdb_extensions()", "duckdb_extensions() is not allowed"),
    ('SELECT * FROM "read_csv"(\'/etc/passwd\')', "read_csv() is not allowed"),
    ("SELECT * FROM READ_CSV('/etc/passwd')", "read_csv() is not allowed"),
    # replacement scans: a file or URL named where a table goes
    ("SELECT * FROM '/etc/passwd'", "is a file or URL, not a view"),
    ("FROM 'data.csv'", "is a file or URL, not a view"),
    ('SELECT * FROM "data.csv"', "is a file or URL, not a view"),
    ("SELECT * FROM 'data.parquet'", "is a file or URL, not a view"),
    ("SELECT * FROM 'logs.json'", "is a file or URL, not a view"),
    ("SELECT * FROM 'data.csv.gz'", "is a file or URL, not a view"),
    ("SELECT * FROM 'https://example.com/data.csv'", "is a file or URL, not a view"),
    ("SELECT * FROM 's3://bucket/x.parquet'", "is a file or URL, not a view"),
    ("SELECT * FROM '../traj-store.json'", "is a file or URL, not a view"),
    ("SELECT * FROM data.csv", "file system operations are disabled"),
    # hidden in CTEs, subqueries, joins, set operations
    ("WITH x AS (SELECT * FROM read_csv('/etc/passwd')) SELECT * FROM x", "read_csv() is not allowed"),
    ("WITH x AS (FROM '/etc/passwd') SELECT * FROM x", "is a file or URL"),
    ("WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n FROM read_text('/etc/passwd')) SELECT * FROM t",
     "read_text() is not allowed"),
    ("SELECT (SELECT count(*) FROM read_blob('/etc/passwd'))", "read_blob() is not allowed"),
    ("SELECT * FROM events WHERE EXISTS (FROM read_text('/etc/passwd'))", "read_text() is not allowed"),
    ("SELECT * FROM events WHERE run_id IN (SELECT content FROM read_text('/etc/passwd'))", "read_text() is not allowed"),
    ("SELECT * FROM (VALUES (1)) t(x), LATERAL read_csv('/etc/passwd')", "read_csv() is not allowed"),
    ("SELECT * FROM range(1) r JOIN read_text('/etc/passwd') ON true", "read_text() is not allowed"),
    ("SELECT 1 UNION ALL SELECT * FROM read_text('/etc/passwd')", "read_text() is not allowed"),
    ("SELECT * FROM unnest((SELECT list(content) FROM read_text('/etc/passwd')))", "read_text() is not allowed"),
    ("SELECT run_id FROM events ORDER BY (SELECT count(*) FROM glob('/*'))", "glob() is not allowed"),
    ("SELECT run_id FROM events QUALIFY (SELECT count(*) FROM glob('/*')) > 0", "glob() is not allowed"),
    ("SUMMARIZE SELECT * FROM read_csv('/etc/passwd')", "read_csv() is not allowed"),
    ("FROM events SELECT * WHERE text = (FROM read_text('/etc/passwd') SELECT content)", "read_text() is not allowed"),
]


def pooled(lines: list[str]) -> list[str]:
    """The runs with their pool (tune) named in run_started: a store whose runs name none makes
    every query look their tasks' pools up in the bundled suites (trajectory/query/sql.py
    events_sql), which costs each `traj query` worker about a second of importing suites; the
    sandbox in front of the views is the same either way."""
    out = []
    for text in lines:
        e = json.loads(text)
        if e["kind"] == "run_started":
            e["split"] = "tune"
        out.append(json.dumps(e, ensure_ascii=False))
    return out


@pytest.fixture(scope="module")
def filled(tmp_path_factory) -> Store:
    store = Store(tmp_path_factory.mktemp("sandbox") / "store")
    ingest_bytes(store, jsonl(pooled(example_run("r1") + example_run("r2"))), "a")
    return store


@pytest.mark.parametrize(("sql", "refusal"), ESCAPES, ids=[s for s, _ in ESCAPES])
def test_each_attempt_is_refused_with_one_line(filled: Store, sql: str, refusal: str) -> None:
    with Views(filled) as v, pytest.raises(QueryError) as info:
        v.user_query(sql)
    message = str(info.value)
    assert "\n" not in message and refusal in message, message


def test_traj_query_lists_every_attempt_and_its_refusal(filled: Store, monkeypatch, tmp_path) -> None:
    """The same list through the command: exit 1 and exactly one line each; nothing written."""
    monkeypatch.chdir(tmp_path)  # relative file names would resolve here
    listing = []
    for sql, refusal in ESCAPES:
        r = invoke(["query", sql, "--store", str(filled.loc)])
        assert r.exit_code == 1 and isinstance(r.exception, SystemExit), (sql, r.output)
        lines = r.output.splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: ") and refusal in lines[0], (sql, r.output)
        listing.append(f"{sql!r} -> {lines[0]}")
    assert list(tmp_path.iterdir()) == []
    assert not any(p.exists() for p in map(__import__("pathlib").Path, ("/tmp/traj-escape.csv", "/tmp/traj-escape-db")))
    RELIABILITY_FIGURES.append(f"sandbox: {len(listing)} escape attempts through `traj query`, every one refused in one line")


ALLOWED = [
    ("SELECT count(*) AS n FROM events", [{"n": 10}]),
    ("FROM events SELECT count(DISTINCT run_id) AS n", [{"n": 2}]),
    ("WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 3) SELECT sum(n) AS s FROM t", [{"s": 6}]),
    ("SELECT sum(range) AS s FROM range(4)", [{"s": 6}]),
    ("SELECT count(*) AS n FROM information_schema.columns WHERE table_name = 'runs'", None),
    ("SELECT run_id FROM runs WHERE run_id = 'r1' -- ; DROP VIEW events", [{"run_id": "r1"}]),
    ("SELECT 'read_csv(''/etc/passwd'')' AS text", [{"text": "read_csv('/etc/passwd')"}]),
]


@pytest.mark.parametrize(("sql", "rows"), ALLOWED, ids=[s for s, _ in ALLOWED])
def test_ordinary_queries_still_work(filled: Store, sql: str, rows) -> None:
    with Views(filled) as v:
        got = v.user_query(sql).to_pylist()
    if rows is not None:
        assert got == rows


def test_the_second_wall_holds_without_the_first(filled: Store, tmp_path) -> None:
    """Even SQL that skipped the statement check runs on a connection that cannot reach out."""
    secret = tmp_path / "secret.csv"
    secret.write_text("a\n1\n")
    with Views(filled) as v:
        for sql in (f"SELECT * FROM read_csv('{secret}')", f"SELECT * FROM '{secret}'",
                    f"SELECT * FROM read_json('{filled.loc}/traj-store.json')",
                    "SELECT * FROM read_csv('https://example.com/x.csv')",
                    f"COPY (SELECT 1) TO '{tmp_path}/out.csv'"):
            with pytest.raises(Exception, match="disabled|not allowed|Permission"):
                v.con.execute(sql)
        for sql in ("SET enable_external_access = true", "SET allowed_directories = ['/']",
                    "SET lock_configuration = false", "RESET enable_external_access"):
            with pytest.raises(Exception, match="locked"):
                v.con.execute(sql)
        with pytest.raises(Exception, match="disabled|autoload|not loaded|not allowed|Permission"):
            v.con.execute("LOAD httpfs")
        # The store's own tables stay readable: the views read them.
        assert v.con.execute("SELECT count(*) FROM events").fetchone() == (10,)
    assert not (tmp_path / "out.csv").exists()


def test_the_sandbox_holds_on_an_s3_store(s3_store_uri, tmp_path, monkeypatch) -> None:
    """On object storage the tables are Arrow datasets handed to DuckDB: external access stays
    off and no extension is loaded, so SQL reaches neither the bucket (credentials are in the
    environment) nor anything else, while the store's tables stay readable."""
    store = Store(s3_store_uri)
    ingest_bytes(store, jsonl(example_run("r1") + example_run("r2")), "a")
    in_bucket = store.files("events")[0]
    assert in_bucket.startswith("s3://")
    with Views(store) as v:
        assert v.con.execute("SELECT current_setting('enable_external_access')").fetchone() == (False,)
        # No extension that reaches object storage is loaded: httpfs would add the s3_* settings,
        # delta its delta_scan (duckdb_extensions() itself is off: it lists a directory).
        assert v.con.execute("SELECT count(*) FROM duckdb_settings() WHERE name LIKE 's3_%'").fetchone() == (0,)
        assert v.con.execute("SELECT count(*) FROM duckdb_functions() WHERE function_name = 'delta_scan'").fetchone() == (0,)
        for sql in (f"SELECT * FROM read_parquet('{in_bucket}')", f"SELECT * FROM '{in_bucket}'",
                    f"SELECT * FROM delta_scan('{s3_store_uri}/events')", "LOAD httpfs"):
            with pytest.raises(Exception, match="disabled|autoload|not loaded|not allowed|Permission|does not exist"):
                v.con.execute(sql)
        for sql, refusal in ESCAPES:
            with pytest.raises(QueryError, match=refusal.replace("(", r"\(").replace(")", r"\)")):
                v.user_query(sql)
        assert v.user_query("SELECT count(DISTINCT run_id) AS n FROM events").to_pylist() == [{"n": 2}]
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(app, ["query", f"SELECT * FROM read_parquet('{in_bucket}')", "--store", s3_store_uri])
    assert r.exit_code == 1 and len(r.output.splitlines()) == 1 and "read_parquet() is not allowed" in r.output, r.output
    r = CliRunner().invoke(app, ["query", "SELECT count(*) AS n FROM events", "--store", s3_store_uri, "--format", "csv"])
    assert r.exit_code == 0 and r.output.split() == ["n", "10"], r.output
    assert list(tmp_path.iterdir()) == []
