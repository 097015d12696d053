"""Reports: a batch's summary.md, scores.jsonl and metrics.json, and a suite's own report.

:func:`write_report` gathers a batch's rows from the store (current verdicts, the runs' figures,
human overrides, the holdout-view log) and :func:`build` formats them — a pure function of its
arguments, so tests can call it directly. :func:`suite_report` queries a suite's current
verdicts and hands the rows to the suite to render (``judges.contract.ReportRendering``).

Decisions:

* A run's *verdict* in a report is the human one when an override exists (the latest by time),
  else the automatic one. An override is *settled* when an automatic verdict judged after it
  agrees with it: the rule has caught up with the human.
* Pass rates are pass / (pass + fail): skipped, error and na (handed to the user) runs are
  counted apart, neither passed nor failed.
* Time to first feedback: ``run_finished.metrics.firstFeedbackMs`` when the harness reported
  it, else the time from the run's start to its first action, question, card, answer or
  takeover. Turns: ``metrics.turns`` when reported, else the number of steps.
* Token cost uses prices per million tokens; cached tokens are counted inside the input tokens,
  so uncached input = input - cached.
* ``share``: an allow-list (trajectory/reports/share.py): ids, task, suite, outcome, score, counts,
  durations, tokens, check names and pass/fail; every free text dropped or a category.
"""

from __future__ import annotations

import datetime as _dt
import json
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from judges.base import OUTCOMES

from trajectory import events as ev
from trajectory.query import rates
from trajectory.text import hint, plural

FEEDBACK_KINDS = (ev.StepTaken, ev.UserAsked, ev.ConfirmationShown, ev.AnswerGiven, ev.TakeoverRequested)
#: The order reports list outcomes in: every outcome of judges.base.OUTCOMES.
OUTCOME_ORDER = ("pass", "fail", "review", "na", "skipped", "error")
assert set(OUTCOME_ORDER) == set(OUTCOMES)

_ABS_PATH_RE = re.compile(
    r"(?<![\w.:/])(?:/[\w.\-]+){2,}/?|(?<![\w])[A-Za-z]:\\[^\s\"']+|~/[^\s\"']+|file://[^\s\"']+"
)
_IMAGE_RE = re.compile(r"[^\s\"'()\[\]]+\.(?:png|jpe?g|webp|gif|bmp)\b", re.IGNORECASE)


def _ms(ts: Any) -> float:
    if isinstance(ts, _dt.datetime):
        return ts.timestamp() * 1000.0
    return float(ts)


def first_feedback_ms(events: Sequence[ev.Event]) -> float | None:
    """Milliseconds from the run's start to the first thing the agent did that a user sees."""
    if not events:
        return None
    last = events[-1]
    if isinstance(last, ev.RunFinished) and isinstance(last.metrics, dict):
        reported = last.metrics.get("firstFeedbackMs")
        if isinstance(reported, (int, float)) and not isinstance(reported, bool):
            return float(reported)
    start = _ms(events[0].ts)
    for e in events[1:]:
        if isinstance(e, FEEDBACK_KINDS):
            return max(0.0, _ms(e.ts) - start)
    return None


def token_cost(row: dict[str, Any], prices: dict[str, float] | None) -> float | None:
    if not prices:
        return None
    cached = row.get("cached_tokens") or 0
    uncached = max(0, (row.get("input_tokens") or 0) - cached)
    return (
        uncached * prices.get("in", 0.0) + cached * prices.get("cached", prices.get("in", 0.0))
        + (row.get("output_tokens") or 0) * prices.get("out", 0.0)
    ) / 1_000_000


