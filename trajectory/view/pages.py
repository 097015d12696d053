"""What each page shows, as plain JSON-able dicts: the HTML page renders one, its ``/api/``
twin returns it as it is, and ``--static`` writes it. Parameters come in as the query string's
text and are checked here (a bad one is a 400 that names it)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from trajectory.query.names import near_line
from trajectory.query.rates import pass_rate
from trajectory.view import people
from trajectory.view.changes import evidence, state_changes
from trajectory.view.data import RUN_OUTCOMES, Busy, SORTS, VERDICT_OUTCOMES, NotFound, QueryError, StoreData, TrajError

PER_PAGE = 50
MAX_PER_PAGE = 500
TIMELINE_PAGE = 200
QUERY_ROWS = 1000


class ParamError(TrajError, ValueError):
    """A query-string parameter a page cannot use (names the parameter and what it takes)."""


def _int(params: Mapping[str, str], name: str, default: int | None, lo: int = 0, hi: int | None = None) -> int | None:
    text = params.get(name)
    if text is None or text == "":
        return default
    try:
        value = int(text)
    except ValueError:
        raise ParamError(f"{name} must be a whole number, got {text!r}") from None
    if value < lo or (hi is not None and value > hi):
        raise ParamError(f"{name} must be between {lo} and {hi}, got {value}" if hi is not None
                         else f"{name} must be >= {lo}, got {value}")
    return value


def _paging(total: int, page: int, per_page: int) -> dict[str, Any]:
    pages = max(1, -(-total // per_page))
    return {"page": page, "per_page": per_page, "total": total, "pages": pages,
            "first": (page - 1) * per_page + 1 if total else 0, "last": min(total, page * per_page)}


def overview(data: StoreData) -> dict[str, Any]:
    """The store at a glance: suites, runs, passes, pass rate per suite and task, cost per batch."""
    o = data.overview()
    by_suite: dict[str, dict[str, Any]] = {s["suite"]: {**s, "judged": 0, "pass": 0, "fail": 0, "review": 0, "other": 0, "tasks": 0}
                                          for s in o["suites"]}
    for t in o["tasks"]:
        s = by_suite.setdefault(t["suite"], {"suite": t["suite"], "runs": 0, "judged": 0, "pass": 0, "fail": 0,
                                             "review": 0, "other": 0, "tasks": 0})
        for k in ("judged", "pass", "fail", "review", "other"):
            s[k] += t[k]
        s["tasks"] += 1
    for rows in (by_suite.values(), o["tasks"]):
        for r in rows:
            rate = pass_rate(r)  # the one definition: pass / (pass + fail), others apart
            r["pass_rate"] = None if rate is None else round(rate, 4)
    for b in o["batches"]:
        b["tokens"] = b["input_tokens"] + b["output_tokens"]
        b["model_s"] = round(b["model_ms"] / 1000, 1)
    return {
        "store": data.path, "split": data.split,
        "runs": sum(s["runs"] for s in o["suites"]), "events": o["counts"]["events"],
        "passes": o["counts"]["passes"], "overrides": o["counts"]["overrides"], "holdout_views": o["holdout_views"],
        "suites": list(by_suite.values()), "tasks": o["tasks"], "batches": o["batches"],
        # How the judge agrees with people, per suite, task and judge version (the pool's runs).
        "agreement": people.agreement(data.rows, o["counts"]["overrides"]),
        "pass_series": [{**p, "pass_rate": None if pass_rate(p) is None else round(pass_rate(p), 4)}
                        for p in o["pass_series"]],
    }


RUN_FILTERS = ("suite", "task", "batch", "agent", "outcome", "ran", "q")


def runs(data: StoreData, params: Mapping[str, str]) -> dict[str, Any]:
    """One page of runs, filtered and sorted; never more than ``per_page`` rows are read."""
    filters = {k: params.get(k, "").strip() for k in RUN_FILTERS if params.get(k, "").strip()}
    if filters.get("outcome") and filters["outcome"] not in VERDICT_OUTCOMES:
        raise ParamError(f"outcome must be one of {', '.join(VERDICT_OUTCOMES)}, got {filters['outcome']!r}")
    if filters.get("ran") and filters["ran"] not in RUN_OUTCOMES:
        raise ParamError(f"ran must be one of {', '.join(RUN_OUTCOMES)}, got {filters['ran']!r}")
    sort = params.get("sort") or "started_at"
    if sort not in SORTS:
        raise ParamError(f"sort must be one of {', '.join(SORTS)}, got {sort!r}")
    order = params.get("order") or "asc"
    if order not in ("asc", "desc"):
        raise ParamError(f"order must be asc or desc, got {order!r}")
    page = _int(params, "page", 1, lo=1)
    per_page = _int(params, "per_page", PER_PAGE, lo=1, hi=MAX_PER_PAGE)
    assert page is not None and per_page is not None
    options = data.filter_options()
    for key in ("suite", "task", "batch"):
        # A name that matches nothing is an error with the near names, never an empty list.
        if filters.get(key) and filters[key] not in options[key]:
            raise NotFound(near_line(key, [filters[key]], options[key],
                                     where=f"the {data.split} pool"))
    got = data.run_list(filters, sort, order == "desc", page, per_page)
    return {"filters": filters, "sort": sort, "order": order, **_paging(got["total"], page, per_page),
            "runs": got["runs"], "indexed": got["indexed"], "options": {**options, "outcome": list(VERDICT_OUTCOMES),
                                             "ran": list(RUN_OUTCOMES), "sort": list(SORTS)}}


def state_at(data: StoreData, run_id: str, at: int, last_seq: int,
             events: Mapping[int, dict[str, Any]] | None = None) -> dict[str, Any]:
    """The replayed state at ``at``, what changed since ``at - 1``, the event at ``at`` and the
    screen the agent saw then (``events``: some of the run's events by seq, already read)."""
    state, before, screens = data.replayed(run_id, at)
    event = events[at] if events is not None and at in events else data.run_events(run_id, at, at)[0]
    return time_travel(data, run_id, at, last_seq, event, state, before, screens)


def panels(data: StoreData, run_id: str) -> dict[str, bool]:
    """Which state panels a run has: the AnswerSheet (a grounded run, or one that set it) and
    the screen (a run that read one); a text-mode import shows neither."""
    (row,) = data.rows(
        "SELECT count(*) FILTER (WHERE kind = 'sheet_changed') AS sheet, "
        "count(*) FILTER (WHERE kind = 'screen_read') AS screen, "
        "bool_or(kind = 'run_started' AND coalesce(mode, 'grounded') = 'grounded') AS grounded "
        "FROM events WHERE run_id = $run_id", {"run_id": run_id})
    return {"sheet": bool(row["sheet"] or row["grounded"]), "screen": bool(row["screen"])}


def time_travel(data: StoreData, run_id: str, at: int, last_seq: int, event: dict[str, Any], state: dict[str, Any],
                before: dict[str, Any] | None, screens: list[dict[str, Any]]) -> dict[str, Any]:
    """The time-travel panel's content from a replayed state and the one before it."""
    screen = dict(screens[-1]) if screens else None
    if screen is not None and screen["image"]:
        screen["image_found"] = data.image_file(run_id, screen["seq"])[1] is not None
    answers = state["sheet"]["answers"]
    sheet = [{"field": k, "value": answers[k]} for k in sorted(answers, key=lambda k: (len(k), k))]
    route = state.get("route") or {}
    return {"at": at, "last_seq": last_seq, "event": event, "state": state, "sheet": sheet,
            "app": route.get("app") or (screen or {}).get("app"),
            "changes": state_changes(before, state), "screen": screen, "panels": panels(data, run_id)}


def run(data: StoreData, run_id: str, params: Mapping[str, str]) -> dict[str, Any]:
    """A run: its timeline (a page of it), its state at a step, its verdicts and overrides."""
    head = data.run(run_id)
    last = head["last_seq"]
    at = _int(params, "at", last, lo=0, hi=last)
    assert at is not None
    pages = max(1, -(-(last + 1) // TIMELINE_PAGE))
    tpage = _int(params, "tpage", at // TIMELINE_PAGE + 1, lo=1, hi=pages)
    assert tpage is not None
    lo = (tpage - 1) * TIMELINE_PAGE
    # One page of the timeline is read, never the whole run (a run can have 100,000 events).
    events = data.run_events(run_id, lo, lo + TIMELINE_PAGE - 1)
    current = head["current"]
    if current is not None:
        for c, found in zip(current["checks"], data.evidence(run_id, last, current["checks"])):
            c["evidence"] = found
    return {
        "run_id": run_id, "split": head["split"], "last_seq": last, "event_count": head["events"],
        "start": head["start"], "finish": head["finish"],
        "verdict": current, "shown": head["shown"], "overrides": head["overrides"],
        # The latest automatic verdict against the person's latest (the one `shown` applies).
        "disagrees_with_person": people.run_mark(current, head["overrides"][-1] if head["overrides"] else None),
        "history": [{k: v for k, v in h.items() if k not in ("checks", "details")} for h in head["history"]],
        "timeline": {"events": events, "page": tpage, "pages": pages, "per_page": TIMELINE_PAGE},
        "time_travel": state_at(data, run_id, at, last, {e["seq"]: e for e in events}),
    }


def run_state(data: StoreData, run_id: str, params: Mapping[str, str]) -> dict[str, Any]:
    """Only the time-travel panel (what the slider asks for)."""
    head = data.run(run_id)
    at = _int(params, "at", head["last_seq"], lo=0, hi=head["last_seq"])
    assert at is not None
    return {"run_id": run_id, "time_travel": state_at(data, run_id, at, head["last_seq"])}


def passes(data: StoreData, params: Mapping[str, str]) -> dict[str, Any]:
    page = _int(params, "page", 1, lo=1)
    per_page = _int(params, "per_page", PER_PAGE, lo=1, hi=MAX_PER_PAGE)
    assert page is not None and per_page is not None
    got = data.passes(page, per_page)
    return {**_paging(got["total"], page, per_page), "passes": got["passes"], "split": data.split}


def diff(data: StoreData, params: Mapping[str, str]) -> dict[str, Any]:
    """The flips between two passes (default: the latest two over the same runs), one page of
    them with their changed checks, each check linked to the seq of its evidence."""
    a, b = params.get("a") or None, params.get("b") or None
    if (a is None) != (b is None):
        raise ParamError("give both a and b (two pass ids), or neither for the latest two")
    if a is None or b is None:
        a, b = data.default_pair()
    page = _int(params, "page", 1, lo=1)
    per_page = _int(params, "per_page", PER_PAGE, lo=1, hi=MAX_PER_PAGE)
    assert page is not None and per_page is not None
    d = data.diff(a, b, page, per_page)
    events = data.events_of([f["run_id"] for f in d["flips"]])
    for f in d["flips"]:
        for c in f["checks"]:
            side = c["after"] or c["before"] or {}
            c["evidence"] = evidence(events[f["run_id"]], {"name": c["name"], "actual": side.get("actual")})
    marks = people.pass_marks(data.rows, d["b"])  # b's verdicts that disagree with a person's
    for f in d["flips"]:
        f["disagrees_with_person"] = marks.get(f["run_id"])
    d["disagree_with_people"], d["disagreements"] = len(marks), list(marks.values())[:people.MAX_LISTED]
    kinds: dict[str, int] = {}
    for g in d["groups"]:
        kinds[f"{g['before']}→{g['after']}"] = kinds.get(f"{g['before']}→{g['after']}", 0) + g["n"]
    return {**d, "kinds": kinds, **_paging(int(d["flip_count"]), page, per_page), "passes": data.pass_ids()}


def query(data: StoreData, params: Mapping[str, str]) -> dict[str, Any]:
    """A person's SQL through the sandbox of ``traj query``; the first rows, and the examples."""
    sql = (params.get("sql") or "").strip()
    out: dict[str, Any] = {"sql": sql, "examples": [{"title": t, "sql": s} for t, s in data.examples()],
                           "split": data.split, "result": None}
    if sql:
        try:
            out["result"] = data.query(sql, QUERY_ROWS)
        except QueryError as exc:
            # The page stays (with the SQL to fix); the refusal is the answer, with status 400.
            out["error"] = str(exc)
            out["status"] = 503 if isinstance(exc, Busy) else 400
    return out
