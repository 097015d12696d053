"""Issue 24 item 7: the recorder's edges, each tried as the attack.

- a run id that ingest refuses (``../x``, an absolute path) names no file: nothing is created,
  in the store or outside it, before the refusal;
- a refused ``run_started`` leaves no journal: the id can be recorded again by the same
  process, and ``traj recover`` has nothing of it to skip;
- ``traj recover`` does not hang on a FIFO (or any file that is not a journal) in journal/;
- a state patch that does not apply to the recorded state is refused when it is recorded, as
  ingest refuses it, and the run is then finished and sealed as usual.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from trajectory.ingest.recorder import Recorder, RecorderError, open_journals, recover
from trajectory.store.delta import Store

STATE = {"apps": {"weather": {"cities": {"北京": {"temp": 20}}}}}


def files_under(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


@pytest.mark.parametrize("run_id", ["../escaped", "../../escaped", "a/../../escaped", "/ABS/escaped", "sub/escaped"])
def test_a_run_id_that_is_a_path_creates_nothing_before_it_is_refused(tmp_path: Path, run_id: str) -> None:
    root = tmp_path / "deep" / "er"
    root.mkdir(parents=True)
    store = Store(root / "store")
    run_id = run_id.replace("/ABS", str(tmp_path))
    before = files_under(tmp_path)
    with pytest.raises(RecorderError, match="run_id"):
        Recorder(store, run_id=run_id, suite="example", task="current_temp").open()
    assert files_under(tmp_path) == before  # no journal, no store folder, no file outside either


def test_a_refused_run_started_leaves_no_journal_and_the_id_can_be_recorded_again(store: Store) -> None:
    store.init()
    bad = Recorder(store, run_id="r1", suite="example", task="current_temp", mode="no-such-mode")
    with pytest.raises(RecorderError, match="mode"):
        bad.open()
    assert open_journals(store) == []
    assert not (store.journal_dir() / "r1.jsonl").exists()
    with Recorder(store, run_id="r1", suite="example", task="current_temp") as rec:  # same process
        rec.answer("北京现在20度")
        rec.finish("succeeded")
    kinds = [r["kind"] for r in sorted(store.read("events").to_pylist(), key=lambda r: r["seq"])]
    assert kinds == ["run_started", "answer_given", "run_finished"]
    assert recover(store) == []


def test_a_start_that_cannot_be_written_leaves_no_journal(store: Store, monkeypatch) -> None:
    """A run_started that passes the check but whose write fails (a full disk) is not recorded:
    its journal is removed, not left empty and locked."""
    rec = Recorder(store, run_id="r2", suite="example", task="current_temp")

    def full(*_a, **_k):
        raise RecorderError("run r2 seq 0: run_started was not recorded (disk full)")

    monkeypatch.setattr(rec, "_append", full)
    with pytest.raises(RecorderError, match="disk full"):
        rec.open()
    assert open_journals(store) == []
    monkeypatch.undo()
    with Recorder(store, run_id="r2", suite="example", task="current_temp") as again:
        again.finish("succeeded")


def test_traj_recover_does_not_hang_on_a_fifo_in_the_journal_folder(store: Store) -> None:
    with Recorder(store, run_id="r3", suite="example", task="current_temp", seal_on_exit=False) as rec:
        rec.answer("x")
    journal = store.journal_dir()
    os.mkfifo(journal / "trap.jsonl")
    os.symlink("/etc/hostname", journal / "link.jsonl")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    try:
        done = subprocess.run([sys.executable, "-m", "trajectory.cli.main", "recover", "--store", str(store.loc)],
                              capture_output=True, text=True, timeout=120, env=env)
    except subprocess.TimeoutExpired:
        pytest.fail("traj recover hung on a FIFO in journal/")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "r3.jsonl: sealed, 2 new events" in done.stdout, done.stdout
    assert "trap.jsonl: not sealed:" in done.stderr and "not a regular file" in done.stderr, done.stderr
    assert "link.jsonl: not sealed:" in done.stderr, done.stderr
    assert (journal / "trap.jsonl").exists() and (journal / "link.jsonl").is_symlink()  # left alone
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("ops", [
    [{"op": "replace", "path": "/apps/weather/cities/上海/temp", "value": 30}],
    [{"op": "remove", "path": "/apps/clock"}],
    [{"op": "add", "path": "/apps/weather/cities/北京/humidity", "value": 1},
     {"op": "replace", "path": "/no/such", "value": 1}],
])
def test_a_state_patch_that_does_not_apply_is_refused_when_it_is_recorded(store: Store, ops) -> None:
    with Recorder(store, run_id="r4", suite="example", task="current_temp", state=STATE) as rec:
        rec.patch([{"op": "replace", "path": "/apps/weather/cities/北京/temp", "value": 21}])
        with pytest.raises(RecorderError, match=r"state_changed refused, ingest would refuse it: \$\.patch\["):
            rec.patch(ops)
        rec.patch([{"op": "replace", "path": "/apps/weather/cities/北京/temp", "value": 22}])  # seq goes on
        report = rec.finish("succeeded")
    assert report is not None and report.new == 4
    rows = sorted((r["seq"], r["kind"]) for r in store.read("events").to_pylist())
    assert rows == [(0, "run_started"), (1, "state_changed"), (2, "state_changed"), (3, "run_finished")]
    assert open_journals(store) == [] and recover(store) == []


def test_a_patch_after_a_snapshot_is_checked_against_the_snapshot(store: Store) -> None:
    with Recorder(store, run_id="r5", suite="example", task="current_temp", state=STATE) as rec:
        rec.snapshot({"apps": {}})
        with pytest.raises(RecorderError, match="patch"):
            rec.patch([{"op": "replace", "path": "/apps/weather/cities/北京/temp", "value": 1}])
        rec.patch([{"op": "add", "path": "/apps/clock", "value": {}}])
        rec.finish("succeeded")
    assert len(store.read("events").to_pylist()) == 4
