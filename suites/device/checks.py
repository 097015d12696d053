"""What the real-device checks read, pure functions of a check's values and a replayed run.

The kinds themselves (each one class with its validation, resolution and run) are in
``suites/device/kinds.py``; this module holds the reading they share, with the rules below.

Substitution. ``{run}`` in a marker or any check value is the run's ``batch``; ``{probe:<name>}``
is that run's ``probe_read`` value; a missing one raises :class:`Unresolved` (the verdict is then
an error naming it). In ``answer_regex`` patterns the substituted value is escaped, so a batch
named ``b1.0`` matches itself literally. ``{app:<capability>}`` is read only in ``packageName``.

``answer_grounded`` reads the answer and the screens with the shared tokenizer
(``judges.tokens``), so a value means the same on both sides (the seed leaves the details open;
tests pin each one):

* Items are: quoted names (inside “”, "", 「」, 『』, 《》, as written: 《三体》 is 三体); the text
  values of ``label: value`` pairs without digits; times; absolute dates; durations; versions;
  numbers. Repeated items count once toward ``minItems``.
* A time keeps its period: 下午3点 is 15:00 and is grounded by 15:00 or a bare 3:00, never by
  03:00; 早上6点40分 is not grounded by 6:40 PM. A date keeps its order: 4月5日 is grounded by
  04-05 or 2026年4月5日, never by 5月4日. A version is kept whole: MIUI 12.5 is not grounded by
  MIUI 12.5.1, and 12 is not a number on a screen that shows 12.5. A duration is its minutes
  (1小时5分 is grounded by 65分钟); the numbers inside it are not items of their own.
* Numbers have their sign, thousands separators and scale on both sides (56,088 = 56088,
  1.2万 = 12000, 负5 = -5). Punctuation around a number never loses it: "25." at the end of a
  sentence, "(25元)", "25、30、35". List markers ("1. ", "2、" before an item's text) are not
  items, nor are ranks (第一条, 前三个) or the article 一 (一款, 一班): those restate the question.
* ``answer_regex`` matches whole values: a match may not start or end inside a number, so
  "8\\.9\\d?%" does not pass 18.93% even when the task did not anchor it.
* ``answer_regex`` and ``answer_contains`` count a hit only where the answer claims it, by the
  one claim reading every path shares (``Scan.claims``): not in a clause that denies it
  (不是8.93%，是9.8%) or asks it and is denied (一样吗？不一样), not taken back (20度，不对，是22度;
  之前说的4个是我数错了), not a list's item number, and not beside another value of its kind that
  the answer gives for what the goal asks (第一名是《霸王别姬》，《肖申克的救赎》排第二). A hit is a
  whole value: 唐人街探案 does not pass 唐人街探案3, nor MyWifi MyWifi-5G (``judges.names``).
* ``answer_grounded`` needs no screen for a value the answer takes back: it is not claimed.
* ``screen_has`` and ``confirmation_shows`` compare whole values too: 6:40 is on "06:40" but
  not on "16:40"; amount 25 is not shown by ¥125 or 1,025. A time is compared by meaning: 06:40
  is not on "6:40 下午".
"""

from __future__ import annotations

import math
import re
from typing import Any

from judges import dates as D
from judges.claims import outclaimed
from judges.matchers import asserted_at, phrase_hits, phrase_spans, whole_at
from judges.memo import once
from judges.screens import clocks, folded, scanned
from judges.lexicon import DISCOUNT_WORDS
from judges.tokens import QUOTE_RE, fold, scan
from replay.state import RunState


class Unresolved(LookupError):
    """A placeholder that this run cannot fill: a probe it did not read, or no batch for {run}."""

    def __init__(self, what: str):
        super().__init__(what)
        self.what = what


_PLACEHOLDER_RE = re.compile(r"\{(run|probe:[^{}]+)\}")


def substitute(text: str, state: RunState, *, regex: bool = False) -> str:
    """Fill ``{run}`` and ``{probe:<name>}`` from the run; raises Unresolved."""

    def one(m: re.Match[str]) -> str:
        key = m.group(1)
        if key == "run":
            if not state.batch:
                raise Unresolved("the run has no batch for {run}")
            value = state.batch
        else:
            name = key[len("probe:"):]
            if name not in state.probes:
                raise Unresolved(f"missing probe {name}")
            value = state.probes[name]
        return re.escape(value) if regex else value

    return _PLACEHOLDER_RE.sub(one, text)


def _sub_any(value: Any, state: RunState) -> Any:
    return substitute(value, state) if isinstance(value, str) else value


