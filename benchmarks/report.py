"""Targets, the printed table, and the comparison with an earlier results file.

Every ratio is core for core: a figure and what it is compared with ran on the same number of
cores (the re-judge on W workers against DuckDB on W threads; the one-process baselines
against the re-judge on one worker). Each section carries the machine's load average when it
was measured.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

TARGET_RUNS = 100_000
TARGET_EVENTS = 10_000_000


def _get(r: dict[str, Any], path: str) -> Any:
    cur: Any = r
    for part in path.split("."):
        if not isinstance(cur, dict) or part not in cur:
            return None
        cur = cur[part]
    return cur


def targets(r: dict[str, Any]) -> list[dict[str, Any]]:
    """The issue's targets, each with the measured value and PASS/MISS (n/a: not measured, or a
    ratio reported without a target). A re-judge figure measured at fewer runs than the target
    is scaled linearly to it and says so; queries and memory are judged at the size run."""
    out = []
    n = r["rejudge"]["runs"]
    w = r["rejudge"]["workers"]
    events = r["corpus"]["events"]
    scale = TARGET_RUNS / n if n else None
    size_note = "" if n >= TARGET_RUNS else f"measured at {n:,} runs, scaled linearly to {TARGET_RUNS:,}"

    def add(name: str, value: Any, unit: str, goal: str, ok: bool | None, note: str = "") -> None:
        out.append({"target": name, "value": value, "unit": unit, "goal": goal,
                    "status": "n/a" if ok is None or value is None else ("PASS" if ok else "MISS"), "note": note})

    ing = r["ingest"]
    add(f"ingest events/s (ingest_bytes, {ing['workers']} workers)", ing["events_per_s"], "events/s", ">= 500,000",
        (ing["events_per_s"] or 0) >= 500_000)
    fl = ing.get("floor", {})
    if fl.get("median_s"):
        ratio = ing["seconds"] / fl["median_s"]
        add(f"ingest / DuckDB parsing and grouping the files ({fl['threads']} threads)", round(ratio, 1), "x",
            "<= 3x", ratio <= 3)
    for size in (ing.get("memory") or {}).get("sizes", []):
        if size.get("status") == "ok":
            mb = size["file_bytes"] / 1e6
            # Below ~50 MB the command's fixed footprint (interpreter, Arrow, DuckDB, Delta, the
            # workers) is most of the peak: the figure is shown, not judged.
            judged = mb >= 50
            add(f"traj ingest peak memory, {mb:,.0f} MB file (above the command's footprint)",
                size.get("above_footprint_per_input"), "x input", "<= 3x",
                (size.get("above_footprint_per_input") or 99) <= 3 if judged else None,
                f"whole tree {size['peak_tree_mb']:,.0f} MB = {size['peak_per_input']}x; "
                f"footprint {(ing['memory']['footprint'] or {}).get('peak_tree_mb')} MB"
                + ("" if judged else "; not judged below 50 MB"))
    inc = r.get("incremental", {}).get("one_task")
    if inc:
        # Mostly fixed costs (selection, one pass's commit) and one task's runs: not scaled.
        sec = inc["seconds"]
        note = f"task {inc['task']}: {inc['judged']:,} runs judged, {inc['up_to_date']:,} up to date"
        if n < TARGET_RUNS:
            note += f"; measured at {n:,} runs, judged only at {TARGET_RUNS:,}"
        add("incremental re-judge after a one-task fix (start-up excluded)", round(sec, 3), "s", "<= 1 s",
            sec <= 1 if n >= TARGET_RUNS else None, note)
    ww = r["rejudge"][f"workers_{w}"]["seconds"]
    add(f"full re-judge (--all) {TARGET_RUNS:,} runs, {w} workers", round(ww * scale, 2) if scale else None, "s",
        "<= 10 s", scale is not None and ww * scale <= 10, size_note)
    dc = r.get("device_corpus", {})
    if dc.get("rejudge_over_floor") is not None:
        add(f"device corpus ({dc['runs']:,} runs, many screens): re-judge / judge floor, {w} cores each",
            dc["rejudge_over_floor"], "x", "<= 3x", dc["rejudge_over_floor"] <= 3)
    floor_w = r.get("floors", {}).get(f"judge_{w}", {}).get("median_s")
    if floor_w:
        add(f"mixed corpus: re-judge / judge floor, {w} cores each", round(ww / floor_w, 2), "x", "reported", None)
    q_note = "" if events >= TARGET_EVENTS else f"measured over {events:,} events"
    for name, q in r["query"].items():
        if isinstance(q, dict):
            add(f"query {name}", q["median_s"], "s", "<= 0.5 s", q["median_s"] <= 0.5, q_note)
    v = r.get("view") or {}
    if v.get("status") == "ok":
        v_note = "" if n >= TARGET_RUNS else f"at {n:,} runs"
        add("traj view: slowest page, time to first byte", v["worst_ttfb_s"], "s", "<= 1 s",
            v["worst_ttfb_s"] <= 1 and v["all_ok"], v_note)
        add("traj view: start-up to the first answer", v["startup_s"], "s", "< 2 s", v["startup_s"] < 2, v_note)
    mem = r["memory"]
    for key in ("workers_1", f"workers_{w}"):
        m = mem[key]
        note = "" if n >= TARGET_RUNS else f"at {n:,} runs"
        if key != "workers_1":
            note = (note + "; " if note else "") + "parent + workers, sampled every 50 ms"
        add(f"peak RSS re-judge {key.replace('_', '=')}", m["large_mb"], "MB", "<= 2048 MB", m["large_mb"] <= 2048, note)
        add(f"memory growth {key.replace('_', '=')} ({mem['small_runs']:,}->{mem['large_runs']:,} runs)",
            m["growth_ratio"], "x", f"< {mem['size_ratio']}x (sublinear)", m["sublinear"])
    for label, value in per_run_ratios(r).items():
        add(label, value, "x faster per run", "reported", None)
    return out


def per_run_ratios(r: dict[str, Any]) -> dict[str, float | None]:
    """The one-process baselines against the re-judge on one worker, per run (one core each)."""
    n = r["rejudge"]["runs"]
    ours_ms = 1000 * r["rejudge"]["workers_1"]["seconds"] / n if n else None
    out: dict[str, float | None] = {}
    pr = r["baselines"].get("per_run", {})
    if ours_ms and pr.get("runs"):
        out["per-run path (read, decode, fold, judge) / re-judge, 1 core each"] = round(
            1000 * pr["seconds"] / pr["runs"] / ours_ms, 2)
    insp = r["baselines"].get("inspect", {})
    if ours_ms and insp.get("status") == "ok":
        out["inspect score (same runs, same verdicts) / re-judge, 1 core each"] = round(insp["per_sample_ms"] / ours_ms, 2)
        if insp.get("marginal_per_sample_ms") is not None:
            out["inspect score without its start-up / re-judge, 1 core each"] = round(
                insp["marginal_per_sample_ms"] / ours_ms, 2)
    return out


def _fmt(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:,.4g}" if abs(v) < 1000 else f"{v:,.0f}"
    if isinstance(v, int):
        return f"{v:,}"
    return str(v)


def _load(v: Any) -> str:
    return f"load {v[0]:.2f}" if v else "load ?"


def render(r: dict[str, Any]) -> str:
    m = r["machine"]
    c = r["corpus"]
    w = r["rejudge"]["workers"]
    lines = [
        "traj benchmarks (issues 6 and 16)",
        f"machine: {m['cpu']}, {m['cores']} cores, {m['memory_gb']} GB; Python {m['python']}; "
        + ", ".join(f"{k} {v}" for k, v in m["packages"].items() if v)
        + (f"; commit {m['git_commit']}" if m.get("git_commit") else ""),
        f"load averages: at start {r.get('load_at_start')}, at end {r.get('load_at_end')} (1, 5, 15 min)",
        f"corpus: {c['runs']:,} runs, {c['events']:,} events ({c['bytes'] / 1e6:,.0f} MB JSON Lines), "
        f"suites {c['suites']}; {c['chunks']} files; generated in {c['generate_s']:.1f}s",
        "",
    ]
    ing = r["ingest"]
    lines.append(f"ingest (ingest_bytes, {ing['workers']} workers, one pool): {ing['events']:,} events in "
                 f"{ing['seconds']:.2f}s = {_fmt(ing['events_per_s'])} events/s [{_load(ing.get('load'))}]")
    fl = ing.get("floor")
    if fl:
        lines.append(f"  floor: DuckDB parsing and grouping the same files on {fl['threads']} threads: "
                     f"{fl['median_s']:.2f}s; ingest takes x{ing['seconds'] / fl['median_s']:.1f} that")
    mem = ing.get("memory") or {}
    if mem.get("footprint", {}).get("status") == "ok":
        lines.append(f"  traj ingest footprint (a {mem['footprint']['file_bytes']:,}-byte file): "
                     f"peak {mem['footprint']['peak_tree_mb']:,.0f} MB for the process and its workers")
    for size in mem.get("sizes", []):
        if size.get("status") == "ok":
            lines.append(f"  traj ingest {size['file_bytes'] / 1e6:,.0f} MB file ({size['events']:,} events): "
                         f"{size['wall_s']:.1f}s wall = {_fmt(size['events_per_s'])} events/s; peak "
                         f"{size['peak_tree_mb']:,.0f} MB ({size['peak_per_input']}x the file; "
                         f"{size.get('above_footprint_per_input')}x above the footprint)")
        else:
            lines.append(f"  traj ingest: {size.get('status')}")
    inc = r.get("incremental")
    if inc:
        one, none = inc["one_task"], inc["nothing_changed"]
        start = inc.get("process_wall_s", 0) - none["seconds"] - one["seconds"]
        lines.append(f"incremental re-judge (traj judge, 1 worker) [{_load(inc.get('load'))}]:")
        lines.append(f"  nothing changed: {none['seconds']:.3f}s ({none['up_to_date']:,} runs up to date, "
                     f"{none['judged']} judged)")
        lines.append(f"  one task changed ({one['task']}): {one['seconds']:.3f}s, {one['judged']:,} runs judged "
                     f"(exactly its runs: {one['judged_exactly_its_runs']}; same verdicts as the full pass: "
                     f"{one['same_verdicts_as_full_pass']}); the rest of the process (start-up, store, the changed task) {start:.2f}s")
    rj = r["rejudge"]
    n = rj["runs"]
    lines.append(f"full re-judge (--all) of {n:,} runs ({rj['events']:,} events) [{_load(rj.get('load'))}]:")
    lines.append(f"  workers=1: {rj['workers_1']['seconds']:.2f}s = {n / rj['workers_1']['seconds']:,.0f} runs/s")
    lines.append(f"  workers={w}: {rj[f'workers_{w}']['seconds']:.2f}s = {n / rj[f'workers_{w}']['seconds']:,.0f} runs/s")
    st = rj["staged"]
    s = st["stages"]
    lines.append(f"  stages (workers=1, {st['seconds']:.2f}s): select {s['select_s']:.2f}s, load/replay (batch) "
                 f"{s['load_replay_s']:.2f}s, judge {s['judge_s']:.2f}s, write {s['write_s']:.2f}s, other {s.get('other_s', 0):.2f}s")
    lines.append(f"  outcomes {rj['workers_1']['outcomes']}; same verdicts staged/workers=1/workers={w}: "
                 f"{rj['same_verdicts_any_workers']}")
    fls = r.get("floors", {})
    for key, f in fls.items():
        lines.append(f"  judge floor ({f['what']}) on {f['threads']} thread(s): {f['median_s']:.3f}s")
    if fls.get(f"judge_{w}"):
        lines.append(f"  re-judge on {w} workers takes x{rj[f'workers_{w}']['seconds'] / fls[f'judge_{w}']['median_s']:.1f} "
                     f"the floor on {w} threads; on 1 worker x{rj['workers_1']['seconds'] / fls['judge_1']['median_s']:.1f} "
                     "the floor on 1 thread")
    mm = r["memory"]
    for key in ("workers_1", f"workers_{w}"):
        x = mm[key]
        lines.append(f"  peak RSS {key}: {x['small_mb']:,.0f} MB at {mm['small_runs']:,} runs -> {x['large_mb']:,.0f} MB at "
                     f"{mm['large_runs']:,} runs (x{x['growth_ratio']} for x{mm['size_ratio']} runs; sublinear: {x['sublinear']})")
    dc = r.get("device_corpus", {})
    if dc.get("runs"):
        lines.append(f"device corpus (held-out style: {dc['runs']:,} device runs, {dc['events']:,} events, many screens) "
                     f"[{_load(dc.get('load'))}]:")
        lines.append(f"  ingest {dc['ingest']['seconds']:.2f}s = {_fmt(dc['ingest']['events_per_s'])} events/s; "
                     f"re-judge on {w} workers {dc['rejudge']['seconds']:.2f}s; floor on {w} threads "
                     f"{dc['floor']['median_s']:.3f}s; x{dc['rejudge_over_floor']} the floor")
    q = r["query"]
    lines.append(f"queries (median of {r['config']['query_repeat']}, Views.user_query; opening the views "
                 f"{q['open_views_s']:.3f}s) [{_load(q.get('load'))}]:")
    for name, v in q.items():
        if isinstance(v, dict):
            lines.append(f"  {name}: {v['median_s']:.4f}s ({v['rows']} rows)")
    if "view" in r:
        from .view import render as render_view

        lines.append(render_view(r["view"]) if r["view"].get("status") == "ok" else f"traj view: {r['view']['status']}")
    b = r["baselines"]
    lines.append("baselines (same run, same data; one process each, compared with the re-judge on 1 worker):")
    pr = b["per_run"]
    lines.append(f"  (b) per-run path on {pr['runs']:,} runs: {pr['seconds']:.2f}s = {_fmt(pr['runs_per_s'])} runs/s "
                 f"(read {pr['stages']['read_s']:.2f}s, decode+fold {pr['stages']['decode_fold_s']:.2f}s, judge "
                 f"{pr['stages']['judge_s']:.2f}s); same verdicts: {pr['same_verdicts_as_batch']}")
    insp = b.get("inspect", {})
    if insp.get("status") == "ok":
        lines.append(f"  (c) inspect score (inspect-ai {insp['version']}) on {insp['samples']:,} of the corpus's runs "
                     f"(~{insp['events_per_sample']} events each, traj's verdicts by a per-sample scorer): "
                     f"{insp['seconds']:.2f}s = {insp['samples_per_s']:,.0f} samples/s, peak {insp['peak_rss_mb']:,.0f} MB; "
                     f"same verdicts as traj: {insp['same_verdicts_as_traj']}")
        if insp.get("marginal_per_sample_ms") is not None:
            lines.append(f"      start-up (1-sample log) {insp['startup_s']:.2f}s; {insp['marginal_per_sample_ms']:.3f} "
                         "ms/sample without it")
    else:
        lines.append(f"  (c) inspect score: {insp.get('status')}")
    for label, value in per_run_ratios(r).items():
        lines.append(f"  {label}: x{_fmt(value)}")
    v = r.get("verify")
    if v:
        verdict = "yes" if not v["mismatches"] else f"NO ({v['mismatches']} mismatches)"
        lines.append(f"corpus check: {v['runs']} corpus runs covering {v['templates_covered']}/{v['templates']} "
                     f"templates judge as their templates: {verdict}")
    lines.append("")
    lines.append("targets:")
    for t in r["targets"]:
        note = f"  [{t['note']}]" if t["note"] else ""
        lines.append(f"  {t['status']:4}  {t['target']}: {_fmt(t['value'])} {t['unit']} (goal {t['goal']}){note}")
    if rj.get("profile_staged"):
        lines.append("")
        lines.append("profile of the staged re-judge (cumulative, top functions):")
        lines.extend("  " + ln for ln in rj["profile_staged"][:22])
    lines.append(f"total benchmark time {r['total_s']:.0f}s")
    return "\n".join(lines)


# -- comparison ---------------------------------------------------------------------------------

# (path, higher is better); "per run" figures are divided by the run count when sizes differ.
COMPARED = [
    ("ingest.events_per_s", True),
    ("ingest.floor.median_s", False),
    ("incremental.one_task.seconds", False),
    ("incremental.nothing_changed.seconds", False),
    ("rejudge.workers_1.seconds", False),
    ("rejudge.staged.stages.select_s", False),
    ("rejudge.staged.stages.load_replay_s", False),
    ("rejudge.staged.stages.judge_s", False),
    ("rejudge.staged.stages.write_s", False),
    ("memory.workers_1.large_mb", False),
    ("device_corpus.rejudge.seconds", False),
    ("device_corpus.rejudge_over_floor", False),
    ("query.pass_rate_by_suite_task.median_s", False),
    ("query.time_split_by_batch.median_s", False),
    ("query.flips_between_latest_passes.median_s", False),
    ("baselines.per_run.runs_per_s", True),
    ("baselines.inspect.samples_per_s", True),
]
PER_RUN = ("rejudge.", "incremental.")


def compare(old: dict[str, Any], new: dict[str, Any], tolerance: float = 0.10) -> str:
    """Each compared figure, old -> new, flagged WORSE (or better) when it moved more than
    ``tolerance``. Re-judge seconds are compared per run when the sizes differ, so a quick run
    can be compared with a full one, roughly. Figures one of the files lacks are listed as such."""
    lines = [f"compare with {old.get('_file', 'previous')} ({old['corpus']['runs']:,} runs, load "
             f"{old.get('load_at_start')}) -> this run ({new['corpus']['runs']:,} runs, load {new.get('load_at_start')})"]
    w = new["rejudge"]["workers"]
    paths = list(COMPARED) + [(f"rejudge.workers_{w}.seconds", False)]
    for size in range(len(_get(new, "ingest.memory.sizes") or [])):
        paths.append((f"ingest.memory.sizes.{size}.peak_tree_mb", False))
    worse = 0
    for path, higher in paths:
        a, b = _get_path(old, path), _get_path(new, path)
        if not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
            lines.append(f"  {path}: {_fmt(a)} -> {_fmt(b)} (not in both)")
            continue
        label = path
        if path.startswith(PER_RUN) and path.endswith("s") and old["rejudge"]["runs"] != new["rejudge"]["runs"]:
            a, b = a / max(1, old["rejudge"]["runs"]) * 1000, b / max(1, new["rejudge"]["runs"]) * 1000
            label = path + " (ms per run)"
        if a == 0:
            continue
        change = (b - a) / a
        bad = change < -tolerance if higher else change > tolerance
        good = change > tolerance if higher else change < -tolerance
        flag = "WORSE" if bad else ("better" if good else "")
        worse += bad
        lines.append(f"  {label}: {_fmt(a)} -> {_fmt(b)} ({change:+.0%}) {flag}".rstrip())
    lines.append(f"{worse} figure{'s' if worse != 1 else ''} more than {tolerance:.0%} worse")
    return "\n".join(lines)


def _get_path(r: dict[str, Any], path: str) -> Any:
    cur: Any = r
    for part in path.split("."):
        if isinstance(cur, list) and part.isdigit() and int(part) < len(cur):
            cur = cur[int(part)]
        elif isinstance(cur, dict) and part in cur:
            cur = cur[part]
        else:
            return None
    return cur


def load(path: str | Path) -> dict[str, Any]:
    data = json.loads(Path(path).read_text())
    data["_file"] = str(path)
    return data
