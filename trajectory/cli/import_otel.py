"""``traj import otel FILE...``: OpenTelemetry GenAI traces as OTLP/JSON files.

One run per trace; ``gen_ai.evaluation.result`` events become an ``imported`` pass. See
``trajectory/importers/otel.py`` for the attribute mapping.
"""

from __future__ import annotations

from typing import Annotated

import typer

from trajectory.importers.readers import otel_sources
from trajectory.importers.writer import ImportReport, import_sources
from trajectory.store import Store

from .common import JsonOpt, StoreOpt, command_line, handle_errors, open_store
from .import_inspect import echo_report


def import_otel(store: Store, paths: list[str], *, suite: str | None = None, task: str | None = None,
                batch: str | None = None, by: str | None = None, command: str | None = None) -> ImportReport:
    """Import OTLP/JSON trace files; the traces of all readable files are written together."""
    sources = otel_sources(paths, suite=suite, task=task, batch=batch)
    return import_sources(store, sources, importer="otel", by=by, command=command,
                          filters={"files": [str(p) for p in paths], "suite": suite, "task": task, "batch": batch})


def register(import_app: typer.Typer) -> None:
    @import_app.command("otel")
    @handle_errors
    def otel_cmd(
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
