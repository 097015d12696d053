"""`traj import inspect`: Inspect AI logs (written offline by inspect-ai itself) become runs,
recorded verdicts and grader answers; re-importing adds nothing, a grown log adds what is new."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("inspect_ai")

from helpers import traj  # noqa: E402
from inspect_logs import (  # noqa: E402
    IMAGE,
    PNG,
    SAMPLES,
    build_log,
    build_sample,
    capitals_log,
    scored,
)
from inspect_ai._util.error import EvalError  # noqa: E402
from inspect_ai.log import EvalRetryError, condense_sample, read_eval_log, write_eval_log  # noqa: E402

from trajectory.judging import current_rows, passes, recorded_judgements  # noqa: E402
from trajectory.query.sql import Views  # noqa: E402
from trajectory.store.delta import Store  # noqa: E402
from trajectory.judging.trust import trusted_runs  # noqa: E402

RUN = "inspect:capitals:{sid}:{epoch}:u{minute:03d}{sidu}e{epoch}"


def run_id(index: int, epoch: int) -> str:
    sid = SAMPLES[index]["id"]
    return RUN.format(sid=sid, epoch=epoch, minute=index * 2 + epoch, sidu=str(sid).replace("-", ""))


@pytest.fixture(scope="module")
def logs(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("logs")
    capitals_log(folder)
    return folder


@pytest.fixture
def imported(logs, tmp_path) -> Path:
    store = tmp_path / "store"
    r = traj("import", "inspect", logs / "capitals.eval", "--store", store)
    assert r.exit_code == 0, r.output
    return store


def show(store: Path, run: str) -> dict[str, Any]:
    r = traj("show", run, "--json", "--store", store)
    assert r.exit_code == 0, r.output
    return json.loads(r.output)


def export(store: Path, run: str) -> list[dict[str, Any]]:
    r = traj("export", "events", "--run", run, "--store", store)
    assert r.exit_code == 0, r.output
    return [json.loads(line) for line in r.output.splitlines()]


def test_show_json_has_every_mapped_field(imported) -> None:
    v = show(imported, run_id(0, 1))  # France, epoch 1: a tool call, a store change
    assert (v["suite"], v["task"], v["batch"], v["mode"]) == ("capitals", "1", "R-2026-04-05", "text")
    assert v["agent"] == {"name": "openai/gpt-4o", "model": "openai/gpt-4o"}
    assert v["goal"] == "What is the capital of France?"
    p = v["params"]
    assert (p["eval_id"], p["sample_id"], p["epoch"], p["target"], p["uuid"]) == ("E-caps-1", 1, 1, "Paris", "u001" "1e1")
    assert p["input"] == "What is the capital of France?" and p["metadata"] == {"region": "other"}
    assert v["answer"] == "Paris"
    assert v["actions"] == ["model", "lookup", "model"]  # spans and notes are not steps (issue 23, item 3)
    # usage as the log reports it, the cache-read count as cached tokens
    assert v["tokens"] == {"input": 320, "output": 20, "cached": 100}
    assert v["outcome"] == "succeeded" and v["error"] is None
    assert v["metrics"]["model_usage"]["openai/gpt-4o"]["input_tokens"] == 320
    # store and state kept apart in the world state; the state is what the scorers saw
    assert v["state"]["store"] == {"lookups": 1, "last": "France"}
    messages = v["state"]["state"]["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "tool", "assistant"]
    assert v["state"]["state"]["output"]["completion"] == "Paris"
    assert v["initial_state"]["state"]["messages"][1]["content"] == "What is the capital of France?"


def test_events_keep_tool_results_usage_and_other_kinds(imported) -> None:
    events = export(imported, run_id(0, 1))
    kinds = [(e["kind"], e.get("action")) for e in events]
    assert kinds == [
        ("run_started", None), ("step_taken", "model"), ("step_taken", "lookup"), ("state_changed", None),
        ("step_taken", "model"), ("state_changed", None), ("answer_given", None), ("run_finished", None),
    ]
    first_model = events[1]
    assert first_model["usage"] == {"input_tokens": 120, "output_tokens": 15, "cached_tokens": 100}
    assert first_model["args"]["tool_calls"] == [{"id": "call-1-1", "function": "lookup", "arguments": {"country": "France"}}]
    assert first_model["timing"] == {"model_ms": 800.0}
    # the solver's span frames the steps; the info event rides on the first step
    assert first_model["spans"] == [{"id": "solver-1-1", "name": "react", "type": "solver"}]
    (info,) = first_model["extra"]["inspect"]["events"]
    assert (info["event"], info["source"], info["data"]) == ("info", "harness", {"attempt": 1, "note": "warm cache"})
    tool = events[2]
    assert tool["args"] == {"country": "France"} and tool["timing"] == {"act_ms": 250.0}
    assert tool["extra"]["inspect"]["result"] == "The capital of France is Paris."
    store_patch = events[3]["patch"]
    assert all(op["path"].startswith("/store/") for op in store_patch)
    assert all(op["path"].startswith("/state/") for op in events[5]["patch"])
    assert events[4]["thought"] == "Paris"
    # every timestamp is the log's own: re-importing cannot move it
    assert events[0]["ts"].startswith("2026-04-05T10:01:00")


def test_images_become_screen_reads_with_content_hashes_never_bytes(imported) -> None:
    import base64
    import hashlib

    ref = "sha256:" + hashlib.sha256(base64.b64decode(PNG)).hexdigest()
    events = export(imported, run_id(2, 1))  # Peru, epoch 1: the tool returns a map
    screens = [e for e in events if e["kind"] == "screen_read"]
    assert screens == [{**screens[0], "text": "The capital of Peru is Lima.", "image": ref}]
    assert PNG[:40] not in json.dumps(events)
    v = show(imported, run_id(2, 1))
    tool_message = v["state"]["state"]["messages"][3]
    assert tool_message["content"][1] == {"type": "image", "image": ref, "detail": "auto"}


def test_errors_and_unmapped_kinds(imported) -> None:
    v = show(imported, run_id(3, 1))  # Chad: the sandbox died
    assert v["outcome"] == "error" and v["error"] == "RuntimeError: sandbox container exited (137)"
    assert v["answer"] is None  # no output, no answer_given
    assert v["actions"] == []  # no model or tool call: the notes ride on run_finished
    events = export(imported, run_id(3, 1))
    notes = events[-1]["extra"]["inspect"]["events"]
    assert [n["event"] for n in notes] == ["info", "logger", "error"]
    assert notes[1]["message"]["message"] == "container restarting"


def test_scores_become_an_imported_pass(imported) -> None:
    (p,) = passes(Store(imported))
    assert p["kind"] == "imported" and json.loads(p["filters"])["importer"] == "inspect"
    rows = current_rows(Store(imported))
    outcomes = {r: rows[r]["outcome"] for r in rows}
    assert outcomes == {
        run_id(0, 1): "pass", run_id(0, 2): "pass", run_id(1, 1): "fail", run_id(1, 2): "pass",
        run_id(2, 1): "fail", run_id(2, 2): "fail", run_id(3, 1): "error", run_id(3, 2): "error",
    }
    peru = rows[run_id(2, 2)]
    checks = {c["name"]: c for c in peru["checks"]}
    assert list(checks) == ["match", "includes", "model_graded_qa", "exact_capital"]
    # actual is the answer the scorer read, the score letter is the reason's rule (issue 23, item 3)
    assert checks["exact_capital"]["passed"] is False and json.loads(checks["exact_capital"]["actual"]) == "Lima."
    assert json.loads(checks["match"]["expected"]) == "Lima"
    assert checks["exact_capital"]["reason"] == "I (incorrect); store=0"
    assert peru["score"] == pytest.approx(0.75)
    assert rows[run_id(3, 1)]["reason"] == "RuntimeError: sandbox container exited (137)"
    assert rows[run_id(0, 1)]["judge_version"] == "inspect_ai-0.3.test"


def test_grader_calls_are_recorded_judgements(imported) -> None:
    judgements = recorded_judgements(Store(imported))
    # one model_graded_qa call per sample and epoch; France and Chad asked the same in both epochs
    assert len(judgements) == 6 and len({j.key for j in judgements}) == 6
    assert {j.model for j in judgements} == {"mockllm/grader"}
    assert all(j.output["raw"].endswith(("GRADE: C", "GRADE: I")) for j in judgements)
    with Views(Store(imported), split=None) as views:
        # grader calls are not steps of the runs they graded
        n = views.con.execute("SELECT count(*) FROM events WHERE suite = 'capitals' AND action = 'model' "
                              "AND json_extract_string(data, '$.args.model') = 'mockllm/grader'").fetchone()[0]
    assert n == 0
    # the import vouched for the answers it wrote (an ingested judgement run does not count)
    trusted = trusted_runs(Store(imported))
    assert len(trusted) == 1 and next(iter(trusted)).startswith("judgements:")


def test_judgement_runs_exported_and_ingested_elsewhere_do_not_count(imported, tmp_path) -> None:
    out = tmp_path / "events.jsonl"
    assert traj("export", "events", "--store", imported, "--out", out).exit_code == 0
    other = tmp_path / "other"
    assert traj("ingest", out, "--store", other).exit_code == 0
    assert recorded_judgements(Store(other)) == ()


def test_reimport_adds_nothing(logs, imported) -> None:
    r = traj("import", "inspect", logs / "capitals.eval", "--store", imported, "--json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert out["sources"][0]["new_events"] == 0 and out["sources"][0]["known_runs"] == 8
    assert out["pass_id"] is None and out["unchanged_verdicts"] == 8
    assert len(passes(Store(imported))) == 1
    assert len(recorded_judgements(Store(imported))) == 6


def test_a_grown_log_adds_only_what_is_new(tmp_path) -> None:
    all_samples = [build_sample(s, e, minute=i * 2 + e) for i, s in enumerate(SAMPLES) for e in (1, 2)]
    first = tmp_path / "first"
    first.mkdir()
    # the eval was read while running: the first three samples only, status "started"
    capitals_log(first, samples=all_samples[:3], status="started")
    store = tmp_path / "store"
    assert traj("import", "inspect", first / "capitals.eval", "--store", store).exit_code == 0
    assert len(current_rows(Store(store))) == 3
    grown = tmp_path / "grown"
    grown.mkdir()
    capitals_log(grown, samples=all_samples)
    r = traj("import", "inspect", grown / "capitals.eval", "--store", store, "--json")
    out = json.loads(r.output)
    assert out["sources"][0]["known_runs"] == 3 and out["sources"][0]["new_runs"] == 5
    assert sum(out["verdicts"].values()) == 5 and out["unchanged_verdicts"] == 3
    assert len(current_rows(Store(store))) == 8
    assert len(recorded_judgements(Store(store))) == 6  # known answers are not recorded twice


def test_a_rescored_log_adds_a_pass_with_the_changed_verdicts_only(logs, imported, tmp_path) -> None:
    log = read_eval_log(str(logs / "capitals.eval"), resolve_attachments="full")
    for s in log.samples or []:
        s.scores = None
    rescored = scored(log, None, graded=False)  # match and includes only: exact_capital and the grader are gone
    write_eval_log(rescored, tmp_path / "rescored.eval")
    r = traj("import", "inspect", tmp_path / "rescored.eval", "--store", imported, "--json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert out["sources"][0]["new_events"] == 0  # the runs themselves did not change
    # Peru (both epochs) now passes: only match and includes score it
    # every verdict changed (two checks now, not four): France, Japan 2 and Peru pass, Kyoto fails
    assert out["verdicts"] == {"pass": 5, "fail": 1, "error": 2}
    rows = current_rows(Store(imported))
    assert rows[run_id(2, 2)]["outcome"] == "pass"
    assert [c["name"] for c in rows[run_id(2, 2)]["checks"]] == ["match", "includes"]
    d = traj("diff", "--store", imported)
    assert run_id(2, 2) in d.output and "fail → pass" in d.output


def test_retried_attempts_are_runs_of_their_own(tmp_path) -> None:
    sample = build_sample(SAMPLES[0], 1, minute=1)
    earlier = build_sample(SAMPLES[3], 1, minute=7).events
    sample.error_retries = [EvalRetryError(message="TimeoutError: model took too long", traceback="",
                                           traceback_ansi="", events=earlier)]
    capitals_log(tmp_path, samples=[sample], scorer=False, graded=False, epochs=1)
    store = tmp_path / "store"
    assert traj("import", "inspect", tmp_path / "capitals.eval", "--store", store).exit_code == 0
    rows = current_rows(Store(store))
    retry = f"{run_id(0, 1)}:retry1"
    assert rows[retry]["outcome"] == "error" and rows[retry]["reason"] == "TimeoutError: model took too long"
    assert rows[run_id(0, 1)]["outcome"] == "pass"
    assert show(store, retry)["error"] == "TimeoutError: model took too long"


def test_json_logs_folders_and_logs_without_state_events(tmp_path) -> None:
    samples = [build_sample(s, 1, minute=i, with_state=False, uuid=None) for i, s in enumerate(SAMPLES)]
    folder = tmp_path / "a"
    folder.mkdir()
    # in a folder, inspect-ai's listing takes .json logs named as Inspect names them
    capitals_log(folder, name="2026-04-05T10-00-00+00-00_capitals_E-json.json", samples=samples, epochs=1,
                 eval_id="E-json")
    (folder / "notes.json").write_text("{}")  # not a log: not listed
    store = tmp_path / "store"
    r = traj("import", "inspect", tmp_path / "a", "--store", store)
    assert r.exit_code == 0, r.output
    rows = current_rows(Store(store))
    assert len(rows) == 4
    rid = next(r for r in rows if ":1:1:" in r)
    events = export(store, rid)
    # no state events in this log: one last patch makes the state what the scorers saw
    final = [e for e in events if e.get("extra", {}).get("inspect", {}).get("event") == "final_state"]
    assert len(final) == 1
    assert show(store, rid)["state"]["state"]["output"]["completion"] == "Paris"
    # a log without sample uuids: run ids from the eval id, sample id and epoch, stable
    assert traj("import", "inspect", tmp_path / "a", "--store", store, "--json").exit_code == 0
    assert len(current_rows(Store(store))) == 4


def _rewrite_sample(src: Path, dst: Path, edit) -> None:  # noqa: ANN001
    """A copy of an .eval log with one sample's JSON edited (test input, built by hand on purpose)."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        done = False
        for item in zin.infolist():
            data = zin.read(item.filename)
            if item.filename.startswith("samples/") and not done:
                data = json.dumps(edit(json.loads(data))).encode()
                done = True
            zout.writestr(item.filename, data)


