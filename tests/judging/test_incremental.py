"""Incremental judging (`traj judge` without --all): only the runs whose verdict no longer
stands are judged, and the verdicts then equal those of judging everything."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import suites as suite_pkg
from helpers import example_run, jsonl, line
from suites.example import ExampleSuite
from trajectory.demo import broken_suites
from trajectory.ingest.files import ingest_bytes
from trajectory.judging import JUDGEMENT_SUITE, SuiteResolver, current_rows, judge_runs, passes
from trajectory.query.sql import Views
from trajectory.store.delta import Store
from trajectory.judging.trust import trust_file_judgements

COMPARED = ("outcome", "score", "reason", "judge_version", "details")


def standing(store: Store) -> dict[str, tuple]:
    """Every run's current verdict, as far as a judge decides it."""
    return {
        run_id: (*(row[k] for k in COMPARED), [(c["name"], c["passed"], c["expected"], c["actual"]) for c in row["checks"]])
        for run_id, row in current_rows(store).items()
    }


def full_dry_run(store: Store, resolver: SuiteResolver) -> dict[str, tuple]:
    """What judging every finished run now would give (nothing written)."""
    rows = [r.as_dict() for r in judge_runs(store, resolver, dry_run=True).rows]
    return {
        r["run_id"]: (*(r[k] for k in COMPARED), [(c["name"], c["passed"], c["expected"], c["actual"]) for c in r["checks"]])
        for r in rows
    }


def partner_of(store: Store, run_id: str) -> str | None:
    """The partner the run's latest verdict was judged with."""
    with Views(store, split=None) as v:
        return v.con.execute(
            "SELECT partner FROM _verdicts WHERE run_id = ? ORDER BY judged_at DESC LIMIT 1", [run_id]
        ).fetchone()[0]


def judged(result) -> list[str]:
    return sorted(r.run_id for r in result.rows)


def device_copy(tmp: Path, edit_task: str | None = None) -> object:
    """A folder copy of the device suite (same code, same version), with one task's data
    changed when ``edit_task`` names it (a fix that touches one task)."""
    copy = tmp / "device"
    shutil.copytree(suite_pkg.builtin_folder("device"), copy, ignore=shutil.ignore_patterns("__pycache__"))
    if edit_task:
        [path] = [p for p in (copy / "tasks").rglob("*.json") if p.stem == edit_task]
        data = json.loads(path.read_text())
        data["maxSteps"] = (data.get("maxSteps") or 10) + 1  # a change of data, not of verdict
        path.write_text(json.dumps(data, ensure_ascii=False))
    return suite_pkg.load_folder(copy)


# -- the rules, one at a time -----------------------------------------------------------------


def test_only_runs_without_a_standing_verdict_are_judged(store: Store) -> None:
    ingest_bytes(store, jsonl(example_run("a") + example_run("b") + example_run("open", finished=False)), "r.jsonl")
    resolver = SuiteResolver(store)
    first = judge_runs(store, resolver, incremental=True)
    assert judged(first) == ["a", "b"] and first.up_to_date == 0 and first.open_runs == 1
    again = judge_runs(store, resolver, incremental=True)
    assert again.rows == [] and again.up_to_date == 2 and not again.written
    assert "nothing to judge: 2 runs up to date" in again.summary()
    assert len(passes(store)) == 1  # nothing to judge writes no pass
    # The open run finishes: only it is judged.
    ingest_bytes(store, jsonl([line("open", 4, "run_finished", outcome="succeeded")]), "fin.jsonl")
    assert judged(judge_runs(store, resolver, incremental=True)) == ["open"]
    # --all judges everything again.
    assert judged(judge_runs(store, resolver)) == ["a", "b", "open"]


def test_filters_narrow_an_incremental_pass(store: Store) -> None:
    ingest_bytes(store, jsonl(example_run("a", batch="b1") + example_run("b", batch="b2")), "r.jsonl")
    resolver = SuiteResolver(store)
    assert judged(judge_runs(store, resolver, incremental=True, batch="b1")) == ["a"]
    assert judged(judge_runs(store, resolver, incremental=True, where="batch = 'b2'")) == ["b"]
    assert judge_runs(store, resolver, incremental=True, run_ids=["a"]).rows == []


