"""The store's format version: an older store is never silently rewritten.

A format-0 store (tables without traj-store.json) or a store of an unknown format is refused
by every command with one line that says what to do; only `traj migrate` writes the format file,
and after it the store works. No other command touches the format file of a current store.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from helpers import example_run, jsonl, traj
from trajectory.errors import StoreError
from trajectory.ingest.files import ingest_bytes
from trajectory.judging import SuiteResolver, judge_runs
from trajectory.ingest.recorder import Recorder
from trajectory.store.delta import FORMAT_FILE, STORE_FORMAT, Store


def snapshot(root: Path) -> dict[str, tuple[str, int]]:
    """Every file under the store with its content hash and modification time."""
    return {
        str(p.relative_to(root)): (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns)
        for p in sorted(root.rglob("*")) if p.is_file() and not p.name.endswith(".lock")
    }


@pytest.fixture
def runs_file(tmp_path) -> Path:
    f = tmp_path / "more.jsonl"
    f.write_bytes(jsonl(example_run("r9")))
    return f


@pytest.fixture
def current(tmp_path) -> Path:
    """A format-1 store with runs, a judging pass and a suite registration."""
    root = tmp_path / "store"
    store = Store(root)
    ingest_bytes(store, jsonl(example_run("r1") + example_run("r2", "北京现在二十度") + example_run("r3", finished=False)), "a")
    judge_runs(store, SuiteResolver(store))
    return root


def commands(root: Path, runs_file: Path, out: Path) -> list[list[str]]:
    """Every command that opens a store, reading or writing."""
    s = ["--store", str(root)]
    return [
        ["ingest", str(runs_file), *s],
        ["query", "SELECT count(*) FROM events", *s],
        ["runs", *s],
        ["show", "r1", *s],
        ["export", "events", *s],
        ["status", *s],
        ["judge", *s],
        ["diff", *s],
        ["passes", *s],
        ["compact", *s],
        ["recover", *s],
        ["suite", "list", *s],
        ["report", "--batch", "b1", "--out", str(out), *s],
        ["override", "r1", "--to", "pass", "--category", "judge_bug", "--evidence", "seq 3", *s],
    ]


@pytest.mark.parametrize("fmt", [None, 0, 99, "garbage", "list"], ids=["format-0", "older", "newer", "garbage", "not-an-object"])
def test_every_command_refuses_an_other_format_and_writes_nothing(current, runs_file, tmp_path, fmt) -> None:
    meta = current / FORMAT_FILE
    if fmt is None:
        meta.unlink()  # the tables as they were before the format file existed
    elif fmt == "garbage":
        meta.write_bytes(b"\xff{not json")
    elif fmt == "list":
        meta.write_text("[1]")
    else:
        meta.write_text(json.dumps({"format": fmt}))
    before = snapshot(current)
    hint = {None: "traj migrate", 0: "traj migrate", 99: "upgrade traj", "garbage": "unreadable format file",
            "list": "unreadable format file"}[fmt]
    for argv in commands(current, runs_file, tmp_path / "report"):
        r = traj(*argv)
        assert r.exit_code != 0 and isinstance(r.exception, SystemExit), (argv, r.output, r.exception)
        assert hint in r.output and "Traceback" not in r.output, (argv, r.output)
        assert r.output.strip().count("\n") <= 1, (argv, r.output)  # one line (ingest adds "refused")
    assert snapshot(current) == before
    assert not (tmp_path / "report").exists()
    with pytest.raises(StoreError, match=hint):
        Recorder(str(current), run_id="x", suite="s", task="t")
    # migrate: upgrades what it can read and is older, refuses the rest, rewrites nothing else.
    r = traj("migrate", "--store", str(current))
    if fmt in (None, 0):
        assert r.exit_code == 0 and f"upgraded to format {STORE_FORMAT}" in r.output
        after = snapshot(current)
        assert {k: v for k, v in after.items() if k != FORMAT_FILE} == {k: v for k, v in before.items() if k != FORMAT_FILE}
        assert json.loads(meta.read_text()) == {"format": STORE_FORMAT, "migrated_from": 0, "tool": "traj"}
        r = traj("query", "SELECT count(*) AS n FROM events", "--format", "json", "--store", str(current))
        assert json.loads(r.stdout) == [{"n": 14}]
    else:
        assert r.exit_code == 1 and isinstance(r.exception, SystemExit) and "Traceback" not in r.output, r.output
        assert ("newer" if fmt == 99 else "unreadable format file") in r.output
        assert snapshot(current) == before


def test_no_command_but_migrate_rewrites_the_format_file(current, runs_file, tmp_path) -> None:
    meta = current / FORMAT_FILE
    before = (meta.read_bytes(), meta.stat().st_mtime_ns, meta.stat().st_ino)
    # A dead recorder's journal, so that recover has something to seal.
    rec = Recorder(str(current), run_id="dead", suite="example", task="current_temp", seal_on_exit=False).open()
    rec.step("tap")
    rec.close()
    for argv in commands(current, runs_file, tmp_path / "report"):
        traj(*argv)  # some of them fail on purpose (diff with one pass); none may touch the file
        assert (meta.read_bytes(), meta.stat().st_mtime_ns, meta.stat().st_ino) == before, argv
    r = traj("migrate", "--store", str(current))
    assert r.exit_code == 0 and "already format 1, nothing to do" in r.output
    assert (meta.read_bytes(), meta.stat().st_mtime_ns, meta.stat().st_ino) == before
    # The commands above really wrote: this is not a test of a store nobody touched.
    r = traj("query", "SELECT count(DISTINCT run_id) AS n FROM events", "--format", "json", "--store", str(current))
    assert json.loads(r.stdout) == [{"n": 5}]


def test_migrate_where_there_is_no_store(tmp_path) -> None:
    r = traj("migrate", "--store", str(tmp_path / "none"))
    assert r.exit_code == 1 and "no store here" in r.output
    assert not (tmp_path / "none").exists()
