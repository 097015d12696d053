"""Creating a store is said, from Python as from the CLI: a mistyped path must not start a
new store unseen (the CLI's own line is tested in tests/cli)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from helpers import example_run, jsonl
from trajectory.ingest.files import ingest_bytes
from trajectory.ingest.recorder import Recorder
from trajectory.store.delta import Store


def created_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records
            if r.name == "trajectory.store" and r.levelno == logging.WARNING and "created a new store" in r.getMessage()]


def test_a_recorder_that_creates_its_store_says_so_once(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="trajectory.store")
    where = tmp_path / "cpoy"
    with Recorder(where, run_id="r1", suite="example", task="current_temp") as rec:
        rec.answer("x")
    assert rec.created_store == str(where)
    assert created_lines(caplog) == [f"created a new store at {where}"]
    caplog.clear()
    with Recorder(where, run_id="r2", suite="example", task="current_temp") as again:
        again.answer("x")
    assert again.created_store is None
    assert created_lines(caplog) == []


def test_ingest_from_python_that_creates_a_store_says_so(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="trajectory.store")
    store = Store(tmp_path / "new")
    ingest_bytes(store, jsonl(example_run("r1")), "runs.jsonl")
    assert store.created
    assert created_lines(caplog) == [f"created a new store at {tmp_path / 'new'}"]
    caplog.clear()
    again = Store(tmp_path / "new")
    ingest_bytes(again, jsonl(example_run("r2")), "runs.jsonl")
    assert not again.created
    assert created_lines(caplog) == []
