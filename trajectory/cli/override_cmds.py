"""``traj override``: a person's verdict on one run, backed by evidence from the run itself.

No evidence in the record, no re-judging: the quoted text must appear verbatim in one of the
run's screen reads or in its final answer (answer_given, else the AnswerSheet's values).
Overrides are appended to their own table, so every later judging pass leaves them alone;
reports show them and mark one settled when a later automatic verdict agrees.
"""

from __future__ import annotations

import os
import re
import secrets
from typing import Annotated, Any

import pyarrow as pa
import typer

from trajectory.runtime import interrupts
from trajectory.errors import NotFound, TrajError
from trajectory.judging import current_rows, load_state
from trajectory.query.sql import SPLITS, record_holdout_view
from trajectory.store.delta import OVERRIDES_SCHEMA, Store, now_utc
from trajectory.query.verdicts import pool_of

from trajectory.cli.common import StoreOpt, command, echo_json, handle_errors, open_store

TO_OUTCOMES = ("pass", "fail")
_CATEGORY_RE = re.compile(r"^[a-z][a-z0-9_]*$")


class OverrideRefused(TrajError, ValueError):
    """The override is not backed by the run's record, or is malformed."""


MIN_SPAN = 4  # characters of a quoted span of one text: fewer match almost any screen
MIN_VALUE = 2  # characters of a whole value (a sheet field, one item of a list)


def _values(value: Any) -> list[str]:
    """A sheet value as the whole values a person can quote: a list gives its items, never its
    repr (whose brackets, quotes and commas would let fragments like "', '" match)."""
    if value is None:
        return []
    if isinstance(value, list):
        return [t for item in value for t in _values(item)]
    if isinstance(value, dict):
        return [t for item in value.values() for t in _values(item)]
    return [value if isinstance(value, str) else str(value)]


def check_evidence(evidence: str, run_id: str, state: Any) -> None:
    """Refuse evidence that is not a whole value of the run or a long enough span of one of
    its texts (a screen read, the final answer, a text in the AnswerSheet)."""
    texts = [s.text for s in state.screens] + ([state.answer] if state.answer is not None else [])
    values = [v for answer in state.sheet.answers.values() for v in _values(answer)]
    size = len(evidence.strip())
    if any(evidence == v for v in values + texts) and size >= MIN_VALUE:
        return
    if size >= MIN_SPAN and any(evidence in t for t in texts + values):
        return
    if size < MIN_SPAN and any(evidence in t for t in texts + values):
        raise OverrideRefused(
            f"refused: the evidence {evidence!r} is too short to show anything: quote at least {MIN_SPAN} "
            f"characters of one screen read or answer, or a whole value of at least {MIN_VALUE}"
        )
    raise OverrideRefused(
        f"refused: the evidence does not appear verbatim in run {run_id}'s screen reads or final answer "
        "(quote a span of one text, or one whole value)"
    )


def record_override(
    store: Store,
    run_id: str,
    to: str,
    evidence: str,
    by: str,
    category: str | None = None,
) -> dict[str, Any]:
    """Check the evidence against the run and append the override; returns the row."""
    if to not in TO_OUTCOMES:
        raise OverrideRefused(f"--to must be pass or fail, got {to!r}")
    if category is not None and not _CATEGORY_RE.match(category):
        raise OverrideRefused(f"--category must be a word like perception, route, barrier, app_state; got {category!r}")
    if not by.strip():
        raise OverrideRefused("--by must name the person re-judging")
    if not evidence.strip():
        raise OverrideRefused("--evidence is empty: quote the screen text or final answer that shows the verdict")
    state = load_state(store, run_id)
    if not state.finished:
        raise OverrideRefused(f"run {run_id} is open (no run_finished): nothing to re-judge yet")
    check_evidence(evidence, run_id, state)
    current = current_rows(store, [run_id]).get(run_id)
    at = now_utc()
    row = {
        "override_id": f"o{at.strftime('%Y%m%dT%H%M%S%f')}-{secrets.token_hex(2)}",
        "run_id": run_id,
        "suite": state.suite,
        "task": state.task,
        "to_outcome": to,
        "category": category,
        "evidence": evidence,
        "by": by,
        "at": at,
        "auto_outcome": None if current is None else current["outcome"],
        "auto_pass_id": None if current is None else current["pass_id"],
    }
    with interrupts.committing():
        store.append("overrides", pa.Table.from_pylist([row], schema=OVERRIDES_SCHEMA))
        interrupts.note(f"override {row['override_id']}")
    return row


@handle_errors
def override(
    run: Annotated[str, typer.Argument(help="The run to re-judge.", metavar="RUN")],
    to: Annotated[str, typer.Option("--to", help="The human verdict: pass or fail.", metavar="OUTCOME")],
    evidence: Annotated[
        str, typer.Option("--evidence", help="Text quoted verbatim from the run's screens or answer.", metavar="TEXT")
    ],
    by: Annotated[str | None, typer.Option("--by", help="Who re-judges (default: $TRAJ_USER).", metavar="NAME")] = None,
    category: Annotated[
        str | None, typer.Option("--category", help="Failure category: perception, route, ...", metavar="WORD")
    ] = None,
    split: Annotated[
        str, typer.Option("--split", help="holdout: show a holdout run's automatic verdict (the look is recorded).")
    ] = "tune",
    json_: Annotated[bool, typer.Option("--json", help="Print the recorded row as JSON.")] = False,
    store: StoreOpt = None,
) -> None:
    """Record a human verdict on a run, refused unless the evidence is in the run's record."""
    who = by or os.environ.get("TRAJ_USER")
    if not who:
        raise NotFound("--by NAME is required (or set TRAJ_USER)")
    if split not in SPLITS:
        raise OverrideRefused(f"--split must be one of {', '.join(SPLITS)}, got {split!r}")
    s = open_store(store)
    row = record_override(s, run, to, evidence, who, category)
    if pool_of(s, run) == "holdout":
        if split == "holdout":
            record_holdout_view(s, "override", {"run": run})
        else:
            # The automatic verdict of a holdout run is shown only to a recorded look.
            row = {**row, "auto_outcome": "(holdout)", "auto_pass_id": None}
    if json_:
        echo_json(row)
        return
    typer.echo(f"override {row['override_id']}: {row['task']} run {run}: "
               f"{row['auto_outcome'] or 'unjudged'} → {to}" + (f" [{category}]" if category else "")
               + f" by {who}")


def register(app: typer.Typer) -> None:
    command(app, override)
