"""The report's hints name the store it was made from, so that they work when pasted."""

from __future__ import annotations

import shlex
from pathlib import Path

from typer.testing import CliRunner

from helpers import example_run, jsonl
from trajectory.cli.main import app


def test_the_not_judged_line_says_how_to_judge_this_store(tmp_path: Path) -> None:
    store = str(tmp_path / "my store #1" / "st")
    runner = CliRunner()
    lines = example_run("r1") + example_run("r3", finished=False)
    assert runner.invoke(app, ["ingest", "-", "--store", store], input=jsonl(lines)).exit_code == 0
    assert runner.invoke(app, ["judge", "--store", store]).exit_code == 0
    r = runner.invoke(app, ["report", "--batch", "b1", "--store", store, "--out", str(tmp_path / "out")])
    assert r.exit_code == 0, r.output
    summary = (tmp_path / "out" / "summary.md").read_text()
    assert f"1 run of this batch not judged (open, or not judged yet: run `traj judge --store {shlex.quote(store)}`)" in summary
