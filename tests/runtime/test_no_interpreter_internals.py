"""Ctrl-C is handled with public APIs only (issue 25): the CLI leaves through the interpreter's
ordinary exit, which waits for threads and runs the exit hooks itself, instead of calling the
private functions that do so (and then os._exit)."""

from __future__ import annotations

import re
from pathlib import Path

import trajectory

PRIVATE = ("threading._shutdown", "_run_exitfuncs", "_run_finalizers")


def test_no_module_of_traj_calls_the_interpreters_exit_internals() -> None:
    root = Path(trajectory.__file__).parent
    found = []
    for path in sorted(root.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        for name in PRIVATE:
            # Exact names: trajectory/llm/ask.py has a _shutdown(sock) of its own.
            for hit in re.finditer(rf"(?<!\w){re.escape(name)}\b", text):
                found.append(f"{path.relative_to(root)}:{text.count(chr(10), 0, hit.start()) + 1}: {name}")
    assert found == []


def test_the_cli_ends_without_os_exit() -> None:
    from trajectory.cli import main

    assert "os._exit" not in Path(main.__file__).read_text(encoding="utf-8")
