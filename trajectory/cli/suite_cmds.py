"""Suite commands: start a suite of your own, check one, register a folder of tasks (or Inspect
scorers) with the store, trust a registration someone else made, list suites (docs/suites.md)."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Annotated

import typer

from trajectory.errors import NotFound, TrajError
from trajectory.judging.resolve import SuiteResolver, add_scorers, add_suite, is_scorer_spec, list_suites, trust_suite
from trajectory.termsafe import term_safe
from trajectory.text import hint, plural

from trajectory.cli.common import JsonOpt, StoreOpt, command, echo_json, handle_errors, open_store, sub_app

suite_app = sub_app("Suites: write your own, check one, register task folders with the store.")


@handle_errors
def new(
    name: Annotated[str, typer.Argument(help="The suite's name (runs give it as run_started.suite).", metavar="NAME")],
    dir_: Annotated[Path, typer.Option("--dir", help="Where to create the folder NAME.", metavar="PATH")] = Path("."),
    json_: JsonOpt = False,
) -> None:
    """Write a runnable skeleton suite: one task, a run that must pass and one that must fail,
    and a test file that runs its judge matrix."""
    from trajectory.catalog.scaffold import new_suite

    files = new_suite(name, dir_)
    folder = dir_ / name
    if json_:
        echo_json({"suite": name, "folder": str(folder), "files": [str(f) for f in files]})
        return
    typer.echo(f"wrote suite {name} in {folder}:")
    for f in files:
        typer.echo(f"  {f}")
    typer.echo(f"next: traj suite check {folder}   (then see docs/suites.md)")


@handle_errors
def add(
    name: Annotated[str, typer.Argument(help="Suite name runs use in run_started.suite.", metavar="NAME")],
    path: Annotated[Path, typer.Argument(
        help="The suite folder, or Inspect scorers as module:function or path/to/file.py:function.", metavar="PATH")],
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Register a suite folder (or Inspect scorers) with the store, so that later judging finds
    it, and trust it on this machine (others who judge the store trust it with traj suite trust)."""
    if is_scorer_spec(path):
        scorers = add_scorers(open_store(store), name, str(path))
        if json_:
            echo_json({"suite": name, "scorers": str(path), "scorer_names": list(scorers.scorer_names)})
            return
        typer.echo(f"registered suite {name} -> Inspect scorers {path} ({', '.join(scorers.scorer_names)})")
        return
    suite, problems = add_suite(open_store(store), name, path)
    n = len(suite.task_ids())
    if json_:
        echo_json({"suite": name, "folder": str(path.absolute()), "tasks": n, "problems": problems})
        return
    for p in problems:
        typer.echo(f"warning: {p}", err=True)
    typer.echo(f"registered suite {name} -> {path.absolute()} ({plural(n, 'task')}"
               + (f", {plural(len(problems), 'problem')} left out" if problems else "") + ")")


@handle_errors
def trust(
    name: Annotated[str, typer.Argument(help="A suite registered in the store.", metavar="NAME")],
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Trust a suite someone registered in the store, on this machine: judging may then import
    its code (kept in ~/.config/traj/trust.json, per store, suite and folder)."""
    from trajectory.catalog.trust import trust_path

    reg = trust_suite(open_store(store), name)
    if json_:
        echo_json({"suite": name, "source": reg["path"], "by": reg["by"], "trust_file": str(trust_path())})
        return
    typer.echo(term_safe(f"trusted suite {name} -> {reg['path']} (registered by {reg['by']}) in this store, "
                         f"on this machine ({trust_path()})"))


@handle_errors
def list_(json_: JsonOpt = False, store: StoreOpt = None) -> None:
    """Suites known to this store: registered folders first (and whether this machine trusts
    them), then the bundled ones."""
    rows = list_suites(open_store(store))
    if json_:
        for r in rows:
            echo_json(r)
        return
    for r in rows:
        note = "" if r["trusted"] else f"   (not trusted here: {hint('traj suite trust ' + shlex.quote(r['name']))})"
        typer.echo(term_safe(f"{r['name']:<16} {r['source']}{note}"))


@handle_errors
def check(
    path: Annotated[Path, typer.Argument(
        help="A Python suite folder, a folder of task JSON files, or the name of a suite registered in the store.",
        metavar="PATH")],
    json_: JsonOpt = False,
    store: Annotated[str | None, typer.Option(
        "--store", help="With a suite NAME: the store it is registered in (default: as for every command).",
        show_default=False, metavar="PATH")] = None,
) -> None:
    """Check a suite: a Python suite's judge matrix (every task's runs that must pass and must
    fail), or a real-device task set's files. One line per problem; exit 1 on any."""
    from trajectory.judging.matrix import is_python_suite, judge_matrix

    if not path.is_dir():
        path = registered_folder(str(path), store)
    if is_python_suite(path):
        matrix = judge_matrix(path)
        if json_:
            echo_json(matrix.to_json())
        else:
            for line in matrix.lines():
                typer.echo(line)
            typer.echo(matrix.summary(), err=not matrix.ok)
        if not matrix.ok:
            raise typer.Exit(1)
        return
    from suites import device

    problems = device.check(path)
    n = 0 if problems else len(device.load(path).task_ids())
    if json_:
        echo_json({"folder": str(path), "format": "device", "ok": not problems, "tasks": n, "problems": problems})
    else:
        for p in problems:
            typer.echo(p)
        if problems:
            typer.echo(f"{plural(len(problems), 'problem')} in {path}", err=True)
        else:
            typer.echo(f"ok: {plural(n, 'task')} in {path}")
    if problems:
        raise typer.Exit(1)


def registered_folder(name: str, store: str | None) -> Path:
    """The folder of the suite ``name`` registered in the store, once this machine trusts it
    (a folder a store names is checked only then: checking runs its code)."""
    from trajectory.errors import JudgeError

    try:
        s = open_store(store)
    except TrajError:
        raise NotFound(f"{name}: no such folder") from None
    resolver = SuiteResolver(s)
    reg = resolver.registered().get(name)
    if reg is None:
        raise NotFound(f"{name}: no such folder, nor a suite registered in {s.loc}")
    if not resolver.trusted(name):
        raise JudgeError(f"not checked: {resolver.untrusted[name]}")
    if reg.get("scorers"):
        raise JudgeError(f"suite {name!r} is Inspect scorers ({reg['scorers']}): it has no judge matrix to check")
    return Path(reg["path"])


def register(app: typer.Typer) -> None:
    app.add_typer(suite_app, name="suite")
    command(suite_app, new, "new")
    command(suite_app, check, "check")
    command(suite_app, add, "add")
    command(suite_app, trust, "trust")
    command(suite_app, list_, "list")
