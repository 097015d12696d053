"""``traj import mobilegym RUN_DIR``: a recorded run folder of the phone benchmark becomes runs
(batch = the folder's name) plus one ``imported`` verdict pass holding the benchmark's own
verdicts, so that ``traj diff`` can set them against a re-judge.

The folder format and the mapping are in ``suites/gui/mobilegym.py``; this module reads the
files and writes the store. Importing the same folder again adds no events and no second pass.
"""

from __future__ import annotations

import datetime as _dt
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from replay import replay
from suites.gui import mobilegym as mg
from trajectory import events as ev
from trajectory.errors import LimitError, SchemaError
from trajectory.importers import bounded
from trajectory.ingest.batchplan import ingest_events
from trajectory.ingest.plain import IngestReport, parse
from trajectory.judging import PassResult, SuiteResolver, new_pass_id, passes, verdict_row, write_pass
from trajectory.store.delta import Store, now_utc

from trajectory.cli.common import (
    JsonOpt, StoreOpt, command, command_line, echo_json, handle_errors, open_store, progress, show_progress,
)

MAX_ERRORS = 20


def _read_json(path: Path) -> Any:
    """A JSON file of the run folder, read within the importers' limits (bounded.py)."""
    return bounded.load_json(bounded.read_file(path), str(path))


def read_episodes(path: Path) -> list[mg.Episode]:
    data = bounded.read_file(path)
    out, problems = [], []
    for n, raw in enumerate(data.split(b"\n"), start=1):
        if not raw.strip():
            continue
        if len(out) + len(problems) >= bounded.DEFAULT.max_items:
            raise LimitError(f"{path}:{n}: more than {bounded.DEFAULT.max_items} episodes, over the limit")
        try:
            value = bounded.load_json(raw, str(path), n)
        except LimitError:
            raise
        except SchemaError as exc:  # not JSON, or a key given twice
            problems.append(str(exc))
            continue
        try:
            out.append(mg.parse_episode(value, str(path), n))
        except ValueError as exc:  # mg.FormatError
            problems.append(str(exc))
    if problems:
        more = f"\n... and {len(problems) - MAX_ERRORS} more" if len(problems) > MAX_ERRORS else ""
        raise SchemaError("\n".join(problems[:MAX_ERRORS]) + more)
    return out


def read_steps(folder: Path, episode: mg.Episode) -> tuple[list[dict[str, Any]], str | None]:
    """An episode's recorded steps and their folder (relative to the run folder); none if absent."""
    for name in mg.trajectory_dir_names(episode.task_id, episode.trial):
        path = folder / "trajectory" / name / "trajectory.json"
        if path.exists() or path.is_symlink():
            steps = _read_json(path)
            if isinstance(steps, dict):
                steps = steps.get("steps")
            if not isinstance(steps, list) or not all(isinstance(s, dict) for s in steps):
                raise SchemaError(f"{path}: expected a list of step objects")
            return steps, f"trajectory/{name}"
    return [], None


def default_batch(folder: Path) -> str:
    return re.sub(r"[^\w.-]+", "_", folder.resolve().name) or "mobilegym"


def _imported_before(store: Store, batch: str) -> str | None:
    for p in passes(store):
        if p["kind"] != "imported":
            continue
        try:
            filters = json.loads(p["filters"] or "{}")
        except ValueError:
            continue
        if filters.get("importer") == mg.SOURCE and filters.get("batch") == batch:
            return p["pass_id"]
    return None


