"""`traj demo` on the GUI suite: sample runs, the rule fix, and the flips it causes."""

from __future__ import annotations

import shutil

import pytest
from typer.testing import CliRunner

import suites as suite_pkg
import suites.gui as gui
from gui_helpers import judge
from suites.gui import tasks_clock as C
from trajectory.demo import broken
from trajectory.demo.samples import gui as samples
from trajectory.cli.main import app
from trajectory.judging import diff_passes
from trajectory.query.sql import Views
from trajectory.store.delta import Store


@pytest.fixture(scope="module")
def gui_demo(tmp_path_factory):
    path = tmp_path_factory.mktemp("gui-demo") / "store"
    result = CliRunner().invoke(app, ["demo", "--store", str(path), "--suite", "gui"])
    assert result.exit_code == 0, result.output
    return path, result.output


def test_demo_shows_the_fix_and_its_flips(gui_demo):
    _, out = gui_demo
    assert "fix: gui: AlarmTime" in out
    assert "3 flips" in out and "3 fail→pass" in out
    for run in ("gui-careful-02", "gui-careful-03", "gui-careful-04"):
        assert f"{run}: fail → pass" in out
    assert 'actual "下午2点30分"' in out


def test_diff_from_the_store_shows_the_same_flips(gui_demo):
    path, _ = gui_demo
    diff = diff_passes(Store(path))
    assert sorted(f.run_id for f in diff.flips) == ["gui-careful-02", "gui-careful-03", "gui-careful-04"]
    assert all(f.task == "AlarmTime" and f.kind == "fail→pass" for f in diff.flips)


def test_sample_runs_record_world_state_in_both_modes(gui_demo):
    path, _ = gui_demo
    with Views(Store(path), split=None) as views:
        kinds = dict(views.con.execute(
            "SELECT kind, count(*) FROM events WHERE batch = 'gui-demo' GROUP BY kind").fetchall())
        modes = {r[0] for r in views.con.execute("SELECT DISTINCT mode FROM runs WHERE batch = 'gui-demo'").fetchall()}
        agents = {r[0] for r in views.con.execute("SELECT DISTINCT agent FROM runs WHERE batch = 'gui-demo'").fetchall()}
    assert modes == {"grounded", "text"} and agents == {"careful", "sloppy"}
    for kind in ("run_started", "state_changed", "sheet_changed", "answer_given", "screen_read", "run_finished"):
        assert kinds.get(kind), kind
    assert kinds["run_started"] == len(samples.SCRIPT)


def test_sloppy_mistakes_fail_and_careful_runs_pass_after_the_fix(gui_demo):
    path, _ = gui_demo
    with Views(Store(path), split=None) as views:
        rows = views.con.execute("SELECT run_id, outcome FROM verdicts WHERE batch = 'gui-demo'").fetchall()
    outcome = dict(rows)
    careful = {r: o for r, o in outcome.items() if "careful" in r}
    assert set(careful.values()) == {"pass"}
    # The sloppy agent's swapped high/low, flipped yes/no, wrong alarm, side effect, unsubmitted sheet.
    for i in (13, 16, 17, 18, 19):
        assert outcome[f"gui-sloppy-{i:02d}"] == "fail", i


def test_samples_are_deterministic(tmp_path, gui_demo):
    path, _ = gui_demo
    again = Store(tmp_path / "again")
    samples.record(again)
    sql = "SELECT data FROM events WHERE batch = 'gui-demo' ORDER BY run_id, seq"
    with Views(Store(path), split=None) as va, Views(again, split=None) as vb:
        assert va.con.execute(sql).fetchall() == vb.con.execute(sql).fetchall()


def test_the_demo_breaks_only_its_copy_and_the_bundled_suite_is_right(tmp_path):
    folder = tmp_path / "gui"
    shutil.copytree(suite_pkg.builtin_folder("gui"), folder, ignore=shutil.ignore_patterns("__pycache__"))
    line = broken.gui(folder)
    assert "AlarmTime" in line
    copy = suite_pkg.load_folder(folder)
    assert copy.get_task("AlarmTime").fields()[0].matcher == "exact"
    assert gui.load().get_task("AlarmTime").fields()[0].matcher == "time"  # the bundled one is right
    assert copy.code_version() != gui.load().code_version()
    with pytest.raises(ValueError, match="exactly once"):
        broken.gui(folder)  # already broken: nothing left to break


def test_alarm_time_formats_fail_with_the_demos_broken_copy(tmp_path):
    """The demo's bug is real: its copy judges AlarmTime's time field exactly; the bundled suite
    matches it as a time."""
    folder = tmp_path / "gui"
    shutil.copytree(suite_pkg.builtin_folder("gui"), folder, ignore=shutil.ignore_patterns("__pycache__"))
    broken.gui(folder)
    copy = suite_pkg.load_folder(folder)
    task = copy.get_task("AlarmTime", {"label": "开会"})
    assert task.fields()[0].matcher == "exact"
    assert judge(task, copy, mode="grounded", sheet=["下午2点30分"]).outcome == "fail"
    assert judge(task, copy, mode="text", answer="开会闹钟定在下午两点半").outcome == "fail"
    assert judge(task, copy, mode="grounded", sheet=["14:30"]).outcome == "pass"
    bundled = C.AlarmTime(label="开会")
    assert bundled.fields()[0].matcher == "time"
    assert judge(bundled, mode="grounded", sheet=["下午2点30分"]).outcome == "pass"
