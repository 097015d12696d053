"""Long commands show progress on a terminal, and nothing in pipes or with --json: each command
runs as a real process, its stderr once a pseudo-terminal and once a pipe."""

from __future__ import annotations

from hang import HANG
import json
import os
import pty
import select
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import line

TRAJ = [sys.executable, "-m", "trajectory.cli.main"]


def run(argv: list[str], cwd: Path, *, terminal: bool) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of ``traj argv``, stderr on a terminal or a pipe."""
    env = {**os.environ, "TERM": "xterm", "COLUMNS": "120", "TRAJ_USER": "tester"}
    env.pop("TRAJ_STORE", None)
    if not terminal:
        p = subprocess.run(TRAJ + argv, cwd=cwd, capture_output=True, env=env, timeout=300)
        return p.returncode, p.stdout.decode(), p.stderr.decode()
    master, slave = pty.openpty()
    sink = open(cwd / ".stdout", "w+b")  # noqa: SIM115 - a file, not a pipe nobody reads meanwhile
    p = subprocess.Popen(TRAJ + argv, cwd=cwd, stdout=sink, stderr=slave, env=env)
    os.close(slave)
    chunks = []
    while True:
        ready, _, _ = select.select([master], [], [], 0.2)
        if ready:
            try:
                data = os.read(master, 65536)
            except OSError:  # the terminal closed with the process
                break
            if not data:
                break
            chunks.append(data)
        elif p.poll() is not None:
            break
    p.wait(timeout=HANG)
    os.close(master)
    sink.seek(0)
    out = sink.read()
    sink.close()
    return p.returncode, out.decode(), b"".join(chunks).decode("utf-8", "replace")


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("progress")
    lines = []
    for i in range(25_000):  # more lines than one progress step of ingest
        lines += [line(f"r{i}", 0, "run_started", suite="example", task="current_temp", params={"city": "北京"},
                       mode="text", state={"apps": {"weather": {"cities": {"北京": {"temp": 20}}}}}, batch="b"),
                  line(f"r{i}", 1, "answer_given", text="20度"), line(f"r{i}", 2, "run_finished", outcome="succeeded")]
    (root / "runs.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    from selfevo_helpers import SUITE, good_steps, traj

    tasks = list(SUITE.tasks)
    with open(root / "selfevo.jsonl", "w", encoding="utf-8") as fh:
        for i in range(1000):
            task = tasks[i % len(tasks)]
            fh.write(json.dumps(traj(task, good_steps(task), profile=f"p{i}"), ensure_ascii=False) + "\n")
    return root


@pytest.mark.slow
def test_progress_on_a_terminal_only(data) -> None:
    store = str(data / "store")
    rc, out, err = run(["ingest", "runs.jsonl", "--store", store], data, terminal=True)
    assert rc == 0 and "75000 events read: 75000 new" in out
    assert "reading runs.jsonl" in err and "lines/s" in err  # a bar with counts and rate
    rc, out, err = run(["judge", "--store", store], data, terminal=True)
    assert rc == 0 and "judged 25000 runs (25000 pass)" in out
    assert "judging" in err and "25000/25000" in err and "runs/s" in err
    # In a pipe, or with --json on a terminal: nothing but the answer.
    rc, out, err = run(["judge", "--store", store], data, terminal=False)
    assert rc == 0 and err == ""
    rc, out, err = run(["judge", "--json", "--store", store], data, terminal=True)
    assert rc == 0 and err.strip() == ""
    rc, out, err = run(["report", "--batch", "b", "--out", "rep", "--store", store], data, terminal=True)
    assert rc == 0 and "report b" in err
    rc, out, err = run(["compact", "--store", store], data, terminal=True)
    assert rc == 0 and "compacting" in err
    rc, out, err = run(["import", "selfevo", "selfevo.jsonl", "--store", store], data, terminal=True)
    assert rc == 0 and "importing selfevo.jsonl" in err and "lines/s" in err


@pytest.mark.slow
def test_import_inspect_and_otel_show_progress_on_a_terminal_only(tmp_path) -> None:
    from otel_traces import agent_trace, evaluation
    from otel_traces import jsonl as otlp

    from benchmarks.import_speed import write_log

    (tmp_path / "traces").mkdir()
    for f in range(5):
        with open(tmp_path / "traces" / f"part{f}.jsonl", "w", encoding="utf-8") as fh:
            for i in range(100):
                fh.write(otlp(agent_trace(f"{f * 100 + i + 1:032x}", evals=[evaluation("correct", 950, score=1.0)])))
    (tmp_path / "logs").mkdir()
    for f in range(3):
        write_log(tmp_path / "logs" / f"caps{f}.eval", 60)
    store = str(tmp_path / "store")
    rc, out, err = run(["import", "otel", "traces", "--store", store], tmp_path, terminal=True)
    assert rc == 0 and "500 new runs" in out
    assert "importing" in err and "5/5" in err and "files/s" in err  # a bar with counts and rate
    rc, out, err = run(["import", "inspect", "logs", "--store", store], tmp_path, terminal=True)
    assert rc == 0 and "new runs" in out
    assert "importing" in err and "/3" in err and "logs/s" in err
    rc, out, err = run(["import", "otel", "traces", "--store", store], tmp_path, terminal=False)
    assert rc == 0 and err == ""
    rc, out, err = run(["import", "inspect", "logs", "--json", "--store", store], tmp_path, terminal=True)
    assert rc == 0 and err.strip() == "" and json.loads(out)["sources"][0]["known_runs"] > 0
