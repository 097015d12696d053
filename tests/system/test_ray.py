"""The Ray engine: the same verdicts and the same tables as the local engine, the same budgets
and isolation, and a local cluster that listens on 127.0.0.1 only and leaves no process behind.

One local cluster (2 CPUs) serves the whole session (conftest.py ``ray_cluster``); the CLI
tests in process reuse it. One test runs ``traj judge --engine ray`` as a process of its own,
which starts and stops its own cluster, and watches every socket its Ray processes listen on.
"""

from __future__ import annotations

from hang import HANG
import io
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from helpers import example_run, jsonl
from rayprocs import listeners, loopback, ray_processes, wait_gone
from judging.test_judging import Exploding, Slow, Stubborn
from trajectory.cli.main import app
from trajectory.engines.ray_engine import RayEngine, ingest_files_ray
from trajectory.reports.export import export_events
from trajectory.ingest.plain import DEFAULT_LIMITS
from trajectory.ingest.files import ingest_bytes, ingest_files
from trajectory.judging import SuiteResolver, judge_runs, passes
from trajectory.store.delta import Store

runner = CliRunner()
COMPARED = ("run_id", "suite", "task", "batch", "split", "outcome", "score", "reason", "checks", "judge_version", "details")


def compared(rows: list) -> list[dict]:
    """The compared fields of verdict rows, as records or as read back from the store."""
    return [{k: (r.as_dict() if hasattr(r, "as_dict") else r)[k] for k in COMPARED} for r in rows]


@pytest.fixture(scope="module")
def samples(samples_store) -> Store:
    """The sample corpus: every bundled suite's sample runs (what `traj demo` records); read only."""
    return Store(samples_store)


@pytest.mark.slow
def test_ray_and_local_engines_give_the_same_verdict_for_every_sample_run(samples, ray_cluster) -> None:
    cluster, _ = ray_cluster
    local = judge_runs(samples, SuiteResolver(samples), dry_run=True, partition=20)
    on_ray = judge_runs(samples, SuiteResolver(samples), dry_run=True, partition=20, engine=RayEngine(cluster))
    assert len(local.rows) > 100 and len(local.rows) > 20 * 4  # several partitions, every suite
    assert {r.suite for r in local.rows} >= {"weather", "clock", "device", "selfevo", "example"}
    assert compared(on_ray.rows) == compared(local.rows)  # outcomes, scores, versions, checks, in run order
    assert on_ray.versions == local.versions and on_ray.open_runs == local.open_runs


@pytest.mark.slow
def test_a_ray_pass_is_written_by_the_driver_like_a_local_one(samples, ray_cluster, tmp_path) -> None:
    store = Store(tmp_path / "store")
    buf = io.BytesIO()
    export_events(samples, buf, suite="weather")
    ingest_bytes(store, buf.getvalue(), "weather")
    res = runner.invoke(app, ["judge", "--engine", "ray", "--store", str(store.backend)])
    assert res.exit_code == 0, res.output
    [p] = passes(store)
    assert p["command"].startswith("traj ") and p["runs"] == int(res.output.split("judged ")[1].split()[0])
    # The same runs judged again here, on the local engine: not one verdict differs.
    res = runner.invoke(app, ["judge", "--all", "--store", str(store.backend)])
    assert res.exit_code == 0 and f"judged {p['runs']} runs" in res.output, res.output
    diff = runner.invoke(app, ["diff", "--store", str(store.backend)]).output.rstrip()
    assert f": {p['runs']} runs judged before, 0 flips" in diff, diff


def filled(store: Store) -> Store:
    data = (example_run("good", "北京现在20度") + example_run("chinese", "北京现在二十度")
            + example_run("sheet", "20", mode="grounded") + example_run("open", "x", finished=False))
    ingest_bytes(store, jsonl(data), "runs.jsonl")
    return store


@pytest.mark.slow
def test_budgets_and_isolation_on_ray(tmp_path, ray_cluster) -> None:
    """A judge that raises, one past its budget, and one that swallows the stop (its worker is
    killed by the watchdog) each err their own run only, as on the local engine."""
    cluster, _ = ray_cluster
    store = filled(Store(tmp_path / "store"))
    engine = RayEngine(cluster)
    for suite, reason in ((Exploding(), "ZeroDivisionError: boom"), (Slow(), "time budget of 2s"),
                          (Stubborn(), "worker was killed")):
        bad = "chinese" if type(suite) is Exploding else "good"
        r = judge_runs(store, SuiteResolver(store, overrides={"example": suite}), partition=1, timeout=2,
                       dry_run=True, engine=engine)
        by_run = {x.run_id: x.as_dict() for x in r.rows}
        assert [x.run_id for x in r.rows] == ["chinese", "good", "sheet"]
        assert by_run[bad]["outcome"] == "error" and reason in by_run[bad]["reason"], by_run[bad]
        assert all(x["outcome"] == "pass" for k, x in by_run.items() if k != bad), by_run


