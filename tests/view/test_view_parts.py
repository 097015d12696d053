"""`traj view` beyond the pages: the evidence rule and the state changes (pure), screenshots
served from an imported run folder, a store that changes while the viewer runs, `--static`
and `--share`, and the command itself on 127.0.0.1."""

from __future__ import annotations

import json
import re
import shutil
import socket
import struct
import urllib.parse
import urllib.request
import zlib
from pathlib import Path
from typing import Any

import pytest
from helpers import example_run, jsonl, line
from hypothesis import given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient
from typer.testing import CliRunner
from view_helpers import FAILING_RUN, FLIP_RUN, HOLDOUT_RUN, LiveView, copy_store, free_port

from trajectory.cli.import_mobilegym import import_mobilegym
from trajectory.cli.main import app
from trajectory.ingest.files import ingest_bytes
from trajectory.judging import SuiteResolver, judge_runs
from trajectory.query.sql import holdout_views
from trajectory.store.delta import Store
from trajectory.view.app import create_app
from trajectory.view.changes import evidence, state_changes
from trajectory.view.data import StoreData
from trajectory.view.static_site import write_static

MOBILEGYM = Path(__file__).parent.parent / "data" / "mobilegym_run"


# -- the evidence rule ------------------------------------------------------------------------

RUN = [
    {"seq": 0, "kind": "run_started"},
    {"seq": 1, "kind": "screen_read", "text": "北京 25° 晴 湿度40%"},
    {"seq": 2, "kind": "sheet_changed", "op": "set", "field": 0, "value": "下午2点"},
    {"seq": 3, "kind": "sheet_changed", "op": "set", "field": 0, "value": "下午2点30分"},
    {"seq": 4, "kind": "sheet_changed", "op": "set", "field": 1, "value": ["a", "b"]},
    {"seq": 5, "kind": "answer_given", "text": "北京现在二十五度"},
    {"seq": 6, "kind": "sheet_changed", "op": "submit"},
    {"seq": 7, "kind": "run_finished", "outcome": "succeeded"},
]


@pytest.mark.parametrize("check, seq, kind", [
    pytest.param({"name": "field 0: 响铃时间", "actual": "whatever"}, 3, "sheet_changed", id="field-N-is-the-last-set"),
    pytest.param({"name": "field 1", "actual": ["a", "b"]}, 4, "sheet_changed", id="repeatable-field"),
    pytest.param({"name": "submitted", "actual": True}, 6, "sheet_changed", id="submitted-flag"),
    pytest.param({"name": "answer_regex", "actual": "北京现在二十五度"}, 5, "answer_given", id="answer-text"),
    pytest.param({"name": "answer", "actual": None}, 5, "answer_given", id="answer-by-name"),
    pytest.param({"name": "screen_has", "actual": "湿度40%"}, 1, "screen_read", id="text-inside-a-screen"),
    # A two-character value matches whole fields only: "25" is in "北京 25° 晴" but also in "2025".
    pytest.param({"name": "temp", "actual": 25}, 7, "run_finished", id="short-number-not-inside-text"),
    pytest.param({"name": "value", "actual": "下午2点"}, 2, "sheet_changed", id="exact-earlier-value"),
    pytest.param({"name": "L2 tool discovery", "actual": 0.35}, 7, "run_finished", id="a-score-is-the-finished-run"),
])
def test_evidence_points_at_the_event_that_holds_the_value(check, seq, kind):
    got = evidence(RUN, check)
    assert (got["seq"], got["kind"]) == (seq, kind), got
    assert got["how"]


# -- state changes ----------------------------------------------------------------------------

KEYS = st.sampled_from(["a", "b", "c", "鍵"])
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.floats(-2, 2, allow_nan=False) | st.text("xy中", max_size=3),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=3),
    max_leaves=12,
)


def _apply(root: dict[str, Any], changes: list[dict[str, Any]]) -> dict[str, Any]:
    """Apply reported changes to a copy: set each path to its after value, delete removed ones."""
    root = json.loads(json.dumps(root))
    for c in sorted(changes, key=lambda c: c["removed"]):  # sets first, then deletions
        *parents, last = c["path"].split(".")
        node: Any = root
        for p in parents:
            node = node[int(p)] if isinstance(node, list) else node[p]
        key: Any = int(last) if isinstance(node, list) else last
        if not c["removed"]:
            if isinstance(node, list) and key == len(node):
                node.append(c["after"])
            else:
                node[key] = c["after"]
    for c in sorted((c for c in changes if c["removed"]), key=lambda c: c["path"], reverse=True):
        *parents, last = c["path"].split(".")
        node = root
        for p in parents:
            node = node[int(p)] if isinstance(node, list) else node[p]
        del node[int(last) if isinstance(node, list) else last]
    return root


