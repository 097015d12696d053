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


def scale_out_block() -> list[str]:
    """The commands of "When one machine is not enough" (its first indented block)."""
    text = README.read_text(encoding="utf-8")
    section = re.search(r"## When one machine is not enough\n(.*?)\n## ", text, re.S)
    assert section, "README has no 'When one machine is not enough' section"
    block = re.search(r"\n\n((?:    \S.*\n)+)", section.group(1))
    assert block
    return [line[4:] for line in block.group(1).splitlines()]


@pytest.mark.slow
def test_the_scale_out_commands_run(tmp_path) -> None:
    """As written, in bash, in an empty folder (the pip line aside: the test's environment has
    the extras), on a free port instead of 5000; the S3 server is stopped with the README's
    `kill %1`; nothing started here (moto, the two local Ray clusters) is left running."""
    import socket
    import tempfile
    import time
    import uuid

    lines = scale_out_block()
    assert lines[0].startswith("pip install -e '.[test,ray]'") and lines[1].startswith("moto_server -H 127.0.0.1")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    script = "\n".join(["set -euo pipefail", "trap 'kill %1' EXIT",
                        *(line.replace("5000", str(port)) for line in lines[1:])])
    mark = uuid.uuid4().hex
    ray_tmp = tempfile.mkdtemp(prefix="trajray-", dir="/tmp")  # short: Ray's socket paths are limited
    env = {**os.environ, "TRAJ_USER": "readme", "TRAJ_README_TEST": mark, "RAY_TMPDIR": ray_tmp,
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    for k in ("TRAJ_STORE", "RAY_ADDRESS", "AWS_ENDPOINT_URL", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        env.pop(k, None)
    try:
        r = subprocess.run(["bash", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=1200)
        assert r.returncode == 0, f"{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
        assert "weather" in r.stdout and "judged" in r.stdout and "0 flips" in r.stdout, r.stdout[-3000:]
        assert (tmp_path / "more" / "weather.jsonl").stat().st_size > 0
        deadline = time.monotonic() + 60
        while (left := _marked(mark)) and time.monotonic() < deadline:
            time.sleep(0.5)
        assert not left, f"processes left running: {left}"
    finally:
        import shutil

        shutil.rmtree(ray_tmp, ignore_errors=True)


def _marked(mark: str) -> list[int]:
    """Processes whose environment carries TRAJ_README_TEST=mark."""
    found = []
    needle = f"TRAJ_README_TEST={mark}".encode()
    for d in Path("/proc").iterdir():
        try:
            if d.name.isdigit() and needle in (d / "environ").read_bytes().split(b"\0"):
                found.append(int(d.name))
        except OSError:
            continue
    return found
