"""Suite commands: register a folder of tasks (or Inspect scorers) with the store, list suites."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from trajectory.errors import NotFound
from trajectory.judging.resolve import add_scorers, add_suite, is_scorer_spec, list_suites

from .common import JsonOpt, StoreOpt, echo_json, handle_errors, open_store

suite_app = typer.Typer(help="Suites: bundled ones and task folders registered with the store.", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.add_typer(suite_app, name="suite")


@suite_app.command("add")
@handle_errors
def add(
    name: Annotated[str, typer.Argument(help="Suite name runs use in run_started.suite.")],
    path: Annotated[Path, typer.Argument(
        help="The suite folder, or Inspect scorers as module:function or path/to/file.py:function.")],
    store: StoreOpt = None,
) -> None:
    """Register a suite folder (or Inspect scorers) with the store, so that later judging finds it."""
    if is_scorer_spec(path):
        scorers = add_scorers(open_store(store), name, str(path))
        typer.echo(f"registered suite {name} -> Inspect scorers {path} ({', '.join(scorers.scorer_names)})")
        return
    suite, problems = add_suite(open_store(store), name, path)
    for p in problems:
        typer.echo(f"warning: {p}", err=True)
    n = len(suite.task_ids())
    typer.echo(f"registered suite {name} -> {path.absolute()} ({n} tasks"
               + (f", {len(problems)} problems left out" if problems else "") + ")")


@suite_app.command("list")
@handle_errors
def list_(json_: JsonOpt = False, store: StoreOpt = None) -> None:
    """Suites known to this store: registered folders first, then the bundled ones."""
    rows = list_suites(open_store(store))
    if json_:
        echo_json(rows)
        return
    for r in rows:
        typer.echo(f"{r['name']:<16} {r['source']}")


@suite_app.command("check")
@handle_errors
def check(
    path: Annotated[Path, typer.Argument(help="A folder of task JSON files (holding the category folders).")],
) -> None:
    """Check a real-device task set: one line per failure, naming the file; exit 1 on any."""
    from suites import device

    if not path.is_dir():
        raise NotFound(f"{path}: no such folder")
    problems = device.check(path)
    for p in problems:
        typer.echo(p)
    if problems:
        typer.echo(f"{len(problems)} problem{'s' if len(problems) != 1 else ''} in {path}", err=True)
        raise typer.Exit(1)
    typer.echo(f"ok: {len(device.load(path).task_ids())} tasks in {path}")