def test_verdicts_written_before_the_basis_columns_are_judged_again(store: Store) -> None:
    """A verdict that does not say what it was judged on cannot be trusted to stand."""
    ingest_bytes(store, jsonl(example_run("a") + example_run("b")), "r.jsonl")
    resolver = SuiteResolver(store)
    judge_runs(store, resolver, incremental=True)
    # Rewrite the verdicts as an older traj wrote them: without the basis columns.
    with Views(store, split=None) as v:
        old = v.arrow("SELECT * FROM _verdicts")
    shutil.rmtree(Path(store.table_uri("verdicts")))
    store.backend.append("verdicts", old.drop_columns(["params", "judged_seq", "partner", "judgements"]))
    assert judged(judge_runs(store, resolver, incremental=True)) == ["a", "b"]


# -- every sample run ---------------------------------------------------------------------------


def test_a_fix_rejudges_what_it_touches_and_equals_judging_everything(samples_copy: Store, tmp_path: Path) -> None:
    store = samples_copy
    names = suite_pkg.builtin_names()
    copies, _ = broken_suites(names, tmp_path / "broken", out=lambda *_: None)
    broken = SuiteResolver(store, overrides=copies)
    bundled = SuiteResolver(store)
    first = judge_runs(store, broken, incremental=True)
    assert len(first.rows) > 100 and first.up_to_date == 0
    assert standing(store) == full_dry_run(store, broken)
    # The fix: every suite's rule differs, so every run is judged again, and the verdicts are
    # exactly those of judging everything.
    fixed = judge_runs(store, bundled, incremental=True)
    assert judged(fixed) == judged(first)
    assert standing(store) == full_dry_run(store, bundled)
    assert judge_runs(store, bundled, incremental=True).rows == []


def test_a_fix_to_one_task_rejudges_only_its_runs(samples_copy: Store, tmp_path: Path) -> None:
    store = samples_copy
    same = SuiteResolver(store, overrides={"device": device_copy(tmp_path)})
    judge_runs(store, same, incremental=True)
    with Views(store, split=None) as v:
        task, = v.con.execute(
            "SELECT task FROM runs WHERE suite = 'device' AND outcome IS NOT NULL GROUP BY task ORDER BY count(*) DESC, task LIMIT 1"
        ).fetchone()
        runs_of_task = sorted(r for (r,) in v.con.execute(
            "SELECT run_id FROM runs WHERE suite = 'device' AND task = ? AND outcome IS NOT NULL", [task]).fetchall())
    # The same suite loaded again: nothing to judge.
    again = SuiteResolver(store, overrides={"device": device_copy(tmp_path / "again")})
    assert judge_runs(store, again, incremental=True).rows == []
    edited = SuiteResolver(store, overrides={"device": device_copy(tmp_path / "edited", task)})
    result = judge_runs(store, edited, incremental=True)
    assert judged(result) == runs_of_task and result.up_to_date > 100
    assert standing(store) == full_dry_run(store, edited)


def test_a_pair_partner_that_finishes_later_rejudges_its_partner(samples_store: Path, tmp_path: Path) -> None:
    """A self-evolution run judged without its partner (still open) is judged again with it."""
    store = Store(tmp_path / "pairs")
    with Views(Store(samples_store), split=None) as v:
        pair_id, first, second = v.con.execute(
            "SELECT pair_id, min(run_id) FILTER (WHERE pair_round = 1), min(run_id) FILTER (WHERE pair_round = 2) "
            "FROM runs WHERE suite = 'selfevo' AND pair_id IS NOT NULL AND outcome IS NOT NULL "
            "GROUP BY pair_id HAVING count(*) = 2 ORDER BY pair_id LIMIT 1"
        ).fetchone()
        rows = v.con.execute("SELECT run_id, kind, data FROM events WHERE run_id IN (?, ?) ORDER BY run_id, seq",
                             [first, second]).fetchall()
    head = [d.encode() for r, k, d in rows if not (r == second and k == "run_finished")]
    tail = [d.encode() for r, k, d in rows if r == second and k == "run_finished"]
    ingest_bytes(store, b"\n".join(head) + b"\n", "head.jsonl")
    resolver = SuiteResolver(store)
    assert judged(judge_runs(store, resolver, incremental=True)) == [first]
    assert partner_of(store, first) is None
    ingest_bytes(store, b"\n".join(tail) + b"\n", "tail.jsonl")
    assert judged(judge_runs(store, resolver, incremental=True)) == sorted([first, second])
    assert partner_of(store, first) == second
    assert standing(store) == full_dry_run(store, resolver)


