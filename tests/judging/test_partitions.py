"""Partitions of a judging pass (trajectory/judging/partitions.py): however the runs are cut,
each is judged once, within its partition's bounds, and the verdicts are the same."""

from __future__ import annotations


import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from trajectory.judging import SuiteResolver, judge_runs, plan_partitions
from trajectory.judging.selection import select_runs
from trajectory.store.delta import Store

NAME = st.text("abc", min_size=1, max_size=3)


@settings(max_examples=60, deadline=None)
@given(runs=st.dictionaries(NAME, st.tuples(st.one_of(st.none(), NAME), st.one_of(st.none(), NAME)), max_size=30),
       size=st.integers(1, 8))
def test_every_run_is_in_one_partition_within_its_bounds(runs, size) -> None:
    ends = pa.table({
        "run_id": list(runs), "suite": [s for s, _ in runs.values()], "task": [t for _, t in runs.values()],
    }, schema=pa.schema([("run_id", pa.string()), ("suite", pa.string()), ("task", pa.string())]))
    parts = plan_partitions(ends, size)
    assert sorted(r for p in parts for r in p.runs) == sorted(runs)
    for p in parts:
        assert 1 <= len(p.runs) <= size
        for column, lo, hi in p.bounds:
            for r in p.runs:
                value = r if column == "run_id" else runs[r][0 if column == "suite" else 1]
                assert lo <= value <= hi


def test_small_partitions_on_the_store_judge_every_run_alike(samples_copy: Store) -> None:
    store = samples_copy
    resolver = SuiteResolver(store)
    finished = select_runs(store).finished
    whole = [r.as_dict() for r in judge_runs(store, resolver, dry_run=True, partition=10**6).rows]
    cut = [r.as_dict() for r in judge_runs(store, resolver, dry_run=True, partition=7).rows]
    strip = lambda rows: [{k: v for k, v in r.items() if k not in ("pass_id", "judged_at")} for r in rows]  # noqa: E731
    assert [r["run_id"] for r in cut] == sorted(finished)
    assert strip(cut) == strip(whole)
