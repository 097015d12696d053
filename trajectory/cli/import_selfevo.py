"""``traj import selfevo FILE``: trajectories of tool-creating agents, in the self-evolution
suite's schema (JSON Lines, one trajectory per line), become runs of suite ``selfevo``.

The mapping is in ``suites/selfevo/trajectories.py``; this module reads the file, reports bad
lines as ``FILE:LINE: $.path: problem``, and ingests the whole file in one all-or-nothing batch.
Run ids and pair ids are derived from batch, task id and profile, so importing the same file
again adds nothing.

One exception: a line with ``create_tool`` steps and no ``created_tools`` (missing or null) that
was imported before ``created_tools`` was read as the harness reads it (an empty list). It is now
stored with ``run_finished.metrics["created_tools"]``, which the old import lacks, so importing it
again into that store is refused as a conflict: stored events are never rewritten. The refusal
names those lines and what to do: import the file under another ``--batch`` (or into a new
store) to have them judged as the harness judges them, or leave them out to keep the stored runs.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import msgspec
import typer

from suites.selfevo.trajectories import Trajectory, imported_otherwise_before, parse_trajectory, to_events
from trajectory.errors import ConflictError, LimitError, SchemaError
from trajectory.importers import bounded
from trajectory.events import Event, RunFinished
from trajectory.ingest.batchplan import ingest_events
from trajectory.ingest.plain import IngestReport, parsed_from_events, stored_event
from trajectory.store.delta import Store

from trajectory.cli.common import JsonOpt, StoreOpt, command, echo_json, handle_errors, open_store, progress, show_progress

# The schema carries no times; runs start here unless --at says otherwise.
DEFAULT_START = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)
MAX_ERRORS = 20


def default_batch(path: str) -> str:
    if path == "-":
        return "stdin"
    return re.sub(r"[^A-Za-z0-9._-]+", "_", Path(path).stem) or "selfevo"


def parse_lines(
    data: bytes, source: str, progress: Callable[[int, int], None] | None = None
) -> list[tuple[int, Trajectory]]:
    """The trajectories of a file with their 1-based line numbers; every bad line is reported.
    ``progress(lines done, lines)`` is told as the lines are read."""
    out: list[tuple[int, Trajectory]] = []
    problems: list[str] = []
    seen: dict[tuple[str, str, bool], int] = {}
    lines = data.split(b"\n")
    for n, raw in enumerate(lines, start=1):
        if progress is not None and n % 200 == 0:
            progress(n, len(lines))
        if not raw.strip():
            continue
        where = f"{source}:{n}"
        if len(out) + len(problems) >= bounded.DEFAULT.max_items:
            raise LimitError(f"{where}: more than {bounded.DEFAULT.max_items} trajectories, over the limit")
        try:
            obj = bounded.load_json(raw, source, n)  # ingest's depth limit; a key given twice is refused
        except SchemaError as exc:
            problems.append(str(exc))
            continue
        if isinstance(obj, dict) and "task_id" not in obj and not out and not problems:
            found = bounded.format_of(obj)
            if not found.startswith(("a JSON object with keys", "an empty JSON object")):
                raise SchemaError(f"{where}: {found}, not self-evolution trajectories (one JSON object with "
                                  "task_id, steps, final_answer ... per line)")
        try:
            traj = parse_trajectory(obj, where)
        except SchemaError as exc:
            problems.append(str(exc))
            continue
        key = (traj.task_id, traj.profile, traj.is_variant)
        if key in seen:
            which = "second" if traj.is_variant else "first"
            problems.append(
                f"{where}: a {which} attempt at {traj.task_id} by {traj.profile} is already on line {seen[key]}"
            )
            continue
        seen[key] = n
        out.append((n, traj))
    if problems:
        more = f"\n... and {len(problems) - MAX_ERRORS} more" if len(problems) > MAX_ERRORS else ""
        raise SchemaError("\n".join(problems[:MAX_ERRORS]) + more)
    return out


def import_selfevo(
    store: Store,
    data: bytes,
    source: str,
    *,
    batch: str,
    start: _dt.datetime = DEFAULT_START,
    model: str | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> IngestReport:
    """Import one file's trajectories; all of them or none."""
    trajectories = parse_lines(data, source, progress)
    events: list[Event] = []
    lines: list[int] = []
    for line, traj in trajectories:
        run = to_events(traj, batch, start, model)
        events += run
        lines += [line] * len(run)
    # A refusal names the file's line of the trajectory, not the event's place in the batch.
    parsed = [dataclasses.replace(p, line=n) for p, n in zip(parsed_from_events(events, source), lines)]
    try:
        return ingest_events(store, parsed, source)
    except ConflictError as exc:
        raise _explained(exc, store, trajectories, source, batch, start, model) from None


def _explained(
    exc: ConflictError,
    store: Store,
    trajectories: list[tuple[int, Trajectory]],
    source: str,
    batch: str,
    start: _dt.datetime,
    model: str | None,
) -> ConflictError:
    """The conflict, with what happened when lines conflict only because an older import stored
    them without ``metrics["created_tools"]`` (see the module docstring)."""
    old = []
    for line, traj in trajectories:
        if not imported_otherwise_before(traj):
            continue
        finish = to_events(traj, batch, start, model)[-1]
        assert isinstance(finish, RunFinished)
        if stored_event(store, finish.run_id, finish.seq) == msgspec.structs.replace(finish, metrics=None):
            old.append(str(line))
    if not old:
        return exc
    lines = ", ".join(old[:10]) + (f" and {len(old) - 10} more" if len(old) > 10 else "")
    return ConflictError(
        f"{exc}\n{source}: line{'s' if len(old) > 1 else ''} {lines}: create_tool steps with no "
        "created_tools, stored by an older import that read the steps as the created tools; the harness "
        "reads no created_tools as an empty list, so run_finished now carries metrics.created_tools. "
        "Stored events are never rewritten: import the file under another --batch (or into a new "
        "store) to judge these as the harness does, or leave these lines out to keep the stored runs."
    )


def _parse_at(text: str | None) -> _dt.datetime:
    if text is None:
        return DEFAULT_START
    try:
        at = _dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise SchemaError(f"--at: not an RFC 3339 time: {text!r}") from None
    if at.tzinfo is None:
        raise SchemaError(f"--at: give a UTC offset, e.g. {text}+00:00")
    return at


@handle_errors
def selfevo(
    file: Annotated[str, typer.Argument(help="JSON Lines, one trajectory per line; - for standard input.")],
    batch: Annotated[
        str | None, typer.Option(help="Batch name (default: the file name without extension).")
    ] = None,
    model: Annotated[str | None, typer.Option(help="Agent model, recorded with every run.")] = None,
    at: Annotated[
        str | None, typer.Option(help="Start time of every run, RFC 3339 (default 1970-01-01T00:00:00Z).")
    ] = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Import self-evolution trajectories; is_variant:true lines are second attempts."""
    if file == "-":
        data, source = bounded.read_stream(sys.stdin.buffer, "<stdin>"), "<stdin>"
    else:
        data, source = bounded.read_file(file), file  # a regular file within the importers' limits
    s = open_store(store, create=True, json_=json_)
    with progress(f"importing {source}", enabled=show_progress(json_), unit="lines") as update:
        report = import_selfevo(
            s, data, source, batch=batch or default_batch(file), start=_parse_at(at), model=model, progress=update
        )
    if json_:
        echo_json(dataclasses.asdict(report))
    else:
        typer.echo(report.line())


def register(import_app: typer.Typer) -> None:
    command(import_app, selfevo, "selfevo")
