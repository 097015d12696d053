"""Judging passes: pure judges, append-only history, error verdicts, versions, diffs."""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

import pytest

import suites as suite_pkg
from helpers import example_run, jsonl
from judges.base import Check, Suite, Verdict
from trajectory.demo import broken
from trajectory.errors import NotFound, QueryError
from trajectory.ingest.files import ingest_bytes
from trajectory.judging import (
    SuiteResolver,
    Unjudged,
    current_rows,
    diff_passes,
    dry_run_diff,
    judge_runs,
    passes,
)
from trajectory.query.sql import Views
from trajectory.store.delta import Store


@pytest.fixture
def filled(store: Store) -> Store:
    data = (
        example_run("good", "北京现在20度")
        + example_run("chinese", "北京现在二十度")
        + example_run("sheet", "20", mode="grounded")
        + example_run("open", "x", finished=False)
    )
    ingest_bytes(store, jsonl(data), "runs.jsonl")
    return store


def broken_example(tmp_path) -> Suite:
    """The example suite with the demo's broken rule (numbers looked for as substrings)."""
    copy = Path(tempfile.mkdtemp(dir=tmp_path)) / "example"
    shutil.copytree(suite_pkg.builtin_folder("example"), copy, ignore=shutil.ignore_patterns("__pycache__"))
    broken.example(copy)
    return suite_pkg.load_folder(copy)


def broken_resolver(store: Store, tmp_path) -> SuiteResolver:
    return SuiteResolver(store, overrides={"example": broken_example(tmp_path)})


def test_a_pass_judges_finished_runs_and_leaves_open_ones(filled: Store) -> None:
    result = judge_runs(filled, SuiteResolver(filled))
    assert sorted(r.run_id for r in result.rows) == ["chinese", "good", "sheet"]
    assert result.open_runs == 1
    outcomes = {r.run_id: r.outcome for r in result.rows}
    assert outcomes == {"good": "pass", "chinese": "pass", "sheet": "pass"}
    sheet = next(r for r in result.rows if r.run_id == "sheet")
    assert [c.name for c in sheet.checks] == ["submitted", "answer"]


def test_verdict_history_survives_rejudging_and_current_is_latest(filled: Store, tmp_path) -> None:
    first = judge_runs(filled, broken_resolver(filled, tmp_path))
    second = judge_runs(filled, SuiteResolver(filled))
    with Views(filled, split=None) as v:
        history = v.con.execute("SELECT pass_id, run_id, outcome FROM verdict_history ORDER BY run_id, pass_id").fetchall()
        current = dict(v.con.execute("SELECT run_id, outcome FROM verdicts").fetchall())
    assert len(history) == 6
    assert ("%s" % first.pass_id, "chinese", "fail") in history
    assert current["chinese"] == "pass"
    assert current_rows(filled)["chinese"]["pass_id"] == second.pass_id
    assert [p["pass_id"] for p in passes(filled)] == [first.pass_id, second.pass_id]


def test_judge_version_changes_when_judge_code_changes(filled: Store, tmp_path) -> None:
    first = judge_runs(filled, broken_resolver(filled, tmp_path))
    second = judge_runs(filled, SuiteResolver(filled))
    v1 = {r.judge_version for r in first.rows}
    v2 = {r.judge_version for r in second.rows}
    assert v1.isdisjoint(v2)
    third = judge_runs(filled, broken_resolver(filled, tmp_path))
    assert {r.judge_version for r in third.rows} == v1  # same code, same version


def test_diff_lists_flips_with_check_evidence(filled: Store, tmp_path) -> None:
    judge_runs(filled, broken_resolver(filled, tmp_path))
    judge_runs(filled, SuiteResolver(filled))
    d = diff_passes(filled)
    assert d.common == 3
    [flip] = d.flips
    assert (flip.run_id, flip.before, flip.after) == ("chinese", "fail", "pass")
    [change] = flip.changes
    assert change.name == "answer"
    assert change.before["passed"] is False and change.after["passed"] is True
    assert change.after["actual"] == "北京现在二十度" and change.after["expected"] == 20


