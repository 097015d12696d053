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


SWALLOWING_COMMAND = '''
import sys
from trajectory.cli import main as cli


def command():
    try:  # a KeyboardInterrupt ends code run from a string, and a library swallows it
        eval("(_ for _ in ()).throw(KeyboardInterrupt)")
    except KeyboardInterrupt:
        pass
    raise KeyboardInterrupt  # and a later one reaches the CLI


cli._load = lambda argv: command
cli.main()
'''


def test_exit_status_is_130_after_a_keyboard_interrupt_was_caught_inside_eval(tmp_path) -> None:
    """Under ``python -m`` CPython kills itself with SIGINT at exit (status -2) if any code run
    from a string ended in KeyboardInterrupt, caught or not; the CLI clears that on its way out
    (interrupts.leave), so the status is the one it chose."""
    import os
    import subprocess
    import sys

    (tmp_path / "swallowing.py").write_text(SWALLOWING_COMMAND)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-m", "swallowing"], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 130, (done.returncode, done.stderr)
    assert "Traceback" not in done.stderr
