"""`traj view` through Starlette's TestClient on the demo store: every page and its JSON twin,
paging, filters, refusals, the time travel, the diff's evidence links, downloads, the holdout
wall, and a 404 that says what is missing."""

from __future__ import annotations

import csv
import io
import json
import re
import time

import pytest
from starlette.testclient import TestClient
from view_helpers import FAILING_RUN, FLIP_RUN, HOLDOUT_RUN, OVERRIDDEN_RUN, OVERRIDE_EVIDENCE, copy_store

from trajectory.judging import diff_passes
from trajectory.query.sql import Views, holdout_views
from trajectory.store.delta import Store
from trajectory.view.app import create_app
from trajectory.view.data import StoreData


@pytest.fixture(scope="module")
def client(demo_store):
    # The pages read the events directly here; the run index is held equal to that below.
    data = StoreData(str(demo_store), background_index=False)
    with TestClient(create_app(data)) as c:
        yield c
    data.close()


def tune_runs(store) -> list[str]:
    with Views(Store(store)) as views:
        return [r[0] for r in views.con.execute("SELECT run_id FROM runs ORDER BY run_id").fetchall()]


# -- every route and its twin --------------------------------------------------------------------

ROUTES = ["/", "/runs", f"/runs/{FAILING_RUN}", f"/runs/{FAILING_RUN}?at=5", "/passes", "/diff",
          "/query?sql=SELECT+1+AS+one"]


@pytest.mark.parametrize("path", ROUTES)
def test_each_page_and_its_json_twin(client, path):
    html = client.get(path)
    assert html.status_code == 200, html.text
    assert html.headers["content-type"].startswith("text/html")
    assert "<!doctype html>" in html.text.lower() and "traj view" in html.text
    api_path = "/api" + path
    api = client.get(api_path)
    assert api.status_code == 200 and api.headers["content-type"].startswith("application/json")
    assert isinstance(api.json(), dict)
    # The page links its twin.
    assert f'href="{api_path.replace("&", "&amp;")}"' in html.text


def test_overview_counts_match_the_query_views(client, demo_store):
    got = client.get("/api/").json()
    with Views(Store(demo_store)) as views:
        runs = views.con.execute("SELECT count(*) FROM runs").fetchone()[0]
        rates = {(s, t): (n, p) for s, t, n, p in views.con.execute(
            "SELECT suite, task, count(*), count(*) FILTER (WHERE outcome = 'pass') FROM verdicts GROUP BY ALL").fetchall()}
        tokens = dict(views.con.execute("SELECT batch, sum(tokens) FROM runs GROUP BY batch").fetchall())
    assert got["runs"] == runs == 137  # the demo's tune pool; its one holdout run is not shown
    assert {(t["suite"], t["task"]): (t["judged"], t["pass"]) for t in got["tasks"]} == rates
    assert {b["batch"]: b["tokens"] for b in got["batches"]} == tokens
    assert len(got["pass_series"]) == 2 and got["passes"] == 2 and got["overrides"] == 1
    alarm = next(t for t in got["tasks"] if t["task"] == "AlarmTime")
    assert alarm["pass_rate"] == round(alarm["pass"] / alarm["judged"], 4)
    html = client.get("/").text
    assert html.count('class="dot"') == 2  # one point per pass in the chart
    assert "WenQuanYi" not in html  # fonts live in the stylesheet
    css = client.get("/static/view.css").text
    for font in ("WenQuanYi Micro Hei", "Noto Sans CJK SC", "PingFang SC", "Microsoft YaHei"):
        assert f'"{font}"' in css


# -- the run list ------------------------------------------------------------------------------------


def test_runs_page_through_every_run_once(client, demo_store):
    seen = []
    page = 1
    while True:
        got = client.get(f"/api/runs?per_page=40&page={page}").json()
        assert len(got["runs"]) <= 40
        seen += [r["run_id"] for r in got["runs"]]
        if page >= got["pages"]:
            break
        page += 1
    assert got["pages"] == 4 and got["total"] == 137
    assert sorted(seen) == tune_runs(demo_store) and len(set(seen)) == len(seen)
    past = client.get("/api/runs?page=99").json()
    assert past["runs"] == [] and past["total"] == 137
    html = client.get("/runs?per_page=40&page=2").text
    assert "page 2 of 4" in html and 'rel="next"' in html and 'rel="prev"' in html


