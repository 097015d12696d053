"""Free-text answers to GUI tasks: one value stated, or a list given. Pure functions.

The task classes (``task.AnswerTask.text_check`` and the tasks' own checks) call these with the
part of the answer said of the asked subject (``Observation.said``) and show the whole answer.
"""

from __future__ import annotations

import re
from typing import Any

from judges.base import Check
from judges.dates import expected_date, now_date, resolve
from judges.lexicon import EN_NAMES, EXCLUSIONS, OFF_STATES
from judges.matchers import bipartite_complete, expected_times, match_date, match_duration, match_time, match_value, time_close
from judges.tokens import _denies, scan
from judges.readings import unresolved
from judges.units import fits

__all__ = ["TEMPERATURE_UNITS", "states", "text_matches", "value_check", "stated_list", "list_check"]

# A clause saying an item is switched off does not list it among the ones that are on.
# So does one that leaves it out (除了18:45, except 18:45).
OFF_STATE_RE = re.compile(
    "|".join(re.escape(w) for w in sorted(OFF_STATES + EXCLUSIONS, key=len, reverse=True) if not w.isascii())
    + r"|(?<![a-z])(?:" + "|".join(re.escape(w) for w in OFF_STATES + EXCLUSIONS if w.isascii()) + r")(?![a-z])",
    re.IGNORECASE,
)


def text_matches(matcher: str, expected: Any, text: str | None, os_state: Any, *, unit: str | None = None) -> bool:
    """Does a free-text answer state `expected`? Time, duration and date fields understand the
    ways agents write those values; every other value is looked for with ``match_value``."""
    if text is None or not str(text).strip():
        return False
    if matcher == "time":
        return match_time(expected, text)
    if matcher == "duration":
        return match_duration(expected, text)
    if matcher == "date":
        return match_date(expected, text, os_state)
    return states(expected, text, unit=unit)


def states(expected: Any, text: str | None, *, unit: str | None = None) -> bool:
    """match_value, and for a Chinese name its English names too ("light rain" states 小雨)."""
    if match_value(expected, text, unit=unit):
        return True
    return isinstance(expected, str) and any(match_value(n, text) for n in EN_NAMES.get(expected.strip(), ()))


def value_check(name: str, matcher: str, expected: Any, text: str | None, os_state: Any, *,
                shown: str | None = None, unit: str | None = None) -> Check:
    """One answer check over free text; a list of expected values must all be stated (in a unit
    that fits `unit`). `shown` is the answer as the agent gave it, when `text` is a part of it."""
    shown = text if shown is None else shown
    wanted = list(expected) if isinstance(expected, (list, tuple)) else [expected]
    # A value the answer gives two ways that disagree (明天（4月7日）) is not guessed at: the
    # check says it cannot tell (judges.readings), unless another value is plainly missing.
    torn = {i: why for i, w in enumerate(wanted) if isinstance(text, str)
            and (why := unresolved(matcher, w, text, os_state, unit=unit))}
    missing = [w for i, w in enumerate(wanted) if i not in torn and not text_matches(matcher, w, text, os_state, unit=unit)]
    if shown is None or not str(shown).strip():
        reason = "no answer"
    elif torn and not missing:
        return Check(name=name, passed=False, review=True, expected=expected, actual=shown,
                     reason="; ".join(torn.values()))
    elif missing:
        reason = "not stated: " + ", ".join(map(_show, missing))
        if shown != text and all(text_matches(matcher, w, shown, os_state, unit=unit) for w in missing):
            reason += " (the answer gives it to another subject)"
        elif unit and all(text_matches(matcher, w, text, os_state) for w in missing):
            reason += f" (the answer gives it in a unit other than {unit})"
    else:
        reason = ""
    return Check(name=name, passed=not reason, expected=expected, actual=shown, reason=reason)


# Units a listed number may carry when the list is of temperatures, counts, ... (none: bare).
TEMPERATURE_UNITS = ("", "度", "°", "°C", "°F", "摄氏度", "华氏度", "degrees", "degree")