def test_dry_run_writes_nothing_but_shows_the_diff(filled: Store, tmp_path) -> None:
    judge_runs(filled, broken_resolver(filled, tmp_path))
    version = filled.version("verdicts")
    result = judge_runs(filled, SuiteResolver(filled), dry_run=True)
    assert filled.version("verdicts") == version and not result.written
    d = dry_run_diff(filled, result)
    assert [(f.run_id, f.after) for f in d.flips] == [("chinese", "pass")]


class Exploding(Suite):
    name = "example"
    code_modules = (sys.modules[__name__],)

    def task_ids(self):
        return ["current_temp"]

    def get_task(self, task_id, params=None):
        return task_id

    def task_data(self, task):
        return task

    def judge(self, task, state):
        if state.run_id == "chinese":
            raise ZeroDivisionError("boom in the judge")
        return Verdict.from_checks([Check(name="ok", passed=True)])


def test_a_judge_that_raises_gives_an_error_verdict_and_the_pass_goes_on(filled: Store) -> None:
    result = judge_runs(filled, SuiteResolver(filled, overrides={"example": Exploding()}))
    by_run = {r.run_id: r.as_dict() for r in result.rows}
    assert by_run["chinese"]["outcome"] == "error"
    assert "ZeroDivisionError: boom in the judge" in by_run["chinese"]["reason"]
    assert by_run["good"]["outcome"] == "pass" and by_run["sheet"]["outcome"] == "pass"


def test_unknown_suite_or_task_is_left_unjudged(store: Store) -> None:
    # Issue 23, item 4: a run traj cannot resolve keeps its verdict; the pass says which.
    lines = example_run("t1", task="no_such_task")
    ingest_bytes(store, jsonl(lines), "a")
    result = judge_runs(store, SuiteResolver(store))
    assert result.rows == [] and result.unresolved == [
        Unjudged(run_id="t1", suite="example", task="no_such_task", unknown="task")]


def test_filters_and_where(filled: Store) -> None:
    r = judge_runs(filled, SuiteResolver(filled), run_ids=["good"])
    assert [x.run_id for x in r.rows] == ["good"]
    r = judge_runs(filled, SuiteResolver(filled), where="mode = 'grounded'")
    assert [x.run_id for x in r.rows] == ["sheet"]
    with pytest.raises(NotFound):
        judge_runs(filled, SuiteResolver(filled), run_ids=["nope"])
    with pytest.raises(QueryError):
        judge_runs(filled, SuiteResolver(filled), where="1=1; DROP TABLE x")
    with pytest.raises(QueryError, match="read_csv"):
        judge_runs(filled, SuiteResolver(filled), where="run_id IN (SELECT * FROM read_csv('/etc/passwd'))")


def test_verdict_rejects_out_of_range_scores() -> None:
    with pytest.raises(ValueError):
        Verdict(outcome="pass", score=1.5)
    with pytest.raises(ValueError):
        Verdict(outcome="great", score=1.0)  # type: ignore[arg-type]


class Slow(Exploding):
    def judge(self, task, state):
        if state.run_id == "good":
            while True:  # a judge stuck in a loop
                pass
        return Verdict.from_checks([Check(name="ok", passed=True)])


def test_a_judge_past_its_time_budget_is_stopped_and_recorded_as_error(filled: Store) -> None:
    # 2 s: the quick runs (and the first run's loading of the suite) fit in it on a loaded machine.
    result = judge_runs(filled, SuiteResolver(filled, overrides={"example": Slow()}), timeout=2.0)
    by_run = {r.run_id: r.as_dict() for r in result.rows}
    assert by_run["good"]["outcome"] == "error" and by_run["good"]["reason"] == "judge exceeded its time budget of 2s"
    assert by_run["chinese"]["outcome"] == "pass" and by_run["sheet"]["outcome"] == "pass"


