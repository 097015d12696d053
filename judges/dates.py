"""Calendar dates in folded text: the tokenizer's calendar. Pure; "now" is always passed in.

* Weeks start on Monday. 这周X/本周X is day X of the current week (it may be past), 下周X the same
  day one week later, 下下周X two weeks later, 上周X one week earlier. A bare 周X / 星期X /
  weekday name is the next occurrence on or after today (answers about forecasts and schedules
  point forward; today counts). 一周 (a week) is not 周一: a weekday needs no numeral before 周.
* A list of days after one month names each: 4月5、6、9日 and April 5, 6 and 9 are three dates
  (and April 6th or 7th two, offered as alternatives).
* Year-less dates (3月16日, March 16, 03-16, 3/16) resolve to the occurrence nearest to "now",
  so near the turn of the year 1月2日 said on Dec 30 means the coming January. A bare day (16号)
  is the nearest such day in the previous, current or next month. Month and day keep their order:
  4月5日 is April 5, never May 4. A dash date needs two digits on each side (04-05), because
  "5-6个" is a range of counts.
* A count of days is no date: 未来7日, 近3日, 7日内 name no day of the month.
* English weekdays are named in full or abbreviated with a capital (Mon, Tue., Thurs).
* Relative words: 今天/明天/后天/大后天/昨天/前天, 明晚/明早/今晚 (their day), N天后, 下个月5号,
  today/tomorrow/yesterday, in N days, N days later, next/last Monday (weeks from Monday), and
  "this Monday", which is the next Monday on or after today like a bare weekday (English speakers
  do not say "this Saturday" on a Sunday for the day before).
* Without a "now", relative words cannot be resolved; year-less forms are read in the expected
  date's year (and a bare day in its month), because then the answer stated correctly everything
  it stated.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from numbers import Real
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

__all__ = ["find_dates", "resolve", "now_date", "expected_date", "expected_month_day", "DEFAULT_ZONE"]

DEFAULT_ZONE = "Asia/Shanghai"
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
    "大前天": -3, "前天": -2, "昨天": -1, "昨日": -1, "昨晚": -1, "昨儿": -1,
    "今天": 0, "今日": 0, "今晚": 0, "今早": 0, "今晨": 0, "今儿": 0,
    "明天": 1, "明日": 1, "明晚": 1, "明早": 1, "明晨": 1, "明儿": 1, "后天": 2, "大后天": 3,
    "day before yesterday": -2, "yesterday": -1, "today": 0, "tonight": 0, "tomorrow": 1,
    "day after tomorrow": 2,
}
_WEEK_SHIFT = {
    "上上": -2, "上": -1, "上个": -1, "这": 0, "这个": 0, "本": 0, "下": 1, "下个": 1, "下下": 2,
    "last": -1, "this": 0, "next": 1,
}
_MONTH_SHIFT = {"上": -1, "这": 0, "本": 0, "下": 1}
_REL_WORDS = "|".join(sorted((k for k in _RELATIVE_DAYS if not k.isascii()), key=len, reverse=True))
# Characters that make 一 after 周/星期 part of a word (一周一直, 星期一样), not Monday.
_NOT_WEEKDAY_TAIL = "直样起些定般共切致同向律再概番贯味并齐丝整"

_DATE_RE = re.compile(
    r"(?<!\d)(?P<y>\d{4})\s*(?:[-/.]\s*(?P<ym>\d{1,2})\s*[-/.]\s*(?P<yd>\d{1,2})(?!\d|\.\d)"
    r"|年\s*(?P<cym>\d{1,2})\s*月\s*(?P<cyd>\d{1,2})\s*[日号]?)"
    r"|(?<![\d/])(?P<um>\d{1,2})/(?P<ud>\d{1,2})/(?P<uy>\d{4})(?!\d)"
    r"|(?<![\d.])(?P<cm>\d{1,2})\s*月\s*(?P<cd>\d{1,2})(?!\d)\s*[日号]?"
    # 4/10 is a date; 23/15 (a high and a low) is none, nor 10-11个 or 3/4步 (counts, readings).
    r"|(?<![\d/.])(?<!\d:)(?P<nm>1[0-2]|0?[1-9])/(?P<nd>3[01]|[12]\d|0?[1-9])(?![\d/])(?![.:]\d)(?!\s*[个次件台条项种名位人只步度%°℃])"
    r"|(?<![\d/.-])(?<!\d:)(?P<dm>\d{2})-(?P<dd2>\d{2})(?![\d/-])(?![.:]\d)(?!\s*[个次件台条项种名位人只步度%°℃])"
    r"|(?P<mshift>上|这|本|下)个?月\s*(?P<msd>\d{1,2})\s*[日号]"
    # 16号, 5日 — but not the minutes of 6点40日出 (sunrise), nor 3号线 (a metro line).
    # 未来7日, 近3日, 7日内 count days: they name no day of the month.
    r"|(?<![\d月.:点])(?<!未来)(?<!过去)(?<!最近)(?<!连续)(?<!近)(?<!共)(?<!每)(?<!未来\s)(?<!过去\s)(?<!最近\s)"
    r"(?P<dd>[12]?\d|3[01])\s*[日号](?!\d)(?![线楼店门位口厅馆床车站台机落]|出(?!发))(?!\s*(?:内|以内|之内|里|以来|之间))"
    rf"|(?<![a-z])(?P<emon>{_MONTH_RE})\.?\s*(?P<eday>\d{{1,2}})(?:st|nd|rd|th)?(?!\d)"
    r"(?:\s*,?\s*(?P<eyear>\d{4})(?!\d))?"
    rf"|(?<![\d.])(?:the\s+)?(?P<dday>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<dmon>{_MONTH_RE})(?![a-z])\.?"
    r"(?:\s*,?\s*(?P<dyear>\d{4})(?!\d))?"
    r"|(?P<reln>\d{1,3})\s*[天日]\s*(?:以后|之后|后)"
    r"|(?<![a-z])(?:in\s+(?P<enin>\d{1,3})\s+days?|(?P<enlater>\d{1,3})\s+days?\s+(?:later|from\s+now))(?![a-z])"
    rf"|(?P<rel>{_REL_WORDS}"
    r"|(?<![a-z])(?:(?:the\s+)?day\s+before\s+yesterday|(?:the\s+)?day\s+after\s+tomorrow"
    r"|yesterday|today|tonight|tomorrow)(?![a-z]))"
    r"|(?P<wmod>上上|上个|(?<![晚早])上|这个|这|本|下下|下个|下)?\s*"
    r"(?<![一二两三四五六七八九十\d])(?:周|星期|礼拜)(?P<wd>[一二三四五六日天1-7])"
    rf"(?![{_NOT_WEEKDAY_TAIL}\d])"
    # Weekday names, and their capitalised abbreviations (Mon, Tue., Thurs): "sun" and "sat"
    # in lower case are words.
    rf"|(?<![a-z])(?:(?P<ewmod>next|this|last)\s+)?(?P<ewd>{'|'.join(_WEEKDAYS_EN)}"
    r"|(?-i:Mon|Tues?|Wed|Thu(?:rs?)?|Fri|Sat|Sun|MON|TUE|WED|THU|FRI|SAT|SUN)(?![a-z])\.?)(?![a-z])",
    re.IGNORECASE,
)


def _as_float(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, Real):
        return None
    try:
        f = float(value)
    except (OverflowError, ValueError):
        return None
    return f if math.isfinite(f) else None


def now_date(os_state: Any) -> dt.date | None:
    """Today's date in the simulated device's zone, or None when the state does not say."""
    if not isinstance(os_state, dict):
        return None
    raw = os_state.get("time")
    if isinstance(raw, dict):
        raw = raw.get("timestamp")
    ms = _as_float(raw)
    zone_name = os_state.get("timezone") or DEFAULT_ZONE
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


def resolve(m: re.Match[str], now: dt.date | None, ref: dt.date | None = None) -> dt.date | None:
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
        if g["cm"] or g["nm"] or g["dm"]:
            month = int(g["cm"] or g["nm"] or g["dm"])
            return _month_day(month, int(g["cd"] or g["nd"] or g["dd2"]), now, ref)
        if g["dd"]:
            day = int(g["dd"])
            if now is not None:
                months = [_add_months(now.year, now.month, k) for k in (-1, 0, 1)]
                return _nearest([d for y, mo in months if (d := _safe_date(y, mo, day))], now)
            return _safe_date(ref.year, ref.month, day) if ref else None
        if now is None:
            return None  # relative words cannot be resolved without a simulated now
        if g["mshift"]:
            y, mo = _add_months(now.year, now.month, _MONTH_SHIFT[g["mshift"]])
            return _safe_date(y, mo, int(g["msd"]))
        if g["reln"] or g["enin"] or g["enlater"]:
            return now + dt.timedelta(days=int(g["reln"] or g["enin"] or g["enlater"]))
        if g["rel"]:
            key = re.sub(r"\s+", " ", g["rel"].lower()).removeprefix("the ")
            return now + dt.timedelta(days=_RELATIVE_DAYS[key])
        if g["wd"]:
            wd = _WEEKDAY_CN.get(g["wd"])
            weekday = wd if wd is not None else int(g["wd"]) - 1
            return _weekday(weekday, g["wmod"], now)
        if g["ewd"]:
            mod = g["ewmod"].lower() if g["ewmod"] else None
            # English "this Saturday" said on a Sunday is the coming Saturday, not the day before:
            # like a bare weekday, it is the next one on or after today.
            mod = None if mod == "this" else mod
            day = g["ewd"].lower()[:3]
            return _weekday(next(i for i, w in enumerate(_WEEKDAYS_EN) if w.startswith(day)), mod, now)
    except (OverflowError, ValueError):
        return None  # dates beyond year 1..9999
    return None  # pragma: no cover - every branch of the regex is handled above


def month_day(m: re.Match[str]) -> tuple[int | None, int, int] | None:
    """(year or None, month, day) as written, for comparing dates without a now."""
    g = m.groupdict()
    if g["y"]:
        month, day = (g["ym"], g["yd"]) if g["ym"] else (g["cym"], g["cyd"])
        return int(g["y"]), int(month), int(day)
    if g["uy"]:
        return int(g["uy"]), int(g["um"]), int(g["ud"])
    if g["emon"] or g["dmon"]:
        year = g["eyear"] or g["dyear"]
        return (int(year) if year else None), _MONTHS[(g["emon"] or g["dmon"])[:3].lower()], int(g["eday"] or g["dday"])
    if g["cm"] or g["nm"] or g["dm"]:
        return None, int(g["cm"] or g["nm"] or g["dm"]), int(g["cd"] or g["nd"] or g["dd2"])
    return None


# A list of days after one month: 4月5、6、9日, 4月5日、6日和9日, April 5, 6 and 9.
_MORE_DAY_RE = re.compile(r"\s*(?:、|,|和|及|与|以及|或者|或|还是|(?<![a-z])(?:and|or)(?![a-z])|&)\s*(?P<day>\d{1,2})(?!\d)(?:st|nd|rd|th)?", re.IGNORECASE)
_DAY_END_RE = re.compile(r"\s*[日号]")
_EN_DAY_END_RE = re.compile(r"\s*(?:$|[.;!?。]|,(?!\s*\d)|\s+[a-z])", re.IGNORECASE)


def _listed_days(s: str, m: re.Match[str]) -> list[tuple[int, int, re.Match[str]]]:
    """The days listed after a month-day date, each as a date match of its own."""
    month = int(m.group("cm")) if m.group("cm") else _MONTHS[m.group("emon")[:3].lower()]
    english = m.group("emon") is not None
    items: list[tuple[int, int, int]] = []
    pos = m.end()
    while (nxt := _MORE_DAY_RE.match(s, pos)) is not None:
        items.append((nxt.start("day"), nxt.end(), int(nxt.group("day"))))
        pos = nxt.end()
    # The list must close as a list of days: on 日/号 (4月5、6、9日), or in English at the end
    # of the clause. "4月5日，6度" lists no day.
    end = _DAY_END_RE.match(s, pos)
    if end is None and not (english and items and _EN_DAY_END_RE.match(s, pos)):
        return []
    out = []
    for i, (a, b, day) in enumerate(items):
        if i == len(items) - 1 and end is not None:
            b = end.end()
        one = _DATE_RE.fullmatch(f"{month}月{day}日")
        if one is None or _safe_date(2000, month, day) is None:
            return []
        out.append((a, b, one))
    return out


def find_dates(s: str) -> list[tuple[int, int, re.Match[str]]]:
    """Every date expression in folded text: (start, end, match); resolve it with `resolve`."""
    out = []
    for m in _DATE_RE.finditer(s):
        start = m.start()
        while start < m.end() and s[start].isspace():
            start += 1
        if start < m.end():
            out.append((start, m.end(), m))
    listed = []
    for _, _, m in out:
        if (m.group("cm") and not re.search(r"[日号]\s*$", m.group(0))) or m.group("emon"):
            listed += _listed_days(s, m)
    if listed:
        out = [o for o in out if not any(a < o[1] and o[0] < b for a, b, _ in listed)] + listed
        out.sort(key=lambda o: o[0])
    return out


def expected_date(expected: Any, now: dt.date | None) -> dt.date | None:
    """The date a task expects: a date, a datetime, an ISO string or one date expression."""
    if isinstance(expected, dt.datetime):
        return expected.date()
    if isinstance(expected, dt.date):
        return expected
    if not isinstance(expected, str):
        return None
    try:
        return dt.date.fromisoformat(expected.strip())
    except ValueError:
        from .numerals import fold

        resolved = [d for _, _, m in find_dates(fold(expected)) if (d := resolve(m, now, None))]
        return resolved[0] if len(set(resolved)) == 1 else None


def expected_month_day(expected: Any) -> tuple[int, int] | None:
    """The (month, day) of an expected date written without its year ("4月6日", "04-06"), for
    judging without a simulated now: two identical year-less dates agree whatever the year."""
    if not isinstance(expected, str):
        return None
    from .numerals import fold

    found = {md for _, _, m in find_dates(fold(expected)) if (md := month_day(m)) is not None}
    if len(found) != 1:
        return None
    year, month, day = found.pop()
    return (month, day) if year is None and _safe_date(2000, month, day) is not None else None


def same_month_day(m: re.Match[str], want: tuple[int, int]) -> bool:
    """Does a date match name that month and day, whatever its year?"""
    md = month_day(m)
    return md is not None and md[1:] == want
