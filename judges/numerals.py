"""Folding an answer to one spelling: the first step of the tokenizer (``judges.tokens``).

``fold`` runs NFKC (full-width → half-width), folds minus signs and dashes, traditional
characters and whitespace, and turns Chinese numerals into Arabic digits where they are numbers.
It is idempotent, so callers may fold freely. The rules it decides:

* A Chinese numeral is a number when a measure word, a unit, a clock or calendar word, an
  approximation word, punctuation, a non-Chinese character or the end of the text follows it, or
  第 precedes it. Before any other Chinese character it is part of a word and stays as written:
  三亚, 四川, 三体 and 二维码 name things, they do not count them. Words listed in
  ``lexicon.NUMERAL_WORDS`` (一样, 一周, 万一, 星期一, 五台山 …) stay as written wherever they are.
* Adjacent numerals are an approximation, not a number: 五六个 is "5~6个", 十二三岁 "12~13岁",
  二三十 "20~30", 三五 "3~5". A run of three or more digit numerals (二〇二五) is read digit by digit.
* X点Y is a decimal (三点五 = 3.5) unless it is a clock reading: 分/秒/刻 follows, a period word
  precedes (下午三点五), Y has 十 (两点二十) or Y is 零 + a digit without a unit after it
  (六点零五 = 6点05, 6:05; 一点零五元 = 1.05元).
* Thousands separators are one spelling: a space of any width or an apostrophe between groups
  of three digits is a comma ("1 234", "1\u202f234", "1'234" are 1,234).
* 负 and 零下 before a number are its minus sign; U+2212 and the en dash are "-"; so are English
  "minus 5", "negative 5" and "5 below zero" (but "10 minus 3" is arithmetic).
* English number words become digits only before a clock or duration word (two hours, seven
  o'clock, five past three): "no one" and "the one" are not the number 1.
"""

from __future__ import annotations

import re
import unicodedata

from . import lexicon as L

__all__ = ["fold", "cn_number"]

_NC = f"[{L.NUMERAL_CHARS}]"
_NUMERAL_OR_DIGIT = f"[{L.NUMERAL_CHARS}0-9]"
# 两 is "two" only as a count; after 点 it never starts a decimal fraction ("三点两" is not 3.2).
_FRACTION_CHARS = "零〇一二三四五六七八九"
_MEASURE = frozenset(w[0] for w in L.MEASURE_WORDS)
# After X点Y, these units make it a decimal (一点零五元), not a clock reading.
_DECIMAL_UNITS = frozenset("元块米公千斤克吨升倍%亿万度级岁毫厘寸尺亩里磅英")

_WEEKDAY_WORDS = r"(?:星期|礼拜|周)[一二三四五六日天]"
# Comparative + 一点 is "a little" (好一点, 晚一点), not one o'clock; 一点儿 / 一点点 likewise.
_A_LITTLE = r"(?<=[好快多少慢大小高低早晚近远长短强弱深浅轻重贵冷热暖凉有差些])一点|一点(?=[儿点])"
# 十分 is "very" (十分热) unless it is a clock minute (三点十分, 一小时十分) or minutes (十分钟).
# 差十分六点 is ten to six: after 差 the 十分 counts minutes.
_VERY = rf"(?<!{_NUMERAL_OR_DIGIT})(?<![点时差])十(?=分(?!钟))"
# 千万 alone is "by all means"; after a digit it is ten million (三千万).
_BY_ALL_MEANS = rf"(?<!{_NUMERAL_OR_DIGIT})千万"

