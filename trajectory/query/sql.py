"""SQL over the store: views ``events``, ``runs``, ``verdicts``, ``verdict_history``, ``passes``,
``overrides``, ``pass_rates``, ``superseded``, and a sandbox that lets nothing out.

The sandbox has two walls. First, the statement is parsed by DuckDB itself: exactly one
statement, of type SELECT, whose table functions are all on a short allow-list (no
``read_csv``, ``read_parquet``, ``glob`` ...). Second, the connection is locked before the
user's SQL runs: external access off (no files, no URLs, no extensions) except the store's own
table folders, and the configuration frozen so that SQL cannot turn it back on.
"""

from __future__ import annotations

import decimal
import json
import os
from collections.abc import Iterator, Sequence
from typing import Any

import duckdb
import pyarrow as pa

from replay.batch import sql_str

from trajectory.columns import Declaration, declaration
from trajectory.errors import QueryError
from trajectory.redact import redact_text
from trajectory.query.limits import QueryLimits, apply_memory_limit, run_limited
from trajectory.query.rates import PASS_RATES_SQL
from trajectory.query.revisions import KIND as SUPERSEDED_KIND, SUPERSEDED_SQL
from trajectory.store.delta import TABLES, Store, now_utc
from trajectory.runtime.people import current_user
from trajectory.termsafe import json_safe, term_safe

SPLITS = ("tune", "holdout")

# Table functions a query may use: they compute, they do not read anything.
ALLOWED_TABLE_FUNCTIONS = frozenset({"range", "generate_series", "unnest"})
# Scalar functions that read the environment or files even though they are not table functions.
DENIED_FUNCTIONS = frozenset({"getenv", "read_text", "read_blob", "current_setting"})
# Catalog views that show what current_setting() would (directories of the machine, the allowed
# folders): the same refusal, whatever schema they are named with.
DENIED_TABLES = frozenset({"pg_settings", "duckdb_settings"})
# DuckDB's own catalog views a query may read: names and types, nothing else. Every other
# catalog view is refused: some show the SQL of the views behind the documented ones, which
# names the store's files by absolute path (duckdb_views, information_schema.views, pg_views,
# sqlite_master, ...), and a new DuckDB may add more.
ALLOWED_CATALOG = frozenset(
    {
        ("information_schema", "tables"),
        ("information_schema", "columns"),
        ("information_schema", "schemata"),
        ("main", "duckdb_columns"),
        ("main", "duckdb_schemas"),
        ("main", "duckdb_types"),
    }
)
# Schemas searched for an unqualified name.
SEARCH_PATH = ("main", "pg_catalog")

def runs_sql(decl: Declaration, table: str = "events") -> str:
    """The ``runs`` view: one row per run, its columns derived from the event declaration (run
    columns, run_finished fields, kinds counted per run, figures summed), plus a few measures."""
    cols = ["run_id"]
    for c in decl.run_columns:
        value = f"any_value({c.name})"
        if c.name == "split":
            value = f"coalesce({value}, 'tune')"  # a run that does not say is in the tune pool
        cols.append(f"{value} AS {c.run}")
    cols += ["min(ts) AS started_at", "max(ts) FILTER (WHERE kind = 'run_finished') AS ended_at"]
    for name, column, path in decl.finish_columns:
        source = column or f"json_extract_string(data, '$.{'.'.join(path or ())}')"
        cols.append(f"any_value({source}) FILTER (WHERE kind = 'run_finished') AS {name}")
    cols += [f"count(*) FILTER (WHERE kind = '{kind}') AS {name}" for name, kind in decl.tallies]
    cols += ["count(*) AS events", "max(seq) AS last_seq"]
    names = [c.name for c in decl.figures]
    # A sum of BIGINT is a HUGEINT, which reaches Python as a Decimal and JSON as a string:
    # counts stay BIGINT (numbers in every output).
    cols += [f"CAST(coalesce(sum({c.name}), 0) AS {'BIGINT' if c.type == 'int64' else 'DOUBLE'}) AS {c.name}"
             for c in decl.figures]
    if "input_tokens" in names and "output_tokens" in names:
        cols.append("CAST(coalesce(sum(input_tokens), 0) + coalesce(sum(output_tokens), 0) AS BIGINT) AS tokens")
    cols.append("epoch_ms(max(ts)) - epoch_ms(min(ts)) AS duration_ms")
    return "SELECT\n    " + ",\n    ".join(cols) + f"\nFROM {table}\nGROUP BY run_id\n"


