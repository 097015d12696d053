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
    """Import OTLP/JSON trace files; the traces of all readable files are written together."""
    from trajectory.importers.readers import otel_sources
    from trajectory.importers.writer import import_sources

    sources = otel_sources(paths, progress, suite=suite, task=task, batch=batch)
    return import_sources(store, sources, importer="otel", by=by, command=command,
                          filters={"files": [str(p) for p in paths], "suite": suite, "task": task, "batch": batch})