def test_runs_filters_and_sorting(client, demo_store):
    got = client.get("/api/runs?suite=clock&outcome=fail&per_page=500").json()
    assert got["runs"] and all(r["suite"] == "clock" and r["verdict"] == "fail" for r in got["runs"])
    with Views(Store(demo_store)) as views:
        expected = views.con.execute("SELECT count(*) FROM runs JOIN verdicts USING (run_id) "
                             "WHERE runs.suite = 'clock' AND verdicts.outcome = 'fail'").fetchone()[0]
    assert got["total"] == expected
    q = client.get("/api/runs?q=SLOPPY-1").json()
    assert q["runs"] and all("sloppy-1" in r["run_id"] for r in q["runs"])
    by_tokens = client.get("/api/runs?sort=tokens&order=desc&per_page=500").json()["runs"]
    tokens = [r["tokens"] for r in by_tokens]
    assert tokens == sorted(tokens, reverse=True) and tokens[0] > tokens[-1]
    open_runs = client.get("/api/runs?ran=open").json()["runs"]
    assert len(open_runs) == 1 and open_runs[0]["run_outcome"] == "open" and open_runs[0]["verdict"] == "unjudged"
    assert client.get("/api/runs?outcome=unjudged").json()["runs"] == open_runs
    html = client.get("/runs?batch=gui-demo&outcome=fail").text
    assert FAILING_RUN in html and "gui-careful-02" not in html


LISTS = [({}, "started_at", False), ({"suite": "clock"}, "run_id", True), ({"outcome": "fail"}, "tokens", True),
         ({"q": "sloppy", "batch": "gui-demo"}, "duration_ms", False), ({"ran": "open"}, "steps", False),
         ({"task": "AlarmTime"}, "score", True), ({}, "events", True), ({}, "model_ms", False), ({}, "verdict", False)]


def test_the_run_index_lists_what_the_events_give(demo_store):
    data = StoreData(str(demo_store), background_index=False)
    live = [data.run_list(f, sort, desc, page, 20, use_index=False) for f, sort, desc in LISTS for page in (1, 2)]
    overview = data.overview()
    assert not data.index_ready() and not any(x["indexed"] for x in live)
    assert data.build_index() and data.index_ready()
    data.memo.clear()
    assert data.overview() == overview
    indexed = [data.run_list(f, sort, desc, page, 20) for f, sort, desc in LISTS for page in (1, 2)]
    assert all(x["indexed"] for x in indexed)
    assert [(x["runs"], x["total"]) for x in indexed] == [(x["runs"], x["total"]) for x in live]
    assert sum(len(x["runs"]) for x in live) > 100
    data.close()
    background = StoreData(str(demo_store))
    with TestClient(create_app(background)) as c:
        first = c.get("/api/runs?sort=tokens&order=desc").json()
        for _ in range(200):  # the index is built on a thread of its own
            if background.index_ready():
                break
            time.sleep(0.05)
        again = c.get("/api/runs?sort=tokens&order=desc").json()
    assert again["indexed"] and again["runs"] == first["runs"]
    background.close()


@pytest.mark.parametrize("query, named", [
    ("page=0", "page"), ("page=x", "page"), ("per_page=1000", "per_page"), ("sort=bogus", "sort"),
    ("order=up", "order"), ("outcome=maybe", "outcome"), ("ran=never", "ran"),
])
def test_runs_refuses_bad_parameters(client, query, named):
    for path in ("/runs?", "/api/runs?"):
        r = client.get(path + query)
        assert r.status_code == 400
        message = r.json()["error"] if path.startswith("/api") else r.text
        assert message.startswith(named) or f"{named} must" in message


# -- one run -----------------------------------------------------------------------------------------


def test_run_page_timeline_verdict_and_history(client):
    got = client.get(f"/api/runs/{FAILING_RUN}").json()
    assert got["last_seq"] == 10 and [e["seq"] for e in got["timeline"]["events"]] == list(range(11))
    assert got["verdict"]["outcome"] == "fail" and got["shown"] == {"outcome": "fail", "overridden": False, "settled": False}
    checks = {c["name"]: c for c in got["verdict"]["checks"]}
    assert any(not c["passed"] for c in checks.values())
    field0 = next(c for n, c in checks.items() if n.startswith("field 0"))
    assert field0["actual"] == "15" and field0["evidence"]["seq"] == 5
    assert len(got["history"]) == 2 and got["history"][0]["judge_version"] != got["history"][1]["judge_version"]
    html = client.get(f"/runs/{FAILING_RUN}").text
    for text in ("最高23° 最低15°", "sheet_changed", "Verdict history", 'id="checks"', 'type="range"', 'max="10"'):
        assert text in html, text


