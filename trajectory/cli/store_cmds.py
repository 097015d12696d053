"""Commands over the store itself: ingest, export, schema, query, runs, show, compact, recover,
migrate, status. Each parses its options and calls a plain function of the library."""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from trajectory import events as ev
from trajectory.runtime import interrupts
from trajectory.reports.export import export_events
from trajectory.ingest.plain import DEFAULT_LIMITS, Limits
from trajectory.ingest.files import ingest_files
from trajectory.judging import SuiteResolver
from trajectory.query.sql import format_table
from trajectory.query.rates import rate_line
from trajectory.query.limits import MAX_ROWS, MEMORY, TIMEOUT, QueryLimits, human_size
from trajectory.ingest.recorder import recover
from trajectory.reports.show import list_runs, review_queue, run_query, show_json, status as store_status, timeline
from trajectory.store.delta import default_store_path
from trajectory.store.delta import migrate as migrate_store
from trajectory.redact import redact_text
from trajectory.termsafe import term_safe
from trajectory.text import hint, plural

from trajectory.cli.common import (
    EngineOpt, JsonOpt, RayAddressOpt, StoreOpt, command, echo_json, engine_cluster, handle_errors, open_store,
    progress, set_hints, show_progress, storage_options, sub_app,
)

SplitOpt = Annotated[
    str,
    typer.Option("--split", help="Pool to show: tune (default) or holdout (the look is recorded).", metavar="POOL"),
]
#: Rows `traj runs` shows in a table unless --limit says otherwise.
RUNS_PAGE = 50

export_app = sub_app("Write stored data out.")


def expand_inputs(names: list[str]) -> list[str]:
    """Files as given; a folder stands for its ``*.jsonl`` files, in name order."""
    out: list[str] = []
    for name in names:
        path = Path(name)
        out += [str(p) for p in sorted(path.glob("*.jsonl"))] if name != "-" and path.is_dir() else [name]
    return out


@handle_errors
def ingest(
    files: Annotated[list[str], typer.Argument(help="JSON Lines files or folders of them, or - for standard input.", metavar="FILE")],
    store: StoreOpt = None,
    max_line_bytes: Annotated[int, typer.Option(min=1, help="Longest accepted line.", metavar="N")] = DEFAULT_LIMITS.max_line_bytes,
    max_depth: Annotated[int, typer.Option(min=1, help="Deepest accepted JSON nesting.", metavar="N")] = DEFAULT_LIMITS.max_depth,
    max_events_per_run: Annotated[int, typer.Option(min=1, help="Most events accepted in one run.", metavar="N")] = DEFAULT_LIMITS.max_events_per_run,
    workers: Annotated[
        int | None, typer.Option(min=1, help="Processes that validate a file's chunks (default: one per core).", metavar="N")
    ] = None,
    trust_judgements: Annotated[
        bool,
        typer.Option(help="Let the LLM judgement runs in these files count (e.g. exported from a store you trust)."),
    ] = False,
    engine: EngineOpt = "local",
    ray_address: RayAddressOpt = None,
    json_: JsonOpt = False,
) -> None:
    """Append events; each file is one batch, written entirely or not at all."""
    s = open_store(store, create=True, json_=json_)
    limits = Limits(max_line_bytes, max_depth, max_events_per_run)
    total = [0, 0, 0, 0]
    files = expand_inputs(files)
    out: list[dict[str, Any]] = []
    with engine_cluster(engine, ray_address) as cluster, progress(
        "reading", enabled=show_progress(json_), unit="lines"
    ) as update:
        split_of = SuiteResolver(s).split_of
        if cluster is None:
            def trust(read: Any, source: str, report: Any) -> None:
                from trajectory.judging.trust import trust_file_judgements

                report.trusted = trust_file_judgements(s, read(), source, limits)

            results = ingest_files(s, files, limits, split_of=split_of, then=trust if trust_judgements else None,
                                   workers=workers, progress=lambda name, done, size: update(done, size, f"reading {name}"))
        else:
            from trajectory.engines.ray_engine import ingest_files_ray

            results = ingest_files_ray(s, files, limits, split_of=split_of, trust_judgements=trust_judgements)
        failed = _print_ingest(results, total, out, json_)
    if json_:
        for row in out:
            echo_json(row)
    elif len(files) > 1:
        typer.echo(f"total: {plural(total[0], 'run')}, {plural(total[1], 'event')} read: "
                   f"{total[2]} new, {total[3]} already present")
    if failed:
        raise typer.Exit(1)


