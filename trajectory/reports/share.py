"""Share mode (``traj report --share``, ``traj view --static OUT --share``) as an allow-list.

A shared copy carries only what is known to be safe to hand to someone outside: ids, task,
suite, batch, pool, outcome, score, counts, durations, tokens, and each check's name with
pass/fail. Every free text (check and verdict reasons, expected and found values, answers,
screens, override evidence, who did what, the store's path, the holdout log's SQL) is dropped
or replaced by a category. Nothing is scrubbed by patterns: a field is either on the list or
gone, so a leak in a shape nobody thought of (a serial written differently, a UNC path, an
e-mail in a reason) cannot get through.

An id is kept only when it looks like one (letters, digits and ``_ . : + -``, no spaces, no
slashes, no ``@``, nothing shaped like a key); any other id is replaced by a short stable
stand-in (``run-3f2a9c01``) so that rows still line up.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import re
from collections.abc import Iterable, Sequence
from typing import Any

from judges.base import OUTCOMES as VERDICT_OUTCOMES
from trajectory.redact import redact_text

OUTCOMES = frozenset(VERDICT_OUTCOMES)
POOLS = frozenset({"tune", "holdout"})
# The commands that record a look at the holdout pool (query.record_holdout_view callers).
LOOKS = frozenset({"show", "runs", "query", "report", "judge", "override", "view", "view --static"})
PERSON = "[person]"
EVIDENCE = "[evidence withheld]"
PATH = "[path]"

_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:+\-]{0,99}$")
# Figures a row may carry: numbers only.
FIGURES = (
    "steps", "turns", "duration_ms", "first_feedback_ms", "input_tokens", "output_tokens", "cached_tokens",
    "tokens", "model_ms", "read_ms", "act_ms", "other_ms", "events",
)
# Verdict details a report reads (budgets and the device suites' category): typed, nothing else.
DETAILS = {"maxSteps": int, "timeoutSec": (int, float), "over_steps": bool, "over_time": bool, "category": "id"}


def safe_id(value: Any, kind: str = "id") -> str | None:
    """``value`` when it is an id-shaped string, else a stable stand-in (None stays None)."""
    if value is None:
        return None
    text = str(value)
    if _ID.match(text) and redact_text(text) == text and not _looks_like_serial_or_word_soup(text):
        return text
    return f"{kind}-{hashlib.sha256(text.encode('utf-8')).hexdigest()[:8]}"


def _looks_like_serial_or_word_soup(text: str) -> bool:
    # Ids people give runs are words joined by - _ . : ; a bare run of 10+ capitals and digits
    # (a device serial, a licence) is not kept whatever field it is in.
    return any(re.fullmatch(r"(?=.*\d)(?=.*[A-Z])[A-Z0-9]{8,}", part) for part in re.split(r"[-_.:+]", text))


def _number(value: Any) -> int | float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return value


def _time(value: Any) -> Any:
    return value if isinstance(value, (_dt.datetime, _dt.date)) else None


def _word(value: Any, allowed: Iterable[str]) -> str | None:
    return value if isinstance(value, str) and value in allowed else None


def share_checks(checks: Iterable[dict[str, Any]] | None) -> list[dict[str, Any]]:
    """Each check as its name and pass/fail."""
    return [{"name": safe_id(c.get("name"), "check"), "passed": bool(c.get("passed"))} for c in checks or ()]


def reason_category(outcome: str | None, checks: Sequence[dict[str, Any]]) -> str:
    """A verdict's reason as a category: which checks failed, never what they found."""
    failed = [c["name"] for c in checks if not c["passed"]]
    if outcome == "pass":
        return "all checks passed"
    if outcome == "fail":
        return "failed: " + ", ".join(failed) if failed else "failed"
    if outcome == "error":
        return "error (reason withheld)"
    if outcome == "review":
        # A category a shared copy may show: which checks could not decide, not what they read.
        return "review: " + ", ".join(failed) if failed else "review"
    if outcome in ("na", "skipped"):
        return outcome
    return "not judged"


def share_details(details: Any) -> str | None:
    import json

    if isinstance(details, str):
        try:
            details = json.loads(details)
        except json.JSONDecodeError:
            return None
    if not isinstance(details, dict):
        return None
    out: dict[str, Any] = {}
    for key, typ in DETAILS.items():
        value = details.get(key)
        if typ == "id":
            if isinstance(value, str):
                out[key] = safe_id(value, "category")
        elif isinstance(value, typ) and (typ is bool or not isinstance(value, bool)):
            out[key] = value
    return json.dumps(out)


def share_row(row: dict[str, Any]) -> dict[str, Any]:
    """A report or viewer row as it may be shared (see the module's docstring)."""
    checks = share_checks(row.get("checks"))
    outcome = _word(row.get("outcome"), OUTCOMES)
    out: dict[str, Any] = {
        "run_id": safe_id(row.get("run_id"), "run"),
        "suite": safe_id(row.get("suite"), "suite"),
        "task": safe_id(row.get("task"), "task"),
        "batch": safe_id(row.get("batch"), "batch"),
        "split": _word(row.get("split"), POOLS),
        "agent": safe_id(row.get("agent"), "agent"),
        "model": safe_id(row.get("model"), "model"),
        "outcome": outcome,
        "score": _number(row.get("score")),
        "pass_id": safe_id(row.get("pass_id"), "pass"),
        "judge_version": safe_id(row.get("judge_version"), "version"),
        "judged_at": _time(row.get("judged_at")),
        "checks": checks,
        "reason": reason_category(outcome, checks),
        "details": share_details(row.get("details")),
    }
    for name in FIGURES:
        if name in row:
            out[name] = _number(row.get(name))
    return out


def share_override(o: dict[str, Any]) -> dict[str, Any]:
    """A human override: what was decided and when, not by whom nor on what words."""
    return {
        "override_id": safe_id(o.get("override_id"), "override"),
        "run_id": safe_id(o.get("run_id"), "run"),
        "task": safe_id(o.get("task"), "task"),
        "to_outcome": _word(o.get("to_outcome"), OUTCOMES),
        "auto_outcome": _word(o.get("auto_outcome"), OUTCOMES),
        "category": safe_id(o.get("category"), "category"),
        "at": _time(o.get("at")),
        "by": PERSON,
        "evidence": EVIDENCE,
    }


def share_meta(meta: dict[str, Any]) -> dict[str, Any]:
    """A report's provenance: pass ids, kinds, times and judge versions; no path, no names."""
    passes = [
        {
            "pass_id": safe_id(p.get("pass_id"), "pass"),
            "kind": safe_id(p.get("kind"), "kind"),
            "started_at": _time(p.get("started_at")),
            "finished_at": _time(p.get("finished_at")),
            "by": PERSON,
            "runs_in_report": _number(p.get("runs_in_report")),
        }
        for p in meta.get("passes") or ()
    ]
    versions = {safe_id(k, "suite"): safe_id(v, "version") for k, v in (meta.get("judge_versions") or {}).items()}
    return {"store": PATH, "generated_at": _time(meta.get("generated_at")), "passes": passes, "judge_versions": versions}


def share_look(view: dict[str, Any]) -> dict[str, Any]:
    """One entry of the holdout-view log: when, and which command; not the SQL, not who."""
    key = view.get("key")
    return {"at": _time(view.get("at")), "by": PERSON, "key": key if key in LOOKS else "[command]", "data": ""}
