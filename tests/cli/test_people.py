"""People's verdicts against the judge's, on real commands: a judging pass says which of its
verdicts disagree with a person's (text, --json, traj diff, the verdicts view), and `traj suite
check NAME --store S` checks a suite against the runs people re-judged before its verdicts are
written. The person's verdict stays current throughout; holdout runs stay behind --split holdout."""

from __future__ import annotations

import json

import pytest
import helpers
from helpers import example_run, jsonl

from trajectory.query.sql import holdout_views
from trajectory.store.delta import Store

RUN = "gui-sloppy-16"  # the demo's IsRainyTomorrow run that answers 不会下雨: the judge fails it
SCREEN = "上海 18° 小雨"  # quoted from its screen by the person who says it passes
ANSWER = "上海明天不会下雨"


def traj(*args: str, code: int | None = 0):
    r = helpers.traj(*args)
    if code is not None:
        assert r.exit_code == code, r.output
    return r


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    path = tmp_path_factory.mktemp("people") / "store"
    traj("demo", "--suite", "gui", "--store", str(path))
    return str(path)


def passes(store: str) -> int:
    return len(traj("passes", "--json", "--store", store).stdout.splitlines())


def test_a_person_overrides_the_judge_and_every_pass_then_says_so(demo):
    s = demo
    traj("override", RUN, "--to", "pass", "--evidence", SCREEN, "--by", "alice", "--store", s)
    out = traj("judge", "--all", "--store", s).stdout.splitlines()
    at = out.index("1 verdict disagrees with a person's:")
    assert out[at + 1:] == [f"  {RUN} (weather/IsRainyTomorrow): judge fail, alice said pass: “{SCREEN}”",
                            f'      failing check answer: expected "会下雨", actual "{ANSWER}"']
    got = json.loads(traj("judge", "--all", "--json", "--store", s).stdout)
    assert got["disagree_with_people"] == 1
    (d,) = got["disagreements"]
    assert (d["run_id"], d["task"], d["judge"], d["person"], d["by"], d["evidence"]) == (
        RUN, "IsRainyTomorrow", "fail", "pass", "alice", SCREEN)
    assert [c["name"] for c in d["failed_checks"]] == ["answer"]
    # Nothing is overwritten: the person's verdict is current, and a query selects the disagreement.
    rows = json.loads(traj("query", "SELECT run_id, outcome, decided_by, auto_outcome FROM verdicts "
                           "WHERE disagrees_with_person", "--format", "json", "--store", s).stdout)
    assert rows == [{"run_id": RUN, "outcome": "pass", "decided_by": "human", "auto_outcome": "fail"}]
    diff = traj("diff", "--store", s).stdout
    assert "0 flips" in diff and f"disagrees with a person's:\n  {RUN} (weather/IsRainyTomorrow)" in diff
    assert json.loads(traj("diff", "--json", "--store", s).stdout)["disagree_with_people"] == 1

    # The suite checked against people, before anything is written: exit 1, the run named.
    before = passes(s)
    r = traj("suite", "check", "weather", "--store", s, code=1)
    assert f"{RUN} (weather/IsRainyTomorrow): judge fail, alice said pass: “{SCREEN}”" in r.stdout
    assert "failing check answer" in r.stdout and "1 run a person re-judged, 1 disagrees" in r.output
    checked = json.loads(traj("suite", "check", "weather", "--json", "--store", s, code=1).stdout)
    assert checked["ok"] is False and checked["people"]["checked"] == 1
    assert [d["run_id"] for d in checked["people"]["disagreements"]] == [RUN]
    # The dry run shows the same disagreement among its flips, and writes nothing either.
    dry = traj("judge", "--dry-run", "--all", "--store", s).stdout
    assert "[dry run: nothing written]" in dry and f"1 verdict disagrees with a person's:\n  {RUN}" in dry
    assert passes(s) == before

    # The person's later verdict agrees with the judge: the suite check passes.
    traj("override", RUN, "--to", "fail", "--evidence", ANSWER, "--by", "alice", "--store", s)
    r = traj("suite", "check", "weather", "--store", s)
    assert "1 run a person re-judged, 0 disagree" in r.output and RUN not in r.stdout
    assert "0 verdicts disagree with a person's" in traj("judge", "--all", "--store", s).stdout
    assert traj("query", "SELECT count(*) AS n FROM verdicts WHERE disagrees_with_person", "--format", "json",
                "--store", s).stdout.strip() == '[{"n": 0}]'


def test_a_flip_that_disagrees_is_marked_in_the_dry_run(demo, tmp_path):
    # A person says the run passes; a rule that passed it fails it: the flip is marked.
    s = str(tmp_path / "store")
    import shutil

    shutil.copytree(demo, s)
    traj("override", "gui-careful-00", "--to", "fail", "--evidence", "北京 20° 多云", "--by", "bob", "--store", s)
    traj("judge", "--all", "--store", s)
    got = json.loads(traj("diff", "--json", "--store", s).stdout)
    assert [d["run_id"] for d in got["disagreements"]] == ["gui-careful-00"]
    assert all(f["disagrees_with_person"] is None for f in got["flips"])  # no flip: pass both times


def test_suite_check_names_an_unknown_suite_and_keeps_the_folder_form(demo):
    r = traj("suite", "check", "wether", "--store", demo, code=1)
    assert "wether: no such folder" in r.output and "did you mean weather?" in r.output
    r = traj("suite", "check", "example", "--store", demo)
    assert "ok: suite example" in r.output and "suite example against people: 0 runs a person re-judged" in r.output


def test_holdout_disagreements_are_shown_only_to_a_recorded_look(tmp_path):
    s = str(tmp_path / "store")
    held = example_run("held-1", "北京现在25度")
    held[0] = held[0].replace('"batch": "b1"', '"batch": "b1", "split": "holdout"')
    f = tmp_path / "runs.jsonl"
    f.write_bytes(jsonl(example_run("tune-1", "北京现在25度") + held))
    traj("ingest", str(f), "--store", s)
    traj("judge", "--store", s)
    for run in ("tune-1", "held-1"):
        traj("override", run, "--to", "pass", "--evidence", "北京 20° 多云", "--by", "carol", "--store", s)
    looks = len(holdout_views(Store(s)))
    got = json.loads(traj("judge", "--all", "--json", "--store", s).stdout)
    assert [d["run_id"] for d in got["disagreements"]] == ["tune-1"] and got["holdout_hidden"] == 1
    r = traj("suite", "check", "example", "--store", s, code=1)
    assert "tune-1" in r.stdout and "held-1" not in r.output and "1 holdout run left out" in r.output
    assert len(holdout_views(Store(s))) == looks
    r = traj("suite", "check", "example", "--split", "holdout", "--store", s, code=1)
    assert "held-1" in r.stdout and "tune-1" not in r.stdout
    assert len(holdout_views(Store(s))) == looks + 1
    got = json.loads(traj("judge", "--all", "--json", "--split", "holdout", "--store", s).stdout)
    assert sorted(d["run_id"] for d in got["disagreements"]) == ["held-1", "tune-1"]
