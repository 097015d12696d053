"""``traj import otel FILE...``: OpenTelemetry GenAI traces as OTLP/JSON files.

One run per trace; ``gen_ai.evaluation.result`` events become an ``imported`` pass. The library
call is :func:`trajectory.importers.import_otel`; the attribute mapping is in
``trajectory/importers/otel.py``.
"""

from __future__ import annotations

from typing import Annotated

import typer

from trajectory.importers import import_otel

from .common import JsonOpt, StoreOpt, command_line, handle_errors, open_store
from .import_inspect import echo_report


@handle_errors
def otel(
    files: Annotated[list[str], typer.Argument(help="OTLP/JSON files (one document, or JSON Lines), or folders.")],
    suite: Annotated[str | None, typer.Option(help="Suite of the runs (default: the resource's service.name).")] = None,
    task: Annotated[str | None, typer.Option(help="Task of the runs (default: the root's gen_ai.agent.name, else its name).")] = None,
    batch: Annotated[str | None, typer.Option(help="Batch name for the runs.")] = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Import OpenTelemetry GenAI traces; their evaluation results become an `imported` pass."""
    report = import_otel(open_store(store), files, suite=suite, task=task, batch=batch, command=command_line())
    echo_report(report, json_)


def register(import_app: typer.Typer) -> None:
    import_app.command("otel")(otel)
