"""Duplicate keys in one JSON object: the spec makes them an error ("A key given twice in one
object is an error"), but JSON decoders, msgspec's included, keep the last one silently, so a
second ``run_id`` would redirect an event to another run.

The check leans on the stored encoding of the decoded event (``events.stored``), which has no
more keys than the line has distinct keys (it leaves out only fields not given or left at their
default). So when the line has no more keys than that encoding, no key can be there twice. Most
lines settle that with a few byte counts: the line's colons (at least its keys) against the
encoding's key closings ``":`` less every place where ``":`` may be something else (at most
its keys). Only lines where those differ (colons inside strings, explicit defaults, a duplicate)
are looked at closer, and only a line that really has a duplicate is scanned token by token to
name it.
"""

from __future__ import annotations

import json
import re

import msgspec

# One JSON string with its escapes, matched whole (unrolled: fast on long texts).
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
# A string (a key when a colon follows) or one structural character, for the slow path.
_TOKEN = re.compile(rb'("[^"\\]*(?:\\.[^"\\]*)*")(\s*:)?|[\[\]{},]')


def key_count(line: bytes) -> int:
    """Keys in a valid JSON text: its colons outside strings."""
    if b'\\"' in line:  # an escaped quote: find the strings with the regex
        return _STRING.sub(b"", line).count(b":")
    # No quote inside any string: splitting at quotes leaves the outside at the even places.
    return b"".join(line.split(b'"')[0::2]).count(b":")


def duplicate_key(raw: bytes, encoded: bytes) -> tuple[str, str] | None:
    """(JSON path of the object, key) of the first key given twice in one object, or None.
    ``raw`` is a valid JSON line and ``encoded`` the stored (or canonical) encoding of what it
    decoded to: either has no key the line does not have."""
    if _same_colons(raw, encoded):
        return None
    n = key_count(raw)
    if n == key_count(encoded):
        return None
    # Explicit defaults also make the counts differ: compare with the line decoded as plain
    # JSON, where a duplicate has collapsed into one key.
    if n == key_count(msgspec.json.encode(msgspec.json.decode(raw))):
        return None
    return _find(raw)


def _same_colons(raw: bytes, encoded: bytes) -> bool:
    """True when the line's colons, keys and string colons alike, are as many as the stored
    encoding's, ``ts`` aside: then no key was dropped, so none was given twice.

    Sound because every other difference only adds to the line's side: a dropped key (a
    duplicate or an explicit default) takes its colon and the colons of its value with it.
    The exceptions are excluded: a colon written as an escape (``\\u003a``: one byte fewer in
    the line), and ``ts``, which the encoding writes as a string with exactly two colons
    while the line has k (0 for epoch milliseconds). So, with d = encoded colons - line
    colons, what was dropped is 2 - k - d colons, and a duplicate is ruled out when that is 0.
    """
    if b"\\u003" in raw:
        return False
    d = encoded.count(b":") - raw.count(b":")
    if d == 2:
        return True  # k >= 0 and dropped >= 0 leave k = 0, dropped = 0
    if d > 2 or raw.count(b'"ts"') != 1:
        return False
    at = raw.index(b'"ts"') + 4  # the only "ts" string: the event's own key
    while raw[at : at + 1] in (b" ", b"\t", b"\r", b"\n", b":"):
        at += 1
    if raw[at : at + 1] != b'"':
        return False
    end = raw.find(b'"', at + 1)
    value = raw[at + 1 : end]
    return end > 0 and b"\\" not in value and 2 - value.count(b":") == d


def _find(raw: bytes) -> tuple[str, str] | None:
    # Each open container: ("{", path, keys seen) or ("[", path, index).
    stack: list[list] = []
    pending: str | None = None  # the key whose value comes next
    for m in _TOKEN.finditer(raw):
        token = m.group(0)
        if m.group(1) is not None:
            if m.group(2) is None:
                continue  # a string value
            key = json.loads(m.group(1))
            top = stack[-1]
            if key in top[2]:
                return top[1], key
            top[2].add(key)
            pending = key
            continue
        char = token[:1]
        if char in (b"{", b"["):
            path = _child(stack, pending)
            stack.append([char, path, set() if char == b"{" else 0])
            pending = None
        elif char in (b"}", b"]"):
            stack.pop()
        elif char == b"," and stack and stack[-1][0] == b"[":
            stack[-1][2] += 1
    return None


def _child(stack: list[list], key: str | None) -> str:
    if not stack:
        return "$"
    top = stack[-1]
    if top[0] == b"[":
        return f"{top[1]}[{top[2]}]"
    return f"{top[1]}.{key}"
