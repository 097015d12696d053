"""Paths into the world state, and the changes between two world states.

One small path language serves both the tasks' expected answers (``answer = "apps.weather.
cities[id={city}].current.temp"``) and the side-effect rules (``expected_changes``,
``always_ignore``). A path is a dot-separated list of segments:

* ``name`` — a key of an object; ``*`` — any one key or list item.
* ``name[field=value]`` — the item of the list ``name`` whose ``field`` equals ``value``; in a
  change rule the field may be the list's id field or any other field of the item as it was
  before or after the change (``alarms[label=起床]``).
* ``name[*]`` — any item; ``name[+]`` — an item that was added; ``name[-]`` — one that was removed.
* ``name[3]`` — the item at index 3 (answers only: changes address items by id, not position).

Keys containing ``.``, ``[`` or ``]`` cannot be addressed; the world state schema avoids them.
Everything here is pure.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any
from trajectory.errors import TrajError

ID_FIELD = "id"

_SEGMENT_RE = re.compile(r"(?P<key>[^.\[\]]+)?(?P<sels>(?:\[[^\[\]]*\])*)")
_SEL_RE = re.compile(r"\[([^\[\]]*)\]")


class PathError(TrajError, ValueError):
    """A path that cannot be parsed or does not lead anywhere in the state."""


# -- parsing ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Sel:
    """One parsed segment: kind is key, any, item, anyitem, added, removed or index."""

    kind: str
    key: str = ""
    field: str = ""
    value: str = ""
    index: int = -1


def parse(path: str) -> tuple[Sel, ...]:
    if not path or path.strip() != path:
        raise PathError(f"bad path {path!r}")
    out: list[Sel] = []
    for part in path.split("."):
        m = _SEGMENT_RE.fullmatch(part)
        if m is None or (not m.group("key") and not m.group("sels")):
            raise PathError(f"bad segment {part!r} in path {path!r}")
        key = m.group("key")
        if key == "*":
            out.append(Sel("any"))
        elif key:
            out.append(Sel("key", key=key))
        for sel in _SEL_RE.findall(m.group("sels") or ""):
            if sel == "*":
                out.append(Sel("anyitem"))
            elif sel == "+":
                out.append(Sel("added"))
            elif sel == "-":
                out.append(Sel("removed"))
            elif sel.isdigit():
                out.append(Sel("index", index=int(sel)))
            elif "=" in sel:
                field, value = sel.split("=", 1)
                if not field:
                    raise PathError(f"bad selector [{sel}] in path {path!r}")
                out.append(Sel("item", field=field, value=value))
            else:
                raise PathError(f"bad selector [{sel}] in path {path!r}")
    return tuple(out)


def _text(value: Any) -> str:
    """How a value reads inside a selector: strings as they are, everything else as JSON."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


# -- reading ---------------------------------------------------------------------------------


def resolve(state: Any, path: str) -> Any:
    """The value at `path` in `state`; PathError naming the first segment that is missing."""
    node = state
    done: list[str] = []
    for sel in parse(path):
        where = ".".join(done) or "the root"
        if sel.kind == "key":
            if not isinstance(node, dict) or sel.key not in node:
                raise PathError(f"{path}: no key {sel.key!r} under {where}")
            node = node[sel.key]
            done.append(sel.key)
        elif sel.kind == "item":
            if not isinstance(node, list):
                raise PathError(f"{path}: {where} is not a list")
            hits = [x for x in node if isinstance(x, dict) and _text(x.get(sel.field)) == sel.value]
            if not hits:
                raise PathError(f"{path}: no item with {sel.field}={sel.value} in {where}")
            node = hits[0]
            done.append(f"[{sel.field}={sel.value}]")
        elif sel.kind == "index":
            if not isinstance(node, list) or sel.index >= len(node):
                raise PathError(f"{path}: no item {sel.index} in {where}")
            node = node[sel.index]
            done.append(f"[{sel.index}]")
        else:
            raise PathError(f"{path}: wildcards select nothing when reading a value")
    return node


# -- changes ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Key:
    name: str

    def show(self) -> str:
        return self.name


@dataclass(frozen=True)
class Item:
    """A list item addressed by its id; `before`/`after` let rules select it by other fields."""

    id: Any
    before: Any = None
    after: Any = None

    def show(self) -> str:
        return f"[{ID_FIELD}={_text(self.id)}]"


