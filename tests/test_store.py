"""The store's contract: appends are atomic commits, earlier versions stay readable,
compaction changes no row, the format is recorded and checked."""

from __future__ import annotations

import json

import pytest

from helpers import example_run, jsonl
from trajectory.errors import StoreError
from trajectory.ingest import ingest_bytes
from trajectory.query import Views
from trajectory.store import FORMAT_FILE, Store


def rows(store: Store, version: int | None = None) -> list[tuple]:
    with Views(store, split=None, version=version) as v:
        return v.con.execute("SELECT run_id, seq, hash FROM events ORDER BY run_id, seq").fetchall()


def test_opening_a_missing_store_writes_nothing(tmp_path) -> None:
    s = Store(tmp_path / "nothing")
    assert not s.exists
    assert not (tmp_path / "nothing").exists()
    with Views(s) as v:
        assert v.con.execute("SELECT count(*) FROM events").fetchone() == (0,)


def test_time_travel_reads_earlier_versions(store: Store) -> None:
    ingest_bytes(store, jsonl(example_run("r1")), "a")
    v1 = store.version("events")
    ingest_bytes(store, jsonl(example_run("r2")), "b")
    assert len(rows(store)) == 10
    assert len(rows(store, v1)) == 5
    assert {r[0] for r in rows(store, v1)} == {"r1"}


def test_compaction_changes_no_row(store: Store) -> None:
    for i in range(6):
        ingest_bytes(store, jsonl(example_run(f"r{i}")), f"f{i}")
    before = rows(store)
    assert len(store.files("events")) == 6
    result = store.compact("events")
    assert result["files_after"] == 1
    assert rows(store) == before
    # The pre-compaction version is still readable as it was.
    assert rows(store, result["version"] - 1) == before


def test_format_is_recorded_and_checked(tmp_path) -> None:
    s = Store(tmp_path / "s")
    ingest_bytes(s, jsonl(example_run("r1")), "a")
    meta = json.loads((tmp_path / "s" / FORMAT_FILE).read_text())
    assert meta["format"] == 1
    (tmp_path / "s" / FORMAT_FILE).write_text(json.dumps({"format": 99}))
    with pytest.raises(StoreError, match="newer"):
        Store(tmp_path / "s")
    (tmp_path / "s" / FORMAT_FILE).unlink()
    with pytest.raises(StoreError, match="traj migrate"):
        Store(tmp_path / "s")


def test_polars_reads_the_same_rows_as_duckdb(store: Store) -> None:
    import polars as pl

    assert store.scan("events").collect().height == 0
    ingest_bytes(store, jsonl(example_run("r1")), "a")
    v1 = store.version("events")
    ingest_bytes(store, jsonl(example_run("r2")), "b")
    frame = store.scan("events").select("run_id", "seq", "hash").sort("run_id", "seq").collect()
    assert [tuple(r) for r in frame.iter_rows()] == rows(store)
    old = store.scan("events", version=v1).collect()
    assert old.height == 5 and set(old["run_id"]) == {"r1"}
    by_kind = store.scan("events").group_by("kind").agg(pl.len()).collect()
    assert dict(by_kind.iter_rows())["screen_read"] == 2
