"""``traj import inspect LOG...``: Inspect AI eval logs (``.eval``, ``.json``, folders of them).

One run per sample and epoch; the log's scores become an ``imported`` pass. See
``trajectory/importers/inspect_log.py`` for the mapping.
"""

from __future__ import annotations

from typing import Annotated

import typer

from trajectory.importers.readers import inspect_sources
from trajectory.importers.writer import ImportReport, import_sources
from trajectory.store import Store

from .common import JsonOpt, StoreOpt, command_line, echo_json, handle_errors, open_store


def import_inspect(store: Store, paths: list[str], *, by: str | None = None, command: str | None = None) -> ImportReport:
    """Import Inspect logs; each log is written entirely or not at all."""
    return import_sources(store, inspect_sources(paths), importer="inspect", by=by, command=command,
                          filters={"logs": [str(p) for p in paths]})


def echo_report(report: ImportReport, json_: bool) -> None:
    if json_:
        echo_json(report.to_json())
    else:
        for line in report.lines():
            typer.echo(line)
    for s in report.failed:
        typer.echo(f"error: {s.error}", err=True)
    if report.failed:
        raise typer.Exit(1)


def register(import_app: typer.Typer) -> None:
    @import_app.command("inspect")
    @handle_errors
    def inspect_cmd(
        logs: Annotated[list[str], typer.Argument(help="Inspect .eval or .json logs, or folders of them.")],
        json_: JsonOpt = False,
        store: StoreOpt = None,
    ) -> None:
        """Import Inspect AI eval logs; their scores become an `imported` pass (needs traj[inspect])."""
        echo_report(import_inspect(open_store(store), logs, command=command_line()), json_)