# -- the final answer ------------------------------------------------------------------------------


def final_answer(state: RunState) -> str | None:
    """The run's final answer: the answer_given text, else the AnswerSheet's first field."""
    if state.answer is not None:
        return state.answer
    value = state.sheet.value(0)
    return None if value is None else str(value)


def whole_spans(pattern: re.Pattern[str], text: str) -> list[tuple[int, int]]:
    """Where the pattern matches a whole value of the text. A match may not cut a number: one
    that starts with a digit may not follow a digit (or a digit and "." or ","), one that ends
    with a digit may not be followed by a digit, ",ddd" or ".d". So "8\\.9\\d?%" does not pass
    18.93% and "56088" does not pass 156088, whether or not the task anchored its pattern."""
    out = []
    for pos in range(len(text) + 1):
        m = pattern.match(text, pos)
        if m is None or m.end() == m.start():
            continue
        a, b = m.start(), m.end()
        if text[a:a + 1].isdigit() and (text[a - 1:a].isdigit() or re.search(r"\d[.,]$", text[max(0, a - 2):a])):
            continue
        if text[b - 1:b].isdigit() and re.match(r"\d|[.,]\d", text[b:b + 2]):
            continue
        if not whole_at(text, a, b):
            continue  # a name with a suffix is another name: 唐人街探案 is not in 唐人街探案3
        out.append((a, b))
    return out


def whole_match(pattern: re.Pattern[str], text: str) -> bool:
    """Does the pattern match a whole value of the text (see `whole_spans`)?"""
    return bool(whole_spans(pattern, text))


def claimed(answer: str, spans: list[tuple[int, int]], goal: str) -> bool:
    """Is one of the spans (in the folded answer) claimed as the answer: asserted (不是8.93% is
    not; nor are alternatives or a question), and not a mention beside another value the answer
    claims for what the goal asks (judges.claims.outclaimed: "第一名是《霸王别姬》，《肖申克的
    救赎》排第二")? answer_regex and answer_contains read their hits alike."""
    s = scan(answer)
    return any(asserted_at(s, a, b) and not outclaimed(s, (a, b), goal) for a, b in spans)


# -- answer_grounded ----------------------------------------------------------------------------------

_LIST_MARKER_RE = re.compile(
    r"(?:^|(?<=[\s:;,。;、]))[(]?\d{1,2}(?:[、)]|\.(?!\d))(?=\s*[^\s\d.,;:。、)%])"
)
_LABEL_RE = re.compile(r"([^\s:,。;、!?()\[\]【】]{1,20})\s*:(?!//)\s*")
_CLAUSE_END_RE = re.compile(r"[。;、!?\n]|(?<!\d),|,(?!\d{3}(?!\d))")
_WS_RE = re.compile(r"\s+")
_H_FORM_RE = re.compile(r"\d{1,2}h[0-5]\d", re.IGNORECASE)


def _squeeze(text: str) -> str:
    return _WS_RE.sub("", text).casefold()


def _fmt_number(value: float) -> str:
    return str(int(value)) if value == int(value) and abs(value) < 1e15 else repr(value)


_RANK_RE = re.compile(r"(?:第|前|头|排名|top\s*|no\.?\s*|#)$", re.IGNORECASE)


def _restates(text: str, t: Any) -> bool:
    if _RANK_RE.search(text[max(0, t.start - 4) : t.start]):
        return True
    # 一款, 一班 restate; 1级 (wind force), 1度 are readings.
    nxt = text[t.end : t.end + 1]
    return t.value == 1 and "\u4e00" <= nxt <= "\u9fff" and nxt not in _READING_UNITS


_READING_UNITS = "级度"


# A code: letters and digits together (G11, A380, CMCC-8F2A, Xiaomi_5G_2F, PM2.5).
_CODE_RE = re.compile(
    r"(?<![A-Za-z0-9_.\-])(?=[A-Za-z0-9_\-]*[A-Za-z])(?=[A-Za-z0-9_\-]*\d)"
    r"[A-Za-z0-9](?:[A-Za-z0-9_\-]*[A-Za-z0-9])?(?:\.\d+)*(?![A-Za-z0-9_])"
)
# Not codes: a number with its unit or scale (5G, 12k, 30min, 8GB, 7am, 1h30m) and ranks (Top1).
_NOT_CODE_RE = re.compile(r"\d+(?:\.\d+)?[A-Za-z]+(?:\d+[A-Za-z]+)*|(?:top|no)\d+", re.IGNORECASE)


