"""``traj demo``: the whole loop on sample runs — record, judge, fix a rule, re-judge, diff, query.

The sample runs are recorded live through the Recorder into a scratch store, then exported and
ingested into the target store, like a team would move runs between stores. Ingest is
idempotent, so running the demo twice adds no events, only two more judging passes.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Annotated, Any

import typer

import suites as suite_pkg
from judges.base import Suite
from trajectory import events as ev
from trajectory.ingest import ingest_bytes
from trajectory.judging import SuiteResolver, compare, judge_runs, pass_rows, render_diff
from trajectory.query import Views, format_table
from trajectory.store import Store

from .common import StoreOpt, handle_errors, open_store

QUERIES = [
    (
        "pass rate by suite and task",
        "SELECT suite, task, count(*) AS runs, "
        "round(avg(CASE WHEN outcome = 'pass' THEN 1.0 ELSE 0.0 END), 2) AS pass_rate "
        "FROM verdicts GROUP BY suite, task ORDER BY suite, task",
    ),
    (
        "where the time went, by batch",
        "SELECT batch, count(*) AS runs, sum(steps) AS steps, sum(tokens) AS tokens, "
        "round(sum(model_ms) / 1000, 1) AS model_s, round(sum(read_ms) / 1000, 1) AS read_s, "
        "round(sum(act_ms) / 1000, 1) AS act_s FROM runs GROUP BY batch ORDER BY batch",
    ),
]


def record_all(store: Store, names: list[str], out: Any = typer.echo) -> None:
    """Record every suite's sample runs in a scratch store and ingest them here."""
    with tempfile.TemporaryDirectory(prefix="traj-demo-") as tmp:
        scratch = Store(Path(tmp) / "scratch")
        for name in names:
            module = suite_pkg.builtin_module(name)
            if hasattr(module, "record_samples"):
                module.record_samples(scratch)
        with Views(scratch, split=None) as views:
            datas = views.con.execute("SELECT data FROM events ORDER BY run_id, seq").fetchall()
        lines = b"\n".join(ev.encode(ev.decode(d[0])) for d in datas)
    report = ingest_bytes(store, lines, "demo samples", split_of=SuiteResolver(store).split_of)
    out(f"ingested sample runs: {report.runs} runs, {report.events} events "
        f"({report.new} new, {report.present} already present)")


def fixed_suites(names: list[str], workdir: Path, out: Any = typer.echo) -> dict[str, Suite]:
    """Copy each bundled suite's folder, apply its demo fix to the copy, load the copy."""
    fixed: dict[str, Suite] = {}
    for name in names:
        module = suite_pkg.builtin_module(name)
        if not hasattr(module, "apply_fix"):
            continue
        copy = workdir / name
        shutil.copytree(suite_pkg.builtin_folder(name), copy, ignore=shutil.ignore_patterns("__pycache__"))
        out(f"  fix: {module.apply_fix(copy)}")
        suite = suite_pkg.load_folder(copy)
        for alias in getattr(suite, "names", None) or (suite.name,):
            fixed[alias] = suite
    return fixed


def summary_table(rows: list[dict[str, Any]]) -> str:
    """Verdict counts per suite: what a person looks at first after a pass."""
    import pyarrow as pa

    counts: dict[str, dict[str, Any]] = {}
    for r in rows:
        c = counts.setdefault(r["suite"], {"tasks": set(), "runs": 0, "pass": 0, "fail": 0,
                                           "error": 0, "skipped": 0, "na": 0})
        c["tasks"].add(r["task"])
        c["runs"] += 1
        c[r["outcome"]] += 1
    table = pa.Table.from_pylist(
        [{"suite": s, **c, "tasks": len(c["tasks"])} for s, c in sorted(counts.items())]
    )
    return format_table(table)


def register(app: typer.Typer) -> None:
    @app.command()
    @handle_errors
    def demo(
        store: StoreOpt = None,
        suite: Annotated[list[str] | None, typer.Option("--suite", help="Only these bundled suites.")] = None,
    ) -> None:
        """Record sample runs, judge them, fix a rule in a copy of each suite, re-judge, diff, query."""
        s = open_store(store)
        names = suite or suite_pkg.builtin_names()
        typer.echo(f"== traj demo on store {s.loc}")
        record_all(s, names)
        typer.echo("\n== 1. judge with the bundled suites")
        resolver = SuiteResolver(s)
        before = judge_runs(s, resolver, where=_suite_filter(names), command="traj demo (before fix)")
        typer.echo(before.summary())
        typer.echo(summary_table(before.rows))
        typer.echo("\n== 2. fix a rule in a copy of each suite")
        with tempfile.TemporaryDirectory(prefix="traj-fix-") as tmp:
            fixed = fixed_suites(names, Path(tmp))
            after = judge_runs(
                s, SuiteResolver(s, overrides=fixed), where=_suite_filter(names),
                command="traj demo (after fix)", note="suites with the demo's rule fixes",
            )
        typer.echo(after.summary())
        typer.echo("\n== 3. what the fix changed")
        rows_a = {r["run_id"]: r for r in pass_rows(s, before.pass_id)}
        rows_b = {r["run_id"]: r for r in pass_rows(s, after.pass_id)}
        typer.echo(render_diff(compare(rows_a, rows_b, before.pass_id, after.pass_id)))
        typer.echo("\n== 4. ask the store")
        with Views(s) as views:
            for title, sql in QUERIES:
                typer.echo(f"-- {title}\n$ traj query \"{sql}\"")
                typer.echo(format_table(views.user_query(sql)))
        typer.echo("\nNext, try:")
        for cmd in ("traj runs", "traj show gui-careful-02 --at 4", "traj diff", "traj judge --dry-run"):
            typer.echo(f"  {cmd} --store {s.loc}")


def _suite_filter(names: list[str]) -> str:
    resolver = SuiteResolver()
    aliases: list[str] = []
    for name in names:
        suite = suite_pkg.load_builtin(name)
        aliases += list(getattr(suite, "names", None) or (suite.name,))
    del resolver
    return "suite IN (" + ", ".join("'" + a.replace("'", "''") + "'" for a in aliases) + ")"
