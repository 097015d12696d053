"""Runs superseded by a later revision: the one record of which runs are current.

A stored run is never changed: nothing follows its ``run_finished``, and its events, verdicts
and overrides stay. When an importer learns more of a run it has written (spans of an
OpenTelemetry trace that arrive after the trace's run was written), it writes a complete new
revision under a new run id and records here that the earlier run is superseded by it: one
row of the store's ``meta`` log (kind ``run.superseded``, key = the earlier run id, data =
``{"superseded_by", "reason"}``, with who and when).

A superseded run stays in history but is no longer a current run: the read views
(``trajectory/query/sql.py``) leave it out of ``events``, ``runs``, ``verdicts`` and
``pass_rates`` — so judging, ``traj runs``, reports, rates and the viewer see the newest revision
as the run — and list it in the ``superseded`` view. ``traj show`` of its id still shows it,
saying what superseded it.
"""

from __future__ import annotations

import datetime as _dt
import json
from collections.abc import Iterable
from typing import Any

import pyarrow as pa

KIND = "run.superseded"

#: The ``superseded`` view: each superseded run with the run that supersedes it, who recorded
#: it, when and why (the latest record for a run, should one be written twice).
SUPERSEDED_SQL = f"""
SELECT key AS run_id, json_extract_string(data, '$.superseded_by') AS superseded_by,
       "at", "by", json_extract_string(data, '$.reason') AS reason
FROM _meta WHERE kind = '{KIND}'
QUALIFY row_number() OVER (PARTITION BY key ORDER BY "at" DESC) = 1
"""


def record(store: Any, pairs: Iterable[tuple[str, str, str]], *, by: str, at: _dt.datetime) -> int:
    """Record ``(earlier run id, later run id, reason)`` for each pair, in one append; returns
    how many were written. The later run must be written first: a run is hidden only once the
    one that replaces it is in the store."""
    rows = list(pairs)
    if not rows:
        return 0
    store.append("meta", pa.table({
        "kind": [KIND] * len(rows), "key": [old for old, _, _ in rows], "at": [at] * len(rows), "by": [by] * len(rows),
        "data": [json.dumps({"superseded_by": new, "reason": why}, ensure_ascii=False) for _, new, why in rows],
    }))
    return len(rows)


def superseded(store: Any, run_ids: Iterable[str] | None = None) -> dict[str, dict[str, Any]]:
    """earlier run id -> ``{"superseded_by", "at", "by", "reason"}`` (the latest record), of the
    given runs (all without ``run_ids``)."""
    if not store.has_table("meta"):
        return {}
    import pyarrow.compute as pc

    cond = pc.field("kind") == KIND
    wanted = None if run_ids is None else list(run_ids)
    if wanted is not None:
        if not wanted:
            return {}
        cond = cond & pc.field("key").isin(wanted)
    out: dict[str, dict[str, Any]] = {}
    for row in sorted(store.read("meta", columns=["key", "at", "by", "data"], filter=cond).to_pylist(),
                      key=lambda r: r["at"]):
        data = json.loads(row["data"])
        out[row["key"]] = {"superseded_by": data.get("superseded_by"), "at": row["at"], "by": row["by"],
                           "reason": data.get("reason")}
    return out


def latest(run_id: str, chains: dict[str, dict[str, Any]]) -> str:
    """The current revision of a run: the end of its chain of supersessions (itself if none);
    ``chains``: what :func:`superseded` read."""
    seen = {run_id}
    while True:
        nxt = chains.get(run_id)
        if nxt is None or not nxt["superseded_by"] or nxt["superseded_by"] in seen:
            return run_id
        run_id = nxt["superseded_by"]
        seen.add(run_id)
