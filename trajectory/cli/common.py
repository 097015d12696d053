"""Shared CLI plumbing: the --store option, error handling, output helpers."""

from __future__ import annotations

import functools
import json
import os
import shlex
import sys
from collections.abc import Callable
from typing import Annotated, Any, TypeVar

import typer

from trajectory.errors import TrajError
from trajectory.query import json_default
from trajectory.store import Store, default_store_path
from trajectory.diskfault import disk_fault
from trajectory.termsafe import json_safe

F = TypeVar("F", bound=Callable[..., Any])

StoreOpt = Annotated[
    str | None,
    typer.Option(
        "--store",
        help="Store folder (default: $TRAJ_STORE, else ./traj-store).",
        show_default=False,
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]


def open_store(path: str | None) -> Store:
    return Store(path or default_store_path())


def handle_errors(fn: F) -> F:
    """Turn traj's own errors into one line (or one line per problem) on stderr and exit 1.

    A user mistake never shows a traceback; a bug still does, so that it gets reported.
    """

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except TrajError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(1) from None
        except BrokenPipeError:
            # `traj export | head`: the reader went away; that is not an error of ours.
            try:
                sys.stdout = open(os.devnull, "w")  # noqa: SIM115
            except OSError:
                pass
            raise typer.Exit(0) from None
        except BaseException as exc:  # noqa: BLE001 - only disk faults are turned into a line
            line = disk_fault(exc, kwargs.get("store") or default_store_path())
            if line is None:
                raise
            typer.echo(f"error: {line}", err=True)
            raise typer.Exit(1) from None

    return wrapper  # type: ignore[return-value]


def echo_json(value: Any) -> None:
    typer.echo(json_safe(json.dumps(value, ensure_ascii=False, default=json_default, indent=None)))


def command_line() -> str:
    return "traj " + " ".join(shlex.quote(a) for a in sys.argv[1:])
