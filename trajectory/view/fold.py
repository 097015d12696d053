"""A run's replayed state at a step, for a run of any length: the events are folded in chunks,
never all held at once, and the state keeps only the last ``KEEP`` items of each growing list
(steps, screens, questions ...), with counts of the ones left out.

Why: the core's fold keeps every step and every screen the run had (a new tuple per event), so
that folding 100,000 events costs minutes and ``view()`` of the state lists 25,000 screens. A
page shows the state at one step: the last screen, the step count, the sheet, the world state.
What the state shown leaves out is said in it (``omitted``: how many of each list), never
silently. Pure: the data layer hands the decoded events in.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any

from msgspec.structs import replace

from replay import apply, replay, view

# Items of each growing list a shown state keeps (the latest ones).
KEEP = 200
# The RunState tuples that grow with the run.
GROWING = ("steps", "screens", "questions", "confirmations", "takeovers", "judgements")
# view()'s lists of them (``actions`` is steps' actions).
SHOWN = {"screens": "screens", "questions": "questions", "confirmations": "confirmations",
         "takeovers": "takeovers", "actions": "steps"}


@dataclasses.dataclass(frozen=True)
class Folded:
    """A state with its growing lists trimmed, and how many items of each were dropped."""

    state: Any
    dropped: dict[str, int]

    def trimmed(self) -> Folded:
        changes, dropped = {}, dict(self.dropped)
        for name in GROWING:
            items = getattr(self.state, name)
            if len(items) > KEEP:
                changes[name] = items[-KEEP:]
                dropped[name] = dropped.get(name, 0) + len(items) - KEEP
        if not changes:
            return self
        return Folded(replace(self.state, **changes), dropped)

    def view(self) -> dict[str, Any]:
        """``view()`` of the state, its counts whole, its lists the latest KEEP (``omitted``
        says how many are left out of each, only when some are)."""
        out = view(self.state)
        out["steps"] += self.dropped.get("steps", 0)
        omitted = {k: self.dropped.get(src, 0) for k, src in SHOWN.items() if self.dropped.get(src, 0)}
        if omitted:
            out["omitted"] = omitted
        return out


def fold(chunks: Iterable[list[Any]], start: Folded | None = None) -> Folded | None:
    """Fold chunks of decoded events (in seq order) into ``start`` (None: from the run's start)."""
    got = start
    for chunk in chunks:
        if not chunk:
            continue
        state = replay(chunk) if got is None else replay(chunk, start=got.state)
        got = Folded(state, got.dropped if got is not None else {}).trimmed()
    return got


def step(folded: Folded, event: Any) -> Folded:
    """One more event (trimmed only at the next chunk: one item over KEEP is fine)."""
    return Folded(apply(folded.state, event), folded.dropped)
