"""Importers of runs recorded by other tools: Inspect AI eval logs and OpenTelemetry traces.

``inspect_log`` and ``otel`` map what those tools record to traj events and recorded verdicts
(no I/O); ``readers`` reads the files (Inspect logs only through inspect-ai's own reader) and
``writer`` writes runs, grader answers and the ``imported`` pass to the store.
"""