def corpus(folder: Path, samples: Store) -> list[Path]:
    """Sample runs split into one file per suite, plus a repeat, a malformed file and a conflict."""
    folder.mkdir()
    files = []
    for i, suite in enumerate(("weather", "clock", "device", "selfevo", "example")):
        buf = io.BytesIO()
        export_events(samples, buf, suite=suite)
        f = folder / f"{i}-{suite}.jsonl"
        f.write_bytes(buf.getvalue())
        files.append(f)
    (folder / "5-repeat.jsonl").write_bytes(files[0].read_bytes())
    (folder / "6-bad.jsonl").write_bytes(files[4].read_bytes() + b'{"run_id": "z", "seq": "x"}\n')
    first = files[4].read_bytes().split(b"\n")[0]
    assert b'"batch":"example-demo"' in first
    (folder / "7-conflict.jsonl").write_bytes(first.replace(b'"batch":"example-demo"', b'"batch":"other"', 1) + b"\n")
    return sorted(folder.glob("*.jsonl"))


def table_rows(store: Store) -> list[dict]:
    t = store.read("events").drop_columns(["commit_id", "ingested_at"])
    return sorted(t.to_pylist(), key=lambda r: (r["run_id"], r["seq"]))


@pytest.mark.slow
def test_ray_ingest_leaves_the_same_tables_and_messages_as_local_ingest(samples, ray_cluster, tmp_path) -> None:
    files = [str(f) for f in corpus(tmp_path / "in", samples)]
    local, on_ray = Store(tmp_path / "local"), Store(tmp_path / "ray")
    said_local = [(n, str(r) if isinstance(r, Exception) else r.line())
                  for n, r in ingest_files(local, files, DEFAULT_LIMITS)]
    said_ray = [(n, str(r) if isinstance(r, Exception) else r.line())
                for n, r in ingest_files_ray(on_ray, files, DEFAULT_LIMITS, in_flight=3)]
    assert said_ray == said_local
    assert any("7-conflict.jsonl:1: $.batch: conflict: stored with" in m for _, m in said_local), said_local
    assert any("6-bad.jsonl:" in m for _, m in said_local) and any(": 0 new" in m for _, m in said_local)
    assert table_rows(on_ray) == table_rows(local) and len(table_rows(local)) > 1000
    assert on_ray.version("events") == local.version("events")  # one commit per accepted file
    # The CLI over a folder, again (every file is now present or refused the same way).
    res = runner.invoke(app, ["ingest", "--engine", "ray", str(tmp_path / "in"), "--store", str(tmp_path / "ray")])
    assert res.exit_code == 1 and "6-bad.jsonl: refused, nothing written" in res.output
    assert table_rows(on_ray) == table_rows(local)


@pytest.mark.slow
def test_ray_on_an_s3_store(samples, ray_cluster, s3_store_uri) -> None:
    """Workers read their partitions from S3 themselves (the standard variables reach them
    through the pickled store's options, never through a file)."""
    cluster, _ = ray_cluster
    buf = io.BytesIO()
    export_events(samples, buf, suite="device")
    store = Store(s3_store_uri)
    ingest_bytes(store, buf.getvalue(), "device")
    local = judge_runs(store, SuiteResolver(store), dry_run=True, partition=10)
    on_ray = judge_runs(store, SuiteResolver(store), dry_run=True, partition=10, engine=RayEngine(cluster))
    assert len(local.rows) > 10 and compared(on_ray.rows) == compared(local.rows)


def test_the_session_cluster_listens_on_loopback_only(ray_cluster) -> None:
    _, started = ray_cluster
    found = listeners(ray_processes() | started)
    assert len(found) >= 3, found  # GCS, raylet, object manager at least
    assert all(loopback(a) for a in found), {a: p for a, p in found.items() if not loopback(a)}


