"""`traj view` in a real browser: Playwright drives Debian's Chromium (never Playwright's own
download) against a live `traj view` on 127.0.0.1 that these tests start and stop.

A person opens the demo store, opens a failing run and moves the time-travel slider, follows a
flip of the demo's fix to its evidence, runs a query and downloads it, and reads Chinese text
drawn with real glyphs.

Two screenshots are taken on the way. They go to a temporary folder, so that a test run never
changes tracked files; to refresh the README's copies in docs/ (after a change to the pages or
to the demo), run once with the variable set and commit the PNGs:

    TRAJ_UPDATE_SCREENSHOTS=1 pytest tests/system/test_view_browser.py

Needs `apt-get install -y chromium fonts-wqy-microhei`; without Chromium the tests are skipped
(saying so). With Chromium but no CJK font, the glyph test fails: that is what it is for.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path

import pytest
from view_helpers import FAILING_RUN, FLIP_RUN, LiveView

CHROMIUM = os.environ.get("TRAJ_CHROMIUM", "/usr/bin/chromium")
APT = "apt-get install -y chromium fonts-wqy-microhei"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
DOCS = Path(__file__).resolve().parents[2] / "docs"
UPDATE_SCREENSHOTS = "TRAJ_UPDATE_SCREENSHOTS"
# Fonts of the stylesheet's stack that draw Chinese.
CJK_FONTS = {"WenQuanYi Micro Hei", "Noto Sans CJK SC", "Source Han Sans SC", "PingFang SC", "Hiragino Sans GB",
             "Microsoft YaHei", "WenQuanYi Zen Hei", "Noto Sans CJK JP", "Droid Sans Fallback"}

try:
    from playwright.sync_api import expect, sync_playwright
except ImportError:  # pragma: no cover - the test extra installs it
    sync_playwright = None  # type: ignore[assignment]

pytestmark = pytest.mark.skipif(
    sync_playwright is None or not os.path.exists(CHROMIUM),
    reason=f"browser tests need Debian's Chromium at {CHROMIUM} and a CJK font: {APT} "
           "(and `pip install -e '.[test]'` for playwright)",
)


@pytest.fixture(scope="module")
def live(demo_store):
    server = LiveView(demo_store)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def browser_context():
    profile = tempfile.mkdtemp(prefix="traj-view-chromium-")
    pw = sync_playwright().start()
    ctx = pw.chromium.launch_persistent_context(
        profile, executable_path=CHROMIUM, headless=True, args=ARGS, accept_downloads=True,
        viewport={"width": 1100, "height": 760}, locale="en-US",
    )
    ctx.set_default_timeout(15_000)
    yield ctx
    ctx.close()
    pw.stop()
    shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture(scope="module")
def screenshot(tmp_path_factory):
    """``screenshot(page, name)``: the page as a PNG in a temporary folder, copied to docs/ only
    when $TRAJ_UPDATE_SCREENSHOTS is 1."""
    folder = tmp_path_factory.mktemp("view-screenshots")

    def take(page, name: str) -> Path:
        path = folder / name
        page.screenshot(path=str(path))
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 10_000
        if os.environ.get(UPDATE_SCREENSHOTS) == "1":
            DOCS.mkdir(exist_ok=True)
            shutil.copyfile(path, DOCS / name)
        return path

    return take


@pytest.fixture
def page(browser_context):
    p = browser_context.new_page()
    yield p
    p.close()


def sheet_values(page) -> list[str]:
    return page.locator("#state .sheet-value").all_inner_texts()


def test_open_the_store_then_a_failing_run_and_travel_in_time(live, page, screenshot):
    page.goto(live.url + "/")
    expect(page.locator("h1")).to_have_text("The store at a glance")
    expect(page.locator("#suites")).to_contain_text("clock")
    page.get_by_role("link", name="Runs", exact=True).click()
    form = page.locator("#run-filters")
    form.locator("select[name=batch]").select_option("gui-demo")
    form.locator("select[name=outcome]").select_option("fail")
    form.get_by_role("button", name="Show").click()
    expect(page).to_have_url(re.compile(r"outcome=fail"))
    page.get_by_role("link", name=FAILING_RUN).click()
    expect(page.locator("h1")).to_contain_text(FAILING_RUN)
    expect(page.locator("#checks")).to_contain_text("failed")

    slider = page.locator("#at")
    slider.focus()
    page.keyboard.press("Home")
    expect(page.locator("#state .state-at")).to_have_attribute("data-at", "0")
    expect(page.locator("#sheet-empty")).to_be_visible()
    for _ in range(5):
        page.keyboard.press("ArrowRight")
    expect(page.locator("#state .state-at")).to_have_attribute("data-at", "5")
    assert sheet_values(page) == ["15"]
    expect(page.locator("#ev-5")).to_have_class("current")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    expect(page.locator("#state .state-at")).to_have_attribute("data-at", "7")
    assert sheet_values(page) == ["15", "23"]
    assert "at=7" in page.url
    page.evaluate("document.getElementById('time-travel').scrollIntoView()")
    screenshot(page, "view-time-travel.png")
    page.keyboard.press("End")
    expect(page.locator("#state .state-at")).to_have_attribute("data-at", "10")
    expect(page.locator("#submitted")).to_have_text("yes")


def test_follow_a_flip_of_the_fix_to_its_evidence(live, page, screenshot):
    page.goto(live.url + "/diff")
    expect(page.locator("#diff-summary")).to_contain_text("flips")
    flip = page.locator(f'.flip[data-run="{FLIP_RUN}"]')
    expect(flip).to_contain_text("下午2点30分")
    # The fix is the latest pass: the default diff is broken rules (a) -> bundled suites (b).
    expect(page.locator("#diff-passes")).to_contain_text("broken rules")
    expect(flip).to_have_class(re.compile(r"\bto-pass\b"))
    screenshot(page, "view-diff.png")
    flip.locator("a.evidence").first.click()
    expect(page).to_have_url(re.compile(re.escape(f"/runs/{FLIP_RUN}?at=5") + "$"))
    expect(page.locator("#state .state-at")).to_have_attribute("data-at", "5")
    assert sheet_values(page) == ["下午2点30分"]
    expect(page.locator("#ev-5")).to_have_class("current")


def test_run_a_query_and_download_it_as_csv(live, page):
    page.goto(live.url + "/query")
    page.get_by_role("link", name="pass rate by suite and task").click()
    rows = page.locator("#result tr")
    expect(rows.first).to_contain_text("pass_rate")
    shown = rows.count() - 1
    assert shown > 10
    with page.expect_download() as info:
        page.locator("#download-csv").click()
    text = Path(info.value.path()).read_text(encoding="utf-8")
    lines = text.strip().split("\n")
    assert lines[0] == "suite,task,runs,pass_rate,pass,fail,counted_apart" and len(lines) == shown + 1
    assert any(line.startswith("clock,AlarmTime,") for line in lines)
    page.locator("#sql").fill("DELETE FROM runs")
    page.locator("#run-query").click()
    expect(page.locator("#query-error")).to_contain_text("refused: only SELECT")


GLYPHS = """(font) => {
  const c = document.createElement('canvas'); c.width = 64; c.height = 64;
  const g = c.getContext('2d');
  const ink = (ch) => {
    g.clearRect(0, 0, 64, 64); g.fillStyle = '#000'; g.font = '48px ' + font; g.textBaseline = 'top';
    g.fillText(ch, 4, 4);
    const d = g.getImageData(0, 0, 64, 64).data; let bits = '';
    for (let i = 3; i < d.length; i += 4) bits += d[i] > 127 ? '1' : '0';
    return bits;
  };
  return {yong: ink('永'), yu: ink('鬱'), missing: ink('\\u0378')};
}"""


def test_chinese_text_is_drawn_with_glyphs_not_boxes(live, page):
    page.goto(live.url + f"/runs/{FAILING_RUN}")
    goal = page.locator("#goal")
    expect(goal).to_contain_text("北京今天")
    font = page.evaluate("getComputedStyle(document.getElementById('goal')).fontFamily")
    assert "WenQuanYi Micro Hei" in font and "Noto Sans CJK SC" in font
    # Drawn in the page's font stack: two different characters give two different glyphs,
    # neither of them the box drawn for a code point no font has (U+0378 is unassigned).
    # Without a CJK font both characters are that same box.
    ink = page.evaluate(GLYPHS, font)
    assert ink["yong"] != ink["missing"] and ink["yu"] != ink["missing"], f"CJK drawn as boxes: {APT}"
    assert ink["yong"] != ink["yu"] and ink["yong"].count("1") > 50
    # And the browser says which installed font drew the goal's Chinese text.
    cdp = page.context.new_cdp_session(page)
    root = cdp.send("DOM.getDocument", {"depth": -1})["root"]["nodeId"]
    node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": "#goal"})["nodeId"]
    cdp.send("CSS.enable")
    used = {f["familyName"] for f in cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]}
    cdp.detach()
    assert used & CJK_FONTS, f"no CJK font drew the text (used {sorted(used)}): {APT}"


def test_a_static_copy_travels_in_time_without_a_server(live, page, tmp_path):
    from trajectory.view.static_site import write_static

    write_static(str(live.store), tmp_path / "site")
    page.goto((tmp_path / "site" / f"run-{FAILING_RUN}.html").as_uri() + "#at=5")
    expect(page.locator("#state .state-at")).to_have_attribute("data-at", "5")
    assert sheet_values(page) == ["15"]
    page.locator("#at").focus()
    page.keyboard.press("End")
    expect(page.locator("#state .state-at")).to_have_attribute("data-at", "10")
    assert sheet_values(page) == ["15", "23"]
