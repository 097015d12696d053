"""The review queue on a local store, on real commands (issue 26 item 3)."""

from __future__ import annotations

from review_helpers import check_review_shown, review_store_events, traj


def test_a_review_verdict_is_stored_queued_and_settled_on_a_local_store(tmp_path) -> None:
    store = tmp_path / "store"
    events = tmp_path / "runs.jsonl"
    events.write_bytes(review_store_events())
    assert traj("ingest", events, "--store", store).exit_code == 0
    r = traj("judge", "--store", store)
    assert r.exit_code == 0 and "(1 pass, 1 fail, 1 review)" in r.stdout, r.output
    assert "1 verdict the judge cannot tell: a person decides (traj review --store" in r.stdout, r.output
    check_review_shown(str(store), tmp_path)


def test_an_unknown_verdict_is_an_error_naming_the_outcomes(tmp_path) -> None:
    store = tmp_path / "store"
    events = tmp_path / "runs.jsonl"
    events.write_bytes(review_store_events())
    traj("ingest", events, "--store", store)
    r = traj("runs", "--verdict", "reveiw", "--store", store)
    assert r.exit_code != 0 and "--verdict must be one or more of" in r.output and "review" in r.output


def test_the_queue_says_when_it_is_empty(tmp_path) -> None:
    store = tmp_path / "store"
    events = tmp_path / "runs.jsonl"
    events.write_bytes(review_store_events())
    traj("ingest", events, "--store", store)
    assert "the review queue is empty" in traj("review", "--store", store).stdout


def test_a_matrix_case_judged_review_fails_the_matrix(tmp_path) -> None:
    """A case the matrix decides may not come back review: traj suite check exits 1 and says so."""
    import shutil
    from pathlib import Path

    from helpers import example_run, jsonl
    from review_helpers import TORN

    folder = tmp_path / "example"
    shutil.copytree(Path(__file__).resolve().parents[2] / "suites" / "example", folder,
                    ignore=shutil.ignore_patterns("__pycache__"))
    assert traj("suite", "check", folder).exit_code == 0
    (folder / "cases" / "pass" / "torn.jsonl").write_bytes(jsonl(example_run("torn-1", TORN)))
    r = traj("suite", "check", folder)
    assert r.exit_code == 1, r.output
    assert "must pass: review (the matrix decides this case: the judge may not answer review here)" in r.output
