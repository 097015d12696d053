"""Commands over the store itself: ingest, export, schema, query, runs, show, compact, recover,
migrate."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from replay import view
from trajectory import events as ev
from trajectory.errors import NotFound, SchemaError, StoreError, TrajError
from trajectory.ingest import DEFAULT_LIMITS, Limits, ingest_bytes
from trajectory.judging import SuiteResolver, load_events, load_state
from trajectory.query import Views, format_table, record_holdout_view
from trajectory.query_limits import MAX_ROWS, MEMORY, TIMEOUT, QueryLimits, human_size
from trajectory.recorder import open_journals, recover
from trajectory.store import FORMAT_FILE, STORE_FORMAT, TABLES, Store
from trajectory.termsafe import term_safe
from trajectory.trust import trust_file_judgements

from .common import JsonOpt, StoreOpt, echo_json, handle_errors, open_store

SplitOpt = Annotated[
    str,
    typer.Option("--split", help="Pool to show: tune (default) or holdout (the look is recorded)."),
]


def ingest_files(
    store: Store, files: list[str], limits: Limits = DEFAULT_LIMITS, trust_judgements: bool = False
) -> tuple[int, int, int, int, bool]:
    resolver = SuiteResolver(store)
    total = [0, 0, 0, 0]
    failed = False
    for name in files:
        try:
            if name == "-":
                data, source = sys.stdin.buffer.read(), "<stdin>"
            else:
                path = Path(name)
                if not path.is_file():
                    raise SchemaError(f"{name}: no such file")
                data, source = path.read_bytes(), name
            report = ingest_bytes(store, data, source, limits, split_of=resolver.split_of)
            if trust_judgements:
                n = trust_file_judgements(store, data, source)
                typer.echo(f"{source}: {n} judgement runs newly trusted")
        except TrajError as exc:
            typer.echo(f"error: {exc}", err=True)
            typer.echo(f"{name}: refused, nothing written", err=True)
            failed = True
            continue
        typer.echo(report.line())
        for i, v in enumerate((report.runs, report.events, report.new, report.present)):
            total[i] += v
    return total[0], total[1], total[2], total[3], failed


def register(app: typer.Typer) -> None:
    export_app = typer.Typer(help="Write stored data out.", no_args_is_help=True)
    app.add_typer(export_app, name="export")

    @app.command()
    @handle_errors
    def ingest(
        files: Annotated[list[str], typer.Argument(help="JSON Lines files, or - for standard input.")],
        store: StoreOpt = None,
        max_line_bytes: Annotated[int, typer.Option(min=1, help="Longest accepted line.")] = DEFAULT_LIMITS.max_line_bytes,
        max_depth: Annotated[int, typer.Option(min=1, help="Deepest accepted JSON nesting.")] = DEFAULT_LIMITS.max_depth,
        max_events_per_run: Annotated[int, typer.Option(min=1, help="Most events accepted in one run.")] = DEFAULT_LIMITS.max_events_per_run,
        trust_judgements: Annotated[
            bool,
            typer.Option(help="Let the LLM judgement runs in these files count (e.g. exported from a store you trust)."),
        ] = False,
    ) -> None:
        """Append events; each file is one batch, written entirely or not at all."""
        s = open_store(store)
        limits = Limits(max_line_bytes, max_depth, max_events_per_run)
        runs, events, new, present, failed = ingest_files(s, files, limits, trust_judgements)
        if len(files) > 1:
            typer.echo(f"total: {runs} runs, {events} events read: {new} new, {present} already present")
        if failed:
            raise typer.Exit(1)

    @export_app.command("events")
    @handle_errors
    def export_events(
        run: Annotated[list[str] | None, typer.Option("--run", help="Only this run (repeatable).")] = None,
        suite: Annotated[str | None, typer.Option(help="Only runs of this suite.")] = None,
        batch: Annotated[str | None, typer.Option(help="Only runs of this batch.")] = None,
        out: Annotated[Path | None, typer.Option("--out", help="File to write (default: stdout).")] = None,
        version: Annotated[int | None, typer.Option(help="Read the events table as of this version.")] = None,
        store: StoreOpt = None,
    ) -> None:
        """Write events as the spec's JSON Lines; ingesting them elsewhere reproduces them."""
        s = open_store(store)
        conds, params = ["TRUE"], []
        if run:
            conds.append("list_contains(?, run_id)")
            params.append(run)
        if suite:
            conds.append("suite = ?")
            params.append(suite)
        if batch:
            conds.append("batch = ?")
            params.append(batch)
        with Views(s, split=None, version=version) as views:
            reader = views.con.sql(
                f"SELECT data FROM events WHERE {' AND '.join(conds)} ORDER BY run_id, seq",
                params=params or None,
            ).to_arrow_reader(65536)
            sink = open(out, "wb") if out else sys.stdout.buffer  # noqa: SIM115
            n = 0
            try:
                for batch_ in reader:
                    for data in batch_.column(0).to_pylist():
                        sink.write(ev.encode(ev.decode(data)) + b"\n")
                        n += 1
            finally:
                if out:
                    sink.close()
                else:
                    sink.flush()
        if out:
            typer.echo(f"wrote {n} events to {out}")

    @app.command()
    @handle_errors
    def schema() -> None:
        """Print the JSON Schema of one event line."""
        typer.echo(json.dumps(ev.json_schema(), ensure_ascii=False, indent=2))

    @app.command()
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
        s = open_store(store)
        limits = QueryLimits.checked(timeout, max_rows, max_memory)
        with Views(s, split=split, version=version, limits=limits) as views:
            table = views.user_query(sql)
        if split == "holdout":
            record_holdout_view(s, "query", {"sql": sql})
        text = format_table(table, format)
        typer.echo(term_safe(text) if format == "csv" and sys.stdout.isatty() else text)

    @app.command()
    @handle_errors
    def runs(
        suite: Annotated[str | None, typer.Option(help="Only this suite.")] = None,
        batch: Annotated[str | None, typer.Option(help="Only this batch.")] = None,
        split: SplitOpt = "tune",
        json_: JsonOpt = False,
        store: StoreOpt = None,
    ) -> None:
        """List runs, one line each."""
        s = open_store(store)
        conds, params = ["TRUE"], []
        if suite:
            conds.append("r.suite = ?")
            params.append(suite)
        if batch:
            conds.append("r.batch = ?")
            params.append(batch)
        with Views(s, split=split) as views:
            table = views.arrow(
                "SELECT r.run_id, r.suite, r.task, r.batch, r.agent, r.mode, r.split, r.outcome, "
                "r.steps, r.tokens, r.duration_ms, v.outcome AS verdict, v.score "
                "FROM runs r LEFT JOIN verdicts v USING (run_id) "
                f"WHERE {' AND '.join(conds)} ORDER BY r.started_at, r.run_id",
                params,
            )
        if split == "holdout":
            record_holdout_view(s, "runs", {"suite": suite, "batch": batch})
        typer.echo(format_table(table, "jsonl" if json_ else "table"))

    @app.command()
    @handle_errors
    def show(
        run_id: Annotated[str, typer.Argument(help="The run.")],
        at: Annotated[int | None, typer.Option("--at", help="Replay events 0..SEQ only.")] = None,
        json_: JsonOpt = False,
        store: StoreOpt = None,
    ) -> None:
        """A run's timeline and its replayed state at a step."""
        s = open_store(store)
        state = load_state(s, run_id, at)
        if json_:
            echo_json(view(state))
            return
        events = [e for e in load_events(s, [run_id])[run_id] if at is None or e.seq <= at]
        _echo(f"run {state.run_id}  suite {state.suite}  task {state.task}  mode {state.mode}")
        if state.batch or state.agent_name:
            _echo(f"batch {state.batch}  agent {state.agent_name} ({state.agent_model})")
        _echo("timeline:")
        for e in events:
            _echo(f"  {e.seq:>4}  {e.ts.isoformat()}  {_summary(e)}")
        _echo(f"state at seq {state.seq}:")
        v = view(state)
        route = v["route"]
        _echo(f"  route: {route['app']}{route['path'] or ''}" if route else "  route: (none)")
        _echo(f"  sheet: {json.dumps(v['sheet']['answers'], ensure_ascii=False)} submitted={v['sheet']['submitted']}")
        _echo(f"  answer: {v['answer']!r}" if v["answer"] is not None else "  answer: (none)")
        _echo(f"  screens: {len(v['screens'])}, steps: {v['steps']}, state changes: {state.state_changes}")
        _echo(f"  outcome: {v['outcome'] or '(open)'}")

    @app.command()
    @handle_errors
    def compact(store: StoreOpt = None) -> None:
        """Merge small files into large ones; every query returns the same rows after."""
        s = open_store(store)
        for name in TABLES:
            if s.has_table(name):
                r = s.compact(name)
                typer.echo(f"{name}: {r['files_before']} files -> {r['files_after']}")

    @app.command("recover")
    @handle_errors
    def recover_cmd(store: StoreOpt = None) -> None:
        """Seal the journals of recorders that died; live recorders are left alone."""
        s = open_store(store)
        results = recover(s)
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

    @app.command()
    @handle_errors
    def migrate(store: StoreOpt = None) -> None:
        """Record or upgrade the store's format explicitly (never done silently)."""
        from trajectory.location import Location

        loc = Location(store or __import__("trajectory.store", fromlist=["x"]).default_store_path())
        if loc.exists(FORMAT_FILE):
            try:
                fmt = int(json.loads(loc.read_bytes(FORMAT_FILE))["format"])
            except (ValueError, KeyError, TypeError) as exc:
                # Not rewritten: what it says is unknown, so nothing can be said to upgrade it.
                raise StoreError(f"{loc.path(FORMAT_FILE)}: unreadable format file ({exc}); fix it by hand") from exc
            if fmt == STORE_FORMAT:
                typer.echo(f"{loc}: already format {STORE_FORMAT}, nothing to do")
                return
            if isinstance(fmt, int) and fmt > STORE_FORMAT:
                raise StoreError(f"{loc}: format {fmt} is newer than this traj ({STORE_FORMAT})")
        if not loc.exists("events", "_delta_log") and not loc.exists(FORMAT_FILE):
            raise NotFound(f"{loc}: no store here")
        # Format 0 (before the format file existed) has the same tables: recording the format
        # is the whole upgrade.
        body = {"format": STORE_FORMAT, "migrated_from": fmt if loc.exists(FORMAT_FILE) else 0, "tool": "traj"}
        loc.write_atomic(json.dumps(body).encode(), FORMAT_FILE)
        typer.echo(f"{loc}: upgraded to format {STORE_FORMAT}")

    @app.command()
    @handle_errors
    def status(store: StoreOpt = None) -> None:
        """What the store holds: table versions and files, open journals."""
        s = open_store(store)
        typer.echo(f"store {s.loc} (format {s.format_version()})")
        for name in TABLES:
            if s.has_table(name):
                typer.echo(f"  {name}: version {s.version(name)}, {len(s.files(name))} files")
        journals = open_journals(s)
        if journals:
            typer.echo(f"  journals: {len(journals)} open (live recorders or dead ones: `traj recover`)")


