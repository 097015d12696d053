"""`traj import selfevo`: trajectories in the seed's schema become paired runs; bad lines are
refused with file and line, and nothing of a refused file is written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from core.test_selfevo_parity import CODE, _steps
from selfevo_helpers import good_steps, reuse_steps, traj
from typer.testing import CliRunner

from trajectory.cli.main import app
from trajectory.judging import SuiteResolver, current_rows, judge_runs, load_state
from trajectory.query.sql import Views
from trajectory.store.delta import Store

runner = CliRunner()


def cli(*args: str, input: str | None = None):
    return runner.invoke(app, list(args), input=input)


def write(path: Path, objs: list) -> Path:
    path.write_text("\n".join(o if isinstance(o, str) else json.dumps(o, ensure_ascii=False) for o in objs) + "\n",
                    encoding="utf-8")
    return path


def runs(sdir: str) -> list[dict]:
    with Views(Store(sdir), split=None) as v:
        return v.arrow("SELECT run_id, task, batch, agent, pair_id, pair_round, steps FROM runs ORDER BY run_id").to_pylist()


@pytest.fixture
def sdir(tmp_path) -> str:
    return str(tmp_path / "store")


def test_import_pairs_first_and_second_attempts(tmp_path, sdir) -> None:
    f = write(tmp_path / "run 1.jsonl", [
        traj("task-01", good_steps(), profile="strong"),
        traj("task-01", reuse_steps(), profile="strong", variant=True),
        traj("task-01", good_steps(), profile="weak"),  # a first attempt with no second
    ])
    r = cli("import", "selfevo", str(f), "--store", sdir)
    assert r.exit_code == 0, r.output
    assert "3 runs" in r.output and "new" in r.output
    rows = runs(sdir)
    assert len(rows) == 3
    assert {r["batch"] for r in rows} == {"run_1"}  # the file name, made safe
    strong = [r for r in rows if r["agent"] == "strong"]
    assert {r["pair_round"] for r in strong} == {1, 2}
    assert len({r["pair_id"] for r in strong}) == 1
    weak = [r for r in rows if r["agent"] == "weak"]
    assert weak[0]["pair_round"] == 1 and weak[0]["pair_id"] != strong[0]["pair_id"]

    # Steps became step_taken events (args = the other keys), the answer an answer_given.
    first = load_state(Store(sdir), next(r["run_id"] for r in strong if r["pair_round"] == 1))
    assert [s.action for s in first.steps] == [s["action"] for s in good_steps()]
    assert first.steps[5].args == {"name": "fetch_youtube_transcript", "args": {"x": 1}, "result": "ok"}
    assert first.answer.startswith("已通过")
    assert first.mode == "text" and first.suite == "selfevo" and first.task == "task-01"

    # Judging: the pair is scored on its first attempt; the lone first attempt has L4 n/a.
    s = Store(sdir)
    judge_runs(s, SuiteResolver(s))
    verdicts = current_rows(s)
    by_round = {(r["agent"], r["pair_round"]): verdicts[r["run_id"]] for r in rows}
    assert by_round[("strong", 1)]["outcome"] == "pass"
    assert by_round[("strong", 2)]["outcome"] == "na"
    weak_details = json.loads(by_round[("weak", 1)]["details"])
    assert weak_details["layers"]["L4"]["score"] is None


def test_import_is_idempotent_and_ids_are_deterministic(tmp_path, sdir) -> None:
    f = write(tmp_path / "a.jsonl", [traj("task-02", good_steps("task-02"))])
    assert cli("import", "selfevo", str(f), "--store", sdir).exit_code == 0
    again = cli("import", "selfevo", str(f), "--store", sdir, "--json")
    shown = json.loads(again.output)
    assert {k: shown[k] for k in ("source", "runs", "events", "new", "present")} == {
        "source": str(f), "runs": 1, "events": 10, "new": 0, "present": 10}
    other = str(tmp_path / "other")
    assert cli("import", "selfevo", str(f), "--store", other).exit_code == 0
    assert [r["run_id"] for r in runs(sdir)] == [r["run_id"] for r in runs(other)]


def test_second_attempt_from_another_file_joins_its_pair(tmp_path, sdir) -> None:
    a = write(tmp_path / "a.jsonl", [traj("task-01", good_steps())])
    b = write(tmp_path / "b.jsonl", [traj("task-01", reuse_steps(), variant=True)])
    assert cli("import", "selfevo", str(a), "--store", sdir, "--batch", "x").exit_code == 0
    s = Store(sdir)
    judge_runs(s, SuiteResolver(s))
    assert cli("import", "selfevo", str(b), "--store", sdir, "--batch", "x").exit_code == 0
    judge_runs(s, SuiteResolver(s))
    rows = runs(sdir)
    assert len({r["pair_id"] for r in rows}) == 1
    first = next(r["run_id"] for r in rows if r["pair_round"] == 1)
    assert json.loads(current_rows(s)[first]["details"])["layers"]["L4"]["score"] == 1.0


def test_stdin_model_and_start_time(sdir) -> None:
    line = json.dumps(traj("task-03", good_steps("task-03")), ensure_ascii=False)
    r = cli("import", "selfevo", "-", "--store", sdir, "--model", "gpt-x", "--at", "2026-03-01T08:00:00+08:00",
            input=line)
    assert r.exit_code == 0, r.output
    state = load_state(Store(sdir), runs(sdir)[0]["run_id"])
    assert state.batch == "stdin" and state.agent_model == "gpt-x"
    assert state.started_at.isoformat() == "2026-03-01T00:00:00+00:00"


def test_missing_code_in_step_comes_from_created_tools_and_extra_keys_are_kept(tmp_path, sdir) -> None:
    obj = traj("task-01", good_steps(code="def f(): pass\n"), run_note="kept")
    for s in obj["steps"]:
        s.pop("code", None)
    f = write(tmp_path / "a.jsonl", [obj])
    assert cli("import", "selfevo", str(f), "--store", sdir).exit_code == 0
    state = load_state(Store(sdir), runs(sdir)[0]["run_id"])
    create = next(s for s in state.steps if s.action == "create_tool")
    assert create.args["code"] == "def f(): pass\n"
    with Views(Store(sdir), split=None) as v:
        data = v.arrow("SELECT data FROM events WHERE seq = 0").column("data").to_pylist()[0]
    assert json.loads(data)["extra"] == {"selfevo": {"run_note": "kept"}}


BAD = [
    ("not json", "not JSON"),
    ("[1, 2]", "expected a JSON object"),
    (json.dumps({"steps": []}), "$.task_id: expected a non-empty string"),
    (json.dumps({"task_id": "task-01", "steps": {}}), "$.steps: expected a list"),
    (json.dumps({"task_id": "task-01"}), "$.steps: missing"),
    (json.dumps({"task_id": "task-01", "steps": [{"query": "q"}]}), "$.steps[0].action"),
    (json.dumps({"task_id": "task-01", "steps": [], "is_variant": "yes"}), "$.is_variant"),
    (json.dumps({"task_id": "task-01", "steps": [], "final_answer": 3}), "$.final_answer"),
    (json.dumps({"task_id": "task-01", "steps": [{"query": "q", "action": None}]}), "$.steps[0].action"),
    (json.dumps({"task_id": "task-01", "steps": [], "final_answer": ["x"]}), "the harness cannot score it"),
]


@pytest.mark.parametrize(("line", "message"), BAD, ids=[m for _, m in BAD])
def test_bad_line_is_refused_with_file_and_line_and_nothing_is_written(tmp_path, sdir, line, message) -> None:
    good = json.dumps(traj("task-01", good_steps()), ensure_ascii=False)
    f = write(tmp_path / "bad.jsonl", [good, "", line])
    r = cli("import", "selfevo", str(f), "--store", sdir)
    assert r.exit_code == 1
    assert f"{f}:3: " in r.output
    assert message in r.output
    assert "Traceback" not in r.output
    assert not Store(sdir).has_table("events") or runs(sdir) == []


def test_duplicate_attempt_and_unreadable_file(tmp_path, sdir) -> None:
    line = traj("task-01", good_steps())
    f = write(tmp_path / "dup.jsonl", [line, line])
    r = cli("import", "selfevo", str(f), "--store", sdir)
    assert r.exit_code == 1
    assert f"{f}:2: a first attempt at task-01 by p is already on line 1" in r.output
    r = cli("import", "selfevo", str(tmp_path / "missing.jsonl"), "--store", sdir)
    assert r.exit_code == 1 and "cannot read" in r.output
    r = cli("import", "selfevo", str(f), "--store", sdir, "--at", "yesterday")
    assert r.exit_code == 1 and "--at" in r.output


def test_all_bad_lines_are_reported_together(tmp_path, sdir) -> None:
    f = write(tmp_path / "bad.jsonl", ["{", json.dumps({"task_id": ""}), "[]"])
    r = cli("import", "selfevo", str(f), "--store", sdir)
    assert r.exit_code == 1
    for n in (1, 2, 3):
        assert f"{f}:{n}: " in r.output



def _import_as_before(sdir: str, obj: dict, batch: str) -> None:
    """What an import made before created_tools was read as the harness reads it stored for a
    line without created_tools: the steps as they are and no run_finished.metrics."""
    import datetime as dt

    import msgspec

    from suites.selfevo.trajectories import parse_trajectory, to_events
    from trajectory.ingest.batchplan import ingest_events
    from trajectory.ingest.plain import parsed_from_events

    events = to_events(parse_trajectory(obj, "t"), batch, dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc))
    assert events[-1].metrics == {"created_tools": []}  # what this import stores now
    events[-1] = msgspec.structs.replace(events[-1], metrics=None)
    ingest_events(Store(sdir), parsed_from_events(events), "old")


def test_reimporting_a_line_without_created_tools_over_an_older_import_says_why_it_conflicts(tmp_path, sdir):
    listed = traj("task-01", good_steps(), profile="listed")
    unlisted = {k: v for k, v in traj("task-01", good_steps(), profile="unlisted").items() if k != "created_tools"}
    _import_as_before(sdir, unlisted, "old")
    before = len(runs(sdir))
    f = write(tmp_path / "old.jsonl", [listed, unlisted])
    r = cli("import", "selfevo", str(f), "--store", sdir)
    assert r.exit_code == 1
    # The conflict itself, then what happened and what to do; nothing of the file is written.
    assert f"{f}:2: $.metrics: conflict: stored with null" in r.output
    assert f"{f}: line 2: create_tool steps with no created_tools, stored by an older import" in r.output
    assert "never rewritten" in r.output and "--batch" in r.output and "leave these lines out" in r.output
    assert len(runs(sdir)) == before
    # Under another batch the file imports, and the harness's reading is what is stored.
    r = cli("import", "selfevo", str(f), "--store", sdir, "--batch", "again")
    assert r.exit_code == 0, r.output
    assert len(runs(sdir)) == before + 2


def test_other_conflicts_are_not_explained_as_an_older_import(tmp_path, sdir):
    unlisted = {k: v for k, v in traj("task-01", good_steps()).items() if k != "created_tools"}
    assert cli("import", "selfevo", str(write(tmp_path / "a.jsonl", [unlisted])), "--store", sdir).exit_code == 0
    changed = dict(unlisted, final_answer="另一个回答")
    r = cli("import", "selfevo", str(write(tmp_path / "a.jsonl", [changed])), "--store", sdir)
    assert r.exit_code == 1 and "conflict" in r.output
    assert "older import" not in r.output

# -- the judging engine's pair partner hook ----------------------------------------------------------


def ingest_trajectories(store: Store, objs: list[dict], *, open_second: bool = False) -> dict[int, str]:
    """Ingest trajectories as events; optionally leave the second attempt open (no run_finished)."""
    import datetime as dt

    from suites.selfevo.trajectories import parse_trajectory, to_events
    from trajectory.ingest.batchplan import ingest_events
    from trajectory.ingest.plain import parsed_from_events

    events, ids = [], {}
    for obj in objs:
        t = parse_trajectory(obj, "t")
        evs = to_events(t, "b", dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc))
        if open_second and t.is_variant:
            evs = evs[:-1]
        ids[t.round] = evs[0].run_id
        events += evs
    ingest_events(store, parsed_from_events(events), "t")
    return ids


def l4_of(store: Store, run_id: str):
    return json.loads(current_rows(store)[run_id]["details"])["layers"]["L4"]["score"]


def test_partner_outside_the_selection_is_still_bound(store) -> None:
    ids = ingest_trajectories(store, [traj("task-01", good_steps()), traj("task-01", reuse_steps(), variant=True)])
    result = judge_runs(store, SuiteResolver(store), run_ids=[ids[1]])
    assert [r.run_id for r in result.rows] == [ids[1]]
    assert l4_of(store, ids[1]) == 1.0
    judge_runs(store, SuiteResolver(store), run_ids=[ids[2]])
    assert current_rows(store)[ids[2]]["reason"] == f"second attempt: scored on its first attempt {ids[1]}"


def test_an_open_second_attempt_is_not_a_partner(store) -> None:
    ids = ingest_trajectories(store, [traj("task-01", good_steps()), traj("task-01", reuse_steps(), variant=True)],
                              open_second=True)
    result = judge_runs(store, SuiteResolver(store))
    assert result.open_runs == 1
    assert l4_of(store, ids[1]) is None


def test_suites_without_bind_partner_are_judged_as_before(store) -> None:
    from judges.base import Suite, Verdict

    seen = []

    class Plain(Suite):
        name = "selfevo"

        def get_task(self, task_id, params=None):
            return task_id

        def task_data(self, task):
            return task

        def judge(self, task, state):
            seen.append(task)
            return Verdict.na("plain")

    ingest_trajectories(store, [traj("task-01", good_steps()), traj("task-01", reuse_steps(), variant=True)])
    judge_runs(store, SuiteResolver(store, overrides={"selfevo": Plain()}))
    assert seen == ["task-01", "task-01"]


def test_import_cli_accepts_a_tool_listed_without_its_step(tmp_path):
    first = traj("task-01", _steps(create=False))
    first["created_tools"] = [{"name": "fetch_youtube_transcript", "code": CODE}]
    f = tmp_path / "t.jsonl"
    f.write_text(json.dumps(first, ensure_ascii=False) + "\n", encoding="utf-8")
    store = tmp_path / "store"
    r = CliRunner().invoke(app, ["import", "selfevo", str(f), "--store", str(store)])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(app, ["judge", "--store", str(store)])
    assert r.exit_code == 0, r.output
