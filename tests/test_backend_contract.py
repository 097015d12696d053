"""The store backend contract: one test class that every backend runs.

A backend subclasses :class:`BackendContract` and gives the ``backend`` fixture (a fresh, empty
store location). Today's local folder is the first; a backend on object storage runs the same
class against its own server on 127.0.0.1.
"""

from __future__ import annotations

import threading
import time

import pyarrow as pa
import pytest

from helpers import example_run, jsonl
from trajectory.backend import Backend
from trajectory.errors import ConflictError
from trajectory.ingest import ingest_bytes
from trajectory.judging import SuiteResolver, judge_runs, write_pass
from trajectory.location import LocalBackend
from trajectory.query import Views
from trajectory.store import FORMAT_FILE, STORE_FORMAT, Store

ROWS = pa.table({"kind": ["suite", "suite"], "key": ["a", "b"], "at": pa.array([0, 1], pa.timestamp("us", tz="UTC")),
                 "by": ["x", "y"], "data": ["{}", "{}"]})


class BackendContract:
    """What a store needs from where its bytes live (see trajectory/backend.py)."""

    @pytest.fixture
    def backend(self, tmp_path) -> Backend:  # pragma: no cover - every backend gives its own
        raise NotImplementedError

    # -- small files --------------------------------------------------------------------------------
    def test_a_small_file_reads_back_what_was_written_and_is_replaced_whole(self, backend: Backend) -> None:
        assert backend.read_file("note.json") is None
        backend.write_file("note.json", b'{"a": 1}')
        assert backend.read_file("note.json") == b'{"a": 1}'
        backend.write_file("note.json", b"{}")
        assert backend.read_file("note.json") == b"{}"

    def test_the_format_marker_goes_through_the_backend(self, backend: Backend) -> None:
        store = Store(backend)
        assert not store.exists and store.format_version() is None
        store.init()
        assert store.format_version() == STORE_FORMAT and backend.read_file(FORMAT_FILE) is not None
        assert Store(backend).exists

    # -- tables -------------------------------------------------------------------------------------
    def test_no_table_before_its_first_append(self, backend: Backend) -> None:
        assert not backend.has_table("meta") and backend.open_table("meta") is None
        assert not backend.exists_any()

    def test_each_append_is_one_commit_and_every_version_stays_readable(self, backend: Backend) -> None:
        v0 = backend.append("meta", ROWS.slice(0, 1))
        v1 = backend.append("meta", ROWS.slice(1, 1))
        assert v1 == v0 + 1 and backend.has_table("meta")
        assert backend.open_table("meta", v0).to_pyarrow_table().column("key").to_pylist() == ["a"]
        assert sorted(backend.open_table("meta").to_pyarrow_table().column("key").to_pylist()) == ["a", "b"]

    def test_an_added_column_joins_an_older_table(self, backend: Backend) -> None:
        backend.append("meta", ROWS.slice(0, 1))
        wider = ROWS.slice(1, 1).append_column("extra", pa.array([7], pa.int64()))
        backend.append("meta", wider)
        table = backend.open_table("meta").to_pyarrow_table()
        assert sorted(table.column("extra").to_pylist(), key=str) == [7, None]

    def test_compaction_changes_no_row(self, backend: Backend) -> None:
        for i in range(3):
            backend.append("meta", ROWS.slice(i % 2, 1))
        before = sorted(backend.open_table("meta").to_pyarrow_table().column("key").to_pylist())
        result = backend.compact("meta")
        assert result["files_after"] <= result["files_before"]
        assert sorted(backend.open_table("meta").to_pyarrow_table().column("key").to_pylist()) == before

    # -- writers ------------------------------------------------------------------------------------
    def test_the_writer_lock_admits_one_writer_at_a_time(self, backend: Backend) -> None:
        inside: list[str] = []
        overlap: list[bool] = []

        def writer(name: str) -> None:
            with backend.lock():
                inside.append(name)
                overlap.append(len(inside) > 1)
                time.sleep(0.1)
                inside.remove(name)

        threads = [threading.Thread(target=writer, args=(f"w{i}",)) for i in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert overlap == [False, False, False]

    def test_journals_live_in_a_local_folder(self, backend: Backend) -> None:
        folder = backend.journal_dir()
        folder.mkdir(parents=True, exist_ok=True)
        assert folder.is_dir()

    # -- the store's operations on this backend ------------------------------------------------------
    def test_append_with_conflict_check(self, backend: Backend) -> None:
        store = Store(backend)
        lines = example_run("r1")
        assert ingest_bytes(store, jsonl(lines), "a").new == len(lines)
        assert ingest_bytes(store, jsonl(lines), "a").present == len(lines)  # identical: a no-op
        version = store.version("events")
        changed = [*lines[:-2], lines[-2].replace("20度", "21度"), lines[-1]]
        with pytest.raises(ConflictError):
            ingest_bytes(store, jsonl(changed), "b")
        assert store.version("events") == version  # a refused batch writes nothing

    def test_a_pass_is_visible_only_with_its_pass_row(self, backend: Backend) -> None:
        store = Store(backend)
        ingest_bytes(store, jsonl(example_run("r1")), "a")
        result = judge_runs(store, SuiteResolver(store), dry_run=True)
        store.append("verdicts", pa.Table.from_pylist(result.rows, schema=store.dataset("verdicts").schema))
        with Views(store) as views:
            assert views.arrow("SELECT count(*) AS n FROM verdicts").column("n")[0].as_py() == 0
        write_pass(store, result, kind="judge", by="t", command="test", filters={})
        with Views(store) as views:
            assert views.arrow("SELECT count(*) AS n FROM verdicts").column("n")[0].as_py() == 1


class TestLocalBackend(BackendContract):
    @pytest.fixture
    def backend(self, tmp_path) -> Backend:
        return LocalBackend(tmp_path / "store")
