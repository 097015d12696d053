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
from trajectory.text import plural

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
    with the spans earlier imports kept of the same traces (``pending.py``). A trace without
    its root span stays pending; a trace whose run is written and that brings spans the run
    lacks is written again, complete, as a new revision that supersedes the run."""
    from trajectory.importers import pending
    from trajectory.importers.readers import otel_source, read_otel_files
    from trajectory.importers.writer import import_sources

    docs, failed, names = read_otel_files(paths, progress)
    filters = {"files": [str(p) for p in paths], "suite": suite, "task": task, "batch": batch}
    if not names:
        return import_sources(store, failed, importer="otel", by=by, command=command, filters=filters)
    seen: dict[str, set[str]] = {}
    for d in docs:
        for s in d.spans:
            seen.setdefault(s.trace_id, set()).add(s.span_id)
    kept = pending.kept_spans(store, list(seen))
    current, repairs = pending.current_runs(store, list(seen))
    # A trace whose run lacks spans seen now (here or kept) is written again as a new revision;
    # one whose run holds them all is known, and adds nothing.
    every = {t: ids | set(kept.spans.get(t, {})) for t, ids in seen.items()}
    late = {t: every[t] - rev.spans for t, rev in current.items() if every[t] - rev.spans}
    run_ids = {t: (rev.next_id if t in late else rev.run_id) for t, rev in current.items()}
    src, traces = otel_source(docs, names, kept.spans, suite=suite, task=task, batch=batch, run_ids=run_ids)
    if traces is None:
        return import_sources(store, [*failed, src], importer="otel", by=by, command=command, filters=filters)
    for run, mapped in zip(src.runs, traces.runs):
        t = mapped.trace_id
        if t in current and t not in late and every[t] < current[t].spans:
            # Part of a written run read again (its other spans were not kept, by an older
            # traj): the run is known, and this part's scores are not the run's.
            run.verdict = None
    report = import_sources(store, [*failed, src], importer="otel", by=by, command=command, filters=filters)
    mine = report.sources[-1]
    if mine.error is not None:
        return report
    from trajectory.query import revisions
    from trajectory.runtime import interrupts
    from trajectory.runtime.people import current_user
    from trajectory.store.delta import now_utc

    who, at = by or current_user(), now_utc()
    rooted = {r.trace_id: r.run_id for r in traces.runs}
    new_ids = {t: rooted[t] for t in late if t in rooted}  # late spans and a root: a new revision
    written = pending._finished_runs(store, new_ids.values())
    revised = [t for t in new_ids if new_ids[t] in written]
    has_run = set(current) | set(rooted)
    with interrupts.committing():  # the revisions, what they supersede, the spans: one step for Ctrl-C
        revisions.record(store, repairs + [
            (current[t].run_id, new_ids[t], f"{plural(len(late[t]), 'span')} of trace {t} arrived after its run "
                                            f"was written (imported from {mine.name})") for t in revised],
            by=who, at=at)
        pending.keep(store, traces.spans, {t: kept.spans.get(t, {}).keys() for t in traces.spans}, names, by=who,
                     at=at, kind={t: pending.WRITTEN if t in has_run else pending.KIND for t in traces.spans})
    rootless = {t: n for t, n in late.items() if t not in rooted}  # their run's own spans were not kept
    mine.open_traces = sum(1 for t in traces.open_traces if t not in current)
    mine.completed_traces = sum(1 for t in rooted if t in kept.pending and t not in current)
    mine.revised = [{"trace_id": t, "late_spans": len(late[t]), "run_id": new_ids[t], "supersedes": current[t].run_id}
                    for t in revised]
    mine.late_spans = sum(len(n) for n in rootless.values())
    mine.late_traces = len(rootless)
    mine.known_runs += sum(1 for t in traces.open_traces if t in current and t not in late)
    return report
