"""Times of day and durations in folded text (``judges.numerals.fold``): the tokenizer's clock.

Each finder returns ``(start, end, value)`` spans in the folded text; ``judges.tokens`` marks
them (negated, hedged, approximate) and the matchers read them. Rules:

* A clock-face hour 1-12 with no period word (上午, 下午, AM, PM …) reads both ways: 1点10分 and
  1:10 are 01:10 and 13:10, 10:50 is 10:50 and 22:50, 12:30 is 12:30 and 00:30. An hour written
  with its leading zero (01:10, 09:58) is the 24-hour clock's spelling and decides, as do 13:10
  and 下午1点10分; in a text that writes one such hour (10:00-次日02:00, 7:00、14:30), a bare
  10:00-12:59 keeps the 24-hour reading too.
* Period words come before the time, or after an H:MM as clock screens write it (6:40 下午).
  凌晨 is the small hours (凌晨12点 = 00:00); 深夜/半夜/午夜/夜里 are the night (深夜11点 =
  23:00, 半夜2点 = 02:00, 半夜12点 = 00:00); 晚上 is the evening until 4 (晚上1点 = 01:00,
  晚上8点 = 20:00); 中午 is 11-13 (中午1点 = 13:00); 下午/傍晚 add 12. 正午 and noon alone are
  12:00, 午夜 and midnight alone 00:00. 今晚/明早/昨晚 … are period words too (今晚8点 = 20:00).
* "h" separates hours and minutes as a colon does: 14h30 is 14:30, 7h30 07:30 or 19:30 (1h30m
  and 1h30min are durations; a bare 1h30 is read both ways, as 2:15 is).
* 差 forms: 差5分8点 and 8点差5分 are 7:55, 差一刻9点 is 8:45. English: quarter past 8, half past
  7, ten to nine, 7 o'clock, 7.30 pm (a dot only with am/pm), and an English period said first
  (tonight at 8 = 20:00, tomorrow morning at 6:40, this evening 7:30).
* Durations are whole minutes: 1小时30分, 90分钟, 1.5小时, 一个半小时, 半小时, 一刻钟, 两刻钟 (30), 三刻钟, 2:15, 1h30m,
  1h30, 2 hours 15 minutes, an hour and a half, an hour and a quarter, 2 and a half hours,
  half an hour, 1小时40 (bare minutes after the hours). Seconds count only as whole minutes
  (240秒 = 4 minutes; 90秒 is not read);
  1分30秒 is not a whole number of minutes and is left out. 3点59分 is a time, not 59 minutes.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from . import lexicon as L

__all__ = ["find_times", "find_durations", "period_hour"]

Reading = tuple[int, int]

_PERIOD = "|".join(
    sorted((w for w in L.PERIOD_WORDS if w not in ("早", "晚")), key=len, reverse=True)
)
# A lone 早/晚 is a period word (早8点), but not inside 最晚/较早 ("at the latest").
_PERIOD_RE = rf"(?P<period>{_PERIOD}|(?<![最较太很更稍过比提])[早晚])"
_AMPM = r"(?:\s*(?P<ampm>[ap])\.?\s?m(?![a-z])\.?|\s*(?P<noon>noon)(?![a-z])|\s*(?P<midnight>midnight)(?![a-z]))"
_EN_PERIOD = r"(?:\s*(?P<enp>in\s+the\s+(?:morning|afternoon|evening)|at\s+night|tonight))"

_TAIL = rf"{_AMPM}?{_EN_PERIOD}?"
# Four shapes, scanned separately and merged (earliest, then longest, wins).
_CHA_RE = re.compile(  # 差5分8点, 差1刻9点: the minutes before the hour
    rf"(?:{_PERIOD_RE}\s*)?差\s*(?:(?P<bm>\d{{1,2}})\s*分钟?|(?P<bq>[123])\s*刻钟?)\s*(?P<bh>\d{{1,2}})\s*[点时]钟?{_TAIL}",
    re.IGNORECASE,
)
_EN_RE = re.compile(  # quarter past 8, ten to nine (number words are digits after folding)
    r"(?:(?<![a-z\d])(?P<emin>\d{1,2}|quarter|half|a\s+quarter)(?:\s+minutes?)?\s+(?:past|after)\s+(?P<ehour>\d{1,2})(?![\d:])"
    # "X to Y" is a clock reading only for the usual minute counts: "from 9 to 5" is a range.
    r"|(?<![a-z\d])(?<!from\s)(?<!between\s)(?P<tmin>5|10|20|25|quarter|a\s+quarter)(?:\s+minutes?)?\s+(?:to|before)\s+"
    r"(?P<thour>\d{1,2})(?![\d:]))"
    # The period after either shape: half past two in the afternoon is 14:30.
    rf"(?:\s*o['’]?\s?clock)?{_TAIL}",
    re.IGNORECASE,
)
# English period first: "tonight at 8", "tomorrow morning at 6:40", "this evening 7:30".
_EN_PRE_RE = re.compile(
    r"(?<![a-z])(?P<enp>tonight|(?:this|tomorrow|yesterday)\s+(?:morning|afternoon|evening|night)"
    r"|in\s+the\s+(?:morning|afternoon|evening))\s*,?\s*"
    # "at 8" or a clock (8:30): "tonight 3 alarms are on" holds no time.
    rf"(?:(?:at|around|about|by)\s+(?P<ph>\d{{1,2}})(?::(?P<pmin>\d{{2}}))?|(?P<ph2>\d{{1,2}}):(?P<pmin2>\d{{2}}))"
    rf"(?![\d:.]){_AMPM}?",
    re.IGNORECASE,
)
_LONE_RE = re.compile(  # noon and midnight on their own
    r"(?P<lone>正午|午夜)(?!\s*\d)|(?<![a-z\d])(?<!\d\s)(?P<enlone>noon|midnight)(?![a-z])", re.IGNORECASE
)
_MAIN_RE = re.compile(  # 14:30, 下午2点30分, 2点半, 3点1刻, 8点差5分, 3 pm, 7 o'clock, 7.30 pm
    rf"(?:{_PERIOD_RE}\s*)?"
    r"(?<![\d.])(?<!\d:)(?P<h>\d{1,2})"
    r"(?:"
    r":(?P<cm>\d{2})(?::\d{2})?(?![\d:])"
    # A clock screen writes the period after the time (6:40 下午); not when it starts the next one.
    r"(?:\s*(?P<period2>上午|下午|早上|晚上|凌晨|中午)(?!\s*\d))?"
    r"|\s*[点时](?!间)钟?"
    r"(?:\s*(?:(?P<zheng>整)|(?P<half>半)|(?P<q>[123])\s*刻(?!钟)|差\s*(?:(?P<chm>\d{1,2})\s*分钟?|(?P<chq>[123])\s*刻)"
    r"|(?P<zm>\d{1,2})(?!\d)(?!\.\d)(?:\s*分钟?)?))?"
    r"|\.(?P<dm>\d{2})(?=\s*[ap]\.?\s?m(?![a-z]))"
    # 14h30, 7h30: "h" as the hours separator (1h30m and 1h30min are durations only); a full
    # stop after it ends the sentence ("at 23h50.").
    r"|h(?P<hm>[0-5]\d)(?![\d:])(?!\.\d)(?!\s*(?:m|mins?|minutes?)(?![a-z]))"
    # English hour-only times need AM/PM or o'clock: "3" alone is not a time.
    r"|(?=\s*(?:[ap]\.?\s?m|noon|midnight)(?![a-z]))"
    r"|(?=\s*(?:in\s+the\s+(?:morning|afternoon|evening)|at\s+night|tonight)(?![a-z]))"
    r"|\s*o['’]?\s?clock"
    r")"
    # (?![a-z]) rather than \b: "12:01 AM开始" has no word boundary after the M.
    + _TAIL,
    re.IGNORECASE,
)


_CLOCK_RE = re.compile(r"\d{1,2}:\d{2}(?::\d{2})?")


def _group(m: re.Match[str], name: str) -> str | None:
    return m.groupdict().get(name)


def period_hour(period: str, h: int) -> int:
    """The 24-hour hour for a clock-face hour said after a Chinese period word."""
    if h == 0 or h >= 13:
        return h  # already a 24-hour reading; the period word adds nothing
    if period in L.SMALL_HOURS:
        return 0 if h == 12 else h
    if period in L.NIGHT_HOURS:
        # 深夜11点 is 23:00, 半夜2点 is 02:00, 半夜12点 midnight.
        if h == 12:
            return 0
        return h if h <= 5 else h + 12
    if period in L.MORNING:
        return h
    if period in L.NOON:
        # 中午1点 is 13:00 but 中午11点 is 11:00: noon spans roughly 11-14.
        return h + 12 if 1 <= h <= 5 else h
    if period in L.AFTERNOON or period in L.EVENING:
        return h if h == 12 else h + 12
    # 晚上12点 is midnight and 晚上1点 the small hours; 晚上8点 is 20:00.
    if h == 12:
        return 0
    return h if h <= 4 else h + 12


def _en_period_hour(enp: str, h: int) -> int:
    enp = enp.lower()
    if "morning" in enp:
        return 0 if h == 12 else h
    if "afternoon" in enp or "evening" in enp:
        return h if h == 12 else h + 12
    return period_hour("晚上", h)  # at night, tonight


def _readings(h: int, minute: int, m: re.Match[str], *, colon: bool, padded: bool) -> list[Reading]:
    ampm = (_group(m, "ampm") or "").lower()
    if _group(m, "noon"):
        ampm = "p"
    elif _group(m, "midnight"):
        ampm = "a"
    if ampm and 1 <= h <= 12:
        # 12 AM is midnight and 12 PM noon; AM/PM after 0 or 13-23 adds nothing.
        return [(h % 12 + (12 if ampm == "p" else 0), minute)]
    if _group(m, "period2") == "上午" and h == 12:
        return [(0, minute)]  # a clock screen's "12:30 上午" is its 12:30 AM, half past midnight
    period = _group(m, "period") or _group(m, "period2")
    if period:
        return [(period_hour(period, h), minute)]
    enp = _group(m, "enp")
    if enp:
        return [(_en_period_hour(enp, h) if 1 <= h <= 12 else h, minute)]
    if 1 <= h <= 12 and not (colon and padded):
        # 9:58, 10:50 or 十点 may be morning or evening, 12:30 noon or midnight; 09:58 (a hour
        # written with its leading zero) is the 24-hour clock's spelling.
        return [(h, minute), ((h + 12) % 24 if h < 12 else 0, minute)]
    return [(h, minute)]


def _before(reading: Reading, minutes_before: int) -> Reading:
    total = (reading[0] * 60 + reading[1] - minutes_before) % 1440
    return divmod(total, 60)


def find_times(s: str) -> list[tuple[int, int, tuple[Reading, ...]]]:
    """Every time of day in folded text: (start, end, readings in 24-hour form)."""
    found = []
    for regex in (_CHA_RE, _EN_RE, _EN_PRE_RE, _LONE_RE, _MAIN_RE):
        for m in regex.finditer(s):
            readings = _match_readings(m)
            if readings:
                found.append((m.start(), m.end(), tuple(dict.fromkeys(readings))))
    found.sort(key=lambda t: (t[0], -t[1]))
    out: list[tuple[int, int, tuple[Reading, ...]]] = []
    for item in found:
        if not out or item[0] >= out[-1][1]:
            out.append(item)
    # A text that writes an hour with its leading zero or past 12 (10:00-次日02:00, 7:00、14:30)
    # keeps a 24-hour clock: its 10:00, 11:30 and 12:15 are those hours, not also the evening's.
    clock24 = [i for i, (a, b, _) in enumerate(out) if _CLOCK_RE.fullmatch(s, a, b)]
    if any(s[out[i][0]] == "0" or int(s[out[i][0] : s.index(":", out[i][0])]) >= 13 for i in clock24):
        for i in clock24:
            a, b, readings = out[i]
            if s[a] == "1" and len(readings) == 2:
                out[i] = (a, b, readings[:1])
    return out


def _hour_minus(m: re.Match[str], h: int, before: int) -> list[Reading]:
    """差 and "to" forms: the hour as said (with its period), less some minutes."""
    if h > 24 or h == 0 or before >= 60:
        return []
    return [_before(r, before) for r in _readings(h % 24, 0, m, colon=False, padded=False)]


def _match_readings(m: re.Match[str]) -> list[Reading]:
    g = m.groupdict()
    if g.get("lone") or g.get("enlone"):
        word = (g.get("lone") or g.get("enlone") or "").lower()
        return [(12, 0)] if word in ("正午", "noon") else [(0, 0)]
    if g.get("ph") is not None or g.get("ph2") is not None:
        hour, mins = (g["ph"], g.get("pmin")) if g.get("ph") is not None else (g["ph2"], g["pmin2"])
        h, minute = int(hour), int(mins or 0)
        if h > 23 or minute > 59:
            return []
        return _readings(h, minute, m, colon=mins is not None, padded=hour.startswith("0"))
    if g.get("bh") is not None:
        return _hour_minus(m, int(m.group("bh")), 15 * int(m.group("bq")) if m.group("bq") else int(m.group("bm")))
    if g.get("thour") is not None:
        word = m.group("tmin").lower()
        return _hour_minus(m, int(m.group("thour")), 15 if "quarter" in word else int(word))
    if g.get("ehour") is not None:
        h = int(m.group("ehour"))
        word = m.group("emin").lower()
        mins = 15 if "quarter" in word else 30 if word == "half" else int(word)
        if h > 12 or h == 0 or mins >= 60:
            return []
        return _readings(h, mins, m, colon=False, padded=False)
    h = int(m.group("h"))
    if m.group("chm") is not None or m.group("chq") is not None:
        return _hour_minus(m, h, 15 * int(m.group("chq")) if m.group("chq") else int(m.group("chm")))
    if m.group("cm") is not None:
        minute = int(m.group("cm"))
    elif m.group("dm") is not None:
        minute = int(m.group("dm"))
    elif m.group("hm") is not None:
        minute = int(m.group("hm"))
    elif m.group("half"):
        minute = 30
    elif m.group("q"):
        minute = 15 * int(m.group("q"))
    elif m.group("zm") is not None:
        minute = int(m.group("zm"))
    else:
        minute = 0
    if minute > 59 or h > 24 or (h == 24 and minute):
        return []
    h %= 24  # 24:00 is midnight
    colon = m.group("cm") is not None or m.group("hm") is not None
    return _readings(h, minute, m, colon=colon, padded=colon and m.group("h").startswith("0"))


# -- durations ---------------------------------------------------------------------------------

_H_UNIT = r"(?:小时|钟头)"
_EN_H = r"(?:hours?|hrs?|h)(?![a-z])"
_EN_M = r"(?:minutes?|mins?|m)(?![a-z])"
_DURATION_RE = re.compile(
    r"(?<![\d.])(?<!\d:)(?:"
    # Compound forms first, so the 59 of 1小时59分 is never read as "59 minutes" on its own.
    rf"(?:(?P<d>\d+)\s*(?:天|日)\s*[又零]?\s*)?(?P<h>\d+(?:\.\d+)?)\s*个?\s*(?P<half1>半)?\s*{_H_UNIT}(?P<half2>半)?"
    r"(?:\s*[又零]?\s*(?:(?P<m>\d+)\s*分钟?(?:\s*(?P<s>\d+)\s*秒钟?)?|(?P<hq>[123])\s*刻钟?"
    # 1小时40 is 100 minutes: bare minutes after the hours, when nothing else follows them.
    r"|(?P<mb>[1-5]\d|[1-9])(?![\d.])(?=\s*(?:$|[^\w%°.:]|左右|的样子))))?"
    # 3点59分 is a clock time, but 用时59分 is a duration.
    r"|(?<!\d[点时])(?<!\d点\s)(?<!\d\s点)(?<!\d\s点\s)(?P<m2>\d+)\s*分钟?(?:\s*(?P<s2>\d+)\s*秒钟?)?"
    r"|(?P<q>[123])\s*刻钟"
    # Seconds count only as whole minutes: 240秒 is 4 minutes, 90秒 is no number of minutes.
    r"|(?P<sec>\d+)\s*(?:秒钟?|(?:seconds?|secs?)(?![a-z]))"
    rf"|(?P<half>半)\s*个?\s*{_H_UNIT}"
    r"|(?P<ch>\d+):(?P<cm>\d{2})(?::(?P<cs>\d{2}))?(?![\d:])"
    rf"|(?P<eh>\d+(?:\.\d+)?)\s*(?:and\s+a\s+(?P<efrac>half|quarter)\s+)?{_EN_H}"
    rf"(?:\s*,?\s*(?:and\s+)?(?P<em>\d+)\s*{_EN_M}|(?<=h)(?P<em0>\d{{1,2}})(?![\d:])(?!\.\d)"
    r"|\s+and\s+a\s+(?P<efrac2>half|quarter)(?![a-z]))?"
    r"|(?P<em2>\d+)\s*(?:minutes?|mins?)(?![a-z])"
    r"|(?<![a-z])(?P<anhour>an?\s+hour)(?:\s+and\s+a\s+(?P<anfrac>half|quarter))?"
    r"(?:\s*(?:and\s+)?(?P<anm>\d+)\s*(?:minutes?|mins?))?(?![a-z])"
    r"|(?<![a-z])(?P<enhalf>half\s+an?\s+hour|a\s+half[\s-]hour)(?![a-z])"
    r"|(?<![a-z])(?P<enq>(?:a\s+)?quarter\s+(?:of\s+an\s+)?hour|(?P<enq3>3|three)\s+quarters\s+of\s+an\s+hour)(?![a-z])"
    r")",
    re.IGNORECASE,
)


def _whole_minutes(hours: str | None, extra_half: bool, minutes: str | None, seconds: str | None) -> int | None:
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


def _duration_of(m: re.Match[str]) -> int | None:
    g = m.group
    if g("h") is not None:
        half = bool(g("half1") or g("half2"))
        minutes = str(15 * int(g("hq"))) if g("hq") else g("m") or g("mb")  # 1小时1刻钟 is 75 minutes
        total = _whole_minutes(g("h"), half, minutes, g("s"))
        if total is not None and g("d") is not None:
            total += int(g("d")) * 1440
        return total
    if g("m2") is not None:
        return _whole_minutes(None, False, g("m2"), g("s2"))
    if g("q") is not None:
        return 15 * int(g("q"))
    if g("sec") is not None:
        seconds = int(g("sec"))
        return seconds // 60 if seconds and seconds % 60 == 0 else None
    if g("half") or g("enhalf"):
        return 30
    if g("ch") is not None:
        if int(g("cm")) < 60 and (g("cs") is None or int(g("cs")) == 0):
            return int(g("ch")) * 60 + int(g("cm"))
        return None
    if g("eh") is not None:
        minutes = g("em") or g("em0")
        if minutes is not None and int(minutes) >= 60 and g("em0") is not None:
            return None
        frac = (g("efrac") or g("efrac2") or "").lower()
        total = _whole_minutes(g("eh"), frac == "half", minutes, None)
        return None if total is None else total + (15 if frac == "quarter" else 0)
    if g("em2") is not None:
        return int(g("em2"))
    if g("anhour"):
        frac = (g("anfrac") or "").lower()
        return 60 + {"half": 30, "quarter": 15}.get(frac, 0) + int(g("anm") or 0)
    if g("enq"):
        return 45 if g("enq3") else 15
    return None  # pragma: no cover - every branch of the regex is handled above


def find_durations(s: str) -> list[tuple[int, int, int]]:
    """Every duration in folded text: (start, end, whole minutes)."""
    out = []
    for m in _DURATION_RE.finditer(s):
        value = _duration_of(m)
        if value is not None:
            out.append((m.start(), m.end(), value))
    return out
