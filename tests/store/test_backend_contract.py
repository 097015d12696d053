"""The store backend contract: one test class that every backend runs.

A backend subclasses :class:`BackendContract` and gives the ``backend`` fixture (a fresh, empty
store location): a local folder, and object storage on a real S3 server (moto) on 127.0.0.1.
"""

from __future__ import annotations

import threading
import time

import pyarrow as pa
import pytest

from helpers import example_run, jsonl
from trajectory.store.backend import Backend, CommitConflict
from trajectory.errors import ConflictError
from trajectory.ingest.files import ingest_bytes
from trajectory.judging import SuiteResolver, judge_runs, write_pass
from trajectory.store.local import LocalBackend
from trajectory.store.objstore import ObjectBackend
from trajectory.query.sql import Views
from trajectory.store.delta import FORMAT_FILE, META_SCHEMA, STORE_FORMAT, Store

ROWS = pa.table({"kind": ["suite", "suite"], "key": ["a", "b"], "at": pa.array([0, 1], pa.timestamp("us", tz="UTC")),
                 "by": ["x", "y"], "data": ["{}", "{}"]})


def keys(backend: Backend, version: int | None = None) -> list[str]:
    """The meta table's keys, sorted, read the way the store reads (Arrow datasets)."""
    return sorted(backend.dataset("meta", META_SCHEMA, version).to_table().column("key").to_pylist())


class BackendContract:
    """What a store needs from where its bytes live (see trajectory/store/backend.py)."""

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
        assert keys(backend, v0) == ["a"] and keys(backend) == ["a", "b"]

    def test_an_added_column_joins_an_older_table(self, backend: Backend) -> None:
        backend.append("meta", ROWS.slice(0, 1))
        wider = ROWS.slice(1, 1).append_column("extra", pa.array([7], pa.int64()))
        backend.append("meta", wider)
        schema = META_SCHEMA.append(pa.field("extra", pa.int64()))
        table = backend.dataset("meta", schema).to_table()
        assert sorted(table.column("extra").to_pylist(), key=str) == [7, None]

    def test_compaction_changes_no_row(self, backend: Backend) -> None:
        for i in range(3):
            backend.append("meta", ROWS.slice(i % 2, 1))
        before = keys(backend)
        result = backend.compact("meta")
        assert result["files_after"] <= result["files_before"]
        assert keys(backend) == before

    # -- writers ------------------------------------------------------------------------------------
    def test_a_conditional_append_on_a_stale_version_is_refused_and_writes_nothing(self, backend: Backend) -> None:
        assert backend.append("meta", ROWS.slice(0, 1), after=-1) == 0
        with pytest.raises(CommitConflict):
            backend.append("meta", ROWS.slice(1, 1), after=-1)  # the table exists now
        assert backend.append("meta", ROWS.slice(1, 1), after=0) == 1
        with pytest.raises(CommitConflict):
            backend.append("meta", ROWS.slice(0, 1), after=0)
        assert backend.open_table("meta").version() == 1 and keys(backend) == ["a", "b"]

    def test_of_writers_racing_on_one_version_exactly_one_commits(self, backend: Backend) -> None:
        backend.append("meta", ROWS.slice(0, 1))
        outcomes: list[str] = []
        start = threading.Barrier(4)

        def writer(i: int) -> None:
            start.wait()
            try:
                backend.append("meta", ROWS.slice(1, 1), after=0)
                outcomes.append("won")
            except CommitConflict:
                outcomes.append("lost")

        threads = [threading.Thread(target=writer, args=(i,)) for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(outcomes) == ["lost", "lost", "lost", "won"]
        assert len(keys(backend)) == 2

    def test_ingests_racing_for_one_run_store_it_once(self, backend: Backend) -> None:
        """Read-check-append on every backend: with or without a lock, of two batches with
        different content for one run exactly one is stored, and an identical third is a
        no-op, whatever the interleaving."""
        store = Store(backend)
        same = example_run("r1")
        other = [*same[:-2], same[-2].replace("20度", "21度"), same[-1]]
        results: list[str] = []
        start = threading.Barrier(3)

        def writer(lines: list[str], name: str) -> None:
            start.wait()
            try:
                r = ingest_bytes(Store(backend), jsonl(lines), name)
                results.append(f"{name} new={r.new} present={r.present}")
            except ConflictError:
                results.append(f"{name} conflict")

        threads = [threading.Thread(target=writer, args=a) for a in ((same, "a"), (same, "b"), (other, "c"))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        keys = store.read("events", columns=["run_id", "seq"]).to_pylist()
        assert len(keys) == len(same) == len({(k["run_id"], k["seq"]) for k in keys})
        n = len(same)
        if "c conflict" in results:  # a or b won: the other of the two is a no-op
            assert sorted(results) == sorted([f"a new={n} present=0", f"b new=0 present={n}", "c conflict"]) or \
                sorted(results) == sorted([f"a new=0 present={n}", f"b new={n} present=0", "c conflict"])
        else:  # c won: a and b are refused
            assert sorted(results) == ["a conflict", "b conflict", f"c new={n} present=0"]

    def test_small_file_writers_racing_leave_one_whole_content(self, backend: Backend) -> None:
        start = threading.Barrier(3)

        def writer(i: int) -> None:
            start.wait()
            backend.write_file("note.json", f'{{"writer": {i}}}'.encode() * 50)

        threads = [threading.Thread(target=writer, args=(i,)) for i in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert backend.read_file("note.json") in {f'{{"writer": {i}}}'.encode() * 50 for i in range(3)}

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
        store.append("verdicts", pa.Table.from_pylist([r.as_dict() for r in result.rows], schema=store.dataset("verdicts").schema))
        with Views(store) as views:
            assert views.arrow("SELECT count(*) AS n FROM verdicts").column("n")[0].as_py() == 0
        write_pass(store, result, kind="judge", by="t", command="test", filters={})
        with Views(store) as views:
            assert views.arrow("SELECT count(*) AS n FROM verdicts").column("n")[0].as_py() == 1


class TestLocalBackend(BackendContract):
    @pytest.fixture
    def backend(self, tmp_path) -> Backend:
        return LocalBackend(tmp_path / "store")

    def test_the_writer_lock_admits_one_writer_at_a_time(self, backend: Backend) -> None:
        assert backend.serialised
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


class TestS3Backend(BackendContract):
    """The same contract on a real S3 server (moto, 127.0.0.1): no lock, conditional puts."""

    @pytest.fixture
    def backend(self, s3_store_uri) -> Backend:
        return ObjectBackend(s3_store_uri)

    def test_it_is_opened_from_an_s3_uri_and_names_only_the_uri(self, backend: Backend, s3_store_uri) -> None:
        store = Store(s3_store_uri)
        assert isinstance(store.backend, ObjectBackend) and not store.backend.serialised
        assert str(store.backend) == s3_store_uri and "testing-secret" not in repr(store.backend)
        assert store.backend.journal_dir() == ObjectBackend(s3_store_uri + "/").journal_dir()
        assert store.backend.journal_dir() != ObjectBackend(s3_store_uri + "2").journal_dir()


def test_polars_scans_a_store_on_s3(s3_store_uri) -> None:
    """Store.scan (Polars reading the Delta table itself) on object storage, with the options."""
    store = Store(s3_store_uri)
    ingest_bytes(store, jsonl(example_run("r1")), "a")
    frame = store.scan("events").select("run_id", "seq").collect()
    assert sorted(frame.iter_rows()) == [("r1", s) for s in range(5)]