def test_new_recorded_llm_judgements_rejudge_the_suites_that_read_them(samples_copy: Store, tmp_path: Path) -> None:
    store = samples_copy
    resolver = SuiteResolver(store)
    judge_runs(store, resolver, incremental=True)
    record = [
        line("llm-1", 0, "run_started", suite=JUDGEMENT_SUITE, task="judgements"),
        line("llm-1", 1, "judgement_recorded", judge="selfevo.L3", model="m", key="k-new", output={"score": 1}),
        line("llm-1", 2, "run_finished", outcome="succeeded"),
    ]
    ingest_bytes(store, jsonl(record), "llm.jsonl")
    # Not yet vouched for: an ingested judgement run does not count, so nothing is judged.
    assert judge_runs(store, resolver, incremental=True).rows == []
    trust_file_judgements(store, jsonl(record), "llm.jsonl")
    result = judge_runs(store, resolver, incremental=True)
    assert result.rows and {r.suite for r in result.rows} == {"selfevo"}
    assert standing(store) == full_dry_run(store, resolver)


# -- any sequence of fixes and new events ---------------------------------------------------------

STEPS = st.lists(
    st.one_of(
        st.tuples(st.just("resolver"), st.sampled_from(["bundled", "broken", "one_task"])),
        st.tuples(st.just("new_run"), st.sampled_from(["北京现在20度", "北京现在二十度", "北京现在40"]),
                  st.sampled_from(["current_temp", "humidity"]), st.booleans()),
        st.tuples(st.just("finish"), st.integers(0, 5)),
        st.tuples(st.just("judge_all"), st.booleans()),
    ),
    min_size=1,
    max_size=7,
)


@pytest.mark.slow
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=STEPS)
def test_incremental_equals_all_after_any_sequence(tmp_path_factory, steps) -> None:
    """Whatever happened before (fixes, fixes undone, runs added, open runs finished, full
    passes), an incremental pass leaves every run with the verdict a full pass gives."""
    tmp = tmp_path_factory.mktemp("seq")
    store = Store(tmp / "store")
    broken = broken_suites(["example"], tmp / "broken", out=lambda *_: None)[0]
    resolvers = {
        "bundled": SuiteResolver(store),
        "broken": SuiteResolver(store, overrides=broken),
        "one_task": SuiteResolver(store, overrides={"example": OneTaskEdited()}),
    }
    current = "bundled"
    open_runs: list[str] = []
    n = 0
    for step in steps:
        kind = step[0]
        if kind == "resolver":
            current = step[1]
        elif kind == "new_run":
            n += 1
            run_id = f"r{n}"
            ingest_bytes(store, jsonl(example_run(run_id, step[1], task=step[2], finished=step[3])), f"{run_id}.jsonl")
            if not step[3]:
                open_runs.append(run_id)
        elif kind == "finish" and open_runs:
            run_id = open_runs.pop(step[1] % len(open_runs))
            ingest_bytes(store, jsonl([line(run_id, 4, "run_finished", outcome="succeeded")]), "fin.jsonl")
        elif kind == "judge_all":
            judge_runs(store, resolvers[current], dry_run=step[1])
        judge_runs(store, resolvers[current], incremental=True)
        assert standing(store) == full_dry_run(store, resolvers[current])


class OneTaskEdited(ExampleSuite):
    """The example suite after a fix to one task's data: same code, same verdicts, but that
    task's judge version differs (the other task keeps its own)."""

    def code_version(self) -> str:
        return suite_pkg.load_builtin("example").code_version()

    def task_data(self, task):
        data = super().task_data(task)
        return {**data, "note": "edited"} if task["id"] == "current_temp" else data


def test_a_one_task_fix_rejudges_only_that_task(store: Store) -> None:
    ingest_bytes(store, jsonl(example_run("t", task="current_temp") + example_run("h", task="humidity")), "r.jsonl")
    judge_runs(store, SuiteResolver(store), incremental=True)
    edited = SuiteResolver(store, overrides={"example": OneTaskEdited()})
    assert judged(judge_runs(store, edited, incremental=True)) == ["t"]
    assert standing(store) == full_dry_run(store, edited)
