"""What people decided, read against what the judge says.

A person's verdict is the latest ``traj override`` of a run (the overrides table; it stays the
run's current verdict whatever a later pass says). An automatic verdict *disagrees with a
person's* when one says pass and the other fail; an error, na or skipped verdict is no
judgement of the run and disagrees with nobody. The ``verdicts`` view's
``disagrees_with_person`` column holds the same rule for each run's latest automatic verdict
(trajectory/query/sql.py); :func:`disagreements` applies it to the verdicts of a pass, and
:func:`agreement_by_task` counts how often each judge version agrees with people
(judges/agreement.py computes the figures).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from judges.agreement import RATED, agreement

from trajectory.query.sql import Views
from trajectory.text import json_or_text
from trajectory.store.delta import Store


def human_verdicts(store: Store, run_ids: Iterable[str] | None = None) -> dict[str, dict[str, Any]]:
    """run id -> the run's latest override (any pool: callers show only the runs they may)."""
    if not store.has_table("overrides"):
        return {}
    ids = None if run_ids is None else sorted(set(run_ids))
    if ids == []:
        return {}
    cond, params = ("TRUE", []) if ids is None else ("list_contains(?, run_id)", [ids])
    with Views(store, split=None) as views:
        rows = views.arrow(
            f"SELECT * FROM _overrides WHERE {cond} "
            "QUALIFY row_number() OVER (PARTITION BY run_id ORDER BY \"at\" DESC, override_id DESC) = 1",
            params,
        ).to_pylist()
    return {r["run_id"]: r for r in rows}


def disagrees(judge: str | None, person: str | None) -> bool:
    """The one rule: both said pass or fail, and not the same."""
    return judge in RATED and person in RATED and judge != person


def _checks(row: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"name": c["name"], "expected": json_or_text(c.get("expected")), "actual": json_or_text(c.get("actual")),
             "reason": c.get("reason")} for c in row.get("checks") or [] if not c.get("passed")]


def disagreement(row: dict[str, Any], person: dict[str, Any]) -> dict[str, Any]:
    """One automatic verdict against the person's, as every command lists it."""
    return {
        "run_id": row["run_id"], "suite": row.get("suite"), "task": row.get("task"),
        "judge": row["outcome"], "judge_reason": row.get("reason"), "judge_version": row.get("judge_version"),
        "failed_checks": _checks(row),
        "person": person["to_outcome"], "by": person["by"], "evidence": person["evidence"],
        "at": person["at"], "override_id": person["override_id"],
    }


def disagreements(rows: Sequence[dict[str, Any]], humans: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """The verdict rows (a pass's, in run order) that disagree with the run's person's verdict."""
    return [disagreement(r, humans[r["run_id"]]) for r in rows
            if r["run_id"] in humans and disagrees(r["outcome"], humans[r["run_id"]]["to_outcome"])]


def disagreement_line(d: dict[str, Any]) -> str:
    """One disagreement for people: run, task, both verdicts, the evidence and the failing check."""
    head = (f"  {d['run_id']} ({d['suite']}/{d['task']}): judge {d['judge']}, "
            f"{d['by']} said {d['person']}: “{d['evidence']}”")
    if d["failed_checks"]:
        c = d["failed_checks"][0]
        more = f" (and {len(d['failed_checks']) - 1} more)" if len(d["failed_checks"]) > 1 else ""
        head += (f"\n      failing check {c['name']}: expected {json.dumps(c['expected'], ensure_ascii=False)}, "
                 f"actual {json.dumps(c['actual'], ensure_ascii=False)}{more}")
    elif d.get("judge_reason"):
        head += f"\n      judge: {d['judge_reason']}"
    return head


#: The verdicts of pass ``$b`` that disagree with their run's latest human verdict (viewer SQL).
PASS_DISAGREEMENTS_SQL = """
WITH o AS (SELECT * FROM overrides QUALIFY row_number() OVER
           (PARTITION BY run_id ORDER BY "at" DESC, override_id DESC) = 1)
SELECT o.run_id, b.suite, b.task, b.outcome, o.to_outcome, o.by, o.evidence
FROM verdict_history b JOIN o USING (run_id)
WHERE b.pass_id = $b AND b.outcome IN ('pass', 'fail') AND o.to_outcome IN ('pass', 'fail')
      AND b.outcome <> o.to_outcome
ORDER BY o.run_id
"""

#: Each re-judged run once per judge version: that version's latest verdict (``judge``) against
#: the person's latest (``person``), in the pool the views show.
AGREEMENT_SQL = """
WITH o AS (SELECT * FROM overrides QUALIFY row_number() OVER
           (PARTITION BY run_id ORDER BY "at" DESC, override_id DESC) = 1),
h AS (SELECT * FROM verdict_history QUALIFY row_number() OVER
      (PARTITION BY run_id, judge_version ORDER BY judged_at DESC, pass_id DESC) = 1)
SELECT h.run_id, h.suite, h.task, h.judge_version, h.judged_at, h.outcome AS judge, o.to_outcome AS person
FROM h JOIN o USING (run_id)
"""


def agreement_groups(pairs: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows of :data:`AGREEMENT_SQL` as figures per suite, task and judge version (the versions
    of a task in the order they first judged)."""
    groups: dict[tuple[Any, Any, Any], list[tuple[str, str]]] = defaultdict(list)
    first: dict[tuple[Any, Any, Any], Any] = {}
    for r in pairs:
        key = (r["suite"], r["task"], r["judge_version"])
        groups[key].append((r["judge"], r["person"]))
        first[key] = r["judged_at"] if key not in first else min(first[key], r["judged_at"])
    return [{"suite": k[0], "task": k[1], "judge_version": k[2], **agreement(groups[k]).to_json()}
            for k in sorted(groups, key=lambda k: (str(k[0]), str(k[1]), first[k], str(k[2])))]


def agreement_by_task(store: Store, split: str = "tune", run_ids: Iterable[str] | None = None) -> list[dict[str, Any]]:
    """Per suite, task and judge version: how the judge's verdicts agree with people's, among
    the runs of the pool a person re-judged (``run_ids``: only these). Each run counts once per
    judge version, with that version's latest verdict against the person's latest; the figures
    are :class:`judges.agreement.Agreement`'s (``to_json``)."""
    if not store.has_table("overrides") or not store.has_table("passes"):
        return []
    ids = None if run_ids is None else sorted(set(run_ids))
    cond, params = ("TRUE", []) if ids is None else ("list_contains(?, run_id)", [ids])
    with Views(store, split=split) as views:
        rows = views.arrow(f"SELECT * FROM ({AGREEMENT_SQL}) WHERE {cond}", params).to_pylist()
    return agreement_groups(rows)
