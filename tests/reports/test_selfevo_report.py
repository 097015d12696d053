"""The reference agent's sample runs reproduce the seed's offline table; the report's formats;
the demo's rule fix flips the run it is about and nothing else."""

from __future__ import annotations

import json
import re
import shutil

import pytest
from selfevo_helpers import SUITE, write_samples
from typer.testing import CliRunner

import suites as suite_pkg
from suites.selfevo.report import COLUMNS, render
from trajectory.demo import broken, broken_suites
from trajectory.cli.import_selfevo import import_selfevo
from trajectory.cli.main import app
from trajectory.errors import QueryError
from trajectory.judging import SuiteResolver, compare, judge_runs, pass_rows
from trajectory.reports.report import suite_report
from trajectory.store.delta import Store


def cli_report(store: Store, fmt: str) -> str:
    return suite_report(store, "selfevo", fmt)

runner = CliRunner()

# (task, profile, L1, L2, L4, overall) for the seed's `demo.py --all --offline --profile both`
# (L3 n/a). The README publishes strong task-10/19 and weak task-01/03/10; the other rows were
# computed by running the seed's harness and agent offline.
SEED_TABLE = [
    ("task-01", "strong", 1.0, 1.0, 1.0, 1.0),
    ("task-02", "strong", 1.0, 1.0, 1.0, 1.0),
    ("task-03", "strong", 1.0, 1.0, 1.0, 1.0),
    ("task-04", "strong", 1.0, 1.0, 1.0, 1.0),
    ("task-05", "strong", 1.0, 1.0, 1.0, 1.0),
    ("task-06", "strong", 1.0, 1.0, 1.0, 1.0),
    ("task-07", "strong", 1.0, 1.0, 1.0, 1.0),
    ("task-08", "strong", 1.0, 1.0, 1.0, 1.0),
    ("task-09", "strong", 1.0, 1.0, 1.0, 1.0),
    ("task-10", "strong", 1.0, 0.75, 1.0, 0.917),
    ("task-11", "strong", 1.0, 1.0, 1.0, 1.0),
    ("task-12", "strong", 1.0, 1.0, 1.0, 1.0),
    ("task-13", "strong", 1.0, 1.0, 1.0, 1.0),
    ("task-14", "strong", 1.0, 1.0, 1.0, 1.0),
    ("task-15", "strong", 1.0, 1.0, 1.0, 1.0),
    ("task-16", "strong", 1.0, 1.0, 1.0, 1.0),
    ("task-17", "strong", 1.0, 1.0, 1.0, 1.0),
    ("task-18", "strong", 1.0, 1.0, 1.0, 1.0),
    ("task-19", "strong", 1.0, 0.75, 1.0, 0.917),
    ("task-20", "strong", 1.0, 1.0, 1.0, 1.0),
    ("task-01", "weak", 1.0, 0.0, 0.0, 0.467),
    ("task-02", "weak", 1.0, 0.0, 0.0, 0.467),
    ("task-03", "weak", 1.0, 0.25, 0.0, 0.55),
    ("task-04", "weak", 1.0, 0.0, 0.0, 0.467),
    ("task-05", "weak", 1.0, 0.0, 0.0, 0.467),
    ("task-06", "weak", 1.0, 0.0, 0.0, 0.467),
    ("task-07", "weak", 1.0, 0.0, 0.0, 0.467),
    ("task-08", "weak", 1.0, 0.0, 0.0, 0.467),
    ("task-09", "weak", 1.0, 0.25, 0.0, 0.55),
    ("task-10", "weak", 1.0, 0.4, 0.0, 0.6),
    ("task-11", "weak", 1.0, 0.4, 0.0, 0.6),
    ("task-12", "weak", 1.0, 0.25, 0.0, 0.55),
    ("task-13", "weak", 1.0, 0.0, 0.0, 0.467),
    ("task-14", "weak", 1.0, 0.0, 0.0, 0.467),
    ("task-15", "weak", 1.0, 0.0, 0.0, 0.467),
    ("task-16", "weak", 1.0, 0.0, 0.0, 0.467),
    ("task-17", "weak", 1.0, 0.25, 0.0, 0.55),
    ("task-18", "weak", 1.0, 0.25, 0.0, 0.55),
    ("task-19", "weak", 1.0, 0.4, 0.0, 0.6),
    ("task-20", "weak", 1.0, 0.0, 0.0, 0.467),
]

PUBLISHED = {
    ("task-10", "strong"): (1.0, 0.75, None, 1.0, 0.917),
    ("task-19", "strong"): (1.0, 0.75, None, 1.0, 0.917),
    ("task-01", "weak"): (1.0, 0.0, None, 0.0, 0.467),
    ("task-03", "weak"): (1.0, 0.25, None, 0.0, 0.55),
    ("task-10", "weak"): (1.0, 0.4, None, 0.0, 0.6),
}


@pytest.fixture(scope="module")
def judged(tmp_path_factory) -> Store:
    """The sample trajectories imported (one batch) and judged once."""
    tmp = tmp_path_factory.mktemp("selfevo")
    f = write_samples(tmp / "samples.jsonl")
    store = Store(tmp / "store")
    report = import_selfevo(store, f.read_bytes(), str(f), batch="selfevo-demo")
    assert report.runs == 83
    judge_runs(store, SuiteResolver(store))
    return store


def rows_by_key(rows: list[dict]) -> dict[tuple[str, str], tuple]:
    return {(r["task"], r["profile"]): tuple(r[k] for k in ("L1", "L2", "L3", "L4", "overall")) for r in rows}