RUNS_SQL = runs_sql(declaration())

# A verdict is in its run's pool (resolved at ingest, see run_split), whatever split the verdict
# row itself carries: an older traj wrote the replayed state's, NULL for a run that did not say.
HISTORY_SQL = """
SELECT v.pass_id, v.run_id, v.suite, v.task, v.batch, coalesce(s.split, v.split, 'tune') AS split,
       v.outcome, v.score, v.reason, v.checks, v.judge_version, v.judged_at, v.details,
       p.kind AS pass_kind
FROM _verdicts v JOIN _passes p USING (pass_id) LEFT JOIN _run_split s USING (run_id)
"""
OVERRIDES_SQL = """
SELECT o.* FROM _overrides o LEFT JOIN _run_split s USING (run_id)
"""


# The current verdict of every run, as a person means it: a human override (the latest one
# for the run) wins over the automatic verdict (the latest pass's), and the row says who
# decided. ``auto_*`` keep the automatic verdict; ``settled`` says a later automatic verdict
# agrees with the human (the rule has caught up); ``disagrees_with_person`` says the latest
# automatic verdict is pass where the person's is fail, or the other way (trajectory/query/people.py
# holds the same rule for a pass's new verdicts). A run overridden before it was ever judged
# is there too, its batch and split read from its events.
CURRENT_SQL = """
WITH a AS (
    SELECT * FROM _history_all
    QUALIFY row_number() OVER (PARTITION BY run_id ORDER BY judged_at DESC, pass_id DESC) = 1
), o AS (
    SELECT * FROM _overrides
    QUALIFY row_number() OVER (PARTITION BY run_id ORDER BY "at" DESC, override_id DESC) = 1
), lone AS (
    SELECT run_id, any_value(batch) AS batch, coalesce(any_value(split), 'tune') AS split FROM _events
    WHERE run_id IN (SELECT run_id FROM o EXCEPT SELECT run_id FROM a) GROUP BY run_id
)
SELECT a.pass_id, coalesce(a.run_id, o.run_id) AS run_id, coalesce(a.suite, o.suite) AS suite,
       coalesce(a.task, o.task) AS task, coalesce(a.batch, lone.batch) AS batch,
       coalesce(a.split, lone.split, 'tune') AS split,
       coalesce(o.to_outcome, a.outcome) AS outcome,
       CASE WHEN o.run_id IS NULL THEN a.score WHEN o.to_outcome = 'pass' THEN 1.0 ELSE 0.0 END AS score,
       CASE WHEN o.run_id IS NULL THEN a.reason
            ELSE 'decided by ' || o.by || ': "' || o.evidence || '"' END AS reason,
       a.checks, a.judge_version, a.judged_at, a.details, a.pass_kind,
       CASE WHEN o.run_id IS NULL THEN 'judge' ELSE 'human' END AS decided_by,
       a.outcome AS auto_outcome, a.score AS auto_score, a.reason AS auto_reason,
       o.override_id, o.by AS override_by, o."at" AS override_at, o.evidence AS override_evidence,
       o.category AS override_category,
       coalesce(o.run_id IS NOT NULL AND a.judged_at > o."at" AND a.outcome = o.to_outcome, false) AS settled,
       coalesce(o.run_id IS NOT NULL AND a.outcome IN ('pass', 'fail') AND a.outcome <> o.to_outcome, false)
           AS disagrees_with_person
FROM a FULL OUTER JOIN o ON a.run_id = o.run_id
LEFT JOIN lone ON lone.run_id = o.run_id
"""


