"""Judging commands: judge, diff, passes."""

from __future__ import annotations

import sys
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
from trajectory.termsafe import term_safe

from .common import JsonOpt, StoreOpt, command_line, echo_json, handle_errors, open_store


def _progress_line():  # noqa: ANN202
    """Progress on a terminal only: pipes and files get the summary line alone."""

    def show(done: int, total: int) -> None:
        typer.echo(f"\rjudged {done:,}/{total:,} runs", err=True, nl=False)

    return show


@handle_errors
def judge(
    suite: Annotated[str | None, typer.Option(help="Only runs of this suite.")] = None,
    run: Annotated[list[str] | None, typer.Option("--run", help="Only this run (repeatable).")] = None,
    where: Annotated[str | None, typer.Option(help="SQL condition on the runs view.")] = None,
    batch: Annotated[str | None, typer.Option(help="Only runs of this batch.")] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Judge and show the diff; write nothing.")] = False,
    all_: Annotated[
        bool,
        typer.Option(
            "--all",
            help="Judge every selected finished run, not only those whose verdict is missing or out of date.",
        ),
    ] = False,
    llm: Annotated[
        bool, typer.Option("--llm", help="First ask the LLM judge the prompts not yet answered, and record them.")
    ] = False,
    llm_base_url: Annotated[
        str | None, typer.Option(help="Chat-completions base URL (else $TRAJ_LLM_BASE_URL, $OPENAI_BASE_URL).")
    ] = None,
    llm_key: Annotated[
        str | None, typer.Option(help="API key (else $TRAJ_LLM_API_KEY, $OPENAI_API_KEY).", show_default=False)
    ] = None,
    llm_model: Annotated[str | None, typer.Option(help="Judge model (else $TRAJ_LLM_MODEL).")] = None,
    llm_deadline: Annotated[
        float | None, typer.Option(help="Seconds one prompt may take, all tries included [default: 180].")
    ] = None,
    llm_pass_deadline: Annotated[
        float | None, typer.Option(help="Seconds all prompts of this pass may take [default: 1800].")
    ] = None,
    llm_max_reply: Annotated[int | None, typer.Option(help="Largest reply accepted, in bytes [default: 1048576].")] = None,
    llm_retries: Annotated[int | None, typer.Option(help="Retries per prompt [default: 3].")] = None,
    llm_retry_budget: Annotated[
        int | None, typer.Option(help="Retries all prompts of this pass may spend [default: 20].")
    ] = None,
    workers: Annotated[int, typer.Option(help="Judge on this many processes (same verdicts either way).")] = 1,
    timeout: Annotated[
        float, typer.Option(help="Per-run time budget in seconds; a judge past it gives an error verdict (0: none).")
    ] = 60.0,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Judge finished runs with the current judge code; each call is one pass.

    By default only the runs whose current verdict no longer stands are judged: no verdict yet,
    another judge version for their task, events added since, another pair partner or more
    recorded LLM judgements. The others keep their verdicts (judging them again gives the same).
    """
    s = open_store(store)
    resolver = SuiteResolver(s)
    limits = {
        "deadline": llm_deadline,
        "pass_deadline": llm_pass_deadline,
        "max_reply_bytes": llm_max_reply,
        "retries": llm_retries,
        "retry_budget": llm_retry_budget,
    }
    limits = {k: v for k, v in limits.items() if v is not None}
    if llm or llm_base_url or llm_key or llm_model or limits:
        from trajectory.llm import LLMError, ask_and_record, resolve_config

        if not llm:
            raise LLMError("--llm-base-url, --llm-key, --llm-model and the other --llm-* options go with --llm")
        if dry_run:
            raise LLMError("--llm records the model's answers; it cannot be combined with --dry-run")
        config = resolve_config(llm_base_url, llm_key, llm_model, **limits)
        report = ask_and_record(s, resolver, config, suite=suite, run_ids=run, where=where, batch=batch)
        typer.echo(report.line(), err=json_)
    result = judge_runs(
        s,
        resolver,
        suite=suite,
        run_ids=run,
        where=where,
        batch=batch,
        dry_run=dry_run,
        command=command_line(),
        workers=max(1, workers),
        timeout=timeout or None,
        progress=_progress_line() if sys.stderr.isatty() else None,
        incremental=not all_,
    )
    if sys.stderr.isatty():
        typer.echo("\r\033[K", err=True, nl=False)
    if json_:
        echo_json({"pass_id": result.pass_id, "written": result.written, "open_runs": result.open_runs,
                   "counts": dict(result.counts), "verdicts": result.rows if dry_run else None})
        return
    typer.echo(result.summary())
    if dry_run:
        typer.echo(term_safe(render_diff(dry_run_diff(s, result))))


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
        typer.echo(term_safe(render_diff(d)))


@handle_errors
def passes_cmd(json_: JsonOpt = False, store: StoreOpt = None) -> None:
    """List judging passes, oldest first."""
    import pyarrow as pa

    rows = passes(open_store(store))
    cols = ["pass_id", "kind", "started_at", "runs", "by", "command"]
    table = pa.Table.from_pylist([{c: r[c] for c in cols} for r in rows]) if rows else pa.table({c: [] for c in cols})
    typer.echo(format_table(table, "jsonl" if json_ else "table"))


def register(app: typer.Typer) -> None:
    app.command()(judge)
    app.command()(diff)
    app.command("passes")(passes_cmd)
