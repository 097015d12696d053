"""The viewer's queries keep `traj query`'s limits (issue 24, section 2), written as the attack
against a real `traj view` on 127.0.0.1: a query that runs for ever must not hold the other pages
up and must be stopped by the time limit; a large aggregate is stopped by the memory limit
without growing the server; a download does not run past the row limit; and after each stop
the server answers the next query."""

from __future__ import annotations

import csv
import io
import json
import threading
import urllib.error
import urllib.parse
import urllib.request

import pytest
from view_helpers import FAILING_RUN, LiveView

# Generous: a hang, not a speed, is what these catch.
HANG = 180

FOREVER = "SELECT sum(range) AS s FROM range(10000000000000)"
HUGE_AGGREGATE = "SELECT count(DISTINCT range) AS n FROM range(200000000)"


@pytest.fixture(scope="module")
def live(demo_store):
    server = LiveView(demo_store, "--timeout", "3", "--max-rows", "1500")
    yield server
    server.stop()


def fetch(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=HANG) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as exc:
        with exc:
            return exc.code, exc.read()


def q(sql: str) -> str:
    return urllib.parse.quote(sql)


def peak_rss(pid: int) -> int:
    """The process's peak resident memory in bytes (VmHWM)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("no VmHWM")


def server_pid(live: LiveView) -> int:
    """The traj view process (the console script may exec Python directly: the same pid)."""
    return live.proc.pid


def test_a_query_that_runs_for_ever_holds_no_page_and_is_stopped(live):
    answer: dict[str, tuple[int, bytes]] = {}
    started = threading.Event()

    def attack() -> None:
        started.set()
        answer["query"] = fetch(f"{live.url}/api/query?sql={q(FOREVER)}")

    thread = threading.Thread(target=attack, daemon=True)
    thread.start()
    started.wait(HANG)
    # While it runs, every other page answers (they would wait on the query's lock before).
    seen_running = 0
    for path in ("/", "/runs", f"/runs/{FAILING_RUN}", "/api/runs", "/passes", "/api/query?sql=SELECT+1+AS+one"):
        status, body = fetch(live.url + path)
        assert status == 200, (path, body[:300])
        seen_running += "query" not in answer
    thread.join(HANG)
    assert not thread.is_alive(), "the query was never stopped"
    status, body = answer["query"]
    assert status == 400 and "time limit of 3 s" in json.loads(body)["error"]
    assert seen_running >= 1, "no page was asked while the query ran"
    # Stopped means freed: the next query answers.
    status, body = fetch(f"{live.url}/api/query?sql={q('SELECT 41 + 1 AS n')}")
    assert status == 200 and json.loads(body)["result"]["rows"] == [[42]]


def test_the_html_page_and_the_download_keep_the_time_limit(live):
    status, body = fetch(f"{live.url}/query?sql={q(FOREVER)}")
    assert status == 400 and "time limit" in body.decode() and 'id="query-error"' in body.decode()
    status, body = fetch(f"{live.url}/query.csv?sql={q(FOREVER)}")
    assert status == 400 and "time limit" in body.decode()


def test_a_large_aggregate_is_stopped_by_the_memory_limit(demo_store):
    # A time limit far off: the memory limit is what stops it.
    live = LiveView(demo_store, "--timeout", "600", "--max-memory", "256MiB")
    try:
        status, body = fetch(f"{live.url}/api/query?sql={q(HUGE_AGGREGATE)}")
        assert status == 400 and "memory limit of 256 MiB" in json.loads(body)["error"]
        status, body = fetch(f"{live.url}/query.json?sql={q(HUGE_AGGREGATE)}")
        assert status == 400 and "memory limit" in body.decode()
        # The server did not grow past the limit by much (without it: several GiB).
        assert peak_rss(server_pid(live)) < 1536 * 1024**2
        status, body = fetch(f"{live.url}/api/query?sql={q('SELECT 1 AS one')}")
        assert status == 200 and json.loads(body)["result"]["rows"] == [[1]]
    finally:
        live.stop()


def test_a_download_does_not_run_past_the_row_limit(live):
    status, body = fetch(f"{live.url}/query.csv?sql={q('SELECT range AS i FROM range(1501)')}")
    # Refused in one line before any row is sent, not cut short: no silent half download.
    assert status == 400 and "more than 1,500 rows" in body.decode() and b"\n0\n" not in body
    status, body = fetch(f"{live.url}/query.json?sql={q('SELECT range AS i FROM range(1501)')}")
    assert status == 400 and "more than 1,500 rows" in body.decode()
    status, body = fetch(f"{live.url}/query.csv?sql={q('SELECT range AS i FROM range(1500)')}")
    rows = list(csv.reader(io.StringIO(body.decode())))
    assert status == 200 and len(rows) == 1501 and rows[-1] == ["1499"]
    # The page shows its first 1000 rows of an allowed result, and says there are more.
    status, body = fetch(f"{live.url}/api/query?sql={q('SELECT range AS i FROM range(1200)')}")
    got = json.loads(body)["result"]
    assert status == 200 and len(got["rows"]) == 1000 and got["more"]
    status, body = fetch(f"{live.url}/api/query?sql={q('SELECT range AS i FROM range(2000)')}")
    assert status == 400 and "more than 1,500 rows" in json.loads(body)["error"]


def test_limits_out_of_bounds_are_refused_like_traj_query(demo_store):
    from typer.testing import CliRunner

    from trajectory.cli.main import app

    for args, said in ((["--timeout", "0"], "--timeout must be between"), (["--max-memory", "1MiB"], "--max-memory"),
                       (["--max-rows", "0"], "--max-rows must be between")):
        r = CliRunner().invoke(app, ["view", "--store", str(demo_store), *args])
        assert r.exit_code == 1 and said in r.output, r.output
