"""The ``traj`` command. Each command group lives in its own module and registers itself here.

This module imports nothing heavy at the top: :func:`main` handles Ctrl-C from its first line,
and only then loads typer and the commands (which load DuckDB, Arrow, Delta). ``app`` is built
on first use (``from trajectory.cli.main import app`` works as before).
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Sequence
from types import MappingProxyType
from typing import Any

# Modules that add commands to `app` through their `register(app)` function, in the order
# `traj --help` lists them.
COMMAND_MODULES = (
    "trajectory.cli.store_cmds",
    "trajectory.cli.judge_cmds",
    "trajectory.cli.suite_cmds",
    "trajectory.cli.import_cmds",
    "trajectory.cli.demo",
    "trajectory.cli.override_cmds",
    "trajectory.cli.report_cmds",
    "trajectory.cli.view_cmd",
)

# Which module registers each top-level command (tests/cli/test_startup.py holds it to what the
# modules register). A command line that names one of them loads that module alone: a command's
# start-up does not pay for the imports of every other command (the importers' suites, the viewer).
COMMAND_OF = MappingProxyType({
    **dict.fromkeys(("ingest", "query", "runs", "show", "review", "compact", "status", "schema", "migrate",
                     "recover", "export"), "trajectory.cli.store_cmds"),
    **dict.fromkeys(("judge", "diff", "passes"), "trajectory.cli.judge_cmds"),
    "suite": "trajectory.cli.suite_cmds",
    "import": "trajectory.cli.import_cmds",
    "demo": "trajectory.cli.demo",
    "override": "trajectory.cli.override_cmds",
    "report": "trajectory.cli.report_cmds",
    "view": "trajectory.cli.view_cmd",
})


def build_app(modules: Sequence[str] | None = None) -> Any:
    """The typer application with the commands of ``modules`` registered (every command by
    default; the full application is built once per process)."""
    if modules is None:
        return _full_app()
    return _app_of(modules)


@functools.cache
def _full_app() -> Any:
    return _app_of(COMMAND_MODULES)


def _app_of(modules: Sequence[str]) -> Any:
    import importlib

    import typer

    from trajectory.cli.common import APP_SETTINGS, root

    app = typer.Typer(name="traj", **APP_SETTINGS)
    app.callback()(root)
    for name in modules:
        importlib.import_module(name).register(app)
    return app


def modules_for(argv: list[str]) -> list[str] | None:
    """The command modules a command line needs: the one module of the command it names, or
    every module (None) when it names none (``traj --help``, a mistyped command, which the full
    application answers with the commands it knows)."""
    for arg in argv:
        if arg.startswith("-"):
            if arg in ("--help", "-h", "--version"):
                return None
            continue
        return [COMMAND_OF[arg]] if arg in COMMAND_OF else None
    return None


def __getattr__(name: str) -> Any:
    if name == "app":
        return build_app()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _load(argv: list[str] | None = None) -> Any:
    """Everything a command needs loaded before it runs: the commands, typer's click commands
    (typer evaluates the functions' annotations here), and the C extensions commands import
    lazily. Done with Ctrl-C held (see main).

    A request for help (``-h``, ``--help``) runs no command: it loads neither the store nor SQL
    (the commands' modules import them inside the commands)."""
    import sys as _sys

    import typer.main

    command = typer.main.get_command(build_app(None if argv is None else modules_for(argv)))
    if argv is None or not any(a in ("-h", "--help") for a in argv):
        import deltalake  # noqa: F401 - every command that reads a table opens it with delta-rs

        import trajectory.query.sql  # noqa: F401 - DuckDB and Arrow, which commands import lazily
    if _sys.stderr.isatty():
        import rich.progress  # noqa: F401 - the progress bars
    return command


def main() -> None:
    """Entry point. Ctrl-C anywhere — while loading, parsing or running a command — ends in one
    line and exit status 130; commands say what they committed (see cli/common.py).

    Loading runs with Ctrl-C held: a KeyboardInterrupt raised inside a C extension's
    initialisation or inside code that typer evaluates can abort the interpreter, or leave it to
    die of the signal after it was handled. Once the command's answer is decided (and printed),
    SIGINT is ignored and the process leaves through the interpreter's ordinary exit, which
    waits for threads and runs the exit hooks (temporary folders, multiprocessing's clean-up,
    logging) itself: a Ctrl-C then can neither cut them short nor change the status. An ignored
    SIGINT stays ignored through the interpreter's finalisation (a Python handler would be reset
    to the default, which dies of the signal).
    """
    from trajectory.runtime import interrupts

    interrupts.install()
    if "query" in sys.argv[1:2]:
        # The query runs in a worker forked from a server that imports DuckDB and Arrow: started
        # now, it imports them while this process loads the CLI.
        with interrupts.deferred():
            from trajectory.query.worker import warm

            warm()
    code: Any = 0
    try:
        try:
            with interrupts.deferred():
                command = _load(sys.argv[1:])
            command()
        except KeyboardInterrupt:
            code = 130
        except SystemExit as exc:
            code = exc.code
    except KeyboardInterrupt:
        code = 130
    while True:  # a Ctrl-C landing between the command's end and settle() counts like any other
        try:
            interrupts.settle()
            break
        except KeyboardInterrupt:
            code = 130
    if interrupts.signalled():
        if not interrupts.answered():
            # Ctrl-C while loading, after the command's own handler was done, or while leaving.
            print(interrupts.answer(interrupts.last()), file=sys.stderr)
        code = 130
    _flush()
    interrupts.leave()
    sys.exit(code)


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass


if __name__ == "__main__":
    main()
