"""A suite checked against people's verdicts before its verdicts are written
(trajectory/judging/against_people.py): a rule that turns a person's pass into a fail is
listed, the right rule agrees, and nothing is written either way."""

from __future__ import annotations

import shutil

import pytest
from helpers import example_run, jsonl

import suites as suite_pkg
from trajectory.cli.override_cmds import record_override
from trajectory.demo import broken
from trajectory.ingest.files import ingest_bytes
from trajectory.judging import SuiteResolver, judge_runs, passes
from trajectory.judging.against_people import check_against_people
from trajectory.store.delta import Store


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "store")
    runs = example_run("numeral", "北京现在二十度") + example_run("plain") + example_run("wrong", "北京现在25度")
    ingest_bytes(s, jsonl(runs), "runs.jsonl")
    judge_runs(s, SuiteResolver(s))
    # The person agrees with the bundled rule on all three, quoting the runs' answers.
    record_override(s, "numeral", "pass", "北京现在二十度", "grader")
    record_override(s, "wrong", "fail", "北京现在25度", "grader")
    return s


def test_the_right_rule_agrees_with_people(store):
    got = check_against_people(store, SuiteResolver(store), "example")
    assert got.ok and got.checked == 2 and got.disagreements == [] and got.names == ["example"]


def test_a_broken_rule_is_named_against_the_person_and_nothing_is_written(store, tmp_path):
    copy = tmp_path / "broken-example"
    shutil.copytree(suite_pkg.builtin_folder("example"), copy, ignore=shutil.ignore_patterns("__pycache__"))
    broken.example(copy)  # "二十度" no longer states 20
    resolver = SuiteResolver(store, overrides={"example": suite_pkg.load_folder(copy)})
    before = len(passes(store))
    got = check_against_people(store, resolver, "example")
    assert not got.ok and got.checked == 2
    (d,) = got.disagreements
    assert (d["run_id"], d["judge"], d["person"], d["by"], d["evidence"]) == (
        "numeral", "fail", "pass", "grader", "北京现在二十度")
    assert d["failed_checks"] and d["failed_checks"][0]["actual"] == "北京现在二十度"
    assert len(passes(store)) == before
    assert got.to_json()["disagree_with_people"] == 1


def test_a_later_verdict_of_the_person_is_the_one_compared(store):
    record_override(store, "wrong", "pass", "北京现在25度", "grader")  # changed their mind
    got = check_against_people(store, SuiteResolver(store), "example")
    assert [(d["run_id"], d["judge"], d["person"]) for d in got.disagreements] == [("wrong", "fail", "pass")]