def _inside(span: tuple[int, int], spans: list[tuple[int, int]]) -> bool:
    return any(a <= span[0] and span[1] <= b for a, b in spans)


class Items:
    """What a piece of text states, read by the shared tokenizer (``judges.tokens``): quoted
    names and label values (answer side), times, absolute dates, durations, versions, numbers."""

    def __init__(self, text: str, *, items: bool):
        s = scanned(text) if isinstance(text, str) else scan(text)
        self.norm = s.text
        self.squeezed = _squeeze(s.text)
        self.texts: list[str] = []
        covered: list[tuple[int, int]] = []
        if items:
            for m in QUOTE_RE.finditer(s.text):
                inner = next(g for g in m.groups() if g is not None).strip()
                if inner and not s.taken_back(*m.span()):
                    self.texts.append(inner)
                covered.append(m.span())
            self._pairs(s, covered)
            covered += [m.span() for m in _LIST_MARKER_RE.finditer(s.text)] + list(s.markers)
        # A value the answer takes back (20度，不对，是22度; 之前说的4个是我数错了) is not
        # claimed, so it needs no screen: the same reading as every other path (Scan.claims).
        tokens = [t for t in s.tokens if not _inside((t.start, t.end), covered) and not (items and s.taken_back(t.start, t.end))]
        # Codes (G11, CMCC-8F2A, HX6730) hold digits a number does not read: each is a value.
        valued = [(t.start, t.end) for t in s.tokens if t.kind in ("time", "date", "version")]
        self.codes = [
            m.group(0) for m in _CODE_RE.finditer(s.text)
            if items and not _NOT_CODE_RE.fullmatch(m.group(0))
            and not _inside(m.span(), covered) and not any(a < m.end() and m.start() < b for a, b in valued)
        ]
        self.dates = [md for t in tokens if t.kind == "date" and (md := D.month_day(t.value)) is not None]
        # 06:40 reads as a time and as a duration; on a screen or in an answer it is a clock,
        # unless its clause says it is a duration (时长 1:30, 用时1:30). 1h30 is a duration too.
        durations = [t for t in tokens if t.kind == "duration" and not t.clock]
        self.durations = [t.value for t in durations]
        self._duration_spans = {(t.start, t.end): t.value for t in durations}
        # 用时1:30 and 1h30 are durations, not also the clock times 01:30 and 13:30.
        as_duration = {(t.start, t.end) for t in durations}
        self.times = [t.value for t in tokens if t.kind == "time" and (t.start, t.end) not in as_duration]
        # 14h30 reads as the time 14:30 and as a duration of 870 minutes: either reading grounds it.
        self.either = {(t.start, t.end): t.value for t in tokens if t.kind == "time" and (t.start, t.end) in as_duration
                       and _H_FORM_RE.fullmatch(s.text, t.start, t.end)}
        spans = [(t.start, t.end) for t in durations] + [(t.start, t.end) for t in tokens if t.kind == "date"]
        self.versions = [t.value for t in tokens if t.kind == "version"]
        # A number inside a duration (the 1 and 5 of 1小时5分) or a date (the 2026 of 2026年4月5日)
        # is part of it; a rank
        # (第一条, 前三个, top 3) or the article 一 (一款, 一班, 1美元) restates the question, it
        # was not read off a screen.
        self.numbers = [
            t.value for t in tokens
            if t.kind == "number" and not _inside((t.start, t.end), spans)
            and not (items and _restates(s.text, t))
        ]

    def _pairs(self, s, covered: list[tuple[int, int]]) -> None:
        """Digit-free pair values ("状态: 已发货") become text items; the labels are not items."""
        text = s.text
        # "G11次7:00": a digit, a colon and a digit are a clock, not a label and its value.
        labels = [m for m in _LABEL_RE.finditer(text) if not m.group(1).isdigit() and not _inside(m.span(), covered)
                  and not (m.group(1)[-1].isdigit() and text[m.end() - 1 : m.end()] == ":" and text[m.end() : m.end() + 1].isdigit())]
        for i, m in enumerate(labels):
            end = labels[i + 1].start() if i + 1 < len(labels) else len(text)
            clause = _CLAUSE_END_RE.search(text, m.end(), end)
            if clause:
                end = clause.start()
            value = text[m.end() : end].strip().rstrip(".").strip()
            if value and not any(ch.isdigit() for ch in value) and not _inside((m.end(), end), covered):
                self.texts.append(value)
                covered.append((m.end(), end))
            covered.append(m.span(1))

    def items(self) -> list[tuple[str, Any]]:
        """Distinct items, each in order of appearance, grouped by kind."""
        out: list[tuple[str, Any]] = []
        seen: set[tuple[str, Any]] = set()
        groups: tuple[tuple[str, list[Any]], ...] = (
            ("text", self.texts), ("time", self.times), ("date", self.dates), ("duration", self.durations),
            ("version", self.versions), ("number", self.numbers), ("code", self.codes),
        )
        either = {d: self.either[sp] for sp, d in self._duration_spans.items() if sp in self.either}
        for group, values in groups:
            for v in values:
                kind = group
                if kind == "duration" and v in either:
                    kind, v = "either", (either.pop(v), v)
                key = (kind, _squeeze(v) if kind == "text" else v)
                if key in seen or key == ("text", ""):
                    continue
                seen.add(key)
                out.append((kind, v))
        return out

    def grounds(self, kind: str, value: Any) -> bool:
        """Does this screen show the answer item?"""
        if kind == "text":
            return _squeeze(fold(value)) in self.squeezed
        if kind == "code":
            # Whole: CMCC-8F is not shown by CMCC-8F2A; iPhone15 is shown by "iPhone 15".
            parts = re.findall(r"[A-Za-z]+|\d+|[_\-]", value)
            pattern = r"\s*".join(re.escape(p) for p in parts)
            return re.search(rf"(?<![A-Za-z0-9_\-]){pattern}(?![A-Za-z0-9_]|-[A-Za-z0-9])", self.norm, re.IGNORECASE) is not None
        if kind == "either":
            return self.grounds("time", value[0]) or self.grounds("duration", value[1])
        if kind == "time":
            # 下午3点 is grounded by 15:00 and by 3:00, never by 03:00; 早上6点40分 not by 6:40 PM.
            return any(set(value) & set(t) for t in self.times)
        if kind == "date":
            # Month and day in their order; the years must agree when both sides give one.
            return any(d[1:] == value[1:] and (d[0] is None or value[0] is None or d[0] == value[0]) for d in self.dates)
        if kind == "duration":
            return value in self.durations
        if kind == "version":
            return any(_same_version(value, v) for v in self.versions) or (
                len(value) == 1 and any(math.isclose(value[0], n) for n in self.numbers)
            )
        return any(math.isclose(value, n, rel_tol=1e-9, abs_tol=1e-12) for n in self.numbers) or any(
            len(v) == 1 and math.isclose(value, v[0]) for v in self.versions
        )


