"""Ctrl-C on every long command, as a terminal sends it: SIGINT to the whole foreground process
group (the command and its worker processes), at several moments of each command.

The moments are a time after traj's code starts loading, or a named point of the command (a
mark, trajectory/runtime/marks.py) where the command holds until the Ctrl-C has come: the
signal lands there however busy the machine is.

Whatever the moment: exit status 130 (one generous bound only a hang exceeds),
exactly one line on stderr (no traceback, from the command or from a worker), no process of the group left running, and the store (or
the report folder) holding either all of a commit or none of it — and the line says which.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from helpers import line
from trajectory.ingest.files import ingest_bytes
from trajectory.judging import SuiteResolver, judge_runs
from trajectory.judging.resolve import add_suite
from trajectory.query.sql import Views
from trajectory.store.delta import Store

TRAJ = [sys.executable, "-m", "trajectory.cli.main"]
pytestmark = pytest.mark.slow

SLOW_SUITE = '''
import time
from judges.base import Check, Suite, Verdict


class Slow(Suite):
    name = "slow"

    def task_ids(self):
        return ["t"]

    def get_task(self, task_id, params=None):
        if task_id != "t":
            raise KeyError(task_id)
        return task_id

    def task_data(self, task):
        return task

    def judge(self, task, state):
        time.sleep(0.002)  # a judge with some work to do: the pass takes seconds
        return Verdict.from_checks([Check(name="answer", passed=state.answer == "yes")])


def load(path=None):
    return Slow()
'''


def slow_runs(n: int, prefix: str, batch: str, screens: int = 0) -> bytes:
    lines = []
    for i in range(n):
        rid = f"{prefix}{i:06d}"
        lines.append(line(rid, 0, "run_started", ts=1775354400000 + i, suite="slow", task="t", batch=batch))
        for k in range(screens):
            lines.append(line(rid, 1 + k, "screen_read", ts=1775354400000 + i, text="屏幕 " * 40))
        lines.append(line(rid, 1 + screens, "answer_given", ts=1775354400001 + i, text="yes" if i % 2 else "no"))
        lines.append(line(rid, 2 + screens, "run_finished", ts=1775354400002 + i, outcome="succeeded"))
    return ("\n".join(lines) + "\n").encode()


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> dict[str, Path]:
    """A judged store of 4,200 slow runs (three partitions: two workers really work), and input
    files for ingest and import."""
    root = tmp_path_factory.mktemp("interrupts")
    folder = root / "slow"
    folder.mkdir()
    (folder / "__init__.py").write_text(SLOW_SUITE)
    store = Store(root / "store")
    ingest_bytes(store, slow_runs(4200, "s", "b"), "slow")
    add_suite(store, "slow", folder)  # registered and trusted, as traj suite add does
    judge_runs(store, SuiteResolver(store))
    (root / "small.jsonl").write_bytes(slow_runs(300, "m", "small"))
    (root / "big.jsonl").write_bytes(slow_runs(30_000, "g", "big", screens=2))
    many = Store(root / "many")  # many small files, for compact
    for i in range(60):
        ingest_bytes(many, slow_runs(5, f"c{i:02d}-", "c"), f"part {i}")
    from selfevo_helpers import SUITE, good_steps, traj

    tasks = list(SUITE.tasks)
    with open(root / "selfevo.jsonl", "w", encoding="utf-8") as fh:
        for i in range(3000):
            task = tasks[i % len(tasks)]
            fh.write(json.dumps(traj(task, good_steps(task), profile=f"p{i}"), ensure_ascii=False) + "\n")
    return {"root": root, "store": root / "store", "many": root / "many", "suite": folder}


HANG = 60.0  # seconds after Ctrl-C that only a hung command takes


def _alive(pgid: int) -> list[str]:
    out = subprocess.run(["ps", "-o", "pid=,stat=,args=", "-g", str(pgid)], capture_output=True, text=True).stdout
    return [x.strip() for x in out.splitlines() if x.strip() and not x.split()[1].startswith("Z")]


def _loading(pid: int) -> bool:
    """Whether traj's own code runs: it loads DuckDB first thing (Python's start-up before that
    is the interpreter's, which traj cannot handle Ctrl-C in)."""
    try:
        return "_duckdb" in Path(f"/proc/{pid}/maps").read_text()
    except OSError:
        return False


