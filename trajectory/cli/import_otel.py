"""``traj import otel FILE...``: OpenTelemetry GenAI traces as OTLP/JSON files.

One run per trace; ``gen_ai.evaluation.result`` events become an ``imported`` pass. The library
call is :func:`trajectory.importers.import_otel`; the attribute mapping is in
``trajectory/importers/otel.py``.
"""

from __future__ import annotations

from typing import Annotated

import typer

from trajectory.importers import import_otel
from trajectory.store.delta import Store
from trajectory.termsafe import term_safe
from trajectory.text import hint, plural

from trajectory.cli.common import (
    JsonOpt, StoreOpt, command, command_line, echo_json, handle_errors, open_store, progress, show_progress,
)
from trajectory.cli.import_inspect import echo_report, files_progress


@handle_errors
def otel(
    files: Annotated[
        list[str] | None,
        typer.Argument(help="OTLP/JSON files (one document, or JSON Lines), or folders.", metavar="FILE", show_default=False),
    ] = None,
    suite: Annotated[
        str | None, typer.Option(help="Suite of the runs (default: the resource's service.name).", metavar="SUITE")
    ] = None,
    task: Annotated[
        str | None,
        typer.Option(help="Task of the runs (default: the root's gen_ai.agent.name, else its name).", metavar="TASK"),
    ] = None,
    batch: Annotated[str | None, typer.Option(help="Batch name for the runs.", metavar="BATCH")] = None,
    pending: Annotated[
        bool, typer.Option("--pending", help="List the traces still waiting for their root span, and import nothing.")
    ] = False,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Import OpenTelemetry GenAI traces; their evaluation results become an `imported` pass.

    A trace whose root span is not in the files is pending: its spans are kept in the store and
    the run is written, complete, when a later import brings the root."""
    if pending:
        if files:
            raise typer.BadParameter("--pending lists the pending traces: give no FILE with it")
        _list_pending(open_store(store), json_)  # a missing store is an error
        return
    if not files:
        raise typer.BadParameter("give the OTLP/JSON files to import (or --pending to list the traces waiting for a root span)")
    s = open_store(store, create=True, json_=json_)
    with progress("importing", enabled=show_progress(json_), unit="files") as update:
        report = import_otel(s, files, suite=suite, task=task, batch=batch, command=command_line(),
                             progress=files_progress(update))
    echo_report(report, json_)


def _list_pending(s: Store, json_: bool) -> None:
    from trajectory.importers.pending import listing

    traces = listing(s)
    if json_:
        echo_json({"pending": [t.to_json() for t in traces]})
        return
    if not traces:
        typer.echo("no pending traces: every trace imported has its root span")
        return
    for t in traces:
        typer.echo(term_safe(f"{t.trace_id}: {plural(t.spans, 'span')} kept, first seen {t.first_seen:%Y-%m-%d %H:%M:%S} "
                             f"UTC, from {', '.join(t.files)}"))
    typer.echo(f"{plural(len(traces), 'pending trace')}: import the file that holds their root spans "
               f"({hint('traj import otel FILE')}) to write them as runs")


def register(import_app: typer.Typer) -> None:
    command(import_app, otel, "otel")
