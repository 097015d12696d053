"""The benchmark machinery at a tiny size: every figure and baseline is there and sane, and the
batch re-judge, the per-run baseline and every worker count agree. No speed is asserted."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from benchmarks import corpus, harness, report, verify
from benchmarks.__main__ import main
from trajectory import events as ev


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict:
    out = tmp_path_factory.mktemp("bench") / "results.json"
    # The inspect baseline on a handful of runs (its start-up is seconds); a small device corpus.
    assert main(["--runs", "60", "--workers", "2", "--partition", "20", "--no-profile",
                 "--inspect-samples", "6", "--device-runs", "30", "--out", str(out)]) == 0
    return json.loads(out.read_text())


def test_every_figure_and_baseline_is_reported(results: dict) -> None:
    for key in ("machine", "config", "corpus", "ingest", "rejudge", "incremental", "floors", "device_corpus",
                "memory", "query", "baselines", "targets", "verify", "load_at_start", "load_at_end"):
        assert key in results, key
    m = results["machine"]
    assert m["cores"] >= 1 and m["python"] and m["packages"]["duckdb"] and m["packages"]["pyarrow"]
    assert results["corpus"]["runs"] == 60
    ing = results["ingest"]
    assert ing["events"] == results["corpus"]["events"] > 60 * 90
    assert ing["events_per_s"] > 0 and ing["workers"] == 2
    assert ing["floor"]["events"] == results["corpus"]["events"] and ing["floor"]["threads"] == 2
    mem = ing["memory"]
    assert mem["footprint"]["status"] == "ok" and mem["sizes"]
    for size in mem["sizes"]:
        assert size["status"] == "ok" and size["peak_tree_mb"] > 0 and size["events"] > 0
    rj = results["rejudge"]
    assert rj["runs"] == 60
    for key in ("staged", "workers_1", "workers_2"):
        assert rj[key]["runs"] == 60 and rj[key]["seconds"] > 0
        assert rj[key]["peak_rss"]["self_mb"] > 0
    assert set(rj["staged"]["stages"]) == {"select_s", "load_replay_s", "judge_s", "write_s", "other_s"}
    assert sum(rj["staged"]["stages"].values()) <= rj["staged"]["seconds"] * 1.01
    inc = results["incremental"]
    assert inc["nothing_changed"]["judged"] == 0 and inc["nothing_changed"]["up_to_date"] == 60
    one = inc["one_task"]
    assert one["judged"] == one["runs_of_task"] > 0 and one["judged_exactly_its_runs"] is True
    assert one["same_verdicts_as_full_pass"] is True and one["up_to_date"] == 60 - one["judged"]
    for key in ("judge_2", "judge_1"):
        assert results["floors"][key]["runs"] == 60 and results["floors"][key]["median_s"] > 0
    dc = results["device_corpus"]
    assert dc["runs"] == 30 and dc["rejudge"]["runs"] == 30 and dc["floor"]["runs"] == 30
    assert set(results["query"]) >= set(harness.QUERIES) | {"open_views_s"}
    for name in harness.QUERIES:
        assert results["query"][name]["median_s"] > 0
    # The flips query sees the passes the benchmark wrote: all judged the same, so no flips.
    assert results["query"]["flips_between_latest_passes"]["rows"] == 0
    assert results["query"]["pass_rate_by_suite_task"]["rows"] > 3
    view = results["view"]
    assert view["status"] == "ok" and view["all_ok"] and view["startup_s"] > 0
    assert {"overview (html)", "runs (json)", "run_at_step (html)", "diff (json)", "query (html)"} <= set(view["pages"])
    b = results["baselines"]
    assert b["per_run"]["runs"] == 60
    assert b["inspect"]["status"].startswith(("ok", "skipped", "failed"))
    mem = results["memory"]
    assert mem["small_runs"] == 15 and mem["large_runs"] == 60
    assert mem["workers_1"]["large_mb"] > 0
    names = [t["target"] for t in results["targets"]]
    assert any(n.startswith("ingest") for n in names) and any(n.startswith("full re-judge") for n in names)
    assert any(n.startswith("incremental") for n in names)
    assert all(t["status"] in ("PASS", "MISS", "n/a") for t in results["targets"])


def test_batch_replay_per_run_inspect_and_workers_agree(results: dict) -> None:
    rj = results["rejudge"]
    assert rj["same_verdicts_any_workers"] is True
    assert results["baselines"]["per_run"]["same_verdicts_as_batch"] is True
    assert rj["workers_1"]["outcomes"] == rj["workers_2"]["outcomes"] == rj["staged"]["outcomes"]
    assert results["verify"]["mismatches"] == 0
    insp = results["baselines"]["inspect"]
    if insp["status"] == "ok":
        assert insp["samples"] == 6 and insp["same_verdicts_as_traj"] is True


def test_the_report_and_the_comparison_print(results: dict, tmp_path) -> None:
    text = report.render(results)
    assert "incremental re-judge" in text and "full re-judge" in text and "load averages" in text
    path = tmp_path / "old.json"
    worse = json.loads(json.dumps(results))
    worse["ingest"]["events_per_s"] = results["ingest"]["events_per_s"] * 2  # the new run is 50% slower
    path.write_text(json.dumps(worse))
    cmp = report.compare(report.load(path), results)
    assert "ingest.events_per_s" in cmp and "WORSE" in cmp.split("ingest.events_per_s")[1].splitlines()[0]


def test_corpus_covers_the_three_suites_with_pairs() -> None:
    planned = corpus.plan(90)
    families = Counter(corpus._RUNS[p.template][0]["suite"] for p in planned)
    assert families["device"] and families["selfevo"] and (families["weather"] + families["clock"])
    # Suites share the corpus about equally (gui's runs are of suites weather and clock).
    assert abs(families["selfevo"] - families["device"]) <= 2
    pairs = Counter(p.pair_id for p in planned if p.pair_id)
    assert pairs and set(pairs.values()) == {2}
    lines = list(corpus.generate(90, 40))
    decoded = [ev.decode(line) for line in lines]
    starts = [e for e in decoded if isinstance(e, ev.RunStarted)]
    assert len(starts) == 90
    assert {s.pair.id for s in starts if s.pair} == set(pairs)
    # Deterministic: the same arguments give the same bytes.
    assert lines == list(corpus.generate(90, 40))


def test_corpus_judges_as_its_templates() -> None:
    r = verify.corpus_matches_templates(len(corpus.templates()) * 2, events_per_run=60)
    assert r["templates_covered"] == r["templates"]
    assert r["mismatches"] == []


def test_compare_flags_a_slowdown(results: dict) -> None:
    slower = json.loads(json.dumps(results))
    slower["rejudge"]["workers_1"]["seconds"] *= 3
    slower["ingest"]["events_per_s"] /= 3
    text = report.compare(results, slower)
    flagged = [ln for ln in text.splitlines() if "WORSE" in ln]
    assert len(flagged) == 2 and "2 figures more than 10% worse" in text
    assert any(ln.strip().startswith("rejudge.workers_1.seconds") for ln in flagged)
    assert "WORSE" not in report.compare(results, results)
    assert "targets:" in report.render(results)
    # A quick run against a full one: re-judge seconds are compared per run.
    bigger = json.loads(json.dumps(results))
    bigger["rejudge"]["runs"] *= 10
    assert "rejudge.workers_1.seconds (ms per run)" in report.compare(bigger, results)
