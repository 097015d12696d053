"""A command line loads only what its command needs: the module that registers the command it
names (main.COMMAND_OF), and for a request for help neither the store nor SQL."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys

import typer

from trajectory.cli import main


def _registered(module: str) -> list[str]:
    app = typer.Typer()
    importlib.import_module(module).register(app)
    return [c.name or c.callback.__name__ for c in app.registered_commands] + [g.name for g in app.registered_groups]


def test_every_command_is_found_in_the_module_that_registers_it():
    found = {name: module for module in main.COMMAND_MODULES for name in _registered(module)}
    assert found == dict(main.COMMAND_OF)


def test_a_command_line_loads_the_module_of_the_command_it_names():
    assert main.modules_for(["judge", "--store", "s"]) == ["trajectory.cli.judge_cmds"]
    assert main.modules_for(["--version"]) is None
    assert main.modules_for(["-h"]) is None
    assert main.modules_for(["jduge"]) is None  # the full application names the near ones
    assert main.modules_for(["export", "events"]) == ["trajectory.cli.store_cmds"]
    assert main.modules_for([]) is None


def _loaded_by(argv: list[str]) -> set[str]:
    code = (
        "import json, sys\n"
        f"sys.argv = ['traj', *{argv!r}]\n"
        "import trajectory.cli.main as m\n"
        "try:\n    m._load(sys.argv[1:])()\nexcept SystemExit:\n    pass\n"
        "print(json.dumps(sorted(sys.modules)), file=sys.stderr)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=os.environ.copy(),
                          timeout=120)
    return set(json.loads(proc.stderr.strip().splitlines()[-1]))


def test_help_loads_neither_the_store_nor_sql_nor_other_commands():
    loaded = _loaded_by(["judge", "--help"])
    assert "trajectory.cli.judge_cmds" in loaded
    heavy = {"duckdb", "pyarrow", "pandas", "deltalake", "trajectory.store.delta", "trajectory.judging",
             "trajectory.cli.import_cmds", "trajectory.cli.view_cmd"}
    assert not heavy & loaded


def test_a_command_loads_no_other_command_module():
    loaded = _loaded_by(["judge", "--store", os.devnull + "-no-store"])
    assert {"trajectory.cli.judge_cmds", "duckdb", "deltalake"} <= loaded
    assert not {"trajectory.cli.import_cmds", "trajectory.cli.view_cmd", "trajectory.cli.report_cmds"} & loaded
