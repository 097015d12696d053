"""Stored text on a terminal: control characters shown, not obeyed.

Screen text, answers, reasons and names come from agents and harnesses. Written to a terminal
as they are, an escape sequence in them can retitle the window, clear the screen, hide lines
or write a link that is not what it shows. Every place that prints stored text for people
passes it through :func:`term_safe`; JSON output is escaped by :func:`json_safe`.
"""

from __future__ import annotations

import re

# C0 controls but newline, DEL, C1 controls (0x9b is CSI on 8-bit terminals), line and
# paragraph separators, and the bidirectional overrides that reorder what is shown.
_UNSAFE = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_UNSAFE_IN_JSON = re.compile("[\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def term_safe(text: str) -> str:
    """``text`` with every unsafe character written as its escape (``\\x1b``); newlines kept."""
    return _UNSAFE.sub(lambda m: ascii(m.group(0))[1:-1], text)


def json_safe(text: str) -> str:
    """JSON text (control characters below 0x20 already escaped by the encoder) with the rest
    of the unsafe characters escaped too: still the same JSON value."""
    return _UNSAFE_IN_JSON.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text)