def events_sql(con: duckdb.DuckDBPyConnection, store: Store) -> str:
    """The ``_events_pooled`` view: every event of every pool, with its run's pool. Ingest
    stores the pool (the run's own ``split``, else its task's declared one); runs ingested
    before that have none stored and get it the same way here, from the suites the store knows."""
    unresolved = con.execute(
        "SELECT DISTINCT suite, task FROM _events WHERE seq = 0 AND split IS NULL AND suite IS NOT NULL"
    ).fetchall()
    if not unresolved:
        return "CREATE VIEW _events_pooled AS SELECT * FROM _events"
    from trajectory.catalog.pools import Pools  # the tasks' pools, read as data

    split_of = Pools(store).split_of
    rows = [(suite, task, split_of(suite, task or "")) for suite, task in unresolved]
    declared = [r for r in rows if r[2] is not None]
    if not declared:
        return "CREATE VIEW _events_pooled AS SELECT * FROM _events"
    con.register("_task_split", pa.table({k: list(v) for k, v in zip(("suite", "task", "split"), zip(*declared))}))
    return (
        "CREATE VIEW _events_pooled AS SELECT e.* REPLACE (coalesce(e.split, t.split) AS split) FROM _events e "
        "LEFT JOIN _task_split t ON e.split IS NULL AND e.suite = t.suite AND e.task = t.task"
    )


def _empty(schema: pa.Schema) -> pa.Table:
    return pa.table({f.name: pa.array([], f.type) for f in schema}, schema=schema)