def test_bad_logs_name_file_and_sample_and_write_nothing_for_that_log(logs, tmp_path) -> None:
    good = logs / "capitals.eval"
    truncated = tmp_path / "truncated.eval"
    truncated.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    garbage = tmp_path / "garbage.json"
    garbage.write_text('{"version": 2, "eval": {"task": ')
    unknown_kind = tmp_path / "newer.eval"

    def add_event(sample: dict[str, Any]) -> dict[str, Any]:
        sample["events"].insert(1, {"event": "telepathy", "timestamp": "2026-04-05T10:00:00+00:00", "working_start": 0})
        return sample

    _rewrite_sample(good, unknown_kind, add_event)
    store = tmp_path / "store"
    r = traj("import", "inspect", truncated, garbage, unknown_kind, good, "--store", store)
    assert r.exit_code == 1
    errors = [line for line in r.output.splitlines() if line.startswith("error:")]
    assert len(errors) == 3
    assert errors[0].startswith(f"error: {truncated}: not a zip archive (an .eval log is one)")
    assert errors[1].startswith(f"error: {garbage}:1: not JSON")
    assert errors[2].startswith(f"error: {unknown_kind}: sample ") and "telepathy" in errors[2]
    assert "upgrade it" in errors[2]
    # the good log went in; nothing of the bad ones did
    with Views(Store(store), split=None) as views:
        n_runs = views.con.execute("SELECT count(*) FROM runs WHERE suite = 'capitals'").fetchone()[0]
    assert n_runs == 8