Tokens = Items  # the name this class had before the shared tokenizer


def items_of(text: str, *, items: bool) -> Items:
    """``Items(text, items=items)``, once per distinct text in a judging pass (judges.memo):
    the last screens of a task's runs and the answers they give repeat across runs."""
    return once("items" if items else "screen-items", text, lambda t: Items(t, items=items))


def _same_version(a: tuple[int, ...], b: tuple[int, ...]) -> bool:
    def strip(v: tuple[int, ...]) -> tuple[int, ...]:
        out = list(v)
        while len(out) > 1 and out[-1] == 0:
            out.pop()
        return tuple(out)

    return strip(a) == strip(b)


def _show(kind: str, value: Any) -> str:
    if kind == "either":
        return _show("time", value[0])
    if kind == "time":
        return f"{value[0][0]:02d}:{value[0][1]:02d}"  # as written (a bare 3点 also reads 15:00)
    if kind == "date":
        y, m, d = value
        return f"{y}-{m:02d}-{d:02d}" if y else f"{m:02d}-{d:02d}"
    if kind == "duration":
        return f"{value}分钟"
    if kind == "version":
        return ".".join(map(str, value))
    if kind == "number":
        return _fmt_number(value)
    return str(value)


def answer_items(answer: str) -> list[str]:
    """The answer's items as answer_grounded sees them (for tests and reports)."""
    return [_show(k, v) for k, v in Items(answer, items=True).items()]


# -- screens, questions, confirmation cards -----------------------------------------------------------


def _time_needle(needle: str) -> list[tuple[int, int]]:
    """The readings of a needle that is nothing but a time of day ("06:40", "早上6:40")."""
    n = scanned(needle) if isinstance(needle, str) else scan(needle)  # one scan per needle, not per screen
    times = [t for t in n.tokens if t.kind == "time"]
    if len(times) == 1 and (times[0].start, times[0].end) == (0, len(n.text)):
        return list(times[0].value)
    return []


