"""``traj demo``: the whole loop on sample runs — record, judge with a broken rule, judge with
the bundled suites, show what the fix flipped, query; then it points to ``traj view``.

The sample runs are recorded live through the Recorder into a scratch store, then exported and
ingested into the target store, like a team would move runs between stores. Ingest is
idempotent, so running the demo twice adds no events, only two more judging passes. The
bundled suites are right; the broken rules live with the demo (:mod:`.broken`), applied to
copies of the suites.
"""

from __future__ import annotations

import dataclasses
import shlex
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import suites as suite_pkg
from judges.base import OUTCOMES
from judges.contract import DemoSamples

from trajectory import events as ev
from trajectory.runtime import interrupts
from trajectory.reports.export import export_events
from trajectory.ingest.files import ingest_bytes
from trajectory.judging import SuiteResolver, compare, judge_runs, pass_rows, render_diff
from trajectory.judging.diff import shown_split
from trajectory.judging.passes import shown_pool
from trajectory.query.sql import Views, format_table, sql_str
from trajectory.records import VerdictRow
from trajectory.store.delta import Store
from trajectory.text import hint, plural
from trajectory.demo import broken, samples

Out = Callable[[str], Any]

QUERIES = [
    (
        "pass rate by suite and task",
        # pass_rates: the one definition, pass / (pass + fail), the other outcomes counted apart.
        "SELECT suite, task, verdicts AS runs, round(pass_rate, 2) AS pass_rate, pass, fail, "
        "verdicts - rated AS counted_apart FROM pass_rates WHERE level = 'task' ORDER BY suite, task",
    ),
    (
        "where the time went, by batch",
        "SELECT batch, count(*) AS runs, sum(steps) AS steps, sum(tokens) AS tokens, "
        "round(sum(model_ms) / 1000, 1) AS model_s, round(sum(read_ms) / 1000, 1) AS read_s, "
        "round(sum(act_ms) / 1000, 1) AS act_s FROM runs GROUP BY batch ORDER BY batch",
    ),
]

VIEW_URL = "http://127.0.0.1:8000/"  # where `traj view` serves by default
NEXT = ("traj runs", "traj show gui-careful-02 --at 4", "traj diff", "traj judge --dry-run")


def record_all(store: Store, names: Sequence[str], out: Out = print) -> Any:
    """Record every named suite's sample runs in a scratch store and ingest them here."""
    import io

    # What goes into the scratch store is thrown away: its commits are no news on Ctrl-C.
    with interrupts.scratch_folder("traj-demo-") as tmp, interrupts.ledger():
        scratch = Store(Path(tmp) / "scratch")
        scratch.on_create = lambda: None  # a scratch store, thrown away: its creation is no news
        extra: list[bytes] = []
        for name in names:
            if name in samples.SAMPLES:
                samples.record(scratch, name)
                continue
            # A suite without recorded samples here may ship its own, as events.
            suite = suite_pkg.load_builtin(name)
            if isinstance(suite, DemoSamples):
                extra += [ev.encode(e) for run in suite.sample_runs() for e in run]
        lines = io.BytesIO()
        lines.write(b"".join(line + b"\n" for line in extra))
        if scratch.has_table("events"):
            export_events(scratch, lines)
    report = ingest_bytes(store, lines.getvalue(), "demo samples", split_of=SuiteResolver(store).split_of)
    out(f"ingested sample runs: {report.runs} runs, {report.events} events "
        f"({report.new} new, {report.present} already present)")
    return report


def broken_suites(names: Sequence[str], workdir: Path, out: Out = print) -> tuple[dict[str, Any], list[str]]:
    """Copy each bundled suite's folder, break its rule in the copy, load the copy.

    Returns the copies by every suite name they judge, and one line per suite saying what the
    bundled suite does right (the fix the demo shows).
    """
    copies: dict[str, Any] = {}
    fixes = []
    for name in names:
        if name not in broken.BREAKS:
            continue
        copy = workdir / name
        shutil.copytree(suite_pkg.builtin_folder(name), copy, ignore=shutil.ignore_patterns("__pycache__"))
        fixes.append(broken.BREAKS[name](copy))
        suite = suite_pkg.load_folder(copy)
        for alias in suite_pkg.aliases(suite):
            copies[alias] = suite
    return copies, fixes


