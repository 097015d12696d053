"""Issue 23, item 8: one definition of every figure shown in two places.

The pass rate is pass / (pass + fail), every other outcome counted apart (trajectory/rates.py):
the report's summary.md and metrics.json, `traj runs`, the viewer's overview, the SQL view
`pass_rates` and the demo's example query give the same figure for the same verdicts. And a
diff counts the same runs in the CLI and in the viewer (each pool's own runs; the other pool's apart).
"""

from __future__ import annotations

import json

import pytest

from cli_support import finished, ingest_lines, traj
from helpers import example_run, line

SUITE = '''
import sys
from judges.base import Check, Suite, Verdict


class Mixed(Suite):
    name = "mixed"
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
            raise ZeroDivisionError("boom")
        if state.answer == "na":
            return Verdict.na("does not apply")
        return Verdict.from_checks([Check(name="ok", passed=state.answer == "yes")])


def load(path=None):
    return Mixed()
'''

# 3 pass, 1 fail, 2 na, 1 error in the tune pool; one more pass in the holdout pool.
ANSWERS = {"a": "yes", "b": "yes", "c": "yes", "d": "no", "e": "na", "f": "na", "g": "raise"}


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> str:
    tmp = tmp_path_factory.mktemp("figures")
    folder = tmp / "mixed"
    folder.mkdir()
    (folder / "__init__.py").write_text(SUITE)
    path = str(tmp / "store")
    lines = [x for rid, answer in ANSWERS.items() for x in finished(rid, "mixed", "t", answer, batch="b1")]
    lines += finished("h", "mixed", "t", "yes", batch="b1", split="holdout")
    ingest_lines(path, lines)
    assert traj("suite", "add", "mixed", folder, "--store", path).exit_code == 0
    assert traj("judge", "--store", path).exit_code == 0
    assert traj("judge", "--all", "--store", path).exit_code == 0  # a second pass over the same runs
    return path


RATE = 3 / (3 + 1)


def test_the_report_and_metrics_say_pass_over_pass_plus_fail(store, tmp_path) -> None:
    r = traj("report", "--batch", "b1", "--out", tmp_path / "rep", "--store", store)
    assert r.exit_code == 0, r.output
    summary = (tmp_path / "rep" / "summary.md").read_text()
    assert "3 of 4 judged runs pass (75%); 2 na, 1 error not counted" in summary
    totals = json.loads((tmp_path / "rep" / "metrics.json").read_text())["totals"]
    assert totals["pass_rate"] == RATE and totals["pass_rate_of"] == 4
    assert totals["counted_apart"] == {"na": 2, "error": 1}


def test_traj_runs_says_the_same_rate(store) -> None:
    r = traj("runs", "--store", store)
    assert r.stdout.splitlines()[-1] == "current verdicts: 3 of 4 judged runs pass (75%); 2 na, 1 error not counted"


def test_sql_offers_the_rate_as_a_view(store) -> None:
    r = traj("query", "SELECT level, suite, task, pass, fail, na, error, rated, pass_rate FROM pass_rates "
             "ORDER BY level", "--format", "json", "--store", store)
    assert r.exit_code == 0, r.output
    rows = {x["level"]: x for x in json.loads(r.stdout)}
    for level in ("all", "suite", "task"):
        assert rows[level]["pass_rate"] == RATE and rows[level]["rated"] == 4
        assert (rows[level]["na"], rows[level]["error"]) == (2, 1)
    holdout = traj("query", "SELECT pass, pass_rate FROM pass_rates WHERE level = 'all'", "--split", "holdout",
                   "--format", "json", "--store", store)
    assert json.loads(holdout.stdout) == [{"pass": 1, "pass_rate": 1.0}]


def test_the_demos_example_query_counts_na_apart(store) -> None:
    from trajectory.demo import QUERIES

    [(title, sql)] = [q for q in QUERIES if "pass rate" in q[0]]
    r = traj("query", sql, "--format", "json", "--store", store)
    [row] = json.loads(r.stdout)
    assert row["pass_rate"] == round(RATE, 2) and row["runs"] == 7


def test_the_viewer_shows_the_same_rate(store) -> None:
    from starlette.testclient import TestClient

    from trajectory.view.app import create_app
    from trajectory.view.data import StoreData

    client = TestClient(create_app(StoreData(store)))
    o = client.get("/api").json()
    [suite] = [s for s in o["suites"] if s["suite"] == "mixed"]
    [task] = [t for t in o["tasks"] if t["suite"] == "mixed"]
    assert suite["pass_rate"] == task["pass_rate"] == RATE
    for p in o["pass_series"]:
        assert p["pass_rate"] == RATE  # each pass: 3 pass, 1 fail in the tune pool
    page = client.get("/").text
    assert "75%" in page and "43%" not in page  # 3 of 7 would count na and error against it


def test_the_cli_and_the_viewer_diff_count_the_same_runs(store) -> None:
    from starlette.testclient import TestClient

    from trajectory.view.app import create_app
    from trajectory.view.data import StoreData

    cli = json.loads(traj("diff", "--json", "--store", store).stdout)
    view = TestClient(create_app(StoreData(store))).get("/api/diff").json()
    assert cli["runs_in_both"] == view["common"] == len(ANSWERS)  # the holdout run counted apart
    assert traj("diff", "--store", store).stdout.startswith(
        f"diff {cli['after']} against each run's previous verdict: {len(ANSWERS)} runs judged before, 0 flips")
    # The holdout pool's diff counts its own runs only, in the CLI as in the viewer.
    holdout = json.loads(traj("diff", "--json", "--split", "holdout", "--store", store).stdout)
    held = TestClient(create_app(StoreData(store, "holdout"))).get("/api/diff").json()
    assert holdout["runs_in_both"] == held["common"] == 1
    assert holdout["tune_hidden"] == 0 and holdout["split"] == "holdout"


def test_a_new_outcome_is_counted_apart_without_a_change_here() -> None:
    """Issue 26 adds `review`: the rate needs no change to leave it out and show it apart."""
    from collections import Counter

    from trajectory.query.rates import pass_rate, rate_fields, rate_line

    counts = Counter({"pass": 2, "fail": 2, "review": 3, "na": 1})
    assert pass_rate(counts) == 0.5
    assert rate_fields(counts)["counted_apart"] == {"na": 1, "review": 3}
    # the others in the order of judges.base.OUTCOMES
    assert rate_line(counts) == "2 of 4 judged runs pass (50%); 3 review, 1 na not counted"
    assert pass_rate(Counter({"na": 3})) is None