def _echo(line: str) -> None:
    """A line of stored text for a person: control sequences in it shown, not obeyed."""
    typer.echo(term_safe(line))


def _summary(e: ev.Event) -> str:
    kind = type(e).__struct_config__.tag
    match e:
        case ev.RunStarted():
            return f"{kind} {e.suite}/{e.task} params={json.dumps(e.params, ensure_ascii=False)}"
        case ev.StepTaken():
            return f"{kind} {e.action} {json.dumps(e.args, ensure_ascii=False) if e.args else ''}".rstrip()
        case ev.ScreenRead():
            text = e.text.replace("\n", " ")
            return f"{kind} [{e.app or ''}] {text[:70]}"
        case ev.StateChanged():
            return f"{kind} {'snapshot' if e.snapshot is not None else f'patch ({len(e.patch or [])} ops)'}"
        case ev.SheetChanged():
            return f"{kind} {e.op}" + (f" field {e.field} = {json.dumps(e.value, ensure_ascii=False)}" if e.op == "set" else "")
        case ev.AnswerGiven():
            return f"{kind} {e.text[:70]!r}"
        case ev.UserAsked():
            return f"{kind} {e.question[:50]!r} -> {e.reply!r}"
        case ev.TakeoverRequested():
            return f"{kind} {e.reason}"
        case ev.ProbeRead():
            return f"{kind} {e.name} = {e.value!r}"
        case ev.RunFinished():
            return f"{kind} {e.outcome}" + (f" ({e.skip_reason})" if e.skip_reason else "")
    return kind