def test_time_travel_shows_the_sheet_as_it_was(client):
    def sheet(at: int) -> dict:
        return client.get(f"/api/runs/{FAILING_RUN}?at={at}").json()["time_travel"]

    assert sheet(4)["sheet"] == [] and sheet(4)["state"]["sheet"]["submitted"] is False
    five = sheet(5)
    assert five["sheet"] == [{"field": "0", "value": "15"}]
    assert five["changes"] == [{"path": "sheet.answers.0", "before": None, "after": "15", "added": True, "removed": False}]
    assert five["event"]["kind"] == "sheet_changed" and five["screen"]["seq"] == 2
    nine = sheet(9)
    assert [r["value"] for r in nine["sheet"]] == ["15", "23"] and nine["state"]["sheet"]["submitted"] is True
    assert [c["path"] for c in nine["changes"]] == ["sheet.submitted"]
    assert sheet(0)["screen"] is None and sheet(0)["changes"]  # at the start everything is new
    html = client.get(f"/runs/{FAILING_RUN}?at=7").text
    assert 'id="ev-7" data-seq="7" class="current"' in html and 'value="7"' in html
    fragment = client.get(f"/runs/{FAILING_RUN}/state?at=5")
    assert fragment.status_code == 200 and "<html" not in fragment.text
    assert re.search(r'class="sheet-value" data-field="0">15<', fragment.text)
    assert "no image was recorded" in fragment.text


@pytest.mark.parametrize("at", ["11", "-1", "x"])
def test_time_travel_refuses_a_seq_the_run_does_not_have(client, at):
    for path in (f"/runs/{FAILING_RUN}?at={at}", f"/api/runs/{FAILING_RUN}?at={at}", f"/runs/{FAILING_RUN}/state?at={at}"):
        r = client.get(path)
        assert r.status_code == 400 and "at must" in r.text


def test_unknown_run_is_a_404_page_that_says_so(client):
    r = client.get("/runs/no-such-run")
    assert r.status_code == 404 and "no run &#39;no-such-run&#39; in the store" in r.text and "<h1>Not found</h1>" in r.text
    api = client.get("/api/runs/no-such-run")
    assert api.status_code == 404 and api.json()["status"] == 404 and api.json()["error"].startswith("no run 'no-such-run' in the store")
    other = client.get("/nowhere")
    assert other.status_code == 404 and "no page at /nowhere" in other.text


def test_an_override_shows_with_its_evidence(client):
    got = client.get(f"/api/runs/{OVERRIDDEN_RUN}").json()
    assert got["shown"]["outcome"] == "pass" and got["shown"]["overridden"] and got["verdict"]["outcome"] == "fail"
    assert [(o["to_outcome"], o["evidence"], o["by"]) for o in got["overrides"]] == [("pass", OVERRIDE_EVIDENCE, "reviewer")]
    html = client.get(f"/runs/{OVERRIDDEN_RUN}").text
    assert f"“{OVERRIDE_EVIDENCE}”" in html and "by a human override" in html


# -- passes and the diff ---------------------------------------------------------------------------


def test_passes_with_their_counts(client, demo_store):
    got = client.get("/api/passes").json()
    assert got["total"] == 2
    newest, oldest = got["passes"]
    assert newest["previous"] == oldest["pass_id"] and oldest["previous"] is None
    for p in got["passes"]:
        # The demo judges its 136 finished tune runs and its one holdout run.
        assert sum(p["outcomes"].values()) == p["in_pool"] == 136 and p["runs"] == 137
        assert set(p["suites"]) == {"clock", "weather", "device", "example", "selfevo"} and p["versions"]
    html = client.get("/passes").text
    assert f'href="/diff?a={oldest["pass_id"]}&amp;b={newest["pass_id"]}"' in html


def test_the_diff_is_the_flips_of_traj_diff(client, demo_store):
    got = client.get("/api/diff?per_page=500").json()
    cli = diff_passes(Store(demo_store))
    pool = set(tune_runs(demo_store))
    expected = {(f.run_id, f.kind) for f in cli.flips if f.run_id in pool}
    assert {(f["run_id"], f"{f['before']}→{f['after']}") for f in got["flips"]} == expected
    # `traj diff` with no passes compares the last pass with each run's previous verdict; the page
    # needs two passes for its links: the last one, and the one before it over the same runs.
    assert got["flip_count"] == len(expected) == sum(got["kinds"].values()) and got["b"] == cli.after_label
    named = diff_passes(Store(demo_store), got["a"], got["b"])
    assert {(f.run_id, f.kind) for f in named.flips if f.run_id in pool} == expected
    # The demo judges its broken copies first, then the bundled suites: the fix is the latest
    # pass, so the default diff reads broken (a) -> fixed (b), and the page says which is which.
    assert got["about_a"]["command"] == "traj demo (broken rules)" and "broken rules" in got["about_a"]["note"]
    assert got["about_b"]["command"] == "traj demo (bundled suites)"
    flip = next(f for f in got["flips"] if f["run_id"] == FLIP_RUN)
    (check,) = flip["checks"]
    assert (flip["before"], flip["after"]) == ("fail", "pass")
    assert check["before"]["actual"] == "下午2点30分" and check["evidence"]["seq"] == 5
    assert not check["before"]["passed"] and check["after"]["passed"]
    for f in got["flips"]:
        last = client.get(f"/api/runs/{f['run_id']}").json()["last_seq"]
        assert all(0 <= c["evidence"]["seq"] <= last for c in f["checks"])
    html = client.get("/diff").text
    assert f'href="/runs/{FLIP_RUN}?at=5"' in html and "suite clock" in html and "task AlarmTime" in html