class Views:
    """A DuckDB connection with the store's views defined, optionally sandboxed."""

    def __init__(
        self,
        store: Store,
        *,
        split: str | None = "tune",
        version: int | None = None,
        sandbox: bool = True,
        threads: int = 2,
        limits: QueryLimits | None = None,
    ):
        if split is not None and split not in SPLITS:
            raise QueryError(f"--split must be one of {', '.join(SPLITS)}, got {split!r}")
        self.store = store
        self.split = split
        self.limits = limits
        self.con = duckdb.connect(":memory:")
        self.con.execute(f"SET threads TO {int(threads)}")
        # A long query must not draw DuckDB's progress bar over traj's own output (or a pipe).
        self.con.execute("SET enable_progress_bar = false")
        self.catalog = catalog_views(self.con)
        folders = []
        for name, schema in TABLES.items():
            files = store.files(name, version if name == "events" else None)
            raw = f"_{name}"
            if files and not store.backend.local:
                # Object storage: the table as an Arrow dataset read through delta-rs, so that
                # DuckDB needs no extension (httpfs) and no external access.
                self.con.register(raw, store.dataset(name, version if name == "events" else None))
            elif files:
                self.con.execute(
                    f"CREATE VIEW {raw} AS SELECT * FROM read_parquet($files, union_by_name=true)".replace(
                        "$files", "[" + ", ".join(sql_str(f) for f in files) + "]"
                    )
                )
                folders.append(store.table_uri(name))
            else:
                self.con.register(f"{raw}_empty", _empty(schema))
                self.con.execute(f"CREATE VIEW {raw} AS SELECT * FROM {raw}_empty")
        pool = "" if split is None else f" WHERE split = {sql_str(split)}"
        self.con.execute(events_sql(self.con, store))
        self.con.execute(
            "CREATE VIEW _run_split AS SELECT run_id, coalesce(split, 'tune') AS split FROM _events_pooled WHERE seq = 0"
        )
        # The one place that says which runs are current: a run superseded by a later
        # revision (trajectory/query/revisions.py) stays in history (_events_pooled,
        # _history_all, _current_any, verdict_history) and is left out of everything else.
        self.con.execute(f"CREATE VIEW _superseded AS {SUPERSEDED_SQL}")
        revised = self.con.execute(f"SELECT count(*) FROM _meta WHERE kind = {sql_str(SUPERSEDED_KIND)}").fetchone()
        current = " WHERE run_id NOT IN (SELECT run_id FROM _superseded)" if revised and revised[0] else ""
        self.con.execute(f"CREATE VIEW _events_current AS SELECT * FROM _events_pooled{current}")
        # ``events`` holds the pool's runs only, as runs and verdicts do: a run's pool is its
        # run_started's (a run with none reads as tune, as the runs view has it).
        if split is None:
            self.con.execute("CREATE VIEW events AS SELECT * FROM _events_current")
        elif split == "tune":
            self.con.execute("CREATE VIEW events AS SELECT * FROM _events_current WHERE run_id NOT IN "
                             "(SELECT run_id FROM _run_split WHERE split <> 'tune')")
        else:
            self.con.execute("CREATE VIEW events AS SELECT * FROM _events_current WHERE run_id IN "
                             f"(SELECT run_id FROM _run_split WHERE split = {sql_str(split)})")
        self.con.execute(f"CREATE VIEW _runs_all AS {RUNS_SQL}")
        self.con.execute(f"CREATE VIEW runs AS SELECT * FROM _runs_all{pool}")
        self.con.execute(f"CREATE VIEW _history_all AS {HISTORY_SQL}")
        self.con.execute(f"CREATE VIEW verdict_history AS SELECT * FROM _history_all{pool}")
        self.con.execute(f"CREATE VIEW _current_any AS {CURRENT_SQL}")
        self.con.execute(f"CREATE VIEW _current_all AS SELECT * FROM _current_any{current}")
        self.con.execute(f"CREATE VIEW verdicts AS SELECT * FROM _current_all{pool}")
        self.con.execute("CREATE VIEW superseded AS SELECT x.* FROM _superseded x JOIN _run_split s USING (run_id)"
                         + ("" if split is None else f" WHERE s.split = {sql_str(split)}"))
        self.con.execute(f"CREATE VIEW pass_rates AS {PASS_RATES_SQL}")  # trajectory/rates.py
        self.con.execute("CREATE VIEW passes AS SELECT * FROM _passes")
        override_pool = "" if split is None else f" WHERE coalesce(s.split, 'tune') = {sql_str(split)}"
        self.con.execute(f"CREATE VIEW overrides AS {OVERRIDES_SQL}{override_pool}")
        if sandbox:
            if limits is not None:  # before external access is off: that also freezes temp_directory
                apply_memory_limit(self.con, limits)
            allowed = "[" + ", ".join(sql_str(f + "/") for f in folders) + "]"
            self.con.execute(f"SET allowed_directories = {allowed}")
            self.con.execute("SET enable_external_access = false")
            self.con.execute("SET autoload_known_extensions = false")
            self.con.execute("SET autoinstall_known_extensions = false")
            self.con.execute("SET lock_configuration = true")

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> Views:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def arrow(self, sql: str, params: list[Any] | None = None) -> pa.Table:
        return self.con.sql(sql, params=params or None).to_arrow_table()

    def checked(self, sql: str) -> str:
        """A person's SQL checked by the sandbox (refused with one line), and the SQL to run for
        it: the same, except that catalog views listing tables by name leave the internal ones out."""
        return check_sql(self.con, sql, self.catalog)

    def user_query(self, sql: str) -> pa.Table:
        """A person's SQL: checked, then run on the locked connection, in this process (the CLI
        and the viewer run it in a worker that is stopped at the limits: trajectory.query.worker.answer)."""
        shown = self.checked(sql)
        if self.limits is not None:
            try:
                return run_limited(self.con, shown, self.limits)
            except QueryError as exc:  # DuckDB's first line: the table it does not know
                raise QueryError(unknown_table(str(exc)) or scrub_paths(str(exc), self.store)) from None
        try:
            return self.con.sql(shown).to_arrow_table()
        except duckdb.Error as exc:
            raise QueryError(unknown_table(str(exc)) or scrub_paths(_one_line(exc), self.store)) from exc


def scrub_paths(text: str, store: Any) -> str:
    """``text`` with the store's location (as given and as an absolute path) shown as <store>:
    an error message from a file of the store names it by absolute path."""
    loc = str(getattr(store, "loc", store))
    roots = {loc}
    if "://" not in loc:
        roots |= {os.path.abspath(loc), os.path.realpath(loc)}
    for root in sorted((r.rstrip("/") for r in roots if len(r.rstrip("/")) > 1), key=len, reverse=True):
        text = text.replace(root, "<store>")
    return text


