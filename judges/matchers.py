"""Matchers: decide whether an agent's free-text answer states an expected value.

Everything here is pure: plain functions of their arguments, no I/O, no clock, no mutable globals.
The module-level regexes and tables are constants. A parser returns ``None`` (or an empty list)
when it cannot read its input and never raises on odd text; a matcher returns ``False`` then.
Only programming errors in a task (an unknown matcher name, an expected value of an unsupported
type) raise.

Decisions worth knowing before reading the code:

* Tokenising. ``normalize_text`` runs NFKC (full-width → half-width), folds whitespace and turns
  Chinese numerals into Arabic digits. A "number" is a maximal run of digits (``2012`` is one
  number, never ``12``); ``-`` is a sign only when no letter or digit stands before it (``03-16``
  is not ``-16``); ``,`` between groups of exactly three digits is a thousands separator.
* Words that merely contain a numeral character (一样, 一下, 万一, 星期一, 周一, 一起 …) are kept as
  they are. Ordinals are numbers: 第一 becomes 第1, so 第一名 and 第1名 compare equal.
* Time ambiguity. A clock-face hour 1-11 with no period word (上午, 下午, AM, PM …) reads both
  ways: 1点10分 and 1:10 are 01:10 and 13:10. A two-digit hour before a colon (01:10, 10:30) is
  the 24-hour clock's spelling and decides, as do 13:10 and 下午1点10分.
* Weeks start on Monday. 这周X/本周X is day X of the current week (it may be past), 下周X is the
  same day one week later, 下下周X two weeks later, 上周X one week earlier. A bare 周X / 星期X /
  weekday name is the next occurrence on or after today (answers about forecasts and schedules
  point forward; today counts).
* Year-less dates (3月16日, March 16, 03-16) resolve to the occurrence nearest to "now" — so near
  the turn of the year 1月2日 said on Dec 30 means the coming January. A bare day (16号) is the
  nearest such day in the previous, current or next month. Without a "now" (no ``os_state``),
  relative words cannot match; year-less forms are read in the expected date's year (and a bare
  day in its month), because then the answer stated correctly everything it stated.
"""

from __future__ import annotations

import datetime as dt
import math
import re
import unicodedata
from collections import Counter
from decimal import Decimal, InvalidOperation
from numbers import Real
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

__all__ = [
    "extract_numbers",
    "has_close_number",
    "match_date",
    "match_duration",
    "match_field",
    "match_repeatable",
    "match_time",
    "match_value",
    "normalize_text",
    "parse_dates",
    "parse_duration_minutes",
    "parse_number",
    "parse_times",
]

# ---------------------------------------------------------------------------------------------
# normalize_text
# ---------------------------------------------------------------------------------------------

_CN_DIGITS = {
    "零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4,
    "五": 5, "六": 6, "七": 7, "八": 8, "九": 9,
}
_CN_SMALL_UNITS = {"十": 10, "百": 100, "千": 1000}
_NUMERAL_CHARS = "零〇一二两三四五六七八九十百千万亿"
# 两 is "two" only as a count; after 点 it never starts a decimal fraction ("三点两" is not 3.2).
_FRACTION_CHARS = "零〇一二三四五六七八九"
_NC = f"[{_NUMERAL_CHARS}]"
# A numeral or an Arabic digit: protection rules below treat both alike, so that the decision taken
# on the first pass is taken again on the already-converted text (idempotence).
_NUMERAL_OR_DIGIT = f"[{_NUMERAL_CHARS}0-9]"

# Words in which a numeral character is not a number. A word that starts with a numeral is only
# protected when no numeral or digit stands before it: 三万一千 is 31000, not 三 + 万一 + 千.
_NUMERAL_WORDS = (
    "一样 一下 万一 一起 一些 一直 一般 一定 一旦 一切 一致 一同 一边 一向 一律 一再 一概 一番 "
    "一会 一阵 一贯 一味 一并 一路 一齐 一共 一一 一模 一时 一带 一方面 一口气 一目了然 一丝 "
    "一流 一体 一道 万万 三明治 三心二意 七上八下 乱七八糟 一五一十 十全十美 五颜六色 四面八方 "
    "千方百计 万无一失 零食 零钱 零件 零售 零星 零散 零下 十字 十足"
).split()
_OTHER_WORDS = "统一 唯一 之一 不一 逐一 专一".split()
_WEEKDAY_WORDS = r"(?:星期|礼拜|周)[一二三四五六日天]"
# Comparative + 一点 is "a little" (好一点, 晚一点), not one o'clock; 一点儿 / 一点点 likewise.
_A_LITTLE = r"(?<=[好快多少慢大小高低早晚近远长短强弱深浅轻重贵冷热暖凉有差些])一点|一点(?=[儿点])"
# 十分 is "very" (十分热) unless it is a clock minute (三点十分, 一小时十分) or minutes (十分钟).
_VERY = rf"(?<!{_NUMERAL_OR_DIGIT})(?<![点时])十(?=分(?!钟))"
# 千万 alone is "by all means"; after a digit it is ten million (三千万).
_BY_ALL_MEANS = rf"(?<!{_NUMERAL_OR_DIGIT})千万"

