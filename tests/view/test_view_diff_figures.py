"""One definition of the diff's figures: `traj diff --split POOL --json` and the viewer's
/api/diff of the same pool count the same runs (flips, runs in both, score changes), on the
demo store, for every pool and for both the default pair and each pair of passes."""

from __future__ import annotations

import itertools
import json

import pytest
from starlette.testclient import TestClient
from typer.testing import CliRunner

from trajectory.cli.main import app
from trajectory.query.sql import SPLITS
from trajectory.view.app import create_app
from trajectory.view.data import StoreData
from view_helpers import copy_store


@pytest.fixture(scope="module")
def demo(demo_store, tmp_path_factory):
    # A copy: a holdout diff records the look.
    return copy_store(demo_store, tmp_path_factory.mktemp("diff-figures") / "store")


def cli_diff(store, split: str, *passes: str) -> dict:
    r = CliRunner().invoke(app, ["diff", *passes, "--split", split, "--json", "--store", str(store)])
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


@pytest.mark.parametrize("split", SPLITS)
def test_the_cli_and_the_viewer_count_the_same_flips_in_every_pool(demo, split: str) -> None:
    data = StoreData(str(demo), split)
    ids = data.pass_ids()
    assert len(ids) >= 2
    other = {"tune": "holdout", "holdout": "tune"}[split]
    with TestClient(create_app(data)) as c:
        for a, b in itertools.combinations(ids, 2):
            api = c.get("/api/diff", params={"a": a, "b": b, "per_page": 500}).json()
            cli = cli_diff(demo, split, a, b)
            figures = (cli["runs_in_both"], len(cli["flips"]), cli["score_changes_without_flip"], cli["first_judged"])
            assert figures == (api["common"], api["flip_count"], api["score_changes"], api["first_judged"]), (a, b)
            assert [f["run_id"] for f in cli["flips"]] == [f["run_id"] for f in api["flips"]]
            # The other pool's flips are counted apart, not in this pool's figures.
            whole = StoreData(str(demo), other)
            with TestClient(create_app(whole)) as o:
                theirs = o.get("/api/diff", params={"a": a, "b": b, "per_page": 1}).json()["flip_count"]
            assert cli[f"{other}_hidden"] == theirs