#: The views a person queries (the ones starting with _ are internal).
VIEWS = ("events", "runs", "verdicts", "verdict_history", "passes", "overrides", "pass_rates", "superseded")


def unknown_table(message: str) -> str | None:
    """"no table run; did you mean runs?" for DuckDB's error about a table it does not know
    (its own suggestion may name an internal view)."""
    import difflib
    import re

    m = re.search(r"Table with name (\S+) does not exist", message)
    if m is None:
        return None
    name = m.group(1).strip('"')
    near = difflib.get_close_matches(name.lower(), VIEWS, n=1, cutoff=0.5)
    if near:
        return f"no table {name}; did you mean {near[0]}?"
    return f"no table {name}; the tables are {', '.join(VIEWS)}"


def run_splits(views: Views, run_ids: Sequence[str]) -> dict[str, str]:
    """run_id -> its pool (tune or holdout), as every view of the store sees it."""
    if not run_ids:
        return {}
    rows = views.con.execute(
        "SELECT run_id, split FROM _run_split WHERE run_id BETWEEN ? AND ? AND list_contains(?, run_id)",
        [min(run_ids), max(run_ids), list(run_ids)],
    ).fetchall()
    return dict(rows)


def run_filter(
    *,
    suite: str | None = None,
    batch: str | None = None,
    run_ids: Sequence[str] | None = None,
    alias: str = "",
) -> tuple[str, list[Any]]:
    """The condition and parameters that select runs by suite, batch and ids (every command
    that takes ``--suite``, ``--batch`` or ``--run`` filters through this)."""
    col = f"{alias}." if alias else ""
    conds, params = ["TRUE"], []
    if suite:
        conds.append(f"{col}suite = ?")
        params.append(suite)
    if batch:
        conds.append(f"{col}batch = ?")
        params.append(batch)
    if run_ids:
        conds.append(f"list_contains(?, {col}run_id)")
        params.append(list(run_ids))
    return " AND ".join(conds), params


def _one_line(exc: Exception) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def _walk(node: Any) -> Iterator[dict[str, Any]]:
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from _walk(value)


def catalog_views(con: duckdb.DuckDBPyConnection) -> frozenset[tuple[str, str]]:
    """DuckDB's own catalog views as (schema, name): a query may read only ALLOWED_CATALOG."""
    rows = con.execute("SELECT schema_name, view_name FROM duckdb_views() WHERE internal").fetchall()
    return frozenset((s.lower(), n.lower()) for s, n in rows)


def _catalog_view(schema: str, name: str, catalog: frozenset[tuple[str, str]]) -> tuple[str, str] | None:
    """The catalog view a table reference names, or None for one of ours (or a CTE)."""
    schema, name = schema.lower(), name.lower()
    for s in (schema,) if schema else SEARCH_PATH:
        if (s, name) in catalog:
            return s, name
    return None


# Catalog views that list tables by name: a query sees them without the internal ones.
NAMED_CATALOG = frozenset({("information_schema", "tables"), ("information_schema", "columns"),
                           ("main", "duckdb_columns")})


