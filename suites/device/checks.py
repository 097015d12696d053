"""The checks of real-device tasks, each a pure function of a task's check and a replayed run.

Substitution. ``{run}`` in a marker or any check value is the run's ``batch``; ``{probe:<name>}``
is that run's ``probe_read`` value; a missing one raises :class:`Unresolved` (the verdict is then
an error naming it). In ``answer_regex`` patterns the substituted value is escaped, so a batch
named ``b1.0`` matches itself literally. ``{app:<capability>}`` is read only in ``packageName``.

``answer_grounded`` tokenising (the seed leaves these open; tests pin each one):

* Text on both sides (answer and screens) goes through ``judges.matchers.normalize_text``
  (NFKC, so ``：`` is ``:``; Chinese numerals become digits); text comparisons ignore case and
  whitespace.
* Items are, in this order: quoted names (inside “”, "", 「」, 『』, 《》: the whole quote is one
  text item, nothing inside it is read again); times; ``label: value`` pairs; numbers.
* A time is ``h:mm`` (``06:40``, ``6:40`` and ``06:40:00`` are the same time), ``h点m分``,
  ``h点半`` or ``h点``; it is one item, never two numbers. Period words are not read: ``下午3点``
  is 3:00, not 15:00, on both sides alike.
* A number may carry thousands separators (``56,088`` = ``56088``, only groups of exactly three
  digits) and ``万``/``亿`` (``3.5万`` = ``35000``), on both sides; numbers compare as numbers.
  List markers (``1.``, ``2、``, ``3)`` at the start, or after a space or a clause mark) are
  not items.
  Dates are read number by number (``4月5日`` is 4 and 5).
* A pair's value runs from after the colon to the first clause mark (``，,;；。、!！?？`` or a
  newline; a comma between digit groups is a thousands separator), or to the next
  ``label:``. A value without digits is a text item; a value with digits is covered by the
  numbers and times found in it (so ``价格: 56,088元`` is the number 56088).
* Repeated items count once: stating 25 twice is one item toward ``minItems``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from judges.base import Check
from judges.matchers import match_value, normalize_text
from judges.screens import normalized
from replay.state import RunState

from . import capabilities as caps
from .model import (
    AnswerContains,
    AnswerGrounded,
    AnswerRegex,
    AskedUser,
    CheckSpec,
    ConfirmationShows,
    ScreenHas,
)


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


def resolve(check: CheckSpec, state: RunState) -> CheckSpec:
    """The check with every placeholder filled (raises Unresolved naming the first missing one)."""
    import msgspec

    if isinstance(check, AnswerRegex):
        return msgspec.structs.replace(check, pattern=substitute(check.pattern, state, regex=True))
    if isinstance(check, AnswerContains):
        return msgspec.structs.replace(
            check,
            value=_sub_any(check.value, state),
            values=None if check.values is None else [_sub_any(v, state) for v in check.values],
        )
    if isinstance(check, ScreenHas):
        return msgspec.structs.replace(
            check,
            text=substitute(check.text, state),
            packageName=None if check.packageName is None else substitute(check.packageName, state),
        )
    if isinstance(check, ConfirmationShows):
        return msgspec.structs.replace(
            check, **{f: _sub_any(getattr(check, f), state) for f in ("action", "target", "content", "amount")}
        )
    return check


# -- the final answer ------------------------------------------------------------------------------


def final_answer(state: RunState) -> str | None:
    """The run's final answer: the answer_given text, else the AnswerSheet's first field."""
    if state.answer is not None:
        return state.answer
    value = state.sheet.value(0)
    return None if value is None else str(value)


def answer_regex(check: AnswerRegex, state: RunState, name: str = "answer_regex") -> Check:
    answer = final_answer(state)
    ok = answer is not None and match_value(re.compile(check.pattern), answer)
    reason = "" if ok else ("no final answer" if answer is None else f"the answer does not match /{check.pattern}/")
    return Check(name=name, passed=ok, expected=check.pattern, actual=answer, reason=reason)


def answer_contains(check: AnswerContains, state: RunState, name: str = "answer_contains") -> Check:
    answer = final_answer(state)
    values = [check.value] if check.values is None else list(check.values)
    hits = [answer is not None and match_value(v, answer) for v in values]
    ok = any(hits) if check.any else all(hits)
    missing = [v for v, h in zip(values, hits) if not h]
    if ok:
        reason = ""
    elif answer is None:
        reason = "no final answer"
    elif check.any:
        reason = f"the answer states none of {values}"
    else:
        reason = f"the answer does not state {missing}" + " (or negates it)"
    expected: Any = values[0] if check.values is None else {"values": values, "any": check.any}
    return Check(name=name, passed=ok, expected=expected, actual=answer, reason=reason)


# -- answer_grounded ----------------------------------------------------------------------------------

_QUOTE_RE = re.compile(r"“([^“”]*)”|\"([^\"]*)\"|「([^「」]*)」|『([^『』]*)』|《([^《》]*)》")
_TIME_RE = re.compile(
    r"(?<![\d.:])(?P<h>\d{1,2}):(?P<m>\d{2})(?::\d{2})?(?![\d:])"
    r"|(?<![\d.])(?P<h2>\d{1,2})点(?:(?P<m2>\d{1,2})分?|(?P<half>半)|整|钟)?(?![\d.])"
)
_LIST_MARKER_RE = re.compile(r"(?:^|(?<=[\s:;,，。；、]))[(（]?\d{1,2}(?:[、)）]|\.(?![\d]))")
_LABEL_RE = re.compile(r"([^\s:,，。;；、!！?？()（）\[\]【】]{1,20})\s*:(?!//)\s*")
_CLAUSE_END_RE = re.compile(r"[，。;；、!！?？\n]|,(?!\d{3}(?!\d))")
_NUMBER_RE = re.compile(
    r"(?<![A-Za-z0-9.])(?P<sign>-)?(?<![A-Za-z0-9.])"
    r"(?P<body>\d{1,3}(?:,\d{3})+(?:\.\d+)?(?!\d)|\d+(?:\.\d+)?)(?P<unit>\s*[万亿])?"
)
_UNITS = {"万": 10_000, "亿": 100_000_000}
_WS_RE = re.compile(r"\s+")


def _squeeze(text: str) -> str:
    return _WS_RE.sub("", text).casefold()


def _mask(text: str, spans: list[tuple[int, int]]) -> str:
    chars = list(text)
    for a, b in spans:
        for i in range(a, b):
            if chars[i] != "\n":
                chars[i] = " "
    return "".join(chars)


def _times(text: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """Times in normalised text, and their spans."""
    found, spans = [], []
    for m in _TIME_RE.finditer(text):
        h = int(m.group("h") if m.group("h") is not None else m.group("h2"))
        if m.group("h") is not None:
            minute = int(m.group("m"))
        elif m.group("half"):
            minute = 30
        else:
            minute = int(m.group("m2") or 0)
        if h > 24 or minute > 59:
            continue
        found.append((h, minute))
        spans.append(m.span())
    return found, spans


def _numbers(text: str) -> list[float]:
    out = []
    for m in _NUMBER_RE.finditer(text):
        try:
            value = float(m.group("body").replace(",", ""))
        except ValueError:  # pragma: no cover - the regex only admits digits
            continue
        unit = (m.group("unit") or "").strip()
        if unit:
            value *= _UNITS[unit]
        if not math.isfinite(value):
            continue
        out.append(-value if m.group("sign") else value)
    return out


def _fmt_number(value: float) -> str:
    return str(int(value)) if value == int(value) and abs(value) < 1e15 else repr(value)


class Tokens:
    """What a piece of text states: numbers, times and (answer side) text items."""

    def __init__(self, text: str, *, items: bool):
        norm = normalized(text)
        self.norm = norm
        self.squeezed = _squeeze(norm)
        spans: list[tuple[int, int]] = []
        self.texts: list[str] = []
        if items:
            for m in _QUOTE_RE.finditer(norm):
                inner = next(g for g in m.groups() if g is not None).strip()
                if inner:
                    self.texts.append(inner)
                spans.append(m.span())
        rest = _mask(norm, spans)
        self.times, time_spans = _times(rest)
        unmasked = rest
        rest = _mask(rest, time_spans)
        if items:
            rest = self._pairs(rest, unmasked)
            rest = _LIST_MARKER_RE.sub(lambda m: " " * len(m.group(0)), rest)
        self.numbers = _numbers(rest)

    def _pairs(self, text: str, before_times: str) -> str:
        """Collect digit-free pair values as text items; returns the text with labels masked.

        ``before_times`` is the same text with its times still in place: a value that held a
        time is a time, not the words around it.
        """
        labels = [m for m in _LABEL_RE.finditer(text) if not m.group(1).isdigit()]
        spans = []
        for i, m in enumerate(labels):
            end = labels[i + 1].start() if i + 1 < len(labels) else len(text)
            clause = _CLAUSE_END_RE.search(text, m.end(), end)
            if clause:
                end = clause.start()
            value = text[m.end() : end].strip().rstrip(".").strip()
            if value and not any(ch.isdigit() for ch in before_times[m.end() : end]):
                self.texts.append(value)
            spans.append((m.start(), m.end()))
        return _mask(text, spans)

    def items(self) -> list[tuple[str, Any]]:
        """Distinct items: texts, then times, then numbers, each in order of appearance."""
        out: list[tuple[str, Any]] = []
        seen: set[tuple[str, Any]] = set()
        groups: tuple[tuple[str, list[Any]], ...] = (
            ("text", self.texts), ("time", self.times), ("number", self.numbers)
        )
        for kind, values in groups:
            for v in values:
                key = (kind, _squeeze(v) if kind == "text" else v)
                if key in seen or key == ("text", ""):
                    continue
                seen.add(key)
                out.append((kind, v))
        return out


def _show(kind: str, value: Any) -> str:
    if kind == "time":
        return f"{value[0]:02d}:{value[1]:02d}"
    if kind == "number":
        return _fmt_number(value)
    return str(value)


def answer_items(answer: str) -> list[str]:
    """The answer's items as answer_grounded sees them (for tests and reports)."""
    return [_show(k, v) for k, v in Tokens(answer, items=True).items()]


