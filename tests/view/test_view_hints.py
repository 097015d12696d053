"""The viewer's hints name the store it was opened with (its --store, and its --storage-option
names, never their values), so that a command copied from a page works when pasted."""

from __future__ import annotations

import shlex
from pathlib import Path

from starlette.testclient import TestClient
from typer.testing import CliRunner

from helpers import example_run, jsonl
from trajectory.cli.main import app
from trajectory.text import HINT_OPTIONS
from trajectory.view.app import create_app
from trajectory.view.data import StoreData


def unjudged_store(tmp_path: Path) -> str:
    store = str(tmp_path / "my store #1" / "st")
    r = CliRunner().invoke(app, ["ingest", "-", "--store", store], input=jsonl(example_run("r1")))
    assert r.exit_code == 0, r.output
    return store


def test_a_static_copy_says_how_to_judge_this_store(tmp_path: Path) -> None:
    store = unjudged_store(tmp_path)
    out = tmp_path / "site"
    r = CliRunner().invoke(app, ["view", "--static", str(out), "--store", store])
    assert r.exit_code == 0, r.output
    want = f"run <code>traj judge --store {shlex.quote(store)}</code>"
    for page in ("index.html", "passes.html"):
        text = (out / page).read_text().replace("&#39;", "'")
        assert want in text, page


def test_a_served_page_says_how_to_judge_the_store_it_was_opened_with(tmp_path: Path) -> None:
    store = unjudged_store(tmp_path)
    # As `traj view --store S --storage-option K=V` opens it: the pages are answered in other
    # threads, which do not see the command's own hint options.
    token = HINT_OPTIONS.set((store, ("AWS_REGION",)))
    try:
        data = StoreData(store)
    finally:
        HINT_OPTIONS.reset(token)
    want = f"traj judge --store {shlex.quote(store)} --storage-option AWS_REGION=..."
    with TestClient(create_app(data)) as c:
        for page in ("/", "/passes"):
            assert want in c.get(page).text.replace("&#39;", "'"), page
        r = c.get("/diff")
        assert want in r.text.replace("&#39;", "'")
