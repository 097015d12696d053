"""``traj view --static OUT --share``: a shared copy built from the allow-list only.

The full static copy shows everything a run recorded (screens, answers, state, reasons, SQL
results); none of that may leave the machine, and masking it page by page is a deny-list. So the
shared copy is its own small set of pages, filled only with what trajectory/reports/share.py lets
through: ``index.html`` (outcomes by suite and task), ``runs.html`` (one row per run: ids, task,
outcome, score, steps, duration, tokens, each check's name and pass/fail), ``passes.html``
(pass ids, kinds, times, run counts) and ``runs.json`` (the same rows for programs). No run
pages, no diff, no query results, no images, no store path, no names.
"""

from __future__ import annotations

import html
import json
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from trajectory.query.rates import pass_rate, percent
from trajectory.query.sql import Views, json_default, record_holdout_view
from trajectory.reports.report import OUTCOME_ORDER
from trajectory.reports.share import safe_id, share_row
from trajectory.store.delta import Store

OUTCOMES = OUTCOME_ORDER

_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>body{{font-family:system-ui,sans-serif;margin:2em}}table{{border-collapse:collapse}}
td,th{{border:1px solid #ccc;padding:.2em .5em;text-align:left}}.pass{{color:#060}}.fail{{color:#a00}}</style>
</head><body>
<nav><a href="index.html">overview</a> · <a href="runs.html">runs</a> · <a href="passes.html">passes</a></nav>
<h1>{title}</h1>
<p>A shared copy ({split} pool): ids, outcomes, scores, figures and check names only.</p>
{body}
</body></html>
"""


def _e(value: Any) -> str:
    return "" if value is None else html.escape(str(value))


def _table(head: list[str], rows: list[list[Any]]) -> str:
    out = ["<table><tr>" + "".join(f"<th>{_e(h)}</th>" for h in head) + "</tr>"]
    for row in rows:
        out.append("<tr>" + "".join(f"<td>{_e(c)}</td>" for c in row) + "</tr>")
    return "\n".join(out + ["</table>"])


def shared_rows(store: Store, split: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Every run of the pool with its current verdict, and every pass, through the allow-list."""
    with Views(store, split=split) as views:
        rows = views.arrow(
            "SELECT r.run_id, r.suite, r.task, r.batch, r.split, r.agent, r.model, r.steps, r.events, "
            "r.input_tokens, r.output_tokens, r.cached_tokens, r.tokens, r.duration_ms, "
            "v.outcome, v.score, v.checks, v.pass_id, v.judge_version, v.judged_at, v.details "
            "FROM runs r LEFT JOIN verdicts v USING (run_id) ORDER BY r.suite, r.task, r.run_id"
        ).to_pylist()
        passes = views.arrow("SELECT pass_id, kind, started_at, finished_at, runs FROM passes ORDER BY started_at").to_pylist()
    shared = [share_row(r) for r in rows]
    shared_passes = [
        {"pass_id": safe_id(p["pass_id"], "pass"), "kind": safe_id(p["kind"], "kind"), "started_at": p["started_at"],
         "finished_at": p["finished_at"], "runs": p["runs"]}
        for p in passes
    ]
    return shared, shared_passes


def write_shared(store_path: str | Store, out: str | Path, split: str) -> str:
    """Write the shared copy of the ``split`` pool to ``out``; returns a one-line summary."""
    store = store_path if isinstance(store_path, Store) else Store(store_path)
    if split == "holdout":
        record_holdout_view(store, "view --static", {"share": True})
    runs, passes = shared_rows(store, split)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    by_task: dict[tuple[Any, Any], Counter[str]] = defaultdict(Counter)
    for r in runs:
        by_task[(r["suite"], r["task"])][r["outcome"] or "unjudged"] += 1
    overview = [
        [suite, task, sum(c.values()), *(c[o] for o in OUTCOMES), c["unjudged"],
         percent(pass_rate(c))]
        for (suite, task), c in sorted(by_task.items(), key=lambda kv: (str(kv[0][0]), str(kv[0][1])))
    ]
    pages = {
        "index.html": ("Overview", _table(["suite", "task", "runs", *OUTCOMES, "unjudged", "pass rate"], overview)),
        "runs.html": ("Runs", _table(
            ["run", "suite", "task", "batch", "outcome", "score", "steps", "duration ms", "tokens", "checks"],
            [[r["run_id"], r["suite"], r["task"], r["batch"], r["outcome"] or "unjudged", r["score"], r.get("steps"),
              r.get("duration_ms"), r.get("tokens"),
              ", ".join(f"{c['name']} {'✓' if c['passed'] else '✗'}" for c in r["checks"])] for r in runs],
        )),
        "passes.html": ("Passes", _table(
            ["pass", "kind", "started", "finished", "runs"],
            [[p["pass_id"], p["kind"], p["started_at"], p["finished_at"], p["runs"]] for p in passes],
        )),
    }
    for name, (title, body) in pages.items():
        (out / name).write_text(_PAGE.format(title=_e(title), split=_e(split), body=body), encoding="utf-8")
    (out / "runs.json").write_text(json.dumps(runs, ensure_ascii=False, default=json_default) + "\n", encoding="utf-8")
    return (f"wrote a shared copy of {len(runs)} runs ({split} pool: ids, outcomes, scores, figures and check "
            f"names only) to {out}; open {out / 'index.html'}")
