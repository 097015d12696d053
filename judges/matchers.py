"""Matchers: decide whether an agent's answer states an expected value. Pure functions.

Every matcher reads the answer through the one tokenizer (``judges.tokens``), so they agree on
what a number, a time, a date or a negation is. A parser returns ``None`` (or an empty list)
when it cannot read its input and never raises on odd text; a matcher returns ``False`` then.
Only programming errors in a task (an unknown matcher name, an expected value of an unsupported
type) raise.

What "states" means, for every matcher alike:

* The value is asserted: its clause is not negated (不是20度，是22度 states 22), not a question
  and not taken back. A negation inside the expected value itself (未通过, 不会下雨) is part of
  the value, not a denial of it.
* The value is exact: not a bound (不到1小时, 二十多, nearly 20), not one of alternatives
  (6:40或7:40, 1小时或1小时15分, 五六个) and, for numbers and durations, not the end of a range.
  An approximation word beside one value (约20度, 大约1小时30分钟, 20度左右, about 20) states it:
  the agent softens what it read off the screen. Times keep their tolerance, so "6点43分左右"
  states 06:40 and a range end (营业到22:00) is a time stated; a hedge between two times, or a
  span given as an estimate (早上7点到8点之间, 大概7点到8点吧), states neither.
* The value is whole: 25 is not in 125, 12 is not in "MIUI 12.5" (a version is kept whole),
  南风 is not in 东南风, 暴雨 is not in 大暴雨, "iPhone 15" is not in "iPhone 15 Pro".
* Numerals inside words are not numbers (一周, 三亚, 四川, 一样, 星期一, 万一 …).
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections import Counter
from functools import lru_cache
from numbers import Real
from typing import Any

from . import dates as D
from .dates import _as_float
from . import units
from .names import whole, whole_at
from .tokens import Scan, Token, asserted_in, denies_at, fold, scan
from .times import find_durations, find_times

__all__ = [
    "extract_numbers",
    "has_close_number",
    "match_date",
    "match_duration",
    "match_field",
    "match_repeatable",
    "match_time",
    "match_value",
    "stated_spans",
    "asserted_at",
    "whole_at",
    "bipartite_complete",
    "expected_times",
    "time_close",
    "normalize_text",
    "parse_dates",
    "parse_duration_minutes",
    "parse_number",
    "parse_times",
    "phrase_hits",
    "phrase_spans",
]

normalize_text = fold
_MATCHERS = ("exact", "number", "date", "time", "duration")


def _as_text(actual: Any) -> str | None:
    """The answer as text: None and non-text answers (other than plain numbers) are unreadable."""
    if isinstance(actual, str):
        return actual
    if isinstance(actual, Real) and not isinstance(actual, bool):
        return str(actual)
    return None


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


# -- numbers ---------------------------------------------------------------------------------


def extract_numbers(text: str) -> list[float]:
    """Every number an answer mentions, in order (asserted or not; versions, dates and times are
    not numbers). Values that overflow a float are left out."""
    return [t.value for t in scan(text).tokens if t.kind == "number"]


_BARE_DECIMAL_RE = re.compile(r"[-+]?\.\d+")
# A sentence mark after a field's value is punctuation, not part of the value ("25。").
_FINAL_MARKS = "。.!?;,！？；，"


def _field_text(text: str) -> str:
    # Final marks and whitespace in any mix ("负5。 。") are not part of the value.
    body = fold(text).strip()
    while body and (body[-1] in _FINAL_MARKS or body[-1].isspace()):
        body = body[:-1]
    return body


def _exact_key(text: str) -> str:
    """What an exact field compares: the folded value without whitespace, final marks or case.
    Spacing and capitals are typing habits ("小 雨" is 小雨, "sunny" is Sunny); the words are not."""
    return _WS_RE.sub("", _field_text(text)).casefold()


def parse_number(text: str) -> float | None:
    """The value of an answer that is nothing but a number, for fields that ask for a bare number.

    " 25 ", "25.0", "1,234", "二十五", "负5", "1.2万" read; "25°C" and "3个" do not, because a
    unit means the agent did not fill the field the way it was asked; "五六" is no number.
    """
    body = _field_text(text)
    if _BARE_DECIMAL_RE.fullmatch(body):
        return float(body)
    s = scan(body)
    tokens = [t for t in s.tokens if t.kind == "number"]
    if len(tokens) == 1 and tokens[0].exact and (tokens[0].start, tokens[0].end) == (0, len(s.text)):
        return tokens[0].value
    return None


def _version_number(t: Token) -> float | None:
    """A version as a number when it reads as one (Android 14 is 14, 12.5 is 12.5)."""
    if len(t.value) == 1:
        return float(t.value[0])
    if len(t.value) == 2:
        return float(f"{t.value[0]}.{t.value[1]}")
    return None


def _stated_number_tokens(s: Scan) -> list[tuple[Token, float]]:
    """Exact, asserted numbers, with versions that read as one (Android 14 is 14)."""
    out = [(t, t.value) for t in s.of("number", exact=True)]
    out += [(t, v) for t in s.of("version") if (v := _version_number(t)) is not None]
    return out


def has_close_number(text: str, expected: float, tol: float = 0.01, *, unit: str | None = None) -> bool:
    """True when the answer states a number within `tol` of `expected` (a unit may follow it,
    one that fits `unit` when given: 64摄氏度 is no 64°F).

    For measured values (a conversion the agent rounds) an approximation (约64) is fine, since
    the tolerance already allows for it; alternatives and range ends are not.
    """
    target = _as_float(expected)
    tolerance = _as_float(tol)
    if target is None or tolerance is None:
        return False
    # A hair of slack so that a tolerance of exactly 0.01 admits 3.51 for 3.5 despite binary floats.
    slack = abs(tolerance) + 1e-9 * max(1.0, abs(target))
    s = scan(text)
    values = [t.value for t in s.of("number") if not (t.hedged or t.ranged) and units.fits(s, t, unit)]
    return any(abs(v - target) <= slack for v in values)


# -- phrases ---------------------------------------------------------------------------------

_WS_RE = re.compile(r"\s+")


def _squeezed(text: str) -> tuple[str, list[int]]:
    """The text without whitespace, and for each kept character its index in `text`."""
    keep = [i for i, ch in enumerate(text) if not ch.isspace()]
    return "".join(text[i] for i in keep), keep


def phrase_spans(needle: str, folded: str) -> list[tuple[int, int]]:
    """Spans where `needle` stands as a whole phrase (case and whitespace ignored) in `folded`,
    a text as ``fold`` gives it (``Scan.text``), asserted or not. It reads the folded text only,
    so a caller that needs no clauses (``screen_has``) need not scan the text at all."""
    want, sq_want = _wanted(needle if isinstance(needle, str) else "")  # fold reads a non-str as ""
    if not want.strip():
        return []
    hay = folded.casefold()
    spans: list[tuple[int, int]] = []
    pos = hay.find(want)
    while pos != -1:
        spans.append((pos, pos + len(want)))
        pos = hay.find(want, pos + 1)
    # Agents space words differently ("iPhone 15" / "iPhone15"): retry without whitespace.
    # "".join(hay.split()) is _squeezed(hay)'s text (both drop what str.isspace calls space),
    # built in C: the index of every kept character is built only when the needle is there.
    if not spans and sq_want and sq_want in "".join(hay.split()):
        sq_hay, index = _squeezed(hay)
        pos = sq_hay.find(sq_want)
        while pos != -1:
            spans.append((index[pos], index[pos + len(sq_want) - 1] + 1))
            pos = sq_hay.find(sq_want, pos + 1)
    return [(a, b) for a, b in spans if whole(hay, a, b, sq_want)]


@lru_cache(maxsize=1024)
def _wanted(needle: str) -> tuple[str, str]:
    """A needle as phrase_spans looks for it (folded, casefolded) and without its whitespace:
    folded once per needle, not once per screen it is looked for on."""
    want = fold(needle).casefold()
    return want, _WS_RE.sub("", want)


def phrase_hits(needle: str, s: Scan, *, asserted: bool = True) -> list[tuple[int, int]]:
    """Spans where `needle` stands in the scanned text as a whole phrase (case and whitespace
    ignored); with ``asserted``, only where its clause asserts it (negators outside the needle
    count, inside it they are part of the value) and it is not one of alternatives."""
    spans = phrase_spans(needle, s.text)
    return [(a, b) for a, b in spans if _asserted_at(s, a, b)] if asserted else spans


def _asserted_at(s: Scan, a: int, b: int) -> bool:
    """The one claim reading of every path (``Scan.claims``): asserted, not taken back, not
    withdrawn, not a list marker, not one of alternatives."""
    return s.claims(a, b)


asserted_at = _asserted_at


_NUMERIC_NEEDLE_RE = re.compile(r"[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)*%?")


def _numeric_needle_spans(needle: str, s: Scan) -> list[tuple[int, int]]:
    """A needle that is a number or a version ("1925", "14", "12.5", "8.9%") is compared as a
    value: 25 is not in 125, 12 is not in 12.5, 14 is 14.0."""
    body = fold(needle).strip().rstrip("%").replace(",", "")
    out = []
    if body.count(".") <= 1:
        out += [(t.start, t.end) for t in s.of("number", exact=True) if _close(float(body), t.value)]
    want = _strip_zeros(tuple(int(p) for p in body.lstrip("+-").split(".")))
    if not body.startswith("-"):
        out += [(t.start, t.end) for t in s.of("version") if _strip_zeros(t.value) == want]
    return sorted(out)


def _strip_zeros(v: tuple[int, ...]) -> tuple[int, ...]:
    out = list(v)
    while len(out) > 1 and out[-1] == 0:
        out.pop()
    return tuple(out)


def _pattern_spans(pattern: re.Pattern[str], s: Scan) -> list[tuple[int, int]]:
    return [m.span() for m in pattern.finditer(s.text) if whole_at(s.text, *m.span()) and _asserted_at(s, *m.span())]


def _value_spans(expected: Any, s: Scan, unit: str | None) -> list[tuple[int, int]]:
    if isinstance(expected, re.Pattern):
        return _pattern_spans(expected, s)
    if isinstance(expected, bool):
        # bool is an int subclass, but True is not the number 1 in an answer.
        raise TypeError("match_value: a bool is not a matchable value; compare choices as text")
    if isinstance(expected, Real):
        target = _as_float(expected)
        if target is None:
            return []
        return [(t.start, t.end) for t, v in _stated_number_tokens(s) if _close(v, target) and units.fits(s, t, unit)]
    if isinstance(expected, str):
        if not fold(expected).strip():
            return []  # an empty expectation would match every answer
        if _NUMERIC_NEEDLE_RE.fullmatch(fold(expected).strip()):
            return _numeric_needle_spans(expected, s)
        return phrase_hits(expected, s)
    raise TypeError(f"match_value: unsupported expected type {type(expected).__name__}")


_UNDER = re.compile(r"(?<![不非没])(?<!不是)(?<!并非)(?:不到|不足|未满)\s*$")


def stated_spans(matcher: str, expected: Any, actual: Any, os_state: Any = None, *,
                 unit: str | None = None, tolerance_minutes: float = 5) -> list[tuple[int, int]]:
    """Where a free-text answer states `expected`: spans in the folded answer (``fold``).

    `matcher` picks the reading: ``time``, ``duration`` and ``date`` as `match_time`,
    `match_duration` and `match_date` read; any other as `match_value`. A number given in a unit
    that conflicts with `unit` ("20华氏度" for a value asked in °C) is not stated.
    """
    text = _as_text(actual)
    if text is None or not text.strip():
        return []
    s = scan(text)
    if matcher == "time":
        want = expected_times(expected)
        tol = _as_float(tolerance_minutes)
        if not want or tol is None:
            return []
        return [(t.start, t.end) for t in s.of("time") if not (t.hedged or t.approx) and time_close(want, t.value, tol)]
    if matcher == "duration":
        wanted = _expected_minutes(expected)
        if re.fullmatch(r"\d+", s.text):
            return [(0, len(s.text))] if int(s.text) in wanted else []
        # Seed 004 lists 不到1小时 among the agent's ways of writing 0小时59分: "just under" N
        # states the whole minute below N (a bound of any other kind states no value).
        return [(t.start, t.end) for t in s.of("duration") if (not t.clock or _alone(s, t)) and (
            (t.exact and t.value in wanted)
            or (t.approx and not (t.hedged or t.ranged) and t.value - 1 in wanted and _UNDER.search(s.text[: t.start])))]
    if matcher == "date":
        now = D.now_date(os_state)
        want = D.expected_date(expected, now)
        if want is None:
            # Without a simulated now, a year-less expected date (4月6日) is stated by the same
            # month and day (04-06, April 6): nothing about them needs a clock.
            md = D.expected_month_day(expected) if now is None else None
            return [(t.start, t.end) for t in s.of("date", exact=True) if md and D.same_month_day(t.value, md)]
        dates = s.of("date", exact=True)
        # 明天（4月7日）said on 4/5 contradicts itself: a date and its restatement that disagree
        # state neither.
        torn = {i for i, (a, b) in enumerate(zip(dates, dates[1:])) for i in (i, i + 1)
                if b.paren and re.fullmatch(r"\s*\(\s*", s.text[a.end : b.start])
                and D.resolve(a.value, now, want) != D.resolve(b.value, now, want)}
        return [(t.start, t.end) for i, t in enumerate(dates) if i not in torn and D.resolve(t.value, now, want) == want]
    return _value_spans(expected, s, unit)


def _alone(s: Scan, t: Token) -> bool:
    """Does the value's clause hold nothing else ("2:15" as the answer to a duration question, a
    sheet cell in a joined answer)? Then the question says what the value is."""
    c, edge = s.clause_at(t.start), " ,.;:!?()、，。；：！？"
    return not (s.text[c.start : t.start].strip(edge) or s.text[t.end : c.end].strip(edge))


def match_value(expected: Any, actual: Any, *, unit: str | None = None) -> bool:
    """Does a free-text answer state `expected`? The type of `expected` picks the reading.

    Numbers (and strings that are numbers or versions) must be stated as an exact, asserted
    value (in a unit that fits `unit` when one is given). Other strings must stand as a whole
    phrase in an asserted clause (see the module docstring). A pattern is the task's own rule:
    it searches both the raw and the folded answer, so a task may pin either spelling, and like
    every value a match counts only in a clause that asserts it (不是8.93% states no 8.93%).
    """
    text = _as_text(actual)
    if text is None or not text.strip():
        return False
    if stated_spans("exact", expected, text, unit=unit):
        return True
    if isinstance(expected, re.Pattern) and not any(m.end() > m.start() for m in expected.finditer(fold(text))):
        # A spelling only the raw answer has (a full-width form the task pinned): the same
        # claim reading on the raw text. A pattern the folded answer holds was read already:
        # "一样冷吗？不一样" asks and denies, whatever its spelling.
        return any(asserted_in(text, *m.span()) for m in expected.finditer(text) if m.end() > m.start())
    return False


# -- times -------------------------------------------------------------------------------------


def parse_times(text: str) -> list[tuple[int, int]]:
    """Every time of day the text mentions, as (hour, minute) in 24-hour form.

    A bare clock-face hour 1-12 (1点10分, 十点, 9:58, 10:50, 12:30) yields both readings, as
    written first, because the agent did not say which. A period word, AM/PM, an hour of 0 or
    13-23, or an hour with its leading zero (09:58 — the 24-hour clock's spelling) decides.
    """
    found: list[tuple[int, int]] = []
    for t in scan(text).tokens:
        if t.kind == "time":
            found += [r for r in t.value if r not in found]
    return found


def expected_times(expected: Any) -> list[tuple[int, int]]:
    """The readings of an expected time: a time, an (hour, minute) pair or a text like "14:30"."""
    if isinstance(expected, dt.time):
        return [(expected.hour, expected.minute)]
    if isinstance(expected, tuple) and len(expected) == 2:
        try:
            return [(int(expected[0]) % 24, int(expected[1]) % 60)]
        except (TypeError, ValueError):
            return []
    if isinstance(expected, str):
        # An expected time is a fact (a state's "10:50" is 10:50): its hour as written, not
        # both clock-face readings an agent's "10:50" may have.
        return [readings[0] for _, _, readings in find_times(fold(expected))]
    return []


def time_close(want: list[tuple[int, int]], got: tuple[tuple[int, int], ...], tol: float) -> bool:
    """Is some reading of `got` within `tol` minutes of some expected reading, across midnight?"""
    for eh, em in want:
        for ah, am in got:
            diff = abs((eh * 60 + em) - (ah * 60 + am)) % 1440
            if min(diff, 1440 - diff) <= tol:
                return True
    return False


def match_time(expected: Any, actual: Any, tolerance_minutes: int = 5) -> bool:
    """Does the answer state the expected time of day, give or take a few minutes?

    Agents read clocks off the screen and round; a few minutes either side is the same answer.
    The tolerance is inclusive and wraps at midnight (23:58 is 4 minutes from 00:02). Any
    asserted time the answer states may match; times offered as alternatives, and spans given
    as an estimate (早上7点到8点之间), do not.
    """
    return bool(stated_spans("time", expected, actual, tolerance_minutes=tolerance_minutes))


# -- durations ---------------------------------------------------------------------------------


def parse_duration_minutes(text: str) -> list[int]:
    """Every duration the text mentions, in whole minutes, in order (a text that is just an
    integer is read as minutes)."""
    s = fold(text)
    if re.fullmatch(r"\d+", s):
        return [int(s)]
    found: list[int] = []
    for _, _, minutes in find_durations(s):
        if minutes not in found:
            found.append(minutes)
    return found


def _expected_minutes(expected: Any) -> list[int]:
    if isinstance(expected, dt.timedelta):
        seconds = expected.total_seconds()
        return [int(seconds // 60)] if seconds % 60 == 0 else []
    if isinstance(expected, bool):
        return []
    if isinstance(expected, int):
        return [expected]
    if isinstance(expected, float):
        return [int(expected)] if math.isfinite(expected) and expected == int(expected) else []
    if isinstance(expected, str):
        return parse_duration_minutes(expected)
    return []


def match_duration(expected: Any, actual: Any) -> bool:
    """Does the answer state the expected duration, in any of the usual spellings?

    Both sides are reduced to whole minutes and compared exactly: durations are read off a
    screen, so a minute off is a misreading. An approximation word beside one duration states it
    (大约二小时); a bound (不到1小时, 1个多小时) or a hedge (1小时或1小时15分) states none. An
    H:MM is a duration where the text says so (用时1:30) or it is the whole answer ("2:15"); 下午3:20
    is a time of day. `expected` may also be minutes or a timedelta.
    """
    return bool(stated_spans("duration", expected, actual))


# -- dates -------------------------------------------------------------------------------------


def parse_dates(text: str, os_state: Any = None) -> list[dt.date]:
    """Every date the text mentions, resolved against the simulated now in `os_state`.

    Without a readable now, only dates that carry their year can be resolved; the rest are left
    out rather than guessed from the judging machine's clock.
    """
    now = D.now_date(os_state)
    found: list[dt.date] = []
    for t in scan(text).tokens:
        if t.kind == "date" and (d := D.resolve(t.value, now, None)) is not None and d not in found:
            found.append(d)
    return found


def match_date(expected: Any, actual: Any, os_state: Any = None) -> bool:
    """Does the answer name the expected calendar date, in any absolute or relative form?

    Relative words (明天, 下周三, tomorrow) are resolved against the simulated now and zone in
    `os_state`, never the judging machine's clock, so re-judging old runs gives the same verdict.
    Any exact, asserted date the answer states may match.
    """
    return bool(stated_spans("date", expected, actual, os_state))


# -- AnswerSheet fields --------------------------------------------------------------------------

_FILLER_RE = re.compile(r"[\s,.;:()/、。;()-]*")


def _whole_field_is_date(expected: Any, text: str, os_state: Any) -> bool:
    """The field holds date expressions only, and each names the expected date."""
    s = scan(text)
    now = D.now_date(os_state)
    want = D.expected_date(expected, now)
    tokens = [t for t in s.tokens if t.kind == "date"]
    yearless = D.expected_month_day(expected) if want is None and now is None else None
    if (want is None and yearless is None) or not tokens:
        return False
    pos = 0
    for t in tokens:
        # Only filler (spaces, punctuation) may sit between or around the dates: "3月16日 周日".
        if not _FILLER_RE.fullmatch(s.text, pos, t.start):
            return False
        if not (D.same_month_day(t.value, yearless) if yearless else D.resolve(t.value, now, want) == want):
            return False
        pos = t.end
    return bool(_FILLER_RE.fullmatch(s.text, pos))


def _one_value(tokens: list[Token]) -> bool:
    """A field holds one value: every token of the kind is asserted and exact."""
    return bool(tokens) and all(t.asserted and t.exact for t in tokens)


def match_field(matcher: str, expected: Any, actual: Any, os_state: Any = None) -> bool:
    """Judge one AnswerSheet field, where the agent typed just the value into a box.

    `exact` compares the folded values, ignoring whitespace, case and final marks (as text mode
    does). Unlike `match_value`, `number` and `date` require the whole field to be the value: a field
    is a form, and "3个" in a number box is a malformed answer. A time or duration field holds
    one value: "6:40或7:40" fails whichever is right. An unknown matcher name is a bug in the
    task and raises ValueError.
    """
    if matcher not in _MATCHERS:
        raise ValueError(f"unknown matcher {matcher!r}; expected one of {', '.join(_MATCHERS)}")
    text = _as_text(actual)
    if text is None:
        return False
    if matcher == "exact":
        want = expected if isinstance(expected, str) else _as_text(expected)
        return want is not None and _exact_key(want) == _exact_key(text)
    if matcher == "number":
        want = _as_float(expected)
        if want is None and isinstance(expected, str):
            want = parse_number(expected)
        got = parse_number(text)
        return want is not None and got is not None and math.isclose(got, want, rel_tol=1e-6, abs_tol=1e-9)
    if matcher == "date":
        return _whole_field_is_date(expected, text, os_state)
    s = scan(text)
    if matcher == "time":
        # A value the field takes back ("7:00，不对，是8:00") is not what it holds: the same
        # claim reading as free text (Scan.taken_back); what is left must be one value.
        tokens = [t for t in s.tokens if t.kind == "time" and not s.taken_back(t.start, t.end)]
        want = expected_times(expected)
        return bool(want) and _one_value(tokens) and all(time_close(want, t.value, 5) for t in tokens)
    if re.fullmatch(r"\d+", s.text):
        return int(s.text) in _expected_minutes(expected)
    tokens = [t for t in s.tokens if t.kind == "duration" and not s.taken_back(t.start, t.end)]
    want_minutes = _expected_minutes(expected)
    return _one_value(tokens) and all(t.value in want_minutes for t in tokens)


def bipartite_complete(n: int, fits: Any) -> bool:
    """Every expected item gets its own actual item (Kuhn's augmenting paths; lists are short)."""
    owner: list[int | None] = [None] * n

    def augment(e: int, seen: set[int]) -> bool:
        for a in range(n):
            if a not in seen and fits(e, a):
                seen.add(a)
                if owner[a] is None or augment(owner[a], seen):
                    owner[a] = e
                    return True
        return False

    return all(augment(e, set()) for e in range(n))


def match_repeatable(matcher: str, compare: str, expected_list: Any, actual_list: Any, os_state: Any = None) -> bool:
    """Judge a repeatable field: the agent's list must have the expected items, no more, no less.

    `sequence` compares position by position; `set` ignores order but counts duplicates, so
    each expected item needs its own answer. Matchers like `time` are not transitive (a
    tolerance), hence a real matching rather than sorting, except for `exact`.
    """
    if compare not in ("sequence", "set"):
        raise ValueError(f"unknown compare mode {compare!r}; expected 'sequence' or 'set'")
    if matcher not in _MATCHERS:
        raise ValueError(f"unknown matcher {matcher!r}; expected one of {', '.join(_MATCHERS)}")
    if not isinstance(expected_list, (list, tuple)) or not isinstance(actual_list, (list, tuple)):
        return False
    if len(expected_list) != len(actual_list):
        return False
    if compare == "sequence":
        return all(match_field(matcher, e, a, os_state) for e, a in zip(expected_list, actual_list))
    if matcher == "exact":
        texts = [_as_text(a) for a in actual_list]
        wants = [e if isinstance(e, str) else _as_text(e) for e in expected_list]
        if any(t is None for t in texts) or any(w is None for w in wants):
            return False
        return Counter(map(_exact_key, wants)) == Counter(map(_exact_key, texts))
    n = len(expected_list)
    table = [[match_field(matcher, expected_list[e], actual_list[a], os_state) for a in range(n)] for e in range(n)]
    return bipartite_complete(n, lambda e, a: table[e][a])
