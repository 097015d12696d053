"""``traj import inspect LOG...``: Inspect AI eval logs (``.eval``, ``.json``, folders of them).

One run per sample and epoch; the log's scores become an ``imported`` pass. The library call is
:func:`trajectory.importers.import_inspect`; the mapping is in ``trajectory/importers/inspect_log.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

import typer

from trajectory.importers import import_inspect
from trajectory.importers.writer import ImportReport
from trajectory.redact import redact_text
from trajectory.termsafe import term_safe

from trajectory.cli.common import JsonOpt, StoreOpt, command, command_line, echo_json, handle_errors, open_store, progress, show_progress


def echo_report(report: ImportReport, json_: bool) -> None:
    """An import's report for people (or as JSON); exit 1 when a source was refused."""
    if json_:
        echo_json(report.to_json())
    else:
        for line in report.lines():
            typer.echo(term_safe(line))  # file and sample names come from the logs
    for s in report.failed:
        typer.echo(term_safe(redact_text(f"error: {s.error}")), err=True)
    if report.failed:
        raise typer.Exit(1)


def files_progress(update: Callable[..., None]) -> Callable[[int, int, str | None], None]:
    """An importer's ``progress(files done, files, file)`` as a progress bar's update."""

    def told(done: int, total: int, name: str | None) -> None:
        update(done, total, f"importing {name}" if name is not None else "writing")

    return told


@handle_errors
def inspect_(
    logs: Annotated[list[str], typer.Argument(help="Inspect .eval or .json logs, or folders of them.", metavar="LOG")],
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Import Inspect AI eval logs; their scores become an `imported` pass (needs traj[inspect])."""
    s = open_store(store, create=True, json_=json_)
    with progress("importing", enabled=show_progress(json_), unit="logs") as update:
        report = import_inspect(s, logs, command=command_line(), progress=files_progress(update))
    echo_report(report, json_)


def register(import_app: typer.Typer) -> None:
    command(import_app, inspect_, "inspect")
