"""A store in a folder whose name has spaces and URL-special characters works in every command,
and a name the Delta Lake library would misread is refused in one line, before anything is written."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from helpers import example_run, jsonl
from trajectory.cli.main import app


def run(*args: object, cwd: Path) -> Any:
    """``traj ARGS`` run in ``cwd`` (the real command, in this process)."""
    here = os.getcwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(app, [str(a) for a in args])
    finally:
        os.chdir(here)


@pytest.mark.parametrize("name", ["my store #1", "100% sure?", "a&b=c;d"])
def test_every_command_works_on_a_store_with_url_characters_in_its_path(tmp_path: Path, name: str) -> None:
    (tmp_path / "runs.jsonl").write_bytes(jsonl(example_run("r1") + example_run("r2", "北京现在25度")))
    store = tmp_path / name / "store"
    r = run("ingest", "runs.jsonl", "--store", store, cwd=tmp_path)
    assert r.exit_code == 0, r.stderr
    assert f"created a new store at {store}" in r.stdout
    r = run("judge", "--store", store, "--json", cwd=tmp_path)
    assert r.exit_code == 0, r.stderr
    counts = json.loads(r.stdout.splitlines()[-1])["counts"]
    assert (counts["pass"], counts["fail"]) == (1, 1)
    r = run("query", "SELECT count(*) AS n FROM events", "--store", store, "--json", cwd=tmp_path)
    assert r.exit_code == 0, r.stderr
    assert json.loads(r.stdout.splitlines()[0]) == {"n": 10}
    r = run("runs", "--store", store, "--json", cwd=tmp_path)
    assert r.exit_code == 0, r.stderr
    assert sorted(json.loads(line)["run_id"] for line in r.stdout.splitlines() if '"run_id"' in line) == ["r1", "r2"]
    r = run("report", "--batch", "b1", "--store", store, "--out", tmp_path / "out", cwd=tmp_path)
    assert r.exit_code == 0, r.stderr
    metrics = json.loads((tmp_path / "out" / "metrics.json").read_text())
    assert metrics["store"] == str(store)
    assert metrics["passes"][0]["runs_in_report"] == 2


def test_a_polars_scan_reads_a_store_with_a_space_in_its_path(tmp_path: Path) -> None:
    from trajectory.ingest.files import ingest_bytes
    from trajectory.store.delta import Store

    store = Store(tmp_path / "my store #1")
    ingest_bytes(store, jsonl(example_run("r1")), "runs.jsonl")
    assert store.scan("events").collect().height == 5


@pytest.mark.parametrize("name", ["a%41b", "x[1]", "p|q"])
def test_a_path_the_delta_library_misreads_is_refused_before_writing(tmp_path: Path, name: str) -> None:
    (tmp_path / "runs.jsonl").write_bytes(jsonl(example_run("r1")))
    store = tmp_path / name
    r = run("ingest", "runs.jsonl", "--store", store, cwd=tmp_path)
    assert r.exit_code == 1
    assert r.stderr.startswith(f"error: {store}: a store's path cannot have"), r.stderr
    assert "Traceback" not in r.stderr
    assert not store.exists()
