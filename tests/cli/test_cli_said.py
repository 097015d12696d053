"""Issue 23, items 6, 7, 9 and 10: what the commands say.

6. Creating a store is said on its own line, and in --json (``created_store``).
7. Every --json prints JSON, also when there is nothing to report.
9. A hint keeps the --store (and --storage-option names) the command was run with.
10. Masking secrets masks values, not the names of modes (``RAY_AUTH_MODE=token``).
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from cli_support import example_store, finished, ingest_lines, traj, traj_proc
from helpers import example_run, jsonl

# -- 6. a store that is created says so ----------------------------------------------------------


def test_ingest_into_a_mistyped_store_says_it_created_one(tmp_path) -> None:
    runs = tmp_path / "runs.jsonl"
    runs.write_bytes(jsonl(example_run("r1")))
    p = traj_proc("ingest", runs, "--store", "cpoy", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0] == f"created a new store at {tmp_path / 'cpoy'}"
    assert lines[1].endswith("runs.jsonl: 1 run, 5 events read: 5 new, 0 already present")
    again = traj_proc("ingest", runs, "--store", "cpoy", cwd=tmp_path)
    assert "created" not in again.stdout + again.stderr


def test_ingest_json_says_whether_it_created_the_store(tmp_path) -> None:
    store = tmp_path / "new"
    r = traj("ingest", "-", "--json", "--store", store, input=jsonl(example_run("r1")))
    assert r.exit_code == 0
    [row] = [json.loads(x) for x in r.stdout.splitlines()]
    assert row["created_store"] == str(store) and row["new"] == 5
    assert r.stderr.strip() == f"created a new store at {store}"
    r = traj("ingest", "-", "--json", "--store", store, input=jsonl(example_run("r2")))
    assert json.loads(r.stdout)["created_store"] is None and "created" not in r.stderr


def test_a_refused_first_ingest_creates_nothing_and_says_nothing_about_it(tmp_path) -> None:
    store = tmp_path / "new"
    r = traj("ingest", "-", "--store", store, input=b"{not json\n")
    assert r.exit_code == 1 and "created" not in r.output and not store.exists()


def test_every_command_that_can_create_a_store_says_so(tmp_path) -> None:
    pytest.importorskip("opentelemetry.sdk")
    from cli_support import otlp_traces

    traces = otlp_traces(tmp_path / "t.jsonl", "svc", [("a", "pass")])
    selfevo = Path(__file__).resolve().parents[2] / "suites" / "selfevo" / "data"
    cases = [
        ("import", "otel", traces),
        ("import", "selfevo", next(iter(sorted(selfevo.glob("*.jsonl"))), None)),
        ("import", "mobilegym", Path(__file__).resolve().parents[1] / "data" / "mobilegym_run"),
    ]
    for n, argv in enumerate(cases):
        if argv[-1] is None:
            continue
        store = tmp_path / f"s{n}"
        r = traj(*argv, "--store", store)
        assert r.exit_code == 0, (argv, r.output)
        assert f"created a new store at {store}" in r.stdout.splitlines(), (argv, r.stdout)
        j = traj(*argv, "--json", "--store", tmp_path / f"j{n}")
        assert json.loads(j.stdout)["created_store"] == str(tmp_path / f"j{n}"), (argv, j.stdout)
        again = traj(*argv, "--json", "--store", store)
        assert json.loads(again.stdout)["created_store"] is None


# -- 7. every --json prints JSON -----------------------------------------------------------------


def test_recover_json_with_nothing_to_recover_prints_an_object(tmp_path) -> None:
    store = example_store(tmp_path / "store")
    r = traj("recover", "--json", "--store", store)
    assert r.exit_code == 0
    assert json.loads(r.stdout) == {"journals": [], "sealed": 0, "left_alone": 0, "rejected": 0}


def json_lines(text: str) -> list:
    return [json.loads(x) for x in text.splitlines()]


def test_every_json_prints_json_on_a_store_with_little_in_it(tmp_path, monkeypatch) -> None:
    """Every command with --json on a store of one open run (nothing judged, nothing to recover,
    no pass): stdout is JSON, one object or JSON Lines of objects; an empty list says so on stderr."""
    monkeypatch.chdir(tmp_path)
    store = str(tmp_path / "store")
    ingest_lines(store, example_run("o1", finished=False))
    objects = [
        ["status"], ["migrate"], ["recover"], ["judge"], ["judge", "--dry-run"], ["show", "o1"],
        ["report", "--batch", "b1", "--out", "rep"], ["export", "events", "--out", "x.jsonl"],
        ["suite", "new", "mine"], ["schema"],
    ]
    for argv in objects:
        extra = [] if argv[0] in ("schema",) or argv[:2] == ["suite", "new"] else ["--store", store]
        r = traj(*argv, "--json", *extra)
        assert r.stdout.strip(), (argv, r.output)
        assert isinstance(json.loads(r.stdout), dict), (argv, r.stdout)
    for argv, empty in ((["passes"], "(0 passes)"), (["runs", "--split", "holdout"], "(0 runs)"),
                        (["query", "SELECT 1 AS x WHERE false"], "(0 rows)")):
        r = traj(*argv, "--json", "--store", store)
        assert r.exit_code == 0 and r.stdout == "" and r.stderr.strip() == empty, (argv, r.output)
    for argv in (["runs"], ["compact"], ["suite", "list"], ["query", "SELECT 1 AS x"]):
        r = traj(*argv, "--json", "--store", store)
        assert r.exit_code == 0 and json_lines(r.stdout), (argv, r.output)


# -- 9. hints keep the --store -------------------------------------------------------------------


def test_hints_keep_the_store_they_were_run_with(tmp_path) -> None:
    store = str(tmp_path / "my store #1")
    ingest_lines(store, finished("u1", "nosuch", "t") + example_run("r1", "北京现在25度") + example_run("o1", finished=False))
    quoted = shlex.quote(store)
    r = traj("diff", "--store", store)
    assert r.exit_code == 1 and f"run `traj judge --store {quoted}`" in r.stderr
    r = traj("show", "r1", "--store", store)
    assert f"(not judged yet: run `traj judge --store {quoted}`)" in r.stdout
    r = traj("judge", "--store", store)
    assert r.exit_code == 0
    assert f"(e.g. traj show u1 --store {quoted})" in r.stdout  # the unjudged run
    assert f"traj suite add NAME PATH --store {quoted}" in r.stdout
    assert f"(e.g. traj show r1 --store {quoted})" in r.stdout  # the most common fail reason
    r = traj("diff", "pzzz", "pyyy", "--store", store)
    assert f"(list them with traj passes --store {quoted})" in r.stderr
    many = [x for i in range(10) for x in finished(f"run-{i:02d}", "nosuch", "t")]
    ingest_lines(store, many)
    r = traj("show", "zzzz", "--store", store)
    assert f"(list them with traj runs --store {quoted})" in r.stderr


def test_hints_name_the_storage_options_but_not_their_values(tmp_path) -> None:
    store = str(tmp_path / "s")
    ingest_lines(store, example_run("r1"))
    r = traj("diff", "--storage-option", "AWS_REGION=eu-west-9", "--store", store)
    assert r.exit_code == 1
    assert f"traj judge --store {store} --storage-option AWS_REGION=..." in r.stderr
    assert "eu-west-9" not in r.output


def test_a_hint_without_store_stays_short(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    ingest_lines("traj-store", example_run("r1"))
    r = traj("diff")
    assert "run `traj judge`" in r.stderr


def test_the_demo_hints_keep_the_storage_option_names(tmp_path) -> None:
    from trajectory.text import HINT_OPTIONS, hint

    token = HINT_OPTIONS.set(("s3://b/x", ("AWS_ENDPOINT_URL",)))
    try:
        assert hint("traj runs", "s3://b/x") == "traj runs --store s3://b/x --storage-option AWS_ENDPOINT_URL=..."
    finally:
        HINT_OPTIONS.reset(token)


# -- 10. masks hide values, not the names of modes -----------------------------------------------


def test_the_recorded_command_keeps_a_mode_and_hides_a_token(tmp_path) -> None:
    store = example_store(tmp_path / "store")
    where = "suite <> 'export RAY_AUTH_MODE=token' AND suite <> 'RAY_AUTH_TOKEN=abc123def'"
    r = traj_proc("judge", "--all", "--where", where, "--store", store)  # the command line as typed
    assert r.returncode == 0, r.stderr
    [p] = json_lines(traj("passes", "--json", "--store", store).stdout)
    assert "RAY_AUTH_MODE=token" in p["command"]
    assert "RAY_AUTH_TOKEN=***" in p["command"] and "abc123def" not in p["command"]


def test_an_error_keeps_the_words_a_hint_needs(tmp_path) -> None:
    """An error line goes through the same masking: a mode, a kind, a file stay readable."""
    store = example_store(tmp_path / "store")
    r = traj("query", "SELECT * FROM token_type_auth_mode", "--store", store)
    assert "token_type_auth_mode" in r.stderr
    from trajectory.redact import redact_text

    text = ("a cluster started by `ray start` uses token authentication: export RAY_AUTH_MODE=token "
            "(AWS_SHARED_CREDENTIALS_FILE=/home/me/.aws/credentials, token_type=bearer)")
    assert redact_text(text) == text
    assert redact_text("RAY_AUTH_TOKEN=s3cr3tvalue api_key=xyz") == "RAY_AUTH_TOKEN=*** api_key=***"


def test_an_import_of_the_wrong_format_names_the_command_for_this_store(tmp_path) -> None:
    store = str(tmp_path / "my store #1")
    ingest_lines(store, example_run("r1"))
    events = tmp_path / "runs.jsonl"
    events.write_bytes(jsonl(example_run("r2")))
    r = traj("import", "otel", events, "--store", store)
    assert r.exit_code == 1
    assert f"traj event lines (import them with traj ingest FILE --store {shlex.quote(store)})" in r.stderr
