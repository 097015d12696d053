"""What an answer says about the asked subject; the rest is said of other cities, alarms, timers.

A grader who asked about 杭州 and reads "北京20度，杭州18度" hears 18: the 20 is 北京's. A task
whose question is about one subject (a city, an alarm's label, a metric …) judges only what the
answer says of that subject. ``about(text, subjects)`` keeps the parts of an answer said of an
asked subject and blanks the parts said of another subject of the same kind; every matcher then
reads what is left, so a value said of another subject never counts, whatever its kind
(numbers, phrases, times, dates, claims). Pure. The rules:

* A subject is named by any of its names (北京, Beijing; 吃药), whole: letters do not run on
  into a Latin name. A name right after 比, 不如, 没有, 不及, 较 or "than" is what something is
  compared with, not what is spoken of (北京比杭州热 speaks of 北京); 北京时间 is a clock.
* Names joined by nothing but 和, 跟, 与, 及, 、, commas or "and" speak together
  (北京和杭州都是20度 says 20 of both), and so do names said to be alike (杭州的温度和北京一样).
* A part runs from its names to the next names. Text before the first names belongs to them
  when no clause ends (or bracket opens) in between (现在20度的是北京); otherwise it names no one and is kept.
* With no other subject named the whole answer is about the asked one: nothing is blanked.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from .lexicon import TRADITIONAL

__all__ = ["Subject", "about", "said_of"]


@dataclass(frozen=True)
class Subject:
    """One kind of subject in a question: the names of the asked one(s) and of the others."""

    asked: tuple[str, ...]
    others: tuple[str, ...]


_OBJECT_BEFORE_RE = re.compile(r"(?:比|不如|没有|不及|较|than\s+)\s*$", re.IGNORECASE)
# 和北京一样, 跟上海差不多: the name after 和/跟/同/与/像 is compared with, when a likeness follows.
_LIKE_BEFORE_RE = re.compile(r"[和跟同与像]\s*$")
_LIKE_AFTER_RE = re.compile(r"(?:的)?(?:温度|气温|天气)?\s*(?:一样|相同|差不多|相近|持平|类似)")
_NOT_A_SUBJECT_AFTER = ("时间",)  # 北京时间 is the clock of China, not a statement about 北京
_JOINER_RE = re.compile(r"(?:[\s,，、/&和跟与及同]|以及|还有|(?<![a-z])and(?![a-z]))*", re.IGNORECASE)
# An opening bracket ends what comes before too: "28℃（体感31℃）" says 28 of no feels-like.
_CLAUSE_END_RE = re.compile(r"[。;；!?！？\n(（【\[]|\.(?!\d)|[,，](?!\d{3})")


def _hay(text: str) -> str:
    """The text folded character by character, so positions stay: full-width Latin is Latin
    (Ｔｏｋｙｏ names Tokyo), traditional characters are simplified, case is folded. A character
    whose folding is not one character stays as it is."""
    out = []
    for ch in text:
        f = unicodedata.normalize("NFKC", ch).translate(TRADITIONAL).casefold()
        out.append(f if len(f) == 1 else ch.casefold() if len(ch.casefold()) == 1 else ch)
    return "".join(out)


def _name(name: str) -> str:
    return _hay(re.sub(r"\s+", " ", name.strip()))


def _mentions(hay: str, subject: Subject) -> list[tuple[int, int, bool]]:
    """(start, end, is_asked) for every name of the kind in the case-folded text, longest first."""
    names = [(_name(n), True) for n in subject.asked if n.strip()]
    names += [(_name(n), False) for n in subject.others if n.strip()]
    names.sort(key=lambda x: len(x[0]), reverse=True)
    taken: list[tuple[int, int, bool]] = []
    for name, asked in names:
        for m in re.finditer(re.escape(name), hay):
            a, b = m.span()
            if any(a < e and s < b for s, e, _ in taken):
                continue
            if name[0].isascii() and name[0].isalnum() and a > 0 and hay[a - 1].isascii() and hay[a - 1].isalnum():
                continue
            if name[-1].isascii() and name[-1].isalnum() and hay[b : b + 1].isascii() and hay[b : b + 1].isalpha():
                continue
            if _OBJECT_BEFORE_RE.search(hay[max(0, a - 8) : a]) or hay.startswith(_NOT_A_SUBJECT_AFTER, b):
                continue
            taken.append((a, b, asked))
    return sorted(taken)


def _alike(hay: str, m: tuple[int, int, bool]) -> bool:
    """杭州的温度和北京一样: the name after 和 is said to be like the one before: they speak together."""
    return bool(_LIKE_BEFORE_RE.search(hay[max(0, m[0] - 2) : m[0]]) and _LIKE_AFTER_RE.match(hay, m[1]))


def _parts(text: str, subject: Subject) -> list[tuple[int, int, bool]]:
    """(start, end, about an asked subject) for each part of the text said of named subjects."""
    hay = _hay(text)
    found = _mentions(hay, subject)
    if not any(not asked for _, _, asked in found):
        return []
    groups: list[list[tuple[int, int, bool]]] = []
    for m in found:
        if groups and (_JOINER_RE.fullmatch(hay, groups[-1][-1][1], m[0]) or _alike(hay, m)):
            groups[-1].append(m)
        else:
            groups.append([m])
    out = []
    for i, group in enumerate(groups):
        start = group[0][0]
        if i == 0 and not _CLAUSE_END_RE.search(text, 0, start):
            start = 0  # 现在20度的是北京: the clause before the name is said of it
        end = groups[i + 1][0][0] if i + 1 < len(groups) else len(text)
        out.append((start, end, any(asked for _, _, asked in group)))
    return out


def about(text: str | None, subjects: Sequence[Subject]) -> str | None:
    """The answer with every part said of another subject blanked (see the module docstring).
    Blanks are spaces, so positions and clauses stay where they were."""
    if not text or not subjects:
        return text
    chars = list(text)
    for subject in subjects:
        for start, end, asked in _parts(text, subject):
            if not asked:
                chars[start:end] = [" "] * (end - start)
    return "".join(chars)


def said_of(text: str, span: tuple[int, int], subjects: Sequence[Subject]) -> bool:
    """Is the text at `span` said of the asked subject (not of another one named)?"""
    kept = about(text, subjects) or ""
    return kept[span[0] : span[1]] == text[span[0] : span[1]]
