"""What an answer claims about the asked subject: yes/no, which of two is more, which items.

A careful grader does not ask whether the answer mentions the right words but what it says
about the thing asked. These readers work clause by clause on the tokenizer's output
(``judges.tokens``); each returns ``None`` when the answer does not commit to one claim (no
claim, or two that disagree), and a task fails on ``None``.

* ``rain_on`` — does the answer say it rains on a day? A clause speaks about the days it names;
  a clause that names none continues the previous clause's days, and an answer that names no day
  speaks about the asked one ("要带伞，明天有中雨", "明天不下雨", "会下雨"). Rain words (雨, 带伞,
  rain, umbrella) in an asserted clause say yes, in a negated one no; dry words (晴, 多云, 阴,
  sunny) say no unless the clause also has rain (阴转小雨 is rain). Yes and no for one day
  (可能下雨也可能不下, 明天不一定下雨) commit to nothing.
* ``more_of`` — which of two names is more (hotter): 北京比广州热, 广州没有北京热, 广州不如北京热,
  更热的是北京, 北京更热, X is hotter than Y, Y is cooler; a tie (一样热, 温度相同, the same); or,
  with no comparative, the one whose stated value is larger (北京20度，广州28度). A claim in a
  negated clause is not made (北京不比广州热 decides nothing).
* ``listed`` items: dates said to rain (with ranges expanded), times, numbers in order.
* ``outclaimed`` — is a value the answer mentions not what it claims as the answer to the
  question? It is when the answer asserts another value of the same kind (another quoted title,
  another number with the same unit, another date) in a clause that speaks more to the question
  than the value's own clause: "第一名是《霸王别姬》，《肖申克的救赎》排第二" claims 霸王别姬 for
  第一名; "故宫博物院成立于1949年，紫禁城1925年对外开放" claims 1949 for 成立. A clause speaks to
  the question by the words it shares with it (Chinese character pairs and Latin words, the
  values themselves left out). A value the question itself holds (123 and 456 of 算123×456)
  restates it and is no rival; a tie leaves the value its claim.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Sequence

from . import dates as D
from .tokens import QUOTE_RE, Clause, Scan, Token, _denies, denies_at, negators, scan

__all__ = ["rain_on", "rain_days", "more_of", "outclaimed", "TIE"]

TIE = "tie"
# 雨停了, the rain stops: the day is dry from then on.
_RAIN_STOPS_RE = re.compile(r"雨(?:已经|就|会|也)?(?:停|住)|停雨|雨过天晴|(?<![a-z])rain\s+(?:will\s+)?(?:stops?|ends?)(?![a-z])", re.IGNORECASE)
_RAIN_RE = re.compile(r"雨(?!伞)|伞|(?<![a-z])(?:rain\w*|showers?|drizzle|thunderstorms?|umbrella)(?![a-z])", re.IGNORECASE)
_DRY_RE = re.compile(r"晴|多云|阴|(?<![a-z])(?:sunny|clear|cloudy|overcast|dry)(?![a-z])", re.IGNORECASE)
# 下雨的可能性不大: rain named, and said to be unlikely.
_UNLIKELY_RE = re.compile(r"(?:可能性|概率|几率|机会|可能)(?:很|比较|非常)?(?:不大|很小|很低|较低|较小|低|小)"
                          r"|(?<![a-z])(?:unlikely|little chance|low chance)(?![a-z])", re.IGNORECASE)
_UNSURE_RE = re.compile(r"不一定|说不定|不确定|不好说|难说|也可能不|也许不|或许不|或者不|(?<![a-z])(?:not sure|maybe not|uncertain)(?![a-z])", re.IGNORECASE)
_ELLIPTIC_RE = re.compile(r"(?:[会要将也还没不]|能)(下)(?:了|的|呢)?$")
_BARE_YES = frozenset("会 会的 要 要的 需要 是 是的 对 有 会下 下 yes yeah yep 需要带".split())
_BARE_NO = frozenset("不会 不 不要 不需要 没有 不下 否 no nope 不用 不必 不会的".split())
_EDGE = " ,.;:!?()\"'“”、，。；：！？"


def _subject_dates(s: Scan, clause: Clause, now: dt.date | None) -> set[dt.date]:
    out: set[dt.date] = set()
    for t in s.tokens:
        if t.kind == "date" and clause.start <= t.start < clause.end:
            out |= set(_dates_of(s, t, now))
    return out


def _dates_of(s: Scan, t: Token, now: dt.date | None) -> list[dt.date]:
    d = D.resolve(t.value, now)
    return [d] if d is not None else []


def _rain_polarity(s: Scan, clause: Clause) -> set[str]:
    """"yes", "no" (rain denied), "dry" (dry weather named), or yes and no, for one clause."""
    body = s.text[clause.start : clause.end]
    core = body.strip(_EDGE).lower()
    if clause.question:
        return set()
    if _UNSURE_RE.search(body):
        return {"yes", "no"}
    if core in _BARE_YES:
        return {"yes"}
    if core in _BARE_NO:
        return {"no"}
    stops = _RAIN_STOPS_RE.search(body)
    if stops and not clause.retracted and not denies_at(body, stops.start(), stops.end()):
        return {"no"}
    rain = list(_RAIN_RE.finditer(body))
    if rain:
        if clause.retracted or _UNLIKELY_RE.search(body):
            return {"no"}
        # 不下雨, 不用带伞: a negator before the rain word denies it; 下雨不冷, 雨不大 still rain.
        said = {"no" if denies_at(body, m.start(), m.end()) else "yes" for m in rain}
        return {"yes"} if "yes" in said else {"no"}
    # 明天不会下, 后天会下: in an answer about rain, a clause ending on 下 leaves 雨 unsaid.
    elliptic = _ELLIPTIC_RE.search(body.rstrip(_EDGE))
    if elliptic and not clause.retracted:
        return {"no" if denies_at(body, elliptic.start(1), elliptic.end(1)) else "yes"}
    dry = _DRY_RE.search(body)
    if dry and not clause.retracted:
        # 晴天不冷 is dry; 不是晴天 says nothing about rain.
        return set() if denies_at(body, dry.start(), dry.end()) else {"dry"}
    return set()


def _rain_claims(s: Scan, now: dt.date | None) -> list[tuple[set[dt.date] | None, set[str], Clause]]:
    """(the days a clause speaks about — None when no day was named yet —, its polarity, clause)."""
    out = []
    current: set[dt.date] | None = None
    for c in s.clauses:
        named = _subject_dates(s, c, now)
        if named:
            current = named
        out.append((current, _rain_polarity(s, c), c))
    return out


def rain_on(text: str, day: dt.date, os_state: object) -> bool | None:
    """Does the answer say it rains on `day`? None when it does not commit (see the module doc)."""
    s = scan(text)
    now = D.now_date(os_state)
    said: set[str] = set()
    for days, polarity, _ in _rain_claims(s, now):
        if days is None or day in days:
            said |= polarity
    # A day that is cloudy with showers in the evening rains; "no rain" and "rain" disagree.
    if "yes" in said:
        return None if "no" in said else True
    return False if said else None


def rain_days(text: str, os_state: object) -> set[dt.date]:
    """The days the answer says it rains on (a range 4月5日到4月7日 names every day in it; a
    restatement in parentheses names its day again). Days it says are dry are left out. A clause
    that is only a list of days ("Sunday," before "Monday and Thursday will be rainy") takes its
    weather from the clause it continues or the one that completes it."""
    s = scan(text)
    now = D.now_date(os_state)
    out: set[dt.date] = set()
    tokens = [t for t in s.tokens if t.kind == "date" and not t.hedged]
    pending: set[dt.date] = set()
    previous: set[str] = set()
    for c in s.clauses:
        inside = [t for t in tokens if c.start <= t.start < c.end]
        if inside and _only_days(s, c, inside):
            days = _expand(s, inside, now)
            if _rains(previous):
                out |= days
            else:
                pending |= days
            continue
        polarity = _rain_polarity(s, c)
        if _rains(polarity):
            out |= pending
        if polarity:
            pending = set()
        previous = polarity if inside or polarity else previous
        # Within a list (今天小雨、明天晴), an item with its own weather words speaks for itself.
        start = c.start
        for seg_end in [m.start() for m in re.finditer("、", s.text[c.start : c.end])] + [c.end - c.start]:
            seg = Clause(start, c.start + seg_end, negated=c.negated, question=c.question, retracted=c.retracted)
            start = c.start + seg_end + 1
            seg_tokens = [t for t in inside if seg.start <= t.start < seg.end]
            body = s.text[seg.start : seg.end]
            own = polarity if not (_RAIN_RE.search(body) or _DRY_RE.search(body)) else _rain_polarity(
                s, Clause(seg.start, seg.end, negated=_denies(body), question=c.question, retracted=c.retracted)
            )
            if _rains(own):
                out |= _expand(s, seg_tokens, now)
    if not out and pending and not any(_rain_polarity(s, c) for c in s.clauses):
        # "今天、明天、4月9号": an answer that only lists days answers "which days rain".
        out = pending
    return out


def _rains(polarity: set[str]) -> bool:
    return "yes" in polarity and "no" not in polarity


_LIST_FILLER_RE = re.compile(
    r"(?:[\s,、/&:]|和|及|与|以及|只有|只|仅|就是|(?<![a-z])(?:and|only|just|on)(?![a-z]))*", re.IGNORECASE
)


def _only_days(s: Scan, c: Clause, inside: Sequence[Token]) -> bool:
    pos = c.start
    for t in inside:
        if not _LIST_FILLER_RE.fullmatch(s.text, pos, t.start):
            return False
        pos = t.end
    return bool(_LIST_FILLER_RE.fullmatch(s.text.rstrip(".;!?。"), pos, min(c.end, len(s.text.rstrip(".;!?。")))))


def _expand(s: Scan, tokens: Sequence[Token], now: dt.date | None) -> set[dt.date]:
    days: set[dt.date] = set()
    resolved = [(t, D.resolve(t.value, now)) for t in tokens]
    for i, (t, d) in enumerate(resolved):
        if d is None:
            continue
        days.add(d)
        if t.ranged and i + 1 < len(resolved) and resolved[i + 1][0].ranged and resolved[i + 1][1] is not None:
            end = resolved[i + 1][1]
            if d < end and (end - d).days <= 31:
                days |= {d + dt.timedelta(days=k) for k in range((end - d).days + 1)}
    return days


# -- comparisons ----------------------------------------------------------------------------------

_MORE = r"(?:热|暖和|暖|高|hotter|warmer|higher)"
_LESS = r"(?:冷|凉快|凉|低|colder|cooler|lower)"
_ADV = r"(?:还|更|稍|略|要|更加|稍微|略微|比较|一些|一点|些)*"
# A name after 比/没有/不如 is what the other is compared with, not the subject.
_NOT_OBJECT = r"(?<!比)(?<!没有)(?<!不如)(?<!不及)(?<!than )"
_TIE_RE = re.compile(
    r"一样|相同|一致|差不多|持平|相等|都是|(?<![a-z])(?:same|equal|tied?|both\s+(?:are|were|at|have|show|read)|neither\s+is)(?![a-z])",
    re.IGNORECASE,
)


def more_of(
    text: str,
    a: str | Sequence[str],
    b: str | Sequence[str],
    values: Callable[[Scan, str], float | None] | None = None,
) -> str | None:
    """Which of `a` and `b` the answer says is more (hotter); TIE; or None (see the module doc).

    A name may come with aliases (("广州", "Guangzhou")); the first is returned. `values` reads a
    name's stated value from the scan, for answers that only give the values. In order: explicit
    comparisons (北京比广州热, 更热的是广州, 北京更热); bare ones (广州热, 北京冷); the stated values;
    the one name the answer asserts.
    """
    s = scan(text)
    names_a = [a] if isinstance(a, str) else list(a)
    names_b = [b] if isinstance(b, str) else list(b)
    canon = {n.casefold(): names_a[0] for n in names_a} | {n.casefold(): names_b[0] for n in names_b}
    other = {names_a[0]: names_b[0], names_b[0]: names_a[0]}
    names = "(?:" + "|".join(re.escape(n.casefold()) for n in sorted(canon, key=len, reverse=True)) + ")"
    # 广州（28℃）比北京（20℃）热, Shanghai (18°C) is warmer: a value in brackets after a name.
    nt = r"(?:\s*\([^()]*\))?(?:的?(?:温度|气温))?"
    strong = (
        (rf"(?P<x>{names}){nt}{_ADV}比(?P<y>{names}){nt}{_ADV}{_MORE}", "x"),
        (rf"(?P<x>{names}){nt}{_ADV}比(?P<y>{names}){nt}{_ADV}{_LESS}", "y"),
        (rf"(?P<x>{names}){nt}(?:没有|不如|不及)(?P<y>{names}){_ADV}{_MORE}", "y"),
        (rf"(?:更|比较|最){_MORE}的(?:城市|地方|是|:)*\s*(?:是)?(?P<x>{names})", "x"),
        (rf"(?:更|比较|最){_LESS}的(?:城市|地方|是|:)*\s*(?:是)?(?P<x>{names})", "other"),
        (rf"{_NOT_OBJECT}(?P<x>{names}){nt}{_ADV}(?:更|要|比较|稍|略)+{_ADV}{_MORE}", "x"),
        (rf"{_NOT_OBJECT}(?P<x>{names}){nt}{_ADV}(?:更|要|比较|稍|略)+{_ADV}{_LESS}", "other"),
        (rf"{_NOT_OBJECT}(?P<x>{names}){nt}{_MORE}(?:一些|一点|些)", "x"),
        (rf"{_NOT_OBJECT}(?P<x>{names}){nt}{_LESS}(?:一些|一点|些)", "other"),
        (rf"(?P<x>{names}){nt}(?:'s temperature)?\s+(?:is|was|feels)\s+(?:a bit\s+|slightly\s+|much\s+)?{_MORE}", "x"),
        (rf"(?P<x>{names}){nt}(?:'s temperature)?\s+(?:is|was|feels)\s+(?:a bit\s+|slightly\s+|much\s+)?{_LESS}", "other"),
        (rf"{_MORE}\s+in\s+(?P<x>{names})", "x"),
    )
    bare = (
        (rf"{_NOT_OBJECT}(?P<x>{names}){nt}(?:很|挺|比较)?(?:热|暖和|高)(?![^,]*比)", "x"),
        (rf"{_NOT_OBJECT}(?P<x>{names}){nt}(?:很|挺|比较)?(?:冷|凉快|凉|低)(?![^,]*比)", "other"),
    )
    hay = s.text.casefold()

    def found(patterns) -> set[str]:
        claims: set[str] = set()
        for c in s.clauses:
            if c.question or c.retracted:
                continue
            body = hay[c.start : c.end]
            for pattern, who in patterns:
                for m in re.finditer(pattern, body, re.IGNORECASE):
                    # 没有/不如 inside the comparison are part of it; a negator outside denies it.
                    if denies_at(body[: m.start()] + " " * (m.end() - m.start()) + body[m.end() :], m.start(), m.end()):
                        continue
                    if s.taken_back(c.start + m.start(), c.start + m.end()):
                        continue  # 北京更热（之前说的北京更热是我看错了）: withdrawn
                    x = canon[m.group("x")]
                    claims.add(x if who == "x" else canon[m.group("y")] if who == "y" else other[x])
        return claims

    claims = found(strong)
    for c in s.clauses:
        body = hay[c.start : c.end]
        tie = _TIE_RE.search(body)
        # The one claim reading (Scan.claims): 一样冷吗？不一样 asks and denies, no tie.
        if tie and s.claims(c.start + tie.start(), c.start + tie.end()) and not denies_at(body, tie.start(), tie.end()):
            claims.add(TIE)
    if not claims:
        claims = found(bare)
    if len(claims) == 1:
        return claims.pop()
    if claims:
        return None
    if values is not None:
        va, vb = values(s, names_a[0]), values(s, names_b[0])
        if va is not None and vb is not None:
            return TIE if va == vb else names_a[0] if va > vb else names_b[0]
    from .matchers import phrase_hits

    said = {canon[n.casefold()] for n in canon if phrase_hits(n, s)}
    return said.pop() if len(said) == 1 else None


# -- the claim among rivals -----------------------------------------------------------------------

_WORD_RE = re.compile(r"[a-z][a-z0-9]*|[\u4e00-\u9fff\d]+")


# A rank however it is written (第1名, 排第1, Top1, No.1, #1, 榜首) is one word, "#1": "Top1是
# 《霸王别姬》" speaks to "第一名是哪部" as much as "第一名是《霸王别姬》" does.
_RANK_RE = re.compile(r"(?:第|(?<![a-z])top\s*|(?<![a-z])no\.?\s*|#)(\d{1,3})(?!\d)|(?P<first>榜首|首位|冠军|头名)", re.IGNORECASE)


def _words(text: str) -> set[str]:
    """What a clause talks about: pairs of Chinese characters (and digits), whole Latin words and
    ranks."""
    out: set[str] = {"#1" if m.group("first") else f"#{int(m.group(1))}" for m in _RANK_RE.finditer(text)}
    for m in _WORD_RE.finditer(text.casefold()):
        w = m.group(0)
        if w[0].isascii() and w[0].isalpha():
            if len(w) > 1:
                out.add(w)
        else:
            out |= {w[i : i + 2] for i in range(len(w) - 1)}
    return out


def _blank(text: str, spans: Sequence[tuple[int, int]]) -> str:
    chars = list(text)
    for a, b in spans:
        chars[a:b] = [" "] * (b - a)
    return "".join(chars)


def _quote_inner(m: re.Match[str]) -> str:
    return re.sub(r"\s+", "", next(g for g in m.groups() if g is not None)).casefold()


def _key(t: Token) -> object:
    return t.value.group(0) if t.kind == "date" else t.value


def _values_of_kind(s: Scan, span: tuple[int, int]) -> tuple[list[tuple[tuple[int, int], object]], object] | None:
    """Every value in the answer of the kind of the one at `span` (with a key to compare them),
    and the key of the one at `span`; None when `span` holds no value the tokenizer knows."""
    quotes = list(QUOTE_RE.finditer(s.text))
    for q in quotes:
        if q.start() <= span[0] and span[1] <= q.end():
            return [(m.span(), ("quote", _quote_inner(m))) for m in quotes], ("quote", _quote_inner(q))
    for t in s.tokens:
        if t.start < span[1] and span[0] < t.end and t.kind != "duration":
            same = [u for u in s.tokens if u.kind == t.kind and u.unit == t.unit]
            return [((u.start, u.end), (u.kind, _key(u))) for u in same], (t.kind, _key(t))
    return None


def outclaimed(s: Scan, span: tuple[int, int], question: str) -> bool:
    """Is the value at `span` only mentioned, while the answer claims another value of its kind
    for what the question asks (see the module docstring)?"""
    found = _values_of_kind(s, span)
    if found is None or not question.strip():
        return False
    from .matchers import asserted_at

    values, key = found
    q = scan(question)
    # The question's values of the same kind are left out of its words too (哪一年 for a year:
    # 年成立 stays), and a rival the question holds only restates it (算123×456).
    if key[0] == "quote":
        q_values = [(m.span(), ("quote", _quote_inner(m))) for m in QUOTE_RE.finditer(q.text)]
    else:
        unit = next(t.unit for t in s.tokens if t.start < span[1] and span[0] < t.end and t.kind == key[0])
        q_values = [((t.start, t.end), (t.kind, _key(t))) for t in q.tokens if t.kind == key[0] and t.unit == unit]
    asked = {k for _, k in q_values}
    want = _words(_blank(q.text, [sp for sp, _ in q_values]))
    text = _blank(s.text, [sp for sp, _ in values])

    def speaks(pos: int) -> int:
        c = s.clause_at(pos)
        return len(_words(text[c.start : c.end]) & want)

    own = speaks(span[0])
    # 《肖申克的救赎》并未排第一: a negation after the value denies what its clause says of it, so
    # a rival asserted for the same question, not less to the point, is the claim.
    c = s.clause_at(span[0])
    own_denied = any(start >= span[1] - c.start for start, _, _ in negators(s.text[c.start : c.end]))

    def beats(sp: tuple[int, int]) -> bool:
        other = speaks(sp[0])
        return other > own or (own_denied and other == own and other > 0 and s.clause_at(sp[0]) != c)

    return any(
        k != key and k not in asked and asserted_at(s, *sp) and beats(sp)
        for sp, k in values
        if not (sp[0] < span[1] and span[0] < sp[1])
    )
