"""The vectorised replay equals the fold (what STYLE and the performance issue require)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from replay import replay
from replay.batch import Reads, batch_sql, build_state, detail_sql, group_details
from strategies import runs
from trajectory import events as ev
from trajectory.ingest.files import ingest_bytes
from trajectory.query.sql import Views
from trajectory.store.delta import Store


def batch_states(store: Store, reads: Reads = Reads()) -> dict:
    with Views(store, split=None) as v:
        rows = v.con.sql(batch_sql(reads)).to_arrow_table().to_pylist()
        details = group_details(v.con.sql(detail_sql(reads)).fetchall())
    return {r["run_id"]: build_state(r, reads, details[r["run_id"]]) for r in rows}


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.lists(runs(max_size=10), min_size=1, max_size=4, unique_by=lambda r: r[0].run_id))
def test_batch_path_equals_the_fold(tmp_path_factory, data) -> None:
    store = Store(tmp_path_factory.mktemp("b") / "s")
    ingest_bytes(store, b"\n".join(ev.encode(e) for run in data for e in run), "x")
    got = batch_states(store)
    for run in data:
        lazy, fold = got[run[0].run_id].screens, replay(run).screens
        # The columns a check searches, read before any screen is built whole (their routes
        # and images are still undecoded JSON here), are the fold's.
        assert (lazy.seqs, lazy.texts, lazy.apps) == (fold.seqs, fold.texts, fold.apps)
        assert got[run[0].run_id] == replay(run)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(run=runs(min_size=2, max_size=12), cut=st.tuples(st.integers(-14, 14), st.integers(-14, 14)))
def test_lazy_screens_slice_and_index_as_the_fold_s(tmp_path_factory, run, cut) -> None:
    # A slice of the batch path's screens taken before their routes and images are decoded
    # (what Reads(screens=n) and last_screens do) holds the fold's screens of that slice, each
    # one whole; so does every screen taken by index.
    store = Store(tmp_path_factory.mktemp("b") / "s")
    ingest_bytes(store, b"\n".join(ev.encode(e) for e in run), "x")
    lazy, fold = batch_states(store)[run[0].run_id].screens, replay(run).screens
    part = lazy[cut[0] : cut[1]]
    assert (part.seqs, part.texts, part.apps) == (fold.seqs[cut[0] : cut[1]], fold.texts[cut[0] : cut[1]], fold.apps[cut[0] : cut[1]])
    assert list(part) == list(fold)[cut[0] : cut[1]]
    assert [lazy[i] for i in range(-len(lazy), len(lazy))] == [fold[i] for i in range(-len(fold), len(fold))]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(run=runs(min_size=3, max_size=12), n=st.integers(1, 3))
def test_partial_reads_keep_what_they_promise(tmp_path_factory, run, n) -> None:
    store = Store(tmp_path_factory.mktemp("b") / "s")
    ingest_bytes(store, b"\n".join(ev.encode(e) for e in run), "x")
    full = replay(run)
    part = batch_states(store, Reads(screens=n, steps=False))[run[0].run_id]
    assert part.screens == full.screens[-n:]
    assert len(part.steps) == len(full.steps)
    assert (part.sheet, part.answer, part.state, part.route, part.outcome, part.totals) == (
        full.sheet, full.answer, full.state, full.route, full.outcome, full.totals)