def import_mobilegym(
    store: Store, folder: str | Path, *, batch: str | None = None, by: str | None = None, command: str | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[IngestReport, PassResult | None, str | None]:
    """Ingest a run folder (all of it or nothing) and record its verdicts as an imported pass.

    Returns the ingest report, the new pass (None when there was nothing to record) and the id
    of an earlier import's pass when this batch was imported before (then nothing new is written).
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise SchemaError(f"{folder}: not a folder")
    meta = _read_json(folder / "meta.json")
    if not isinstance(meta, dict):
        raise SchemaError(f"{folder / 'meta.json'}: expected a JSON object")
    start = mg.parse_time(meta.get("start_time"), f"{folder / 'meta.json'}: $.start_time")
    batch = batch or default_batch(folder)
    episodes = read_episodes(folder / "results.jsonl")
    seen: dict[str, int] = {}
    lines: list[bytes] = []
    verdicts: list[tuple[str, Any]] = []
    at = start
    for i, ep in enumerate(episodes):
        if progress is not None:
            progress(i, len(episodes))
        rid = mg.run_id(batch, ep.task_id, ep.trial)
        if rid in seen:
            raise SchemaError(f"{folder / 'results.jsonl'}:{ep.line}: episode {ep.task_id} trial {ep.trial} "
                              f"is already on line {seen[rid]}")
        seen[rid] = ep.line
        steps, image_dir = read_steps(folder, ep)
        events = mg.to_events(meta, ep, steps, batch=batch, start=at, image_dir=image_dir)
        lines += [json.dumps(e, ensure_ascii=False).encode() for e in events]
        runtime = ep.execution.get("runtime_s")
        at += _dt.timedelta(seconds=(float(runtime) if isinstance(runtime, (int, float)) and runtime > 0 else 0) + 1)
        verdict = mg.recorded_verdict(ep)
        if verdict is not None:
            verdicts.append((rid, verdict))
    source = str(folder)
    parsed = parse(b"\n".join(lines), source)
    report = ingest_events(store, parsed, source, split_of=SuiteResolver(store).split_of)
    earlier = _imported_before(store, batch)
    if earlier is not None or not verdicts:
        return report, None, earlier
    by_run: dict[str, list[ev.Event]] = {}
    for p in parsed:
        by_run.setdefault(p.event.run_id, []).append(p.event)
    started = now_utc()
    pass_id = new_pass_id(started)
    version = f"{mg.SOURCE}-{meta.get('version') or 'recorded'}"
    rows = [verdict_row(pass_id, replay(by_run[rid]), v, version, started) for rid, v in verdicts]
    result = PassResult(pass_id, started, now_utc(), rows, 0, False, {mg.SOURCE: version})
    write_pass(store, result, kind="imported", by=by, command=command,
               filters={"importer": mg.SOURCE, "batch": batch, "folder": str(folder.resolve())},
               note=f"verdicts recorded by {mg.SOURCE} in {folder.name}")
    return report, result, None


@handle_errors
def mobilegym(
    run_dir: Annotated[str, typer.Argument(help="A run folder: meta.json, results.jsonl, trajectory/.")],
    batch: Annotated[str | None, typer.Option(help="Batch name (default: the folder's name).")] = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Import a MobileGym run folder; its recorded verdicts become an `imported` pass."""
    s = open_store(store, create=True, json_=json_)
    with progress(f"importing {run_dir}", enabled=show_progress(json_), unit="episodes") as update:
        report, result, earlier = import_mobilegym(s, run_dir, batch=batch, command=command_line(), progress=update)
    counts = dict(result.counts) if result else {}
    if json_:
        echo_json({"source": run_dir, "runs": report.runs, "events": report.events, "new": report.new,
                   "present": report.present, "pass_id": result.pass_id if result else earlier,
                   "verdicts": counts, "already_imported": earlier is not None})
        return
    typer.echo(report.line())
    if result is not None:
        parts = ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
        typer.echo(f"recorded verdicts: {len(result.rows)} ({parts}) as imported pass {result.pass_id}")
    elif earlier is not None:
        typer.echo(f"recorded verdicts: already imported as pass {earlier}")
    else:
        typer.echo("recorded verdicts: none in this folder")


def register(import_app: typer.Typer) -> None:
    command(import_app, mobilegym, "mobilegym")
