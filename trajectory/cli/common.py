"""Shared CLI plumbing: the --store and --storage-option options, error and Ctrl-C handling,
JSON output, progress, and plain help rendering."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import shlex
import sys
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer
import typer.core
import typer.main

from trajectory.runtime import interrupts
from trajectory.errors import NotFound, TrajError
from trajectory.redact import redact_argv, redact_text
from trajectory.runtime.diskfault import disk_fault
from trajectory.termsafe import json_safe
from trajectory.text import HINT_OPTIONS

if TYPE_CHECKING:  # the store (Arrow, Delta) is loaded by the commands that open one
    from trajectory.store.delta import Store

F = TypeVar("F", bound=Callable[..., Any])

StoreOpt = Annotated[
    str | None,
    typer.Option(
        "--store",
        help="Store folder or object-storage URI such as s3://bucket/prefix (default: $TRAJ_STORE, else ./traj-store).",
        show_default=False,
        metavar="PATH",
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON (shapes in docs/cli.md).")]

#: What a command prints when it finds no store where it was pointed.
NO_STORE = "no traj store at {path} (create one with traj ingest or traj demo)"

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



def storage_options() -> dict[str, str] | None:
    return dict(STORAGE_OPTIONS.get()) or None



#: For a command that may create its store: ``{"created": path or None}`` (see open_store).
CREATING: ContextVar[dict[str, Any] | None] = ContextVar("creating", default=None)


def open_store(path: str | None, *, create: bool = False, json_: bool = False) -> Store:
    """The store at ``path`` (else $TRAJ_STORE, else ./traj-store), with this invocation's
    --storage-option values.

    Only commands that write events (``create=True``: ingest, import, demo) may start a new
    store; for every other command a missing store is an error, never an empty answer (a
    mistyped --store must not look like a store with nothing in it).

    A command that creates the store says so the moment it does, on a line of its own
    (``created a new store at PATH``; on stderr with ``--json``, whose objects carry
    ``"created_store"``: the path, else null; see :func:`echo_json`).
    """
    from trajectory.store.delta import Store, default_store_path

    set_hints(path)
    store = Store(path or default_store_path(), storage_options=storage_options())
    if create:
        state: dict[str, Any] = {"created": None}
        CREATING.set(state)

        def created() -> None:
            state["created"] = str(store.loc)
            typer.echo(f"created a new store at {store.loc}", err=json_)

        store.on_create = created
    elif not store.exists:
        raise NotFound(NO_STORE.format(path=path or default_store_path()))
    return store


def set_hints(path: str | None) -> None:
    """Make every hint this command prints carry its --store and --storage-option names."""
    HINT_OPTIONS.set((path, tuple(storage_options() or {})))


def handle_errors(fn: F) -> F:
    """Turn traj's own errors into one line (or one line per problem) on stderr and exit 1;
    Ctrl-C into one line saying what was committed, and exit 130.

    A user mistake never shows a traceback; a bug still does, so that it gets reported.
    """

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with interrupts.ledger() as committed:
            hints = HINT_OPTIONS.set((None, ()))  # each command's hints carry its own --store
            creating = CREATING.set(None)
            try:
                interrupts.working()
                result = fn(*args, **kwargs)
            except BaseException as exc:  # noqa: BLE001 - each kind is answered or re-raised
                # After Ctrl-C any error is the interrupt's doing (DuckDB, for one, turns it
                # into RuntimeError): one line, exit 130, no traceback.
                if isinstance(exc, KeyboardInterrupt) or interrupts.signalled():
                    typer.echo(interrupts.answer(committed), err=True)
                    raise typer.Exit(130) from None
                if isinstance(exc, TrajError):
                    typer.echo(redact_text(f"error: {exc}"), err=True)
                    raise typer.Exit(1) from None
                if isinstance(exc, BrokenPipeError):
                    # `traj export | head`: the reader went away; that is not an error of ours.
                    try:
                        sys.stdout = open(os.devnull, "w")  # noqa: SIM115
                    except OSError:
                        pass
                    raise typer.Exit(0) from None
                # A disk fault (from Python, the Delta writer or a Rust panic) is one line too.
                from trajectory.store.delta import default_store_path

                line = disk_fault(exc, kwargs.get("store") or default_store_path())
                if line is None:
                    raise
                typer.echo(redact_text(f"error: {line}"), err=True)
                raise typer.Exit(1) from None
            finally:
                HINT_OPTIONS.reset(hints)
                CREATING.reset(creating)
            interrupts.remember(committed)
            if interrupts.signalled():
                # The Ctrl-C was swallowed on the way and the command ran to its end: say so.
                typer.echo(interrupts.answer(committed), err=True)
                raise typer.Exit(130)
            return result

    return wrapper  # type: ignore[return-value]


def echo_json(value: Any) -> None:
    """One JSON value on one line; an object printed by a command that may create its store
    says whether it did: ``"created_store"``, the store's path or null."""
    from trajectory.query.sql import json_default

    state = CREATING.get()
    if state is not None and isinstance(value, dict):
        value = {**value, "created_store": state["created"]}
    typer.echo(json_safe(json.dumps(value, ensure_ascii=False, default=json_default, indent=None)))


def command_line(argv: list[str] | None = None) -> str:
    """The command as typed, for the passes table and the logs: secrets shown as ``***``
    (trajectory/redact.py), never stored."""
    words = redact_argv(sys.argv[1:] if argv is None else argv)
    return "traj " + " ".join(shlex.quote(a) for a in words)


# -- progress ---------------------------------------------------------------------------------

Update = Callable[..., None]


def show_progress(json_: bool = False) -> bool:
    """Progress bars only for a person at a terminal: never in pipes, files or with --json."""
    return not json_ and sys.stderr.isatty()