@dataclass(frozen=True)
class Change:
    """One difference between two world states: kind is added, removed or changed."""

    path: tuple[Key | Item, ...]
    kind: str
    before: Any = None
    after: Any = None

    def show(self) -> str:
        out = ""
        for seg in self.path:
            text = seg.show()
            out += text if (isinstance(seg, Item) or not out) else "." + text
        return out or "(the whole state)"


def _id_list(value: Any) -> dict[Any, Any] | None:
    """A list whose items are objects with distinct ids, by id; None for any other list."""
    if not isinstance(value, list):
        return None
    out: dict[Any, Any] = {}
    for item in value:
        if not isinstance(item, dict) or ID_FIELD not in item:
            return None
        key = _text(item[ID_FIELD])
        if key in out:
            return None
        out[key] = item
    return out


def diff(before: Any, after: Any) -> list[Change]:
    """Every change from `before` to `after`, as deep as objects and id-addressed lists go.

    Lists of objects with distinct ``id`` fields are compared item by item (added, removed,
    changed inside); any other list that differs is one change of the whole list, because a
    position is not an identity (inserting at the front would "change" every later item).
    """
    out: list[Change] = []
    _diff(before, after, (), out)
    return out


def _same(a: Any, b: Any) -> bool:
    """JSON equality, deep, without Python's True == 1: a flag turning into a number is a change
    (but 20 and 20.0 are one JSON number)."""
    if a is b:
        # Replay shares every part of the world state that no patch touched: the same object
        # is the same value, and most of a state is unchanged.
        return True
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    return type(a) is type(b) and a == b


def _diff(a: Any, b: Any, path: tuple[Key | Item, ...], out: list[Change]) -> None:
    if _same(a, b):
        return
    if isinstance(a, dict) and isinstance(b, dict):
        for k in list(a) + [k for k in b if k not in a]:
            if k not in b:
                out.append(Change(path + (Key(k),), "removed", before=a[k]))
            elif k not in a:
                out.append(Change(path + (Key(k),), "added", after=b[k]))
            else:
                _diff(a[k], b[k], path + (Key(k),), out)
        return
    ids_a, ids_b = _id_list(a), _id_list(b)
    if ids_a is not None and ids_b is not None:
        for k, item in ids_a.items():
            if k not in ids_b:
                out.append(Change(path + (Item(item[ID_FIELD], before=item),), "removed", before=item))
            else:
                seg = Item(item[ID_FIELD], before=item, after=ids_b[k])
                _diff(item, ids_b[k], path + (seg,), out)
        for k, item in ids_b.items():
            if k not in ids_a:
                out.append(Change(path + (Item(item[ID_FIELD], after=item),), "added", after=item))
        if list(ids_a) != list(ids_b) and set(ids_a) == set(ids_b):
            out.append(Change(path, "changed", before=list(ids_a), after=list(ids_b)))  # reordered
        return
    out.append(Change(path, "changed", before=a, after=b))


def _seg_matches(sel: Sel, seg: Key | Item, last: bool, kind: str) -> bool:
    if sel.kind == "any":
        return True
    if sel.kind == "key":
        return isinstance(seg, Key) and seg.name == sel.key
    if not isinstance(seg, Item):
        return False
    if sel.kind == "anyitem":
        return True
    if sel.kind == "added":
        return last and kind == "added"
    if sel.kind == "removed":
        return last and kind == "removed"
    if sel.kind == "item":
        if sel.field == ID_FIELD and _text(seg.id) == sel.value:
            return True
        return any(
            isinstance(x, dict) and sel.field in x and _text(x[sel.field]) == sel.value
            for x in (seg.before, seg.after)
        )
    return False


def covers(rule: str | tuple[Sel, ...], change: Change) -> bool:
    """Does the rule cover the change? A rule covers everything at or below the place it names."""
    sels = parse(rule) if isinstance(rule, str) else rule
    # parse() gives one selector per change-path segment: "alarms[+]" is Key(alarms) then an Item.
    if len(sels) > len(change.path):
        return False
    n = len(change.path)
    return all(
        _seg_matches(sel, seg, i == n - 1, change.kind)
        for i, (sel, seg) in enumerate(zip(sels, change.path))
    )