_PROTECTED_RE = re.compile(
    "|".join(
        [_WEEKDAY_WORDS, _A_LITTLE, _VERY, _BY_ALL_MEANS]
        + [
            rf"(?<!{_NUMERAL_OR_DIGIT}){re.escape(w)}"
            for w in sorted(_NUMERAL_WORDS, key=len, reverse=True)
        ]
        + [re.escape(w) for w in _OTHER_WORDS]
    )
)
_RUN_RE = re.compile(rf"({_NC}+)(?:点({_NC}+))?")
_PERCENT_RE = re.compile(rf"百分之([{_NUMERAL_CHARS}0-9.点]+)")
_MINUS_WORD_RE = re.compile(rf"(?:零下|负)(?={_NUMERAL_OR_DIGIT})")
# After one of these, 三点五 is a clock time (3:05-ish), not 3.5.
_PERIOD_TAIL_RE = re.compile(
    r"(?:凌晨|清晨|早晨|早上|上午|中午|下午|傍晚|晚上|夜里|夜间|半夜|深夜|今早|明早|今晚|明晚|昨晚"
    r"|今天|明天|后天|昨天|前天|早|晚)\s*$"
)
_WS_RE = re.compile(r"\s+")
# U+2212 MINUS SIGN survives NFKC; the answer "−3" means -3, not 3.
_EXTRA_FOLD = str.maketrans({"\u2212": "-"})


