"""A run the example suite cannot decide (review), and the one check that it is stored and shown
alike wherever the store is (local, S3) and whoever judged it (the local engine, Ray): the
queue, the verdict filter, SQL (verdicts and pass_rates), the report and its --share copy,
and an override that settles it. Used by tests/cli, tests/system/test_s3.py and test_ray.py."""

from __future__ import annotations

import json
from pathlib import Path


from helpers import example_run, jsonl, traj  # noqa: F401 - traj: the tests that use these helpers take it from here

#: 北京 is 20 in the world; the answer gives 20 and restates it as 25 in brackets.
TORN = "北京现在20度（25度）"


def review_store_events() -> bytes:
    """Three runs of batch b1: one the judge cannot tell, one pass, one fail."""
    return jsonl(example_run("rv-torn", TORN) + example_run("rv-pass", "北京现在20度")
                 + example_run("rv-fail", "北京现在22度"))


def check_review_shown(store: str, out: Path) -> None:
    """The store holds the three runs judged: review is stored and shown apart everywhere."""
    s = ["--store", store]
    rows = [json.loads(x) for x in traj("runs", "--verdict", "review,na", "--json", *s).stdout.splitlines()]
    assert [(r["run_id"], r["verdict"]) for r in rows] == [("rv-torn", "review")]
    queue = json.loads(traj("review", "--json", *s).stdout)
    assert queue["runs"] == 1
    [q] = queue["queue"]
    assert (q["run_id"], q["task"], q["verdict"], q["answer"]) == ("rv-torn", "current_temp", "review", TORN)
    assert "two ways" in q["reason"] and q["checks"][0]["name"] == "answer" and q["screens"]
    text = traj("review", *s).stdout
    assert "review  run rv-torn" in text and "traj override" in text
    # SQL: the verdicts view and the one pass rate (review apart: 1 of 2 rated runs pass).
    got = json.loads(traj("query", "SELECT review, rated, pass_rate FROM pass_rates WHERE level = 'all'",
                          "--json", *s).stdout.splitlines()[0])
    assert got == {"review": 1, "rated": 2, "pass_rate": 0.5}
    runs = traj("runs", *s).stdout
    assert "1 of 2 judged runs pass (50%); 1 review not counted" in runs
    # The report and its shared copy: a category of its own.
    for share in ((), ("--share",)):
        folder = out / ("share" if share else "full")
        r = traj("report", "--batch", "b1", "--out", folder, *share, *s)
        assert r.exit_code == 0, r.output
        metrics = json.loads((folder / "metrics.json").read_text())
        totals = metrics["totals"]
        assert (totals["review"], totals["pass_rate"], totals["counted_apart"]) == (1, 0.5, {"review": 1})
        summary = (folder / "summary.md").read_text()
        assert "| pass | fail | review |" in summary and "1 review not counted" in summary
    shared = (out / "share").rglob("*")
    assert any("review: answer" in p.read_text(errors="replace") for p in shared if p.is_file())
    # A person settles it: the override is the current verdict and the queue is empty.
    r = traj("override", "rv-torn", "--to", "pass", "--evidence", "北京 20°", "--by", "tester", *s)
    assert r.exit_code == 0, r.output
    assert "review → pass" in r.stdout
    assert json.loads(traj("review", "--json", *s).stdout)["runs"] == 0
    assert "(0 runs whose current verdict is review)" in traj("runs", "--verdict", "review", *s).stdout
    assert "2 of 3 judged runs pass" in traj("runs", *s).stdout