@settings(max_examples=300, deadline=None)
@given(a=JSON, b=JSON)
def test_state_changes_are_exactly_what_differs(a, b):
    before, after = {"state": a}, {"state": b}
    changes = state_changes(before, after, limit=10_000)
    assert state_changes(after, after) == []
    same = json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    assert (changes == []) == same
    # Compared as JSON text: in Python True == 1, in JSON they differ.
    assert json.dumps(_apply(before, changes), sort_keys=True) == json.dumps(after, sort_keys=True)


def test_state_changes_at_the_start_list_everything_new():
    got = state_changes(None, {"sheet": {"answers": {}, "submitted": False}, "outcome": None})
    assert {c["path"] for c in got} == {"sheet", "outcome"} and all(c["added"] for c in got)
    assert got[0]["after"] == {"answers": {}, "submitted": False}


# -- screenshots from an imported run folder ------------------------------------------------------


def _png() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    raw = b"\x00\xff\x00\x00"  # one red pixel
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)) + \
        chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


def test_images_come_from_the_imported_folder_and_a_missing_one_says_so(tmp_path):
    folder = shutil.copytree(MOBILEGYM, tmp_path / "mobilegym_run")
    shots = folder / "trajectory" / "weather_CheckCurrentTemp_t0" / "screenshots"
    shots.mkdir()
    (shots / "step_1.png").write_bytes(_png())
    (tmp_path / "outside.png").write_bytes(_png())
    store = Store(tmp_path / "store")
    import_mobilegym(store, folder)
    # A run whose image reference climbs out of every image folder.
    ingest_bytes(store, jsonl([
        line("escape-1", 0, "run_started", suite="example", task="current_temp", params={"city": "北京"}),
        line("escape-1", 1, "screen_read", text="x", image="../outside.png"),
        line("escape-1", 2, "run_finished", outcome="succeeded"),
    ]), "escape.jsonl")
    data = StoreData(str(store.loc))
    with TestClient(create_app(data)) as c:
        run = next(r["run_id"] for r in c.get("/api/runs?q=CheckCurrentTemp").json()["runs"])
        page = c.get(f"/api/runs/{run}?at=1").json()["time_travel"]
        assert page["screen"]["image"].endswith("screenshots/step_1.png") and page["screen"]["image_found"]
        html = c.get(f"/runs/{run}?at=1").text
        assert f'<img src="/runs/{urllib.parse.quote(run, safe="")}/image/1"' in html
        img = c.get(f"/runs/{run}/image/1")
        assert img.status_code == 200 and img.headers["content-type"] == "image/png" and img.content == _png()
        later = c.get(f"/runs/{run}?at=3").text
        assert 'id="image-missing"' in later and "screenshots/step_2.png is missing" in later
        assert c.get(f"/runs/{run}/image/3").status_code == 404
        assert c.get(f"/runs/{run}/image/0").status_code == 404  # run_started is no screen
        escaped = c.get("/runs/escape-1/image/1")
        assert escaped.status_code == 404 and "../outside.png" in escaped.text
    data.close()


# -- a store that changes while the viewer runs ---------------------------------------------------


def test_a_new_pass_shows_without_a_restart(tmp_path):
    store = Store(tmp_path / "store")
    ingest_bytes(store, jsonl(example_run("ex-1") + example_run("ex-2", "北京现在二十度")), "runs.jsonl")
    judge_runs(store, SuiteResolver(store))
    data = StoreData(str(store.loc))
    with TestClient(create_app(data)) as c:
        assert c.get("/api/passes").json()["total"] == 1 and c.get("/api/").json()["passes"] == 1
        assert c.get("/api/diff").status_code == 404
        judge_runs(store, SuiteResolver(store))
        assert c.get("/api/passes").json()["total"] == 2 and c.get("/api/").json()["passes"] == 2
        diff = c.get("/api/diff").json()
        assert diff["common"] == 2 and diff["flip_count"] == 0
    data.close()


# -- --static and --share ------------------------------------------------------------------------


def test_static_copy_has_every_page_with_relative_links(demo_store, tmp_path):
    out = tmp_path / "site"
    summary = write_static(str(demo_store), out)
    assert "137 runs" in summary
    names = {p.name for p in out.iterdir()}
    assert {"index.html", "runs.html", "runs-2.html", "runs-3.html", "passes.html", "diff.html", "query.html",
            "query-1.html", "query-1.csv", "query-1.json", "static"} <= names
    assert len([n for n in names if n.startswith("run-")]) == 137
    run = (out / f"run-{FAILING_RUN}.html").read_text()
    assert run.count("<template data-seq=") == 11 and 'href="static/view.css"' in run
    assert 'href="/' not in run and "/api/" not in run
    diff = (out / "diff.html").read_text()
    assert f'href="run-{FLIP_RUN}.html#at=5"' in diff
    assert (out / "query-1.csv").read_text().startswith("suite,task,runs,pass_rate,pass,fail,counted_apart\n")
    for page in out.glob("*.html"):
        for href in re.findall(r'href="([^"#]+)', page.read_text()):
            assert (out / urllib.request.url2pathname(href)).exists(), (page.name, href)