# The numeral words share one lookbehind (not one each: the same alternation, matched alike,
# compiles in a fifteenth of the time, which every command that loads a suite pays).
_PROTECTED_RE = re.compile(
    "|".join(
        [_WEEKDAY_WORDS, _A_LITTLE, _VERY, _BY_ALL_MEANS]
        + [
            rf"(?<!{_NUMERAL_OR_DIGIT})(?:"
            + "|".join(
                re.escape(w) + ("(?!级)" if w == "三星" else "")
                for w in sorted(set(L.NUMERAL_WORDS), key=len, reverse=True)
            )
            + ")"
        ]
        + [re.escape(w) for w in L.NUMERAL_SUFFIX_WORDS]
    )
)
_RUN_RE = re.compile(rf"({_NC}+)(?:点({_NC}+))?")
_PERCENT_RE = re.compile(rf"百分之([{L.NUMERAL_CHARS}0-9.点]+)")
_MINUS_WORD_RE = re.compile(rf"(?:零下|负)\s*(?={_NUMERAL_OR_DIGIT})")
_PERIOD_TAIL_RE = re.compile(
    "(?:" + "|".join(sorted(L.PERIOD_WORDS + ("今天", "明天", "后天", "昨天", "前天"), key=len, reverse=True))
    + r")\s*$"
)
_WS_RE = re.compile(r"\s+")
# U+2212 MINUS SIGN and the dashes survive NFKC; "−3" and "–3" mean -3.
_EXTRA_FOLD = str.maketrans({"\u2212": "-", "\u2013": "-", "\u2010": "-", "\u2011": "-", "\u2012": "-"})
# What each step of fold() changes, looked for first: a text without any is left as it is
# (the step would give it back unchanged), at a fraction of the cost of the step itself.
_TO_TRANSLATE_RE = re.compile("[" + re.escape("".join(map(chr, {**_EXTRA_FOLD, **L.TRADITIONAL}))) + "]")
_TO_SQUEEZE_RE = re.compile(r"[^\S ]|  ")
_NUMERAL_CHAR_RE = re.compile(f"[{L.NUMERAL_CHARS}]")
_MAY_GROUP_RE = re.compile(r"\d[ '’]\d{3}")  # within every match of _GROUPED_RE

# English number words before a clock or duration word ("two hours", "seven o'clock", "ten
# past six", "seven thirty pm"). Elsewhere a word like "one" is not a number.
_EN_WORD = "|".join(sorted(L.EN_NUMBER_WORDS, key=len, reverse=True))
_EN_NUM = rf"(?:{_EN_WORD})(?:[- ](?:one|two|three|four|five|six|seven|eight|nine))?"
_EN_UNIT = r"(?:hours?|hrs?|minutes?|mins?|o['’]?\s?clock|a\.?\s?m\b\.?|p\.?\s?m\b\.?|days?|weeks?|seconds?|secs?)"
# Counts in English: a number word from two up before a plural noun or a unit (three alarms,
# twenty degrees), or an answer that is only a number word. "one" alone is too often a pronoun.
_EN_COUNT_RE = re.compile(
    r"(?<![a-z-])(?P<w>(?:twenty|thirty|forty|fifty)(?:-(?:one|two|three|four|five|six|seven|eight|nine))?"
    r"|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen"
    r"|eighteen|nineteen)(?=\s+(?:[a-z]+s|degrees?|percent|per\s+cent)(?![a-z])|\s*(?:%|°))",
    re.IGNORECASE,
)
_EN_ALONE_RE = re.compile(rf"^\W*(?P<w>{_EN_WORD})\W*$", re.IGNORECASE)
_EN_NUMBER_RE = re.compile(
    rf"(?<![a-z])(?P<a>{_EN_NUM})(?:\s+(?P<b>{_EN_NUM}))?(?=\s*(?:and\s+a\s+(?:half|quarter)\s+)?{_EN_UNIT}(?![a-z]))"
    rf"|(?<=past\s)(?P<c>{_EN_NUM})(?![a-z])|(?<=to\s)(?P<d>{_EN_NUM})(?![a-z])(?!\s+(?:the|a|an)\b)"
    rf"|(?<![a-z])(?P<e>{_EN_NUM})(?=\s+(?:past|to)\s)",
    re.IGNORECASE,
)


_CURRENCY_RE = re.compile(r"(?<![A-Za-z])(RMB|CNY|USD|HKD|EUR|GBP|JPY|CAD|AUD|SGD|TWD)(?=\d)")
# English signs: "minus 5", "negative 5" and "5 (degrees) below zero" are -5. After a number,
# "minus" is arithmetic ("10 minus 3"), not a sign.
_EN_MINUS_RE = re.compile(r"(?<![a-z])(?:minus|negative)\s+(?=\d)", re.IGNORECASE)
_BELOW_ZERO_RE = re.compile(
    r"(?<![\d.\-+])(\d+(?:\.\d+)?)(\s*(?:°\s?[CF]?|degrees?(?:\s+(?:celsius|fahrenheit|[cf])(?![a-z]))?)?)"
    r"\s+below\s+(?:zero|freezing)(?![a-z])",
    re.IGNORECASE,
)