def _at(value: Any) -> str:
    if isinstance(value, _dt.datetime):
        return value.astimezone(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return str(value)


def effective(
    row: dict[str, Any], overrides: Sequence[dict[str, Any]]
) -> tuple[str, dict[str, Any] | None, bool]:
    """(verdict shown, the override that decided it or None, settled?)."""
    mine = sorted((o for o in overrides if o["run_id"] == row["run_id"]), key=lambda o: o["at"])
    if not mine:
        return row["outcome"], None, False
    o = mine[-1]
    judged = row.get("judged_at")
    settled = bool(judged is not None and judged > o["at"] and row["outcome"] == o["to_outcome"])
    return o["to_outcome"], o, settled


def holdout_line(views: Sequence[dict[str, Any]]) -> list[str]:
    """The lines at the top of every report: how often the holdout pool was looked at."""
    if not views:
        return ["holdout viewed 0 times"]
    lines = [f"holdout viewed {len(views)} time{'s' if len(views) != 1 else ''} since {_at(views[0]['at'])}"]
    for v in views[-5:]:
        detail = v.get("data") or ""
        try:
            data = json.loads(detail) if detail else {}
        except json.JSONDecodeError:
            data = {}
        what = ", ".join(f"{k}={val}" for k, val in data.items() if val not in (None, "", []))
        lines.append(f"  - {_at(v['at'])} by {v['by']}: {v['key']}" + (f" ({what})" if what else ""))
    return lines


class Scrubber:
    """Masks answers, serials, image references and absolute paths in text. Not what --share
    relies on (that is an allow-list, trajectory/reports/share.py); kept for callers that mask text
    they show on this machine."""

    def __init__(self, rows: Iterable[dict[str, Any]], enabled: bool):
        self.enabled = enabled
        self.secrets: list[tuple[str, str]] = []
        for r in rows:
            for text, mask in (
                [(r.get("answer"), "[answer omitted]"), (r.get("device"), "[device]")]
                + [(img, "[image]") for img in r.get("images") or ()]
            ):
                if text and len(text.strip()) >= 2:
                    self.secrets.append((text, mask))
        self.secrets.sort(key=lambda s: -len(s[0]))

    def __call__(self, value: Any) -> Any:
        if not self.enabled:
            return value
        if isinstance(value, str):
            for text, mask in self.secrets:
                value = value.replace(text, mask)
            value = _IMAGE_RE.sub("[image]", value)
            return _ABS_PATH_RE.sub("[path]", value)
        if isinstance(value, dict):
            return {k: self(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self(v) for v in value]
        return value


def for_sharing(
    rows: Sequence[dict[str, Any]],
    overrides: Sequence[dict[str, Any]],
    meta: dict[str, Any],
    holdout_views: Sequence[dict[str, Any]],
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[str, Any], list[dict[str, Any]]]:
    """What ``--share`` keeps of a report's inputs, decided in this one place (the rendering
    in :func:`build` knows nothing of sharing): the allow-list of trajectory/reports/share.py. Answers,
    images, serials, reasons, check values, evidence, names and paths are not on it."""
    from trajectory.reports.share import share_look, share_meta, share_override, share_row

    return ([share_row(r) for r in rows], [share_override(o) for o in overrides], share_meta(meta),
            [share_look(v) for v in holdout_views])


def _checks(row: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for c in row.get("checks") or []:
        item = {"name": c["name"], "passed": c["passed"]}
        for key in ("expected", "reason", "actual"):  # a shared row has none of them
            if key in c:
                item[key] = _loads(c[key]) if key != "reason" else c[key]
        out.append(item)
    return out


def _loads(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value
    return value


def _details(row: dict[str, Any]) -> dict[str, Any]:
    d = _loads(row.get("details"))
    return d if isinstance(d, dict) else {}


def run_metrics(row: dict[str, Any], prices: dict[str, float] | None) -> dict[str, Any]:
    d = _details(row)
    return {
        "steps": row.get("steps"),
        "maxSteps": d.get("maxSteps"),
        "over_steps": bool(d.get("over_steps")),
        "turns": row.get("turns"),
        "duration_ms": row.get("duration_ms"),
        "timeoutSec": d.get("timeoutSec"),
        "over_time": bool(d.get("over_time")),
        "first_feedback_ms": row.get("first_feedback_ms"),
        "input_tokens": row.get("input_tokens"),
        "output_tokens": row.get("output_tokens"),
        "cached_tokens": row.get("cached_tokens"),
        "model_ms": row.get("model_ms"),
        "read_ms": row.get("read_ms"),
        "act_ms": row.get("act_ms"),
        "other_ms": row.get("other_ms"),
        "cost": token_cost(row, prices),
    }


def _pct(part: float, whole: float) -> str:
    return f"{100.0 * part / whole:.0f}%" if whole else "—"


def _secs(ms: Any) -> str:
    return "—" if ms is None else f"{float(ms) / 1000:.1f}s"


def pass_rate_line(counts: Counter[str]) -> str:
    """"4 of 6 judged runs pass (67%); 1 na not counted" (the one definition: trajectory/rates.py)."""
    return rates.rate_line(counts)


def totals(rows: Sequence[dict[str, Any]], shown: dict[str, Any], prices: dict[str, float] | None) -> dict[str, Any]:
    """The batch's totals and rates (metrics.json's ``totals``)."""
    counts = Counter(shown[r["run_id"]][0] for r in rows)
    out: dict[str, Any] = {
        "runs": len(rows),
        **{o: counts[o] for o in OUTCOME_ORDER},
        **rates.rate_fields(counts),
        "human_decided": sum(1 for r in rows if shown[r["run_id"]][1] is not None),
        **{k: sum(int(r.get(k) or 0) for r in rows) for k in ("steps", "input_tokens", "output_tokens", "cached_tokens")},
        **{k: sum(float(r.get(k) or 0) for r in rows) for k in ("model_ms", "read_ms", "act_ms", "other_ms")},
    }
    out["tokens"] = out["input_tokens"] + out["output_tokens"]
    out["cost"] = sum(token_cost(r, prices) or 0.0 for r in rows) if prices else None
    out["prices_per_million"] = prices
    return out


def header_lines(meta: dict[str, Any]) -> list[str]:
    """Where the numbers come from: store, passes, judge versions, date."""
    lines = [f"- store: {meta.get('store')}", f"- written: {_at(meta.get('generated_at'))}"]
    for p in meta.get("passes", []):
        lines.append(f"- verdicts of pass {p['pass_id']} ({p.get('kind')}, {_at(p.get('started_at'))}"
                     f" by {p.get('by')}): {plural(p['runs_in_report'], 'run')}")
    versions = meta.get("judge_versions") or {}
    if versions:
        lines.append("- judge versions: " + ", ".join(f"{k} {v}" for k, v in sorted(versions.items())))
    return lines


def build(
    batch: str,
    rows: Sequence[dict[str, Any]],
    *,
    overrides: Sequence[dict[str, Any]] = (),
    holdout_views: Sequence[dict[str, Any]] = (),
    split: str = "tune",
    prices: dict[str, float] | None = None,
    share: bool = False,
    unjudged: Sequence[str] = (),
    meta: dict[str, Any] | None = None,
    device: bool = True,
    agreement: Sequence[dict[str, Any]] = (),
) -> dict[str, str]:
    """The three report files for one batch: {file name: content}.

    ``rows``: one per judged run, the automatic verdict row (``outcome`` is the judge's)
    merged with the run's figures (runs view) and ``answer``, ``images``, ``device``,
    ``first_feedback_ms``, ``turns``. ``meta``: store, generated_at, passes (their rows with
    ``runs_in_report``), judge_versions. ``device``: the batch has runs of a device suite (its
    sections: categories, first feedback, turns, markers left on devices). ``agreement``: how
    each judge version agrees with people on the batch's re-judged runs
    (trajectory.query.people.agreement_by_task).
    """
    meta = dict(meta or {})
    if share:
        from trajectory.reports.share import safe_id

        rows, overrides, meta, holdout_views = for_sharing(rows, overrides, meta, holdout_views)
        batch = safe_id(batch, "batch") or "[batch]"
        agreement = [{**a, "suite": safe_id(a["suite"], "suite"), "task": safe_id(a["task"], "task"),
                      "judge_version": safe_id(a["judge_version"], "version")} for a in agreement]
    rows = sorted(rows, key=lambda r: (r.get("task") or "", r["run_id"]))
    shown = {r["run_id"]: effective(r, overrides) for r in rows}
    counts: Counter[str] = Counter(v[0] for v in shown.values())

    lines = [f"# Report: batch {batch} ({split} pool)", ""]
    lines += header_lines(meta)
    lines += ["", *holdout_line(holdout_views), ""]
    lines += ["## Pass rate", "", pass_rate_line(counts), ""]

    # Counts and pass rates per category (device suites) or task.
    group = "category" if device else "task"
    lines += [f"## Results by {group}", "", f"| {group} | runs | {' | '.join(OUTCOME_ORDER)} | pass rate |",
              "|---" * (len(OUTCOME_ORDER) + 3) + "|"]
    by_group: dict[str, Counter[str]] = defaultdict(Counter)
    for r in rows:
        key = (_details(r).get("category") if device else r.get("task")) or "—"
        by_group[key][shown[r["run_id"]][0]] += 1
    for key in sorted(by_group):
        c = by_group[key]
        lines.append(f"| {key} | {sum(c.values())} | " + " | ".join(str(c[o]) for o in OUTCOME_ORDER)
                     + f" | {rates.percent(rates.pass_rate(c))} |")
    lines.append(f"| **all** | {sum(counts.values())} | " + " | ".join(str(counts[o]) for o in OUTCOME_ORDER)
                 + f" | {rates.percent(rates.pass_rate(counts))} |")
    n_over = sum(1 for r in rows if shown[r["run_id"]][1] is not None)
    if n_over:
        lines.append(f"\n{plural(n_over, 'verdict')} re-judged by a person (see below).")
    if unjudged:
        # A shared copy names no store (its path is not on the allow-list).
        judge = "traj judge" if share else hint("traj judge")
        lines.append(f"\n{plural(len(unjudged), 'run')} of this batch not judged "
                     f"(open, or not judged yet: run `{judge}`).")
    lines.append("")

    # Run summary.
    lines += ["## Run summary", "", f"- runs: {len(rows)}"]
    ff = sorted(float(r["first_feedback_ms"]) for r in rows if r.get("first_feedback_ms") is not None)
    if device and ff:
        lines.append(f"- time to first feedback: median {_secs(ff[len(ff) // 2])}, max {_secs(ff[-1])}")
    if device and rows:
        turns = [r.get("turns") or 0 for r in rows]
        lines.append(f"- turns: {sum(turns)} in all, {sum(turns) / len(rows):.1f} per run")
    t = totals(rows, shown, prices)
    parts = {k: t[f"{k}_ms"] for k in ("model", "read", "act", "other")}
    whole = sum(parts.values())
    lines.append(
        "- where the time went: " + ", ".join(
            f"{name} {_secs(parts[k])} ({_pct(parts[k], whole)})"
            for k, name in (("model", "model"), ("read", "screen reading"), ("act", "actions"), ("other", "other"))
        )
    )
    lines.append(f"- tokens: {t['input_tokens']} in ({t['cached_tokens']} cached), {t['output_tokens']} out")
    if prices:
        lines.append(f"- token cost: {t['cost']:.4f} (per million: in {prices.get('in', 0)}, out {prices.get('out', 0)}, "
                     f"cached {prices.get('cached', prices.get('in', 0))})")
    over = [r for r in rows if _details(r).get("over_steps") or _details(r).get("over_time")]
    if over:
        lines.append(f"- over budget (verdicts unchanged): {plural(len(over), 'run')}")
    lines.append("")

    # One line per task.
    lines += ["## Tasks", "", "| task | run | verdict | steps | time | reason |", "|---|---|---|---|---|---|"]
    for r in rows:
        d = _details(r)
        verdict, o, settled = shown[r["run_id"]]
        v = verdict if o is None else f"{r['outcome'] or 'unjudged'} → {verdict} (human{', settled' if settled else ''})"
        steps = f"{r.get('steps')}" + (f"/{d['maxSteps']}" if d.get("maxSteps") else "") + (" over" if d.get("over_steps") else "")
        time = _secs(r.get("duration_ms")) + (f"/{d['timeoutSec']}s" if d.get("timeoutSec") else "") + (" over" if d.get("over_time") else "")
        # An overridden row gives the person's reason, the judge's after it.
        reason = r.get("reason") or ""
        if o is not None:
            reason = f"{o['by']}: “{o['evidence']}”" + (f" (judge: {reason})" if reason else "")
        reason = reason.replace("|", "\\|").replace("\n", " ")
        lines.append(f"| {r.get('task')} | {r['run_id']} | {v} | {steps} | {time} | {reason} |")
    lines.append("")

    # Human re-judging.
    lines += ["## Human re-judging", ""]
    row_of = {r["run_id"]: r for r in rows}
    mine = sorted((o for o in overrides if o["run_id"] in row_of), key=lambda o: o["at"])
    if not mine:
        lines.append("(none)")
    for o in mine:
        r = row_of[o["run_id"]]
        settled = r.get("judged_at") is not None and r["judged_at"] > o["at"] and r["outcome"] == o["to_outcome"]
        cat = f" [{o['category']}]" if o.get("category") else ""
        lines.append(
            f"- {o['task']}: {o.get('auto_outcome') or 'unjudged'} → {o['to_outcome']}{cat} — evidence: “{o['evidence']}”"
            f" — by {o['by']}, {_at(o['at'])} (run {o['run_id']})" + (" — settled" if settled else "")
        )
    lines.append("")

    from trajectory.reports.agreement import agreement_lines

    lines += agreement_lines(agreement)

    if device:
        lines += ["## Markers left on devices (clean up by hand)", ""]
        markers = []
        for r in rows:
            d = _details(r)
            if d.get("marker") and r["outcome"] != "skipped":
                where = f" on {r['device']}" if r.get("device") else ""
                markers.append(f"- `{d['marker']}` ({r.get('task')}{where})")
        lines += sorted(set(markers)) or ["(none)"]
    summary = "\n".join(lines).rstrip("\n") + "\n"

    scores = []
    metrics = []
    for r in rows:
        verdict, o, settled = shown[r["run_id"]]
        entry: dict[str, Any] = {
            "task": r.get("task"), "run_id": r["run_id"], "batch": r.get("batch"), "split": r.get("split"),
            "agent": r.get("agent"), "model": r.get("model"), "verdict": verdict, "auto_verdict": r["outcome"],
            "decided_by": "judge" if o is None else "human", "score": r.get("score"), "reason": r.get("reason"),
            "pass_id": r.get("pass_id"), "judge_version": r.get("judge_version"),
            "checks": _checks(r), "metrics": run_metrics(r, prices),
        }
        if o is not None:
            entry["override"] = {"to": o["to_outcome"], "category": o.get("category"), "by": o["by"],
                                 "evidence": o["evidence"], "settled": settled}
        for key in ("device", "answer"):
            if key in r:
                entry[key] = r.get(key)
        scores.append(json.dumps(entry, ensure_ascii=False, default=str))
        metrics.append({"task": r.get("task"), "run_id": r["run_id"], **run_metrics(r, prices)})
    doc = {"batch": batch, "split": split, **{k: meta.get(k) for k in ("store", "generated_at", "passes", "judge_versions")},
           "totals": totals(rows, shown, prices), "agreement": list(agreement), "runs": metrics}
    return {
        "summary.md": summary,
        "scores.jsonl": "\n".join(scores) + ("\n" if scores else ""),
        "metrics.json": json.dumps(doc, ensure_ascii=False, indent=2, default=str) + "\n",
    }


# -- gathering from the store -----------------------------------------------------------------


def gather(
    store: Any, batch: str, split: str, suite: str | None = None, progress: Any = None
) -> tuple[list[dict[str, Any]], list[str]]:
    """The batch's judged runs as report rows (the automatic verdict in ``outcome``; human
    overrides are applied by :func:`build`), and the ids of its runs without a verdict.
    ``progress(done, total)`` is told as the runs are replayed."""
    from replay import replay

    from trajectory.errors import NotFound
    from trajectory.judging import JUDGEMENT_SUITE, load_events
    from trajectory.query.names import check_names
    from trajectory.query.sql import Views, run_filter

    cond, params = run_filter(suite=suite, batch=batch)
    cond += " AND suite IS DISTINCT FROM ?"
    params.append(JUDGEMENT_SUITE)
    with Views(store, split=split) as views:
        check_names(views.con, suite=suite, batch=batch)
        runs = {r["run_id"]: r for r in views.arrow(f"SELECT * FROM runs WHERE {cond}", params).to_pylist()}
        verdicts = views.arrow(f"SELECT * FROM verdicts WHERE {cond}", params).to_pylist()
    if not runs:
        raise NotFound(f"no runs of batch {batch!r} in the {split} pool" + (f" of suite {suite}" if suite else ""))
    judged = {v["run_id"] for v in verdicts}
    events = load_events(store, [v["run_id"] for v in verdicts])
    rows = []
    for i, v in enumerate(verdicts):
        if progress is not None and i % 50 == 0:
            progress(i, len(verdicts))
        evs = events[v["run_id"]]
        state = replay(evs)
        run = runs.get(v["run_id"], {})
        metrics = state.metrics if isinstance(state.metrics, dict) else {}
        turns = metrics.get("turns")
        rows.append({
            **{k: run.get(k) for k in ("agent", "model", "device")},
            **{k: int(run.get(k) or 0) for k in ("steps", "input_tokens", "output_tokens", "cached_tokens")},
            **{k: float(run.get(k) or 0) for k in ("model_ms", "read_ms", "act_ms", "other_ms")},
            "duration_ms": None if run.get("duration_ms") is None else float(run["duration_ms"]),
            **v,
            # The verdicts view is override-aware; build() applies the overrides itself.
            "outcome": v["auto_outcome"], "score": v["auto_score"], "reason": v["auto_reason"],
            "answer": state.answer if state.answer is not None else (
                None if state.sheet.value(0) is None else str(state.sheet.value(0))),
            "images": [s.image for s in state.screens if s.image],
            "device": state.device,
            "first_feedback_ms": first_feedback_ms(evs),
            "turns": turns if isinstance(turns, int) and not isinstance(turns, bool) else state.n_steps,
        })
    return rows, sorted(set(runs) - judged)


def overrides_of(store: Any, run_ids: set[str]) -> list[dict[str, Any]]:
    if not store.has_table("overrides"):
        return []
    return [o for o in store.read("overrides").to_pylist() if o["run_id"] in run_ids]


def report_meta(store: Any, rows: Sequence[dict[str, Any]]) -> tuple[dict[str, Any], bool]:
    """The report's provenance (store, date, the passes its verdicts come from with their
    judge versions) and whether any of its runs belongs to a device suite."""
    from trajectory.judging import SuiteResolver, passes
    from trajectory.store.delta import now_utc

    used = Counter(r.get("pass_id") for r in rows if r.get("pass_id"))
    shown, versions = [], {}
    for p in passes(store):
        if p["pass_id"] in used:
            shown.append({k: p[k] for k in ("pass_id", "kind", "started_at", "finished_at", "by")}
                         | {"runs_in_report": used[p["pass_id"]]})
            versions.update(json.loads(p.get("versions") or "{}"))
    resolver = SuiteResolver(store)
    suites = {r.get("suite") for r in rows}
    device = any(is_device_suite(resolver, n) for n in suites if n)
    meta = {"store": str(store.loc), "generated_at": now_utc(), "passes": shown,
            "judge_versions": {k: v for k, v in versions.items() if k in suites}}
    return meta, device


def is_device_suite(resolver: Any, name: str) -> bool:
    """Whether ``name`` is a real-device task set: a registered one's registration says so (a
    report imports no registered code), a bundled one's module does."""
    from trajectory.catalog.registrations import is_device

    reg = resolver.registered().get(name)
    if reg is not None:
        return is_device(reg)
    suite = resolver.builtin().get(name)
    return suite is not None and type(suite).__module__.startswith("suites.device")


def write_report(
    store: Any,
    batch: str,
    out: Any,
    *,
    split: str = "tune",
    suite: str | None = None,
    prices: dict[str, float] | None = None,
    share: bool = False,
    progress: Any = None,
) -> dict[str, Any]:
    """Write the three files for a batch into folder ``out``; returns file name -> path.
    All three appear together or none does (an interrupted report leaves no half of one)."""
    import os
    from pathlib import Path

    from trajectory.runtime import interrupts
    from trajectory.errors import QueryError
    from trajectory.query.sql import SPLITS, holdout_views, record_holdout_view

    if split not in SPLITS:
        raise QueryError(f"--split must be one of {', '.join(SPLITS)}, got {split!r}")
    rows, unjudged = gather(store, batch, split, suite, progress)
    if split == "holdout":
        record_holdout_view(store, "report", {"batch": batch})
    meta, device = report_meta(store, rows)
    from trajectory.query.people import agreement_by_task

    files = build(
        batch, rows,
        overrides=overrides_of(store, {r["run_id"] for r in rows}),
        holdout_views=holdout_views(store),
        split=split, prices=prices, share=share, unjudged=unjudged, meta=meta, device=device,
        agreement=agreement_by_task(store, split, [r["run_id"] for r in rows]),
    )
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    tmp = {name: out / f".{name}.{os.getpid()}.tmp" for name in files}
    try:
        for name, text in files.items():
            tmp[name].write_text(text, encoding="utf-8")
        with interrupts.committing():
            for name in files:
                os.replace(tmp[name], out / name)
            interrupts.note(f"report files in {out}")
    finally:
        for path in tmp.values():
            path.unlink(missing_ok=True)
    return {name: out / name for name in files}


def suite_report(store: Any, name: str, fmt: str = "md", *, split: str = "tune") -> str:
    """A suite's own report (``traj report --suite NAME``): its current verdicts in the pool,
    rendered by the suite."""
    from judges.contract import ReportRendering

    from trajectory.errors import NotFound, QueryError
    from trajectory.judging import SuiteResolver
    from trajectory.query.names import check_names
    from trajectory.query.sql import Views

    from trajectory.errors import JudgeError

    check_names(store, suite=name)  # a typo is not a suite without a report, nor an empty table
    resolver = SuiteResolver(store)
    suite = resolver.get(name)  # a registered suite only once trusted here: rendering runs its code
    if name in resolver.untrusted:
        raise JudgeError(f"not rendered: {resolver.untrusted[name]}")
    if not isinstance(suite, ReportRendering):
        raise NotFound(f"suite {name!r} has no report of its own; give --batch")
    if fmt not in suite.report_formats:
        raise QueryError(f"unknown report format {fmt!r} ({', '.join(suite.report_formats)})")
    with Views(store, split=split) as views:
        rows = views.arrow("SELECT * FROM verdicts WHERE suite = ? ORDER BY run_id", [name]).to_pylist()
    text = suite.render_report(rows, fmt)
    if fmt == "csv":  # whatever the suite wrote, no cell is a formula a spreadsheet would run
        from trajectory.text import spreadsheet_safe_csv

        text = spreadsheet_safe_csv(text)
    return text
