"""Answers a reader cannot settle: one value restated in brackets as another. Pure.

An agent that writes 明天（4月7日） on April 5th, 下午3点（16:00） or 22°C（25°C） gives the asked
value twice, and the two disagree: one of them is what it read, the other a slip, and nothing in
the answer says which. The matchers read such a pair their own way (a date pair states neither
date; a time or a number states each side), which is a guess either way. ``unresolved`` finds the
pairs where exactly one side states the expected value, so a check can say it cannot tell and
hand the answer to a person (a ``review`` verdict) instead of guessing.

What counts, and nothing else:

* The second value is of the same kind and stands alone in brackets right after the first
  (nothing but spaces between: ``X（Y）``). Words inside the brackets (原价30元, 体感25度) make it a
  second quantity, not a restatement.
* The two disagree: dates that resolve to different days, times with no reading in common,
  numbers of different value. A number in another unit (22°C（72°F）) is a conversion, not a
  second reading, and a number whose unit does not fit the asked one is no reading of it.
* Exactly one side states the expected value, the pair is asserted (not negated, not taken
  back, not offered as alternatives), and the answer states the value nowhere else: a value the
  answer also states plainly, or a pair whose sides both miss it, is decided as before.

An empty or unreadable answer is never unresolved: it states nothing, and that is a fail.
"""

from __future__ import annotations

import re
from numbers import Real
from typing import Any

from . import dates as D
from . import units
from .dates import _as_float
from .tokens import Scan, Token, fold, scan

__all__ = ["restatements", "unresolved"]

_OPEN_RE = re.compile(r"\s*\(\s*")
_CLOSE_RE = re.compile(r"\s*\)")
_NUMERIC_RE = re.compile(r"[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?")


def _kind(matcher: str, expected: Any) -> str | None:
    """The token kind an expected value is read as, or None for values this module leaves alone."""
    if matcher in ("time", "date"):
        return matcher
    if isinstance(expected, bool):
        return None
    if isinstance(expected, Real) or (isinstance(expected, str) and _NUMERIC_RE.fullmatch(fold(expected).strip())):
        return "number"
    return None


def restatements(s: Scan, kind: str) -> list[tuple[Token, Token]]:
    """Pairs ``X（Y）`` of one kind: a value and the lone value in the brackets right after it."""
    tokens = [t for t in s.tokens if t.kind == kind]
    out = []
    for a, b in zip(tokens, tokens[1:]):
        if a.paren or not b.paren:
            continue
        if _OPEN_RE.fullmatch(s.text, _past_unit(s, a), b.start) and _CLOSE_RE.match(s.text, _past_unit(s, b)):
            out.append((a, b))
    return out


def _past_unit(s: Scan, t: Token) -> int:
    """Where the text goes on after a value and the unit written with it (22°C, 3个)."""
    unit = t.unit.strip()
    if unit and s.text[t.end:].lstrip().lower().startswith(unit.lower()):
        gap = len(s.text[t.end:]) - len(s.text[t.end:].lstrip())
        return t.end + gap + len(unit)
    return t.end


def unresolved(matcher: str, expected: Any, actual: Any, os_state: Any = None, *, unit: str | None = None,
               tolerance_minutes: float = 5) -> str | None:
    """Why the answer cannot be read for `expected` (see the module docstring), or None when it
    can. `matcher` and `unit` are the check's own (``time``, ``date``, else a value)."""
    if not isinstance(actual, str) or not actual.strip():
        return None
    kind = _kind(matcher, expected)
    if kind is None:
        return None
    s = scan(actual)
    pairs = restatements(s, kind)
    if not pairs:
        return None
    states, same = _reader(kind, expected, s, os_state, unit, tolerance_minutes)
    if states is None:
        return None
    torn = []
    for a, b in pairs:
        if not all(t.exact and t.asserted and s.claims(t.start, t.end) for t in (a, b)):
            continue
        if kind == "number" and not (units.fits(s, a, unit) and units.fits(s, b, unit)
                                     and _same_unit(s, a, b)):
            continue
        if same(a, b) or states(a) == states(b):
            continue
        torn.append((a, b))
    if not torn:
        return None
    inside = {t for pair in torn for t in pair}
    if any(states(t) and t not in inside and t.exact and t.asserted and s.claims(t.start, t.end)
           for t in s.tokens if t.kind == kind):
        return None  # stated plainly elsewhere: the matcher's reading stands
    a, b = torn[0]
    return (f"the answer gives the asked value two ways, {s.text[a.start:a.end]!r} and "
            f"{s.text[b.start:b.end]!r} in brackets, and says nothing of which it means")


def _same_unit(s: Scan, a: Token, b: Token) -> bool:
    ua, ub = units.unit_of(s, a), units.unit_of(s, b)
    return ua is None or ub is None or ua == ub


def _reader(kind: str, expected: Any, s: Scan, os_state: Any, unit: str | None, tol: float) -> tuple[Any, Any]:
    """(does a token state `expected`, do two tokens give the same value), or (None, None) when
    the expected value cannot be read."""
    from .matchers import expected_times, time_close

    if kind == "time":
        want = expected_times(expected)
        minutes = _as_float(tol)
        if not want or minutes is None:
            return None, None
        return (lambda t: time_close(want, t.value, minutes),
                lambda a, b: time_close(list(a.value), b.value, 0))
    if kind == "date":
        now = D.now_date(os_state)
        day = D.expected_date(expected, now)
        if day is None:
            md = D.expected_month_day(expected) if now is None else None
            if md is None:
                return None, None
            return (lambda t: D.same_month_day(t.value, md),
                    lambda a, b: D.same_month_day(a.value, md) == D.same_month_day(b.value, md))
        return (lambda t: D.resolve(t.value, now, day) == day,
                lambda a, b: D.resolve(a.value, now, day) == D.resolve(b.value, now, day))
    target = _as_float(expected) if not isinstance(expected, str) else float(fold(expected).strip().replace(",", ""))
    if target is None:
        return None, None

    def value(t: Token) -> float | None:
        return t.value if t.kind == "number" and isinstance(t.value, (int, float)) else None

    def close(x: float | None, y: float | None) -> bool:
        return x is not None and y is not None and abs(x - y) <= 1e-9 * max(1.0, abs(x), abs(y))

    return (lambda t: close(value(t), target), lambda a, b: close(value(a), value(b)))
