"""Screen text read by the tokenizer once per text, however many checks read it.

A run's judge reads the same screens again for every check (``screen_has`` looks through every
screen read, ``answer_grounded`` through the last few), and reading a text
(:func:`judges.tokens.scan`: folding, clauses, every value in it) is the costly part of that.
A scan is a pure function of the text, so its result is memoised: a bounded
least-recently-used table, which changes nothing a judge computes, only how often. Callers
read a :class:`judges.tokens.Scan` and never change it.
"""

from __future__ import annotations

from functools import lru_cache

from .tokens import Scan, scan

#: Distinct texts remembered: a judging process sees each run's screens in turn, so this holds
#: the screens of the runs being judged and those of templates that recur across runs.
CACHED_TEXTS = 1 << 14


@lru_cache(maxsize=CACHED_TEXTS)
def scanned(text: str) -> Scan:
    """``scan(text)``, computed once per distinct text."""
    return scan(text)
