"""`traj view` answers only its own origin (issue 24, section 2), each test written as the attack
against a real `traj view` started on 127.0.0.1: a page of another site that rebinds its name to
127.0.0.1 (the Host header names it), framing and sniffing, a cross-site page sending GETs to
fill the holdout log, and a store on S3 reachable only with --storage-option."""

from __future__ import annotations

import http.client
import json
import os
import urllib.parse
from concurrent.futures import ThreadPoolExecutor

import pytest
from typer.testing import CliRunner
from view_helpers import FAILING_RUN, FLIP_RUN, HOLDOUT_RUN, LiveView, copy_store

from trajectory.cli.main import app
from trajectory.query.sql import holdout_views
from trajectory.store.delta import Store
from trajectory.view.data import QUERIES_AT_ONCE


@pytest.fixture(scope="module")
def live(demo_store):
    server = LiveView(demo_store)
    yield server
    server.stop()


def get(port: int, path: str, host: str | None) -> tuple[int, dict[str, str], bytes]:
    """A GET with exactly this Host header (None: none at all), as a rebinding page's browser sends it."""
    con = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        con.putrequest("GET", path, skip_host=True)
        if host is not None:
            con.putheader("Host", host)
        con.endheaders()
        r = con.getresponse()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
    finally:
        con.close()


SECRET_PATHS = ["/api/query?sql=" + urllib.parse.quote("SELECT run_id, data FROM events"), "/", f"/runs/{FAILING_RUN}",
                "/api/runs", "/query.csv?sql=" + urllib.parse.quote("SELECT * FROM verdicts"), "/static/view.js"]


@pytest.mark.parametrize("host", ["attacker.example:{port}", "attacker.example", "127.0.0.1.attacker.example:{port}",
                                  "localhost.attacker.example", "[::2]:{port}", "viewer.lan", None])
def test_a_page_that_rebinds_its_name_to_127_0_0_1_reads_nothing(live, host):
    for path in SECRET_PATHS:
        status, _, body = get(live.port, path, None if host is None else host.format(port=live.port))
        assert status == 400, (host, path, status)
        assert b"run_id" not in body and b"gui-" not in body
        # (With no Host at all, uvicorn itself refuses the HTTP/1.1 request.)
        assert host is None or b"is not one this traj view answers" in body


@pytest.mark.parametrize("host", ["127.0.0.1:{port}", "localhost:{port}", "LOCALHOST", "[::1]:{port}", "127.0.0.1"])
def test_its_own_names_are_answered(live, host):
    status, _, body = get(live.port, "/api/query?sql=SELECT+1+AS+one", host.format(port=live.port))
    assert status == 200 and json.loads(body)["result"]["rows"] == [[1]]


def test_allow_host_adds_a_name_and_only_that_name(demo_store):
    server = LiveView(demo_store, "--allow-host", "viewer.lan", "--allow-host", "[fd00::5]")
    try:
        for host in ("viewer.lan:{port}", "VIEWER.LAN", "[fd00::5]:{port}", "127.0.0.1:{port}"):
            status, _, _ = get(server.port, "/api/runs", host.format(port=server.port))
            assert status == 200, host
        for host in ("viewer.lan.attacker.example", "attacker.example:{port}", "[fd00::6]:{port}"):
            status, _, body = get(server.port, "/api/runs", host.format(port=server.port))
            assert status == 400 and b"gui-" not in body, host
    finally:
        server.stop()


@pytest.mark.parametrize("path", ["/", "/runs", f"/runs/{FAILING_RUN}", f"/runs/{FAILING_RUN}/state?at=3",
                                  "/api/runs", "/query.csv?sql=SELECT+1", "/static/view.css", "/no/such/page",
                                  "/api/query?sql=DROP+TABLE+runs"])
def test_every_answer_keeps_other_sites_out(live, path):
    for host in (f"127.0.0.1:{live.port}", "attacker.example"):
        status, headers, _ = get(live.port, path, host)
        csp = headers.get("content-security-policy", "")
        assert "frame-ancestors 'none'" in csp and "default-src 'none'" in csp and "script-src 'self'" in csp, (path, csp)
        assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
        assert headers.get("x-content-type-options") == "nosniff", path
        assert headers.get("x-frame-options") == "DENY", path
        assert headers.get("referrer-policy") == "no-referrer", path


def test_listening_beyond_loopback_is_said_in_one_line(demo_store, monkeypatch):
    from trajectory.view.server import beyond_loopback

    for host in ("0.0.0.0", "::", "192.168.1.20", "[::]", "myhost.lan"):
        line = beyond_loopback(host)
        assert line is not None and "\n" not in line and host in line and "other machines" in line
    for host in ("127.0.0.1", "127.0.0.2", "localhost", "::1", "[::1]"):
        assert beyond_loopback(host) is None, host
    # The command says it (without opening a port beyond this machine: uvicorn is not started).
    import uvicorn

    from trajectory.view import server

    started = []
    monkeypatch.setattr(server, "check_bind", lambda host, port: None)
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: started.append(kw))
    r = CliRunner().invoke(app, ["view", "--store", str(demo_store), "--host", "0.0.0.0", "--port", "8123"])
    assert r.exit_code == 0 and started and started[0]["host"] == "0.0.0.0", r.output
    warnings = [line for line in r.stderr.splitlines() if "other machines" in line]
    assert len(warnings) == 1 and warnings[0].startswith("warning: traj view on 0.0.0.0")
    r = CliRunner().invoke(app, ["view", "--store", str(demo_store), "--port", "8123"])
    assert r.exit_code == 0 and "other machines" not in r.stderr