_RANK_NEEDLE_RE = re.compile(r"(?:第|(?:no|top)\.?\s*|#)\s*(?P<n>\d{1,3})\s*(?:名|位)?", re.IGNORECASE)


def _rank_shown(needle: str, hay: str) -> bool:
    """A rank (第一, 第1名, No.1, Top 1, #1) is on a screen that shows it in any of those forms."""
    m = _RANK_NEEDLE_RE.fullmatch(needle.strip())
    if m is None:
        return False
    n = int(m.group("n"))
    return re.search(rf"(?:第\s*0*{n}|(?<![a-z])(?:no|top)\.?\s*0*{n}|#\s*0*{n})(?!\d)", hay, re.IGNORECASE) is not None


def _shows_text(needle: str, text: str) -> bool:
    """The text shows `needle` as a whole value: "标记-b1" is not on "标记-b12". A needle that is
    a time is compared by its meaning, like answer_grounded: 06:40 is on "6:40", "06:40" and
    "上午6:40", never on "16:40", "18:40" or "6:40 下午".

    Equal to `_shows_text_plain` (tests/core/test_screen_prefilter.py holds them equal), without
    scanning most screens: a phrase is found in the folded text alone (``phrase_hits`` with
    ``asserted=False`` reads nothing else), and a time needle scans only a screen where the
    clock finder already reads the wanted time (the scan's time tokens are a subset of those)."""
    if not isinstance(text, str):
        return _shows_text_plain(needle, text)
    want = _time_needle(needle)
    if want:
        if not set(want) & clocks(text):
            return False
        return any(set(want) & set(t.value) for t in scanned(text).tokens if t.kind == "time")
    hay = folded(text)
    if phrase_spans(needle, hay):
        return True
    # A clock written without its leading zero is the same clock: 6:40 is on 06:40.
    bare = (folded(needle) if isinstance(needle, str) else fold(needle)).strip()
    if _rank_shown(bare, hay):
        return True
    return bool(re.fullmatch(r"\d:\d{2}", bare)) and bool(phrase_spans("0" + bare, hay))


def _shows_text_plain(needle: str, text: str) -> bool:
    """`_shows_text` computed from the whole scan of every screen: the reference the fast path
    is tested against."""
    s = scanned(text) if isinstance(text, str) else scan(text)
    want = _time_needle(needle)
    if want:
        return any(set(want) & set(t.value) for t in s.tokens if t.kind == "time")
    if phrase_hits(needle, s, asserted=False) or _rank_shown(fold(needle).strip(), s.text):
        return True
    return bool(re.fullmatch(r"\d:\d{2}", fold(needle).strip())) and bool(phrase_hits("0" + fold(needle).strip(), s, asserted=False))


_DISCOUNT_RE = re.compile(
    r"(?:" + "|".join(re.escape(w) for w in sorted(DISCOUNT_WORDS, key=len, reverse=True) if not w.isascii())
    + r"|(?<![a-z])(?:" + "|".join(w for w in DISCOUNT_WORDS if w.isascii()) + r")(?![a-z]))"
    # 满100减25: the 25 is taken off.
    r"\s*[:：]?\s*[-−]?\s*(?:[¥￥$]|rmb|cny)?\s*$|满\s*\d+(?:\.\d+)?\s*元?\s*减\s*(?:[¥￥$])?\s*$",
    re.IGNORECASE,
)
_OFF_AFTER_RE = re.compile(r"\s*off(?![a-z])", re.IGNORECASE)


def _discount(text: str, t: Any) -> bool:
    """Is the number money taken off (已优惠25元, 立减¥25, $25 off), not an amount?"""
    return bool(_DISCOUNT_RE.search(text[max(0, t.start - 8) : t.start])) or bool(_OFF_AFTER_RE.match(text, t.end))


def _field_shows(field: str, expected: Any, actual: str | None) -> bool:
    if actual is None:
        return False
    if field == "amount":
        wanted = [t.value for t in scan(str(expected)).tokens if t.kind == "number"]
        if len(wanted) == 1:
            # 25 and ¥25.00 are one amount; ¥125 and 1,025 are other amounts, and a card's
            # "已优惠25元" is a discount, not the amount it shows.
            s = scan(actual)
            shown = [t.value for t in s.tokens
                     if t.kind == "number" and not (t.hedged or t.ranged) and not _discount(s.text, t)]
            return any(math.isclose(wanted[0], n, rel_tol=1e-9, abs_tol=1e-9) for n in shown)
    return _shows_text(str(expected), actual)
