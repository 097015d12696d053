"""``traj import inspect LOG...``: Inspect AI eval logs (``.eval``, ``.json``, folders of them).

One run per sample and epoch; the log's scores become an ``imported`` pass. The library call is
:func:`trajectory.importers.import_inspect`; the mapping is in ``trajectory/importers/inspect_log.py``.
"""

from __future__ import annotations

from typing import Annotated

import typer

from trajectory.importers import import_inspect
from trajectory.importers.writer import ImportReport

from .common import JsonOpt, StoreOpt, command_line, echo_json, handle_errors, open_store


def echo_report(report: ImportReport, json_: bool) -> None:
    """An import's report for people (or as JSON); exit 1 when a source was refused."""
    if json_:
        echo_json(report.to_json())
    else:
        for line in report.lines():
            typer.echo(line)
    for s in report.failed:
        typer.echo(f"error: {s.error}", err=True)
    if report.failed:
        raise typer.Exit(1)


@handle_errors
def inspect_(
    logs: Annotated[list[str], typer.Argument(help="Inspect .eval or .json logs, or folders of them.")],
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Import Inspect AI eval logs; their scores become an `imported` pass (needs traj[inspect])."""
    echo_report(import_inspect(open_store(store), logs, command=command_line()), json_)


def register(import_app: typer.Typer) -> None:
    import_app.command("inspect")(inspect_)