def test_a_cross_site_page_cannot_fill_the_holdout_log(demo_store, tmp_path):
    store = copy_store(demo_store, tmp_path / "store")
    before = len(holdout_views(Store(store)))
    server = LiveView(store, "--split", "holdout")
    try:
        # What <img src="http://127.0.0.1:PORT/query?sql=..."> on any page makes a browser send,
        # several at once as a browser loads a page's images: as many as the viewer runs queries
        # at once (each is a worker process of its own), since it refuses any more.
        paths = [path for i in range(12) for path in (
            f"/query?sql=SELECT+{i}+AS+n", f"/api/query?sql=SELECT+{i}", f"/query.csv?sql=SELECT+{i}", "/api/runs",
            f"/runs/{HOLDOUT_RUN}")]
        with ThreadPoolExecutor(QUERIES_AT_ONCE) as pool:
            statuses = list(pool.map(lambda path: get(server.port, path, f"127.0.0.1:{server.port}")[0], paths))
        for path, status in zip(paths, statuses, strict=True):
            assert status == 200, path
    finally:
        server.stop()
    looks = holdout_views(Store(store))
    # One look for the session, recorded when it started; not one per request.
    assert len(looks) == before + 1 and looks[-1]["key"] == "view"


def test_the_tune_pool_query_shows_no_holdout_event(live, demo_store):
    probes = {
        f"SELECT count(*) AS n FROM events WHERE run_id = '{HOLDOUT_RUN}'": [[0]],
        "SELECT count(*) AS n FROM events WHERE split = 'holdout'": [[0]],
        "SELECT count(*) AS n FROM events WHERE data LIKE '%weread%'": [[0]],
    }
    for sql, rows in probes.items():
        status, _, body = get(live.port, "/api/query?sql=" + urllib.parse.quote(sql), f"127.0.0.1:{live.port}")
        assert status == 200 and json.loads(body)["result"]["rows"] == rows, sql
    status, _, body = get(live.port, "/query.csv?sql=" + urllib.parse.quote("SELECT run_id, data FROM events"),
                          f"127.0.0.1:{live.port}")
    assert status == 200 and b"gui-sloppy-13" in body and HOLDOUT_RUN.encode() not in body and b"weread" not in body
    # The same rule as `traj query`: its tune pool has no holdout event either; its holdout pool has them.
    r = CliRunner().invoke(app, ["query", f"SELECT count(*) AS n FROM events WHERE run_id = '{HOLDOUT_RUN}'",
                                 "--store", str(demo_store), "--format", "csv"])
    assert r.exit_code == 0 and r.stdout.split() == ["n", "0"], r.output


def test_the_holdout_pool_query_shows_only_holdout_events(demo_store, tmp_path):
    store = copy_store(demo_store, tmp_path / "store")
    server = LiveView(store, "--split", "holdout")
    try:
        sql = "SELECT DISTINCT run_id FROM events ORDER BY run_id"
        status, _, body = get(server.port, "/api/query?sql=" + urllib.parse.quote(sql), f"127.0.0.1:{server.port}")
    finally:
        server.stop()
    assert status == 200 and json.loads(body)["result"]["rows"] == [[HOLDOUT_RUN]]


def test_a_store_on_s3_is_read_with_storage_option(tmp_path, s3_server, demo_store):
    bucket = s3_server.bucket()
    uri = f"s3://{bucket}/store"
    options = [a for k, v in s3_server.env().items() for a in ("--storage-option", f"{k}={v}")]
    # Two of the demo's GUI runs (the one the tests follow fails), written and judged through the
    # options. Not the whole GUI demo: every page of the static copy below opens each table
    # again (six requests to S3 each), and its 23 runs' pages took minutes and showed nothing more.
    runs = tmp_path / "runs.jsonl"
    r = CliRunner().invoke(app, ["export", "events", "--run", FAILING_RUN, "--run", FLIP_RUN, "--out", str(runs),
                                 "--store", str(demo_store)])
    assert r.exit_code == 0, r.output
    for argv in (["ingest", str(runs)], ["judge"]):
        r = CliRunner().invoke(app, [*argv, "--store", uri, *options])
        assert r.exit_code == 0, r.output
    # The environment has no credentials nor endpoint: only the options reach the store.
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    server = LiveView(uri, *options, env=env)
    try:
        status, _, body = get(server.port, "/api/runs?per_page=500", f"127.0.0.1:{server.port}")
        assert status == 200 and FAILING_RUN in {r["run_id"] for r in json.loads(body)["runs"]}
        status, _, body = get(server.port, "/api/query?sql=SELECT+count(*)+FROM+runs", f"127.0.0.1:{server.port}")
        assert status == 200 and json.loads(body)["result"]["rows"][0][0] > 0
    finally:
        server.stop()
    out = tmp_path / "static"
    r = CliRunner(env={k: None for k in os.environ if k.startswith("AWS_")}).invoke(
        app, ["view", "--store", uri, *options, "--static", str(out)])
    assert r.exit_code == 0, r.output
    assert (out / "index.html").is_file() and FAILING_RUN in (out / "runs.html").read_text()