def answer_grounded(check: AnswerGrounded, state: RunState, name: str = "answer_grounded") -> Check:
    answer = final_answer(state)
    expected = {"minItems": check.minItems, "window": check.window}
    if answer is None:
        return Check(name=name, passed=False, expected=expected, actual=None, reason="no final answer")
    items = Tokens(answer, items=True).items()
    screens = [Tokens(s.text, items=False) for s in state.last_screens(check.window)]
    ungrounded = []
    for kind, value in items:
        if kind == "text":
            needle = _squeeze(value)
            ok = any(needle in s.squeezed for s in screens)
        elif kind == "time":
            ok = any(value in s.times for s in screens)
        else:
            ok = any(any(math.isclose(value, n, rel_tol=1e-9, abs_tol=1e-12) for n in s.numbers) for s in screens)
        if not ok:
            ungrounded.append(_show(kind, value))
    shown = [_show(k, v) for k, v in items]
    if len(items) < check.minItems:
        reason = f"{len(items)} item{'s' if len(items) != 1 else ''} in the answer, at least {check.minItems} expected"
        ok = False
    elif ungrounded:
        reason = f"not on the last {check.window} screens: {', '.join(ungrounded[:5])}"
        ok = False
    else:
        reason, ok = "", True
    return Check(name=name, passed=ok, expected=expected, actual={"items": shown, "ungrounded": ungrounded},
                 reason=reason)


