"""Normalised screen text, computed once per text however many checks read it.

A run's judge reads the same screens again for every check (``screen_has`` looks through every
screen read, ``answer_grounded`` through the last few), and normalising text
(:func:`judges.matchers.normalize_text`: NFKC, numerals, whitespace) is the costly part of that.
Normalising is a pure function of the text, so its result is memoised: a bounded
least-recently-used table, which changes nothing a judge computes, only how often.
"""

from __future__ import annotations

from functools import lru_cache

from .matchers import normalize_text

#: Distinct texts remembered: a judging process sees each run's screens in turn, so this holds
#: the screens of the runs being judged and those of templates that recur across runs.
CACHED_TEXTS = 1 << 16


@lru_cache(maxsize=CACHED_TEXTS)
def normalized(text: str) -> str:
    """``normalize_text(text)``, computed once per distinct text."""
    return normalize_text(text)
