"""Targets, the printed table, and the comparison with an earlier results file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

TARGET_RUNS = 100_000
TARGET_EVENTS = 10_000_000


def targets(r: dict[str, Any]) -> list[dict[str, Any]]:
    """The issue's targets, each with the measured value and PASS/MISS.

    A figure measured at a smaller size than the target's is scaled linearly to it (the
    re-judge time) or judged at the size run (queries, memory), and says so in ``note``.
    """
    out = []
    n = r["rejudge"]["runs"]
    events = r["corpus"]["events"]
    w = r["rejudge"]["workers"]
    ww = r["rejudge"][f"workers_{w}"]
    best = min(r["rejudge"]["workers_1"]["seconds"], ww["seconds"])
    scaled = best * TARGET_RUNS / n if n else None
    size_note = "" if n >= TARGET_RUNS else f"measured at {n} runs, scaled linearly to {TARGET_RUNS}"

    def add(name: str, value: Any, unit: str, target: str, ok: bool | None, note: str = "") -> None:
        out.append({"target": name, "value": value, "unit": unit, "goal": target,
                    "status": "n/a" if ok is None else ("PASS" if ok else "MISS"), "note": note})

    ing = r["ingest"]["events_per_s"]
    add("ingest events/s (ingest_bytes)", ing, "events/s", ">= 500,000", ing is not None and ing >= 500_000)
    add(f"re-judge {TARGET_RUNS:,} runs end to end", round(scaled, 2) if scaled else None, "s", "<= 10 s",
        scaled is not None and scaled <= 10, size_note)
    insp = r["baselines"].get("inspect", {})
    if insp.get("status") == "ok" and n:
        ours_ms = 1000 * best / n
        ratio = insp["per_sample_ms"] / ours_ms if ours_ms else None
        add("re-judge per run vs inspect score per sample", round(ratio, 1) if ratio else None, "x faster",
            ">= 100x", ratio is not None and ratio >= 100,
            f"ours {ours_ms:.3f} ms/run ({r['corpus']['events'] // max(1, r['corpus']['runs'])} events), "
            f"inspect {insp['per_sample_ms']:.3f} ms/sample ({insp['events_per_sample']} events, {insp['samples']} samples)")
    else:
        add("re-judge per run vs inspect score per sample", None, "x faster", ">= 100x", None, insp.get("status", ""))
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
        note = "" if n >= TARGET_RUNS else f"at {n} runs"
        if key != "workers_1":
            note = (note + "; " if note else "") + "parent + workers, sampled every 50 ms"
        add(f"peak RSS re-judge {key.replace('_', '=')}", m["large_mb"], "MB", "<= 2048 MB", m["large_mb"] <= 2048, note)
        add(f"memory growth {key.replace('_', '=')} ({mem['small_runs']}->{mem['large_runs']} runs)",
            m["growth_ratio"], "x", f"< {mem['size_ratio']}x (sublinear)", m["sublinear"])
    return out


def _fmt(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:,.4g}" if abs(v) < 1000 else f"{v:,.0f}"
    if isinstance(v, int):
        return f"{v:,}"
    return str(v)


def render(r: dict[str, Any]) -> str:
    m = r["machine"]
    c = r["corpus"]
    lines = [
        "traj benchmarks (issue 6)",
        f"machine: {m['cpu']}, {m['cores']} cores, {m['memory_gb']} GB; Python {m['python']}; "
        + ", ".join(f"{k} {v}" for k, v in m["packages"].items() if v)
        + (f"; commit {m['git_commit']}" if m.get("git_commit") else ""),
        f"corpus: {c['runs']:,} runs, {c['events']:,} events ({c['bytes'] / 1e6:,.0f} MB JSON Lines), "
        f"suites {c['suites']}; {c['chunks']} ingest batches; generated in {c['generate_s']:.1f}s",
        "",
    ]
    ing = r["ingest"]
    lines.append(f"ingest (ingest_bytes): {ing['events']:,} events in {ing['seconds']:.2f}s = {_fmt(ing['events_per_s'])} events/s")
    cli = ing.get("cli", {})
    if cli.get("status") == "ok":
        lines.append(f"ingest (traj ingest CLI, {cli['runs']:,} runs, fresh process): {cli['wall_s']:.2f}s wall = "
                     f"{_fmt(cli['events_per_s'])} events/s")
    else:
        lines.append(f"ingest (traj ingest CLI): {cli.get('status')}")
    rj = r["rejudge"]
    w = rj["workers"]
    st = rj["staged"]
    n = rj["runs"]
    lines.append(f"re-judge {n:,} runs ({rj['events']:,} events):")
    lines.append(f"  judge_runs workers=1: {rj['workers_1']['seconds']:.2f}s = {n / rj['workers_1']['seconds']:,.0f} runs/s")
    lines.append(f"  judge_runs workers={w}: {rj[f'workers_{w}']['seconds']:.2f}s = {n / rj[f'workers_{w}']['seconds']:,.0f} runs/s")
    s = st["stages"]
    lines.append(f"  stages (workers=1, {st['seconds']:.2f}s): select {s['select_s']:.2f}s, load/replay (batch) "
                 f"{s['load_replay_s']:.2f}s, judge {s['judge_s']:.2f}s, write {s['write_s']:.2f}s, other {s.get('other_s', 0):.2f}s")
    lines.append(f"  outcomes {rj['workers_1']['outcomes']}; same verdicts staged/workers=1/workers={w}: {rj['same_verdicts_any_workers']}")
    mem = r["memory"]
    for key in ("workers_1", f"workers_{w}"):
        mm = mem[key]
        lines.append(f"  peak RSS {key}: {mm['small_mb']:,.0f} MB at {mem['small_runs']:,} runs -> {mm['large_mb']:,.0f} MB at "
                     f"{mem['large_runs']:,} runs (x{mm['growth_ratio']} for x{mem['size_ratio']} runs; sublinear: {mm['sublinear']})")
    q = r["query"]
    lines.append(f"queries (median of {r['config']['query_repeat']}, Views.user_query; opening the views {q['open_views_s']:.3f}s):")
    for name, v in q.items():
        if isinstance(v, dict):
            lines.append(f"  {name}: {v['median_s']:.4f}s ({v['rows']} rows)")
    if "view" in r:
        from .view import render as render_view

        lines.append(render_view(r["view"]) if r["view"].get("status") == "ok" else f"traj view: {r['view']['status']}")
    b = r["baselines"]
    fl = b["floor"]
    best = min(rj["workers_1"]["seconds"], rj[f"workers_{w}"]["seconds"])
    lines.append("baselines (same run, same data):")
    lines.append(f"  (a) floor, DuckDB count(*) by run_id, kind over the Parquet files: {fl['median_s']:.3f}s "
                 f"({_fmt(fl['events_per_s'])} events/s); re-judge takes x{best / fl['median_s']:,.1f} the floor")
    pr = b["per_run"]
    ours_per_run = best / n if n else 0
    ratio_b = (pr["seconds"] / pr["runs"]) / ours_per_run if ours_per_run and pr["runs"] else None
    lines.append(f"  (b) per-run path (read JSONL, msgspec decode, replay fold, judge) on {pr['runs']:,} runs: {pr['seconds']:.2f}s = "
                 f"{_fmt(pr['runs_per_s'])} runs/s (read {pr['stages']['read_s']:.2f}s, decode+fold {pr['stages']['decode_fold_s']:.2f}s, "
                 f"judge {pr['stages']['judge_s']:.2f}s); re-judge is x{_fmt(ratio_b)} faster per run; same verdicts: {pr['same_verdicts_as_batch']}")
    insp = b["inspect"]
    if insp.get("status") == "ok":
        ratio_c = insp["per_sample_ms"] / (1000 * ours_per_run) if ours_per_run else None
        lines.append(f"  (c) inspect score (inspect-ai {insp['version']}) on {insp['samples']:,} samples x {insp['events_per_sample']} events: "
                     f"{insp['seconds']:.2f}s = {insp['samples_per_s']:,.0f} samples/s, peak {insp['peak_rss_mb']:,.0f} MB; "
                     f"re-judge is x{_fmt(ratio_c)} faster per run; scored {insp['scored']}")
        if insp.get("marginal_per_sample_ms") is not None:
            lines.append(f"      start-up of inspect score (1-sample log) {insp['startup_s']:.2f}s; marginal "
                         f"{insp['marginal_per_sample_ms']:.3f} ms/sample without it")
    else:
        lines.append(f"  (c) inspect score: {insp.get('status')}")
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
    if r.get("rejudge", {}).get("profile_staged"):
        lines.append("")
        lines.append("profile of the staged re-judge (cumulative, top functions):")
        lines.extend("  " + ln for ln in r["rejudge"]["profile_staged"][:22])
    lines.append(f"total benchmark time {r['total_s']:.0f}s")
    return "\n".join(lines)


# -- comparison ---------------------------------------------------------------------------------

# (path, higher is better)
COMPARED = [
    ("ingest.events_per_s", True),
    ("ingest.cli.events_per_s", True),
    ("rejudge.workers_1.seconds", False),
    ("rejudge.staged.stages.select_s", False),
    ("rejudge.staged.stages.load_replay_s", False),
    ("rejudge.staged.stages.judge_s", False),
    ("rejudge.staged.stages.write_s", False),
    ("memory.workers_1.large_mb", False),
    ("query.pass_rate_by_suite_task.median_s", False),
    ("query.time_split_by_batch.median_s", False),
    ("query.flips_between_latest_passes.median_s", False),
    ("baselines.floor.median_s", False),
    ("baselines.per_run.runs_per_s", True),
    ("baselines.inspect.samples_per_s", True),
]


def _get(r: dict[str, Any], path: str) -> Any:
    cur: Any = r
    for part in path.split("."):
        if not isinstance(cur, dict) or part not in cur:
            return None
        cur = cur[part]
    return cur


def compare(old: dict[str, Any], new: dict[str, Any], tolerance: float = 0.10) -> str:
    """Each compared figure, old -> new, and SLOWER/faster when it moved more than ``tolerance``.

    Per-run figures are compared per run when the sizes differ (a seconds figure is divided by
    its run count), so a quick run can be compared with a full one, roughly.
    """
    lines = [f"compare with {old.get('_file', 'previous')} ({old['corpus']['runs']:,} runs) -> this run ({new['corpus']['runs']:,} runs)"]
    paths = list(COMPARED) + [(f"rejudge.workers_{new['rejudge']['workers']}.seconds", False)]
    for path, higher in paths:
        a, b = _get(old, path), _get(new, path)
        if a is None or b is None or not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
            continue
        if path.startswith("rejudge.") and path.endswith("seconds") or path.startswith("rejudge.staged"):
            a, b = a / max(1, old["rejudge"]["runs"]) * 1000, b / max(1, new["rejudge"]["runs"]) * 1000
            label = path + " (ms per run)"
        else:
            label = path
        if a == 0:
            continue
        change = (b - a) / a
        worse = change < -tolerance if higher else change > tolerance
        better = change > tolerance if higher else change < -tolerance
        flag = "SLOWER" if worse else ("faster" if better else "")
        if "_mb" in path:
            flag = "MORE MEMORY" if worse else ("less memory" if better else "")
        lines.append(f"  {label}: {_fmt(a)} -> {_fmt(b)} ({change:+.0%}) {flag}".rstrip())
    return "\n".join(lines)


def load(path: str | Path) -> dict[str, Any]:
    data = json.loads(Path(path).read_text())
    data["_file"] = str(path)
    return data