def check_sql(
    con: duckdb.DuckDBPyConnection, sql: str, system_views: frozenset[tuple[str, str]] | None = None
) -> str:
    """Refuse anything but one read-only SELECT over the views; the SQL to run for it."""
    if system_views is None:
        system_views = catalog_views(con)
    try:
        statements = con.extract_statements(sql)
    except duckdb.Error as exc:
        raise QueryError(_one_line(exc)) from exc
    if len(statements) != 1:
        raise QueryError(f"refused: exactly one statement is allowed, got {len(statements)}")
    kind = statements[0].type
    if kind != duckdb.StatementType.SELECT:
        raise QueryError(f"refused: only SELECT queries are allowed, got {kind.name}")
    tree = _tree(con, sql)
    denied = DENIED_FUNCTIONS | catalog_macros(con)
    named: list[dict[str, Any]] = []
    for node in _walk(tree):
        if node.get("type") == "TABLE_FUNCTION":
            fn = (node.get("function") or {}).get("function_name", "")
            if fn.lower() not in ALLOWED_TABLE_FUNCTIONS:
                raise QueryError(f"refused: table function {fn}() is not allowed in queries")
        if node.get("class") == "FUNCTION" and str(node.get("function_name", "")).lower() in denied:
            raise QueryError(f"refused: function {node['function_name']}() is not allowed in queries "
                             "(it reads the connection's settings or catalog)")
        if node.get("type") == "SHOW_REF" and not node.get("query"):
            raise QueryError(f"refused: SHOW lists the connection's internals; the tables are {', '.join(VIEWS)} "
                             "(DESCRIBE events lists a view's columns)")
        if node.get("type") == "BASE_TABLE":
            schema = str(node.get("schema_name") or "")
            name = str(node.get("table_name") or "")
            if "/" in name or "." in name or name.startswith("'") or "://" in name:
                raise QueryError(f"refused: {name!r} is a file or URL, not a view")
            if name.startswith("_"):
                # The unfiltered views behind runs/verdicts (all pools) are not for queries:
                # holdout results are shown only with --split holdout, which is recorded.
                raise QueryError(f"refused: {name} is internal; query the documented views")
            if name.lower() in DENIED_TABLES:
                raise QueryError(f"refused: {name} shows the connection's settings")
            view = _catalog_view(schema, name, system_views)
            if view is not None and view not in ALLOWED_CATALOG:
                raise QueryError(
                    f"refused: the catalog view {view[0]}.{view[1]} is not for queries (catalog views show "
                    "the store's file paths); information_schema.tables and .columns list the views"
                )
            if view in NAMED_CATALOG:
                named.append(node)
    if not named:
        return sql
    for node in named:  # each becomes a subquery that leaves the internal tables out
        schema, name = _catalog_view(str(node.get("schema_name") or ""), str(node["table_name"]), system_views)
        inner = _tree(con, f"SELECT * FROM (SELECT * FROM {schema}.{name} "
                           "WHERE NOT starts_with(table_name, '_')) AS x")["statements"][0]["node"]["from_table"]
        inner["alias"] = node.get("alias") or name
        inner["column_name_alias"] = node.get("column_name_alias", [])
        node.clear()
        node.update(inner)
    try:
        return str(con.execute("SELECT json_deserialize_sql(?)", [json.dumps(tree)]).fetchall()[0][0])
    except duckdb.Error as exc:
        raise QueryError(_one_line(exc)) from exc


def _tree(con: duckdb.DuckDBPyConnection, sql: str) -> dict[str, Any]:
    try:
        tree = json.loads(con.execute("SELECT json_serialize_sql(?)", [sql]).fetchall()[0][0])
    except duckdb.Error as exc:
        raise QueryError(_one_line(exc)) from exc
    if tree.get("error"):
        raise QueryError(f"refused: {tree.get('error_message', 'cannot parse the query')}")
    return tree


_MACROS: dict[str, frozenset[str]] = {}


def catalog_macros(con: duckdb.DuckDBPyConnection) -> frozenset[str]:
    """DuckDB's built-in macros that read the catalog or the settings (``pg_get_viewdef`` shows
    a view's SQL, with the store's paths), found from their definitions rather than listed: a
    macro is refused when it calls a table function, reads a catalog view, or calls a refused
    function (a macro calling such a macro included). Once per process."""
    if "denied" in _MACROS:
        return _MACROS["denied"]
    rows = con.execute(
        "SELECT DISTINCT lower(function_name), macro_definition FROM duckdb_functions() "
        "WHERE function_type = 'macro' AND macro_definition IS NOT NULL"
    ).fetchall()
    catalog = catalog_views(con)
    uses: dict[str, set[str]] = {}
    denied: set[str] = set()
    for name, body in rows:
        try:
            tree = json.loads(con.execute("SELECT json_serialize_sql(?)", ["SELECT " + body]).fetchall()[0][0])
        except duckdb.Error:
            denied.add(name)  # cannot be read: not for queries
            continue
        calls = uses.setdefault(name, set())
        for node in _walk(tree):
            if node.get("type") == "TABLE_FUNCTION" or (
                node.get("type") == "BASE_TABLE"
                and _catalog_view(str(node.get("schema_name") or ""), str(node.get("table_name") or ""), catalog)
            ):
                denied.add(name)
            if node.get("class") == "FUNCTION":
                calls.add(str(node.get("function_name", "")).lower())
    grew = True
    while grew:  # a macro that calls a refused function (or macro) is refused
        grew = False
        for name, calls in uses.items():
            if name not in denied and calls & (denied | DENIED_FUNCTIONS):
                denied.add(name)
                grew = True
    _MACROS["denied"] = frozenset(denied)
    return _MACROS["denied"]


