"""A full disk, a read-only store and a permission refused, for real: each writing command ends
in one line naming the path and what to do, says the store is intact, and it is.

The disk is a small tmpfs (skipped, with a message, where the test cannot mount one); the
permission fault is the store's folders made read-only for a process without the capability
to override file permissions (setpriv). Commands run as real subprocesses, so that a Rust panic
printed by a writer thread would show in what the person sees."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from disk_helpers import fill, remount, small_disk
from helpers import example_run, jsonl, traj_proc
from trajectory.ingest.files import ingest_bytes
from trajectory.judging import SuiteResolver, judge_runs
from trajectory.query.sql import Views
from trajectory.store.delta import TABLES, Store


def snapshot(store: Store) -> dict:
    """What a reader sees: every table's version and rows."""
    out = {name: store.version(name) for name in TABLES if store.has_table(name)}
    with Views(store, split=None) as v:
        out["event rows"] = v.arrow("SELECT count(*) AS n FROM events").to_pylist()
        out["verdict rows"] = v.arrow("SELECT count(*) AS n FROM verdict_history").to_pylist()
    return out


def filled_store(root: Path) -> tuple[Store, Path]:
    store = Store(root / "store")
    ingest_bytes(store, jsonl(example_run("r1")), "a")
    ingest_bytes(store, jsonl(example_run("r2", "二十度")), "b")  # two files: compact has work
    judge_runs(store, SuiteResolver(store))
    new = root.parent / f"{root.name}-new.jsonl"
    new.write_bytes(jsonl(example_run("r3")))
    return store, new


COMMANDS = [["ingest", "{new}"], ["judge", "--all"], ["compact"]]  # --all: a pass that writes


def assert_one_line_and_intact(store: Store, new: Path, what: str, before: dict, prefix=None) -> list[str]:
    lines = []
    for cmd in COMMANDS:
        args = [a.replace("{new}", str(new)) for a in cmd]
        r = traj_proc(*args, "--store", str(store.loc), prefix=prefix)
        err = r.stderr.strip().splitlines()
        assert r.returncode == 1, (cmd, r.stdout, r.stderr)
        assert len(err) == 1 and err[0].startswith("error: "), (cmd, r.stderr)
        line = err[0]
        assert what in line and "the store is intact" in line.lower(), line
        assert str(store.loc) in line, line  # names the path
        assert "Traceback" not in r.stderr and "panicked" not in r.stderr and "RUST_BACKTRACE" not in r.stderr
        lines.append(line)
        assert snapshot(store) == before, cmd  # and it is intact
    return lines


@pytest.fixture
def disk(tmp_path):
    with small_disk(tmp_path / "disk", "16m") as folder:
        yield folder


def test_a_full_disk_is_one_line_and_the_store_stays_intact(disk: Path) -> None:
    store, new = filled_store(disk)
    before = snapshot(store)
    filler = fill(disk)
    assert_one_line_and_intact(store, new, "no space left on the device; free some space", before)
    filler.unlink()
    r = traj_proc("ingest", str(new), "--store", str(store.loc))
    assert r.returncode == 0, r.stderr
    assert traj_proc("judge", "--store", str(store.loc)).returncode == 0


def test_a_read_only_store_is_one_line_and_the_store_stays_intact(disk: Path) -> None:
    store, new = filled_store(disk)
    before = snapshot(store)
    remount(disk, "ro")
    try:
        assert_one_line_and_intact(store, new, "read-only file system; remount it read-write", before)
        r = traj_proc("query", "SELECT count(*) AS n FROM runs", "--format", "csv", "--store", str(store.loc))
        assert r.returncode == 0 and r.stdout.split() == ["n", "2"]  # reading still works
    finally:
        remount(disk, "rw")
    assert traj_proc("ingest", str(new), "--store", str(store.loc)).returncode == 0


def test_permission_denied_is_one_line_and_the_store_stays_intact(tmp_path) -> None:
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("needs root and setpriv to run a process that file permissions apply to")
    store, new = filled_store(tmp_path)
    before = snapshot(store)
    # Root without the capabilities that override file permissions: the mode bits apply.
    drop = ["setpriv", "--bounding-set=-dac_override,-dac_read_search,-fowner"]
    probe = subprocess.run([*drop, "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip(f"setpriv cannot drop capabilities here: {probe.stderr.decode().strip()}")
    for path in [store.loc.root, *store.loc.root.rglob("*")]:
        path.chmod(path.stat().st_mode & ~0o222)
    try:
        assert_one_line_and_intact(store, new, "permission denied; run as a user who may write there", before,
                                   prefix=drop)
    finally:
        for path in [store.loc.root, *store.loc.root.rglob("*")]:
            path.chmod(path.stat().st_mode | 0o200)
    assert traj_proc("ingest", str(new), "--store", str(store.loc)).returncode == 0
