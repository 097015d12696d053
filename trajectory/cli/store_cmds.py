"""Commands over the store itself: ingest, export, schema, query, runs, show, compact, recover,
migrate, status. Each parses its options and calls a plain function of the library."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from replay import view
from trajectory import events as ev
from trajectory.export import export_events
from trajectory.ingest import DEFAULT_LIMITS, Limits, ingest_files
from trajectory.judging import SuiteResolver
from trajectory.query import format_table
from trajectory.query_limits import MAX_ROWS, MEMORY, TIMEOUT, QueryLimits, human_size
from trajectory.recorder import recover
from trajectory.show import list_runs, run_query, status as store_status, timeline
from trajectory.store import migrate as migrate_store
from trajectory.termsafe import term_safe

from .common import JsonOpt, StoreOpt, echo_json, handle_errors, open_store

SplitOpt = Annotated[
    str,
    typer.Option("--split", help="Pool to show: tune (default) or holdout (the look is recorded)."),
]

export_app = typer.Typer(help="Write stored data out.", no_args_is_help=True)


@handle_errors
def ingest(
    files: Annotated[list[str], typer.Argument(help="JSON Lines files, or - for standard input.")],
    store: StoreOpt = None,
    max_line_bytes: Annotated[int, typer.Option(min=1, help="Longest accepted line.")] = DEFAULT_LIMITS.max_line_bytes,
    max_depth: Annotated[int, typer.Option(min=1, help="Deepest accepted JSON nesting.")] = DEFAULT_LIMITS.max_depth,
    max_events_per_run: Annotated[int, typer.Option(min=1, help="Most events accepted in one run.")] = DEFAULT_LIMITS.max_events_per_run,
    workers: Annotated[
        int | None, typer.Option(min=1, help="Processes that validate a file's chunks (default: one per core).")
    ] = None,
    trust_judgements: Annotated[
        bool,
        typer.Option(help="Let the LLM judgement runs in these files count (e.g. exported from a store you trust)."),
    ] = False,
) -> None:
    """Append events; each file is one batch, written entirely or not at all."""
    s = open_store(store)
    limits = Limits(max_line_bytes, max_depth, max_events_per_run)
    total = [0, 0, 0, 0]
    failed = False
    results = ingest_files(
        s, files, limits, split_of=SuiteResolver(s).split_of, workers=workers, trust_judgements=trust_judgements
    )
    for name, result in results:
        if isinstance(result, Exception):
            typer.echo(f"error: {result}", err=True)
            typer.echo(f"{name}: refused, nothing written", err=True)
            failed = True
            continue
        typer.echo(result.line())
        if result.trusted is not None:
            typer.echo(f"{result.source}: {result.trusted} judgement runs newly trusted")
        for i, v in enumerate((result.runs, result.events, result.new, result.present)):
            total[i] += v
    if len(files) > 1:
        typer.echo(f"total: {total[0]} runs, {total[1]} events read: {total[2]} new, {total[3]} already present")
    if failed:
        raise typer.Exit(1)


@handle_errors
def export(
    run: Annotated[list[str] | None, typer.Option("--run", help="Only this run (repeatable).")] = None,
    suite: Annotated[str | None, typer.Option(help="Only runs of this suite.")] = None,
    batch: Annotated[str | None, typer.Option(help="Only runs of this batch.")] = None,
    out: Annotated[Path | None, typer.Option("--out", help="File to write (default: stdout).")] = None,
    version: Annotated[int | None, typer.Option(help="Read the events table as of this version.")] = None,
    store: StoreOpt = None,
) -> None:
    """Write events as the spec's JSON Lines; ingesting them elsewhere reproduces them."""
    s = open_store(store)
    sink = open(out, "wb") if out else sys.stdout.buffer  # noqa: SIM115
    try:
        n = export_events(s, sink, run_ids=run, suite=suite, batch=batch, version=version)
    finally:
        if out:
            sink.close()
        else:
            sink.flush()
    if out:
        typer.echo(f"wrote {n} events to {out}")


@handle_errors
def schema() -> None:
    """Print the JSON Schema of one event line (docs/events.md says it for people)."""
    typer.echo(json.dumps(ev.json_schema(), ensure_ascii=False, indent=2))


