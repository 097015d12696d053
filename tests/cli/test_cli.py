"""The `traj` command end to end on temporary stores."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from helpers import example_run, jsonl, traj
from trajectory import events as ev

GOLDEN = Path(__file__).parent.parent / "golden" / "format1.jsonl"


@pytest.fixture
def sdir(tmp_path) -> str:
    return str(tmp_path / "store")


@pytest.fixture
def runs_file(tmp_path) -> Path:
    p = tmp_path / "runs.jsonl"
    p.write_bytes(jsonl(example_run("r1") + example_run("r2", "北京现在25度") + example_run("r3", finished=False)))
    return p


def test_golden_file_of_format_1_ingests_and_replays(sdir) -> None:
    r = traj("ingest", str(GOLDEN), "--store", sdir)
    assert r.exit_code == 0, r.output
    assert "1 run, 17 events read: 17 new, 0 already present" in r.output
    r = traj("show", "golden-1", "--json", "--store", sdir)
    state = json.loads(r.output)
    assert state["sheet"] == {"answers": {"0": "20", "1": ["多云", 3]}, "submitted": True}
    assert state["answer"] == "北京现在20度" and state["outcome"] == "succeeded"
    assert state["state"]["apps"]["weather"]["cities"]["北京"]["humidity"] == 41


def test_ingest_export_ingest_round_trips(sdir, tmp_path, runs_file) -> None:
    assert traj("ingest", str(runs_file), str(GOLDEN), "--store", sdir).exit_code == 0
    out = tmp_path / "export.jsonl"
    r = traj("export", "events", "--out", str(out), "--store", sdir)
    assert r.exit_code == 0 and "wrote 31 events" in r.output
    other = str(tmp_path / "other")
    r = traj("ingest", str(out), "--store", other)
    assert "31 new" in r.output
    a = traj("export", "events", "--store", sdir).stdout
    b = traj("export", "events", "--store", other).stdout
    assert a == b and len(a.splitlines()) == 31
    original = sorted(ev.canonical(ev.decode(x)) for x in runs_file.read_bytes().splitlines() + GOLDEN.read_bytes().splitlines() if x)
    assert sorted(ev.canonical(ev.decode(x)) for x in a.encode().splitlines()) == original
    # Filters.
    only = traj("export", "events", "--run", "r1", "--store", sdir).stdout
    assert {json.loads(x)["run_id"] for x in only.splitlines()} == {"r1"}


def test_ingest_from_stdin_and_twice(sdir, runs_file) -> None:
    r = traj("ingest", "-", "--store", sdir, input=runs_file.read_bytes())
    assert r.exit_code == 0 and "<stdin>: 3 runs, 14 events read: 14 new, 0 already present" in r.output
    r = traj("ingest", str(runs_file), "--store", sdir)
    assert "14 events read: 0 new, 14 already present" in r.output


def test_bad_file_is_refused_with_its_line_and_nothing_is_written(sdir, tmp_path) -> None:
    bad = tmp_path / "bad.jsonl"
    lines = example_run("r1")
    lines[2] = lines[2].replace('"text"', '"txet"')
    bad.write_bytes(jsonl(lines))
    r = traj("ingest", str(bad), "--store", sdir)
    assert r.exit_code == 1
    assert f"{bad}:3: $.txet: unknown field (run r1, seq 2)" in r.output
    assert "Traceback" not in r.output
    # A refused first batch creates no store, not even its folder.
    assert not Path(sdir).exists()
    r = traj("query", "SELECT count(*) AS n FROM events", "--store", sdir, "--format", "json")
    assert r.exit_code == 1 and "no traj store at" in r.output


def test_judge_diff_query_runs_show(sdir, runs_file, tmp_path) -> None:
    traj("ingest", str(runs_file), "--store", sdir)
    r = traj("judge", "--store", sdir)
    assert r.exit_code == 0 and "judged 2 runs (1 pass, 1 fail); left 1 open run unjudged" in r.output
    r = traj("diff", "--store", sdir)
    assert r.exit_code == 0 and "0 runs judged before, 0 flips (2 judged for the first time)" in r.output
    r = traj("judge", "--store", sdir)  # incremental: every verdict still stands
    assert r.exit_code == 0 and "nothing to judge: 2 runs up to date" in r.output
    r = traj("judge", "--all", "--store", sdir)
    assert r.exit_code == 0 and "judged 2 runs (1 pass, 1 fail)" in r.output
    r = traj("diff", "--store", sdir)
    assert r.exit_code == 0 and "2 runs judged before, 0 flips" in r.output
    r = traj("judge", "--dry-run", "--store", sdir)
    assert "dry run: nothing written" in r.output
    r = traj("query", "SELECT run_id, outcome FROM verdicts ORDER BY run_id", "--format", "json", "--store", sdir)
    assert json.loads(r.stdout) == [{"run_id": "r1", "outcome": "pass"}, {"run_id": "r2", "outcome": "fail"}]
    r = traj("query", "SELECT run_id FROM runs ORDER BY run_id", "--format", "csv", "--store", sdir)
    assert r.stdout.splitlines() == ["run_id", "r1", "r2", "r3"]
    r = traj("query", "SELECT run_id FROM runs ORDER BY run_id", "--format", "jsonl", "--store", sdir)
    assert [json.loads(x)["run_id"] for x in r.stdout.splitlines()] == ["r1", "r2", "r3"]
    r = traj("query", "COPY (SELECT 1) TO 'x.csv'", "--store", sdir)
    assert r.exit_code == 1 and r.output.count("\n") == 1 and r.output.startswith("error: refused")
    r = traj("runs", "--json", "--store", sdir)
    rows = [json.loads(x) for x in r.stdout.splitlines()]
    assert [x["run_id"] for x in rows] == ["r3", "r2", "r1"] and rows[0]["outcome"] is None  # the latest first
    r = traj("show", "r2", "--at", "2", "--json", "--store", sdir)
    s = json.loads(r.stdout)
    assert s["seq"] == 2 and s["answer"] is None and s["screens"] == ["北京 20° 多云"] and s["outcome"] is None
    assert s["route"] == {"app": "weather", "path": "/"}
    r = traj("show", "r2", "--store", sdir)
    assert "answer_given" in r.stdout and "outcome: succeeded" in r.stdout
    r = traj("show", "nope", "--store", sdir)
    assert r.exit_code == 1 and "no run 'nope' in the store; it has r1, r2, r3" in r.output


def test_store_from_environment(tmp_path, runs_file, monkeypatch) -> None:
    monkeypatch.setenv("TRAJ_STORE", str(tmp_path / "envstore"))
    assert traj("ingest", str(runs_file)).exit_code == 0
    assert (tmp_path / "envstore" / "events").exists()


def test_compact_recover_schema_status(sdir, runs_file) -> None:
    traj("ingest", str(runs_file), "--store", sdir)
    traj("ingest", str(GOLDEN), "--store", sdir)
    before = traj("export", "events", "--store", sdir).stdout
    r = traj("compact", "--store", sdir)
    assert "events: 2 files -> 1" in r.output
    assert traj("export", "events", "--store", sdir).stdout == before
    assert "no journals to recover" in traj("recover", "--store", sdir).output
    schema = json.loads(traj("schema").stdout)
    assert "$defs" in schema or "anyOf" in schema
    assert "events: version" in traj("status", "--store", sdir).output


def test_demo_runs_end_to_end(sdir) -> None:
    r = traj("demo", "--store", sdir, "--suite", "example")
    assert r.exit_code == 0, r.output
    # 北京现在二十度 fails the substring rule and passes; 广州现在25度 passes it for 5 and fails.
    # (The sloppy agent's 三四十 fails both: a hedge between two values states neither.)
    assert "2 flips" in r.output and "fail → pass" in r.output and "pass → fail" in r.output
    assert "pass rate by suite and task" in r.output
    again = traj("demo", "--store", sdir, "--suite", "example")
    assert "0 new" in again.output and again.exit_code == 0
