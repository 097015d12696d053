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
        help="A Python suite folder, a folder of task JSON files, or the name of a bundled suite or of one "
             "registered in the store.",
        metavar="PATH|NAME")],
    split: Annotated[str, typer.Option(
        "--split", help="With a NAME: the pool whose re-judged runs are checked (holdout: the look is recorded).")
    ] = "tune",
    json_: JsonOpt = False,
    store: Annotated[str | None, typer.Option(
        "--store", help="With a suite NAME: the store it is registered in and whose re-judged runs it is "
                        "checked against (default: as for every command).",
        show_default=False, metavar="PATH")] = None,
) -> None:
    """Check a suite: a Python suite's judge matrix (every task's runs that must pass and must
    fail), or a real-device task set's files. Given a suite's NAME, also judge every run of the
    store a person re-judged (nothing is written) and list each one where the judge and the
    person disagree. One line per problem; exit 1 on any."""
    from trajectory.query.sql import SPLITS

    if split not in SPLITS:
        raise TrajError(f"--split must be one of {', '.join(SPLITS)}, got {split!r}")
    if path.is_dir() and store is None:
        ok = check_folder(path, json_)
    elif path.is_dir():
        ok = check_folder_against_people(path, store, split, json_)
    else:
        ok = check_named(str(path), store, split, json_)
    if not ok:
        raise typer.Exit(1)


def check_folder(path: Path, json_: bool, people: dict | None = None) -> bool:
    """The judge matrix of a Python suite folder, or a device folder's files; printed, and
    whether all is right. ``people``: the check against people, carried in ``--json``."""
    from trajectory.judging.matrix import is_python_suite, judge_matrix

    extra = {} if people is None else {"people": people}
    if is_python_suite(path):
        matrix = judge_matrix(path)
        if json_:
            echo_json({**matrix.to_json(), **extra})
        else:
            for line in matrix.lines():
                typer.echo(line)
            typer.echo(matrix.summary(), err=not matrix.ok)
        return matrix.ok
    from suites import device

    problems = device.check(path)
    n = 0 if problems else len(device.load(path).task_ids())
    if json_:
        echo_json({"folder": str(path), "format": "device", "ok": not problems, "tasks": n, "problems": problems,
                   **extra})
    else:
        for p in problems:
            typer.echo(p)
        if problems:
            typer.echo(f"{plural(len(problems), 'problem')} in {path}", err=True)
        else:
            typer.echo(f"ok: {plural(n, 'task')} in {path}")
    return not problems


def check_folder_against_people(path: Path, store: str, split: str, json_: bool) -> bool:
    """``suite check FOLDER --store S``: the folder's matrix, then the folder's suite (as it is
    now, registered or not) over the store's runs a person re-judged."""
    from suites.registry import aliases, load_folder
    from trajectory.judging.against_people import check_against_people

    s = open_store(store)
    try:
        suite = load_folder(path)
    except Exception:  # noqa: BLE001 - the folder's own code failed: the matrix says how, in one line
        return check_folder(path, json_) and False
    resolver = SuiteResolver(s, overrides={name: suite for name in aliases(suite)})
    people = check_against_people(s, resolver, aliases(suite)[0], split)
    ok = check_folder(path, json_, people.to_json())
    if not json_:
        for line in people.lines():
            typer.echo(term_safe(line))  # the person's evidence is the run's text: shown, not obeyed
        typer.echo(people.summary(), err=not people.ok)
    return ok and people.ok


def check_named(name: str, store: str | None, split: str, json_: bool) -> bool:
    """``suite check NAME``: the suite's judge over the store's re-judged runs, then its judge
    matrix (a registered folder's, a bundled suite's when it ships one)."""
    from trajectory.judging.against_people import check_against_people, suite_folder, suite_names

    try:
        s = open_store(store)
    except TrajError:
        if store is not None:
            raise
        s = None  # no store here: a bundled suite's matrix can still be checked
    resolver = SuiteResolver(s)
    if s is None and name not in resolver.builtin():
        raise NotFound(f"{name}: no such folder, nor a bundled suite")
    reg = resolver.registered().get(name) if s is not None else None
    if reg is not None and not resolver.trusted(name):
        from trajectory.errors import JudgeError

        raise JudgeError(f"not checked: {resolver.untrusted[name]}")
    suite_names(resolver, name)  # an unknown name: one line with the near names
    people = check_against_people(s, resolver, name, split) if s is not None else None
    folder = suite_folder(resolver, name)
    has_matrix = folder is not None and (reg is not None or (folder / "cases").is_dir())
    if json_ and has_matrix:
        assert folder is not None
        ok = check_folder(folder, json_, None if people is None else people.to_json())
    elif json_:
        echo_json({"suite": name, "folder": None if folder is None else str(folder), "matrix": None,
                   "ok": people is None or people.ok, "people": None if people is None else people.to_json()})
        ok = True
    elif has_matrix:
        assert folder is not None
        ok = check_folder(folder, json_)
    else:
        typer.echo(f"suite {name} has no judge matrix here (no cases/ folder"
                   + (f" in {folder}" if folder is not None else "") + "): checked against people only")
        ok = True
    if people is not None and not json_:
        for line in people.lines():
            typer.echo(term_safe(line))  # the person's evidence is the run's text: shown, not obeyed
        typer.echo(people.summary(), err=not people.ok)
    return ok and (people is None or people.ok)


def register(app: typer.Typer) -> None:
    app.add_typer(suite_app, name="suite")
    command(suite_app, new, "new")
    command(suite_app, check, "check")
    command(suite_app, add, "add")
    command(suite_app, trust, "trust")
    command(suite_app, list_, "list")
