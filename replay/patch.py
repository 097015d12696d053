"""RFC 6902 JSON Patch over plain JSON values, without mutating its input.

Replay is a pure fold, so a patch never changes the document it is given: containers on the
path of each operation are copied and everything else is shared. That keeps applying a patch
cheap (proportional to the depth of the path, not the size of the world state) and lets the
initial state and every intermediate state stay valid after later patches.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from msgspec import UNSET as _UNSET

from trajectory.errors import TrajError


class PatchError(TrajError, ValueError):
    """A patch does not apply to the current state (missing path, failed test, ...)."""


def _unescape(token: str) -> str:
    # RFC 6901: '~1' is '/', '~0' is '~', in that order.
    return token.replace("~1", "/").replace("~0", "~")


def parse_pointer(pointer: str) -> list[str]:
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise PatchError(f"JSON Pointer must start with '/': {pointer!r}")
    return [_unescape(t) for t in pointer[1:].split("/")]


def _index(container: list[Any], token: str, pointer: str, allow_end: bool) -> int:
    if token == "-" and allow_end:
        return len(container)
    if not token.isdigit() or (token != "0" and token.startswith("0")):
        raise PatchError(f"{pointer}: {token!r} is not an array index")
    idx = int(token)
    limit = len(container) if allow_end else len(container) - 1
    if idx > limit:
        raise PatchError(f"{pointer}: index {idx} out of range (length {len(container)})")
    return idx


def get(doc: Any, pointer: str) -> Any:
    """The value at ``pointer``; raises :class:`PatchError` when it does not exist."""
    cur = doc
    for token in parse_pointer(pointer):
        if isinstance(cur, dict):
            if token not in cur:
                raise PatchError(f"{pointer}: no member {token!r}")
            cur = cur[token]
        elif isinstance(cur, list):
            cur = cur[_index(cur, token, pointer, allow_end=False)]
        else:
            raise PatchError(f"{pointer}: cannot descend into a {type(cur).__name__}")
    return cur


def _with(doc: Any, tokens: list[str], pointer: str, op: str, value: Any = None) -> Any:
    """A copy of ``doc`` with the operation applied at ``tokens`` (copying only the path)."""
    if not tokens:
        if op in ("add", "replace"):
            return value
        raise PatchError(f"{pointer or '/'}: cannot remove the whole document")
    head, rest = tokens[0], tokens[1:]
    if isinstance(doc, dict):
        out = dict(doc)
        if rest:
            if head not in doc:
                raise PatchError(f"{pointer}: no member {head!r}")
            out[head] = _with(doc[head], rest, pointer, op, value)
        elif op == "add":
            out[head] = value
        elif op == "replace":
            if head not in doc:
                raise PatchError(f"{pointer}: no member {head!r} to replace")
            out[head] = value
        else:  # remove
            if head not in doc:
                raise PatchError(f"{pointer}: no member {head!r} to remove")
            del out[head]
        return out
    if isinstance(doc, list):
        out_list = list(doc)
        if rest:
            idx = _index(doc, head, pointer, allow_end=False)
            out_list[idx] = _with(doc[idx], rest, pointer, op, value)
        elif op == "add":
            out_list.insert(_index(doc, head, pointer, allow_end=True), value)
        elif op == "replace":
            out_list[_index(doc, head, pointer, allow_end=False)] = value
        else:
            del out_list[_index(doc, head, pointer, allow_end=False)]
        return out_list
    raise PatchError(f"{pointer}: cannot descend into a {type(doc).__name__}")


def _equal(a: Any, b: Any) -> bool:
    # JSON equality: 1 == 1.0, but true is not 1.
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))
    return a == b


def apply_op(doc: Any, op: str, path: str, value: Any = None, from_: str | None = None) -> Any:
    """Apply one operation and return the new document."""
    tokens = parse_pointer(path)
    if op in ("add", "replace", "remove"):
        return _with(doc, tokens, path, op, value)
    if op == "test":
        if not _equal(get(doc, path), value):
            raise PatchError(f"{path}: test failed")
        return doc
    assert from_ is not None
    moved = get(doc, from_)
    if op == "move":
        if path != from_ and path.startswith(from_ + "/"):
            raise PatchError(f"{path}: cannot move a value into itself")
        doc = _with(doc, parse_pointer(from_), from_, "remove")
    return _with(doc, tokens, path, "add", moved)


def apply_patch(doc: Any, ops: Iterable[Any]) -> Any:
    """Apply a whole patch (a sequence of ``PatchOp`` or dicts) atomically."""
    for op in ops:
        if isinstance(op, dict):
            name, path = op["op"], op["path"]
            value, from_ = op.get("value"), op.get("from")
        else:
            name, path = op.op, op.path
            value = None if op.value is _UNSET else op.value
            from_ = None if op.from_ is _UNSET else op.from_
        doc = apply_op(doc, name, path, value, from_)
    return doc