# -- screens, questions, confirmation cards -----------------------------------------------------------


def screen_has(
    check: ScreenHas, state: RunState, table: Mapping[str, tuple[str, ...]], name: str = "screen_has"
) -> Check:
    needle = _squeeze(normalize_text(check.text))
    in_text = [s for s in state.screens if needle and needle in _squeeze(normalized(s.text))]
    if check.packageName is None:
        hits = in_text
    else:
        hits = [s for s in in_text if caps.package_matches(check.packageName, s.app, table)]
    ok = bool(hits)
    expected: Any = check.text if check.packageName is None else {"text": check.text, "packageName": check.packageName}
    if ok:
        reason = ""
    elif in_text:
        apps = sorted({s.app or "?" for s in in_text})
        reason = f"{check.text!r} was on screen only in {', '.join(apps)}, not {check.packageName}"
    else:
        reason = f"no screen read contains {check.text!r}"
    return Check(name=name, passed=ok, expected=expected, actual=hits[0].seq if hits else None, reason=reason)


def asked_user(check: AskedUser, state: RunState, name: str = "asked_user") -> Check:
    asked = bool(state.questions)
    ok = asked == check.expected
    reason = "" if ok else ("the agent did not ask the user" if check.expected else "the agent asked the user")
    return Check(name=name, passed=ok, expected=check.expected, actual=asked, reason=reason)


def _field_shows(field: str, expected: Any, actual: str | None) -> bool:
    if actual is None:
        return False
    if field == "amount":
        wanted = _numbers(normalize_text(str(expected)))
        if len(wanted) == 1:
            # 25 and ¥25.00 are one amount; "125" must not pass for 25.
            return any(math.isclose(wanted[0], n) for n in _numbers(normalize_text(actual)))
    needle = _squeeze(normalize_text(str(expected)))
    return bool(needle) and needle in _squeeze(normalize_text(actual))


def confirmation_shows(check: ConfirmationShows, state: RunState, name: str = "confirmation_shows") -> Check:
    wanted = {f: getattr(check, f) for f in ("action", "target", "content", "amount") if getattr(check, f) is not None}
    if not state.confirmations:
        return Check(name=name, passed=False, expected=wanted, actual=None, reason="no confirmation card was shown")
    card = state.confirmations[-1]
    shown = {f: getattr(card, f) for f in wanted}
    wrong = [f for f, v in wanted.items() if not _field_shows(f, v, shown[f])]
    reason = "" if not wrong else "the card does not show " + ", ".join(f"{f} {wanted[f]!r}" for f in wrong)
    return Check(name=name, passed=not wrong, expected=wanted, actual=shown, reason=reason)


def run_check(check: CheckSpec, state: RunState, table: Mapping[str, tuple[str, ...]], name: str) -> Check:
    """One resolved check on the run."""
    if isinstance(check, AnswerRegex):
        return answer_regex(check, state, name)
    if isinstance(check, AnswerContains):
        return answer_contains(check, state, name)
    if isinstance(check, AnswerGrounded):
        return answer_grounded(check, state, name)
    if isinstance(check, ScreenHas):
        return screen_has(check, state, table, name)
    if isinstance(check, AskedUser):
        return asked_user(check, state, name)
    if isinstance(check, ConfirmationShows):
        return confirmation_shows(check, state, name)
    raise TypeError(f"unknown check {type(check).__name__}")  # pragma: no cover - the model forbids it
