"""Screen text read by the tokenizer once per text, however many checks read it.

A run's judge reads the same screens again for every check (``screen_has`` looks through every
screen read, ``answer_grounded`` through the last few), and reading a text
(:func:`judges.tokens.scan`: folding, clauses, every value in it) is the costly part of that.
Each reading is a pure function of the text, so the judging pass remembers it, once per
distinct text (``judges.memo``: the pass's own memo, handed in around the judges it calls),
which changes nothing a judge computes, only how often. Callers read a
:class:`judges.tokens.Scan` and never change it.

Two cheaper readings serve checks that need less than a scan (a fraction of its cost):
``folded`` is exactly ``scan(text).text``, and ``clocks`` holds every reading that any time
token of ``scan(text)`` can have, so a screen whose clocks miss a wanted time shows no such
time and needs no scan.
"""

from __future__ import annotations

from .memo import once
from .numerals import fold
from .times import find_times
from .tokens import Scan, scan


def scanned(text: str) -> Scan:
    """``scan(text)``, computed once per distinct text in a pass."""
    return scan(text)


def folded(text: str) -> str:
    """``scan(text).text`` without the rest of the scan: ``Scan`` folds its text with this
    same ``fold`` and keeps the result as its ``text``."""
    return once("fold", text, fold)


def _clocks(text: str) -> frozenset[tuple[int, int]]:
    return frozenset(r for _, _, readings in find_times(folded(text)) for r in readings)


def clocks(text: str) -> frozenset[tuple[int, int]]:
    """Every (hour, minute) reading of every time ``find_times`` sees in the folded text: a
    superset of the readings of ``scan(text)``'s time tokens, which are those same spans less
    the ones a date covers (``Scan._values``); marking them (asserted, hedged …) keeps values."""
    return once("clocks", text, _clocks)
