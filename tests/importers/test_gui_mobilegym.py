"""`traj import mobilegym`: a recorded run folder of the phone benchmark becomes runs and an
imported verdict pass; a re-judge says `na` for tasks that need the world state."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from replay import replay
from suites.gui import mobilegym as mg
from trajectory.cli.import_mobilegym import import_mobilegym
from trajectory.cli.main import app
from trajectory.judging import SuiteResolver, current_rows, diff_passes, judge_runs, load_events, passes
from trajectory.store.delta import Store

EXAMPLE = Path(__file__).parent.parent / "data" / "mobilegym_run"
BATCH = "mobilegym_run"


@pytest.fixture
def imported(tmp_path):
    store = Store(tmp_path / "store")
    report, result, earlier = import_mobilegym(store, EXAMPLE)
    return store, report, result, earlier


def test_folder_maps_to_runs_and_events(imported):
    store, report, result, earlier = imported
    assert (report.runs, report.new, earlier) == (5, report.events, None)
    rid = mg.run_id(BATCH, "weather.CheckCurrentTemp", 0)
    state = replay(load_events(store, [rid])[rid])
    assert (state.suite, state.task, state.params, state.batch) == ("weather", "CheckCurrentTemp", {"city": "北京"}, BATCH)
    assert (state.agent_name, state.agent_model, state.mode) == ("qwen-vl-agent", "qwen2.5-vl-72b-instruct", "text")
    assert state.goal == "北京现在多少度？" and state.answer == "北京现在20度，多云"
    assert [s.action for s in state.steps] == ["open_app", "click", "answer"]
    assert state.steps[1].args == {"x": 540, "y": 410}
    assert state.screens[2].image == "trajectory/weather_CheckCurrentTemp_t0/screenshots/step_3.png"
    assert state.screens[2].route.path == "/city/beijing"
    assert state.totals.input_tokens == 1870 + 1910 + 1950
    assert state.initial_state is None and state.outcome == "succeeded"
    assert state.started_at.isoformat() == "2026-03-20T06:05:11+00:00"


def test_trial_suffix_task_names_with_slash_and_space_and_stop_reasons(imported):
    store, *_ = imported
    alarm = mg.run_id(BATCH, "clock.AlarmTime", 1)
    notes = mg.run_id(BATCH, "notes.Create Note/Daily", None)
    events = load_events(store, [alarm, notes])
    a, n = replay(events[alarm]), replay(events[notes])
    assert len(a.steps) == 3 and a.outcome == "timeout" and a.metrics["stop_reason"] == "max_steps"
    assert n.task == "Create Note/Daily" and n.steps[-1].action == "type"
    assert mg.trajectory_dir_names("notes.Create Note/Daily", None) == ["notes_Create_Note_Daily"]
    assert mg.trajectory_dir_names("clock.AlarmTime", 1) == ["clock_AlarmTime_t1", "clock_AlarmTime"]


def test_recorded_verdicts_become_an_imported_pass(imported):
    store, _, result, _ = imported
    kinds = {p["pass_id"]: p["kind"] for p in passes(store)}
    assert kinds == {result.pass_id: "imported"}
    rows = current_rows(store)
    outcome = {r["task"]: r["outcome"] for r in rows.values()}
    assert outcome == {"CheckCurrentTemp": "pass", "CheckHighLow": "fail", "AlarmTime": "fail",
                       "SwitchTempUnit": "fail", "Create Note/Daily": "pass"}
    switch = next(r for r in rows.values() if r["task"] == "SwitchTempUnit")
    names = [c["name"] for c in switch["checks"]]
    assert names == ["success", "clean", "warning 1"]
    assert "wind_unit" in switch["reason"] and json.loads(switch["details"])["progress"] == 1.0
    assert switch["judge_version"] == "mobilegym-0.4.2"


def test_importing_twice_adds_nothing(imported):
    store, *_ = imported
    report, result, earlier = import_mobilegym(store, EXAMPLE)
    assert report.new == 0 and result is None and earlier is not None
    assert len(passes(store)) == 1


def test_rejudge_is_na_for_tasks_that_need_state_and_diff_compares(imported):
    store, *_ = imported
    rejudge = judge_runs(store, SuiteResolver(store))
    by_task = {r.task: r.as_dict() for r in rejudge.rows}
    for task in ("CheckCurrentTemp", "CheckHighLow", "AlarmTime", "SwitchTempUnit"):
        assert by_task[task]["outcome"] == "na"
        assert "no world state" in by_task[task]["reason"]
    # No bundled notes suite judges it: the run keeps its imported verdict, and the pass says so.
    assert "Create Note/Daily" not in by_task
    assert [(u.task, u.unknown) for u in rejudge.unresolved] == [("Create Note/Daily", "suite")]
    diff = diff_passes(store)
    assert diff.common == 4
    assert {f.kind for f in diff.flips} == {"pass→na", "fail→na"}


def test_cli_import_and_errors(tmp_path):
    runner = CliRunner()
    store = str(tmp_path / "s")
    out = runner.invoke(app, ["import", "mobilegym", str(EXAMPLE), "--store", store, "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)  # "created a new store" is said on stderr
    assert data["runs"] == 5 and data["verdicts"] == {"pass": 2, "fail": 3} and not data["already_imported"]
    bad = tmp_path / "bad"
    shutil.copytree(EXAMPLE, bad)
    (bad / "results.jsonl").write_text('{"id": "weather.CheckCurrentTemp", "execution": 3}\nnot json\n')
    out = runner.invoke(app, ["import", "mobilegym", str(bad), "--store", store])
    assert out.exit_code == 1
    assert "results.jsonl:1: $.execution: expected an object" in out.output
    assert "results.jsonl:2: not JSON" in out.output
    out = runner.invoke(app, ["import", "mobilegym", str(tmp_path / "missing"), "--store", store])
    assert out.exit_code == 1 and "not a folder" in out.output


def test_recorded_verdict_without_judge_block_and_stop_reason_mapping():
    ep = mg.parse_episode({"id": "clock.AlarmTime", "is_success": True}, "r.jsonl", 1)
    v = mg.recorded_verdict(ep)
    assert v.outcome == "pass" and v.checks[0].name == "is_success"
    assert mg.recorded_verdict(mg.parse_episode({"id": "clock.AlarmTime"}, "r.jsonl", 2)) is None
    events = mg.to_events({}, mg.parse_episode({"id": "clock.X", "execution": {"stop_reason": "weird"}}, "r", 3), [],
                          batch="b", start=mg.parse_time(0, "t"), image_dir=None)
    assert events[-1]["outcome"] == "failed" and events[0]["suite"] == "clock"
    assert len(mg.run_id("b" * 200, "x.Y", 0)) <= 128