def test_a_run_id_too_odd_for_the_store_is_made_safe(tmp_path) -> None:
    spec = {**SAMPLES[1], "id": "géo capitals #2 " + "x" * 200}
    capitals_log(tmp_path, samples=[build_sample(spec, 1, minute=3, uuid="a b/c")], scorer=False, graded=False, epochs=1)
    store = tmp_path / "store"
    r = traj("import", "inspect", tmp_path / "capitals.eval", "--store", store)
    assert r.exit_code == 0, r.output
    (rid,) = current_rows(Store(store))
    assert len(rid) <= 128 and " " not in rid and "/" not in rid
    assert show(store, rid)["task"] == spec["id"]


def test_condensed_logs_resolve_attachments(tmp_path) -> None:
    sample = build_sample(SAMPLES[2], 1, minute=5)
    log = build_log([sample], epochs=1)
    log.samples = [condense_sample(s) for s in log.samples or []]
    assert any(v.startswith("data:image") for v in (log.samples[0].attachments or {}).values())
    write_eval_log(log, tmp_path / "c.eval")
    store = tmp_path / "store"
    assert traj("import", "inspect", tmp_path / "c.eval", "--store", store).exit_code == 0
    rid = run_id(2, 1)
    text = json.dumps(export(store, rid))
    assert "attachment://" not in text and IMAGE[:60] not in text
    assert "The capital of Peru is Lima." in text