def stated_list(matcher: str, text: str, os_state: Any, *, units: tuple[str, ...] | None = None,
                unit: str | None = None) -> list[Any]:
    """The items of one kind a free-text answer asserts, in order: the list it gives.

    Dates are resolved against the simulated now (a range names every day in it); times keep
    their readings; numbers are exact ones, with a unit from `units` that fits `unit` when given,
    and not the ones labelled as lows (最低15度, 最低分别是22、23) — a list of highs is judged on the highs. An item
    in a clause that denies anything or says it is off (18:45那个没开, 18:45那个是关着的) is not
    listed as one asked for.
    """
    s = scan(text)

    def listed(t: Any) -> bool:
        clause = s.clause_at(t.start)
        body = _own_part(s.text, clause.start, clause.end, t.start) + _dash_note(s, clause)
        return not (t.hedged or (clause.negated and _denies(body)) or OFF_STATE_RE.search(body))

    if matcher == "date":
        now = now_date(os_state)
        days = []
        for t in s.of("date"):
            if not listed(t):
                continue
            d = resolve(t.value, now)
            if d is not None and d not in days:
                days.append(d)
        return days
    if matcher == "time":
        return [t.value for t in s.of("time") if listed(t)]
    out = []
    for t in s.of("number", exact=True):
        if not listed(t):
            continue
        if (units is not None and t.unit not in units) or not fits(s, t, unit):
            continue
        # The nearest label before it in its sentence governs it: "最低分别是22、23、22" labels all three.
        start = max((m.end() for m in re.compile(r"[。;!?\n]").finditer(s.text, 0, t.start)), default=0)
        labels = list(_HIGH_LOW_RE.finditer(s.text, start, t.start))
        if labels and labels[-1].group("low"):
            continue
        out.append(t.value)
    return out


_HIGH_LOW_RE = re.compile(r"(?P<high>最高|高温|(?<![a-z])high(?:est|s)?(?![a-z]))|(?P<low>最低|低温|(?<![a-z])low(?:est|s)?(?![a-z]))",
                          re.IGNORECASE)
_ASIDE_RE = re.compile(r"\([^()]*\)|【[^【】]*】")


def _dash_note(s: Any, clause: Any) -> str:
    """What a dash after an item adds about it: "11:45 — 已关闭" says 11:45 is off. The dash ends
    the clause; the next one speaks of this item when it names no value of its own."""
    if not s.text[clause.start:clause.end].rstrip().endswith(("—", "–")):
        return ""
    nxt = next((c for c in s.clauses if c.start == clause.end), None)
    if nxt is None or re.search(r"\d", s.text[nxt.start:nxt.end]):
        return ""
    return " " + s.text[nxt.start:nxt.end]


def _own_part(text: str, start: int, end: int, pos: int) -> str:
    """The part of a clause that speaks of the item at `pos`: an aside in brackets speaks of its
    own items ("22:50（18:45的已关闭）" says nothing is off about 22:50), the rest of the others;
    an aside that names no item speaks of the clause's ("08:30（已关闭）")."""
    body = text[start:end]
    # An aside with no value of its own ("08:30（已关闭）") speaks of the item before it.
    asides = [m.span() for m in _ASIDE_RE.finditer(body) if re.search(r"\d", m.group(0))]
    for a, b in asides:
        if a <= pos - start < b:
            return body[a:b]
    return "".join(" " if any(a <= i < b for a, b in asides) else ch for i, ch in enumerate(body))


def list_check(name: str, matcher: str, compare: str, expected: list[Any], text: str | None, os_state: Any,
               *, units: tuple[str, ...] | None = None, unit: str | None = None, shown: str | None = None) -> Check:
    """A list asked in free text: the answer's items of that kind are the expected ones, no more
    (listing all seven days for "which days rain" fails), in order when the task asks for an order."""
    shown = text if shown is None else shown
    if text is None or not str(text).strip():
        return Check(name=name, passed=False, expected=expected, actual=shown, reason="no answer")
    got = stated_list(matcher, text, os_state, units=units, unit=unit)
    if matcher == "date":
        now = now_date(os_state)
        want = [d for e in expected if (d := expected_date(e, now)) is not None]
        ok = set(got) == set(want) and len(want) == len(expected)
    elif matcher == "time":
        ok = len(got) == len(expected) and _times_fit(expected, got, ordered=compare == "sequence")
    else:
        values = [float(e) for e in expected]
        ok = len(got) == len(values) and (
            all(abs(a - b) < 1e-9 for a, b in zip(got, values)) if compare == "sequence"
            else sorted(got) == sorted(values)
        )
    reason = "" if ok else f"the answer lists {len(got)} item(s) that are not the expected {len(expected)}" + (
        " in order" if compare == "sequence" else "")
    return Check(name=name, passed=ok, expected=expected, actual=shown, reason=reason)


def _times_fit(expected: list[Any], got: list[tuple[tuple[int, int], ...]], *, ordered: bool) -> bool:
    def fits(e: Any, readings: tuple[tuple[int, int], ...]) -> bool:
        return time_close(expected_times(e), readings, 5)

    if ordered:
        return all(fits(e, g) for e, g in zip(expected, got))
    return bipartite_complete(len(expected), lambda i, j: fits(expected[i], got[j]))


def _show(value: Any) -> str:
    return f"/{value.pattern}/" if isinstance(value, re.Pattern) else str(value)