# "minus seven", "negative three", "three below zero": the number word is a number here.
_EN_SIGNED_WORD_RE = re.compile(
    rf"(?<![a-z])(?P<pre>(?:minus|negative)\s+)(?P<w>{_EN_NUM})(?![a-z-])"
    rf"|(?<![a-z-])(?P<w2>{_EN_NUM})(?=\s+(?:degrees?\s+)?below\s+(?:zero|freezing)(?![a-z]))",
    re.IGNORECASE,
)


def _en_signed_words(s: str) -> str:
    def one(m: re.Match[str]) -> str:
        word = m.group("w") or m.group("w2")
        v = _en_value(word)
        if v is None:
            return m.group(0)
        return (m.group("pre") or "") + str(v)

    return _EN_SIGNED_WORD_RE.sub(one, s)


# Capital (financial) numerals: 伍拾元 is 五十元. Only a run of two or more, or one before a
# money word, is a numeral; a lone 陆 or 伍 is a name (大陆, 伍先生).
_CAPITAL = str.maketrans("壹贰貳叁參肆伍陆陸柒捌玖拾佰仟", "一二二三三四五六六七八九十百千")
_CAPITAL_RE = re.compile(r"[零壹贰貳叁參肆伍陆陸柒捌玖拾佰仟萬万亿億]{2,}|[壹贰貳叁參肆伍陆陸柒捌玖拾佰仟](?=[元圆角整])")
# 两块五 is 2.5 yuan and 三块八毛 3.8: a digit after 块 (and before 毛/角 or nothing) is the
# tenths of a yuan, as people say prices.
# Thousands separators other than the comma: a space of any width (no-break, narrow no-break and
# thin spaces are plain spaces after NFKC) or an apostrophe, the same one between every group of
# exactly three digits: "1 234" and "1'234'567" are 1,234 and 1,234,567. Not after a letter, a
# digit and a space (a list "7 8 900") or a separator (a slash only after a digit: 3/4 500), and
# not before a percent sign ("7 100%").
_GROUPED_RE = re.compile(
    r"(?<![A-Za-z0-9_.,'’:-])(?<![\d\s]/)(?<!\d\s)(?P<lead>[1-9]\d{0,2})(?P<sep>[ '’])\d{3}(?:(?P=sep)\d{3})*"
    r"(?![\d%])(?!\s?%)(?![ '’]\d)(?![.:/,]\d{3})"
)
_KUAI_RE = re.compile(r"(?<![\d.])(\d+)\s*块\s*(\d)(?:\s*[毛角])?(?![\d.])(?!\s*(?:个|块|分|[a-zA-Z]))")


_PERCENT_WORD_RE = re.compile(r"(?<=\d)\s*(?:percent|per\s+cent)(?![a-z])", re.IGNORECASE)


def _en_signs(s: str) -> str:
    def minus(m: re.Match[str]) -> str:
        return m.group(0) if re.search(r"\d\s*$", s[: m.start()]) else "-"

    s = _EN_MINUS_RE.sub(minus, s)
    return _BELOW_ZERO_RE.sub(r"-\1\2", s)


def _en_value(words: str) -> int | None:
    parts = re.split(r"[- ]", words.lower())
    total = 0
    for p in parts:
        if p not in L.EN_NUMBER_WORDS:
            return None
        total += L.EN_NUMBER_WORDS[p]
    return total


def _en_numbers(s: str) -> str:
    def one(m: re.Match[str]) -> str:
        if m.group("a") is not None:
            a = _en_value(m.group("a"))
            if m.group("b") is not None:
                b = _en_value(m.group("b"))
                # "seven thirty pm" is 7:30; "two forty minutes" is not a reading we trust.
                if a is not None and b is not None and 1 <= a <= 12 and 0 <= b <= 59:
                    return f"{a}:{b:02d}"
                return m.group(0)
            return m.group(0) if a is None else str(a)
        word = m.group("c") or m.group("d") or m.group("e")
        v = _en_value(word)
        return m.group(0) if v is None else str(v)

    s = _EN_NUMBER_RE.sub(one, s)
    s = _EN_COUNT_RE.sub(lambda m: str(_en_value(m.group("w"))), s)
    return _EN_ALONE_RE.sub(lambda m: m.group(0).replace(m.group("w"), str(_en_value(m.group("w")))), s)


