"""Judging commands: judge, diff, passes."""

from __future__ import annotations

from typing import Annotated

import typer

from trajectory.judging import (
    SuiteResolver,
    diff_passes,
    dry_run_diff,
    judge_runs,
    passes,
    render_diff,
)
from trajectory.query import format_table

from .common import JsonOpt, StoreOpt, command_line, echo_json, handle_errors, open_store


def register(app: typer.Typer) -> None:
    @app.command()
    @handle_errors
    def judge(
        suite: Annotated[str | None, typer.Option(help="Only runs of this suite.")] = None,
        run: Annotated[list[str] | None, typer.Option("--run", help="Only this run (repeatable).")] = None,
        where: Annotated[str | None, typer.Option(help="SQL condition on the runs view.")] = None,
        batch: Annotated[str | None, typer.Option(help="Only runs of this batch.")] = None,
        dry_run: Annotated[bool, typer.Option("--dry-run", help="Judge and show the diff; write nothing.")] = False,
        json_: JsonOpt = False,
        store: StoreOpt = None,
    ) -> None:
        """Judge finished runs with the current judge code; each call is one pass."""
        s = open_store(store)
        result = judge_runs(
            s,
            SuiteResolver(s),
            suite=suite,
            run_ids=run,
            where=where,
            batch=batch,
            dry_run=dry_run,
            command=command_line(),
        )
        if json_:
            echo_json({"pass_id": result.pass_id, "written": result.written, "open_runs": result.open_runs,
                       "counts": dict(result.counts), "verdicts": result.rows if dry_run else None})
            return
        typer.echo(result.summary())
        if dry_run:
            typer.echo(render_diff(dry_run_diff(s, result)))

    @app.command()
    @handle_errors
    def diff(
        pass_a: Annotated[str | None, typer.Argument(help="Earlier pass (default: see below).")] = None,
        pass_b: Annotated[str | None, typer.Argument(help="Later pass.")] = None,
        json_: JsonOpt = False,
        store: StoreOpt = None,
    ) -> None:
        """Verdict flips between two passes (default: the latest two over the same runs)."""
        s = open_store(store)
        d = diff_passes(s, pass_a, pass_b)
        if json_:
            echo_json(d.to_json())
        else:
            typer.echo(render_diff(d))

    @app.command("passes")
    @handle_errors
    def passes_cmd(json_: JsonOpt = False, store: StoreOpt = None) -> None:
        """List judging passes, oldest first."""
        import pyarrow as pa

        rows = passes(open_store(store))
        cols = ["pass_id", "kind", "started_at", "runs", "by", "command"]
        table = pa.Table.from_pylist([{c: r[c] for c in cols} for r in rows]) if rows else pa.table({c: [] for c in cols})
        typer.echo(format_table(table, "jsonl" if json_ else "table"))
