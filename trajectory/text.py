"""Small helpers for the words traj prints."""

from __future__ import annotations

import json
import re
from contextvars import ContextVar
from typing import Any

import msgspec


def plural(n: int, noun: str, nouns: str | None = None) -> str:
    """``1 run``, ``2 runs``: a count with its noun (every message that counts says it so)."""
    return f"{n} {noun if n == 1 else (nouns or noun + 's')}"


def first_difference(a: Any, b: Any, path: str = "$") -> tuple[str, Any, Any] | None:
    """The first JSON path where two decoded values differ (for conflict messages)."""
    if isinstance(a, msgspec.Struct):
        a = msgspec.to_builtins(a)
    if isinstance(b, msgspec.Struct):
        b = msgspec.to_builtins(b)
    if isinstance(a, dict) and isinstance(b, dict):
        for key in list(a) + [k for k in b if k not in a]:
            if key not in a or key not in b:
                return f"{path}.{key}", a.get(key), b.get(key)
            diff = first_difference(a[key], b[key], f"{path}.{key}")
            if diff:
                return diff
        return None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return path, a, b
        for i, (x, y) in enumerate(zip(a, b)):
            diff = first_difference(x, y, f"{path}[{i}]")
            if diff:
                return diff
        return None
    return None if a == b else (path, a, b)


def short(value: Any) -> str:
    """A value as JSON, cut to 60 characters."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."


def json_or_text(text: Any) -> Any:
    """A JSON text column as its value (text that is not JSON stays text)."""
    if not isinstance(text, str):
        return text
    try:
        return json.loads(text)
    except ValueError:
        return text


#: What a hint must carry to reach the same store: the ``--store`` of the command being run
#: (None: the default store, which needs no option) and the names of its ``--storage-option``
#: values (never the values). Set by the CLI for each command (trajectory/cli/common.py).
HINT_OPTIONS: ContextVar[tuple[str | None, tuple[str, ...]]] = ContextVar("hint_options", default=(None, ()))


def hint(command: str, store: Any = None, *, options: tuple[str | None, tuple[str, ...]] | None = None) -> str:
    """A command to suggest, with the ``--store`` (and ``--storage-option`` names) this one
    was run with, so that it works when pasted: ``hint("traj show r1")`` ->
    ``traj show r1 --store copy``. ``store``: the store to name instead (the demo names its
    store's full path). ``options``: :data:`HINT_OPTIONS` as taken earlier, for code that
    answers in other threads than the command's own (the viewer takes them when it opens)."""
    import shlex

    given, names = options if options is not None else HINT_OPTIONS.get()
    where = store if store is not None else given
    out = command + (f" --store {shlex.quote(str(where))}" if where else "")
    for name in names:
        out += f" --storage-option {shlex.quote(name + '=...')}"
    return out


# A cell a spreadsheet would evaluate as a formula (or as DDE) when the file is opened:
# its first character is one of these (full-width forms included: some spreadsheets fold them).
_NUMBER = re.compile(r"[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?")
_QUOTE = re.compile('[,"\r\n]')
_FORMULA_START = frozenset("=+-@\t\r\n\uff1d\uff0b\uff0d\uff20")


def spreadsheet_safe(cell: str) -> str:
    """A CSV cell that no spreadsheet evaluates: one starting like a formula (``=``, ``+``,
    ``-``, ``@``, tab, CR, LF) gets a leading ``'``, the mark spreadsheets read as "text".
    A number (``-3``, ``+1.5e3``) is left as it is: it is data, and evaluates to itself."""
    if cell and cell[0] in _FORMULA_START and not _NUMBER.fullmatch(cell):
        return "'" + cell
    return cell


def csv_line(cells: list[str]) -> str:
    """One CSV record (RFC 4180 quoting, no line end): a cell is quoted when it holds a comma, a
    quote, CR or LF. (Python's csv writer with "\n" line ends leaves a lone CR unquoted, which
    every reader takes for the end of the record.)"""
    if len(cells) == 1 and cells[0] == "":
        return '""'  # not an empty line
    return ",".join('"' + c.replace('"', '""') + '"' if _QUOTE.search(c) else c for c in cells)


def spreadsheet_safe_csv(text: str) -> str:
    """CSV text with every cell made :func:`spreadsheet_safe` (for CSV written by code that
    does not know, such as a suite's own report)."""
    import csv
    import io

    lines = [csv_line([spreadsheet_safe(c) for c in row]) for row in csv.reader(io.StringIO(text, newline=""))]
    return "\n".join(lines) + ("\n" if text.endswith("\n") else "")
