"""`traj import KIND ...`: bring in runs recorded by other harnesses.

Each importer lives in its own module and adds a command to ``import_app``; the list of those
modules is ``IMPORTERS``.
"""

from __future__ import annotations

import importlib

import typer

from trajectory.cli.common import sub_app

import_app = sub_app("Import runs recorded by other harnesses.")

# Modules that add a command to `import_app` through their `register(import_app)`.
IMPORTERS: list[str] = [
    "trajectory.cli.import_selfevo",
    "trajectory.cli.import_mobilegym",
    "trajectory.cli.import_inspect",
    "trajectory.cli.import_otel",
]


def register(app: typer.Typer) -> None:
    for name in IMPORTERS:
        importlib.import_module(name).register(import_app)
    app.add_typer(import_app, name="import")
