"""``traj ARGS`` in this process on a click command built once, for tests that run the command
hundreds of times.

typer's ``CliRunner.invoke(app, ...)`` builds the click command from the functions' annotations
on every call (a tenth of a second, more on a busy machine). ``traj`` itself builds it once per
process (trajectory.cli.main._load); here it is built once per test process, and every
:func:`invoke` parses and runs it afresh in typer's isolation (stdin, stdout and stderr of its
own), exactly as ``CliRunner().invoke(app, args)`` does.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Sequence
from typing import Any

from typer.testing import CliRunner, Result


@functools.cache
def command() -> Any:
    """The click command of the full ``traj`` application."""
    import typer.main

    from trajectory.cli.main import app

    return typer.main.get_command(app)


def invoke(args: Sequence[Any], input: bytes | str | None = None) -> Result:
    """What ``CliRunner().invoke(app, args, input=input)`` returns (typer/testing.py's invoke,
    with the command built once)."""
    runner = CliRunner()
    cli = command()
    exc_info: Any = None
    return_value = None
    exception: BaseException | None = None
    exit_code = 0
    with runner.isolation(input=input) as (stdout, stderr, output):
        try:
            return_value = cli.main(args=[str(a) for a in args], prog_name=runner.get_default_prog_name(cli))
        except SystemExit as e:
            exc_info = sys.exc_info()
            code = 0 if e.code is None else e.code
            if code != 0:
                exception = e
            if not isinstance(code, int):
                sys.stdout.write(f"{code}\n")
                code = 1
            exit_code = code
        except Exception as e:  # noqa: BLE001 - as the runner does: the result carries it
            exception = e
            exit_code = 1
            exc_info = sys.exc_info()
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            out, err, both = stdout.getvalue(), stderr.getvalue(), output.getvalue()
    return Result(runner=runner, stdout_bytes=out, stderr_bytes=err, output_bytes=both, return_value=return_value,
                  exit_code=exit_code, exception=exception, exc_info=exc_info)