@handle_errors
def query(
    sql: Annotated[str, typer.Argument(help="One SELECT over events, runs, verdicts, verdict_history, passes, overrides.")],
    format: Annotated[str, typer.Option("--format", help="table, csv, json or jsonl.")] = "table",
    split: SplitOpt = "tune",
    version: Annotated[int | None, typer.Option(help="Read the events table as of this version.")] = None,
    timeout: Annotated[
        float, typer.Option(help=f"Stop the query after this many seconds (at most {TIMEOUT.high:g}).")
    ] = TIMEOUT.default,
    max_rows: Annotated[
        int, typer.Option(help=f"Refuse a result with more rows (at most {int(MAX_ROWS.high):,}).")
    ] = int(MAX_ROWS.default),
    max_memory: Annotated[
        str, typer.Option(help=f"Memory the query may use, e.g. 512MiB (at most {human_size(MEMORY.high)}).")
    ] = human_size(MEMORY.default).replace(" ", ""),
    store: StoreOpt = None,
) -> None:
    """Answer SQL over the store, read-only and sandboxed, within time, row and memory limits."""
    limits = QueryLimits.checked(timeout, max_rows, max_memory)
    table = run_query(open_store(store), sql, split=split, version=version, limits=limits)
    text = format_table(table, format)
    typer.echo(term_safe(text) if format == "csv" and sys.stdout.isatty() else text)


@handle_errors
def runs(
    suite: Annotated[str | None, typer.Option(help="Only this suite.")] = None,
    batch: Annotated[str | None, typer.Option(help="Only this batch.")] = None,
    split: SplitOpt = "tune",
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """List runs, one line each."""
    table = list_runs(open_store(store), suite=suite, batch=batch, split=split)
    typer.echo(format_table(table, "jsonl" if json_ else "table"))


@handle_errors
def show(
    run_id: Annotated[str, typer.Argument(help="The run.")],
    at: Annotated[int | None, typer.Option("--at", help="Replay events 0..SEQ only.")] = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """A run's timeline and its replayed state at a step."""
    state, lines = timeline(open_store(store), run_id, at)
    if json_:
        echo_json(view(state))
        return
    typer.echo(term_safe("\n".join(lines)))  # stored text: control sequences shown, not obeyed


@handle_errors
def compact(store: StoreOpt = None) -> None:
    """Merge small files into large ones; every query returns the same rows after."""
    for r in open_store(store).compact_all():
        typer.echo(f"{r['table']}: {r['files_before']} files -> {r['files_after']}")


@handle_errors
def recover_(store: StoreOpt = None) -> None:
    """Seal the journals of recorders that died; live recorders are left alone."""
    results = recover(open_store(store))
    if not results:
        typer.echo("no journals to recover")
    rejected = 0
    for path, report in results:
        if report is None:
            typer.echo(f"{path.name}: writer still alive, left alone")
        elif report.rejected is not None:
            rejected += 1
            typer.echo(
                f"{path.name}: not sealed whole: {report.rejected}; {report.new} new events sealed; "
                f"the journal is kept at {report.kept_at}",
                err=True,
            )
        else:
            typer.echo(f"{path.name}: sealed, {report.new} new events, {report.present} already present")
    if rejected:
        raise typer.Exit(1)


@handle_errors
def migrate(store: StoreOpt = None) -> None:
    """Record or upgrade the store's format explicitly (never done silently)."""
    typer.echo(migrate_store(store))


@handle_errors
def status(store: StoreOpt = None) -> None:
    """What the store holds: table versions and files, open journals."""
    st = store_status(open_store(store))
    typer.echo(f"store {st['store']} (format {st['format']})")
    for name, t in st["tables"].items():
        typer.echo(f"  {name}: version {t['version']}, {t['files']} files")
    if st["journals"]:
        typer.echo(f"  journals: {st['journals']} open (live recorders or dead ones: `traj recover`)")


def register(app: typer.Typer) -> None:
    app.add_typer(export_app, name="export")
    export_app.command("events")(export)
    for fn in (ingest, schema, query, runs, show, compact, migrate, status):
        app.command()(fn)
    app.command("recover")(recover_)
