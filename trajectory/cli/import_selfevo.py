"""``traj import selfevo FILE``: trajectories of tool-creating agents, in the self-evolution
suite's schema (JSON Lines, one trajectory per line), become runs of suite ``selfevo``.

The mapping is in ``suites/selfevo/trajectories.py``; this module reads the file, reports bad
lines as ``FILE:LINE: $.path: problem``, and ingests the whole file in one all-or-nothing batch.
Run ids and pair ids are derived from batch, task id and profile, so importing the same file
again adds nothing.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer

from suites.selfevo.trajectories import Trajectory, parse_trajectory, to_events
from trajectory.errors import SchemaError
from trajectory.events import Event
from trajectory.ingest import IngestReport, ingest_events, parsed_from_events
from trajectory.store import Store

from .common import JsonOpt, StoreOpt, command, echo_json, handle_errors, open_store, progress, show_progress

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
        try:
            obj = json.loads(raw)
        except (ValueError, UnicodeDecodeError) as exc:
            problems.append(f"{where}: not JSON: {exc}")
            continue
        except RecursionError:
            problems.append(f"{where}: not JSON this program reads: nested too deeply")
            continue
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


def events_of(
    trajectories: list[tuple[int, Trajectory]], batch: str, start: _dt.datetime, model: str | None
) -> list[Event]:
    out: list[Event] = []
    for _, traj in trajectories:
        out += to_events(traj, batch, start, model)
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
    events = events_of(trajectories, batch, start, model)
    return ingest_events(store, parsed_from_events(events, source), source)


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
        data, source = sys.stdin.buffer.read(), "<stdin>"
    else:
        try:
            data = Path(file).read_bytes()
        except OSError as exc:
            raise SchemaError(f"{file}: cannot read: {exc.strerror or exc}") from None
        source = file
    s = open_store(store, create=True)
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
