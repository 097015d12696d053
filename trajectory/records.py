"""The records the shell shares besides events: a verdict row and its checks, and a pass row.

Declared once, as the events are (``trajectory/events.py``): msgspec types whose field
descriptions say what each column holds. The store's Arrow schemas of the ``verdicts`` and
``passes`` tables are derived from these (``trajectory/store/tables.py``), in field order, so a
field added here is a column there. Pure (msgspec and the standard library): no Arrow here.

Every field may be null on disk (the tables' columns are nullable); the annotations say what a
row written by traj holds.
"""

from __future__ import annotations

import datetime as _dt
from typing import Annotated, Any

import msgspec
from msgspec import Meta


def _doc(text: str) -> Meta:
    return Meta(description=text)


class CheckRow(msgspec.Struct, frozen=True, kw_only=True):
    """One check of a verdict, as the verdicts table keeps it (values as JSON text)."""

    name: Annotated[str, _doc("What was checked (unique within a verdict, or repeated in order).")]
    passed: Annotated[bool, _doc("Whether the check held.")]
    expected: Annotated[str, _doc("What the judge expected, as JSON text.")]
    actual: Annotated[str, _doc("What the judge found in the run, as JSON text.")]
    reason: Annotated[str, _doc("One line a person can act on; empty when it passed.")]


class VerdictRow(msgspec.Struct, frozen=True, kw_only=True):
    """One row of the verdicts table: one run's verdict in one pass."""

    pass_id: Annotated[str, _doc("The judging pass that gave this verdict (a row in passes).")]
    run_id: Annotated[str, _doc("The judged run.")]
    suite: Annotated[str | None, _doc("The run's suite name, as its run_started said.")]
    task: Annotated[str | None, _doc("The run's task id.")]
    batch: Annotated[str | None, _doc("The run's batch.")]
    split: Annotated[str | None, _doc("The run's pool (tune or holdout) when it said; null means the default.")]
    # The docs are part of each table's stored schema, and delta-rs refuses an append whose
    # field metadata differs from the table's: they stay as stores were written (review, the
    # outcome added later, is described in docs/cli.md).
    outcome: Annotated[str, _doc("pass, fail, error, skipped or na.")]
    score: Annotated[float, _doc("0..1; for check lists, the share of checks that passed.")]
    reason: Annotated[str, _doc("Why, in one line (the failed checks' reasons, or the error).")]
    checks: Annotated[list[CheckRow], _doc("Everything the judge looked at, in order.")]
    judge_version: Annotated[str, _doc("Hash of every module the verdict depends on, then of the task's data.")]
    judged_at: Annotated[_dt.datetime, _doc("When the pass started.")]
    details: Annotated[str | None, _doc("Suite-specific figures for reports (layers, step budget, ...), JSON text.")]
    # What the verdict was computed from, besides the judge code: an incremental pass
    # (`traj judge` without --all) judges a run again only when one of these changed.
    params: Annotated[str | None, _doc("The run's task parameters as judged, JSON text with sorted keys (null: none).")]
    judged_seq: Annotated[int, _doc("The run's last seq when judged: a run that grew since is judged again.")]
    partner: Annotated[str | None, _doc("The pair partner run the judge was given (null: none).")] = None
    judgements: Annotated[int, _doc("How many recorded LLM judgements the store held for the judge.")] = 0

    def as_dict(self) -> dict[str, Any]:
        """The row as the store reads it back: a dict, its checks dicts too."""
        return as_dicts([self])[0]


class PassRow(msgspec.Struct, frozen=True, kw_only=True):
    """One row of the passes table: a pass, which makes its verdicts visible."""

    pass_id: Annotated[str, _doc("Sorts by time; a random tail tells apart two passes in one microsecond.")]
    kind: Annotated[str, _doc("judge (traj judge) or imported (verdicts recorded by another harness).")]
    started_at: Annotated[_dt.datetime, _doc("When the pass began.")]
    finished_at: Annotated[_dt.datetime, _doc("When its verdicts were committed.")]
    runs: Annotated[int, _doc("How many runs it judged.")]
    by: Annotated[str, _doc("Who ran it ($TRAJ_USER, else the login name).")]
    command: Annotated[str | None, _doc("The command line that ran it.")]
    filters: Annotated[str, _doc("The selection it judged, JSON text.")]
    versions: Annotated[str, _doc("Suite name -> code version, JSON text.")]
    note: Annotated[str | None, _doc("Free text (the demo says which suites it judged with).")]


def as_dicts(records: list[Any]) -> list[dict[str, Any]]:
    """Records as plain dicts (nested records too), times kept as datetimes: the rows Arrow takes."""
    return msgspec.to_builtins(records, builtin_types=(_dt.datetime,))