def test_inspect_extra_missing_is_one_line(monkeypatch, tmp_path) -> None:
    import builtins

    real = builtins.__import__

    def no_inspect(name, *a, **k):  # noqa: ANN001, ANN202
        if name.startswith("inspect_ai"):
            raise ImportError(name)
        return real(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", no_inspect)
    r = traj("import", "inspect", tmp_path, "--store", tmp_path / "s")
    assert r.exit_code == 1
    assert r.output.strip() == "error: reading Inspect logs needs inspect-ai: pip install 'traj[inspect]'"
    shutil.rmtree(tmp_path / "s", ignore_errors=True)


def test_a_sample_the_event_format_refuses_names_the_sample_and_field(tmp_path) -> None:
    sample = build_sample(SAMPLES[0], 1, minute=1)
    model_event = next(e for e in sample.events if e.event == "model")
    model_event.output.usage.input_tokens = -5  # a provider bug: the format counts tokens from 0
    capitals_log(tmp_path, samples=[sample], scorer=False, graded=False, epochs=1)
    store = tmp_path / "store"
    r = traj("import", "inspect", tmp_path / "capitals.eval", "--store", store)
    assert r.exit_code == 1
    line = r.output.strip().splitlines()[-1]
    assert line.startswith(f"error: {tmp_path / 'capitals.eval'}: sample 1 epoch 1: $.usage.input_tokens: ")
    assert not Store(store).has_table("events")
