"""The ``traj`` command. Each command group lives in its own module and registers itself here.

This module imports nothing heavy at the top: :func:`main` handles Ctrl-C from its first line,
and only then loads typer and the commands (which load DuckDB, Arrow, Delta). ``app`` is built
on first use (``from trajectory.cli.main import app`` works as before).
"""

from __future__ import annotations

import sys
from typing import Any

# Modules that add commands to `app` through their `register(app)` function, in the order
# `traj --help` lists them.
COMMAND_MODULES = [
    "trajectory.cli.store_cmds",
    "trajectory.cli.judge_cmds",
    "trajectory.cli.suite_cmds",
    "trajectory.cli.import_cmds",
    "trajectory.cli.demo",
    "trajectory.cli.override_cmds",
    "trajectory.cli.report_cmds",
]

_APP: list[Any] = []


def build_app() -> Any:
    """The typer application with every command registered (built once per process)."""
    if _APP:
        return _APP[0]
    import importlib

    import typer

    from .common import APP_SETTINGS, root

    app = typer.Typer(name="traj", **APP_SETTINGS)
    app.callback()(root)
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(app)
    _APP.append(app)
    return app


def __getattr__(name: str) -> Any:
    if name == "app":
        return build_app()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main() -> None:
    """Entry point. Ctrl-C anywhere — while loading, parsing or running a command — ends in one
    line and exit status 130; commands say what they committed (see cli/common.py)."""
    from trajectory import interrupts

    interrupts.install()
    code: Any = 0
    try:
        build_app()()
    except KeyboardInterrupt:
        code = 130
    except SystemExit as exc:
        code = exc.code
    if interrupts.signalled() and not interrupts.answered():
        # Ctrl-C while loading or after the command's own handler was done.
        print(interrupts.answer(interrupts.last()), file=sys.stderr)
        code = 130
    # Done: a Ctrl-C now must not kill the interpreter while it exits (it would restore the
    # default handler and die of the signal, after the work was finished and reported).
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    sys.exit(code)


if __name__ == "__main__":
    main()