# -- Chinese numerals ---------------------------------------------------------------------------


def _under_wan(s: str) -> int | None:
    """A numeral below 10000 (千/百/十 and digits); None when it is not well formed."""
    value, digit, last_unit, zero = 0, None, 10_000, False
    for i, ch in enumerate(s):
        if ch in L.CN_DIGITS:
            d = L.CN_DIGITS[ch]
            if d == 0:
                if digit is not None:
                    return None
                zero = True
                continue
            if digit is not None:
                return None  # 二三: two digits in a row is an approximation, not a number
            digit = d
        else:
            unit = L.CN_SMALL_UNITS[ch]
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


def _big(s: str, unit_char: str, unit: int, lower) -> int | None:
    """A numeral around one big unit (万 or 亿) with `lower` reading each side."""
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
    if len(low) == 1 and low in L.CN_DIGITS and L.CN_DIGITS[low] != 0:
        # 三万五 = 35000: like 一千二, a lone trailing digit takes the next lower unit.
        return hv * unit + L.CN_DIGITS[low] * (unit // 10)
    lv = lower(low.lstrip("零〇"))
    if lv is None or lv >= unit:
        return None
    return hv * unit + lv


def _under_yi(s: str) -> int | None:
    return _big(s, "万", 10_000, lambda x: _under_wan(x) if x else 0)


def cn_number(run: str) -> int | None:
    """The value of a Chinese numeral with units (一百零五, 三万六千, 一亿二千万); None otherwise."""
    if not run or run[0] in "百千万亿":
        return None  # 百度, 千米, 万达: a leading big unit without a count is a word
    if all(ch in L.CN_DIGITS for ch in run):
        return None
    return _big(run, "亿", 100_000_000, _under_yi)


_CONSECUTIVE = {("一", "两"), ("两", "三"), ("三", "五")}


def _approx_pair(a: str, b: str) -> bool:
    da, db = L.CN_DIGITS[a], L.CN_DIGITS[b]
    return (da > 0 and db == da + 1 and a != "两" and b != "两") or (a, b) in _CONSECUTIVE


def _run_digits(run: str) -> str | None:
    """Digits for a numeral run, "a~b" for an approximation, or None when it is not a number."""
    if all(ch in L.CN_DIGITS for ch in run):
        if len(run) == 1:
            return str(L.CN_DIGITS[run])
        if len(run) == 2 and _approx_pair(run[0], run[1]):
            return f"{L.CN_DIGITS[run[0]]}~{L.CN_DIGITS[run[1]]}"
        if len(run) >= 3 or any(ch in "零〇" for ch in run):
            # 二〇二五 is a year read digit by digit.
            return "".join(str(L.CN_DIGITS[ch]) for ch in run)
        return None  # 二五, 九八: not a way to write a number
    value = cn_number(run)
    if value is not None:
        return str(value)
    # 十二三 = 12~13, 二十五六 = 25~26: the last digit runs on by one.
    if len(run) >= 3 and run[-1] in L.CN_DIGITS and run[-2] in L.CN_DIGITS and _approx_pair(run[-2], run[-1]):
        low = cn_number(run[:-1])
        if low is not None:
            return f"{low}~{low + 1}"
    # 二三十 = 20~30, 四五百 = 400~500, 五六万.
    if len(run) >= 3 and run[0] in L.CN_DIGITS and run[1] in L.CN_DIGITS and _approx_pair(run[0], run[1]):
        rest = run[2:]
        low, high = cn_number(run[0] + rest), cn_number(run[1] + rest)
        if low is not None and high is not None:
            return f"{low}~{high}"
    return None


def _minute_digits(frac: str) -> str | None:
    """The digits of what follows 点 in a clock reading (五 → 5, 零五 → 05, 二十 → 20)."""
    if all(ch in L.CN_DIGITS for ch in frac):
        if len(frac) == 2 and frac[0] in "零〇":
            return "0" + str(L.CN_DIGITS[frac[1]])
        return "".join(str(L.CN_DIGITS[ch]) for ch in frac)
    value = cn_number(frac)
    return None if value is None else str(value)


def _is_number_context(text: str, start: int, end: int) -> bool:
    """Does the numeral at text[start:end] count something (see the module docstring)?"""
    if start > 0 and text[start - 1] == "第":
        return True
    if end >= len(text):
        return True
    nxt = text[end]
    if not ("\u4e00" <= nxt <= "\u9fff"):
        return True  # punctuation, space, a digit, a letter, °, %
    return nxt in _MEASURE


def _convert(text: str, start: int, end: int, out: list[str]) -> None:
    """Append text[start:end] to `out` with its numeral runs converted."""
    pos = start
    for m in _RUN_RE.finditer(text, start, end):
        out.append(text[pos : m.start()])
        pos = m.end()
        int_run, frac_run = m.group(1), m.group(2)
        if frac_run is None and not _is_number_context(text, m.start(), m.end()):
            out.append(m.group(0))
            continue
        int_digits = _run_digits(int_run)
        if int_digits is None or (frac_run is not None and "~" in int_digits):
            out.append(m.group(0))
            continue
        if frac_run is None:
            out.append(int_digits)
            continue
        after = text[m.end() : m.end() + 1]
        clockish = after in ("分", "秒", "刻") or bool(
            _PERIOD_TAIL_RE.search(text[max(0, m.start() - 8) : m.start()])
        )
        if (
            not clockish
            and len(frac_run) == 2
            and frac_run[0] in "零〇"
            and frac_run[1] in L.CN_DIGITS
            and after not in _DECIMAL_UNITS
        ):
            # 六点零五 is five past six: 零 + a digit after 点 is how minutes are said.
            out.append(f"{int_digits}点0{L.CN_DIGITS[frac_run[1]]}")
            continue
        if not clockish and all(ch in _FRACTION_CHARS for ch in frac_run):
            out.append(int_digits + "." + "".join(str(L.CN_DIGITS[c]) for c in frac_run))
            continue
        frac_digits = _minute_digits(frac_run)
        out.append(int_digits + "点" + (frac_run if frac_digits is None else frac_digits))
    out.append(text[pos:end])


def fold(text: object) -> str:
    """Bring an answer to one spelling so that parsers compare meaning, not typing habits.

    Non-string input gives "" rather than an error, because an answer may be missing.
    """
    if not isinstance(text, str):
        return ""
    s = unicodedata.normalize("NFKC", text)
    if _TO_TRANSLATE_RE.search(s):
        s = s.translate(_EXTRA_FOLD).translate(L.TRADITIONAL)
    # A line break stays one: the lines of a list are its items (- 07:00（已关闭）\n- 08:00).
    if _TO_SQUEEZE_RE.search(s):
        s = _WS_RE.sub(lambda m: "\n" if "\n" in m.group(0) else " ", s)
    s = s.strip()
    if _MAY_GROUP_RE.search(s):
        s = _GROUPED_RE.sub(lambda m: re.sub(r"[ '’]", ",", m.group(0)), s)
    s = _CAPITAL_RE.sub(lambda m: m.group(0).translate(_CAPITAL).replace("億", "亿").replace("萬", "万"), s)
    if re.search(r"[a-zA-Z]", s):
        s = _en_signed_words(_en_numbers(s))
        s = _PERCENT_WORD_RE.sub("%", s)  # 8.93 percent is 8.93%
        s = _en_signs(s)
        # RMB25 is 25 yuan: a currency code is not part of the number's word.
        s = _CURRENCY_RE.sub(r"\1 ", s)
    if "负" in s or "零下" in s:
        s = _MINUS_WORD_RE.sub("-", s)
    if not _NUMERAL_CHAR_RE.search(s):
        return _KUAI_RE.sub(r"\1.\2元", s) if "块" in s else s
    # 百分之五十 → 五十% before the runs are read, so the percent reads like "50%".
    s = _PERCENT_RE.sub(lambda m: m.group(1) + "%", s)
    out: list[str] = []
    pos = 0
    for m in _PROTECTED_RE.finditer(s):
        if m.end() == m.start():
            continue
        _convert(s, pos, m.start(), out)
        out.append(m.group(0))
        pos = m.end()
    _convert(s, pos, len(s), out)
    return _KUAI_RE.sub(r"\1.\2元", "".join(out))
