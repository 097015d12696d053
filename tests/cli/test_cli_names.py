"""Issue 23, item 5: a --suite, --task, --batch, --run (or a pass id, or a run named as an
argument) that names nothing in the store is an error with the near names, in every command
that takes one, and in the viewer's filters; never an empty result."""

from __future__ import annotations

import json

import pytest

from cli_support import example_store, traj


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> str:
    path = example_store(tmp_path_factory.mktemp("names") / "store")
    assert traj("judge", "--store", path).exit_code == 0
    return path


# (argv, the line's start, the near name it must offer)
TYPOS = [
    (["judge", "--suite", "exampel"], "no suite 'exampel' in the store (--suite); did you mean example?"),
    (["judge", "--batch", "bb1"], "no batch 'bb1' in the store (--batch); did you mean b1?"),
    (["judge", "--run", "r11"], "no run 'r11' in the store; did you mean r1"),
    (["judge", "--dry-run", "--suite", "exampel"], "did you mean example?"),
    (["runs", "--suite", "exampel"], "did you mean example?"),
    (["runs", "--batch", "bb1"], "did you mean b1?"),
    (["runs", "--json", "--suite", "exampel"], "did you mean example?"),
    (["export", "events", "--suite", "exampel"], "did you mean example?"),
    (["export", "events", "--batch", "bb1"], "did you mean b1?"),
    (["export", "events", "--run", "r11"], "did you mean r1"),
    (["show", "r11"], "no run 'r11' in the store; did you mean r1"),
    (["show", "r11", "--json"], "did you mean r1"),
    (["override", "r11", "--to", "pass", "--evidence", "北京现在20度", "--by", "ann"], "did you mean r1"),
    (["report", "--batch", "bb1", "--out", "rep"], "no batch 'bb1' in the store (--batch); did you mean b1?"),
    (["report", "--batch", "b1", "--suite", "exampel", "--out", "rep"], "did you mean example?"),
    (["report", "--suite", "selfevp"], "no suite 'selfevp' in the store (--suite)"),
    (["diff", "p2020", "p2021"], "no pass 'p2020' in the store"),
]


@pytest.mark.parametrize("argv,said", TYPOS, ids=lambda x: " ".join(x) if isinstance(x, list) else None)
def test_a_name_that_matches_nothing_is_an_error_with_the_near_names(store, tmp_path, monkeypatch, argv, said) -> None:
    monkeypatch.chdir(tmp_path)
    r = traj(*argv, "--store", store)
    assert r.exit_code == 1, r.output
    assert r.stdout == ""  # no empty table, no "(0 runs)", no empty export
    [err] = r.stderr.splitlines()
    assert err.startswith("error: ") and said in err, err
    assert not (tmp_path / "rep").exists()


def test_an_export_to_a_file_of_a_typo_writes_no_file(store, tmp_path) -> None:
    out = tmp_path / "weather.jsonl"
    r = traj("export", "events", "--suite", "exampel", "--out", out, "--store", store)
    assert r.exit_code == 1 and "did you mean example?" in r.stderr
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_a_name_the_store_has_still_filters(store) -> None:
    r = traj("runs", "--suite", "example", "--batch", "b1", "--json", "--store", store)
    assert r.exit_code == 0 and len(r.stdout.splitlines()) == 3
    assert traj("export", "events", "--run", "r1", "--store", store).stdout.count("\n") == 5


def test_the_python_api_refuses_a_typo_too(store) -> None:
    from trajectory.errors import NotFound
    from trajectory.store.delta import Store
    from trajectory.query.verdicts import current_verdicts

    with pytest.raises(NotFound, match="did you mean example"):
        current_verdicts(Store(store), suite="exampel")
    assert set(current_verdicts(Store(store), suite="example")) == {"r1", "r2"}


def test_the_viewers_filters_name_the_near_names(store) -> None:
    from starlette.testclient import TestClient

    from trajectory.view.app import create_app
    from trajectory.view.data import StoreData

    client = TestClient(create_app(StoreData(store)))
    for query, near in (("suite=exampel", "example"), ("batch=bb1", "b1"), ("task=current_tem", "current_temp")):
        r = client.get(f"/api/runs?{query}")
        assert r.status_code == 404, (query, r.text)
        assert f"did you mean {near}?" in r.json()["error"]
        page = client.get(f"/runs?{query}")
        assert page.status_code == 404 and f"did you mean {near}?" in page.text
    r = client.get("/api/runs/r11")
    assert r.status_code == 404 and "did you mean r1" in r.json()["error"]
    r = client.get("/api/diff?a=p1&b=p2")
    assert r.status_code == 404 and "no pass 'p1'" in r.json()["error"]
    ok = client.get("/api/runs?suite=example")
    assert ok.status_code == 200 and ok.json()["total"] == 3
