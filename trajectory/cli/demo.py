"""``traj demo``: see :mod:`trajectory.demo`."""

from __future__ import annotations

from typing import Annotated

import typer

from trajectory.demo import run_demo

from trajectory.cli.common import JsonOpt, StoreOpt, command, echo_json, handle_errors, open_store


@handle_errors
def demo(
    store: StoreOpt = None,
    suite: Annotated[list[str] | None, typer.Option("--suite", help="Only this bundled suite.", metavar="SUITE")] = None,
    json_: JsonOpt = False,
) -> None:
    """Record sample runs, judge them with a broken rule and with the bundled suites, diff, query."""
    import suites as suite_pkg
    from trajectory.errors import NotFound
    from trajectory.query.names import near_line

    bundled = suite_pkg.builtin_names()
    unknown = [n for n in suite or [] if n not in bundled]
    if unknown:  # a typo is a line with the near names, not a traceback nor an empty demo
        raise NotFound(near_line("bundled suite", unknown, bundled, option="--suite", where="traj"))
    done = run_demo(open_store(store, create=True, json_=json_), suite, out=(lambda *_: None) if json_ else typer.echo)
    if json_:
        echo_json(done)


def register(app: typer.Typer) -> None:
    command(app, demo)
