"""One declaration per event kind: the Arrow schema, ingest's typed columns, the batch replay's
aggregates, the runs view, the CLI summary and docs/events.md all follow it."""

from __future__ import annotations

import importlib.util
import sys
import uuid
from pathlib import Path

import duckdb
import pyarrow as pa

from replay.batch import ALL, batch_sql
from trajectory import events as ev
from trajectory.columns import declaration
from trajectory.columns import Declaration, markdown
from trajectory.ingest.plain import Parsed, rows, run_info
from trajectory.query.sql import RUNS_SQL, runs_sql
from trajectory.store.delta import EVENTS_SCHEMA
from trajectory.store.tables import events_schema

ROOT = Path(__file__).resolve().parents[2]
EVENTS = ROOT / "trajectory" / "events.py"


def copy_of_the_declaration(tmp_path: Path, edit) -> object:  # noqa: ANN001
    """The event declaration from a copy of trajectory/events.py, edited, under a new name."""
    text = edit(EVENTS.read_text(encoding="utf-8"))
    path = tmp_path / "events_copy.py"
    path.write_text(text.replace("from .columns import Declaration", "from trajectory.columns import Declaration"),
                    encoding="utf-8")
    name = f"events_copy_{uuid.uuid4().hex[:8]}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def add_fields(text: str) -> str:
    # A figure in a small object, and a plain field with a column of its own.
    usage = '''    cached_tokens: Annotated[
        Count | UnsetType,'''
    text = text.replace(usage, '''    reasoning_tokens: Annotated[
        Count | UnsetType, doc("Tokens spent thinking.", column="reasoning_tokens", figure=True, default=0)
    ] = UNSET
''' + usage, 1)
    step = '''    thought: Annotated[str | None, doc("The agent's stated reasoning for the step.")] = None'''
    assert step in text
    return text.replace(step, step + '''
    tool: Annotated[str | None, doc("The tool the step called.", column="tool", show=True)] = None''', 1)


def test_the_real_declaration_derives_the_stored_schema() -> None:
    assert EVENTS_SCHEMA == events_schema(declaration())
    assert RUNS_SQL == runs_sql(declaration())
    kinds_with_text = {k for k, _ in declaration().column("text").sources}
    assert kinds_with_text == {"screen_read", "answer_given", "takeover_requested"}


def test_an_added_field_flows_to_every_derived_place(tmp_path) -> None:
    copy = copy_of_the_declaration(tmp_path, add_fields)
    decl = Declaration(copy.EVENT_TYPES)
    # The Arrow schema of the events table.
    schema = events_schema(decl)
    assert schema.field("tool").type == pa.string() and schema.field("reasoning_tokens").type == pa.int64()
    # The typed columns ingest builds.
    lines = [
        b'{"run_id":"r","seq":0,"ts":0,"kind":"run_started","suite":"s","task":"t"}',
        b'{"run_id":"r","seq":1,"ts":1,"kind":"step_taken","action":"call_tool","tool":"grep",'
        b'"usage":{"input_tokens":5,"reasoning_tokens":7}}',
        b'{"run_id":"r","seq":2,"ts":2,"kind":"step_taken","action":"tap","usage":{"input_tokens":1}}',
        b'{"run_id":"r","seq":3,"ts":3,"kind":"answer_given","text":"x"}',
        b'{"run_id":"r","seq":4,"ts":4,"kind":"run_finished","outcome":"succeeded"}',
    ]
    events = [copy.decode(x) for x in lines]
    info = run_info(events[0], None, decl)
    parsed = [(Parsed(i, e, copy.encode(e), str(i)), info) for i, e in enumerate(events)]
    table = rows(parsed, "c1", decl)
    assert table.schema == schema
    assert table.column("tool").to_pylist() == [None, "grep", None, None, None]
    assert table.column("reasoning_tokens").to_pylist() == [None, 7, 0, None, None]
    # The runs view and the batch replay's aggregates, over those rows.
    con = duckdb.connect()
    con.register("events", table)
    run = con.sql(runs_sql(decl)).to_arrow_table().to_pylist()[0]
    assert run["reasoning_tokens"] == 7 and run["input_tokens"] == 6 and run["steps"] == 2
    batch = con.sql(batch_sql(ALL, decl=decl)).to_arrow_table().to_pylist()[0]
    assert batch["reasoning_tokens"] == 7
    # The one-line summary traj show prints.
    assert decl.summary(events[1]) == "step_taken call_tool tool=grep"
    # The doc's tables.
    assert "`tool`" in markdown(decl, copy.Event) and "`reasoning_tokens`" in markdown(decl, copy.Event)


def test_docs_events_md_has_the_declarations_tables() -> None:
    text = (ROOT / "docs" / "events.md").read_text(encoding="utf-8")
    assert markdown(declaration(), ev.Event) in text, "run: python -m trajectory.columns docs/events.md"
