"""Judges that fail, through the real commands: `traj suite add`, `traj ingest`, `traj judge`.

A judge that raises (or returns something that is not a Verdict, or cannot find its task)
gives that run an ``error`` verdict with the message; a registered suite folder whose code does
not even load errs its own runs; in every case the pass goes on and is written whole.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import example_run, jsonl, line, traj


SUITE = '''
import sys
from judges.base import Check, Suite, Verdict


class Fragile(Suite):
    name = "fragile"
    code_modules = (sys.modules[__name__],)

    def task_ids(self):
        return ["t"]

    def get_task(self, task_id, params=None):
        if task_id != "t":
            raise KeyError(f"no task {task_id}")
        return task_id

    def task_data(self, task):
        return task

    def judge(self, task, state):
        if state.answer == "raise":
            raise ZeroDivisionError("boom in the judge")
        if state.answer == "none":
            return None
        return Verdict.from_checks([Check(name="ok", passed=True)])


def load(path=None):
    return Fragile()
'''


@pytest.fixture
def setup(tmp_path) -> tuple[str, Path]:
    folder = tmp_path / "fragile"
    folder.mkdir()
    (folder / "__init__.py").write_text(SUITE)
    store = str(tmp_path / "store")
    lines = []
    for rid, answer, task in [("a", "fine", "t"), ("b", "raise", "t"), ("c", "none", "t"), ("d", "fine", "missing")]:
        lines += [line(rid, 0, "run_started", suite="fragile", task=task), line(rid, 1, "answer_given", text=answer),
                  line(rid, 2, "run_finished", outcome="succeeded")]
    lines += example_run("ex")  # a run of another suite, judged in the same pass
    f = tmp_path / "runs.jsonl"
    f.write_bytes(jsonl(lines))
    assert traj("ingest", str(f), "--store", store).exit_code == 0
    assert traj("suite", "add", "fragile", str(folder), "--store", store).exit_code == 0
    return store, folder


def verdicts(store: str) -> dict[str, tuple[str, str]]:
    r = traj("query", "SELECT run_id, outcome, reason FROM verdicts", "--format", "json", "--store", store)
    return {v["run_id"]: (v["outcome"], v["reason"]) for v in json.loads(r.stdout)}


def test_a_raising_judge_gives_error_verdicts_and_the_pass_goes_on(setup) -> None:
    store, _ = setup
    r = traj("judge", "--store", store)
    assert r.exit_code == 0 and "judged 4 runs (2 pass, 2 error)" in r.output, r.output
    v = verdicts(store)
    assert v["a"] == ("pass", "all checks passed") and v["ex"][0] == "pass"
    assert v["b"] == ("error", "judge raised ZeroDivisionError: boom in the judge")
    assert v["c"] == ("error", "judge raised TypeError: judge returned NoneType, not a Verdict")
    # A task the suite does not have is not judged at all (issue 23, item 4): said, no verdict.
    assert "d" not in v and "1 run of task 'missing': suite 'fragile' has no such task; it has t" in r.output
    r = traj("passes", "--json", "--store", store)
    [p] = [json.loads(x) for x in r.stdout.splitlines()]
    assert p["runs"] == 4


def test_a_suite_folder_that_no_longer_loads_errs_its_runs_only(setup) -> None:
    store, folder = setup
    (folder / "__init__.py").write_text(SUITE + "\nraise RuntimeError('broken at import')\n")
    r = traj("judge", "--store", store)
    assert r.exit_code == 0 and "judged 5 runs (1 pass, 4 error)" in r.output, r.output
    v = verdicts(store)
    assert v["ex"][0] == "pass"
    for rid in "abcd":
        assert v[rid][0] == "error"
        assert v[rid][1] == f"suite 'fragile' cannot be loaded from {folder}: RuntimeError: broken at import"


def test_registering_a_suite_folder_that_does_not_load_is_one_line(tmp_path) -> None:
    folder = tmp_path / "broken"
    folder.mkdir()
    (folder / "__init__.py").write_text("raise RuntimeError('broken at import')\n")
    store = str(tmp_path / "store")
    assert traj("ingest", "-", "--store", store, input=jsonl(example_run("ex"))).exit_code == 0
    r = traj("suite", "add", "broken", str(folder), "--store", store)
    assert r.exit_code == 1
    assert r.output.strip() == f"error: {folder}: cannot load the suite: RuntimeError: broken at import"


HANGING = SUITE.replace(
    '''        if state.answer == "none":''',
    '''        if state.answer == "loop":
            while True:  # stuck in Python code
                pass
        if state.answer == "sleep":
            import time

            time.sleep(3600)  # stuck waiting
        if state.answer == "none":''',
)


def test_traj_judge_with_workers_stops_a_judge_past_its_time_budget(tmp_path) -> None:
    folder = tmp_path / "fragile"
    folder.mkdir()
    (folder / "__init__.py").write_text(HANGING)
    store = str(tmp_path / "store")
    lines = []
    # More runs than one partition (2000), so that `--workers 2` really judges on two processes.
    answers = ["fine", "loop"] + ["fine"] * 2000 + ["sleep", "fine"]
    for i, answer in enumerate(answers):
        rid = f"r{i}"
        lines += [line(rid, 0, "run_started", suite="fragile", task="t"), line(rid, 1, "answer_given", text=answer),
                  line(rid, 2, "run_finished", outcome="succeeded")]
    f = tmp_path / "runs.jsonl"
    f.write_bytes(jsonl(lines))
    assert traj("ingest", str(f), "--store", store).exit_code == 0
    assert traj("suite", "add", "fragile", str(folder), "--store", store).exit_code == 0
    # A process of its own (and a process group of its own): the workers are real processes too.
    # The budget is 2 s: on a loaded machine a fresh worker's first run (loading and versioning
    # the suite) must still fit in it, and the stuck judges must be well inside their loop or
    # sleep when the stop comes.
    p = subprocess.Popen([sys.executable, "-m", "trajectory.cli.main", "judge", "--workers", "2", "--timeout", "2",
                          "--store", store], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    out, err = p.communicate(timeout=300)
    assert p.returncode == 0 and "judged 2004 runs (2002 pass, 2 error)" in out, (out, err)
    v = verdicts(store)
    for i, answer in enumerate(answers):
        if answer == "fine":
            assert v[f"r{i}"][0] == "pass"
        else:
            assert v[f"r{i}"] == ("error", "judge exceeded its time budget of 2s")
    left = subprocess.run(["ps", "-o", "pid=,stat=", "-g", str(p.pid)], capture_output=True, text=True).stdout
    assert not [x for x in left.splitlines() if x.split() and not x.split()[1].startswith("Z")]  # no worker left