def test_the_diff_pages_and_refuses(client):
    first = client.get("/api/diff?per_page=2").json()
    second = client.get(f"/api/diff?per_page=2&page=2&a={first['a']}&b={first['b']}").json()
    assert len(first["flips"]) == 2 and first["pages"] > 1
    assert not {f["run_id"] for f in first["flips"]} & {f["run_id"] for f in second["flips"]}
    assert client.get("/api/diff?a=x").status_code == 400
    missing = client.get("/diff?a=p1&b=p2")
    assert missing.status_code == 404 and "no pass &#39;p1&#39; in the store" in missing.text


# -- queries -------------------------------------------------------------------------------------


def test_query_answers_and_offers_downloads(client):
    sql = "SELECT suite, count(*) AS n FROM runs GROUP BY suite ORDER BY suite"
    got = client.get("/api/query", params={"sql": sql}).json()
    assert got["result"]["columns"] == ["suite", "n"] and ["clock", 11] in got["result"]["rows"]
    html = client.get("/query", params={"sql": sql}).text
    assert 'id="download-csv"' in html and "<td>clock</td>" in html
    assert len(got["examples"]) >= 2 and 'id="examples"' in html
    big = client.get("/api/query", params={"sql": "SELECT range AS i, '文字' AS t FROM range(2500)"}).json()["result"]
    assert len(big["rows"]) == 1000 and big["more"]
    full = client.get("/query.csv", params={"sql": "SELECT range AS i, '文字' AS t FROM range(2500)"})
    assert full.status_code == 200 and full.headers["content-type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(full.text)))
    assert rows[0] == ["i", "t"] and len(rows) == 2501 and rows[-1] == ["2499", "文字"]
    as_json = client.get("/query.json", params={"sql": sql}).json()
    assert as_json[0]["suite"] == "clock" and "attachment" in client.get("/query.json", params={"sql": sql}).headers["content-disposition"]


@pytest.mark.parametrize("sql, refusal", [
    ("DROP TABLE runs", "only SELECT"),
    ("SELECT 1; SELECT 2", "exactly one statement"),
    ("SELECT * FROM read_csv('/etc/passwd')", "read_csv"),
    ("SELECT * FROM _runs_all", "internal"),
    ("SELECT getenv('HOME')", "getenv"),
    ("SELECT * FROM '/etc/passwd'", "file or URL"),
])
def test_query_refuses_what_traj_query_refuses(client, sql, refusal):
    page = client.get("/query", params={"sql": sql})
    assert page.status_code == 400 and refusal in page.text and 'id="query-error"' in page.text
    api = client.get("/api/query", params={"sql": sql})
    assert api.status_code == 400 and refusal in api.json()["error"] and api.json()["result"] is None
    download = client.get("/query.csv", params={"sql": sql})
    assert download.status_code == 400 and refusal in download.text


# -- the holdout wall ---------------------------------------------------------------------------


def test_holdout_runs_stay_behind_split_holdout(client, demo_store, tmp_path):
    assert HOLDOUT_RUN not in json.dumps(client.get("/api/runs?per_page=500").json())
    r = client.get(f"/runs/{HOLDOUT_RUN}")
    assert r.status_code == 404 and "holdout pool" in r.text and "--split holdout" in r.text
    assert client.get("/api/query", params={"sql": "SELECT count(*) AS n FROM runs WHERE split = 'holdout'"}).json()["result"]["rows"] == [[0]]
    store = copy_store(demo_store, tmp_path / "store")
    before = len(holdout_views(Store(store)))
    data = StoreData(str(store), "holdout")
    with TestClient(create_app(data)) as hc:
        listed = hc.get("/api/runs").json()
        assert [r["run_id"] for r in listed["runs"]] == [HOLDOUT_RUN]
        assert hc.get(f"/api/runs/{HOLDOUT_RUN}").status_code == 200
        assert hc.get("/api/runs/gui-careful-02").status_code == 404
        assert hc.get("/api/query", params={"sql": "SELECT run_id FROM runs"}).json()["result"]["rows"] == [[HOLDOUT_RUN]]
        assert 'class="pool pool-holdout"' in hc.get("/").text
    data.close()
    looks = holdout_views(Store(store))
    assert len(looks) == before + 1
    assert looks[-1]["key"] == "query" and json.loads(looks[-1]["data"])["sql"] == "SELECT run_id FROM runs"
    # Pages and queries of the tune pool record nothing.
    assert len(holdout_views(Store(demo_store))) == 0