@contextlib.contextmanager
def progress(label: str, *, enabled: bool, unit: str = "runs", total: int | None = None) -> Iterator[Update]:
    """A progress bar on stderr with counts and rate (rich), removed when done; yields
    ``update(done, total=None, label=None)``. Disabled, it yields a function that does nothing."""
    if not enabled:
        yield lambda *a, **k: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskProgressColumn, TextColumn

    from trajectory.cli.progress_columns import RateColumn

    bar = Progress(
        TextColumn("{task.description}"), BarColumn(), TaskProgressColumn(), MofNCompleteColumn(), RateColumn(unit),
        console=Console(stderr=True), transient=True,
    )
    with bar:
        task = bar.add_task(label, total=total)

        def update(done: int, total: int | None = None, label: str | None = None) -> None:
            fields: dict[str, Any] = {"completed": done}
            if total is not None:
                fields["total"] = total
            if label is not None:
                fields["description"] = label
            bar.update(task, **fields)

        yield update


# -- plain help -------------------------------------------------------------------------------


def _metavar(param: Any) -> str:
    if param.metavar:
        return str(param.metavar)
    return (param.name or "value").upper()


def _default(param: Any) -> str | None:
    if not getattr(param, "show_default", False) or getattr(param, "is_flag", False):
        return None
    value = param.default
    if value is None or value == [] or value == () or value is False or callable(value):
        return None
    return str(value)


def _option_row(param: Any) -> tuple[str, str]:
    names = ", ".join(list(param.opts) + list(param.secondary_opts))
    if not getattr(param, "is_flag", False):
        names += f" {_metavar(param)}" + ("..." if getattr(param, "multiple", False) else "")
    help_text = " ".join((param.help or "").split())
    extra = []
    default = _default(param)
    if default is not None:
        extra.append(f"default: {default}")
    if getattr(param, "multiple", False):
        extra.append("repeatable")
    if param.required:
        extra.append("required")
    return names, help_text + (f"  [{'; '.join(extra)}]" if extra else "")


def _argument_name(param: Any) -> str:
    name = _metavar(param)
    if param.nargs != 1:
        name += "..."
    return name if param.required else f"[{name}]"


def _write_help(cmd: Any, ctx: Any, formatter: Any, commands: list[tuple[str, str]] | None = None) -> None:
    """Help as plain text: arguments and flags by their names (``FILE...``, ``--store PATH``),
    no type tags, no boxes: the same on every terminal and in every pipe."""
    params = cmd.get_params(ctx)
    arguments = [p for p in params if p.param_type_name == "argument" and not getattr(p, "hidden", False)]
    options = [p for p in params if p.param_type_name == "option" and not getattr(p, "hidden", False)]
    pieces = (["[OPTIONS]"] if options else []) + [_argument_name(a) for a in arguments]
    if commands is not None:
        pieces.append("COMMAND [ARGS]...")
    formatter.write_usage(ctx.command_path, " ".join(pieces))
    if cmd.help:
        formatter.write_paragraph()
        with formatter.indentation():
            formatter.write_text(" ".join(cmd.help.split("\n\n")[0].split()))
            for para in cmd.help.split("\n\n")[1:]:
                formatter.write_paragraph()
                formatter.write_text(" ".join(para.split()))
    if arguments:
        with formatter.section("Arguments"):
            formatter.write_dl([(_argument_name(a).strip("[]"), " ".join((getattr(a, "help", "") or "").split()))
                                for a in arguments])
    if options:
        with formatter.section("Options"):
            formatter.write_dl([_option_row(o) for o in options])
    if commands:
        with formatter.section("Commands"):
            formatter.write_dl(commands)


class PlainCommand(typer.core.TyperCommand):
    """A command whose --help is plain text (see :func:`_write_help`)."""

    def format_help(self, ctx: Any, formatter: Any) -> None:
        _write_help(self, ctx, formatter)


class PlainGroup(typer.core.TyperGroup):
    """A command group whose --help is plain text, commands listed in the order they were added;
    its commands' --store gets the --storage-option that goes with it."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        add_storage_option(self)

    def list_commands(self, ctx: Any) -> list[str]:
        return list(self.commands)

    def format_help(self, ctx: Any, formatter: Any) -> None:
        rows = []
        for name in self.list_commands(ctx):
            sub = self.get_command(ctx, name)
            if sub is not None and not sub.hidden:
                rows.append((name, sub.get_short_help_str(limit=300)))
        _write_help(self, ctx, formatter, rows)


#: Settings every command group is made with: -h as well as --help, plain help, no completion.
APP_SETTINGS: dict[str, Any] = {
    "cls": PlainGroup,
    "context_settings": {"help_option_names": ["-h", "--help"]},
    "rich_markup_mode": None,
    "pretty_exceptions_enable": False,
    "add_completion": False,
    "no_args_is_help": True,
}


def sub_app(help_text: str) -> typer.Typer:
    """A command group (``traj suite``, ``traj export``, ``traj import``)."""
    return typer.Typer(help=help_text, **APP_SETTINGS)


def command(app: typer.Typer, fn: Callable[..., Any], name: str | None = None) -> None:
    """Add ``fn`` to ``app`` as a command with plain help."""
    app.command(name, cls=PlainCommand)(fn)


def version() -> str:
    """The installed traj's version."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as package_version

    try:
        return package_version("traj")
    except PackageNotFoundError:  # a source tree that was not installed
        return "unknown"


def _show_version(value: bool) -> None:
    if value:
        typer.echo(f"traj {version()}")
        raise typer.Exit()


def root(
    version_: Annotated[
        bool | None,
        typer.Option("--version", callback=_show_version, is_eager=True, help="Print the version and exit."),
    ] = None,
) -> None:
    """Event-sourced trajectory store and replay judge for AI-agent evaluations."""
