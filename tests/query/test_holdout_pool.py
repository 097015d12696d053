"""Issue 14 item 2: a holdout run never leaks into the tune pool, whatever its run_started says.

The attack: a run of a holdout task whose ``run_started`` has no ``split``. Its pool is resolved
once, at ingest (the task's declared split), stored, and every view, report and command uses
it; a store written before (no split stored) is read the same way. Then every way to read its
verdict is tried: each must leave it out, or show it only under ``--split holdout`` with the
look recorded.
"""

from __future__ import annotations

import json
import msgspec

import pytest

from figures import HARDENING
from helpers import example_run, jsonl, line, traj
from judging.test_poisoned_runs import plant
from trajectory.query.sql import holdout_views
from trajectory.store.delta import Store

H = "h-weread-no-split"
EVIDENCE = "推荐值是89.5%"


def holdout_run() -> list[str]:
    # weread-book-rating is a holdout task of the bundled device suite; the run does not say so.
    return [
        line(H, 0, "run_started", suite="device", task="weread-book-rating", goal="微信读书里《三体》的推荐值是多少?",
             batch="b1", agent={"name": "a", "model": "m"}, device="R5CT40XYZ1", mode="text"),
        line(H, 1, "screen_read", text="《三体》 推荐值 89.5% 神作", app="weread"),
        line(H, 2, "answer_given", text=EVIDENCE),
        line(H, 3, "run_finished", outcome="succeeded"),
    ]


@pytest.fixture(params=["ingested", "older store"])
def sdir(request, tmp_path) -> str:
    root = str(tmp_path / "store")
    f = tmp_path / "runs.jsonl"
    f.write_bytes(jsonl(example_run("r1")))
    assert traj("ingest", str(f), "--store", root).exit_code == 0
    if request.param == "ingested":
        f.write_bytes(jsonl(holdout_run()))
        assert traj("ingest", str(f), "--store", root).exit_code == 0
        stored = {r["split"] for r in Store(root).read("events").to_pylist() if r["run_id"] == H}
        assert stored == {"holdout"}  # resolved once, at ingest, and kept
    else:
        plant(Store(root), holdout_run())  # as a traj that stored no split wrote it
    return root


class Looks:
    """Each attempt to read the holdout run's verdict: refused (left out) or recorded."""

    def __init__(self, store: Store):
        self.store = store
        self.views = 0

    def tune(self, output: str) -> None:
        HARDENING["holdout_reads"] += 1
        leaked = H in output or "89.5" in output
        HARDENING["holdout_leaked" if leaked else "holdout_refused"] += 1
        assert not leaked, output
        assert len(holdout_views(self.store)) == self.views  # a refused read records nothing

    def holdout(self, output: str) -> None:
        HARDENING["holdout_reads"] += 1
        self.views += 1
        recorded = len(holdout_views(self.store)) == self.views
        HARDENING["holdout_recorded" if recorded else "holdout_leaked"] += 1
        assert recorded and H in output, output


def test_every_read_of_a_holdout_runs_verdict_is_refused_or_recorded(sdir, tmp_path) -> None:
    store = Store(sdir)
    look = Looks(store)
    r = traj("judge", "--store", sdir)
    assert r.exit_code == 0 and "1 holdout run" in r.output, r.output
    look.tune(r.output)
    # The verdict row carries the run's pool, not the replayed state's (None).
    assert {v["split"] for v in store.read("verdicts").to_pylist() if v["run_id"] == H} == {"holdout"}
    for view in ("verdicts", "verdict_history", "runs"):
        look.tune(traj("query", f"SELECT * FROM {view}", "--format", "json", "--store", sdir).output)
        look.holdout(traj("query", f"SELECT * FROM {view}", "--split", "holdout", "--store", sdir).output)
    look.tune(traj("runs", "--store", sdir).output)
    r = traj("judge", "--dry-run", "--all", "--json", "--run", H, "--store", sdir)
    assert r.exit_code == 0 and json.loads(r.output)["holdout_hidden"] == 1, r.output
    look.tune(r.output)
    r = traj("judge", "--dry-run", "--all", "--json", "--run", H, "--split", "holdout", "--store", sdir)
    look.holdout(r.output)
    assert [v["run_id"] for v in json.loads(r.output)["verdicts"]] == [H]
    r = traj("override", H, "--to", "pass", "--evidence", EVIDENCE, "--by", "ann", "--json", "--store", sdir)
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["auto_outcome"] == "(holdout)"
    automatic = store.read("overrides").to_pylist()[0]["auto_outcome"]
    assert automatic in ("pass", "fail", "error", "na", "skipped")  # stored whole, shown to nobody
    assert len(holdout_views(store)) == look.views
    r = traj("override", H, "--to", "fail", "--evidence", EVIDENCE, "--by", "ann", "--store", sdir)
    assert "(holdout) → fail" in r.output
    r = traj("override", H, "--to", "pass", "--evidence", EVIDENCE, "--by", "ann", "--split", "holdout",
             "--json", "--store", sdir)
    look.views += 1
    assert json.loads(r.output)["auto_outcome"] == automatic and len(holdout_views(store)) == look.views
    HARDENING["holdout_reads"] += 1
    HARDENING["holdout_recorded"] += 1
    look.tune(traj("query", "SELECT * FROM overrides", "--format", "json", "--store", sdir).output)
    look.holdout(traj("query", "SELECT * FROM overrides", "--split", "holdout", "--store", sdir).output)
    look.tune(traj("show", H, "--store", sdir).output.split("verdict:", 1)[1])
    # The tune report of the batch has the tune run only.
    out = tmp_path / "rep"
    r = traj("report", "--batch", "b1", "--out", str(out), "--store", sdir)
    assert r.exit_code == 0, r.output
    for path in out.iterdir():
        # The holdout-view log names what was looked at (that is its point), not what was seen.
        text = path.read_text(encoding="utf-8")
        look.tune("\n".join(x for x in text.splitlines() if "by tester:" not in x))
    scores = [json.loads(x) for x in (out / "scores.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [s["run_id"] for s in scores] == ["r1"]


def test_a_holdout_runs_flip_shows_in_traj_diff_only_under_split_holdout(sdir) -> None:
    """A later pass flips the holdout run (as a fixed rule would): plain ``traj diff`` and
    ``traj diff A B`` leave its flip out and say so; ``--split holdout`` shows it and records the look."""
    import dataclasses

    from trajectory.judging import SuiteResolver, judge_runs
    from trajectory.judging.passes import write_pass

    store = Store(sdir)
    look = Looks(store)
    assert traj("judge", "--store", sdir).exit_code == 0
    again = judge_runs(store, SuiteResolver(store), dry_run=True)
    flipped = [msgspec.structs.replace(r, outcome="fail" if r.outcome == "pass" else "pass") if r.run_id == H else r
               for r in again.rows]
    write_pass(store, dataclasses.replace(again, rows=flipped), kind="judge", by="t", command="t", filters={})
    first, second = [p["pass_id"] for p in store.read("passes").sort_by("started_at").to_pylist()]
    for args in ((), (first, second)):
        r = traj("diff", *args, "--store", sdir)
        assert r.exit_code == 0 and "1 flip of holdout runs" in r.output, r.output
        look.tune(r.output)
        r = traj("diff", *args, "--json", "--store", sdir)
        assert json.loads(r.output)["holdout_hidden"] == 1 and json.loads(r.output)["flips"] == []
        look.tune(r.output)
        r = traj("diff", *args, "--split", "holdout", "--store", sdir)
        look.holdout(r.output)
