"""Judging through the batch path (each suite's declared reads) gives the verdicts the
per-run fold gives, for every sample run of every bundled suite."""

from __future__ import annotations

import json

import pytest

from replay import replay
from trajectory.judging import (
    SuiteResolver,
    judge_runs,
    judge_state,
    load_events,
    load_partners,
    recorded_judgements,
    select_runs,
    to_json,
    with_judgements,
)
from trajectory.store.delta import Store


@pytest.fixture(scope="module")
def samples(samples_store) -> Store:
    return Store(samples_store)  # read only: dry runs


def test_batch_verdicts_equal_fold_verdicts(samples: Store) -> None:
    resolver = SuiteResolver(samples)
    batch = {r.run_id: r.as_dict() for r in judge_runs(samples, resolver, dry_run=True, partition=17).rows}
    finished = select_runs(samples).finished
    judgements = recorded_judgements(samples)
    events = load_events(samples, finished)
    states = {r: with_judgements(replay(events[r]), judgements) for r in finished}
    partners = load_partners(samples, resolver, states)
    assert set(batch) == set(finished) and len(finished) > 100
    for run_id, state in states.items():
        verdict, version = judge_state(resolver, state, partners.get(run_id))
        row = batch[run_id]
        assert (row["outcome"], row["score"], row["judge_version"]) == (verdict.outcome, verdict.score, version), run_id
        assert [c["name"] for c in row["checks"]] == [c.name for c in verdict.checks], run_id
        assert [c["passed"] for c in row["checks"]] == [c.passed for c in verdict.checks], run_id
        assert [json.loads(c["actual"]) for c in row["checks"]] == [_plain(c.actual) for c in verdict.checks], run_id
        assert (json.loads(row["details"]) if row["details"] else None) == _plain(verdict.details), run_id


def _plain(value):
    return json.loads(to_json(value))
