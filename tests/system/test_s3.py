"""A store on S3 through the CLI and the library: credentials never leave the storage layer.

The test plants recognisable credentials (in the standard variables and as --storage-option),
runs the commands against a real S3 server on 127.0.0.1 — working ones and failing ones — and
looks for them in every output, in every object of the bucket (raw bytes and decoded rows of
every table), in the recorded command lines and in tracebacks of refused operations.
"""

from __future__ import annotations

import os
import subprocess
import sys
import traceback
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from helpers import example_run, jsonl
from trajectory.cli.common import command_line
from trajectory.errors import StoreError
from trajectory.store.objstore import ObjectBackend, describe, is_object_uri
from trajectory.store.delta import TABLES, Store

KEY_ID = "AKIAPLANTEDKEY7Q3XW9"
SECRET = "planted/Secret+Value-9xQ"
OPTION_SECRET = "planted-option-secret-42z"
PLANTED = (KEY_ID, SECRET, OPTION_SECRET)


def test_store_values_name_their_backend() -> None:
    assert is_object_uri("s3://b/p") and is_object_uri("gs://b") and is_object_uri("az://c/p")
    assert not is_object_uri("file:///tmp/x") and not is_object_uri("/tmp/x") and not is_object_uri("a:b")
    with pytest.raises(StoreError, match="no bucket"):
        Store("s3://")


def test_the_recorded_command_line_hides_secret_option_values() -> None:
    line = command_line(["judge", "--storage-option", f"AWS_SECRET_ACCESS_KEY={SECRET}",
                         f"--storage-option=AWS_ACCESS_KEY_ID={KEY_ID}", "--llm-key", "sk-1", "--store", "s3://b/p"])
    assert all(p not in line for p in (*PLANTED, "sk-1"))
    assert line == ("traj judge --storage-option '***' '--storage-option=***' --llm-key '***' --store s3://b/p")


def test_a_storage_error_is_one_line_without_secrets(s3_server, s3_env, monkeypatch) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", KEY_ID)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET)
    with pytest.raises(StoreError) as info:
        Store("s3://no-such-bucket-here/store", storage_options={"AWS_SECRET_ACCESS_KEY": OPTION_SECRET})
    text = "".join(traceback.format_exception(info.value))
    assert "NoSuchBucket" in str(info.value) and "\n" not in str(info.value)
    assert all(p not in text for p in PLANTED)
    backend = ObjectBackend("s3://b/p", {"AWS_SECRET_ACCESS_KEY": OPTION_SECRET, "AWS_REGION": "us-east-1"})
    assert backend.scrub(f"failed with {OPTION_SECRET} in us-east-1") == "failed with *** in us-east-1"
    assert OPTION_SECRET not in repr(backend) and OPTION_SECRET not in str(backend)


def test_describe_keeps_the_service_message() -> None:
    err = OSError("Kernel error -> Generic S3 error\n  \x1b[31m↳\x1b[0m 404\n<Error><Code>NoSuchKey</Code>"
                  "<Message>gone</Message></Error>")
    assert describe(err) == "NoSuchKey: gone"
    assert describe(OSError("top\n  ↳ middle\n   ↳ root cause")) == "top (root cause)"


@pytest.mark.slow
def test_planted_credentials_appear_nowhere(tmp_path, s3_server, s3_env) -> None:
    bucket = s3_server.bucket()
    uri = f"s3://{bucket}/store"
    env = {**os.environ, "AWS_ACCESS_KEY_ID": KEY_ID, "AWS_SECRET_ACCESS_KEY": SECRET, "TRAJ_USER": "t"}
    runs = tmp_path / "runs.jsonl"
    runs.write_bytes(jsonl(example_run("r1") + example_run("r2", "北京现在二十度") + example_run("r3", finished=False)))
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(jsonl([example_run("r1")[0].replace('"seq": 0', '"seq": "x"')]))
    from otel_traces import agent_trace, evaluation
    from otel_traces import jsonl as otlp

    traces = tmp_path / "traces.jsonl"
    traces.write_text(otlp(agent_trace("4bf92f3577b34da6a3ce929d0e0e4736", evals=[evaluation("correctness", 950, score=1.0)])))
    opt = ["--storage-option", f"AWS_SECRET_ACCESS_KEY={OPTION_SECRET}"]
    # One group after the other, each command a process of its own. Within a group the commands
    # run a few at once: none of them writes to the store (recover finds no journal to seal; the
    # last two fail on a bucket that is not there), so none depends on another's work. Each
    # command that writes is a group of its own, in the order of the list.
    groups = [
        [["ingest", str(runs), "--store", uri, *opt]],
        [["import", "otel", str(traces), "--suite", "weather", "--store", uri, *opt]],
        [["ingest", str(runs), "--store", uri]],
        [["ingest", str(bad), "--store", uri]],  # refused
        [["judge", "--store", uri, *opt]],
        # exit 1: the only stale run is the one of an unknown task, so nothing asked could be judged
        [["judge", "--store", uri, "--workers", "2", "--timeout", "30"]],
        [["query", "SELECT outcome, count(*) FROM verdicts GROUP BY ALL", "--store", uri, *opt],
         ["query", "SELECT * FROM read_parquet('s3://x/y')", "--store", uri],  # refused by the sandbox
         ["query", "SELECT nope FROM events", "--store", uri],  # fails
         ["runs", "--store", uri], ["show", "r1", "--store", uri], ["show", "r9", "--store", uri],
         ["passes", "--store", uri], ["diff", "--store", uri], ["status", "--store", uri],
         ["export", "events", "--store", uri]],
        [["compact", "--store", uri, *opt]],
        [["recover", "--store", uri],
         ["suite", "list", "--store", uri], ["report", "--batch", "b1", "--out", str(tmp_path / "rep"), "--store", uri],
         ["status", "--store", f"s3://no-such-bucket-{bucket}/store", *opt],  # fails
         ["ingest", str(runs), "--store", f"s3://no-such-bucket-{bucket}/store"]],  # fails
    ]

    def run(argv: list[str]) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "trajectory.cli.main", *argv], env=env, capture_output=True,
                              text=True, timeout=300, cwd=tmp_path)

    outputs = []
    failed = []
    with ThreadPoolExecutor(4) as pool:
        for group in groups:
            for argv, r in zip(group, pool.map(run, group), strict=True):
                outputs.append(r.stdout + r.stderr)
                if r.returncode != 0:
                    failed.append(argv[0])
                assert "Traceback" not in r.stderr, f"{argv}: {r.stderr}"
    # the refused and failing ones, each with one line
    assert failed == ["ingest", "judge", "query", "query", "show", "status", "ingest"], outputs
    seen = "\n".join(outputs)
    assert "judged 2 runs (2 pass)" in seen and "skipped 1 run traj cannot judge" in seen and "NoSuchBucket" in seen and "as imported pass" in seen
    for p in PLANTED:
        assert p not in seen, f"{p} printed"
    # The recorded command lines of the passes are there, without the option's value.
    store = Store(uri)
    commands_recorded = store.read("passes", columns=["command"]).column("command").to_pylist()
    assert any("--storage-option" in c for c in commands_recorded)
    # Every object of the bucket (Parquet files, Delta logs, traj's own files), raw and decoded.
    objects = s3_server.objects(bucket)
    assert any(k.endswith(".parquet") for k in objects) and any("_delta_log" in k for k in objects)
    for key, body in objects.items():
        for p in PLANTED:
            assert p.encode() not in body, f"{p} in {key}"
    for name in TABLES:
        if store.has_table(name):
            text = str(store.read(name).to_pylist())
            assert all(p not in text for p in PLANTED), name
    # Nothing in the local spool or the report either.
    for folder in (tmp_path, ):
        for path in folder.rglob("*"):
            if path.is_file():
                assert all(p.encode() not in path.read_bytes() for p in PLANTED), path


