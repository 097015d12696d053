"""Shared CLI plumbing: the --store and --storage-option options, error handling, output helpers."""

from __future__ import annotations

import functools
import json
import os
import shlex
import sys
from collections.abc import Callable
from contextvars import ContextVar
from typing import Annotated, Any, TypeVar

import typer
import typer.main
from typer.core import TyperGroup

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
        help="Store folder or object-storage URI such as s3://bucket/prefix (default: $TRAJ_STORE, else ./traj-store).",
        show_default=False,
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]
EngineOpt = Annotated[
    str,
    typer.Option("--engine", help="local (this machine) or ray (a Ray cluster: pip install 'traj[ray]')."),
]
RayAddressOpt = Annotated[
    str | None,
    typer.Option(
        "--ray-address",
        help="With --engine ray: the cluster's address (default: a local cluster on this machine, on 127.0.0.1).",
        show_default=False,
    ),
]


def engine_cluster(engine: str, ray_address: str | None):  # noqa: ANN201 - a context manager
    """The Ray cluster for --engine ray, else None (a null context)."""
    import contextlib

    from trajectory.engines import ENGINES
    from trajectory.errors import TrajError

    if engine not in ENGINES:
        raise TrajError(f"--engine must be one of {', '.join(ENGINES)}, got {engine!r}")
    if engine == "local":
        if ray_address:
            raise TrajError("--ray-address goes with --engine ray")
        return contextlib.nullcontext(None)
    from trajectory.engines.ray_engine import RayCluster

    return RayCluster(ray_address)


#: This invocation's ``--storage-option`` values (set while its options are parsed).
STORAGE_OPTIONS: ContextVar[dict[str, str]] = ContextVar("storage_options", default={})
# Options whose values are secrets or may hold one: shown as *** wherever a command line is.
SECRET_OPTIONS = ("--storage-option", "--llm-key")


def _storage_options(ctx: Any, param: Any, values: tuple[str, ...]) -> None:
    options: dict[str, str] = {}
    for text in values or ():
        key, sep, value = text.partition("=")
        if not sep or not key.strip():
            # The value is not repeated: it may be a secret given in the wrong form.
            raise typer.BadParameter("expected KEY=VALUE (for example AWS_ENDPOINT_URL=http://127.0.0.1:5000)")
        options[key.strip()] = value
    STORAGE_OPTIONS.set(options)


StorageOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--storage-option",
        metavar="KEY=VALUE",
        expose_value=False,
        callback=_storage_options,
        help="For a store on object storage: a delta-rs storage option (credentials, endpoint) over the "
        "standard variables (AWS_ACCESS_KEY_ID, AWS_ENDPOINT_URL, ...). Repeatable; never shown or stored.",
        show_default=False,
    ),
]


def storage_option() -> Any:
    """A --storage-option parameter, as typer builds it (for commands that did not declare it)."""

    def template(storage_option: StorageOpt = None) -> None:
        """Only the option matters."""

    holder = typer.Typer()
    holder.command()(template)
    return typer.main.get_command(holder).params[0]


def add_storage_option(group: Any) -> None:
    """Give every command that takes --store a --storage-option too."""
    for cmd in group.commands.values():
        if hasattr(cmd, "commands"):
            add_storage_option(cmd)
        elif any("--store" in p.opts for p in cmd.params) and not any(
            "--storage-option" in p.opts for p in cmd.params
        ):
            cmd.params.append(storage_option())


class StoreGroup(TyperGroup):
    """The ``traj`` group: its commands' --store gets the --storage-option that goes with it."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        add_storage_option(self)


def storage_options() -> dict[str, str] | None:
    return dict(STORAGE_OPTIONS.get()) or None


def open_store(path: str | None) -> Store:
    return Store(path or default_store_path(), storage_options=storage_options())


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


def command_line(argv: list[str] | None = None) -> str:
    """The command as typed, for the passes table: secret option values shown as ***."""
    args = list(sys.argv[1:] if argv is None else argv)
    out = []
    hide = False
    for a in args:
        if hide:
            out.append("***")
            hide = False
            continue
        name, eq, _ = a.partition("=")
        if name in SECRET_OPTIONS:
            out.append(f"{name}=***" if eq else a)
            hide = not eq
            continue
        out.append(a)
    return "traj " + " ".join(shlex.quote(a) for a in out)
