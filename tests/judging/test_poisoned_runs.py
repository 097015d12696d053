"""Issue 14 item 6: one run whose events cannot be replayed must not stop every judging pass.

The attack: a run with a well-formed patch on a path that does not exist (``replace
/no/such``). Ingest refuses it when it can know the state the patch follows; a store that
already holds one (written before this check) still judges: that run gets an ``error`` verdict
naming the event, every other run is judged, and the pass is written.
"""

from __future__ import annotations

import json
import uuid


from helpers import example_run, jsonl, line, traj
from trajectory.ingest.plain import parse, rows, run_info
from trajectory.judging import SuiteResolver, judge_runs
from trajectory.query.sql import Views
from trajectory.store.delta import Store

POISON = {"op": "replace", "path": "/no/such", "value": 1}


def poisoned_run(run_id: str) -> list[str]:
    good = example_run(run_id)
    # Before run_finished: a patch on a member the world does not have.
    return good[:-1] + [line(run_id, len(good) - 1, "state_changed", patch=[POISON]),
                        line(run_id, len(good), "run_finished", outcome="succeeded")]


def plant(store: Store, lines: list[str]) -> None:
    """Write events the way a traj without the ingest check did: parsed, not planned."""
    parsed = parse(jsonl(lines), "old.jsonl")
    infos = {p.event.run_id: run_info(p.event, None) for p in parsed if p.event.seq == 0}
    with store.lock():
        store.append("events", rows([(p, infos[p.event.run_id]) for p in parsed], uuid.uuid4().hex))


def verdicts(store: Store) -> dict[str, dict]:
    with Views(store, split=None) as v:
        return {r["run_id"]: r for r in v.arrow("SELECT run_id, outcome, reason FROM verdicts").to_pylist()}


def test_a_poisoned_run_gets_its_own_error_verdict_and_the_pass_goes_on(tmp_path) -> None:
    sdir = str(tmp_path / "store")
    good = tmp_path / "good.jsonl"
    good.write_bytes(jsonl(example_run("r1") + example_run("r3", "北京现在25度")))
    assert traj("ingest", str(good), "--store", sdir).exit_code == 0
    store = Store(sdir)
    plant(store, poisoned_run("r2"))
    r = traj("judge", "--store", sdir)
    assert r.exit_code == 0, r.output
    got = verdicts(store)
    assert got["r1"]["outcome"] == "pass" and got["r3"]["outcome"] == "fail"
    bad = got["r2"]
    assert bad["outcome"] == "error"
    assert "seq 4" in bad["reason"] and "/no/such" in bad["reason"], bad["reason"]
    # The dry run and a pass on worker processes (one run per partition) say the same.
    r = traj("judge", "--dry-run", "--json", "--store", sdir)
    assert r.exit_code == 0, r.output
    for workers, partition in ((1, 1), (2, 1)):
        result = judge_runs(store, SuiteResolver(store), dry_run=True, workers=workers, partition=partition)
        by_run = {row.run_id: row.as_dict() for row in result.rows}
        assert by_run["r2"]["outcome"] == "error" and "seq 4" in by_run["r2"]["reason"]
        assert by_run["r1"]["outcome"] == "pass" and by_run["r3"]["outcome"] == "fail"


def test_ingest_refuses_a_patch_that_cannot_apply_naming_file_line_and_field(tmp_path) -> None:
    sdir = str(tmp_path / "store")
    f = tmp_path / "runs.jsonl"
    f.write_bytes(jsonl(example_run("r1") + poisoned_run("r2")))
    r = traj("ingest", str(f), "--store", sdir)
    assert r.exit_code == 1
    # r1 has 5 lines; r2's patch is its 5th event: line 10.
    assert f"{f}:10: $.patch[0]: cannot apply" in r.output and "no member 'no'" in r.output, r.output
    assert not Store(sdir).has_table("events")  # a refused batch writes nothing


def test_ingest_knows_the_state_a_continued_run_follows_from_the_store(tmp_path) -> None:
    sdir = str(tmp_path / "store")
    head = example_run("r1", finished=False)
    first = tmp_path / "first.jsonl"
    first.write_bytes(jsonl(head + [line("r1", 4, "state_changed", patch=[{"op": "add", "path": "/k", "value": {}}])]))
    assert traj("ingest", str(first), "--store", sdir).exit_code == 0
    rest = tmp_path / "rest.jsonl"
    ok = line("r1", 5, "state_changed", patch=[{"op": "add", "path": "/k/x", "value": 1}])
    bad = line("r1", 6, "state_changed", patch=[{"op": "test", "path": "/k/x", "value": 1}, POISON])
    rest.write_bytes(jsonl([ok, bad]))
    r = traj("ingest", str(rest), "--store", sdir)
    assert r.exit_code == 1 and f"{rest}:2: $.patch[1]: cannot apply" in r.output, r.output
    # The same continuation without the bad line is accepted: the check follows the stored state.
    rest.write_bytes(jsonl([ok, line("r1", 6, "run_finished", outcome="succeeded")]))
    assert traj("ingest", str(rest), "--store", sdir).exit_code == 0
    state = json.loads(traj("show", "r1", "--json", "--store", sdir).output)
    assert state["state"]["k"] == {"x": 1}
