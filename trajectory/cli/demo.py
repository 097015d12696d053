"""``traj demo``: see :mod:`trajectory.demo`."""

from __future__ import annotations

from typing import Annotated

import typer

from trajectory.demo import run_demo

from .common import StoreOpt, handle_errors, open_store


@handle_errors
def demo(
    store: StoreOpt = None,
    suite: Annotated[list[str] | None, typer.Option("--suite", help="Only these bundled suites.")] = None,
) -> None:
    """Record sample runs, judge them with a broken rule and with the bundled suites, diff, query."""
    run_demo(open_store(store), suite, out=typer.echo)


def register(app: typer.Typer) -> None:
    app.command()(demo)
