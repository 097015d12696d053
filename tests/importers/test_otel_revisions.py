"""Issue 23, item 1, the other order: a trace's root arrives in an earlier file (its run is
written and sealed) and spans of the same trace in a later one. The run is written again,
complete, as a new revision (``otel:<trace>.r2``); the earlier run is superseded by it and kept
as history, never judged, listed or counted again. The files are OTLP/JSON written by the
OpenTelemetry SDK's own encoding."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from helpers import traj
from otel_sdk import OTLPJsonFile, provider, weather_agent
from trajectory.importers import import_otel
from trajectory.judging import select_runs
from trajectory.query.sql import Views
from trajectory.store.delta import Store

CITIES = ["Beijing", "Lima", "Oslo"]
SCORERS = '''
from inspect_ai.scorer import Score, accuracy, scorer


@scorer(metrics=[accuracy()])
def says_degrees():
    async def score(state, target):
        return Score(value="C" if "20" in state.output.completion else "I", answer=state.output.completion)
    return score


def scorers():
    return [says_degrees()]
'''


def roots_first(tmp: Path) -> tuple[Path, Path, Path, list[str]]:
    """Three traces in one file (whole.jsonl), and the same spans split in two: the roots in
    roots.jsonl, the children in children.jsonl (imported in that order: the root first)."""
    whole = tmp / "whole.jsonl"
    ids = [weather_agent(provider(OTLPJsonFile(whole)).get_tracer("agents"), c) for c in CITIES]
    roots, children = tmp / "roots.jsonl", tmp / "children.jsonl"
    lines = whole.read_text().splitlines()
    roots.write_text("".join(x + "\n" for x in lines if "parentSpanId" not in _span(x)))
    children.write_text("".join(x + "\n" for x in lines if "parentSpanId" in _span(x)))
    return whole, roots, children, ids


def _span(line: str) -> dict:
    return json.loads(line)["resourceSpans"][0]["scopeSpans"][0]["spans"][0]


def events(store: Path, run_id: str) -> list[dict]:
    r = traj("export", "events", "--run", run_id, "--store", store)
    assert r.exit_code == 0, r.output
    return [json.loads(line) for line in r.output.splitlines() if line.strip()]


def without_run_id(evs: list[dict]) -> list[dict]:
    return [{k: v for k, v in e.items() if k != "run_id"} for e in evs]


def meta_rows(store: Path) -> int:
    return Store(store).read("meta").num_rows


def test_root_first_then_children_is_written_again_complete_and_the_first_run_kept_as_history(tmp_path) -> None:
    whole, roots, children, ids = roots_first(tmp_path)
    one = tmp_path / "one"
    assert traj("import", "otel", whole, "--store", one).exit_code == 0
    store = tmp_path / "store"
    assert traj("import", "otel", roots, "--store", store).exit_code == 0
    r = traj("import", "otel", children, "--store", store)
    assert r.exit_code == 0, r.output
    for tid in ids:
        assert (f"trace {tid}: 3 spans arrived after its run was written; written again as otel:{tid}.r2, "
                f"otel:{tid} kept as history") in r.output
        # the same run as from one file with everything: steps, tokens, times, answer, span order
        assert without_run_id(events(store, f"otel:{tid}.r2")) == without_run_id(events(one, f"otel:{tid}"))
        first = events(store, f"otel:{tid}")  # history: the run as first written, untouched
        assert [e["kind"] for e in first] == ["run_started", "answer_given", "run_finished"]

    listed = [json.loads(x) for x in traj("runs", "--store", store, "--json").output.splitlines()]
    assert sorted(r["run_id"] for r in listed) == sorted(f"otel:{t}.r2" for t in ids)
    assert {(r["steps"], r["tokens"]) for r in listed} == {(3, 455)}
    with Views(Store(store)) as v:
        assert v.con.execute("SELECT count(*), sum(steps) FROM runs").fetchone() == (3, 9)
        assert v.con.execute("SELECT count(DISTINCT run_id) FROM events").fetchone() == (3,)
        # the imported verdict (the trace's own score) is the new revision's, counted once
        assert v.con.execute("SELECT verdicts, pass FROM pass_rates WHERE level = 'all'").fetchone() == (3, 3)
        assert sorted(v.con.execute("SELECT run_id, superseded_by FROM superseded").fetchall()) == \
            sorted((f"otel:{t}", f"otel:{t}.r2") for t in ids)
        assert v.con.execute("SELECT count(DISTINCT run_id) FROM verdict_history").fetchone() == (6,)


def test_the_same_files_again_add_nothing(tmp_path) -> None:
    whole, roots, children, ids = roots_first(tmp_path)
    store = tmp_path / "store"
    assert traj("import", "otel", roots, "--store", store).exit_code == 0
    r = traj("import", "otel", children, "--store", store, "--json")
    assert r.exit_code == 0, r.output
    src = json.loads(r.output)["sources"][0]
    assert sorted((x["trace_id"], x["run_id"], x["supersedes"], x["late_spans"]) for x in src["revised"]) == \
        sorted((t, f"otel:{t}.r2", f"otel:{t}", 3) for t in ids)
    table_rows = meta_rows(store), Store(store).read("events").num_rows, Store(store).read("verdicts").num_rows
    for files in ([roots], [children], [roots, children], [whole]):
        r = traj("import", "otel", *files, "--store", store, "--json")
        assert r.exit_code == 0, r.output
        out = json.loads(r.output)
        src = out["sources"][0]
        assert (src["new_runs"], src["new_events"], src["revised"], src["known_runs"]) == (0, 0, [], 3), files
        assert out["pass_id"] is None
        assert "written again" not in traj("import", "otel", *files, "--store", store).output
    assert (meta_rows(store), Store(store).read("events").num_rows, Store(store).read("verdicts").num_rows) == \
        table_rows


def _three_files(tmp: Path) -> tuple[Path, list[Path], str]:
    """One trace whose four spans (root, chat, tool, chat) are split over three files: the root
    alone, the first chat, the tool call and the second chat."""
    whole = tmp / "whole.jsonl"
    tid = weather_agent(provider(OTLPJsonFile(whole)).get_tracer("agents"), "Lima")
    lines = whole.read_text().splitlines()  # chat, tool, chat, root: one span per line
    parts = [[lines[3]], [lines[0]], [lines[1], lines[2]]]
    files = []
    for i, part in enumerate(parts):
        f = tmp / f"part{i}.jsonl"
        f.write_text("".join(x + "\n" for x in part))
        files.append(f)
    return whole, files, tid


@pytest.mark.parametrize("order", list(itertools.permutations(range(3))), ids=lambda o: "-".join(map(str, o)))
def test_three_files_in_every_order_give_the_same_complete_run(tmp_path, order) -> None:
    whole, files, tid = _three_files(tmp_path)
    one = Store(tmp_path / "one")
    import_otel(one, [str(whole)])
    store = Store(tmp_path / "store")
    for i in order:
        import_otel(store, [str(files[i])])
    with Views(store) as v:
        ((run_id, steps, tokens),) = v.con.execute("SELECT run_id, steps, tokens FROM runs").fetchall()
        superseded = v.con.execute("SELECT run_id, superseded_by FROM superseded ORDER BY run_id").fetchall()
    assert (steps, tokens) == (3, 455)
    assert without_run_id(events(tmp_path / "store", run_id)) == without_run_id(events(tmp_path / "one", f"otel:{tid}"))
    # the root's file makes the first run; each later file that brings spans, one more revision
    revisions = sum(1 for i in order[order.index(0) + 1:])
    assert run_id == (f"otel:{tid}" if not revisions else f"otel:{tid}.r{revisions + 1}")
    assert [new for _, new in superseded] == [f"otel:{tid}.r{n}" for n in range(2, revisions + 2)]
    for i in order:  # and again, any file: nothing new
        report = import_otel(store, [str(files[i])])
        assert (report.sources[0].new_events, report.sources[0].revised, report.pass_result) == (0, [], None)


def test_a_superseded_run_is_not_judged_or_counted_twice(tmp_path, monkeypatch) -> None:
    pytest.importorskip("inspect_ai")
    _, roots, children, ids = roots_first(tmp_path)
    (tmp_path / "weather_scorers.py").write_text(SCORERS)
    monkeypatch.chdir(tmp_path)
    assert traj("import", "otel", roots, "--store", "store").exit_code == 0
    r = traj("suite", "add", "weather-service", "weather_scorers.py:scorers", "--store", "store")
    assert r.exit_code == 0, r.output
    r = traj("judge", "--store", "store")
    assert r.exit_code == 0 and "judged 3 runs" in r.output, r.output
    assert traj("import", "otel", children, "--store", "store").exit_code == 0
    sel = select_runs(Store("store"))
    assert sorted(sel.finished) == sorted(f"otel:{t}.r2" for t in ids)
    r = traj("judge", "--store", "store")
    assert r.exit_code == 0 and "judged 3 runs (3 pass)" in r.output, r.output
    r = traj("judge", "--store", "store")  # nothing stale: the superseded runs are not judged
    assert r.exit_code == 0 and "judged 3 runs" not in r.output, r.output
    r = traj("runs", "--store", "store")
    assert "3 of 3 judged runs pass" in r.output and "(3 runs)" in r.output
    with Views(Store("store")) as v:
        assert v.con.execute("SELECT count(*) FROM verdicts").fetchone() == (3,)
        assert v.con.execute("SELECT rated, pass_rate FROM pass_rates WHERE level = 'all'").fetchone() == (3, 1.0)
    # naming the superseded run says what it is, in judge and in the viewer's data
    r = traj("judge", "--run", f"otel:{ids[0]}", "--store", "store")
    assert r.exit_code != 0 and f"run otel:{ids[0]} is superseded by otel:{ids[0]}.r2" in r.output


def test_show_of_the_superseded_run_says_by_what(tmp_path) -> None:
    _, roots, children, ids = roots_first(tmp_path)
    store = tmp_path / "store"
    assert traj("import", "otel", roots, "--store", store).exit_code == 0
    assert traj("import", "otel", children, "--store", store).exit_code == 0
    tid = ids[0]
    r = traj("show", f"otel:{tid}", "--store", store)
    assert r.exit_code == 0, r.output
    assert f"superseded by otel:{tid}.r2" in r.output and "3 spans of trace" in r.output
    assert "kept as history" in r.output and "verdict: pass" in r.output  # its own verdict, as history
    out = json.loads(traj("show", f"otel:{tid}", "--store", store, "--json").output)
    assert out["superseded"]["superseded_by"] == f"otel:{tid}.r2"
    out = json.loads(traj("show", f"otel:{tid}.r2", "--store", store, "--json").output)
    assert out["superseded"] is None and out["steps"] == 3
    from trajectory.errors import NotFound
    from trajectory.view.data import StoreData

    data = StoreData(Store(store), background_index=False)
    with pytest.raises(NotFound, match=f"superseded by otel:{tid}.r2"):
        data._run_head(f"otel:{tid}")


def test_a_run_written_before_spans_were_kept_is_completed_by_importing_its_root_again(tmp_path, monkeypatch) -> None:
    """A run written by a traj that kept no spans of written runs: spans that come later are
    kept and said; importing the root's file again writes the run complete."""
    from trajectory.importers import pending

    whole, roots, children, ids = roots_first(tmp_path)
    store = Store(tmp_path / "store")
    keep = pending.keep

    def as_before(store, traces, known, files, *, by, at, kind=pending.KIND):  # noqa: ANN001
        kinds = {t: kind if isinstance(kind, str) else kind[t] for t in traces}
        return keep(store, {t: s for t, s in traces.items() if kinds[t] != pending.WRITTEN}, known, files,
                    by=by, at=at, kind=kinds)

    monkeypatch.setattr(pending, "keep", as_before)
    import_otel(store, [str(roots)])
    monkeypatch.setattr(pending, "keep", keep)
    src = import_otel(store, [str(children)]).sources[0]
    assert (src.late_spans, src.late_traces, src.revised, src.new_runs) == (9, 3, [], 0)
    assert "import the file with its root span again" in "\n".join(import_otel(store, [str(children)]).lines())
    src = import_otel(store, [str(roots)]).sources[0]
    assert sorted(x["run_id"] for x in src.revised) == sorted(f"otel:{t}.r2" for t in ids)
    with Views(store) as v:
        assert v.con.execute("SELECT count(*), sum(steps) FROM runs").fetchone() == (3, 9)
