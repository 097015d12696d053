"""The ``traj`` command. Each command group lives in its own module and registers itself here."""

from __future__ import annotations

import importlib

import typer

app = typer.Typer(
    name="traj",
    help="Event-sourced trajectory store and replay judge for AI-agent evaluations.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)

# Modules that add commands to `app` through their `register(app)` function.
COMMAND_MODULES = [
    "trajectory.cli.store_cmds",
    "trajectory.cli.judge_cmds",
    "trajectory.cli.suite_cmds",
    "trajectory.cli.import_cmds",
    "trajectory.cli.demo",
    "trajectory.cli.override_cmds",
    "trajectory.cli.report_cmds",
    "trajectory.cli.view_cmd",
]

for _name in COMMAND_MODULES:
    importlib.import_module(_name).register(app)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
