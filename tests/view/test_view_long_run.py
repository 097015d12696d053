"""One long run (issue 24, section 2): a 100k-event run's page and its JSON twin answer, page
their timeline and never carry the whole run; a static copy stores a step's changes, not the
whole world state per step, and its time travel (view.js, in headless Chromium) rebuilds the
same world state the live app shows."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import urllib.request

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import json_values
from typer.testing import CliRunner
from view_helpers import LiveView, long_run

from trajectory.cli.main import app

# Generous: a hang, not a speed, is what this catches.
HANG = 600


def ingest(tmp_path, lines: list[str]) -> str:
    src = tmp_path / "run.jsonl"
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    store = tmp_path / "store"
    r = CliRunner().invoke(app, ["ingest", str(src), "--store", str(store)])
    assert r.exit_code == 0, r.output
    return str(store)


def get_json(url: str) -> tuple[dict, int]:
    with urllib.request.urlopen(url, timeout=HANG) as r:
        body = r.read()
        return json.loads(body), len(body)


@pytest.fixture(scope="module")
def long_store(tmp_path_factory):
    return ingest(tmp_path_factory.mktemp("long"), long_run("long-1", 100_000))


def test_a_100k_event_run_page_and_its_twin_answer_a_page_at_a_time(long_store):
    live = LiveView(long_store)
    try:
        page, size = get_json(f"{live.url}/api/runs/long-1")
        assert page["event_count"] == 100_000 and page["last_seq"] == 99_999
        # The timeline is one page of it, the one with the last step; the answer stays small.
        events = page["timeline"]["events"]
        assert len(events) == 200 and events[-1]["seq"] == 99_999 and page["timeline"]["pages"] == 500
        assert size < 250_000  # it does not grow with the run (this one's is ~50 KB)
        tt = page["time_travel"]
        from trajectory.view.fold import KEEP

        # The state is whole where it is a count or a value, and says what its lists leave out.
        assert tt["state"]["steps"] == len(range(4, 99_999, 4))
        assert len(tt["state"]["screens"]) == KEEP and tt["state"]["omitted"]["screens"] == 25_000 - KEEP
        assert [r["value"] for r in tt["sheet"]] == ["value at 99987", "value at 99991", "value at 99995"]
        items = tt["state"]["state"]["apps"]["notes"]["items"]
        assert items[0]["v"] == max(s for s in range(2, 99_999, 4) if s % 50 == 0)
        # Another page of the timeline, a step in the middle, and the HTML page.
        mid, _ = get_json(f"{live.url}/api/runs/long-1?at=50003&tpage=3")
        assert [e["seq"] for e in mid["timeline"]["events"]] == list(range(400, 600))
        assert mid["time_travel"]["at"] == 50_003 and mid["time_travel"]["event"]["seq"] == 50_003
        assert mid["time_travel"]["sheet"][0]["value"] == "value at 49995"
        with urllib.request.urlopen(f"{live.url}/runs/long-1?at=77777", timeout=HANG) as r:
            html = r.read().decode()
        assert r.status == 200 and html.count('<tr id="ev-') == 200 and 'id="ev-77777"' in html
        with urllib.request.urlopen(f"{live.url}/runs/long-1/state?at=12", timeout=HANG) as r:
            assert r.status == 200 and 'data-at="12"' in r.read().decode()
    finally:
        live.stop()


@settings(deadline=None, max_examples=300)
@given(json_values, json_values)
def test_world_patch_turns_one_state_into_the_next(a, b):
    from trajectory.view.changes import apply_world_patch, world_patch

    ops = world_patch(a, b)
    assert apply_world_patch(a, ops) == b
    assert json.loads(json.dumps(apply_world_patch(a, ops))) == json.loads(json.dumps(b))
    assert (ops == []) == (json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True))


@settings(deadline=None, max_examples=100)
@given(st.lists(st.dictionaries(st.sampled_from("abcd"), json_values, max_size=4), min_size=1, max_size=6))
def test_world_patches_in_turn_rebuild_every_step(states):
    from trajectory.view.changes import apply_world_patch, world_patch

    doc = states[0]
    for before, after in zip(states, states[1:]):
        doc = apply_world_patch(doc, world_patch(before, after))
        assert doc == after


def big_world_run(run_id: str, events: int, items: int) -> list[str]:
    """A run whose world state is large (``items`` notes of ~200 characters) and changes a little
    at every step."""
    lines = long_run(run_id, events, items)
    first = json.loads(lines[0])
    for item in first["state"]["apps"]["notes"]["items"]:
        item["text"] = f"note {item['id']} " + "长文本" * 60
    lines[0] = json.dumps(first, ensure_ascii=False)
    return lines


def test_a_static_copy_grows_with_the_events_not_with_events_times_state(tmp_path):
    # 600 events over a world state of ~100 KB: the whole state per step would be ~60 MB.
    store = ingest(tmp_path, big_world_run("big-1", 600, 400))
    out = tmp_path / "site"
    r = CliRunner().invoke(app, ["view", "--store", store, "--static", str(out)])
    assert r.exit_code == 0, r.output
    page = (out / "run-big-1.html").read_bytes()
    world = len(json.dumps(json.loads(big_world_run("big-1", 2, 400)[0])["state"], ensure_ascii=False).encode())
    assert world > 90_000
    assert len(page) < 12 * world + 600 * 3_000, len(page)


CHROMIUM = os.environ.get("TRAJ_CHROMIUM", "/usr/bin/chromium")


@pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"needs Chromium at {CHROMIUM}")
def test_the_static_time_travel_rebuilds_the_world_state_the_live_app_shows(tmp_path):
    from playwright.sync_api import expect, sync_playwright

    lines = big_world_run("tt-1", 300, 40)
    # A key removed and one added on the way, and a list that changes length.
    lines.insert(150, json.dumps({"run_id": "tt-1", "seq": 150, "ts": 1775354400150, "kind": "state_changed", "patch": [
        {"op": "add", "path": "/apps/extra", "value": {"list": [1, 2, 3], "gone": "soon"}}]}))
    lines.insert(151, json.dumps({"run_id": "tt-1", "seq": 151, "ts": 1775354400151, "kind": "state_changed", "patch": [
        {"op": "remove", "path": "/apps/extra/gone"}, {"op": "add", "path": "/apps/extra/list/-", "value": 4}]}))
    lines = [json.dumps({**json.loads(x), "seq": i, "ts": 1775354400000 + i}, ensure_ascii=False)
             for i, x in enumerate(lines)]
    store = ingest(tmp_path, lines)
    out = tmp_path / "site"
    r = CliRunner().invoke(app, ["view", "--store", store, "--static", str(out)])
    assert r.exit_code == 0, r.output
    live = LiveView(store)
    profile = tempfile.mkdtemp(prefix="traj-view-chromium-")
    pw = sync_playwright().start()
    try:
        ctx = pw.chromium.launch_persistent_context(profile, executable_path=CHROMIUM, headless=True,
                                                    args=["--headless", "--no-sandbox", "--disable-gpu"])
        ctx.set_default_timeout(60_000)
        page = ctx.new_page()
        page.goto((out / "run-tt-1.html").as_uri())
        # Forward, back, to the end and to the start: each time the live app's world state.
        for seq in (5, 150, 151, 152, 149, 301, 0, 77):
            page.evaluate(f"window.location.hash = '#at={seq}'")
            expect(page.locator("#state .state-at")).to_have_attribute("data-at", str(seq))
            shown = json.loads(page.locator("#state pre[data-world]").text_content())
            want, _ = get_json(f"{live.url}/api/runs/tt-1?at={seq}")
            assert shown == want["time_travel"]["state"]["state"], seq
            screen = page.locator("#state .shot").inner_text()
            if want["time_travel"]["screen"]:
                assert want["time_travel"]["screen"]["text"] in screen
            else:
                assert "has not read a screen yet" in screen
        ctx.close()
    finally:
        pw.stop()
        live.stop()
        shutil.rmtree(profile, ignore_errors=True)