def _print_ingest(results, total: list[int], out: list[dict[str, Any]], json_: bool) -> bool:  # noqa: ANN001
    """One line per file (refusals on stderr), adding to ``total`` and ``out`` (the JSON rows);
    whether any file was refused."""
    failed = False
    for name, result in results:
        if isinstance(result, Exception):
            typer.echo(redact_text(f"error: {result}"), err=True)
            typer.echo(f"{name}: refused, nothing written", err=True)
            out.append({"source": name, "refused": redact_text(str(result))})
            failed = True
            continue
        out.append(dataclasses.asdict(result))
        if not json_:
            typer.echo(result.line())
            if result.trusted is not None:
                typer.echo(f"{result.source}: {plural(result.trusted, 'judgement run')} newly trusted")
        for i, v in enumerate((result.runs, result.events, result.new, result.present)):
            total[i] += v
    return failed


@handle_errors
def export(
    run: Annotated[list[str] | None, typer.Option("--run", help="Only this run.", metavar="RUN")] = None,
    suite: Annotated[str | None, typer.Option(help="Only runs of this suite.", metavar="SUITE")] = None,
    batch: Annotated[str | None, typer.Option(help="Only runs of this batch.", metavar="BATCH")] = None,
    out: Annotated[Path | None, typer.Option("--out", help="File to write (default: stdout).", metavar="FILE")] = None,
    version: Annotated[int | None, typer.Option(help="Read the events table as of this version.", metavar="N")] = None,
    json_: Annotated[bool, typer.Option("--json", help="With --out: print what was written as JSON.")] = False,
    store: StoreOpt = None,
) -> None:
    """Write events as JSON Lines (docs/events.md); ingesting them elsewhere reproduces them."""
    s = open_store(store)
    if out is None:
        export_events(s, sys.stdout.buffer, run_ids=run, suite=suite, batch=batch, version=version)
        sys.stdout.buffer.flush()
        return
    # Written beside the target and renamed into place: an interrupted export leaves no
    # half-written file.
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as sink:
            n = export_events(s, sink, run_ids=run, suite=suite, batch=batch, version=version)
        with interrupts.committing():
            os.replace(tmp, out)
            interrupts.note(f"{out}")
    finally:
        tmp.unlink(missing_ok=True)
    if json_:
        echo_json({"out": str(out), "events": n})
    else:
        typer.echo(f"wrote {plural(n, 'event')} to {out}")


@handle_errors
def schema(json_: Annotated[bool, typer.Option("--json", help="Accepted for uniformity: the schema is JSON.")] = False) -> None:
    """Print the JSON Schema of one event line (docs/events.md says it for people)."""
    typer.echo(json.dumps(ev.json_schema(), ensure_ascii=False, indent=None if json_ else 2))


@handle_errors
def query(
    sql: Annotated[str, typer.Argument(help="One SELECT over events, runs, verdicts, verdict_history, passes, overrides.", metavar="SQL")],
    format: Annotated[str, typer.Option("--format", help="table, csv, json or jsonl.", metavar="FORMAT")] = "table",
    split: SplitOpt = "tune",
    version: Annotated[int | None, typer.Option(help="Read the events table as of this version.", metavar="N")] = None,
    timeout: Annotated[
        float, typer.Option(help=f"Stop the query after this many seconds (at most {TIMEOUT.high:g}).", metavar="SECONDS")
    ] = TIMEOUT.default,
    max_rows: Annotated[
        int, typer.Option(help=f"Refuse a result with more rows (at most {int(MAX_ROWS.high):,}).", metavar="N")
    ] = int(MAX_ROWS.default),
    max_memory: Annotated[
        str, typer.Option(help=f"Memory the query may use, e.g. 512MiB (at most {human_size(MEMORY.high)}).",
                          metavar="SIZE")
    ] = human_size(MEMORY.default).replace(" ", ""),
    json_: Annotated[bool, typer.Option("--json", help="JSON Lines, one object per row (same as --format jsonl).")] = False,
    store: StoreOpt = None,
) -> None:
    """Answer SQL over the store, read-only and sandboxed, within time, row and memory limits."""
    from trajectory.query.worker import warm

    warm()  # the worker's process starts importing while the store is opened
    limits = QueryLimits.checked(timeout, max_rows, max_memory)
    table = run_query(open_store(store), sql, split=split, version=version, limits=limits)
    format = "jsonl" if json_ else format
    if format == "jsonl" and table.num_rows == 0:
        # JSON Lines of no rows is no lines: say so where it does not mix with the rows.
        typer.echo("(0 rows)", err=True)
        return
    text = format_table(table, format)
    typer.echo(term_safe(text) if format == "csv" and sys.stdout.isatty() else text)


