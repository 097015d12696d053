"""Pure helpers over plain data: what changed between two replayed states, and which event of
a run a check's value came from. No store, no I/O (the data layer hands these plain dicts)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

# The parts of a replayed state (``traj show --json``'s shape) a person follows step by step.
WATCHED = ("route", "sheet", "answer", "state", "steps", "questions", "confirmations", "takeovers",
           "probes", "outcome")
# Kinds whose fields can carry the value a check read, latest first when searching.
EVIDENCE_FIELDS = {
    "sheet_changed": ("value",),
    "answer_given": ("text",),
    "screen_read": ("text",),
    "user_asked": ("question", "reply"),
    "confirmation_shown": ("action", "target", "content", "amount"),
    "takeover_requested": ("reason", "text"),
    "probe_read": ("name", "value"),
    "judgement_recorded": ("output",),
    "step_taken": ("args",),
    "run_finished": ("outcome", "error", "skip_reason"),
}


def state_changes(before: dict[str, Any] | None, after: dict[str, Any], limit: int = 200) -> list[dict[str, Any]]:
    """Each value that differs between two states, by path (``sheet.answers.0``,
    ``state.apps.clock.alarms.1.enabled``), with its value before and after.

    Before the first event everything is new; lists are compared item by item so that one
    changed alarm does not show the whole list twice.
    """
    out: list[dict[str, Any]] = []
    for key in WATCHED:
        _walk(key, (before or {}).get(key, _MISSING) if before is not None else _MISSING,
              after.get(key, _MISSING), out, limit)
    return out[:limit]


class _Missing:
    def __repr__(self) -> str:
        return "—"


_MISSING = _Missing()


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON values: in Python True == 1 == 1.0, in JSON they are three values."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return bool(a == b)


def _walk(path: str, a: Any, b: Any, out: list[dict[str, Any]], limit: int) -> None:
    if len(out) >= limit or _same(a, b):
        return
    if isinstance(a, dict) and isinstance(b, dict):
        for k in list(a) + [k for k in b if k not in a]:
            _walk(f"{path}.{k}", a.get(k, _MISSING), b.get(k, _MISSING), out, limit)
        return
    if isinstance(a, list) and isinstance(b, list) and a and b:
        for i in range(max(len(a), len(b))):
            _walk(f"{path}.{i}", a[i] if i < len(a) else _MISSING, b[i] if i < len(b) else _MISSING, out, limit)
        return
    out.append({
        "path": path,
        "before": None if a is _MISSING else a,
        "after": None if b is _MISSING else b,
        "added": a is _MISSING,
        "removed": b is _MISSING,
    })


def _texts(value: Any) -> list[str]:
    """The texts a check value can be found as: strings as they are, numbers as written."""
    if value is None or isinstance(value, bool):
        return []
    if isinstance(value, (int, float)):
        return [format(value, "g") if isinstance(value, float) else str(value)]
    if isinstance(value, str):
        return [value] if value.strip() else []
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _texts(v)]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _texts(v)]
    return [str(value)]


def _field_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _field_of(name: str) -> int | None:
    """``field 0: 响铃时间`` -> 0: the AnswerSheet field a grounded check is about."""
    head = name.split(":", 1)[0].strip().split()
    if len(head) == 2 and head[0] == "field" and head[1].isdigit():
        return int(head[1])
    return None


def evidence(events: list[dict[str, Any]], check: dict[str, Any]) -> dict[str, Any]:
    """The event a check's ``actual`` value was read from: ``{"seq", "kind", "how"}``.

    The rule, first match wins, latest event first:
    1. a check named ``field N…`` reads AnswerSheet field N: the last ``sheet_changed`` that set it;
       one named ``submitted…`` reads the submitted flag: the last submit or unsubmit;
    2. an event with a field (sheet value, answer, screen, reply, probe, recorded judgement …)
       equal to the actual value, else one whose field contains it (a check that read
       "下午2点30分" points at the step that typed it, not at the run's end);
    3. a check named ``answer…`` reads the final answer: the last ``answer_given``;
    4. otherwise the run's last event, where the judge read the finished run.
    Checks record no seq of their own, so this is a search; ``how`` says which rule found it.
    """
    return find_evidence(reversed(events), [check])[0]


def find_evidence(newest_first: Iterable[dict[str, Any]], checks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """:func:`evidence` of several checks in one pass over a run's events, newest first, that
    stops as soon as every check has its answer (a long run is read in chunks from its end, and
    most checks are answered by its last events)."""
    searches = [_Search(c) for c in checks]
    first: dict[str, Any] | None = None
    for e in newest_first:
        if first is None:
            first = e
        if all(s.feed(e) for s in searches):
            break
    if first is None:
        return [{"seq": 0, "kind": None, "how": "no events"} for _ in checks]
    return [s.answer(first) for s in searches]


class _Search:
    """One check's rules in order of precedence, each keeping its latest matching event."""

    def __init__(self, check: dict[str, Any]):
        name = str(check.get("name") or "")
        field = _field_of(name)
        wanted = _texts(check.get("actual"))
        rules: list[tuple[str, Any]] = []
        if field is not None:
            rules.append((f"the last value set in field {field}",
                          lambda e: e.get("kind") == "sheet_changed" and e.get("op") == "set" and e.get("field") == field))
        if name.lower().startswith("submitted"):
            rules.append(("the last submit or unsubmit of the AnswerSheet",
                          lambda e: e.get("kind") == "sheet_changed" and e.get("op") in ("submit", "unsubmit")))
        # Whole fields first: "下午2点" typed at seq 2 beats "下午2点30分" typed later, which only
        # contains it. One- and two-character values ("5", "是") match whole fields only: "5" is
        # inside "25", "25" inside "2025".
        if wanted:
            rules.append(("the event that holds the actual value", lambda e: _holds(e, wanted, True)))
            rules.append(("the event that holds the actual value", lambda e: _holds(e, wanted, False)))
        if name.lower().startswith("answer"):
            rules.append(("the final answer", lambda e: e.get("kind") == "answer_given"))
        self.rules = rules
        self.found: list[dict[str, Any] | None] = [None] * len(rules)

    def feed(self, e: dict[str, Any]) -> bool:
        """Look at one more (older) event; True once the answer cannot change any more."""
        for i, (_, match) in enumerate(self.rules):
            if self.found[i] is None and match(e):
                self.found[i] = e
        return not self.rules or self.found[0] is not None

    def answer(self, last: dict[str, Any]) -> dict[str, Any]:
        for (how, _), e in zip(self.rules, self.found):
            if e is not None:
                return {"seq": e["seq"], "kind": e["kind"], "how": how}
        return {"seq": last["seq"], "kind": last.get("kind"), "how": "the finished run (no single event holds this value)"}


def _holds(e: dict[str, Any], wanted: list[str], whole: bool) -> bool:
    fields = EVIDENCE_FIELDS.get(str(e.get("kind")), ())
    texts = [_field_text(e[f]) for f in fields if e.get(f) is not None]
    return any(t == x if whole else (len(t) > 2 and t in x) for t in wanted for x in texts)


def world_patch(before: Any, after: Any) -> list[list[Any]]:
    """The changes that turn one world state into the next, for a static copy to store per
    step instead of the whole state: ``[path, value]`` sets the value at ``path`` (a list of
    keys and indexes; ``[]`` is the whole state), ``[path]`` removes it. Lists of the same
    length change item by item, others as a whole. :func:`apply_world_patch` (and the static
    page's script) apply them."""
    out: list[list[Any]] = []
    _diff([], before, after, out)
    return out


def _diff(path: list[Any], a: Any, b: Any, out: list[list[Any]]) -> None:
    if _same(a, b):
        return
    if isinstance(a, dict) and isinstance(b, dict):
        out.extend([[*path, k]] for k in a if k not in b)
        for k in b:
            _diff([*path, k], a.get(k, _MISSING), b[k], out)
        return
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            _diff([*path, i], x, y, out)
        return
    out.append([path, b])


def apply_world_patch(doc: Any, ops: list[list[Any]]) -> Any:
    """``doc`` with :func:`world_patch`'s changes applied (a new value; ``doc`` is kept)."""
    import copy

    doc = copy.deepcopy(doc)
    for op in ops:
        path = op[0]
        if not path:
            doc = copy.deepcopy(op[1]) if len(op) == 2 else None
            continue
        parent = doc
        for key in path[:-1]:
            parent = parent[key]
        if len(op) == 2:
            parent[path[-1]] = copy.deepcopy(op[1])
        else:
            del parent[path[-1]]
    return doc
