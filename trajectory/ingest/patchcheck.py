"""Ingest refuses a state patch that cannot apply to the state it follows.

A well-formed patch on a path that does not exist (``replace /no/such``) would be stored, then
fail every replay of its run. When ingest can know the world state the patch follows (the run
began in this batch, or its earlier state changes are in the store), it applies the patch the
way replay will and refuses the line if that fails, naming the operation (``$.patch[1]``).
When it cannot know (the store's own copy of the run does not replay), the line is let through
and the run's replay gives it an ``error`` verdict naming the event instead.
"""

from __future__ import annotations

from typing import Any

import pyarrow.compute as pc

from replay.patch import PatchError, apply_patch

from trajectory import events as ev
from trajectory.store.delta import Store

_UNKNOWN = object()  # a run whose world ingest cannot know: nothing is checked


class WorldCheck:
    """The world state of every run of one batch, as far as ingest has seen it."""

    def __init__(self, store: Store, stored: set[str]):
        self.store = store
        self.stored = stored  # runs that already have events in the store
        self.worlds: dict[str, Any] = {}

    def check(self, event: ev.Event) -> tuple[str, str] | None:
        """``(json path, message)`` when ``event`` is a patch that cannot apply; else None (and
        the run's world moves on by it)."""
        if isinstance(event, ev.RunStarted):
            self.worlds[event.run_id] = event.state  # the world a run starts in
            return None
        if not isinstance(event, ev.StateChanged):
            return None
        run = event.run_id
        if run not in self.worlds:
            self.worlds[run] = self._stored_world(run) if run in self.stored else None
        world = self.worlds[run]
        if event.snapshot is not None:
            self.worlds[run] = event.snapshot
            return None
        if world is _UNKNOWN:
            return None
        doc = world if world is not None else {}
        for i, op in enumerate(event.patch or ()):
            try:
                doc = apply_patch(doc, [op])
            except PatchError as exc:
                return f"$.patch[{i}]", f"cannot apply to the run's state before it: {exc}"
        self.worlds[run] = doc
        return None

    def _stored_world(self, run: str) -> Any:
        """The world after the run's stored state changes (``_UNKNOWN`` when they do not apply)."""
        where = (pc.field("run_id") == run) & pc.field("kind").isin(["run_started", "state_changed"])
        if not self.store.has_table("events"):
            return None
        table = self.store.read("events", columns=["seq", "data"], filter=where)
        world: Any = None
        for _, data in sorted(zip(table.column("seq").to_pylist(), table.column("data").to_pylist())):
            e = ev.decode(data)
            if isinstance(e, ev.RunStarted):
                world = e.state
                continue
            assert isinstance(e, ev.StateChanged)
            if e.snapshot is not None:
                world = e.snapshot
                continue
            try:
                world = apply_patch(world if world is not None else {}, e.patch or ())
            except PatchError:
                return _UNKNOWN
        return world