def suite_condition(names: Sequence[str]) -> str:
    """The runs of the named bundled suites (under every name they judge), as SQL."""
    aliases: list[str] = []
    for name in names:
        aliases += suite_pkg.aliases(suite_pkg.load_builtin(name))
    return "suite IN (" + ", ".join(sql_str(a) for a in aliases) + ")"


def summary_table(rows: list[VerdictRow]) -> str:
    """Verdict counts per suite: what a person looks at first after a pass."""
    import pyarrow as pa

    counts: dict[str, dict[str, Any]] = {}
    for r in rows:
        c = counts.setdefault(r.suite, {"tasks": set(), "runs": 0, "pass": 0, "fail": 0,
                                           "error": 0, "skipped": 0, "na": 0, "review": 0})
        c["tasks"].add(r.task)
        c["runs"] += 1
        c[r.outcome] += 1
    table = pa.Table.from_pylist(
        [{"suite": s, **c, "tasks": len(c["tasks"])} for s, c in sorted(counts.items())]
    )
    return format_table(table)


def run_demo(store: Store, names: Sequence[str] | None = None, out: Out = print) -> dict[str, Any]:
    """The demo on ``store``: two judging passes (broken rules, then the bundled suites).
    Returns what it did (``traj demo --json``): the ingest, both passes, the flips."""
    names = list(names or suite_pkg.builtin_names())
    out(f"== traj demo on store {store.loc}")
    ingested = record_all(store, names, out)
    where = suite_condition(names)
    with interrupts.scratch_folder("traj-broken-") as tmp:
        out("\n== 1. judge with a copy of each suite that has one rule wrong")
        copies, fixes = broken_suites(names, Path(tmp), out)
        before = judge_runs(
            store, SuiteResolver(store, overrides=copies), where=where,
            command="traj demo (broken rules)", note="copies of the suites with the demo's broken rules",
        )
    # Shown as `traj judge` shows a pass: the tune pool's verdicts, the holdout runs apart.
    before, hidden = shown_pool(store, before, "tune")
    out(before.summary() + (f" (and {plural(hidden, 'holdout run')})" if hidden else ""))
    out(summary_table(before.rows))
    out("\n== 2. judge with the bundled suites, which have those rules right")
    for line in fixes:
        out(f"  fix: {line}")
    after = judge_runs(store, SuiteResolver(store), where=where, command="traj demo (bundled suites)")
    after, hidden = shown_pool(store, after, "tune")
    out(after.summary() + (f" (and {plural(hidden, 'holdout run')})" if hidden else ""))
    out("\n== 3. what the fix changed")
    rows_a = {r["run_id"]: r for r in pass_rows(store, before.pass_id)}
    rows_b = {r["run_id"]: r for r in pass_rows(store, after.pass_id)}
    # The tune pool's figures, as `traj diff` and the viewer count them (holdout runs apart).
    flips, hidden = shown_split(store, compare(rows_a, rows_b, before.pass_id, after.pass_id), "tune")
    out(render_diff(flips))
    if hidden:
        out(f"(and {plural(hidden, 'flip')} of holdout runs: shown with {hint('traj diff --split holdout', store.loc)})")
    out("\n== 4. ask the store")
    with Views(store) as views:
        for title, sql in QUERIES:
            quoted = f'"{sql}"' if not set(sql) & set('"$`\\!') else shlex.quote(sql)
            out(f"-- {title}\n$ {hint(f'traj query {quoted}', store.loc)}")
            out(format_table(views.user_query(sql)))
    out("\nNext, try:")
    for cmd in NEXT:
        out(f"  {hint(cmd, store.loc)}")
    out("\nOr see all of it in a browser (the flips with their evidence, each run at any step):")
    out(f"  {hint('traj view', store.loc)}    # then open {VIEW_URL}")
    counts = lambda r: {k: r.counts.get(k, 0) for k in OUTCOMES}  # noqa: E731
    return {
        "store": str(store.loc),
        "ingested": dataclasses.asdict(ingested),
        "broken_pass": {"pass_id": before.pass_id, "runs": len(before.rows), "counts": counts(before)},
        "fixed_pass": {"pass_id": after.pass_id, "runs": len(after.rows), "counts": counts(after)},
        "fixes": fixes,
        "diff": flips.to_json(),
    }
