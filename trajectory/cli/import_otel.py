"""``traj import otel FILE...``: OpenTelemetry GenAI traces as OTLP/JSON files.

One run per trace; ``gen_ai.evaluation.result`` events become an ``imported`` pass. The library
call is :func:`trajectory.importers.import_otel`; the attribute mapping is in
``trajectory/importers/otel.py``.
"""

from __future__ import annotations

from typing import Annotated

import typer

from trajectory.importers import import_otel

from trajectory.cli.common import JsonOpt, StoreOpt, command, command_line, handle_errors, open_store, progress, show_progress
from trajectory.cli.import_inspect import echo_report, files_progress


@handle_errors
def otel(
    files: Annotated[
        list[str], typer.Argument(help="OTLP/JSON files (one document, or JSON Lines), or folders.", metavar="FILE")
    ],
    suite: Annotated[
        str | None, typer.Option(help="Suite of the runs (default: the resource's service.name).", metavar="SUITE")
    ] = None,
    task: Annotated[
        str | None,
        typer.Option(help="Task of the runs (default: the root's gen_ai.agent.name, else its name).", metavar="TASK"),
    ] = None,
    batch: Annotated[str | None, typer.Option(help="Batch name for the runs.", metavar="BATCH")] = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Import OpenTelemetry GenAI traces; their evaluation results become an `imported` pass."""
    s = open_store(store, create=True)
    with progress("importing", enabled=show_progress(json_), unit="files") as update:
        report = import_otel(s, files, suite=suite, task=task, batch=batch, command=command_line(),
                             progress=files_progress(update))
    echo_report(report, json_)


def register(import_app: typer.Typer) -> None:
    command(import_app, otel, "otel")