def record_holdout_view(store: Store, command: str, detail: dict[str, Any] | None = None) -> None:
    """Every look at the holdout pool is itself recorded, for the reports to list."""
    by = current_user()
    row = {
        "kind": ["holdout_view"],
        "key": [redact_text(command)],
        "at": [now_utc()],
        "by": [by],
        "data": [redact_text(json.dumps(detail or {}, ensure_ascii=False))],
    }
    store.append("meta", pa.table(row))


def holdout_views(store: Store) -> list[dict[str, Any]]:
    if not store.has_table("meta"):
        return []
    return sorted(store.meta_rows(["holdout_view"]), key=lambda r: r["at"])


def format_table(table: pa.Table, fmt: str = "table") -> str:
    """Render a result for people (table) or pipes (csv, json, jsonl)."""
    rows = table.to_pylist()
    names = table.column_names
    if fmt == "json":
        return json_safe(json.dumps(rows, ensure_ascii=False, default=json_default))
    if fmt == "jsonl":
        return json_safe("\n".join(json.dumps(r, ensure_ascii=False, default=json_default) for r in rows))
    if fmt == "csv":
        from trajectory.text import csv_line

        return "\n".join([csv_line(names)] + [csv_line([csv_cell(r[n]) for n in names]) for r in rows])
    if fmt != "table":
        raise QueryError(f"unknown format {fmt!r} (table, csv, json, jsonl)")
    cells = [[_cell(r[n]) for n in names] for r in rows]
    widths = [max([_width(n)] + [_width(c[i]) for c in cells]) for i, n in enumerate(names)]
    lines = ["  ".join(_pad(n, w) for n, w in zip(names, widths)).rstrip()]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(_pad(c, w) for c, w in zip(row, widths)).rstrip() for row in cells]
    lines.append(f"({len(rows)} row{'s' if len(rows) != 1 else ''})")
    return "\n".join(lines)


def json_default(value: Any) -> Any:
    """The one fallback for values JSON has no type for (json.dumps ``default``, msgspec
    ``enc_hook``): sets as sorted lists, patterns as ``re:...``, times as ISO text."""
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=str)
    if isinstance(value, decimal.Decimal):
        # SQL sums come back as decimals: numbers in JSON, not strings.
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, tuple):
        return list(value)
    if hasattr(value, "pattern") and hasattr(value, "flags"):  # re.Pattern
        return f"re:{value.pattern}"
    if hasattr(value, "isoformat"):
        return value.isoformat()
    if isinstance(value, (bytes, bytearray)):
        return value.hex()
    return str(value)



def csv_cell(value: Any) -> str:
    """A value as a CSV cell: whole (not cut to a terminal's width), exact (floats as Python
    writes them: no digits lost), and never a formula a spreadsheet would evaluate."""
    from trajectory.text import spreadsheet_safe

    if value is None:
        return ""
    if isinstance(value, (dict, list)):
        return spreadsheet_safe(json.dumps(value, ensure_ascii=False, default=json_default))
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return spreadsheet_safe(str(value))


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, (dict, list)):
        text = json.dumps(value, ensure_ascii=False, default=json_default)
    elif hasattr(value, "isoformat"):
        text = value.isoformat()
    else:
        text = str(value)
    text = term_safe(text.replace("\n", " "))
    return text if len(text) <= 80 else text[:77] + "..."


def _width(text: str) -> int:
    import unicodedata

    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _pad(text: str, width: int) -> str:
    return text + " " * max(0, width - _width(text))