def interrupt(argv: list[str], when: float | str, cwd: Path) -> tuple[str, float]:
    """Run ``traj argv`` and send SIGINT to its process group: ``when`` seconds after traj's
    code starts loading, or, when ``when`` names a mark (trajectory/runtime/marks.py), as the
    command reaches that point, where it waits for the signal. Its stderr and how long it took
    to exit, once every check on the way out has held."""
    scratch = Path(tempfile.mkdtemp(prefix="traj-interrupt-"))  # the command's temporary folder
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "TRAJ_USER": "tester", "TMPDIR": str(scratch)}
    env.pop("TRAJ_STORE", None)
    if isinstance(when, str):
        env["TRAJ_MARKS"] = when
        env["TRAJ_MARKS_HOLD"] = "1"  # the command waits at the mark for this Ctrl-C
    p = subprocess.Popen(TRAJ + argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                         start_new_session=True)
    if isinstance(when, str):
        _wait_mark(p, when)
    else:
        deadline = time.monotonic() + HANG
        while not _loading(p.pid) and p.poll() is None and time.monotonic() < deadline:
            time.sleep(0.005)
        time.sleep(when)
    if p.poll() is not None:
        p.communicate()
        raise AssertionError(f"traj {' '.join(argv)} ended before the interrupt at {when}: pick a later point")
    sent = time.monotonic()
    os.killpg(p.pid, signal.SIGINT)
    try:
        # One generous bound, the same on any machine: only a hang exceeds it. How fast the
        # command exits is not asserted (speed is never asserted: on a loaded machine a prompt
        # exit can still need seconds to be scheduled).
        _, err = p.communicate(timeout=HANG)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        raise AssertionError(f"traj {' '.join(argv)} hung after Ctrl-C at {when}") from None
    took = time.monotonic() - sent
    # The command's own stderr: a point reached again (a second commit) says so again.
    stderr = "".join(x for x in err.decode("utf-8", "replace").splitlines(keepends=True)
                     if not x.startswith("traj-mark: "))
    left = _alive(p.pid)
    gone_by = time.monotonic() + HANG
    while left and time.monotonic() < gone_by:  # workers and the resource tracker go with the command
        time.sleep(0.1)
        left = _alive(p.pid)
    assert p.returncode == 130, (argv, when, p.returncode, stderr)
    assert stderr.count("\n") == 1 and stderr.startswith("interrupted: "), stderr
    assert "Traceback" not in stderr
    assert not left, f"left running: {left}"
    litter = sorted(p.name for p in scratch.iterdir())
    assert not litter, f"temporary files left behind: {litter}"
    scratch.rmdir()
    return stderr.strip(), took


def _wait_mark(p: subprocess.Popen, at: str) -> None:
    """Read ``p``'s stderr up to the line of mark ``at`` (one generous wait: only a hang
    exceeds it); the command holds there until the signal comes."""
    import selectors

    with selectors.DefaultSelector() as sel:
        sel.register(p.stderr, selectors.EVENT_READ)
        if not sel.select(HANG * 2):
            raise AssertionError(f"no mark {at!r} within {HANG * 2}s")
    said = p.stderr.readline().decode().strip()
    assert said == f"traj-mark: {at}", said


def _passes(store: Path) -> list[tuple[str, int, int]]:
    """(pass id, runs the pass row says, verdicts visible) for every pass."""
    with Views(Store(store), split=None) as v:
        return v.con.execute(
            "SELECT p.pass_id, p.runs, (SELECT count(*) FROM _history_all h WHERE h.pass_id = p.pass_id) "
            "FROM passes p ORDER BY p.pass_id"
        ).fetchall()


@pytest.mark.parametrize("workers", [1, 2])
def test_ctrl_c_on_judge(world, workers) -> None:
    before = _passes(world["store"])
    argv = ["judge", "--all", "--workers", str(workers), "--store", str(world["store"])]
    for when in (0.0, "working", 3.0, "committing", "committed"):
        said, _ = interrupt(argv, when, world["root"])
        now = _passes(world["store"])
        assert all(runs == seen for _, runs, seen in now)  # a pass is all there or not there
        if when == "working":
            assert said == "interrupted: nothing written"
        if when in ("committing", "committed"):
            # Inside the pass's commit the signal is held until the commit is done: the whole
            # pass is there, and the line names it.
            assert said != "interrupted: nothing written"
        if said == "interrupted: nothing written":
            assert now == before
        else:  # the pass was committed just before the interrupt
            assert len(now) == len(before) + 1 and now[-1][0] in said
            before = now


def _events(store: Path) -> int:
    s = Store(store)
    if not s.has_table("events"):
        return 0
    with Views(s, split=None) as v:
        return v.con.execute("SELECT count(*) FROM events").fetchall()[0][0]


