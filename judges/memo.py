"""What a judging pass remembers of the texts it reads: each reading of a text (the tokenizer's
scan, its folded form, its clocks, a check's items) computed once per distinct text.

Screens and answers repeat across the runs of a store (a template's screens, an app's fixed
pages, the same answer given by many attempts), and reading a text is the costly part of
judging. Every such reading is a pure function of its text, so remembering it changes nothing a
judge computes, only how often. Callers read what they get and never change it.

The memo belongs to the pass, not to the process: the shell makes a :class:`TextMemo` for its
share of a pass (trajectory/judging/execution.py) and hands it in with :func:`reading` around
the judges it calls; when the pass ends the memo goes with it. Outside a pass (a test, ``traj
show``, a suite's own matrix) nothing is remembered: each reading is computed as asked.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

T = TypeVar("T")

#: Distinct texts one memo keeps per kind of reading before it starts again: bounded, so that a
#: pass over a store whose screens never repeat does not keep every one of them (a scan of a
#: long screen holds ~13 KB: 4,096 of them are ~50 MB per judging process).
LIMIT = 1 << 12


class TextMemo:
    """Readings of texts by kind of reading (``"scan"``, ``"fold"`` …) and text."""

    def __init__(self, limit: int = LIMIT):
        self.limit = limit
        self.tables: dict[str, dict[Any, Any]] = {}
        self.computed = 0  # readings computed (not found): what the memo did not save

    def read(self, kind: str, text: Any, compute: Callable[[Any], T]) -> T:
        """``compute(text)``, computed once per distinct text for this kind of reading."""
        table = self.tables.get(kind)
        if table is None:
            table = self.tables[kind] = {}
        try:
            return table[text]
        except KeyError:
            pass
        value = compute(text)
        if len(table) >= self.limit:
            table.clear()
        table[text] = value
        self.computed += 1
        return value


_IN_USE: ContextVar[TextMemo | None] = ContextVar("traj_text_memo", default=None)


@contextmanager
def reading(memo: TextMemo | None) -> Iterator[TextMemo | None]:
    """Judges called inside this block remember their readings in ``memo`` (None: nothing)."""
    token = _IN_USE.set(memo)
    try:
        yield memo
    finally:
        _IN_USE.reset(token)


def once(kind: str, text: Any, compute: Callable[[Any], T]) -> T:
    """``compute(text)``, remembered by the memo the pass handed in (computed when there is none,
    or when the text is no string: a missing answer reads as no text, and is cheap)."""
    memo = _IN_USE.get()
    if memo is None or type(text) is not str:
        return compute(text)
    return memo.read(kind, text, compute)
