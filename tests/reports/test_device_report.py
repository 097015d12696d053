"""Human re-judging, reports (incl. --share), holdout discipline and the CLI, on real stores."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

import suites
from replay import replay
from trajectory.cli.main import app
from trajectory.demo import broken, samples
from trajectory.cli.override_cmds import OverrideRefused, record_override
from trajectory.judging import SuiteResolver, judge_runs, load_events
from trajectory.query.sql import holdout_views
from trajectory.store.delta import Store

CALC = "device-careful-00-calculator-multiply"
SLOPPY_CALC = "device-sloppy-00-calculator-multiply"


@pytest.fixture(scope="module")
def _recorded(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("device") / "store"
    store = Store(root)
    samples.record(store, "device")
    # Judged as the demo's first pass judges them: with the broken calculator regex.
    judge_runs(store, broken_resolver(store, tmp_path_factory.mktemp("broken")), command="test")
    return root


@pytest.fixture
def store(_recorded, tmp_path) -> Store:
    root = tmp_path / "store"
    shutil.copytree(_recorded, root)
    return Store(root)


def run(*args: str):
    return CliRunner().invoke(app, list(args))


def broken_resolver(store: Store, tmp_path: Path) -> SuiteResolver:
    copy = tmp_path / "broken"
    shutil.copytree(suites.builtin_folder("device"), copy, ignore=shutil.ignore_patterns("__pycache__"))
    broken.device(copy)
    return SuiteResolver(store, overrides={"device": suites.load_folder(copy)})


def report(store: Store, tmp_path: Path, *extra: str, batch: str = "careful-0405") -> dict[str, str]:
    out = tmp_path / f"rep-{len(list(tmp_path.iterdir()))}"
    r = run("report", "--batch", batch, "--out", str(out), "--store", str(store.loc), *extra)
    assert r.exit_code == 0, r.output
    return {p.name: p.read_text(encoding="utf-8") for p in out.iterdir()}


# -- the demo's fix -----------------------------------------------------------------------------------


def test_fix_flips_the_56088_runs(store, tmp_path):
    before = {r.run_id: r.outcome for r in judge_runs(store, broken_resolver(store, tmp_path)).rows}
    after = {r.run_id: r.outcome for r in judge_runs(store, SuiteResolver(store)).rows}
    flipped = sorted(k for k in before if before[k] != after[k])
    assert flipped == [CALC, "device-careful-01-calculator-multiply"]
    assert all(before[k] == "fail" and after[k] == "pass" for k in flipped)


def test_sample_runs_cover_every_verdict(store):
    rows = judge_runs(store, SuiteResolver(store), dry_run=True)
    assert set(rows.counts) == {"pass", "fail", "error", "skipped", "na"}
    assert rows.open_runs == 1


# -- overrides ---------------------------------------------------------------------------------------


def _overrides(store: Store) -> list[dict]:
    return store.read("overrides").to_pylist() if store.has_table("overrides") else []


def test_override_refused_without_verbatim_evidence(store):
    r = run("override", SLOPPY_CALC, "--to", "pass", "--evidence", "五万六千零八十八", "--by", "ann",
            "--store", str(store.loc))
    assert r.exit_code == 1 and "does not appear verbatim" in r.output
    # Normalised or partial-looking text is not verbatim either.
    with pytest.raises(OverrideRefused):
        record_override(store, SLOPPY_CALC, "pass", "123 × 456", "ann")
    with pytest.raises(OverrideRefused):
        record_override(store, SLOPPY_CALC, "pass", "   ", "ann")
    with pytest.raises(OverrideRefused):
        record_override(store, SLOPPY_CALC, "maybe", "56088", "ann")
    with pytest.raises(OverrideRefused, match="open"):
        record_override(store, "device-sloppy-11-screen-timeout", "fail", "x", "ann")
    assert _overrides(store) == []


def test_override_accepts_screen_or_answer_text(store):
    r = run("override", SLOPPY_CALC, "--to", "pass", "--evidence", "123×456\n56088", "--category", "perception",
            "--by", "ann", "--store", str(store.loc))
    assert r.exit_code == 0, r.output
    assert "fail → pass [perception] by ann" in r.output
    record_override(store, CALC, "pass", "56,088", "bob")  # from the final answer
    rows = sorted(_overrides(store), key=lambda o: o["at"])
    assert [(o["run_id"], o["auto_outcome"], o["to_outcome"], o["by"]) for o in rows] == [
        (SLOPPY_CALC, "fail", "pass", "ann"), (CALC, "fail", "pass", "bob")]
    assert all(o["auto_pass_id"] for o in rows)


def test_override_survives_rejudge_and_is_settled_when_rule_agrees(store, tmp_path):
    record_override(store, CALC, "pass", "56,088", "ann", category="route")
    record_override(store, SLOPPY_CALC, "pass", "56088", "ann")
    judge_runs(store, broken_resolver(store, tmp_path))  # the same rule again: the override stands, unsettled
    summary = report(store, tmp_path)["summary.md"]
    line = next(x for x in summary.splitlines() if x.startswith("- calculator-multiply"))
    assert "fail → pass [route]" in line and "“56,088”" in line and "settled" not in line
    assert "fail → pass (human)" in summary
    judge_runs(store, SuiteResolver(store))  # the bundled rule (the fix) now agrees
    files = report(store, tmp_path)
    line = next(x for x in files["summary.md"].splitlines() if x.startswith("- calculator-multiply"))
    assert line.endswith("settled")
    scores = [json.loads(x) for x in files["scores.jsonl"].splitlines()]
    calc = next(s for s in scores if s["run_id"] == CALC)
    assert calc["verdict"] == "pass" and calc["override"]["settled"] is True
    # The sloppy run still fails automatically: its override is not settled.
    sloppy = report(store, tmp_path, batch="sloppy-0405")["summary.md"]
    line = next(x for x in sloppy.splitlines() if x.startswith("- calculator-multiply"))
    assert "settled" not in line


# -- reports -----------------------------------------------------------------------------------------


def test_report_files_and_sections(store, tmp_path):
    files = report(store, tmp_path, "--price-in", "2", "--price-out", "8", "--price-cached", "0.5")
    assert set(files) == {"summary.md", "scores.jsonl", "metrics.json"}
    s = files["summary.md"]
    for heading in ("## Results by category", "## Run summary", "## Tasks", "## Human re-judging",
                    "## Markers left on devices"):
        assert heading in s
    assert "holdout viewed 0 times" in s.splitlines()
    assert "time to first feedback" in s and "screen reading" in s and "token cost" in s
    assert "| read |" in s and "`备忘-careful-0405` (note-create on R5CT40XYZ1)" in s
    scores = [json.loads(x) for x in files["scores.jsonl"].splitlines()]
    assert len(scores) == 12  # the batch's tune runs; weread-book-rating is holdout
    assert all(x["split"] == "tune" for x in scores)
    calc = next(x for x in scores if x["run_id"] == CALC)
    assert calc["answer"] == "123×456 = 56,088" and calc["metrics"]["cost"] > 0
    metrics = json.loads(files["metrics.json"])
    assert {m["run_id"] for m in metrics["runs"]} == {x["run_id"] for x in scores}


def test_report_shows_budget_overruns(store, tmp_path):
    s = report(store, tmp_path, batch="sloppy-0405")["summary.md"]
    line = next(x for x in s.splitlines() if x.startswith("| storage-free"))
    assert "| pass |" in line and "24/20 over" in line
    assert "1 run of this batch not judged" in s


SERIALS = ("R5CT40XYZ1", "8f3a21c0")


def _answers_and_images(store: Store, batch: str) -> tuple[list[str], list[str]]:
    from trajectory.query.sql import Views

    with Views(store, split=None) as v:
        ids = [r[0] for r in v.con.execute("SELECT DISTINCT run_id FROM events WHERE batch = ?", [batch]).fetchall()]
    states = [replay(e) for e in load_events(store, ids).values()]
    return [s.answer for s in states if s.answer], [sc.image for s in states for sc in s.screens if sc.image]


@pytest.mark.parametrize("batch", ["careful-0405", "sloppy-0405"])
def test_share_leaves_out_answers_images_serials_and_paths(store, tmp_path, batch):
    record_override(store, CALC, "pass", "56,088", "ann")  # evidence quoted from an answer
    answers, images = _answers_and_images(store, batch)
    plain = "\n".join(report(store, tmp_path, batch=batch).values())
    assert any(a in plain for a in answers) and any(s in plain for s in SERIALS)  # the scan can fail
    shared = "\n".join(report(store, tmp_path, "--share", batch=batch).values())
    for a in answers:
        assert a not in shared, a
    for img in images + [".png"]:
        assert img not in shared
    for serial in SERIALS:
        assert serial not in shared
    assert not re.search(r"(?<![\w.:/])/(?:home|tmp|root|Users|sdcard|storage|data|var|mnt)/", shared)
    assert str(tmp_path) not in shared and str(store.loc) not in shared


def test_scrubber_masks_absolute_paths():
    from trajectory.reports.report import Scrubber

    scrub = Scrubber([], True)
    assert scrub("日志 /home/ann/eval/run.jsonl 和 C:\\Users\\ann\\x.txt") == "日志 [path] 和 [path]"
    assert scrub("https://example.com/a/b") == "https://example.com/a/b"


# -- holdout -------------------------------------------------------------------------------------------


def test_holdout_report_is_recorded_and_listed(store, tmp_path):
    files = report(store, tmp_path, "--split", "holdout")
    scores = [json.loads(x) for x in files["scores.jsonl"].splitlines()]
    assert [x["task"] for x in scores] == ["weread-book-rating"]
    assert any(x.startswith("holdout viewed 1 time since ") for x in files["summary.md"].splitlines())
    assert run("runs", "--split", "holdout", "--store", str(store.loc)).exit_code == 0
    s = report(store, tmp_path)["summary.md"]
    assert any(x.startswith("holdout viewed 2 times since ") for x in s.splitlines())
    assert "by tester: report (batch=careful-0405)" in s
    assert len(holdout_views(store)) == 2
    # A tune report is not a look at the holdout pool.
    report(store, tmp_path)
    assert len(holdout_views(store)) == 2


def test_report_errors_are_one_line(store, tmp_path):
    r = run("report", "--batch", "nope", "--out", str(tmp_path / "o"), "--store", str(store.loc))
    assert r.exit_code == 1 and "no batch 'nope' in the store (--batch)" in r.output
    assert "careful-0405" in r.output  # the names it has
    r = run("report", "--store", str(store.loc))
    assert r.exit_code == 1 and "--batch" in r.output
    r = run("report", "--batch", "careful-0405", "--split", "all", "--store", str(store.loc))
    assert r.exit_code == 1 and "--split" in r.output


def test_report_suite_renders_the_suites_own_report(store, tmp_path):
    pkg = tmp_path / "mine"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(
        "from suites.example import ExampleSuite\n"
        "class Mine(ExampleSuite):\n"
        "    report_formats = ('md', 'csv')\n"
        "    def render_report(self, rows, fmt):\n"
        "        return f'table of {len(rows)} verdicts as {fmt}'\n"
        "def load(path=None):\n"
        "    return Mine()\n"
    )
    assert run("suite", "add", "mine", str(pkg), "--store", str(store.loc)).exit_code == 0
    # A suite with no runs in the store is a name that matches nothing: said, not an empty table.
    r = run("report", "--suite", "mine", "--format", "csv", "--store", str(store.loc))
    assert r.exit_code == 1 and "no suite 'mine' in the store (--suite)" in r.output, r.output
    from cli.cli_support import finished, ingest_lines

    ingest_lines(store.loc, finished("m1", "mine", "t"))
    r = run("report", "--suite", "mine", "--format", "csv", "--store", str(store.loc))
    assert r.exit_code == 0 and r.output.strip() == "table of 0 verdicts as csv", r.output
    r = run("report", "--suite", "mine", "--format", "xml", "--store", str(store.loc))
    assert r.exit_code == 1 and "unknown report format" in r.output
    r = run("report", "--suite", "device", "--store", str(store.loc))
    assert r.exit_code == 1 and "no report of its own" in r.output


def test_registered_team_folder_judges_runs_routed_to_its_name(tmp_path):
    from device_helpers import write_task

    from trajectory.ingest.recorder import Recorder

    root = tmp_path / "team-tasks"
    write_task(root, "read", {"id": "calc", "goal": "算 2×3", "category": "read", "expect": "succeeded",
                              "partition": "tune", "apps": ["{app:calculator}"],
                              "checks": [{"type": "answer_contains", "value": 6}]})
    (root / "suite.json").write_text('{"minCounts": {}}')
    store = Store(tmp_path / "store")
    for i, answer in enumerate(["等于 6", "等于 5"]):
        with Recorder(store, run_id=f"team-{i}", suite="team", task="calc", batch="wk1") as rec:
            rec.screen("2×3=6", app="com.miui.calculator")
            rec.answer(answer)
            rec.finish("succeeded")
    assert run("suite", "add", "team", str(root), "--store", str(store.loc)).exit_code == 0
    r = run("judge", "--store", str(store.loc))
    assert r.exit_code == 0 and "(1 pass, 1 fail)" in r.output, r.output
    scores = [json.loads(x) for x in report(store, tmp_path, batch="wk1")["scores.jsonl"].splitlines()]
    assert [(s["run_id"], s["verdict"]) for s in scores] == [("team-0", "pass"), ("team-1", "fail")]
