"""The CLI as a person types it (issue 17): each test runs the command line as typed, through
Typer's CliRunner, and checks what a person (or a script) sees."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from helpers import example_run, jsonl, line, traj
from trajectory.cli.main import app


@pytest.fixture
def filled(tmp_path) -> str:
    """A store with example runs: one passes, one fails (wrong number), one is open."""
    store = str(tmp_path / "store")
    runs = example_run("r1") + example_run("r2", "北京现在25度") + example_run("r3", finished=False)
    assert traj("ingest", "-", "--store", store, input=jsonl(runs)).exit_code == 0
    return store


# -- 1. a mistyped --store is an error, never an empty store ------------------------------------

READERS = [
    ["runs"], ["status"], ["judge"], ["diff"], ["passes"], ["show", "r1"], ["query", "SELECT 1 AS x"],
    ["export", "events"], ["report", "--batch", "b1"], ["compact"], ["recover"], ["suite", "list"],
    ["suite", "add", "x", "."], ["override", "r1", "--to", "pass", "--evidence", "x", "--by", "ann"],
    ["view", "--static", "site"],
]


@pytest.mark.parametrize("argv", READERS, ids=lambda a: " ".join(a[:2]))
def test_a_command_on_a_path_without_a_store_says_so_and_exits_1(argv, tmp_path) -> None:
    path = tmp_path / "nothere"
    r = traj(*argv, "--store", str(path))
    assert r.exit_code == 1, r.output
    assert r.output.strip() == f"error: no traj store at {path} (create one with traj ingest or traj demo)"
    assert not path.exists()


@pytest.mark.parametrize("kind", ["otel", "inspect"])
def test_a_refused_first_import_leaves_no_folder_and_says_why(kind, tmp_path) -> None:
    bad = tmp_path / ("bad.jsonl" if kind == "otel" else "bad.json")
    bad.write_text('{"resourceSpans": 5}\n' if kind == "otel" else '{"version": 2, "eval": 5}\n')
    r = traj("import", kind, str(bad), "--store", str(tmp_path / "new"))
    assert r.exit_code == 1 and r.output.startswith(f"error: {bad}") and "Traceback" not in r.output
    assert not (tmp_path / "new").exists()


def test_import_otel_as_typed_creates_its_store_and_answers_in_json(tmp_path) -> None:
    from otel_traces import agent_trace, evaluation
    from otel_traces import jsonl as otlp

    traces = tmp_path / "traces.jsonl"
    traces.write_text(otlp(agent_trace("4bf92f3577b34da6a3ce929d0e0e4736", evals=[evaluation("ok", 950, score=1.0)])))
    store = str(tmp_path / "store")
    r = traj("import", "otel", str(traces), "--suite", "weather", "--store", store)
    assert r.exit_code == 0 and f"{traces}: 1 run, 7 events read: 1 new run (7 events)" in r.output
    assert "recorded scores: 1 verdict (1 pass)" in r.output
    again = json.loads(traj("import", "otel", str(traces), "--suite", "weather", "--json", "--store", store).stdout)
    (source,) = again["sources"]
    assert source["runs"] == 1 and source["known_runs"] == 1 and source["new_runs"] == 0 and source["error"] is None
    assert again["pass_id"] is None and again["unchanged_verdicts"] == 1
    assert "verdict: pass" in traj("show", "otel:4bf92f3577b34da6a3ce929d0e0e4736", "--store", store).output


def test_judge_on_a_missing_store_does_not_claim_a_dry_run(tmp_path) -> None:
    r = traj("judge", "--store", str(tmp_path / "nothere"))
    assert r.exit_code == 1 and "dry run" not in r.output


def test_a_refused_first_ingest_leaves_no_folder(tmp_path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"run_id": "a", "seq": 0, "ts": 1, "kind": "run_started", "suite": "s"}\n')
    r = traj("ingest", str(bad), "--store", str(tmp_path / "new"))
    assert r.exit_code == 1 and "$.task" in r.output
    assert not (tmp_path / "new").exists()


# -- 3. why a run failed is on screen -----------------------------------------------------------


def test_judge_ends_with_the_most_common_reasons(filled) -> None:
    r = traj("judge", "--store", filled)
    assert r.exit_code == 0
    assert "judged 2 runs (1 pass, 1 fail); left 1 open run unjudged" in r.output
    assert "most common reasons:" in r.output
    assert re.search(r"^\s+1 fail\s+answer: the answer does not state 20 as one exact value\s+\(e\.g\. traj show r2 --store \S+\)$", r.output, re.M)


def test_runs_has_a_reason_column_and_show_has_every_check(filled) -> None:
    traj("judge", "--store", filled)
    r = traj("runs", "--store", filled)
    header = r.output.splitlines()[0].split()
    assert header[-2:] == ["verdict", "reason"]
    r2 = next(x for x in r.output.splitlines() if x.startswith("r2 "))
    assert "fail" in r2 and "answer: the answer does not state 20 as one exact value" in r2
    r = traj("show", "r2", "--store", filled)
    assert "verdict: fail (score 0)" in r.output
    assert 'FAIL  answer: expected 20, actual "北京现在25度"' in r.output
    assert "verdict history:" in r.output
    shown = json.loads(traj("show", "r2", "--json", "--store", filled).stdout)
    assert shown["verdict"]["outcome"] == "fail" and shown["verdict"]["checks"][0]["actual"] == "北京现在25度"
    assert len(shown["verdict_history"]) == 1


def test_an_error_verdict_shows_its_reason_everywhere(tmp_path) -> None:
    # A run traj cannot judge at all (no such suite) is skipped, not given an error (issue 23,
    # item 4); a run whose judge raises is judged `error`, with its reason.
    store = str(tmp_path / "store")
    folder = tmp_path / "raising"
    folder.mkdir()
    (folder / "__init__.py").write_text(
        "import sys\nfrom judges.base import Suite\n\n\nclass Raising(Suite):\n    name = 'raising'\n"
        "    code_modules = (sys.modules[__name__],)\n\n    def task_ids(self):\n        return ['t']\n\n"
        "    def get_task(self, task_id, params=None):\n        return task_id\n\n"
        "    def task_data(self, task):\n        return task\n\n"
        "    def judge(self, task, state):\n        raise LookupError('no rule for this')\n\n\n"
        "def load(path=None):\n    return Raising()\n")
    lines = [line("u1", 0, "run_started", suite="raising", task="t"), line("u1", 1, "run_finished", outcome="succeeded")]
    traj("ingest", "-", "--store", store, input=jsonl(lines))
    assert traj("suite", "add", "raising", str(folder), "--store", store).exit_code == 0
    r = traj("judge", "--store", store)
    reason = "judge raised LookupError: no rule for this"
    assert "1 error" in r.output and reason in r.output, r.output
    assert reason in traj("runs", "--store", store).output
    assert f"reason: {reason}" in traj("show", "u1", "--store", store).output


# -- 6. plain `traj diff` shows every flip of the last pass -------------------------------------

RULES_WRONG = "def states(expected, answer):\n    return answer is not None and str(expected) in answer\n"
RULES_RIGHT = ("from judges.matchers import match_value\n\n\ndef states(expected, answer):\n"
               "    # a whole number, Chinese numerals included\n    return answer is not None and match_value(expected, answer)\n")
SUITE = '''
from judges.base import Check, Suite, Verdict
from .rules import states


class Mini(Suite):
    name = "mini"

    def task_ids(self):
        return ["temp"]

    def get_task(self, task_id, params=None):
        if task_id != "temp":
            raise KeyError(task_id)
        return task_id

    def task_data(self, task):
        return task

    def judge(self, task, state):
        ok = states(20, state.answer)
        return Verdict.from_checks([Check(name="answer", passed=ok, expected=20, actual=state.answer)])


def load(path=None):
    return Mini()
'''


def _mini_run(rid: str, answer: str, batch: str) -> list[str]:
    return [line(rid, 0, "run_started", suite="mini", task="temp", batch=batch, mode="text"),
            line(rid, 1, "answer_given", text=answer), line(rid, 2, "run_finished", outcome="succeeded")]


def test_judge_one_batch_fix_judge_all_then_diff_shows_the_flip_outside_that_batch(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", True)  # the rule file is edited in place
    folder = tmp_path / "mini"
    folder.mkdir()
    (folder / "__init__.py").write_text(SUITE)
    (folder / "rules.py").write_text(RULES_WRONG)
    store = str(tmp_path / "store")
    runs = _mini_run("a1", "二十度", "a") + _mini_run("b1", "现在二十度", "b") + _mini_run("b2", "20度", "b")
    traj("ingest", "-", "--store", store, input=jsonl(runs))
    traj("suite", "add", "mini", str(folder), "--store", store)
    assert "(1 pass, 2 fail)" in traj("judge", "--store", store).output
    assert "(1 fail)" in traj("judge", "--all", "--batch", "a", "--store", store).output
    (folder / "rules.py").write_text(RULES_RIGHT)
    assert "(3 pass)" in traj("judge", "--store", store).output
    r = traj("diff", "--store", store)
    assert r.exit_code == 0
    assert "against each run's previous verdict: 3 runs judged before, 2 flips" in r.output
    assert "a1: fail → pass" in r.output and "b1: fail → pass" in r.output  # b1 was not in the batch pass
    flips = json.loads(traj("diff", "--json", "--store", store).stdout)["flips"]
    assert sorted(f["run_id"] for f in flips) == ["a1", "b1"]


# -- 8. human overrides everywhere ---------------------------------------------------------------


def test_an_override_is_the_current_verdict_everywhere_and_says_a_person_decided(filled, tmp_path) -> None:
    from trajectory.store.delta import Store
    from trajectory.query.verdicts import current_verdicts

    traj("judge", "--store", filled)
    r = traj("override", "r2", "--to", "pass", "--evidence", "北京现在25度", "--by", "ann", "--store", filled)
    assert r.exit_code == 0, r.output
    r2 = next(x for x in traj("runs", "--store", filled).output.splitlines() if x.startswith("r2 "))
    assert "pass (human)" in r2 and 'decided by ann: "北京现在25度"' in r2
    rows = json.loads(traj("query", "SELECT run_id, outcome, decided_by, auto_outcome, override_by FROM verdicts "
                                    "ORDER BY run_id", "--format", "json", "--store", filled).stdout)
    assert rows == [{"run_id": "r1", "outcome": "pass", "decided_by": "judge", "auto_outcome": "pass", "override_by": None},
                    {"run_id": "r2", "outcome": "pass", "decided_by": "human", "auto_outcome": "fail", "override_by": "ann"}]
    shown = traj("show", "r2", "--store", filled).output
    assert "verdict: pass, decided by a person (ann" in shown and "the judge says fail" in shown
    assert "overrides:" in shown
    current = current_verdicts(Store(filled))
    assert current["r2"]["outcome"] == "pass" and current["r2"]["decided_by"] == "human"
    assert traj("report", "--batch", "b1", "--out", str(tmp_path / "rep"), "--store", filled).exit_code == 0
    summary = (tmp_path / "rep" / "summary.md").read_text()
    row = next(x for x in summary.splitlines() if x.startswith("| current_temp | r2 "))
    assert "fail → pass (human)" in row and "ann: “北京现在25度”" in row
    # The viewer: the run list's verdict, and the run page says a person decided.
    from starlette.testclient import TestClient

    from trajectory.view.app import create_app
    from trajectory.view.data import StoreData

    data = StoreData(filled, background_index=False)
    try:
        with TestClient(create_app(data)) as c:
            listed = {x["run_id"]: x["verdict"] for x in c.get("/api/runs").json()["runs"]}
            assert listed["r2"] == "pass"
            assert c.get("/api/runs/r2").json()["shown"] == {"outcome": "pass", "overridden": True, "settled": False}
            assert "by a human override of the judge's <b>fail</b>" in c.get("/runs/r2").text
    finally:
        data.close()


# -- 10. output for scripts ----------------------------------------------------------------------


def test_numbers_are_numbers_in_json(filled) -> None:
    row = json.loads(traj("query", "SELECT sum(tokens) AS t, count(*) AS n FROM runs", "--json", "--store", filled).stdout)
    assert row == {"t": 330, "n": 3}
    runs = [json.loads(x) for x in traj("runs", "--json", "--store", filled).stdout.splitlines()]
    assert all(isinstance(x["tokens"], int) for x in runs)
    r = json.loads(traj("judge", "--json", "--store", filled).stdout)
    assert r["counts"] == {"pass": 1, "fail": 1, "error": 0, "skipped": 0, "na": 0, "review": 0}
    assert [v["run_id"] for v in r["verdicts"]] == ["r1", "r2"] and r["top_reasons"][0]["example_run"] == "r2"


def _commands(group, prefix=()):  # noqa: ANN001, ANN202
    for name, cmd in group.commands.items():
        if hasattr(cmd, "commands"):
            yield from _commands(cmd, prefix + (name,))
        else:
            yield prefix + (name,), cmd


def test_every_command_takes_json_and_is_documented() -> None:
    import typer.main

    root = typer.main.get_command(app)
    docs = (Path(__file__).resolve().parents[2] / "docs" / "cli.md").read_text(encoding="utf-8")
    names = list(_commands(root))
    assert len(names) >= 20
    for path, cmd in names:
        assert any("--json" in p.opts for p in cmd.params), path
        assert f"**`{' '.join(path)}" in docs, f"docs/cli.md does not give the shape of traj {' '.join(path)} --json"


@pytest.mark.parametrize("argv", [["ingest", "-h"], ["judge", "--help"], ["suite", "check", "-h"], ["-h"],
                                  ["import", "inspect", "-h"], ["import", "otel", "-h"], ["view", "-h"]])
def test_help_renders_flags_plainly(argv) -> None:
    r = traj(*argv)
    assert r.exit_code == 0
    for bad in ("<bool>", "<str>", "<int>", "{files}", "╭", "list[str]"):
        assert bad not in r.output, (bad, r.output)
    if argv[0] == "ingest":
        assert "Usage: traj ingest [OPTIONS] FILE..." in r.output and "--store PATH" in r.output
        assert re.search(r"^\s+--json\s+Print JSON", r.output, re.M)


def test_every_commands_help_renders_flags_plainly() -> None:
    import typer.main

    for path, cmd in _commands(typer.main.get_command(app)):
        r = traj(*path, "-h")
        assert r.exit_code == 0, path
        for bad in ("<bool>", "<str>", "<int>", "<float>", "<path>", "{", "╭", "list[str]"):
            assert bad not in r.output, (path, bad, r.output)


def test_version() -> None:
    r = traj("--version")
    assert r.exit_code == 0 and re.fullmatch(r"traj \S+\n", r.output)


def test_counts_say_run_and_runs(tmp_path) -> None:
    store = str(tmp_path / "store")
    r = traj("ingest", "-", "--store", store, input=jsonl(example_run("r1")))
    assert "<stdin>: 1 run, 5 events read: 5 new, 0 already present" in r.output
    assert "judged 1 run (1 pass)" in traj("judge", "--store", store).output
    assert "(1 run)" in traj("runs", "--store", store).output


def test_show_says_nothing_of_an_agent_it_does_not_know(tmp_path) -> None:
    store = str(tmp_path / "store")
    lines = [line("n1", 0, "run_started", suite="example", task="current_temp", batch="b"),
             line("n1", 1, "run_finished", outcome="failed")]
    traj("ingest", "-", "--store", store, input=jsonl(lines))
    out = traj("show", "n1", "--store", store).output
    assert "None" not in out and "agent" not in out and "batch b" in out


def test_a_bom_gets_a_message_that_says_bom(tmp_path) -> None:
    f = tmp_path / "bom.jsonl"
    f.write_bytes(b"\xef\xbb\xbf" + jsonl(example_run("r1")))
    r = traj("ingest", str(f), "--store", str(tmp_path / "s"))
    assert r.exit_code == 1 and f"{f}:1: $: the file starts with a UTF-8 byte order mark (BOM)" in r.output


def test_runs_pages_the_latest_first_and_says_how_many_more(tmp_path) -> None:
    store = str(tmp_path / "store")
    lines = []
    for i in range(60):
        lines += [line(f"p{i:02d}", 0, "run_started", ts=1775354400000 + i * 1000, suite="example", task="current_temp"),
                  line(f"p{i:02d}", 1, "run_finished", ts=1775354400500 + i * 1000, outcome="failed")]
    traj("ingest", "-", "--store", store, input=jsonl(lines))
    out = traj("runs", "--store", store).output.splitlines()
    shown = [x.split()[0] for x in out[2:-1]]
    assert shown == [f"p{i:02d}" for i in range(59, 9, -1)]
    assert out[-1] == "(50 of 60 runs; 10 more; use --limit 60 to see all)"
    assert len(traj("runs", "--limit", "0", "--store", store).output.splitlines()) == 63
    assert len(traj("runs", "--json", "--store", store).stdout.splitlines()) == 60


def test_a_query_naming_an_unknown_table_suggests_the_near_one(filled) -> None:
    r = traj("query", "SELECT * FROM run", "--store", filled)
    assert r.exit_code == 1 and r.output.strip() == "error: no table run; did you mean runs?"


def test_json_on_ingest_status_compact_recover(filled) -> None:
    for argv in (["status"], ["compact"], ["recover"], ["passes"]):
        r = traj(*argv, "--json", "--store", filled)
        assert r.exit_code == 0
        for x in r.stdout.splitlines():
            json.loads(x)
    st = json.loads(traj("status", "--json", "--store", filled).stdout)
    assert st["format"] == 1 and isinstance(st["tables"]["events"]["version"], int)
    r = traj("ingest", "-", "--json", "--store", filled, input=jsonl(example_run("r9")))
    assert json.loads(r.stdout) | {"version": 0, "commit_id": ""} == {
        "source": "<stdin>", "runs": 1, "events": 5, "new": 5, "present": 0, "new_runs": 1, "version": 0,
        "commit_id": "", "trusted": None, "created_store": None}


# -- reports a person pastes into a review -------------------------------------------------------


def test_summary_opens_with_its_provenance_and_says_the_denominator(filled, tmp_path) -> None:
    lines = [line("na1", 0, "run_started", suite="example", task="current_temp", batch="b1", params={"city": "北京"}),
             line("na1", 1, "run_finished", outcome="succeeded")]  # no world state: na
    traj("ingest", "-", "--store", filled, input=jsonl(lines))
    r = json.loads(traj("judge", "--json", "--store", filled).stdout)
    out = tmp_path / "rep"
    assert traj("report", "--batch", "b1", "--out", str(out), "--store", filled).exit_code == 0
    summary = (out / "summary.md").read_text()
    head = summary.split("## ")[0]
    assert f"- store: {Path(filled).absolute()}" in head and "- written: " in head
    assert f"- verdicts of pass {r['pass_id']} (judge, " in head and ": 3 runs" in head
    assert re.search(r"- judge versions: example [0-9a-f]{16}", head)
    assert "1 of 2 judged runs pass (50%); 1 na not counted" in summary
    # Device-only sections stay out of a batch of a non-device suite.
    for device_only in ("Markers left on devices", "time to first feedback", "## Results by category"):
        assert device_only not in summary
    assert "## Results by task" in summary
    metrics = json.loads((out / "metrics.json").read_text())
    t = metrics["totals"]
    assert (t["runs"], t["pass"], t["fail"], t["na"], t["error"]) == (3, 1, 1, 1, 0)
    assert t["pass_rate"] == 0.5 and t["pass_rate_of"] == 2 and t["tokens"] == 220 and t["model_ms"] == 1000.0
    assert metrics["passes"][0]["pass_id"] == r["pass_id"] and metrics["store"] == str(Path(filled).absolute())
    assert {m["run_id"] for m in metrics["runs"]} == {"r1", "r2", "na1"}


def test_share_masks_the_store_path_in_the_header(filled, tmp_path) -> None:
    traj("judge", "--store", filled)
    out = tmp_path / "shared"
    traj("report", "--batch", "b1", "--out", str(out), "--share", "--store", filled)
    text = "\n".join(p.read_text() for p in out.iterdir())
    assert str(Path(filled).absolute()) not in text and "- store: [path]" in text
    assert "北京现在25度" not in text  # the answer


def test_show_keeps_a_holdout_runs_verdict_to_a_recorded_look(tmp_path) -> None:
    from trajectory.query.sql import holdout_views
    from trajectory.store.delta import Store

    store = str(tmp_path / "store")
    lines = example_run("h1")
    lines[0] = lines[0].replace('"mode": "text"', '"mode": "text", "split": "holdout"')
    traj("ingest", "-", "--store", store, input=jsonl(lines))
    traj("judge", "--store", store)
    out = traj("show", "h1", "--store", store).output
    assert "verdict: (a holdout run: shown with --split holdout" in out and "verdict history" not in out
    assert json.loads(traj("show", "h1", "--json", "--store", store).stdout)["verdict"] is None
    assert holdout_views(Store(store)) == []
    out = traj("show", "h1", "--split", "holdout", "--store", store).output
    assert "verdict: pass" in out and len(holdout_views(Store(store))) == 1
