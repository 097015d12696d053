"""The store's contract: appends are atomic commits, earlier versions stay readable,
compaction changes no row, the format is recorded and checked."""

from __future__ import annotations

import json

import pytest

from helpers import example_run, jsonl
from trajectory.errors import StoreError
from trajectory.ingest.files import ingest_bytes
from trajectory.query.sql import Views
from trajectory.store.delta import FORMAT_FILE, Store


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


def test_a_lost_race_is_decided_again_only_when_new_files_may_hold_its_keys() -> None:
    from trajectory.store.delta import _untouched

    seen = {("a", "r1", "r3")}
    keys = ("run_id", {"r4"})
    assert _untouched(seen | {("b", "r5", "r9")}, seen, keys)  # others' runs only: the plan stands
    assert not _untouched(seen | {("b", "r3", "r9")}, seen, keys)  # may hold r4: decide again
    assert not _untouched(seen | {("b", None, None)}, seen, keys)  # no statistics
    assert not _untouched(seen | {("b", "r0", "r" + "9" * 40)}, seen, keys)  # a bound maybe truncated
    assert not _untouched(seen, set(), keys)  # nothing seen yet


@pytest.mark.parametrize(
    ("theirs", "decisions", "mine_written"),
    [
        (["r5"], 1, True),  # the winner wrote other runs only: the plan is committed as it was
        (["r3", "r9"], 2, True),  # its file's run ids span r4 (though it holds none): decided again
        (["r4"], 2, False),  # the winner wrote the same run: decided again, found present
    ],
    ids=["other-runs", "range-spans-mine", "same-run"],
)
def test_a_writer_that_lost_a_race_on_s3_decides_again_when_the_winner_may_hold_its_runs(
    s3_store_uri, theirs, decisions, mine_written
) -> None:
    from trajectory.ingest.batchplan import decide_rows, parsed_batch
    from trajectory.ingest.plain import DEFAULT_LIMITS, parse

    store = Store(s3_store_uri)
    ingest_bytes(store, jsonl(example_run("r1")), "first")
    mine = parse(jsonl(example_run("r4")), "mine")
    versions: list[int] = []

    def decide(version: int):
        versions.append(version)
        if len(versions) == 1:  # another writer commits between this read and this commit
            ingest_bytes(Store(s3_store_uri), jsonl([x for r in theirs for x in example_run(r)]), "theirs")
        return decide_rows(store, parsed_batch(mine), mine, "mine", DEFAULT_LIMITS, None, version)

    version = store.append_decided("events", decide, "mine", keys=("run_id", {"r4"}))
    assert len(versions) == decisions
    assert (version is not None) == mine_written
    got = rows(store)
    assert sorted({r[0] for r in got}) == sorted({"r1", "r4", *theirs})
    assert len(got) == 5 * len({"r1", "r4", *theirs})  # nothing twice, nothing lost