def _cn_under_wan(s: str) -> int | None:
    """Read a numeral below 10000 (千/百/十 and digits); None when it is not well formed."""
    value, digit, last_unit, zero = 0, None, 10_000, False
    for i, ch in enumerate(s):
        if ch in _CN_DIGITS:
            d = _CN_DIGITS[ch]
            if d == 0:
                if digit is not None:
                    return None
                zero = True
                continue
            if digit is not None:
                return None  # 二三: two digits in a row is an approximation, not a number
            digit = d
        else:
            unit = _CN_SMALL_UNITS[ch]
            if digit is None:
                # 十二 means 12: only 十 may stand without a multiplier, and only first.
                if unit == 10 and i == 0:
                    digit = 1
                else:
                    return None
            if unit >= last_unit:
                return None  # units must fall: 十百 is not a number
            value += digit * unit
            last_unit, digit, zero = unit, None, False
    if digit is not None:
        if zero or last_unit in (10, 10_000):
            value += digit
        else:
            # Colloquial 一千二 = 1200, 两百五 = 250: a trailing digit takes the next lower unit.
            value += digit * (last_unit // 10)
    return value


def _cn_big(s: str, unit_char: str, unit: int, lower) -> int | None:
    """Read a numeral around one big unit (万 or 亿) with `lower` reading each side."""
    if unit_char not in s:
        return lower(s)
    high, low = s.split(unit_char, 1)
    if not high or unit_char in low:
        return None
    hv = lower(high)
    if hv is None:
        return None
    if not low:
        return hv * unit
    if len(low) == 1 and low in _CN_DIGITS and _CN_DIGITS[low] != 0:
        # 三万五 = 35000: like 一千二, a lone trailing digit takes the next lower unit.
        return hv * unit + _CN_DIGITS[low] * (unit // 10)
    lv = lower(low.lstrip("零〇"))
    if lv is None or lv >= unit:
        return None
    return hv * unit + lv


def _cn_under_yi(s: str) -> int | None:
    """Read a numeral below 10**8; an empty side of 万 counts as 0 (一万 has no lower part)."""
    return _cn_big(s, "万", 10_000, lambda x: _cn_under_wan(x) if x else 0)


def _cn_run_to_digits(run: str) -> str | None:
    """Arabic digits for a run of Chinese numerals, or None when the run is not a number."""
    if all(ch in _CN_DIGITS for ch in run):
        # 二〇二五 is a year read digit by digit; 一 is 1.
        return "".join(str(_CN_DIGITS[ch]) for ch in run)
    if run[0] in "百千万亿":
        return None  # 百度, 千米, 万达: a leading big unit without a count is a word
    value = _cn_big(run, "亿", 100_000_000, _cn_under_yi)
    return None if value is None else str(value)


def _convert_numerals(text: str, start: int, end: int, out: list[str]) -> None:
    """Append text[start:end] to `out` with its numeral runs converted."""
    pos = start
    for m in _RUN_RE.finditer(text, start, end):
        out.append(text[pos : m.start()])
        pos = m.end()
        int_run, frac_run = m.group(1), m.group(2)
        int_digits = _cn_run_to_digits(int_run)
        if int_digits is None:
            out.append(m.group(0))
            continue
        if frac_run is None:
            out.append(int_digits)
            continue
        after = text[m.end() : m.end() + 1]
        is_decimal = (
            all(ch in _FRACTION_CHARS for ch in frac_run)
            # 三点五分 is 3:05 and 下午三点五 a clock time; elsewhere 三点五 is 3.5.
            and after not in ("分", "秒", "刻")
            and not _PERIOD_TAIL_RE.search(text[max(0, m.start() - 8) : m.start()])
        )
        if is_decimal:
            out.append(int_digits + "." + "".join(str(_CN_DIGITS[c]) for c in frac_run))
        else:
            frac_digits = _cn_run_to_digits(frac_run)
            out.append(int_digits + "点" + (frac_run if frac_digits is None else frac_digits))
    out.append(text[pos:end])


def normalize_text(text: str) -> str:
    """Bring an answer to one spelling so that matchers compare meaning, not typing habits.

    Agents answer with full-width digits, Chinese numerals and stray whitespace; tasks store
    half-width Arabic digits. Normalising is idempotent, so callers may normalise freely.
    Non-string input gives "" rather than an error, because an answer may be missing.
    """
    if not isinstance(text, str):
        return ""
    s = unicodedata.normalize("NFKC", text).translate(_EXTRA_FOLD)
    s = _WS_RE.sub(" ", s).strip()
    if not any(ch in _NUMERAL_CHARS for ch in s):
        return s
    # 百分之五十 → 五十% before the runs are read, so the percent reads like "50%".
    s = _PERCENT_RE.sub(lambda m: m.group(1) + "%", s)
    s = _MINUS_WORD_RE.sub("-", s)
    out: list[str] = []
    pos = 0
    for m in _PROTECTED_RE.finditer(s):
        _convert_numerals(s, pos, m.start(), out)
        out.append(m.group(0))
        pos = m.end()
    _convert_numerals(s, pos, len(s), out)
    return "".join(out)


# ---------------------------------------------------------------------------------------------
# Numbers
# ---------------------------------------------------------------------------------------------

# A number stands alone: no letter, digit or "." right before it (A380 and the 12 in 2012 are not
# numbers). The sign counts only when nothing alphanumeric precedes it (03-16 is not -16).
_NUMBER_RE = re.compile(
    r"(?<![A-Za-z0-9.])(?:(?P<sign>[-+]))?(?<![A-Za-z0-9.])"
    r"(?P<body>\d{1,3}(?:,\d{3})+(?:\.\d+)?(?!\d)|\d+(?:\.\d+)?)"
)
_WHOLE_NUMBER_RE = re.compile(r"[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|[-+]?\.\d+")


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def extract_numbers(text: str) -> list[float]:
    """Every standalone number in an answer, in order, so a judge can look for the expected one.

    Chinese numerals and full-width digits count (the text is normalised first). Values that
    overflow a float are left out rather than turned into inf.
    """
    s = normalize_text(text)
    found: list[float] = []
    for m in _NUMBER_RE.finditer(s):
        try:
            value = float(m.group("body").replace(",", ""))
        except (ValueError, OverflowError):  # pragma: no cover - the regex only admits digits
            continue
        if not math.isfinite(value):
            continue
        found.append(-value if m.group("sign") == "-" else value)
    return found


def parse_number(text: str) -> float | None:
    """The value of an answer that is nothing but a number, for fields that ask for a bare number.

    " 25 ", "25.0" and "1,234" read; "25°C" and "3个" do not, because a unit means the agent
    did not fill the field the way it was asked.
    """
    s = normalize_text(text)
    if not _WHOLE_NUMBER_RE.fullmatch(s):
        return None
    try:
        return _finite(float(s.replace(",", "")))
    except (ValueError, OverflowError):  # pragma: no cover - the regex only admits digits
        return None


def _as_float(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, Real):
        return None
    try:
        return _finite(float(value))
    except (OverflowError, ValueError):
        return None


def has_close_number(text: str, expected: float, tol: float = 0.01) -> bool:
    """True when the answer mentions a number within `tol` of `expected` (a unit may follow it).

    For measured values (distances, prices after conversion) where the agent may round.
    """
    target = _as_float(expected)
    tolerance = _as_float(tol)
    if target is None or tolerance is None:
        return False
    # A hair of slack so that a tolerance of exactly 0.01 admits 3.51 for 3.5 despite binary floats.
    slack = abs(tolerance) + 1e-9 * max(1.0, abs(target))
    return any(abs(n - target) <= slack for n in extract_numbers(text))


# ---------------------------------------------------------------------------------------------
# match_value
# ---------------------------------------------------------------------------------------------

_CN_NEGATORS = (
    "没有", "尚未", "并未", "未能", "没能", "不能", "不会", "不是", "无法", "不太",
    "未", "不", "没", "无", "非",
)
# English negators must be whole words in spaced text ("not pass"); "n't" attaches to its verb.
_EN_NEGATION_RE = re.compile(r"(?:(?<![a-z])(?:not|never|no|cannot|failed to)|n['’]t)\s*$")
_EN_NEGATORS_LOOSE = ("not", "never", "no", "cannot", "failedto", "n't", "n’t")


def _as_text(actual: Any) -> str | None:
    """The answer as text: None and non-text answers (other than plain numbers) are unreadable."""
    if isinstance(actual, str):
        return actual
    if isinstance(actual, Real) and not isinstance(actual, bool):
        return str(actual)
    return None


def _negated(prefix: str, loose: bool) -> bool:
    p = prefix.rstrip()
    if p.endswith(_CN_NEGATORS):
        return True
    if loose:  # whitespace already removed: "didnotpass" still ends with "not"
        return p.endswith(_EN_NEGATORS_LOOSE)
    return bool(_EN_NEGATION_RE.search(p))


def _has_plain_hit(needle: str, haystack: str, loose: bool) -> bool:
    """Some occurrence of needle in haystack is not directly preceded by a negator."""
    start = haystack.find(needle)
    while start != -1:
        if not _negated(haystack[:start], loose):
            return True
        start = haystack.find(needle, start + 1)
    return False


def match_value(expected: Any, actual: Any) -> bool:
    """Does a free-text answer state `expected`? The type of `expected` picks the reading.

    Numbers must appear as a standalone number (25 does not contain 5). Strings are searched in
    the normalised answer, ignoring case, and a hit right after a negator (未通过, not passed)
    does not count, because "通过" in "未通过" states the opposite. Patterns search both the raw
    and the normalised answer, so a task may pin either spelling.
    """
    text = _as_text(actual)
    if text is None or not text.strip():
        return False
    if isinstance(expected, re.Pattern):
        return bool(expected.search(text) or expected.search(normalize_text(text)))
    if isinstance(expected, bool):
        # bool is an int subclass, but True is not the number 1 in an answer.
        raise TypeError("match_value: a bool is not a matchable value; compare choices as text")
    if isinstance(expected, Real):
        target = _as_float(expected)
        if target is None:
            return False
        return any(
            math.isclose(n, target, rel_tol=1e-9, abs_tol=1e-12) for n in extract_numbers(text)
        )
    if isinstance(expected, str):
        needle = normalize_text(expected).casefold()
        if not needle:
            return False  # an empty expectation would match every answer
        haystack = normalize_text(text).casefold()
        if _has_plain_hit(needle, haystack, loose=False):
            return True
        # Agents space words differently ("iPhone 15" / "iPhone15"): retry without whitespace.
        squeezed = _WS_RE.sub("", needle)
        return bool(squeezed) and _has_plain_hit(squeezed, _WS_RE.sub("", haystack), loose=True)
    raise TypeError(f"match_value: unsupported expected type {type(expected).__name__}")


# ---------------------------------------------------------------------------------------------
# Times of day
# ---------------------------------------------------------------------------------------------

_SMALL_HOURS = ("凌晨", "半夜", "深夜")
_MORNING = ("清晨", "早晨", "早上", "上午", "今早", "明早", "早")
_EVENING = ("傍晚",)
_NIGHT = ("晚上", "夜里", "夜间", "今晚", "明晚", "昨晚", "晚")

_TIME_RE = re.compile(
    r"(?:(?P<period>凌晨|半夜|深夜|清晨|早晨|早上|上午|中午|下午|傍晚|晚上|夜里|夜间|今早|明早|今晚"
    # A lone 早/晚 is a period word (早8点), but not inside 最晚/较早 ("at the latest").
    r"|明晚|昨晚|(?<![最较太很更稍过比])[早晚])\s*)?"
    # Not the minutes or seconds of a longer clock reading (12:34:56), but "到:14:30" is fine.
    r"(?<![\d.])(?<!\d:)(?P<h>\d{1,2})"
    r"(?:"
    r":(?P<cm>\d{2})(?::\d{2})?(?![\d:])"
    r"|\s*[点时](?!间)钟?"
    r"(?:\s*(?:(?P<zheng>整)|(?P<half>半)|(?P<q>[13])\s*刻|(?P<zm>\d{1,2})(?!\d)(?!\.\d)(?:\s*分钟?)?))?"
    # English hour-only times need AM/PM: "3" alone is not a time.
    r"|(?=\s*[ap]\.?\s?m(?![a-z]))"
    r")"
    # (?![a-z]) rather than \b: "12:01 AM开始" has no word boundary after the M.
    r"(?:\s*(?P<ampm>[ap])\.?\s?m(?![a-z])\.?)?",
    re.IGNORECASE,
)


def _period_hour(period: str, h: int) -> int:
    """The 24-hour hour for a clock-face hour said after a Chinese period word."""
    if h == 0 or h >= 13:
        return h  # already a 24-hour reading; the period word adds nothing
    if period in _SMALL_HOURS:
        return 0 if h == 12 else h
    if period in _MORNING:
        return h
    if period == "中午":
        # 中午1点 is 13:00 but 中午11点 is 11:00: noon spans roughly 11-14.
        return h + 12 if 1 <= h <= 5 else h
    if period == "下午" or period in _EVENING:
        return h if h == 12 else h + 12
    if period in _NIGHT:
        # 晚上12点 is midnight and 晚上1点 the small hours; 晚上8点 is 20:00.
        if h == 12:
            return 0
        return h if h <= 4 else h + 12
    return h  # pragma: no cover - every period word is listed above


def parse_times(text: str) -> list[tuple[int, int]]:
    """Every time of day the text mentions, as (hour, minute) in 24-hour form.

    A bare clock-face hour (1点10分, 十点, 9:58) yields both readings, morning first, because the
    agent did not say which. A period word, AM/PM, an hour of 0 or 12-23, or a two-digit hour
    before a colon (09:58, 10:30 — the 24-hour clock's spelling) decides.
    """
    s = normalize_text(text)
    found: list[tuple[int, int]] = []
    for m in _TIME_RE.finditer(s):
        h = int(m.group("h"))
        if m.group("cm") is not None:
            minute = int(m.group("cm"))
        elif m.group("half"):
            minute = 30
        elif m.group("q"):
            minute = 15 * int(m.group("q"))
        elif m.group("zm") is not None:
            minute = int(m.group("zm"))
        else:
            minute = 0
        if minute > 59 or h > 24 or (h == 24 and minute):
            continue
        h %= 24  # 24:00 is midnight
        ampm = (m.group("ampm") or "").lower()
        if ampm and 1 <= h <= 12:
            # 12 AM is midnight and 12 PM noon; AM/PM after 0 or 13-23 adds nothing.
            readings = [h % 12 + (12 if ampm == "p" else 0)]
        elif m.group("period"):
            readings = [_period_hour(m.group("period"), h)]
        elif 1 <= h <= 11 and (m.group("cm") is None or len(m.group("h")) == 1):
            # 9:58 or 十点 may be morning or evening; 09:58 and 10:30 are written on a 24-hour clock.
            readings = [h, h + 12]
        else:
            readings = [h]
        for hour in readings:
            if (hour, minute) not in found:
                found.append((hour, minute))
    return found


def _expected_times(expected: Any) -> list[tuple[int, int]]:
    if isinstance(expected, dt.time):
        return [(expected.hour, expected.minute)]
    if isinstance(expected, tuple) and len(expected) == 2:
        return [(int(expected[0]) % 24, int(expected[1]) % 60)]
    return parse_times(expected) if isinstance(expected, str) else []


def match_time(expected: Any, actual: Any, tolerance_minutes: int = 5) -> bool:
    """Does the answer name the expected time of day, give or take a few minutes?

    Agents read clocks off the screen and round; a few minutes either side is the same answer.
    The tolerance is inclusive and wraps at midnight (23:58 is 4 minutes from 00:02). Any time the
    answer mentions may match, and `expected` is read by the same parser as the answer.
    """
    text = _as_text(actual)
    if text is None:
        return False
    want = _expected_times(expected)
    got = parse_times(text)
    tol = _as_float(tolerance_minutes)
    if not want or not got or tol is None:
        return False
    for eh, em in want:
        for ah, am in got:
            diff = abs((eh * 60 + em) - (ah * 60 + am)) % 1440
            if min(diff, 1440 - diff) <= tol:
                return True
    return False


# ---------------------------------------------------------------------------------------------
# Durations
# ---------------------------------------------------------------------------------------------

_H_UNIT = r"(?:小时|钟头)"
_EN_H = r"(?:hours?|hrs?|h)(?![a-z])"
_EN_M = r"(?:minutes?|mins?|m)(?![a-z])"
_DURATION_RE = re.compile(
    r"(?<![\d.])(?<!\d:)(?:"
    # Compound forms first, so the 59 of 1小时59分 is never read as "59 minutes" on its own.
    rf"(?P<h>\d+(?:\.\d+)?)\s*个?\s*(?P<half1>半)?\s*{_H_UNIT}(?P<half2>半)?"
    r"(?:\s*又?\s*(?P<m>\d+)\s*分钟?(?:\s*(?P<s>\d+)\s*秒钟?)?)?"
    # 3点59分 is a clock time, but 用时59分 is a duration.
    rf"|(?<!\d[点时])(?P<m2>\d+)\s*分钟?(?:\s*(?P<s2>\d+)\s*秒钟?)?"
    r"|(?P<q>[13])\s*刻钟"
    rf"|(?P<half>半)\s*个?\s*{_H_UNIT}"
    r"|(?P<ch>\d+):(?P<cm>\d{2})(?::(?P<cs>\d{2}))?(?![\d:])"
    rf"|(?P<eh>\d+(?:\.\d+)?)\s*{_EN_H}(?:\s*,?\s*(?:and\s+)?(?P<em>\d+)\s*{_EN_M})?"
    rf"|(?P<em2>\d+)\s*(?:minutes?|mins?)(?![a-z])"
    r"|(?P<enhalf>half\s+(?:an\s+)?hour)"
    r")",
    re.IGNORECASE,
)


def _whole_minutes(hours: str | None, extra_half: bool, minutes: str | None, seconds: str | None):
    """Total minutes, or None when the span is not a whole number of minutes."""
    try:
        total = Decimal(hours or 0) * 60 + (30 if extra_half else 0) + Decimal(minutes or 0)
    except InvalidOperation:  # pragma: no cover - the regex only admits digits
        return None
    if seconds is not None and int(seconds) != 0:
        return None  # 1分30秒 is not a whole number of minutes; reading it as 1 would be wrong
    if total != total.to_integral_value():
        return None
    return int(total)


def parse_duration_minutes(text: str) -> list[int]:
    """Every duration the text mentions, in whole minutes, in order.

    Seconds alone (90秒) are not read: a minute-granular answer that is given in seconds is
    not the answer asked for. A text that is just an integer is read as minutes.
    """
    s = normalize_text(text)
    found: list[int] = []

    def add(value: int | None) -> None:
        if value is not None and value not in found:
            found.append(value)

    if re.fullmatch(r"\d+", s):
        add(int(s))
        return found
    for m in _DURATION_RE.finditer(s):
        if m.group("h") is not None:
            half = bool(m.group("half1") or m.group("half2"))
            add(_whole_minutes(m.group("h"), half, m.group("m"), m.group("s")))
        elif m.group("m2") is not None:
            add(_whole_minutes(None, False, m.group("m2"), m.group("s2")))
        elif m.group("q") is not None:
            add(15 * int(m.group("q")))
        elif m.group("half") or m.group("enhalf"):
            add(30)
        elif m.group("ch") is not None:
            if int(m.group("cm")) < 60 and (m.group("cs") is None or int(m.group("cs")) == 0):
                add(int(m.group("ch")) * 60 + int(m.group("cm")))
        elif m.group("eh") is not None:
            add(_whole_minutes(m.group("eh"), False, m.group("em"), None))
        elif m.group("em2") is not None:
            add(int(m.group("em2")))
    return found


def match_duration(expected: Any, actual: Any) -> bool:
    """Does the answer state the expected duration, in any of the usual spellings?

    Both sides are reduced to whole minutes and compared exactly: durations are read off a
    screen, so a minute off is a misreading. `expected` may also be minutes or a timedelta.
    """
    text = _as_text(actual)
    if text is None:
        return False
    if isinstance(expected, dt.timedelta):
        seconds = expected.total_seconds()
        want = [int(seconds // 60)] if seconds % 60 == 0 else []
    elif isinstance(expected, int) and not isinstance(expected, bool):
        want = [expected]
    elif isinstance(expected, str):
        want = parse_duration_minutes(expected)
    else:
        want = []
    got = parse_duration_minutes(text)
    return any(w in got for w in want)


# ---------------------------------------------------------------------------------------------
# Dates
# ---------------------------------------------------------------------------------------------

_MONTHS = {
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6,
    "jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12,
}
_MONTH_RE = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_WEEKDAYS_EN = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_WEEKDAY_CN = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
_RELATIVE_DAYS = {
    "大前天": -3, "前天": -2, "昨天": -1, "昨日": -1, "今天": 0, "今日": 0,
    "明天": 1, "明日": 1, "后天": 2, "大后天": 3,
    "day before yesterday": -2, "yesterday": -1, "today": 0, "tomorrow": 1,
    "day after tomorrow": 2,
}
_WEEK_SHIFT = {
    "上上": -2, "上": -1, "上个": -1, "这": 0, "这个": 0, "本": 0, "下": 1, "下个": 1, "下下": 2,
    "last": -1, "this": 0, "next": 1,
}
_DATE_RE = re.compile(
    r"(?<!\d)(?P<y>\d{4})\s*(?:[-/.]\s*(?P<ym>\d{1,2})\s*[-/.]\s*(?P<yd>\d{1,2})(?![\d.])"
    r"|年\s*(?P<cym>\d{1,2})\s*月\s*(?P<cyd>\d{1,2})\s*[日号]?)"
    r"|(?<![\d/])(?P<um>\d{1,2})/(?P<ud>\d{1,2})/(?P<uy>\d{4})(?!\d)"
    r"|(?<![\d.])(?P<cm>\d{1,2})\s*月\s*(?P<cd>\d{1,2})(?!\d)\s*[日号]?"
    r"|(?<![\d/.])(?<!\d[:-])(?P<nm>\d{1,2})[-/](?P<nd>\d{1,2})(?![\d/])(?![.:-]\d)"
    r"|(?<![\d月.])(?P<dd>\d{1,2})\s*[日号](?!\d)"
    rf"|(?<![a-z])(?P<emon>{_MONTH_RE})\.?\s*(?P<eday>\d{{1,2}})(?:st|nd|rd|th)?(?!\d)"
    r"(?:\s*,?\s*(?P<eyear>\d{4})(?!\d))?"
    rf"|(?<![\d.])(?P<dday>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<dmon>{_MONTH_RE})(?![a-z])\.?"
    r"(?:\s*,?\s*(?P<dyear>\d{4})(?!\d))?"
    r"|(?P<rel>大前天|前天|昨天|昨日|今天|今日|明天|明日|大后天|后天"
    r"|(?<![a-z])(?:(?:the\s+)?day\s+before\s+yesterday|(?:the\s+)?day\s+after\s+tomorrow"
    r"|yesterday|today|tomorrow)(?![a-z]))"
    r"|(?P<wmod>上上|上个|(?<![晚早])上|这个|这|本|下下|下个|下)?\s*(?:周|星期|礼拜)(?P<wd>[一二三四五六日天1-7])"
    rf"|(?<![a-z])(?:(?P<ewmod>next|this|last)\s+)?(?P<ewd>{'|'.join(_WEEKDAYS_EN)})(?![a-z])",
    re.IGNORECASE,
)
_DEFAULT_ZONE = "Asia/Shanghai"


def _now_date(os_state: Any) -> dt.date | None:
    """Today's date in the simulated device's zone, or None when the state does not say."""
    if not isinstance(os_state, dict):
        return None
    raw = os_state.get("time")
    if isinstance(raw, dict):
        raw = raw.get("timestamp")
    ms = _as_float(raw)
    zone_name = os_state.get("timezone") or _DEFAULT_ZONE
    if ms is None or not isinstance(zone_name, str):
        return None
    try:
        zone = ZoneInfo(zone_name)
        return dt.datetime.fromtimestamp(ms / 1000, tz=zone).date()
    except (ZoneInfoNotFoundError, ValueError, OSError, OverflowError):
        # An unknown zone or an absurd timestamp: better no "now" than a wrong one.
        return None


def _nearest(candidates: list[dt.date], now: dt.date) -> dt.date | None:
    # On a tie, the later date wins: answers point forward more often than back.
    return min(candidates, key=lambda d: (abs((d - now).days), -d.toordinal()), default=None)


def _safe_date(y: int, m: int, d: int) -> dt.date | None:
    try:
        return dt.date(y, m, d)
    except ValueError:
        return None


def _add_months(year: int, month: int, delta: int) -> tuple[int, int]:
    index = year * 12 + (month - 1) + delta
    return index // 12, index % 12 + 1


def _resolve(m: re.Match, now: dt.date | None, ref: dt.date | None) -> dt.date | None:
    """The date one match names: relative forms need `now`; year-less ones use now or `ref`."""
    g = m.groupdict()
    try:
        if g["y"]:
            month, day = (g["ym"], g["yd"]) if g["ym"] else (g["cym"], g["cyd"])
            return _safe_date(int(g["y"]), int(month), int(day))
        if g["uy"]:
            return _safe_date(int(g["uy"]), int(g["um"]), int(g["ud"]))
        if g["emon"] or g["dmon"]:
            mon = _MONTHS[(g["emon"] or g["dmon"])[:3].lower()]
            day = int(g["eday"] or g["dday"])
            year = g["eyear"] or g["dyear"]
            if year:
                return _safe_date(int(year), mon, day)
            return _month_day(mon, day, now, ref)
        if g["cm"] or g["nm"]:
            return _month_day(int(g["cm"] or g["nm"]), int(g["cd"] or g["nd"]), now, ref)
        if g["dd"]:
            day = int(g["dd"])
            if now is not None:
                months = [_add_months(now.year, now.month, k) for k in (-1, 0, 1)]
                return _nearest([d for y, mo in months if (d := _safe_date(y, mo, day))], now)
            return _safe_date(ref.year, ref.month, day) if ref else None
        if now is None:
            return None  # relative words cannot be resolved without a simulated now
        if g["rel"]:
            key = _WS_RE.sub(" ", g["rel"].lower()).removeprefix("the ")
            return now + dt.timedelta(days=_RELATIVE_DAYS[key])
        if g["wd"]:
            wd = _WEEKDAY_CN.get(g["wd"])
            weekday = wd if wd is not None else int(g["wd"]) - 1
            return _weekday(weekday, g["wmod"], now)
        if g["ewd"]:
            mod = g["ewmod"].lower() if g["ewmod"] else None
            return _weekday(_WEEKDAYS_EN.index(g["ewd"].lower()), mod, now)
    except (OverflowError, ValueError):
        return None  # dates beyond year 1..9999
    return None  # pragma: no cover - every branch of the regex is handled above


def _month_day(month: int, day: int, now: dt.date | None, ref: dt.date | None) -> dt.date | None:
    if now is not None:
        years = (now.year - 1, now.year, now.year + 1)
        return _nearest([d for y in years if (d := _safe_date(y, month, day))], now)
    return _safe_date(ref.year, month, day) if ref else None


def _weekday(weekday: int, modifier: str | None, now: dt.date) -> dt.date:
    if modifier is None:
        # A bare weekday is the next one on or after today.
        return now + dt.timedelta(days=(weekday - now.weekday()) % 7)
    monday = now - dt.timedelta(days=now.weekday())
    return monday + dt.timedelta(days=7 * _WEEK_SHIFT[modifier] + weekday)


def _date_matches(text: str) -> list[re.Match]:
    return list(_DATE_RE.finditer(normalize_text(text)))


def parse_dates(text: str, os_state: Any = None) -> list[dt.date]:
    """Every date the text mentions, resolved against the simulated now in `os_state`.

    Without a readable now, only dates that carry their year can be resolved; the rest are left
    out rather than guessed from the judging machine's clock.
    """
    now = _now_date(os_state)
    found: list[dt.date] = []
    for m in _date_matches(text):
        d = _resolve(m, now, None)
        if d is not None and d not in found:
            found.append(d)
    return found


def _expected_date(expected: Any, now: dt.date | None) -> dt.date | None:
    if isinstance(expected, dt.datetime):
        return expected.date()
    if isinstance(expected, dt.date):
        return expected
    if not isinstance(expected, str):
        return None
    try:
        return dt.date.fromisoformat(expected.strip())
    except ValueError:
        resolved = [d for m in _date_matches(expected) if (d := _resolve(m, now, None))]
        return resolved[0] if len(set(resolved)) == 1 else None


def match_date(expected: Any, actual: Any, os_state: Any = None) -> bool:
    """Does the answer name the expected calendar date, in any absolute or relative form?

    Relative words (明天, 下周三, tomorrow) are resolved against the simulated now and zone in
    `os_state`, never the judging machine's clock, so re-judging old runs gives the same verdict.
    Any date the answer mentions may match.
    """
    text = _as_text(actual)
    if text is None:
        return False
    now = _now_date(os_state)
    want = _expected_date(expected, now)
    if want is None:
        return False
    return any(_resolve(m, now, want) == want for m in _date_matches(text))


# ---------------------------------------------------------------------------------------------
# AnswerSheet fields
# ---------------------------------------------------------------------------------------------

_MATCHERS = ("exact", "number", "date", "time", "duration")
_DATE_FILLER_RE = re.compile(r"[\s,.;:()/、，。；（）-]*")


def _whole_answer_is_date(expected: Any, text: str, os_state: Any) -> bool:
    """The field holds date expressions only, and each names the expected date."""
    s = normalize_text(text)
    now = _now_date(os_state)
    want = _expected_date(expected, now)
    if want is None:
        return False
    matches = list(_DATE_RE.finditer(s))
    if not matches:
        return False
    pos = 0
    for m in matches:
        # Only filler (spaces, punctuation) may sit between or around the dates: "3月16日 周日".
        if not _DATE_FILLER_RE.fullmatch(s, pos, m.start()):
            return False
        if _resolve(m, now, want) != want:
            return False
        pos = m.end()
    return bool(_DATE_FILLER_RE.fullmatch(s, pos))


def match_field(matcher: str, expected: Any, actual: Any, os_state: Any = None) -> bool:
    """Judge one AnswerSheet field, where the agent typed just the value into a box.

    Unlike `match_value`, `number` and `date` require the whole field to be the value: a field
    is a form, and "3个" in a number box is a malformed answer. An unknown matcher name is a bug
    in the task and raises ValueError.
    """
    if matcher not in _MATCHERS:
        raise ValueError(f"unknown matcher {matcher!r}; expected one of {', '.join(_MATCHERS)}")
    text = _as_text(actual)
    if text is None:
        return False
    if matcher == "exact":
        want = expected if isinstance(expected, str) else _as_text(expected)
        return want is not None and normalize_text(want) == normalize_text(text)
    if matcher == "number":
        want = _as_float(expected)
        if want is None and isinstance(expected, str):
            want = parse_number(expected)
        got = parse_number(text)
        return (
            want is not None
            and got is not None
            and math.isclose(got, want, rel_tol=1e-6, abs_tol=1e-9)
        )
    if matcher == "date":
        return _whole_answer_is_date(expected, text, os_state)
    if matcher == "time":
        return match_time(expected, text)
    return match_duration(expected, text)


def _bipartite_complete(n: int, fits) -> bool:
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


def match_repeatable(
    matcher: str,
    compare: str,
    expected_list: Any,
    actual_list: Any,
    os_state: Any = None,
) -> bool:
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
        return all(
            match_field(matcher, e, a, os_state) for e, a in zip(expected_list, actual_list)
        )
    if matcher == "exact":
        texts = [_as_text(a) for a in actual_list]
        wants = [e if isinstance(e, str) else _as_text(e) for e in expected_list]
        if any(t is None for t in texts) or any(w is None for w in wants):
            return False
        return Counter(map(normalize_text, wants)) == Counter(map(normalize_text, texts))
    n = len(expected_list)
    table = [
        [match_field(matcher, expected_list[e], actual_list[a], os_state) for a in range(n)]
        for e in range(n)
    ]
    return _bipartite_complete(n, lambda e, a: table[e][a])
