"""Screen text read by the tokenizer once per text, however many checks read it.

A run's judge reads the same screens again for every check (``screen_has`` looks through every
screen read, ``answer_grounded`` through the last few), and reading a text
(:func:`judges.tokens.scan`: folding, clauses, every value in it) is the costly part of that.
A scan is a pure function of the text, so its result is memoised: a bounded
least-recently-used table, which changes nothing a judge computes, only how often. Callers
read a :class:`judges.tokens.Scan` and never change it.

Two cheaper readings serve checks that need less than a scan (a fraction of its cost):
``folded`` is exactly ``scan(text).text``, and ``clocks`` holds every reading that any time
token of ``scan(text)`` can have, so a screen whose clocks miss a wanted time shows no such
time and needs no scan.
"""

from __future__ import annotations

from functools import lru_cache

from .numerals import fold
from .times import find_times
from .tokens import Scan, scan

#: Distinct texts remembered: a judging process sees each run's screens in turn, so this holds
#: the screens of the runs being judged and those of templates that recur across runs.
CACHED_TEXTS = 1 << 14


@lru_cache(maxsize=CACHED_TEXTS)
def scanned(text: str) -> Scan:
    """``scan(text)``, computed once per distinct text."""
    return scan(text)


@lru_cache(maxsize=CACHED_TEXTS)
def folded(text: str) -> str:
    """``scan(text).text`` without the rest of the scan: ``Scan`` folds its text with this
    same ``fold`` and keeps the result as its ``text``."""
    return fold(text)


@lru_cache(maxsize=CACHED_TEXTS)
def clocks(text: str) -> frozenset[tuple[int, int]]:
    """Every (hour, minute) reading of every time ``find_times`` sees in the folded text: a
    superset of the readings of ``scan(text)``'s time tokens, which are those same spans less
    the ones a date covers (``Scan._values``); marking them (asserted, hedged …) keeps values."""
    return frozenset(r for _, _, readings in find_times(folded(text)) for r in readings)
