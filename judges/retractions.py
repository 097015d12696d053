"""What an answer takes back or never claims: corrections, admitted mistakes, list markers and
struck-out text. Pure; the tokenizer (``judges.tokens``) reads every answer through it, so every
matcher and check path sees the same claims.

* A correction: a clause that starts with a correcting word (修正后为, 更正为, 应该是, 抱歉,
  actually, sorry, scratch that …) takes back the nearest earlier clause holding a value of the
  kind it gives ("温度是20度，修正后为22度", "20 degrees, actually 22"); when it gives no value
  of its own (抱歉，是22度: the value comes in the next clause) the kind is that of the next clause;
  when it gives none at all, the clause right before it is taken back. The correcting clause
  itself is the claim.
* An admitted mistake (看错, 数错, 说错了, 有误, misread, my mistake …): values before the word in
  its clause are withdrawn, and when the clause names them as said before (之前说的4个是我数错了,
  "the 4 I said earlier was wrong") that value is withdrawn wherever the answer gives it. A
  clause that withdraws no value of its own (抱歉看错了，是22度) takes back the clause before it.
* List markers: item numbers of a numbered list ("1. 北京 2. 上海", "1、… 2、…", "(1) … (2) …")
  are no values: a run of two or more consecutive item numbers from 1, each before an item's text,
  or a lone "1. " opening the line below a colon (a list of one). A
  marker starts a clause, so what one item says (已关闭) is not said of the next.
* Struck-out text (markdown ``~~07:00~~``) is marked off: nothing in it is claimed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from . import lexicon as L

__all__ = ["list_markers", "struck", "corrections"]

_MARKER_RE = re.compile(
    r"(?:^|(?<=[\s:;,。、!?]))(?P<open>\()?(?P<n>\d{1,2})(?(open)\)|(?:\.(?!\d)|[、)]))(?=\s+[^\s.,;:。、)%]|\s*[^\s\d.,;:。、)%]|\d{1,2}:\d{2}|\s*$)"
)
_STRUCK_RE = re.compile(r"~~[^~]+~~")
_LEAD_CN = "|".join(sorted(L.CORRECTION_LEADS_CN, key=len, reverse=True))
_LEAD_EN = "|".join(re.escape(w) for w in sorted(L.CORRECTION_LEADS_EN, key=len, reverse=True))
_LEAD_RE = re.compile(
    rf"^[\s,.;:!?()\[\]\"'“”、，。；：！？…\-—~]*(?:{_LEAD_CN}|(?<![a-z])(?:{_LEAD_EN})(?![a-z]))", re.IGNORECASE
)
_STRONG_RE = re.compile(
    r"^[\s,.;:!?()\[\]\"'“”、，。；：！？…\-—~]*(?:" + "|".join(re.escape(w) for w in L.STRONG_CORRECTION_LEADS) + ")",
    re.IGNORECASE,
)
# What is left of a correcting clause when it says nothing but the correction (抱歉我看错了, "Sorry, I
# misread"): then the value it brings is in the next clause.
_FILLER_RE = re.compile(r"[我了的刚才之前\s,.;:!?，。！？]|(?<![a-z])(?:i|oh|ah|um|me)(?![a-z])", re.IGNORECASE)
_MID_RE = re.compile("修正后为|修正为|更正为|更正后为|纠正为|订正为|改正为")
_MISTAKE_RE = re.compile(
    "|".join(sorted(L.MISTAKE_WORDS_CN, key=len, reverse=True))
    + r"|(?<![a-z])(?:" + "|".join(re.escape(w) for w in L.MISTAKE_WORDS_EN) + r")(?![a-z])",
    re.IGNORECASE,
)
_SAID_RE = re.compile(
    "|".join(re.escape(w) for w in L.SAID_BEFORE if not w.isascii())
    + r"|(?<![a-z])(?:" + "|".join(re.escape(w) for w in L.SAID_BEFORE if w.isascii()) + r")(?![a-z])",
    re.IGNORECASE,
)
_EDGE = " ,.;:!?()[]\"'“”‘’、，。；：！？…-—~"

# One value as the tokenizer found it: (start, end, kind, key) — the key compares two values.
Value = tuple[int, int, str, object]
# One clause as (start, end).
Span = tuple[int, int]


def list_markers(text: str) -> list[Span]:
    """The spans of a list's item numbers (see the module docstring)."""
    found = [(m.span(), int(m.group("n"))) for m in _MARKER_RE.finditer(text)]
    out: list[Span] = []
    run: list[tuple[Span, int]] = []
    for span, n in found + [((-1, -1), -1)]:
        if run and n == run[-1][1] + 1:
            run.append((span, n))
            continue
        if (len(run) >= 2 and run[0][1] == 1) or (len(run) == 1 and _lone_item(text, *run[0])):
            out += [sp for sp, _ in run]
        run = [(span, n)]
    return out