def test_workers_give_the_same_verdicts_in_the_same_order(filled: Store) -> None:
    one = judge_runs(filled, SuiteResolver(filled), dry_run=True, partition=1)
    two = judge_runs(filled, SuiteResolver(filled), dry_run=True, partition=1, workers=2)
    strip = lambda rows: [{k: v for k, v in r.as_dict().items() if k not in ("pass_id", "judged_at")} for r in rows]  # noqa: E731
    assert strip(one.rows) == strip(two.rows)
    slow = judge_runs(filled, SuiteResolver(filled, overrides={"example": Slow()}), partition=1, workers=2, timeout=2.0)
    assert {r.run_id: r.outcome for r in slow.rows} == {"chinese": "pass", "good": "error", "sheet": "pass"}
    assert next(r.reason for r in slow.rows if r.run_id == "good") == "judge exceeded its time budget of 2s"


class Stubborn(Exploding):
    def judge(self, task, state):
        if state.run_id == "good":
            while True:  # swallows even the soft stop
                try:
                    while True:
                        pass
                except BaseException:
                    continue
        return Verdict.from_checks([Check(name="ok", passed=True)])


def test_a_judge_that_swallows_the_stop_is_killed_with_its_worker(filled: Store) -> None:
    """The budget is 2 s (the watchdog kills at twice that): long enough on a loaded machine for
    a fresh worker to load the suite, version it and enter the judge's loop before the soft stop
    comes (a stop that came before the loop would end the judge softly, and this test would not
    be about a judge that swallows it), and for the two quick runs to pass."""
    import multiprocessing

    r = judge_runs(filled, SuiteResolver(filled, overrides={"example": Stubborn()}), partition=1, workers=2, timeout=2.0)
    by_run = {x.run_id: x.as_dict() for x in r.rows}
    assert [x.run_id for x in r.rows] == ["chinese", "good", "sheet"]
    assert by_run["good"]["outcome"] == "error"
    assert by_run["good"]["reason"] == "judge did not stop at its time budget of 2s; its worker was killed"
    assert by_run["chinese"]["outcome"] == "pass" and by_run["sheet"]["outcome"] == "pass"
    assert not multiprocessing.active_children()  # no worker survives the pass


def test_two_passes_at_once_in_one_process_each_give_their_own_verdicts(filled: Store, tmp_path) -> None:
    """Nothing of a pass is global: two judge_runs in two threads, with different suites for the
    same runs, each give what they give alone."""
    import threading

    strip = lambda rows: [(r.run_id, r.outcome, r.judge_version) for r in rows]  # noqa: E731
    alone_broken = strip(judge_runs(filled, broken_resolver(filled, tmp_path), dry_run=True).rows)
    alone_bundled = strip(judge_runs(filled, SuiteResolver(filled), dry_run=True).rows)
    assert alone_broken != alone_bundled
    barrier = threading.Barrier(2)
    got: dict[str, list] = {"broken": [], "bundled": []}
    errors: list[BaseException] = []

    def run(name: str, resolver: SuiteResolver) -> None:
        try:
            barrier.wait()
            for _ in range(3):
                got[name].append(strip(judge_runs(filled, resolver, dry_run=True, partition=1).rows))
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [
        threading.Thread(target=run, args=("broken", broken_resolver(filled, tmp_path))),
        threading.Thread(target=run, args=("bundled", SuiteResolver(filled))),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert got["broken"] == [alone_broken] * 3
    assert got["bundled"] == [alone_bundled] * 3


def test_stage_timings_come_through_the_hook(filled: Store) -> None:
    spent: dict[str, float] = {}
    judge_runs(filled, SuiteResolver(filled), hook=lambda stage, s: spent.__setitem__(stage, spent.get(stage, 0) + s))
    assert set(spent) == {"select", "load_replay", "judge", "write"} and all(v >= 0 for v in spent.values())
