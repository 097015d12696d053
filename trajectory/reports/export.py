"""Export: the stored events back as the interchange format's JSON Lines.

Every field comes back as it was given (an explicit 0 or "" stays, an absent field stays
absent) and ``ts`` as the same instant in UTC, so ingesting an export into another store
reproduces the events, and exporting that store again gives the same bytes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import BinaryIO

from trajectory import events as ev
from trajectory.query.names import check_names
from trajectory.query.revisions import superseded
from trajectory.query.sql import Views, run_filter
from trajectory.store.delta import Store


def export_events(
    store: Store,
    sink: BinaryIO,
    *,
    run_ids: Sequence[str] | None = None,
    suite: str | None = None,
    batch: str | None = None,
    version: int | None = None,
) -> int:
    """Write the selected runs' events to ``sink``, in run and seq order; returns how many.
    The current runs only (a superseded run is history), unless a superseded run is named by id."""
    cond, params = run_filter(suite=suite, batch=batch, run_ids=run_ids)
    history = superseded(store, run_ids) if run_ids else {}
    n = 0
    with Views(store, split=None, version=version) as views:
        check_names(views.con, suite=suite, batch=batch, run_ids=[r for r in run_ids or () if r not in history])
        reader = views.con.sql(
            f"SELECT data FROM {'_events_pooled' if history else 'events'} WHERE {cond} ORDER BY run_id, seq",
            params=params or None,
        ).to_arrow_reader(65536)
        for part in reader:
            for data in part.column(0).to_pylist():
                sink.write(ev.encode(ev.decode(data)) + b"\n")
                n += 1
    return n