def _lone_item(text: str, span: Span, n: int) -> bool:
    """A one-item list: "1. " opening a line below a line that ends in a colon (结果如下：\n1. …,
    Here is what I found:\n1. …) is the item number of a list of one, as markdown shows it."""
    a, b = span
    if n != 1 or a <= 0 or text[a - 1] != "\n" or not text[b : b + 1].isspace():
        return False
    return text[:a].rstrip().endswith((":", "："))


def struck(text: str) -> list[Span]:
    """Spans of struck-out text (``~~…~~``)."""
    return [m.span() for m in _STRUCK_RE.finditer(text)]


def _kinds(values: Sequence[Value], span: Span) -> list[str]:
    return [v[2] for v in values if span[0] <= v[0] < span[1]]


def _fits(kinds: Sequence[str], others: Sequence[str]) -> bool:
    """Is a value of one of `others` of a kind in `kinds`? A kind is "number:度": two numbers
    are of one kind when their units agree or one has none (20度 … actually 22)."""
    for a in kinds:
        ka, _, ua = a.partition(":")
        for b in others:
            kb, _, ub = b.partition(":")
            if ka == kb and (ua == ub or not ua or not ub):
                return True
    return False


def corrections(text: str, spans: Sequence[Span], values: Sequence[Value]) -> tuple[set[int], list[Span]]:
    """(indexes of the clauses taken back, spans withdrawn inside clauses) for an answer whose
    clauses are `spans` and whose values are `values` (see the module docstring)."""
    taken: set[int] = set()
    withdrawn: list[Span] = []

    def take_back(i: int, kinds: list[str], *, phrases: bool = False) -> None:
        """Take back the nearest clause before i holding a value of one of `kinds` (or the one
        right before, when no kind is given; with `phrases`, only when that one holds no value
        either: "今天多云，实际上是晴" corrects a phrase with a phrase)."""
        for j in range(i - 1, -1, -1):
            body = text[spans[j][0] : spans[j][1]]
            if not body.strip(_EDGE):
                continue
            if not kinds and not _kinds(values, spans[j]) and (_LEAD_RE.match(body) or _MISTAKE_RE.search(body)):
                continue  # "Sorry, I misread": the apology is not what the admission takes back
            if phrases and any(k != "date" for k in _kinds(values, spans[j])):
                return  # (a day word, 今天多云, is when, not the value corrected)
            if not kinds or _fits(kinds, _kinds(values, spans[j])):
                taken.add(j)
                return

    for i, (start, end) in enumerate(spans):
        body = text[start:end]
        mid = _MID_RE.search(body)
        if mid is not None and mid.start() > 0 and [v for v in values if start <= v[0] < start + mid.start()]:
            withdrawn.append((start, start + mid.start()))  # 温度是20度更正为22度
            continue
        lead = _LEAD_RE.match(body)
        mistake = _MISTAKE_RE.search(body)
        if mistake is not None:
            # The admission speaks of its own part of the clause: from an opening bracket or
            # from the words naming what was said (一共5个（之前说的4个是我数错了）keeps the 5).
            said = _SAID_RE.search(body, 0, mistake.start())
            opened = max((m.end() for m in re.finditer(r"[(（【\[]", body[: mistake.start()])), default=0)
            own = start + max(opened, said.start() if said else 0)
            before = [v for v in values if own <= v[0] and v[1] <= start + mistake.start()]
            if before or said:
                # 之前说的4个是我数错了: what stands before the admission is withdrawn, and a
                # value named as said before is withdrawn wherever the answer gives it.
                withdrawn.append((own, start + mistake.start()))
                if said:
                    keys = {(v[2], v[3]) for v in before}
                    withdrawn += [(v[0], v[1]) for v in values if (v[2], v[3]) in keys]
                continue
        if lead is None and mistake is None:
            continue
        kinds = _kinds(values, (start, end))
        rest = body[lead.end() if lead else 0 :]
        rest = _FILLER_RE.sub("", _MISTAKE_RE.sub("", rest)).strip(_EDGE)
        if not kinds and not rest and i + 1 < len(spans):
            # 抱歉，是22度 / "Sorry, I misread, it is 22": the value comes in the next clause.
            kinds = _kinds(values, spans[i + 1])
        if kinds:
            take_back(i, kinds)
        elif mistake is not None or _STRONG_RE.match(body):
            take_back(i, [])
        elif rest:
            take_back(i, [], phrases=True)
    return taken, withdrawn
