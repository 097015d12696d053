"""The one tokenizer every matcher and check reads answers and screens with. Pure.

``scan(text)`` folds the text (``judges.numerals.fold``: full-width, traditional characters,
signs, Chinese numerals) and returns a :class:`Scan`: the folded text, its clauses and its
tokens. A token is a value with its span and what the text says about it:

``kind``      number, time, duration, date or version
``value``     number: float; time: the (hour, minute) readings; duration: whole minutes;
              date: the regex match (resolve with :meth:`Scan.date_of`); version: int tuple
``asserted``  its clause asserts it: not negated (不是20度, not 20), not a question, not taken
              back (20度，不对，是22度)
``approx``    a bound, not the value: 二十多度, 不到1小时, nearly 20, 30分钟以内; for times, a span
              given as an estimate (7点到8点之间, between 7 and 8 am). An approximation word
              beside one value (约20度, 大约1小时, about 20, 20度左右) states it: no mark
``hedged``    offered as one of alternatives: 6:40或7:40, 1小时或1小时15分, 5 or 6
``ranged``    one end of a range: 10:00-22:00, 20到25度
``paren``     inside parentheses (a restatement: 明天（4月6日）)
``clock``     a duration read from an H:MM that nothing in its clause says is one: 下午3:20 and
              晚上9:00到家 are clock times, 用时1:30 and 全程 1:30 durations (a field asked as a
              duration says it too: the matchers read ``clock`` durations there)

Decisions, each pinned by the named cases in tests/core/test_tokens.py:

* Numbers are maximal runs of digits with their sign (负5, 零下5, −5, –5 and -5 are -5; 03-16
  is no -16), thousands separators (groups of exactly three digits), a decimal part and a scale
  (1.2万 = 12000, 3万5 = 35000, 2.5亿, 1.5k, 3 million, 2.5M; an upper-case M before Chinese
  text is a size: 5M流量). A number inside a letter run (A380, iPhone15), a date (4月5日 holds
  no 4 and no 5; 1925年 is the number 1925), a time or a version is not a number.
* A version is kept whole: after a system or app word (MIUI 12.5, Android 14, 版本 8.0.49, v2)
  or with two dots or more (17.4.1). 12 is not in "MIUI 12.5".
* A negation governs its clause. Clauses end at 。;!?, a comma that is not a thousands separator,
  a sentence-ending period, a newline, and before 但是/而是/不过/然后… and but/however/instead….
  Negators (不, 没, 未, 无, 别, 不是, 不会, 不能, 没法, 无法, 被否定 …; not, no, never, n't,
  cannot …) count unless they are part of a word that does not deny (不错, 未来, 非常, 无论,
  毫无疑问, 不得不), a state (3条未读消息), a bound before a number (不到1小时) or a modifier
  before 的 and a noun (不下雨的日子有3天). Potential and modal negations (去不了, 看不到, 不会)
  are negations. A-not-A (会不会) makes the clause a question. A date is denied by a negation
  anywhere in its clause: it says when something happens, and 明天不会响 says not tomorrow.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, replace
from typing import Any

from . import dates as D
from . import lexicon as L
from .memo import once
from .numerals import fold
from .retractions import corrections, list_markers, struck
from .times import find_durations, find_times

__all__ = ["Token", "Clause", "Scan", "scan", "fold", "asserted_in", "KINDS"]
KINDS = ("number", "time", "duration", "date", "version")


@dataclass(frozen=True)
class Token:
    """One value in a text, with its span in the folded text and what the text says of it."""

    kind: str
    start: int
    end: int
    value: Any
    unit: str = ""
    approx: bool = False
    hedged: bool = False
    ranged: bool = False
    asserted: bool = True
    paren: bool = False
    clock: bool = False

    @property
    def exact(self) -> bool:
        """Stated as one exact value: not approximate, not one of alternatives, not a range end."""
        return not (self.approx or self.hedged or self.ranged)


@dataclass(frozen=True)
class Clause:
    start: int
    end: int
    negated: bool = False
    question: bool = False
    retracted: bool = False

    @property
    def asserted(self) -> bool:
        return not (self.negated or self.question or self.retracted)


# -- clauses and negation ------------------------------------------------------------------------

_CLAUSE_WORD_CN = "|".join(
    ("(?<!不)" + w if w.startswith("但") else w) for w in sorted(L.CLAUSE_WORDS_CN, key=len, reverse=True)
)
_BOUNDARY_RE = re.compile(
    # Full-width marks too: a raw answer (a pattern's fallback) is read with the same clauses.
    # A markdown bullet (" - ", " * ", " • ") after words starts an item: "07:00 已关闭 - 08:00".
    r"(?P<punct>[。;!?\n；！？，]|\s[—–]\s|——|(?<![\d\s])\s[-*•]\s|(?<!\d),|,(?!\d{3}(?!\d))|\.(?=\s|$|[\u4e00-\u9fff])(?<![a-z]\.[a-z]\.)(?<!\bno\.))"
    rf"|(?P<word>{_CLAUSE_WORD_CN}"
    rf"|(?<![a-z])(?:{'|'.join(L.CLAUSE_WORDS_EN)})(?![a-z]))",
    re.IGNORECASE,
)
_CN_NEG_RE = re.compile("|".join(sorted(L.CN_NEGATORS, key=len, reverse=True)))
_EN_NEG_RE = re.compile(
    r"(?<![a-z'’])(?:" + "|".join(re.escape(w) for w in sorted(L.EN_NEGATORS, key=len, reverse=True))
    + r")(?![a-z'’])|n['’]t(?![a-z])",
    re.IGNORECASE,
)
_EN_NOT_NEG_RE = re.compile(
    r"(?<![a-z])(?:" + "|".join(re.escape(p) for p in L.EN_NOT_NEGATIONS) + r")(?![a-z])|(?<![a-z])no\.?\s*(?=\d)",
    re.IGNORECASE,
)
_NOT_NEG_RE = re.compile("|".join(re.escape(w) for w in sorted(L.NOT_NEGATIONS + L.NEGATIVE_STATES, key=len, reverse=True)))
_BOUND_RE = re.compile(
    "(?:" + "|".join(sorted(L.BOUND_NEGATIONS, key=len, reverse=True)) + r")(?=\s*(?:约|大约)?\s*[-+]?\d)"
)
_A_NOT_A_RE = re.compile(r"([\u4e00-\u9fff])[不没]\1")
_DENIAL_RE = re.compile("|".join(L.CN_DENIALS))
# A likelihood of nothing is a denial by meaning: 下雪的可能性为零, 概率为0, zero chance of snow.
_ZERO_RE = re.compile(r"0|zero|nil|none", re.IGNORECASE)
_NULL_CHANCE_RE = re.compile(f"{L.NULL_CHANCE_CN}|(?<![a-z])(?:{L.NULL_CHANCE_EN})(?![a-z])", re.IGNORECASE)
_RETRACTIONS = frozenset(w.lower() for w in L.RETRACTIONS)
# Quoted names: “…”, "…", 「…」, 『…』, 《…》.
QUOTE_RE = re.compile(r"“([^“”]*)”|\"([^\"]*)\"|「([^「」]*)」|『([^『』]*)』|《([^《》]*)》")
# Only these make a modifier (不下雨的日子, 没下雨的那天); 没有会下雨的迹象 and 不是《…的…》 deny.
_MODIFIER_NEGATORS = frozenset({"不", "未", "无", "没"})
_EDGE = " ,.;:!?()[]\"'“”‘’、，。；：！？…-~"


def _mask(text: str, regex: re.Pattern[str]) -> str:
    return regex.sub(lambda m: " " * len(m.group(0)), text)


def negators(clause: str) -> list[tuple[int, int, str]]:
    """The negations in a clause that deny something (see the module docstring): spans and words."""
    # Quoted names are names: 《霸王别姬》 holds no 别 that denies anything.
    t = _mask(_mask(_mask(_mask(clause, QUOTE_RE), _NOT_NEG_RE), _BOUND_RE), _A_NOT_A_RE)
    out = []
    for m in _CN_NEG_RE.finditer(t):
        rest = t[m.end() : m.end() + 7]
        # 不下雨的日子: a negated modifier before 的 and a noun describes the noun.
        if m.group(0) in _MODIFIER_NEGATORS and re.match(r"[\u4e00-\u9fff]{0,4}的(?=[\u4e00-\u9fff])", rest):
            continue
        out.append((m.start(), m.end(), m.group(0)))
    out += [(m.start(), m.end(), m.group(0)) for m in _DENIAL_RE.finditer(t)]
    out += [(m.start(), m.end(), "null chance") for m in _NULL_CHANCE_RE.finditer(t)]
    out += [(m.start(), m.end(), m.group(0).lower()) for m in _EN_NEG_RE.finditer(_mask(t, _EN_NOT_NEG_RE))]
    return sorted(out)


def _denies(clause: str) -> bool:
    """Does the clause hold any negation?"""
    return bool(negators(clause))


# After a value, only these deny it: an identity denied (X不是…, X is not …), a correction
# (X不对) or a passive denial (X被驳回). Other negators after a value deny what follows them:
# 多云不下雨 states 多云, 小雨不冷 states 小雨, 20度不算冷 states 20度.
_AFTER_DENIERS_RE = re.compile(
    r"^(?:(?:并不是|不是)(?!很|太|特别|那么|非常|十分|一般)|并非|绝非|不对|不准确|不正确|错了|有误|不算是|不属于|被否定|被否决|被驳回|被拒绝|被推翻|被撤销|被拒|被取消)"
    # 多云是不可能的, 20度不可能: the value is said to be impossible.
    r"|^(?:是|也)?(?:不可能|没可能)"
    r"|^(?:is|are|was|were)\s*(?:not|n['’]t)|^(?:isn['’]t|aren['’]t|wasn['’]t|weren['’]t)|^(?:is\s+)?wrong"
    r"|^(?:is|was)\s+(?:impossible|out\s+of\s+the\s+question)",
    re.IGNORECASE,
)


_POTENTIAL = frozenset("了到成起动完着清见懂住")


def denies_at(clause: str, a: int, b: int) -> bool:
    """Is the value at clause[a:b] denied? A negator before it in its clause governs it (不是20度,
    not sunny, 明天不会下雨); one after it only when it denies an identity or corrects it."""
    for start, end, word in negators(clause):
        if end <= a:
            return True
        # 去不了, 买不到, 做不成: a potential complement right after the verb denies it.
        if start == b and word == "不" and clause[end : end + 1] in _POTENTIAL:
            return True
        if word == "null chance":
            # 下雪的可能性为零, "the chance of snow is 0%": a likelihood of nothing denies what it
            # is the likelihood of, anywhere in its clause, but not its own zero (降水概率为0
            # states a probability of 0).
            zero = list(_ZERO_RE.finditer(clause, start, end))
            if not zero or a < zero[-1].start():
                return True
            continue
        if start >= b and _AFTER_DENIERS_RE.match(clause[start : start + 8].lstrip()):
            return True
        if start >= b and _AFTER_DENIERS_RE.match(clause[b:start + 8].lstrip()):
            return True
    return False


def asserted_in(text: str, a: int, b: int) -> bool:
    """Does a text read as written (not folded: a pattern that pins a full-width spelling)
    claim what stands at text[a:b]? The same reading as ``Scan.claims``, on the raw text."""
    return Scan(text, folded=False).claims(a, b)


def clauses(text: str, keep: list[tuple[int, int]] = (), splits: list[int] = ()) -> tuple[Clause, ...]:
    """The clauses of folded text, each with whether it asserts what it says. A boundary inside
    one of the `keep` spans (a value: "Apr 5, 2026") does not split it; each of `splits` (where
    a list item starts) starts a clause."""
    spans: list[tuple[int, int, str]] = []
    pos = 0
    bounds = [(m.start(), m) for m in _BOUNDARY_RE.finditer(text)] + [(p, None) for p in splits]
    for at, m in sorted(bounds, key=lambda x: x[0]):
        if m is None:
            if at > pos:
                spans.append((pos, at, ""))
                pos = at
            continue
        if at < pos or any(a < m.start() < b for a, b in keep):
            continue
        if m.group("punct") is not None:
            spans.append((pos, m.end(), m.group("punct")))
            pos = m.end()
        elif m.start() > pos:
            spans.append((pos, m.start(), ""))
            pos = m.start()
    if pos < len(text) or not spans:
        spans.append((pos, len(text), ""))
    out: list[Clause] = []
    for start, end, mark in spans:
        body = text[start:end]
        core = body.strip(_EDGE).lower()
        if core in _RETRACTIONS and out:
            out[-1] = replace(out[-1], retracted=True)
            out.append(Clause(start, end, question=False, negated=True))
            continue
        question = mark in ("?", "？") or core.endswith("吗") or bool(_A_NOT_A_RE.search(body))
        out.append(Clause(start, end, negated=_denies(body), question=question))
    return tuple(out)


# -- numbers and versions ----------------------------------------------------------------------

_NUMBER_RE = re.compile(
    r"(?<![A-Za-z0-9.])(?P<sign>[-+])?(?<![A-Za-z0-9.])"
    r"(?P<body>\d{1,3}(?:,\d{3})+(?:\.\d+)?(?!\d)|\d+(?:\.\d+)?)(?!\.\d)(?![A-Za-z]*\d)"
    r"(?:\s*(?P<scale>千万|百万|万|亿|千(?![米克瓦卡帕焦])|[kK](?![a-zA-Z])|(?-i:M)(?![A-Za-z0-9/])(?!\s*[\u4e00-\u9fff])|(?:thousand|million|billion)(?![a-z]))"
    # 3万5 and 1万2千: the rest of the number after its scale (3 万 5 with spaces too, but not
    # the 5 of "3万 5个", which counts something else).
    # 3万5 and 1万2千: the rest of the number after its scale (a lone digit is thousands).
    r"(?:\s*(?P<more>\d{1,4})(?![\d.])(?:\s*(?P<more_unit>千|百))?)?)?",
    re.IGNORECASE,
)
_SCALE = {"千万": 10**7, "百万": 10**6, "万": 10**4, "亿": 10**8, "千": 10**3, "k": 10**3,
          "thousand": 10**3, "million": 10**6, "billion": 10**9, "m": 10**6}
_UNIT_RE = re.compile(
    r"(?i)\s*(?P<unit>%|°[CF]?|个小时|个月|小时|分钟|公里|千米|公斤|毫升|毫米|厘米|华氏度|摄氏度|个|"
    rf"[{''.join(sorted({w[0] for w in L.MEASURE_WORDS} - set('多余来几半左上出以至到比或和与及加减乘除乃又')))}]"
    r"|(?:km|kg|mg|ml|cm|mm|mb|gb|tb|kb|kw|mah|hrs?|mins?|secs?|pcs|usd|rmb|cny|yuan|degrees?|percent"
    r"|[mglhswvx])(?![A-Za-z]))?"
)
_VERSION_WORD = "|".join(re.escape(w) for w in sorted((w for w in L.VERSION_WORDS if w != "v"), key=len, reverse=True))
_VERSION_RE = re.compile(
    rf"(?:(?<![a-z])(?:{_VERSION_WORD})\s*(?:版本|version)?\s*:?\s*v?|(?<![a-z0-9])v(?=\d))"
    r"(?P<v>\d+(?:\.\d+)*)(?![\d.]*\d)"
    r"|(?<![\d.])(?P<v3>\d+\.\d+\.\d+(?:\.\d+)*)(?![.\d])",
    re.IGNORECASE,
)
_PAREN_RE = re.compile(r"\([^()]*\)|【[^【】]*】")
def _words_before(cn: tuple[str, ...] | list[str], en: tuple[str, ...] | list[str], *, signs: bool) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """Patterns for words that stand before a value: Chinese ones may stand a few characters
    before it (大概能睡7.5小时, 不到一个小时), English ones right before it."""
    en_re = re.compile(
        r"(?<![a-z])(?:" + "|".join(re.escape(w) for w in sorted(en, key=len, reverse=True)) + r")\s*$"
        + (r"|(?<![\d%°度])(?<!°[CFcf])\s*[~≈]\s*$" if signs else ""),
        re.IGNORECASE,
    )
    cn_re = re.compile("(?:" + "|".join(sorted(cn, key=len, reverse=True)) + r")[^\d,.;:!?()]{0,4}$")
    return cn_re, en_re


_CN_APPROX_BEFORE, _EN_APPROX_BEFORE = _words_before(L.APPROX_BEFORE_CN, L.APPROX_BEFORE_EN, signs=True)
_CN_BOUND_BEFORE, _EN_BOUND_BEFORE = _words_before(L.BOUND_BEFORE_CN, L.BOUND_BEFORE_EN, signs=False)
_HEDGE_RE = re.compile(
    r"^[^。;!?\n\d]*?(?:" + "|".join(re.escape(w) for w in L.HEDGE_WORDS if w.isascii() is False)
    + r"|(?<![a-z])(?:" + "|".join(L.EN_HEDGE_WORDS) + r")(?![a-z]))[^。;!?\n\d]*$",
    re.IGNORECASE,
)
_RANGE_RE = re.compile(r"^\s*(?:从)?(?:" + "|".join(re.escape(w) for w in L.RANGE_WORDS) + r"|until|till|through)\s*$")


def _number_value(m: re.Match[str]) -> float | None:
    try:
        value = float(m.group("body").replace(",", ""))
    except (ValueError, OverflowError):  # pragma: no cover - the regex only admits digits
        return None
    scale = m.group("scale")
    if scale:
        unit = _SCALE[scale.lower()]
        value *= unit
        more = m.group("more")
        if more:
            part = int(more)
            if m.group("more_unit"):
                part *= 1000 if m.group("more_unit") == "千" else 100
            elif len(more) == 1:
                part *= unit // 10  # 3万5 = 35000, like 三万五
            if part >= unit:
                return None
            value += part
    if value != value or value in (float("inf"), float("-inf")):
        return None
    return -value if m.group("sign") == "-" else value


def _versions(text: str) -> list[Token]:
    out = []
    for m in _VERSION_RE.finditer(text):
        raw = m.group("v") or m.group("v3")
        start = m.start("v") if m.group("v") else m.start("v3")
        out.append(Token("version", start, start + len(raw), tuple(int(p) for p in raw.split("."))))
    return out


def _overlaps(a: tuple[int, int], spans: list[tuple[int, int]]) -> bool:
    return any(a[0] < e and s < a[1] for s, e in spans)


def _numbers(text: str, blocked: list[tuple[int, int]]) -> list[Token]:
    out = []
    for m in _NUMBER_RE.finditer(text):
        if _overlaps(m.span(), blocked):
            continue
        value = _number_value(m)
        if value is None:
            continue
        if re.match(r"\s*月(?!\s*\d)", text[m.end() : m.end() + 3]) and 1 <= value <= 12 and not m.group("scale"):
            continue  # 十二月 is December, not twelve of something (3个月 is a count)
        unit_m = _UNIT_RE.match(text, m.end())
        unit = unit_m.group("unit") or "" if unit_m else ""
        out.append(Token("number", m.start(), m.end(), value, unit=unit))
    return out


# -- marks -------------------------------------------------------------------------------------


def _bounded(text: str, t: Token, clause: Clause) -> bool:
    """Is the number or duration a bound rather than the value (不到1小时, 二十多度, 1个多小时,
    nearly 20, 30分钟以内)? An approximation word (约, 大约, 左右, about) is no bound: beside one
    value it states that value."""
    before = text[max(clause.start, t.start - 12) : t.start].rstrip()
    if _CN_BOUND_BEFORE.search(before) or _EN_BOUND_BEFORE.search(before):
        return True
    after = text[t.end : t.end + 4]
    if t.kind == "number" and after.startswith(L.BOUND_AFTER_DIGITS):
        return True
    rest = text[t.end :]
    if t.unit:
        rest = rest.lstrip()[len(t.unit) :]
    rest = rest.lstrip().lower()
    # 1个多小时 is more than an hour; 20度多云 is 20 degrees and cloudy.
    return rest.startswith(L.BOUND_AFTER_UNIT) or (t.unit == "个" and rest.startswith("多"))


def _mark_pairs(text: str, tokens: list[Token]) -> list[Token]:
    """Hedges and ranges: two values of one kind joined by 或/还是/or, or by -/~/到/至/to."""
    out = list(tokens)
    by_kind: dict[str, list[int]] = {}
    for i, t in enumerate(out):
        by_kind.setdefault(t.kind, []).append(i)
    for idx in by_kind.values():
        gaps = [text[out[a].end : out[b].start].strip() for a, b in zip(idx, idx[1:])]
        for k, (a, b) in enumerate(zip(idx, idx[1:])):
            t1, t2 = out[a], out[b]
            gap = text[t1.end : t2.start]
            # 07:00 / 14:30 / 22:50 is a list; 6:40/7:40 alone offers two.
            if gap.strip() == "/" and "/" in (gaps[k - 1] if k else "", gaps[k + 1] if k + 1 < len(gaps) else ""):
                continue
            if t1.kind == "number" and t1.unit and gap.lstrip().startswith(t1.unit):
                gap = gap.lstrip()[len(t1.unit) :]
            if len(gap) > 12:
                continue
            if _HEDGE_RE.match(gap) or (t1.kind in ("time", "duration") and gap.strip() == "/") or (
                    t1.kind == "number" and _slash_alternatives(text, t1, t2, gap)):
                out[a], out[b] = replace(t1, hedged=True), replace(t2, hedged=True)
            elif _RANGE_RE.match(gap) or (t1.kind == "number" and gap == "" and text[t2.start - 1 : t2.start] == "~"):
                out[a], out[b] = replace(t1, ranged=True), replace(out[b], ranged=True)
    return out


# 44%/34%, 5°/6度, 11个/12个, force 7/level 6, 5 alarms/6 alarms: a slash between two values
# that each carry their unit or word offers two; a bare 3/4 (a fraction, a date) does not.
_SLASH_GAP_RE = re.compile(r"^\s*(?:[^\W\d_]{1,8}\s*)?/\s*(?:[a-z]{1,8}\s*)?$", re.IGNORECASE)


def _slash_alternatives(text: str, t1: Token, t2: Token, gap: str) -> bool:
    if not _SLASH_GAP_RE.match(gap):
        return False
    raw = text[t1.end : t2.start]
    return not (raw == "/" and not t1.unit)


_SPAN_AFTER_RE = re.compile(r"\s*(?:之间|中间|左右|前后|上下|吧)")
_BETWEEN_RE = re.compile(r"(?<![a-z])between\s+(?:\S+\s+and\s*)?$", re.IGNORECASE)


def _time_estimates(text: str, tokens: list[Token]) -> list[Token]:
    """A span of times offered as an estimate (7点到8点之间, 大概7点到8点吧, between 7 and 8 am)
    states neither end; a span without one (营业到22:00, 10:00-22:00) still states its ends."""
    out = list(tokens)
    times = [i for i, t in enumerate(out) if t.kind == "time"]
    for i in times:
        if _BETWEEN_RE.search(text[max(0, out[i].start - 16) : out[i].start]):
            out[i] = replace(out[i], approx=True)
    for a, b in zip(times, times[1:]):
        t1, t2 = out[a], out[b]
        if not (t1.ranged and t2.ranged):
            continue
        before = text[max(0, t1.start - 12) : t1.start].rstrip()
        if _SPAN_AFTER_RE.match(text, t2.end) or any(
            r.search(before) for r in (_CN_APPROX_BEFORE, _EN_APPROX_BEFORE, _CN_BOUND_BEFORE, _EN_BOUND_BEFORE)
        ):
            out[a], out[b] = replace(t1, approx=True), replace(t2, approx=True)
    return out


_COLON_FORM_RE = re.compile(r"\d+:\d{2}(?::\d{2})?")
_CUE_BEFORE_RE = re.compile(
    "|".join(re.escape(w) for w in L.DURATION_CUES_BEFORE if not w.isascii())
    + r"|(?<![a-z])(?:" + "|".join(re.escape(w) for w in L.DURATION_CUES_BEFORE if w.isascii()) + r")(?![a-z])",
    re.IGNORECASE,
)
_CUE_DIRECT_RE = re.compile(
    "(?:" + "|".join(sorted(L.DURATION_CUES_DIRECT, key=len, reverse=True)) + r")\s*(?:"
    + "|".join(sorted(L.APPROX_BEFORE_CN, key=len, reverse=True)) + r")?\s*$"
)
_CLOCK_AFTER_RE = re.compile(r"\s*(?:" + "|".join(re.escape(w) for w in L.CLOCK_WORDS_AFTER) + r")", re.IGNORECASE)
_CUE_AFTER_RE = re.compile(r"\s*(?:" + "|".join(re.escape(w) for w in L.DURATION_CUES_AFTER) + r")", re.IGNORECASE)


def _clock_face(text: str, t: Token, clause: Clause, found: list[Token]) -> bool:
    """Is a duration read from an H:MM a clock time (see ``clock`` in the module docstring)?"""
    if t.kind != "duration" or not _COLON_FORM_RE.fullmatch(text, t.start, t.end):
        return False
    # 下午3:20, 9:00 pm: the time read around it has a period, so it is a time of day.
    if any(o.kind == "time" and o.start <= t.start and t.end <= o.end and (o.start, o.end) != (t.start, t.end)
           for o in found):
        return True
    if _CLOCK_AFTER_RE.match(text, t.end):
        return True  # 行程：9:00出发 names a time
    # The cue may stand earlier on the line: a correction or a denial replaces the duration it
    # named (用时不是120分，是1:30; 全程80分，修正后为1:30; 用时2小时14分吗？不是，是2:15).
    line = text.rfind("\n", 0, t.start) + 1
    return not (_CUE_BEFORE_RE.search(text, min(line, clause.start), t.start)
                or _CUE_DIRECT_RE.search(text, clause.start, t.start) or _CUE_AFTER_RE.match(text, t.end))


class Scan:
    """A text as the tokenizer read it: folded text, clauses and tokens (see the module doc)."""

    def __init__(self, text: object, *, folded: bool = True):
        self.raw = text if isinstance(text, str) else ""
        self.text = fold(text) if folded else self.raw
        # Item numbers of a list are no values (judges.retractions), and each starts a clause.
        self.markers = list_markers(self.text)
        found = [t for t in self._values() if not (t.kind == "number" and _overlaps((t.start, t.end), self.markers))]
        read = clauses(self.text, [(t.start, t.end) for t in found], [a for a, _ in self.markers])
        taken, withdrawn = corrections(self.text, [(c.start, c.end) for c in read],
                                       [(t.start, t.end, _kind_key(t), _value_key(t)) for t in found])
        self.clauses = tuple(replace(c, retracted=True) if i in taken else c for i, c in enumerate(read))
        # Values withdrawn inside a clause (之前说的4个是我数错了) and struck-out text (~~07:00~~).
        self.withdrawn = tuple(withdrawn + struck(self.text))
        self.tokens = self._marked(found)

    def claims(self, a: int, b: int) -> bool:
        """The one claim reading: does the answer claim what stands at text[a:b]? Its clause is
        no question and not taken back, it is not withdrawn, not a list's item number, not one
        of alternatives, and no negation outside the span denies it (negators inside it belong
        to the value: 未通过). Every matcher and check path reads an answer's hits with this."""
        clause = self.clause_at(a)
        if clause.question or self.alternatives(a, b) or self.taken_back(a, b) or self._offered(a, b):
            return False
        if _overlaps((a, b), self.markers):
            return False
        body = self.text[clause.start : a] + " " * (b - a) + self.text[b : clause.end]
        return not denies_at(body, a - clause.start, b - clause.start)

    def _offered(self, a: int, b: int) -> bool:
        """Does text[a:b] lie on a value offered as one of two (5°或6度, 44%/34%, 4-5个, 6:40或7:40)?
        The words beside the span need not be the hedge's: a unit may stand between. A span of
        times (10:00-22:00) still states its ends."""
        return any((t.hedged or (t.ranged and t.kind == "number")) and t.start < b and a < t.end
                   for t in self.tokens)

    def taken_back(self, a: int, b: int) -> bool:
        """Is what stands at text[a:b] taken back (its clause retracted or corrected) or
        withdrawn (an admitted mistake, struck-out text)? Such a value is no claim at all, not
        even one that needs grounding on a screen."""
        return self.clause_at(a).retracted or any(s <= a and b <= e for s, e in self.withdrawn)

    def clause_at(self, pos: int) -> Clause:
        """The clause a position of the folded text is in."""
        for c in self.clauses:
            if c.start <= pos < c.end:
                return c
        return self.clauses[-1]

    def _values(self) -> list[Token]:
        text = self.text
        found: list[Token] = []
        blocked: list[tuple[int, int]] = []
        for start, end, m in D.find_dates(text):
            found.append(Token("date", start, end, m))
            if m.group("cym") is not None:
                blocked.append((m.start("cym") - 1, end))  # 1925年10月: the year stays a number
            elif m.group("rel") is None:
                # A day word (今晚, 明早, tonight) is a date and a time's period at once: 今晚8点
                # holds the date today and the time 20:00, so it does not block the time.
                blocked.append((start, end))
        for start, end, readings in find_times(text):
            if not _overlaps((start, end), blocked):
                found.append(Token("time", start, end, readings))
                blocked.append((start, end))
        for t in _versions(text):
            if not _overlaps((t.start, t.end), blocked):
                found.append(t)
                blocked.append((t.start, t.end))
        for start, end, minutes in find_durations(text):
            # 2:15 may be a time or a duration: both tokens stand, each matcher reads its own kind.
            if not _overlaps((start, end), [(t.start, t.end) for t in found if t.kind == "date"]):
                found.append(Token("duration", start, end, minutes))
        found += _numbers(text, blocked)
        found.sort(key=lambda t: (t.start, t.end))
        return found

    def _marked(self, found: list[Token]) -> tuple[Token, ...]:
        text = self.text
        found = _time_estimates(text, _mark_pairs(text, found))
        parens = [m.span() for m in _PAREN_RE.finditer(text)]
        out = []
        for t in found:
            clause = self.clause_at(t.start)
            body = text[clause.start : clause.end]
            denied = denies_at(body, t.start - clause.start, t.end - clause.start)
            if t.kind == "date" and not denied:
                # A day is when something happens: "明天不会响" denies that it rings that day.
                denied = any(start >= t.end - clause.start for start, _, _ in negators(body))
            out.append(
                replace(
                    t,
                    asserted=not (clause.question or clause.retracted or denied or self.taken_back(t.start, t.end)),
                    approx=t.approx or (t.kind in ("number", "duration") and _bounded(text, t, clause)),
                    paren=any(s < t.start and t.end <= e for s, e in parens),
                    clock=_clock_face(text, t, clause, found),
                )
            )
        return tuple(out)

    def of(self, kind: str, *, asserted: bool | None = True, exact: bool | None = None) -> list[Token]:
        """Tokens of one kind; by default only asserted ones, optionally only exact ones."""
        return [
            t for t in self.tokens
            if t.kind == kind
            and (asserted is None or t.asserted == asserted)
            and (exact is None or t.exact == exact)
        ]

    def date_of(self, token: Token, now: dt.date | None, ref: dt.date | None = None) -> dt.date | None:
        """The calendar date a date token names, against the simulated now (see judges.dates)."""
        return D.resolve(token.value, now, ref)

    def alternatives(self, start: int, end: int) -> bool:
        """Is text[start:end] offered as one of alternatives (北京或上海, A or B)?"""
        # 《肖申克的救赎》或《霸王别姬》: the quote marks around a name do not hide the 或.
        before = self.text[max(0, start - 7) : start].rstrip().rstrip("《「『“\"'(").rstrip().lower()
        after = self.text[end : end + 7].lstrip().lstrip("》」』”\"')").lstrip().lower()
        words = tuple(w for w in L.HEDGE_WORDS if w != "either")
        # 还是 before a value is "still" (今天还是多云); after one it offers another (北京还是上海).
        return before.endswith(tuple(w for w in words if w != "还是")) or after.startswith(words)


_SCALELESS = frozenset({"°", "°c", "℃", "度", "摄氏度", "degrees", "degree"})


def _kind_key(t: Token) -> str:
    """What kind of value a token is, for corrections: "number:度" (degrees of any spelling)."""
    if t.kind != "number":
        return t.kind
    unit = t.unit.strip().lower()
    return f"number:{'度' if unit in _SCALELESS else unit}"


def _value_key(t: Token) -> object:
    return t.value.group(0) if t.kind == "date" else t.value


def scan(text: object) -> Scan:
    """Read a text: folded text, clauses, every value (module doc); once per text in a pass (judges.memo)."""
    return once("scan", text, Scan)