def test_share_leaves_out_answers_images_devices_and_paths(demo_store, tmp_path):
    out = tmp_path / "shared"
    r = CliRunner().invoke(app, ["view", "--store", str(demo_store), "--static", str(out), "--share"])
    assert r.exit_code == 0, r.output
    text = "\n".join(p.read_text() for p in out.iterdir() if p.is_file())
    for secret in ("下午2点30分", "晚上10点50分", "123×456 = 56,088", "北京现在二十度", str(demo_store)):
        assert secret not in text, secret
    assert not (out / "images").exists()
    # The shared copy is the allow-list's pages only: no run pages (screens, answers, state).
    assert {p.name for p in out.iterdir()} == {"index.html", "runs.html", "passes.html", "runs.json"}
    runs = (out / "runs.html").read_text()
    assert FLIP_RUN in runs and "14:30" not in runs  # the run and its checks by name; no expected value


def test_share_needs_static(demo_store):
    r = CliRunner().invoke(app, ["view", "--store", str(demo_store), "--share"])
    assert r.exit_code == 1 and "--share goes with --static" in r.output


# -- the command ------------------------------------------------------------------------------------


def test_traj_view_serves_on_127_0_0_1_and_stops(demo_store):
    live = LiveView(demo_store)
    try:
        assert live.banner.startswith(f"traj view: store {demo_store} (tune pool) at http://127.0.0.1:{live.port}/")
        with urllib.request.urlopen(live.url + f"/runs/{FAILING_RUN}?at=5") as r:
            assert r.status == 200 and "最高23° 最低15°" in r.read().decode()
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(live.url + "/runs/nope")
        assert err.value.code == 404
        err.value.close()
    finally:
        live.stop()
    assert live.proc.returncode is not None


def test_traj_view_refuses_a_taken_port_and_a_missing_store(demo_store, tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        r = CliRunner().invoke(app, ["view", "--store", str(demo_store), "--port", str(port)])
    assert r.exit_code == 1 and f"cannot serve on 127.0.0.1:{port}" in r.output
    r = CliRunner().invoke(app, ["view", "--store", str(tmp_path / "none"), "--port", str(free_port())])
    assert r.exit_code == 1 and r.output.strip() == (
        f"error: no traj store at {tmp_path / 'none'} (create one with traj ingest or traj demo)")
    r = CliRunner().invoke(app, ["view", "--store", str(demo_store), "--split", "dev"])
    assert r.exit_code == 1 and "--split must be one of tune, holdout" in r.output


def test_traj_demo_ends_by_suggesting_traj_view(tmp_path):
    store = tmp_path / "store"
    r = CliRunner().invoke(app, ["demo", "--store", str(store), "--suite", "example"])
    assert r.exit_code == 0, r.output
    last = r.output.rstrip().splitlines()[-1].split()
    assert last[:3] == ["traj", "view", "--store"] and last[3] == str(store)
    assert last[-1] == "http://127.0.0.1:8000/"  # where `traj view` serves without options
    # What it suggests works: the demo's store opens in the viewer, its diff being the fix.
    got = StoreData(str(store), background_index=False)
    try:
        assert got.diff(*got.default_pair(), 1, 10)["about_a"]["command"] == "traj demo (broken rules)"
    finally:
        got.close()


def test_a_holdout_session_is_recorded_as_a_look(demo_store, tmp_path):
    store = copy_store(demo_store, tmp_path / "store")
    live = LiveView(store, "--split", "holdout")
    try:
        assert "(holdout pool)" in live.banner
        with urllib.request.urlopen(live.url + "/api/runs") as r:
            assert [x["run_id"] for x in json.loads(r.read())["runs"]] == [HOLDOUT_RUN]
    finally:
        live.stop()
    looks = holdout_views(Store(store))
    assert [v["key"] for v in looks] == ["view"] and json.loads(looks[0]["data"])["port"] == live.port


def test_an_empty_store_shows_empty_pages(tmp_path):
    store = Store(tmp_path / "store")
    store.init()
    data = StoreData(str(store.loc), background_index=False)
    assert data.build_index()
    with TestClient(create_app(data)) as c:
        assert c.get("/api/").json()["runs"] == 0 and "No judging pass yet" in c.get("/").text
        assert c.get("/api/runs?sort=tokens").json()["runs"] == [] and "No run matches" in c.get("/runs").text
        assert c.get("/api/passes").json()["total"] == 0
        diff = c.get("/diff")
        assert diff.status_code == 404 and "need two judging passes" in diff.text
        assert c.get("/api/query", params={"sql": "SELECT count(*) AS n FROM runs"}).json()["result"]["rows"] == [[0]]
    data.close()