def test_ctrl_c_on_ingest(world, tmp_path) -> None:
    small, big = world["root"] / "small.jsonl", world["root"] / "big.jsonl"
    first = f"interrupted: committed {small} (900 new events); nothing else written"
    for i, when in enumerate((0.0, "working", 1.0, 2.0, "committing", "committed")):
        store = tmp_path / f"s{i}"
        said, _ = interrupt(["ingest", str(small), str(big), "--store", str(store)], when, world["root"])
        n = _events(store)
        if when == "working":
            assert said == "interrupted: nothing written"
        if when in ("committing", "committed"):  # the first file's commit, held to its end
            assert said == first
        if said == "interrupted: nothing written":
            assert n == 0
        elif "big.jsonl" in said:
            assert n == 300 * 3 + 30_000 * 5
        else:
            assert said == first and n == 900


def test_ctrl_c_on_import(world, tmp_path) -> None:
    for i, when in enumerate((0.0, "working", "committing")):
        store = tmp_path / f"s{i}"
        said, _ = interrupt(["import", "selfevo", str(world["root"] / "selfevo.jsonl"), "--store", str(store)],
                            when, world["root"])
        assert (said == "interrupted: nothing written") == (_events(store) == 0)
        if when == "working":
            assert said == "interrupted: nothing written"
        if when == "committing":
            assert said != "interrupted: nothing written"


def test_ctrl_c_on_report(world, tmp_path) -> None:
    for i, when in enumerate((0.0, "working", "committing")):
        out = tmp_path / f"rep{i}"
        said, _ = interrupt(["report", "--batch", "b", "--out", str(out), "--store", str(world["store"])], when,
                            world["root"])
        files = sorted(p.name for p in out.iterdir()) if out.exists() else []
        assert files in ([], ["metrics.json", "scores.jsonl", "summary.md"])  # no half of a report
        assert (said == "interrupted: nothing written") == (files == [])
        if when == "working":
            assert files == []
        if when == "committing":  # the files' move into place, held to its end
            assert files != [] and str(out) in said


def test_ctrl_c_on_compact(world) -> None:
    for when in (0.0, "working", "committing"):
        said, _ = interrupt(["compact", "--store", str(world["many"])], when, world["root"])
        assert said.startswith("interrupted: ")
        if when == "working":
            assert said == "interrupted: nothing written"
        assert _events(world["many"]) == 60 * 5 * 3  # compaction never changes a row


def test_ctrl_c_on_demo(world, tmp_path) -> None:
    for i, when in enumerate((0.0, 2.0, 4.5, "committing")):
        store = tmp_path / f"d{i}"
        said, _ = interrupt(["demo", "--store", str(store)], when, world["root"])
        if said == "interrupted: nothing written":
            assert _events(store) == 0  # the scratch store of the recording is no commit here
        assert all(runs == seen for _, runs, seen in (_passes(store) if store.exists() else []))


@pytest.fixture(scope="module")
def imports(tmp_path_factory) -> dict[str, Path]:
    """An OTLP file of 2,000 traces and an Inspect log of 600 samples: seconds to import each."""
    from otel_traces import agent_trace, evaluation
    from otel_traces import jsonl as otlp

    from benchmarks.import_speed import write_log

    root = tmp_path_factory.mktemp("imports")
    with open(root / "traces.jsonl", "w", encoding="utf-8") as fh:
        for i in range(2000):
            fh.write(otlp(agent_trace(f"{i + 1:032x}", evals=[evaluation("correct", 950, score=1.0)])))
    write_log(root / "caps.eval", 600)
    return {"root": root, "otel": root / "traces.jsonl", "inspect": root / "caps.eval"}


@pytest.mark.parametrize("kind", ["otel", "inspect"])
def test_ctrl_c_on_import_inspect_and_otel(imports, tmp_path, kind) -> None:
    subprocess.run(TRAJ + ["import", kind, str(imports[kind]), "--store", str(tmp_path / "whole")],
                   cwd=imports["root"], capture_output=True, check=True, timeout=600)
    whole = _events(tmp_path / "whole")  # what the file's one commit holds
    for i, when in enumerate((0.0, "working", "committing")):
        store = tmp_path / f"{kind}{i}"
        said, _ = interrupt(["import", kind, str(imports[kind]), "--store", str(store)], when, imports["root"])
        n = _events(store)
        assert all(runs == seen for _, runs, seen in (_passes(store) if store.exists() else []))
        if when == "working":
            assert said == "interrupted: nothing written"
        if when == "committing":
            assert said != "interrupted: nothing written"
        if said == "interrupted: nothing written":
            assert n == 0
        else:  # the file's runs are one commit: all of them, and the line names the file
            assert str(imports[kind]) in said and n == whole