def _runs_table(rows: list[dict[str, Any]]) -> Any:
    import pyarrow as pa

    shown = []
    for r in rows:
        verdict = r["verdict"]
        if verdict is not None and r["decided_by"] == "human":
            verdict += " (human)"
        shown.append({
            "run_id": r["run_id"],
            "started": r["started_at"].strftime("%Y-%m-%d %H:%M") if r["started_at"] else None,
            "suite": r["suite"], "task": r["task"], "batch": r["batch"], "agent": r["agent"], "mode": r["mode"],
            "outcome": r["outcome"], "steps": r["steps"], "tokens": r["tokens"], "verdict": verdict,
            "reason": r["reason"] if r["verdict"] != "pass" or r["decided_by"] == "human" else None,
        })
    names = ["run_id", "started", "suite", "task", "batch", "agent", "mode", "outcome", "steps", "tokens",
             "verdict", "reason"]
    return pa.Table.from_pylist(shown) if shown else pa.table({n: [] for n in names})


@handle_errors
def runs(
    suite: Annotated[str | None, typer.Option(help="Only this suite.", metavar="SUITE")] = None,
    batch: Annotated[str | None, typer.Option(help="Only this batch.", metavar="BATCH")] = None,
    split: SplitOpt = "tune",
    limit: Annotated[
        int | None,
        typer.Option(help=f"Show at most N runs, the latest first (default {RUNS_PAGE} in a table, all with "
                          "--json; 0: all).", metavar="N", show_default=False),
    ] = None,
    verdict: Annotated[
        list[str] | None,
        typer.Option("--verdict", help="Only runs whose current verdict is one of these (comma-separated: "
                     "review,na is the queue a person works), listed oldest first. --outcome is not this: "
                     "how a run ended is its outcome column.", metavar="OUTCOMES"),
    ] = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """List runs, the latest first, with their current verdicts and why."""
    n = (None if json_ else RUNS_PAGE) if limit is None else (limit or None)
    table, total, outcomes = list_runs(open_store(store), suite=suite, batch=batch, split=split, limit=n,
                                       verdicts=verdict)
    none = f"(0 runs whose current verdict is {', '.join(verdict)})" if verdict else "(0 runs)"
    if json_:
        for row in table.to_pylist():
            echo_json(row)
        if not table.num_rows:
            typer.echo(none, err=True)
        return
    if verdict and not total:
        typer.echo(none)
        return
    typer.echo(format_table(_runs_table(table.to_pylist())).rsplit("\n", 1)[0])
    more = total - table.num_rows
    if more > 0:
        typer.echo(f"({table.num_rows} of {plural(total, 'run')}; {more} more; use --limit {total} to see all)")
    else:
        typer.echo(f"({plural(total, 'run')})")
    judged = {o: n for o, n in outcomes.items() if o is not None}
    if judged:
        # The one pass rate (trajectory/rates.py), over all the runs listed, not only this page.
        line = f"current verdicts: {rate_line(judged)}"
        if outcomes.get(None):
            line += f"; {outcomes[None]} not judged"
        typer.echo(line)


@handle_errors
def show(
    run_id: Annotated[str, typer.Argument(help="The run.", metavar="RUN")],
    at: Annotated[int | None, typer.Option("--at", help="Replay events 0..SEQ only.", metavar="SEQ")] = None,
    split: SplitOpt = "tune",
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """A run's timeline, its replayed state at a step, and its verdict with every check."""
    s = open_store(store)
    if json_:
        echo_json(show_json(s, run_id, at, split))
        return
    _, lines = timeline(s, run_id, at, split)
    typer.echo(term_safe("\n".join(lines)))  # stored text: control sequences shown, not obeyed


@handle_errors
def compact(json_: JsonOpt = False, store: StoreOpt = None) -> None:
    """Merge small files into large ones; every query returns the same rows after."""
    s = open_store(store)
    with progress("compacting", enabled=show_progress(json_), unit="tables") as update:
        results = s.compact_all(progress=update)
    for r in results:
        if json_:
            echo_json({k: r.get(k) for k in ("table", "files_before", "files_after", "version")})
        else:
            typer.echo(f"{r['table']}: {plural(r['files_before'], 'file')} -> {r['files_after']}")


@handle_errors
def recover_(json_: JsonOpt = False, store: StoreOpt = None) -> None:
    """Seal the journals of recorders that died; live recorders are left alone."""
    results = recover(open_store(store))
    if json_:
        # One object, also when there is nothing to recover: every --json prints JSON.
        rows = []
        for path, report in results:
            row: dict[str, Any] = {"journal": path.name, "sealed": report is not None}
            if report is not None:
                row |= {"new": report.new, "present": report.present, "rejected": report.rejected,
                        "kept_at": str(report.kept_at) if report.kept_at is not None else None}
            rows.append(row)
        bad = sum(1 for _, r in results if r is not None and r.rejected is not None)
        echo_json({"journals": rows, "sealed": sum(1 for _, r in results if r is not None) - bad,
                   "left_alone": sum(1 for _, r in results if r is None), "rejected": bad})
        if bad:
            raise typer.Exit(1)
        return
    if not results:
        typer.echo("no journals to recover")
    rejected = 0
    for path, report in results:
        if report is None:
            typer.echo(f"{path.name}: writer still alive, left alone")
        elif report.rejected is not None:
            rejected += 1
            if report.kept_at is None:  # not a journal at all (a FIFO, a link): never read
                typer.echo(f"{path.name}: not sealed: {report.rejected}", err=True)
                continue
            typer.echo(
                f"{path.name}: not sealed whole: {report.rejected}; {plural(report.new, 'new event')} sealed; "
                f"the journal is kept at {report.kept_at}",
                err=True,
            )
        else:
            typer.echo(f"{path.name}: sealed, {plural(report.new, 'new event')}, {report.present} already present")
    if rejected:
        raise typer.Exit(1)


@handle_errors
def migrate(json_: JsonOpt = False, store: StoreOpt = None) -> None:
    """Record or upgrade the store's format explicitly (never done silently)."""
    set_hints(store)
    done = migrate_store(store or default_store_path(), storage_options())
    if json_:
        echo_json({"result": done})
    else:
        typer.echo(done)


@handle_errors
def status(json_: JsonOpt = False, store: StoreOpt = None) -> None:
    """What the store holds: table versions and files, open journals."""
    st = store_status(open_store(store))
    if json_:
        echo_json(st)
        return
    typer.echo(f"store {st['store']} (format {st['format']})")
    for name, t in st["tables"].items():
        typer.echo(f"  {name}: version {t['version']}, {plural(t['files'], 'file')}")
    if st["journals"]:
        typer.echo(f"  journals: {st['journals']} open (live recorders or dead ones: `{hint('traj recover')}`)")


def _clip(text: Any, width: int = 240) -> str:
    one = " ".join(str(text).split())
    return one if len(one) <= width else one[: width - 1] + "…"


@handle_errors
def review(
    suite: Annotated[str | None, typer.Option(help="Only this suite.", metavar="SUITE")] = None,
    batch: Annotated[str | None, typer.Option(help="Only this batch.", metavar="BATCH")] = None,
    split: SplitOpt = "tune",
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """The runs a person decides, oldest first: verdict review (the judge cannot tell) or na (the
    task hands it to a person), each with its question, answer, reason and screens."""
    s = open_store(store)
    queue = review_queue(s, suite=suite, batch=batch, split=split)
    if json_:
        echo_json({"runs": len(queue), "queue": queue})
        return
    if not queue:
        typer.echo("the review queue is empty: no current verdict is review or na")
        return
    counts = {o: sum(1 for q in queue if q["verdict"] == o) for o in ("review", "na")}
    typer.echo(f"{plural(len(queue), 'run')} to decide, oldest first ("
               + ", ".join(f"{n} {o}" for o, n in counts.items() if n) + "):")
    for q in queue:
        started = q["started_at"].strftime("%Y-%m-%d %H:%M") if q["started_at"] else "—"
        typer.echo(term_safe(f"\n{q['verdict']}  run {q['run_id']}  {q['suite']}/{q['task']}  started {started}"))
        typer.echo(term_safe(f"  question: {_clip(q['question'] or '—')}"))
        typer.echo(term_safe(f"  answer:   {_clip(q['answer']) if q['answer'] is not None else '(none)'}"))
        typer.echo(term_safe(f"  why:      {_clip(q['reason'] or '—')}"))
        for c in q["checks"]:
            typer.echo(term_safe(f"  check {c['name']}: expected {_clip(json.dumps(c['expected'], ensure_ascii=False), 80)}"
                                 + (f" ({_clip(c['reason'], 160)})" if c["reason"] else "")))
        for sc in q["screens"]:
            typer.echo(term_safe(f"  screen seq {sc['seq']}" + (f" [{sc['app']}]" if sc["app"] else "")
                                 + f": {_clip(sc['text'], 160)}"))
    typer.echo("\nsettle one: " + hint("traj override RUN --to pass|fail --evidence TEXT --by NAME")
               + " (quote the screen or answer that decides it)")


def register(app: typer.Typer) -> None:
    for fn in (ingest, query, runs, show, review):
        command(app, fn)
    app.add_typer(export_app, name="export")
    command(export_app, export, "events")
    for fn in (compact, status, schema, migrate):
        command(app, fn)
    command(app, recover_, "recover")
