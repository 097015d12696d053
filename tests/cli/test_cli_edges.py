"""Issue 14's rough edges: terminal control sequences in stored text are shown, not obeyed;
`traj override` takes only evidence that shows something."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from helpers import example_run, jsonl, line
from trajectory.cli.main import app
from trajectory.ingest.files import ingest_bytes
from trajectory.judging import SuiteResolver, judge_runs
from trajectory.store.delta import Store

runner = CliRunner()

# Retitle the window, clear the screen, an 8-bit CSI, a bell, a hyperlink, a bidi override.
HOSTILE = "\x1b]0;pwned\x07\x1b[2J\x1b[1;31mred\x9b31m\x1b]8;;http://evil/\x1b\\click\x1b]8;;\x1b\\\u202egnp.exe"
RAW = ("\x1b", "\x07", "\x9b", "\u202e")


@pytest.fixture
def hostile(store: Store) -> Store:
    lines = [
        line("evil", 0, "run_started", suite="example", task="current_temp", params={"city": "北京"}, mode="text",
             batch="b\x1b[5m", state={"apps": {}}),
        line("evil", 1, "screen_read", text=HOSTILE, app="weather"),
        line("evil", 2, "answer_given", text="20 " + HOSTILE),
        line("evil", 3, "run_finished", outcome="succeeded"),
    ]
    ingest_bytes(store, jsonl(lines), "evil.jsonl")
    judge_runs(store, SuiteResolver(store))
    return store


@pytest.mark.parametrize(
    "args",
    [
        ["show", "evil"],
        ["show", "evil", "--json"],
        ["runs", "--json"],
        ["runs"],
        ["query", "SELECT text, batch FROM events WHERE text IS NOT NULL"],
        ["query", "SELECT text FROM events WHERE text IS NOT NULL", "--format", "jsonl"],
        ["query", "SELECT text FROM events WHERE text IS NOT NULL", "--format", "json"],
        ["query", "SELECT reason FROM verdicts"],
    ],
    ids=lambda a: " ".join(a),
)
def test_control_sequences_from_stored_text_never_reach_the_terminal(hostile: Store, args: list[str]) -> None:
    r = runner.invoke(app, [*args, "--store", str(hostile.loc)])
    assert r.exit_code == 0, r.output
    for ch in RAW:
        assert ch not in r.output, (args, ch)
    assert all(c == "\n" or c >= " " for c in r.output), args


def test_escaped_text_is_still_readable_and_json_still_means_the_same(hostile: Store) -> None:
    r = runner.invoke(app, ["show", "evil", "--store", str(hostile.loc)])
    assert "\\x1b]0;pwned\\x07" in r.output and "\\u202egnp.exe" in r.output
    r = runner.invoke(app, ["show", "evil", "--json", "--store", str(hostile.loc)])
    assert json.loads(r.output)["answer"] == "20 " + HOSTILE


# -- override evidence --------------------------------------------------------------------------------


@pytest.fixture
def sheet_run(store: Store) -> Store:
    lines = example_run("s1", ["北京", "上海"], mode="grounded")
    ingest_bytes(store, jsonl(lines), "s.jsonl")
    return store


def override(store: Store, evidence: str) -> object:
    return runner.invoke(app, ["override", "s1", "--to", "pass", "--evidence", evidence, "--by", "ann",
                               "--store", str(store.loc)])


@pytest.mark.parametrize(
    ("evidence", "why"),
    [
        ("北", "too short"),  # one character of a screen: matches almost anything
        ("2", "too short"),
        ("', '", "does not appear"),  # a fragment of the list's repr, not of any value
        ("['北京'", "does not appear"),
        ("京', '上", "does not appear"),  # spans two values
        ("北京 20° 多云上海", "does not appear"),  # spans two texts
    ],
)
def test_override_refuses_evidence_that_shows_nothing(sheet_run: Store, evidence: str, why: str) -> None:
    r = override(sheet_run, evidence)
    assert r.exit_code == 1 and why in r.output and len(r.output.strip().splitlines()) == 1, r.output
    assert not sheet_run.has_table("overrides") or sheet_run.read("overrides").num_rows == 0


@pytest.mark.parametrize("evidence", ["北京", "上海", "北京 20°", "20° 多云"])
def test_override_takes_a_whole_value_or_a_span_of_one_text(sheet_run: Store, evidence: str) -> None:
    r = override(sheet_run, evidence)
    assert r.exit_code == 0, r.output
    assert sheet_run.read("overrides").column("evidence").to_pylist() == [evidence]