def check_seed_table(rows: list[dict]) -> None:
    got = rows_by_key(rows)
    for task, profile, l1, l2, l4, overall in SEED_TABLE:
        assert got[(task, profile)] == (l1, l2, None, l4, overall), (task, profile)
    for key, expected in PUBLISHED.items():
        assert got[key] == expected
    strong = [v for (t, p), v in got.items() if p == "strong"]
    assert len(strong) == 20
    assert all(v == (1.0, 1.0, None, 1.0, 1.0) for (t, p), v in got.items() if p == "strong" and t not in ("task-10", "task-19"))


def test_sample_runs_reproduce_the_seed_offline_table(judged) -> None:
    rows = json.loads(cli_report(judged, "json"))
    check_seed_table(rows)
    assert len(rows) == 42  # 20 strong + 20 weak + 2 hasty first attempts
    assert all(list(r) == list(COLUMNS) for r in rows)
    hasty = rows_by_key(rows)
    # psaw is a pitfall of task-05 (the demo's broken copy misses it: 0.6 and 0.867 there).
    assert hasty[("task-05", "hasty")] == (1.0, 0.35, None, 1.0, 0.783)
    assert hasty[("task-17", "hasty")] == (1.0, 1.0, None, None, 1.0)  # no second attempt


def test_report_formats(judged) -> None:
    md = cli_report(judged, "md").splitlines()
    assert md[0] == "| task | domain | profile | L1 | L2 | L3 | L4 | overall |"
    assert md[1] == "|---|---|---|---|---|---|---|---|"
    assert "| task-10 | 文档处理 | strong | 1.000 | 0.750 | n/a | 1.000 | 0.917 |" in md
    assert len(md) == 44
    csv = cli_report(judged, "csv").splitlines()
    assert csv[0] == "task,domain,profile,L1,L2,L3,L4,overall"
    assert "task-03,科学计算,weak,1.000,0.250,n/a,0.000,0.550" in csv
    table = cli_report(judged, "table")
    assert re.search(r"task-17 +地理空间计算 +hasty +1\.000 +1\.000 +n/a +n/a +1\.000", table)
    with pytest.raises(QueryError, match="unknown report format"):
        cli_report(judged, "xml")
    assert render([], "md").count("\n") == 1
    assert render([], "json") == "[]"


def test_traj_report_suite_prints_the_table(judged) -> None:
    r = runner.invoke(app, ["report", "--suite", "selfevo", "--format", "json", "--store", str(judged.loc)])
    assert r.exit_code == 0, r.output
    check_seed_table(json.loads(r.output))


def test_demo_fix_flips_the_run_that_chose_an_unlisted_pitfall(judged, tmp_path) -> None:
    copies, fixes = broken_suites(["selfevo"], tmp_path, out=lambda line: None)
    before = judge_runs(judged, SuiteResolver(judged, overrides=copies), suite="selfevo", command="before")
    after = judge_runs(judged, SuiteResolver(judged), suite="selfevo", command="after")
    assert "psaw" in fixes[0]
    a = {r["run_id"]: r for r in pass_rows(judged, before.pass_id)}
    b = {r["run_id"]: r for r in pass_rows(judged, after.pass_id)}
    diff = compare(a, b, "before", "after")
    assert [(f.task, f.before, f.after) for f in diff.flips] == [("task-05", "pass", "fail")]
    flip = diff.flips[0]
    assert "-hasty-" in flip.run_id
    changed = {c.name: (c.before["passed"], c.after["passed"]) for c in flip.changes}
    assert changed["L2 tool discovery"] == (True, False)
    l2 = lambda row: json.loads(row["details"] or "{}").get("layers", {}).get("L2")  # noqa: E731
    assert l2(a[flip.run_id])["score"] == 0.6 and l2(b[flip.run_id])["score"] == 0.35
    # Every other discovery score is unchanged: the strong and weak agents never chose psaw.
    assert [rid for rid in a if l2(a[rid]) != l2(b[rid])] == [flip.run_id]


def test_the_demo_breaks_only_its_copy_and_the_bundled_dataset_names_psaw(tmp_path) -> None:
    copy = tmp_path / "selfevo"
    shutil.copytree(suite_pkg.builtin_folder("selfevo"), copy, ignore=shutil.ignore_patterns("__pycache__"))
    assert "psaw" in broken.selfevo(copy)
    data = json.loads((copy / "dataset.json").read_text(encoding="utf-8"))
    for new, old in zip(data["tasks"], SUITE.data["tasks"]):
        if new["id"] == "task-05":
            assert new["known_pitfalls"]["deprecated_libraries"] == []
            assert [lib[:4] for lib in old["known_pitfalls"]["deprecated_libraries"]] == ["psaw"]
        else:
            assert new == old
    with pytest.raises(ValueError, match="psaw"):
        broken.selfevo(copy)  # already broken


def test_traj_demo_records_samples_through_the_recorder_and_shows_the_flip(tmp_path) -> None:
    sdir = str(tmp_path / "store")
    r = runner.invoke(app, ["demo", "--suite", "selfevo", "--store", sdir])
    assert r.exit_code == 0, r.output
    assert "ingested sample runs: 83 runs" in r.output
    assert "1 pass→fail" in r.output
    assert re.search(r"se-selfevo-demo-task-05-hasty-\w+-r1: pass → fail \(score 0\.867 → 0\.783\)", r.output)
    assert "check L2 tool discovery: passed → failed" in r.output
    # The demo's store now holds the fixed pass as current; the first pass is the seed's table.
    store = Store(sdir)
    from trajectory.judging import passes

    first = passes(store)[0]["pass_id"]
    rows = []
    for row in pass_rows(store, first):
        d = json.loads(row["details"]) if row["details"] else {}
        if d.get("round") == 1:
            rows.append({"task": d["task"], "profile": d["profile"],
                         **{k: d["layers"][k]["score"] for k in ("L1", "L2", "L3", "L4")}, "overall": d["overall"]})
    check_seed_table(rows)
