"""Importers of runs recorded by other tools: Inspect AI eval logs and OpenTelemetry traces.

``inspect_log`` and ``otel`` map what those tools record to traj events and recorded verdicts
(no I/O); ``readers`` reads the files (Inspect logs only through inspect-ai's own reader) and
``writer`` writes runs, grader answers and the ``imported`` pass to the store.
:func:`import_inspect` and :func:`import_otel` are what ``traj import inspect`` and ``traj
import otel`` call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trajectory.importers.readers import Progress

if TYPE_CHECKING:
    from trajectory.store.delta import Store
    from trajectory.importers.writer import ImportReport


def import_inspect(store: Store, paths: list[str], *, by: str | None = None, command: str | None = None,
                   progress: Progress | None = None) -> ImportReport:
    """Import Inspect logs (``.eval``, ``.json``, folders of them); each log is written entirely
    or not at all, and a log imported before adds only what is new."""
    from trajectory.importers.readers import inspect_sources
    from trajectory.importers.writer import import_sources

    return import_sources(store, inspect_sources(paths, progress), importer="inspect", by=by, command=command,
                          filters={"logs": [str(p) for p in paths]})


def import_otel(store: Store, paths: list[str], *, suite: str | None = None, task: str | None = None,
                batch: str | None = None, by: str | None = None, command: str | None = None,
                progress: Progress | None = None) -> ImportReport:
    """Import OTLP/JSON trace files; the traces of all readable files are written together,
    with the spans kept from earlier imports of traces still waiting for their root span. The
    spans of traces whose root is still not there are kept in turn (``pending.py``)."""
    from trajectory.importers import pending
    from trajectory.importers.readers import otel_source, read_otel_files
    from trajectory.importers.writer import import_sources

    docs, failed, names = read_otel_files(paths, progress)
    filters = {"files": [str(p) for p in paths], "suite": suite, "task": task, "batch": batch}
    if not names:
        return import_sources(store, failed, importer="otel", by=by, command=command, filters=filters)
    kept = pending.kept_spans(store)
    src, traces = otel_source(docs, names, kept, suite=suite, task=task, batch=batch)
    report = import_sources(store, [*failed, src], importer="otel", by=by, command=command, filters=filters)
    mine = report.sources[-1]
    if traces is None or mine.error is not None:
        return report
    completed = [r.trace_id for r in traces.runs if r.trace_id in kept]
    late = pending.late_spans(store, traces.open_spans)  # rootless here, but their run is written
    waiting = {t: s for t, s in traces.open_spans.items() if t not in late}
    from trajectory.runtime.people import current_user
    from trajectory.store.delta import now_utc

    pending.keep(store, waiting, {t: kept.get(t, {}).keys() for t in waiting}, names,
                 by=by or current_user(), at=now_utc())
    mine.open_traces = len(waiting)
    mine.completed_traces = len(completed)
    mine.known_runs += sum(1 for n in late.values() if not n)
    mine.late_spans = sum(late.values())
    mine.late_traces = sum(1 for n in late.values() if n)
    return report