@pytest.mark.slow
def test_traj_judge_on_a_local_ray_cluster_listens_on_loopback_and_leaves_no_process(samples, tmp_path) -> None:
    pytest.importorskip("ray", reason="Ray is not installed: pip install -e '.[test]' installs it (ray[data])")
    env = {**os.environ, "TRAJ_USER": "t"}
    env.pop("RAY_ADDRESS", None)
    p = subprocess.Popen([sys.executable, "-m", "trajectory.cli.main", "judge", "--engine", "ray", "--suite", "weather",
                          "--store", str(samples.backend), "--dry-run"], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    seen: dict[str, int] = {}
    pids: set[int] = set()
    while p.poll() is None:
        now = ray_processes(p.pid)
        pids |= now
        seen.update(listeners(now))
        time.sleep(0.2)
    out, err = p.communicate(timeout=HANG)
    assert p.returncode == 0, err.decode()
    assert "judged" in out.decode() and "Traceback" not in err.decode()
    assert pids and seen, "no Ray process or listener was seen while the command ran"
    assert all(loopback(a) for a in seen), {a: q for a, q in seen.items() if not loopback(a)}
    assert not wait_gone(pids), "Ray processes outlived traj judge --engine ray"


def test_an_address_nothing_answers_on_is_refused_at_once(tmp_path) -> None:
    """In a process of its own: this one may be connected to the session's cluster already."""
    env = {**os.environ, "TRAJ_USER": "t"}
    env.pop("RAY_ADDRESS", None)
    ingest_bytes(Store(tmp_path / "store"), jsonl(example_run("r1")), "runs.jsonl")  # a store to judge
    with __import__("socket").socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # bound, not listening: nothing answers there
        t = time.monotonic()
        res = subprocess.run([sys.executable, "-m", "trajectory.cli.main", "judge", "--engine", "ray",
                              "--ray-address", f"127.0.0.1:{port}", "--store", str(tmp_path / "store")],
                             env=env, capture_output=True, text=True, timeout=120)
    assert res.returncode == 1 and time.monotonic() - t < 60, res.stderr
    assert res.stderr.startswith(f"error: --ray-address 127.0.0.1:{port}: no Ray cluster answers there"), res.stderr
    assert len(res.stderr.splitlines()) == 1 and res.stdout == ""


@pytest.mark.slow
def test_traj_judge_on_a_cluster_by_address(samples, tmp_path) -> None:
    """A cluster started apart (`ray start --head`, as the README shows, on 127.0.0.1) is used by
    address and left running; the verdicts are the local engine's. The test stops the cluster
    it started by ending its own `ray start --block` process (not `ray stop`, which would stop
    every Ray on the machine)."""
    pytest.importorskip("ray", reason="Ray is not installed: pip install -e '.[test]' installs it (ray[data])")
    import shutil
    import socket
    import tempfile

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    ray_tmp = tempfile.mkdtemp(prefix="trajray-", dir="/tmp")  # short: Ray's socket paths are limited
    # `ray start` clusters use token authentication: a token of this test's own (a clean
    # machine has no ~/.ray/auth_token), given to the cluster and to traj alike.
    env = {**os.environ, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "RAY_USAGE_STATS_ENABLED": "0",
           "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": __import__("secrets").token_hex(32), "TRAJ_USER": "t"}
    env.pop("RAY_ADDRESS", None)
    ray_bin = str(Path(sys.executable).with_name("ray"))
    head = subprocess.Popen([ray_bin, "start", "--head", "--block", "--node-ip-address", "127.0.0.1",
                             "--port", str(port), "--include-dashboard", "false", "--num-cpus", "2",
                             "--temp-dir", ray_tmp, "--disable-usage-stats"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    pids: set[int] = set()
    try:
        deadline = time.monotonic() + 120
        while True:
            pids |= ray_processes(head.pid)
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert head.poll() is None and time.monotonic() < deadline, head.stderr.read().decode()[-2000:]
                time.sleep(0.5)
        store = Store(tmp_path / "store")
        buf = io.BytesIO()
        export_events(samples, buf, suite="weather")
        ingest_bytes(store, buf.getvalue(), "weather")
        r = subprocess.run([sys.executable, "-m", "trajectory.cli.main", "judge", "--engine", "ray",
                            "--ray-address", f"127.0.0.1:{port}", "--store", str(store.backend)],
                           env=env, capture_output=True, text=True, timeout=600)
        assert r.returncode == 0, r.stderr
        assert "Traceback" not in r.stderr
        pids |= ray_processes(head.pid)
        found = listeners(pids)
        assert found and all(loopback(a) for a in found), found
        assert head.poll() is None, "the cluster did not stay up after the pass"
        [p] = passes(store)
        local = judge_runs(store, SuiteResolver(store), dry_run=True)
        on_cluster = store.read("verdicts").to_pylist()
        key = lambda row: row["run_id"]  # noqa: E731
        assert p["runs"] == len(local.rows) > 0
        assert compared(sorted(on_cluster, key=key)) == compared(sorted(local.rows, key=lambda row: row.run_id))
    finally:
        head.terminate()
        head.wait(60)
        head.stderr.close()
        shutil.rmtree(ray_tmp, ignore_errors=True)
    assert not wait_gone(pids), "processes of the cluster outlived it"


def test_a_review_verdict_judged_on_ray_is_stored_and_shown_alike(ray_cluster, tmp_path) -> None:
    """Judged by Ray workers, the review verdict is the local engine's and reads the same."""
    from review_helpers import check_review_shown, review_store_events

    cluster, _ = ray_cluster
    store = Store(tmp_path / "store")
    ingest_bytes(store, review_store_events(), "review")
    local = judge_runs(store, SuiteResolver(store), dry_run=True)
    on_ray = judge_runs(store, SuiteResolver(store), engine=RayEngine(cluster))
    assert compared(on_ray.rows) == compared(local.rows)
    assert sorted(r.outcome for r in on_ray.rows) == ["fail", "pass", "review"]
    check_review_shown(str(tmp_path / "store"), tmp_path)
