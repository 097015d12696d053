"""`traj report` shows how the judge agrees with people on the batch's re-judged runs: counts,
rate and Cohen's kappa per suite, task and judge version (judges/agreement.py computes them)."""

from __future__ import annotations

import json

import helpers
from helpers import example_run, jsonl


EVIDENCE = "北京 20° 多云"


def traj(*args: str) -> str:
    r = helpers.traj(*args)
    assert r.exit_code == 0, r.output
    return r.stdout


def test_the_report_gives_agreement_counts_rate_and_kappa(tmp_path):
    s = str(tmp_path / "store")
    runs = (example_run("ok-1") + example_run("ok-2") + example_run("wrong-1", "北京现在25度")
            + example_run("wrong-2", "北京现在25度") + example_run("other", batch="b2"))
    f = tmp_path / "runs.jsonl"
    f.write_bytes(jsonl(runs))
    traj("ingest", str(f), "--store", s)
    traj("judge", "--store", s)
    # Judge pass/person pass, judge fail/person pass (a wrong fail), judge fail/person fail.
    for run, to in (("ok-1", "pass"), ("wrong-1", "pass"), ("wrong-2", "fail")):
        traj("override", run, "--to", to, "--evidence", EVIDENCE, "--by", "grader", "--store", s)
    traj("report", "--batch", "b1", "--out", str(tmp_path / "r"), "--store", s)
    metrics = json.loads((tmp_path / "r" / "metrics.json").read_text(encoding="utf-8"))
    (a,) = metrics["agreement"]
    version = a["judge_version"]
    assert (a["suite"], a["task"], a["rated"], a["agree"]) == ("example", "current_temp", 3, 2)
    assert (a["both_pass"], a["both_fail"], a["judge_pass_person_fail"], a["judge_fail_person_pass"]) == (1, 1, 0, 1)
    # observed 2/3; chance (1*2 + 2*1)/9 = 4/9; kappa = (2/3 - 4/9) / (1 - 4/9) = 0.4
    assert a["rate"] == round(2 / 3, 4) and a["kappa"] == 0.4
    summary = (tmp_path / "r" / "summary.md").read_text(encoding="utf-8")
    assert "## Judge agreement with people" in summary
    assert f"| example | current_temp | {version} | 3 | 2 | 0 | 1 | 67% | 0.40 |" in summary
    # A shared report keeps the figures (no names, no evidence).
    traj("report", "--batch", "b1", "--out", str(tmp_path / "shared"), "--share", "--store", s)
    shared = json.loads((tmp_path / "shared" / "metrics.json").read_text(encoding="utf-8"))
    assert [(x["rated"], x["agree"], x["kappa"]) for x in shared["agreement"]] == [(3, 2, 0.4)]
    assert "grader" not in (tmp_path / "shared" / "summary.md").read_text(encoding="utf-8")
    # A batch nobody re-judged says so, rather than showing an empty table.
    traj("report", "--batch", "b2", "--out", str(tmp_path / "r2"), "--store", s)
    assert "(no run of this batch was re-judged by a person)" in (tmp_path / "r2" / "summary.md").read_text(
        encoding="utf-8")
    assert json.loads((tmp_path / "r2" / "metrics.json").read_text(encoding="utf-8"))["agreement"] == []


def test_a_verdict_neither_pass_nor_fail_is_counted_apart():
    from judges.agreement import agreement
    from trajectory.reports.agreement import agreement_lines

    rows = [{"suite": "s", "task": "t", "judge_version": "v1", **agreement(
        [("pass", "pass"), ("error", "fail")]).to_json()}]
    lines = agreement_lines(rows)
    assert "| s | t | v1 | 1 | 1 | 0 | 0 | 100% | n/a |" in lines
    assert "(1 verdict of re-judged runs neither pass nor fail: not counted)" in lines
