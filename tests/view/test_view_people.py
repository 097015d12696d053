"""The viewer against what people decided: the diff and run pages mark a verdict that disagrees
with a person's, and the overview shows how each judge version agrees with people."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient
from typer.testing import CliRunner
from view_helpers import FLIP_RUN, OVERRIDDEN_RUN, OVERRIDE_EVIDENCE, copy_store

from trajectory.cli.main import app
from trajectory.view.app import create_app
from trajectory.view.data import StoreData

# The demo's fix flips FLIP_RUN fail -> pass; the person here says fail, quoting its screen.
FLIP_EVIDENCE = "14:30 开会"


@pytest.fixture(scope="module")
def store(demo_store, tmp_path_factory):
    path = copy_store(demo_store, tmp_path_factory.mktemp("people") / "store")
    r = CliRunner().invoke(app, ["override", FLIP_RUN, "--to", "fail", "--evidence", FLIP_EVIDENCE,
                                 "--by", "grader", "--store", str(path)])
    assert r.exit_code == 0, r.output
    return path


@pytest.fixture(scope="module")
def client(store):
    data = StoreData(str(store), background_index=False)
    with TestClient(create_app(data)) as c:
        yield c
    data.close()


def test_the_diff_marks_the_flip_that_disagrees_and_counts_every_disagreement(client):
    got = client.get("/api/diff?per_page=500").json()
    flips = {f["run_id"]: f for f in got["flips"]}
    mark = flips[FLIP_RUN]["disagrees_with_person"]
    assert (mark["by"], mark["outcome"], mark["to_outcome"], mark["evidence"]) == ("grader", "pass", "fail", FLIP_EVIDENCE)
    assert all(f["disagrees_with_person"] is None for r, f in flips.items() if r != FLIP_RUN)
    # The overridden run fails in both passes (no flip), and still disagrees with its person.
    assert OVERRIDDEN_RUN not in flips
    assert got["disagree_with_people"] == 2
    assert {(d["run_id"], d["outcome"], d["to_outcome"]) for d in got["disagreements"]} == {
        (FLIP_RUN, "pass", "fail"), (OVERRIDDEN_RUN, "fail", "pass")}
    html = client.get("/diff").text
    assert 'id="disagreements"' in html and "2 verdicts</b>" in html
    assert "grader said" in html and f"“{FLIP_EVIDENCE}”" in html and f"“{OVERRIDE_EVIDENCE}”" in html


def test_the_run_page_marks_a_verdict_that_disagrees_and_keeps_the_person_current(client):
    got = client.get(f"/api/runs/{OVERRIDDEN_RUN}").json()
    assert got["shown"]["outcome"] == "pass" and got["verdict"]["outcome"] == "fail"
    person = got["disagrees_with_person"]
    assert (person["by"], person["to_outcome"], person["evidence"]) == ("reviewer", "pass", OVERRIDE_EVIDENCE)
    assert 'id="disagrees"' in client.get(f"/runs/{OVERRIDDEN_RUN}").text
    # A run nobody re-judged is not marked.
    other = client.get("/api/runs/gui-careful-00").json()
    assert other["disagrees_with_person"] is None
    assert 'id="disagrees"' not in client.get("/runs/gui-careful-00").text


def test_the_overview_shows_agreement_per_task_and_judge_version(client):
    got = client.get("/api").json()["agreement"]
    rows = {(g["task"], g["judge_version"]): g for g in got}
    alarm = [g for g in got if g["task"] == "AlarmTime"]
    # Each AlarmTime run is judged by two versions (the demo's broken copy, then the bundled
    # suite; a version also covers the run's task data): the broken rule failed FLIP_RUN as its
    # person did, the fix passes it; OVERRIDDEN_RUN fails under both, where its person said pass.
    figures = sorted((g["rated"], g["agree"], g["judge_pass_person_fail"], g["judge_fail_person_pass"]) for g in alarm)
    assert figures == [(1, 0, 0, 1), (1, 0, 0, 1), (1, 0, 1, 0), (1, 1, 0, 0)]
    assert all(g["kappa"] is None for g in alarm)  # one run each: one class, so n/a
    assert sum(g["rated"] for g in got) == 4  # no other run of the pool was re-judged
    assert len(rows) == len(got)
    html = client.get("/").text
    assert 'id="agreement"' in html and "n/a" in html
