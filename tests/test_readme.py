"""The README's tour runs as written, in an empty folder."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"


def tour() -> list[str]:
    text = README.read_text(encoding="utf-8")
    block = re.search(r"## A tour.*?```console\n(.*?)```", text, re.S)
    assert block, "README has no tour"
    return [line[2:] for line in block.group(1).splitlines() if line.startswith("$ ")]


def test_the_tour_has_about_thirty_lines() -> None:
    assert 12 <= len(tour()) <= 30


@pytest.mark.slow
@pytest.mark.parametrize("where", ["local", "s3"])
def test_the_tour_runs(tmp_path, where, request) -> None:
    """As written on a local folder; and with every store on S3 (a local S3 server), the same
    commands with ``--store s3://BUCKET/NAME``."""
    traj = [sys.executable, "-m", "trajectory.cli.main"]
    prefix = ""
    if where == "s3":
        request.getfixturevalue("s3_env")
        prefix = f"s3://{request.getfixturevalue('s3_server').bucket()}/"
    env = {**os.environ, "TRAJ_USER": "tour"}
    env.pop("TRAJ_STORE", None)
    outputs: list[tuple[str, str]] = []
    for line in tour():
        argv = shlex.split(line)
        assert argv[0] == "traj"
        if prefix:
            argv = [prefix + a if i and argv[i - 1] == "--store" else a for i, a in enumerate(argv)]
        result = subprocess.run(traj + argv[1:], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
        assert result.returncode == 0, f"$ {line}\n{result.stdout}\n{result.stderr}"
        outputs.append((line, result.stdout))
    # A few things the tour promises.
    ingests = [out for cmd, out in outputs if cmd.startswith("traj ingest")]
    assert re.search(r": [1-9][0-9]* new", ingests[0]) and ": 0 new" in ingests[1]
    assert (tmp_path / "report" / "summary.md").exists()
    assert (tmp_path / "shared" / "scores.jsonl").exists()
    show = next(out for cmd, out in outputs if "--json" in cmd and cmd.startswith("traj show"))
    assert '"run_id": "gui-careful-02"' in show
