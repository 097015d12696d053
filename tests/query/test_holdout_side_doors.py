"""Issue 24 item 4: the holdout pool has no side doors.

The holdout run of tests/query/test_holdout_pool.py (a run of a holdout task whose run_started does
not say so; stored by this traj, or by an older one that stored no pool), then three doors:

- ``traj judge --where`` is a person's SQL: in the tune pool it must not reach holdout outcomes,
  reasons or answers, not even through an error message (``cast(... AS int)`` prints the value
  it could not cast); with ``--split holdout`` it may, and the look is recorded first;
- the tune pool's ``events`` view holds no holdout run's events (its answers);
- a holdout run exported and ingested again with ``split: tune`` is refused, naming file, line
  and task: a run's pool is its task's, whatever the file says.
"""

from __future__ import annotations

import json

import pytest

from helpers import example_run, jsonl, traj
from query.test_holdout_pool import EVIDENCE, H, holdout_run, sdir  # noqa: F401 - sdir is the fixture
from trajectory.query.sql import holdout_views
from trajectory.store.delta import Store


def holdout_secrets(store: Store) -> list[str]:
    """What must not show in the tune pool: the run, its answer, its verdict's reason."""
    rows = store.read("verdicts").to_pylist()
    assert any(v["run_id"] == H for v in rows)  # the run is judged: there is a verdict to keep
    tune = {v["reason"] for v in rows if v["run_id"] != H}
    return [H, "89.5", EVIDENCE, *(v["reason"] for v in rows if v["run_id"] == H and v["reason"] not in tune)]


LEAKY_WHERE = [
    "cast((SELECT string_agg(run_id || ' ' || outcome || ' ' || coalesce(reason, ''), ' | ') FROM verdicts) AS int) = 1",
    "cast((SELECT string_agg(run_id || ' ' || reason, ' | ') FROM verdict_history) AS int) = 1",
    "cast((SELECT string_agg(text, ' | ') FROM events WHERE kind = 'answer_given') AS int) = 1",
    "cast((SELECT string_agg(run_id, ' ') FROM runs) AS int) = 1",
    "cast(outcome AS int) = 1 OR cast(run_id AS int) = 1",
]


@pytest.mark.parametrize("where", LEAKY_WHERE)
def test_judge_where_reads_only_its_pool_even_in_its_errors(sdir, where) -> None:  # noqa: F811
    store = Store(sdir)
    assert traj("judge", "--store", sdir).exit_code == 0
    secrets = holdout_secrets(store)
    looks = len(holdout_views(store))
    for extra in (("--dry-run",), ()):
        r = traj("judge", *extra, "--all", "--where", where, "--store", sdir)
        for secret in secrets:
            assert secret not in r.output, (secret, r.output)
        assert "Traceback" not in r.output
        assert len(holdout_views(store)) == looks  # nothing of the holdout pool was read
    # The same condition in the holdout pool reads it: the look is recorded, error or not.
    r = traj("judge", "--dry-run", "--all", "--where", where, "--split", "holdout", "--store", sdir)
    assert len(holdout_views(store)) == looks + 1, r.output
    assert holdout_views(store)[-1]["key"] == "judge --where"


def test_judge_where_cannot_count_holdout_runs_either(sdir) -> None:  # noqa: F811
    """A condition that is true only for the holdout run selects nothing in the tune pool: the
    number of hidden holdout runs would otherwise answer it, one bit at a time."""
    assert traj("judge", "--store", sdir).exit_code == 0
    oracle = "run_id IN (SELECT run_id FROM events WHERE text LIKE '%89.5%')"
    r = traj("judge", "--dry-run", "--all", "--json", "--where", oracle, "--store", sdir)
    got = json.loads(r.output)
    assert got["holdout_hidden"] == 0 and got["verdicts"] == [], r.output
    r = traj("judge", "--dry-run", "--all", "--json", "--where", oracle, "--split", "holdout", "--store", sdir)
    assert [v["run_id"] for v in json.loads(r.output)["verdicts"]] == [H], r.output


def test_the_tune_pools_events_hold_no_holdout_run(sdir) -> None:  # noqa: F811
    store = Store(sdir)
    for sql in ("SELECT * FROM events", "SELECT run_id, text FROM events WHERE kind = 'answer_given'",
                f"SELECT count(*) AS n FROM events WHERE run_id = '{H}'",
                "SELECT DISTINCT split FROM events"):
        r = traj("query", sql, "--format", "json", "--store", sdir)
        assert r.exit_code == 0, r.output
        assert H not in r.output and "89.5" not in r.output and "holdout" not in r.output, (sql, r.output)
    assert json.loads(traj("query", f"SELECT count(*) AS n FROM events WHERE run_id = '{H}'", "--format", "json",
                           "--store", sdir).output) == [{"n": 0}]
    assert holdout_views(store) == []
    r = traj("query", "SELECT run_id, text FROM events WHERE kind = 'answer_given'", "--format", "json",
             "--split", "holdout", "--store", sdir)
    assert json.loads(r.output) == [{"run_id": H, "text": EVIDENCE}] and len(holdout_views(store)) == 1
    # The tune run's events are all there.
    r = traj("query", "SELECT count(*) AS n FROM events", "--format", "json", "--store", sdir)
    assert json.loads(r.output) == [{"n": len(example_run("r1"))}]


@pytest.mark.parametrize("tune_runs", [0, 400])
def test_a_holdout_run_ingested_again_as_tune_is_refused(sdir, tmp_path, tune_runs) -> None:  # noqa: F811
    out = tmp_path / "h.jsonl"
    r = traj("export", "events", "--run", H, "--out", str(out), "--store", sdir)
    assert r.exit_code == 0, r.output
    lines = out.read_text(encoding="utf-8").splitlines()
    start = json.loads(lines[0])
    assert start["kind"] == "run_started"
    start["split"] = "tune"
    relabelled = [json.dumps(start, ensure_ascii=False)] + lines[1:]
    others = [x for i in range(tune_runs) for x in example_run(f"t{i:04d}")]
    f = tmp_path / "again.jsonl"
    f.write_bytes(jsonl(others + relabelled))
    line_no = len(others) + 1
    # Into another store; and into its own (there, also a conflict with the stored run_started).
    for target in (str(tmp_path / "fresh"), sdir):
        before = Store(target).read("events").num_rows if Store(target).has_table("events") else 0
        r = traj("ingest", str(f), "--store", target)
        assert r.exit_code != 0, r.output
        assert f"{f}:{line_no}: $.split" in r.output, r.output
        if target != sdir:
            assert "weread-book-rating" in r.output and "holdout pool" in r.output, r.output
        after = Store(target).read("events").num_rows if Store(target).has_table("events") else 0
        assert after == before  # a refused batch writes nothing
    # Under a new run id too (not a conflict with the stored run: a new run of the task).
    renamed = [x.replace(H, "h-copy") for x in relabelled]
    f.write_bytes(jsonl(renamed))
    r = traj("ingest", str(f), "--store", sdir)
    assert r.exit_code != 0 and f"{f}:1: $.split" in r.output and "weread-book-rating" in r.output, r.output
    # Saying the task's own pool, or nothing, is fine.
    start["split"] = "holdout"
    f.write_bytes(jsonl([json.dumps(start, ensure_ascii=False).replace(H, "h-copy2")]
                        + [x.replace(H, "h-copy2") for x in lines[1:]]))
    assert traj("ingest", str(f), "--store", sdir).exit_code == 0
