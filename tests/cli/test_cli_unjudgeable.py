"""Issue 23, item 4: a run whose suite or task traj cannot resolve keeps its current verdict.
A pass skips it and says so (how many, the suite and task names, how to register a suite),
exits 0 when it judged something and 1 when nothing it was asked to judge could be judged."""

from __future__ import annotations

import json

import pytest

from cli_support import example_store, finished, ingest_lines, otlp_traces, traj, traj_proc, verdicts

pytest.importorskip("opentelemetry.sdk", reason="the traces are written by the OpenTelemetry SDK (test extra)")


def test_imported_verdicts_of_an_unregistered_suite_survive_a_plain_judge(tmp_path) -> None:
    """`traj import otel` takes the suite from service.name; that suite is registered nowhere.
    `traj judge` used to write `error: unknown suite` over every imported verdict, exit 0."""
    store = str(tmp_path / "store")
    traces = otlp_traces(tmp_path / "traces.jsonl", "checkout-bot", [("cart", "pass"), ("pay", "fail"), ("ship", "pass")])
    r = traj("import", "otel", traces, "--store", store)
    assert r.exit_code == 0, r.output
    before = verdicts(store)
    assert sorted(o for o, _ in before.values()) == ["fail", "pass", "pass"]
    assert {k for _, k in before.values()} == {"imported"}

    p = traj_proc("judge", "--store", store)
    assert p.returncode == 1, (p.stdout, p.stderr)
    assert "judged nothing" in p.stdout
    assert "skipped 3 runs traj cannot judge here (they keep their current verdicts)" in p.stderr
    assert "3 runs of suite 'checkout-bot': no suite of that name is registered or bundled" in p.stderr
    assert f"traj suite add NAME PATH --store {store}" in p.stderr
    assert verdicts(store) == before  # nothing overwritten
    passes = [json.loads(x) for x in traj("passes", "--json", "--store", store).stdout.splitlines()]
    assert [x["kind"] for x in passes] == ["imported"]
    d = traj("diff", "--store", store)  # still the import against nothing before it: no flips
    assert d.exit_code == 0 and ", 0 flips (3 judged for the first time)" in d.stdout.splitlines()[0]

    out = traj("judge", "--json", "--all", "--store", store)
    assert out.exit_code == 1
    got = json.loads(out.stdout)
    assert got["pass_id"] is None and got["written"] is False and got["runs"] == 0
    assert got["unjudged"]["runs"] == 3
    assert got["unjudged"]["groups"] == [
        {"suite": "checkout-bot", "task": None, "unknown": "suite", "runs": 3, "example_run": got["unjudged"]["groups"][0]["example_run"]}]


def test_the_readme_import_with_suite_weather_keeps_its_verdicts(tmp_path) -> None:
    """The README's `traj import otel traces.jsonl --suite weather`: the suite is bundled, but
    the traces' tasks (the agents' names) are none of its tasks: skipped, named, exit 1."""
    store = str(tmp_path / "store")
    traces = otlp_traces(tmp_path / "traces.jsonl", "weather-service", [("weather-bot", "pass"), ("weather-bot", "fail")])
    assert traj("import", "otel", traces, "--suite", "weather", "--store", store).exit_code == 0
    before = verdicts(store)
    r = traj("judge", "--store", store)
    assert r.exit_code == 1, r.output
    assert "2 runs of task 'weather-bot': suite 'weather' has no such task; it has" in r.stderr
    assert "CheckCurrentTemp" in r.stderr
    assert verdicts(store) == before


@pytest.mark.parametrize("workers", [1, 2])
def test_a_pass_judges_what_it_can_and_names_the_rest(tmp_path, workers) -> None:
    """Judgeable runs are judged (exit 0); a run of an unknown suite and one of an unknown task
    keep their verdicts, with one line each; on worker processes the same."""
    store = example_store(tmp_path / "store")
    ingest_lines(store, finished("u1", "nosuch", "t") + finished("u2", "example", "no_such_task"))
    r = traj("judge", "--workers", workers, "--store", store)
    assert r.exit_code == 0, r.output
    assert "judged 2 runs (1 pass, 1 fail)" in r.stdout
    assert "skipped 2 runs traj cannot judge here" in r.stdout
    assert "1 run of suite 'nosuch': no suite of that name is registered or bundled" in r.stdout
    assert "1 run of task 'no_such_task': suite 'example' has no such task" in r.stdout
    v = verdicts(store)
    assert set(v) == {"r1", "r2"}  # u1 and u2 got no verdict: no error written over nothing
    # Asked for only the runs it cannot judge: exit 1.
    r = traj("judge", "--run", "u1", "--run", "u2", "--all", "--store", store)
    assert r.exit_code == 1 and "judged nothing" in r.stdout


def test_a_suite_that_fails_to_load_still_errs_its_runs(tmp_path) -> None:
    """Unresolved is "no such name": a registered suite whose code no longer loads is judged,
    its runs get an error verdict that says why (the suite's author has to fix it)."""
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "__init__.py").write_text("raise RuntimeError('broken at import')\n")
    store = example_store(tmp_path / "store")
    ingest_lines(store, finished("m1", "mine", "t"))
    from trajectory.judging import register_suite
    from trajectory.store.delta import Store

    register_suite(Store(store), "mine", folder)
    assert traj("suite", "trust", "mine", "--store", store).exit_code == 0  # the person's own code
    r = traj("judge", "--store", store)
    assert r.exit_code == 0 and "1 error" in r.stdout and "skipped" not in r.output