@pytest.mark.slow
def test_planted_credentials_stay_out_of_a_ray_clusters_files(tmp_path, s3_server, s3_env) -> None:
    """`traj ingest --engine ray` and `traj judge --engine ray` on an S3 store, credentials from
    the variables and --storage-option: the workers get them (they read the store), but no
    output, log or spilled object of the local cluster holds them, and the tables neither."""
    pytest.importorskip("ray", reason="Ray is not installed: pip install -e '.[test]' installs it (ray[data])")
    import shutil
    import tempfile

    uri = f"s3://{s3_server.bucket()}/store"
    runs = tmp_path / "in"
    runs.mkdir()
    (runs / "a.jsonl").write_bytes(jsonl(example_run("r1") + example_run("r2", "北京现在二十度")))
    (runs / "b.jsonl").write_bytes(jsonl(example_run("r3")))
    # A short folder: Ray's Unix sockets live under it (their paths are limited to 107 bytes).
    ray_tmp = Path(tempfile.mkdtemp(prefix="trajray-", dir="/tmp"))
    env = {**os.environ, "AWS_ACCESS_KEY_ID": KEY_ID, "AWS_SECRET_ACCESS_KEY": SECRET, "TRAJ_USER": "t",
           "RAY_TMPDIR": str(ray_tmp)}
    env.pop("RAY_ADDRESS", None)
    opt = ["--storage-option", f"AWS_SECRET_ACCESS_KEY={OPTION_SECRET}"]
    try:
        outputs = []
        for argv in (["ingest", "--engine", "ray", str(runs), "--store", uri, *opt],
                     ["judge", "--engine", "ray", "--store", uri, *opt]):
            r = subprocess.run([sys.executable, "-m", "trajectory.cli.main", *argv], env=env, capture_output=True,
                               text=True, timeout=600, cwd=tmp_path)
            assert r.returncode == 0, f"{argv}: {r.stderr}"
            outputs.append(r.stdout + r.stderr)
        assert "judged 3 runs" in outputs[1], outputs
        for p in PLANTED:
            assert all(p not in out for out in outputs), f"{p} printed"
        files = [f for f in ray_tmp.rglob("*") if f.is_file() and not f.is_symlink()]
        assert any(f.name.endswith((".log", ".err", ".out")) for f in files), "no Ray log was written"
        for f in files:
            body = f.read_bytes()
            for p in PLANTED:
                assert p.encode() not in body, f"{p} in {f}"
        store = Store(uri)
        for name in TABLES:
            if store.has_table(name):
                assert all(p not in str(store.read(name).to_pylist()) for p in PLANTED), name
    finally:
        shutil.rmtree(ray_tmp, ignore_errors=True)


def test_a_review_verdict_is_stored_and_shown_alike_on_s3(tmp_path, s3_store_uri) -> None:
    """The review queue on an S3 store: the same outcome, queue, figures and override as local."""
    from review_helpers import check_review_shown, review_store_events, traj

    events = tmp_path / "runs.jsonl"
    events.write_bytes(review_store_events())
    assert traj("ingest", events, "--store", s3_store_uri).exit_code == 0
    r = traj("judge", "--store", s3_store_uri)
    assert r.exit_code == 0 and "(1 pass, 1 fail, 1 review)" in r.stdout, r.output
    check_review_shown(s3_store_uri, tmp_path)
