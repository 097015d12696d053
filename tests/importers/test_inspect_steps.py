"""Issue 23, item 3: imported runs say what happened. On logs written by ``inspect_ai.eval``
itself (Inspect's mock model, offline): steps are the model and tool calls, spans are structure
on the steps they frame, empty tool arguments stay {}, a check's actual is the answer and its
reason does not repeat it, times never run backwards, and ``traj view`` shows the AnswerSheet
and screen panels only for runs that have them."""

from __future__ import annotations

import json
import urllib.parse
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai")

from helpers import jsonl, line, traj  # noqa: E402
from inspect_eval import write_logs  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from trajectory.ingest.files import ingest_bytes  # noqa: E402
from trajectory.store.delta import Store  # noqa: E402
from trajectory.view.app import create_app  # noqa: E402
from trajectory.view.data import StoreData  # noqa: E402


@pytest.fixture(scope="module")
def imported(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("inspect")
    logs = write_logs(tmp / "logs")
    store = tmp / "store"
    r = traj("import", "inspect", logs, "--store", store)
    assert r.exit_code == 0, r.output
    return store


def runs(store: Path) -> dict[str, list[dict]]:
    r = traj("export", "events", "--store", store)
    out: dict[str, list[dict]] = {}
    for e in (json.loads(x) for x in r.output.splitlines() if x.strip()):
        if e["run_id"].startswith("inspect:"):
            out.setdefault(e["run_id"].split(":")[1], []).append(e)
    return out


def steps(events: list[dict]) -> list[dict]:
    return [e for e in events if e["kind"] == "step_taken"]


def test_steps_are_model_and_tool_calls(imported) -> None:
    by_task = runs(imported)
    assert [e["action"] for e in steps(by_task["qa"])] == ["model"]
    assert [e["action"] for e in steps(by_task["agent"])] == ["model", "lookup", "model", "clock", "model"]
    # spans are structure: the solver spans around each step, outermost first
    for e in steps(by_task["qa"]) + steps(by_task["agent"]):
        names = [s["name"] for s in e["spans"]]
        assert names[:1] == ["solvers"] and "generate" in names, names
        assert all(s["id"] for s in e["spans"])
    assert not any(str(e.get("action", "")).startswith("inspect.") for ev in by_task.values() for e in ev)


def test_empty_tool_arguments_stay_an_empty_object(imported) -> None:
    clock = next(e for e in steps(runs(imported)["agent"]) if e["action"] == "clock")
    assert clock["args"] == {}
    lookup = next(e for e in steps(runs(imported)["agent"]) if e["action"] == "lookup")
    assert lookup["args"] == {"country": "Peru"}


def test_times_never_run_backwards(imported) -> None:
    for events in runs(imported).values():
        times = [e["ts"] for e in events]
        assert times == sorted(times)


def test_a_checks_actual_is_the_answer_and_the_reason_does_not_repeat_it(imported) -> None:
    r = traj("query", "SELECT task, checks FROM verdicts WHERE suite IN ('qa', 'agent')", "--store", imported,
             "--format", "json")
    rows = {row["task"]: row["checks"] for row in json.loads(r.output)}
    checks = {c["name"]: c for c in rows["qa"]}
    assert json.loads(checks["match"]["actual"]) == "Paris" and checks["match"]["reason"] == "C (correct)"
    assert json.loads(checks["includes"]["actual"]).lower() == "paris"
    assert checks["includes"]["reason"] == "C (correct)"  # the explanation only repeated the answer
    agent = {c["name"]: c for c in rows["agent"]}
    assert json.loads(agent["includes"]["actual"]).lower().startswith("lima")
    for c in [*rows["qa"], *rows["agent"]]:
        assert json.loads(c["actual"]) not in ("C", "I")


def test_the_viewer_shows_sheet_and_screen_panels_only_for_runs_that_have_them(imported, tmp_path) -> None:
    store = Store(imported)
    ingest_bytes(store, jsonl([
        line("grounded-1", 0, "run_started", suite="example", task="current_temp", params={"city": "x"}),
        line("grounded-1", 1, "screen_read", text="20°"),
        line("grounded-1", 2, "sheet_changed", op="set", field=0, value="20"),
        line("grounded-1", 3, "run_finished", outcome="succeeded"),
    ]), "grounded.jsonl")
    qa = next(e["run_id"] for e in runs(imported)["qa"])
    with TestClient(create_app(StoreData(str(store.loc)))) as c:
        text_run = c.get(f"/runs/{urllib.parse.quote(qa, safe='')}").text
        assert "<h3>AnswerSheet</h3>" not in text_run and "Screen the agent saw" not in text_run
        assert "What changed" in text_run
        grounded = c.get("/runs/grounded-1").text
        assert "<h3>AnswerSheet</h3>" in grounded and "Screen the agent saw" in grounded


def test_the_readme_says_the_mock_model_downloads_a_tokenizer_and_how_to_run_offline() -> None:
    """Issue 23, item 12: the log above was written offline because every custom output has its
    usage; the README tells a new user so."""
    text = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    section = text.split("### Inspect AI eval logs", 1)[1].split("### ", 1)[0]
    assert "mockllm" in section and "tiktoken" in section and "o200k_base" in section
    assert "ModelUsage(" in section and "offline" in section
