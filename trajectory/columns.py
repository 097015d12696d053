"""What the shell derives from the event declaration (``trajectory/events.py``).

Pure (msgspec and the standard library): the pure core may import it. From the field metadata
of the event types (:func:`trajectory.events.doc`) it derives

- the typed columns of the events table (name, type, which kinds fill them, from which JSON
  path), the run columns copied from ``run_started`` onto every event, and the figures summed
  per run — the Arrow schema (``trajectory/store/delta.py``), the columns ingest builds
  (``trajectory/ingest/rows.py``), the batch replay's aggregates (``replay/batch.py``) and the
  ``runs`` view (``trajectory/query/sql.py``) are made from these;
- the one-line summary of an event that ``traj show`` prints.

Everything is computed from the event types it is given, so a copy of the declaration (a test
adding a field) derives its own columns.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Sequence
from functools import cached_property
from typing import Any

import msgspec
import msgspec.inspect as mi

from trajectory import events as ev

ENVELOPE_TYPES = {"run_id": "string", "seq": "int64", "ts": "timestamp"}


@dataclasses.dataclass(frozen=True)
class Column:
    """One typed column of the events table."""

    name: str
    type: str  # string, int64, float64, bool or timestamp
    #: (kind, JSON path in that kind's events) for every kind that fills this column.
    sources: tuple[tuple[str, tuple[str, ...]], ...]
    #: The same paths as attribute names of the event types (they differ for renamed fields).
    attrs: tuple[tuple[str, ...], ...] = ()
    json: bool = False  # holds the value as JSON text
    figure: bool = False  # a number summed per run
    run: str | None = None  # name in the runs view (run_started fields: copied onto every event)
    description: str = ""

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(k for k, _ in self.sources)


def _meta(f: Any) -> tuple[dict[str, Any], str]:
    """A field's traj metadata and its description."""
    t = f.type
    extra = getattr(t, "extra", None) or {}
    description = (getattr(t, "extra_json_schema", None) or {}).get("description", "")
    return extra, description


def _base(t: Any) -> Any:
    """The type under metadata and an optional ``None``."""
    while isinstance(t, mi.Metadata):
        t = t.type
    if isinstance(t, mi.UnionType):
        members = [m for m in t.types if not isinstance(m, mi.NoneType)]
        if len(members) == 1:
            return _base(members[0])
    return t


def _logical(t: Any, as_json: bool) -> str:
    if as_json:
        return "string"
    t = _base(t)
    if isinstance(t, mi.LiteralType):
        values = t.values
        if all(isinstance(v, bool) for v in values):
            return "bool"
        if all(isinstance(v, int) for v in values):
            return "int64"
        return "string"
    if isinstance(t, mi.StrType):
        return "string"
    if isinstance(t, mi.BoolType):
        return "bool"
    if isinstance(t, mi.IntType):
        return "int64"
    if isinstance(t, mi.FloatType):
        return "float64"
    if isinstance(t, mi.UnionType) and {type(m) for m in t.types} == {mi.IntType, mi.FloatType}:
        return "float64"  # a number, integral or not (figures such as timing)
    if isinstance(t, (mi.DateTimeType, mi.UnionType)):
        return "timestamp"
    raise TypeError(f"no column type for {t!r}")


def _struct(t: Any) -> type | None:
    t = _base(t)
    return t.cls if isinstance(t, mi.StructType) else None


class Declaration:
    """The columns and summaries of one set of event types (a tagged union)."""

    def __init__(self, types: Sequence[type[msgspec.Struct]]):
        self.types = tuple(types)
        self.kinds = tuple(t.__struct_config__.tag for t in self.types)  # type: ignore[attr-defined]
        self.by_kind = dict(zip(self.kinds, self.types))
        self._by_kind_columns: dict[str, tuple[Column, ...]] = {}

    # -- columns ------------------------------------------------------------------------------
    @cached_property
    def columns(self) -> tuple[Column, ...]:
        """Every typed column in declaration order: envelope, run columns, then event columns."""
        found: dict[str, dict[str, Any]] = {}
        for kind, cls in self.by_kind.items():
            for f in mi.type_info(cls).fields:
                extra, description = _meta(f)
                if "column" not in extra:
                    continue
                sub = _struct(f.type)
                if sub is None:
                    self._add(found, extra["column"], kind, (f.encode_name,), f.type, extra, description,
                              (f.name,))
                    continue
                prefix = extra["column"]
                for g in mi.type_info(sub).fields:
                    gextra, gdescription = _meta(g)
                    if "column" not in gextra:
                        continue
                    name = f"{prefix}_{gextra['column']}" if prefix else gextra["column"]
                    self._add(found, name, kind, (f.encode_name, g.encode_name), g.type, gextra, gdescription,
                              (f.name, g.name))
        cols = [
            Column(name=n, type=c["type"], sources=tuple(c["sources"]), attrs=tuple(c["attrs"]), json=c["json"],
                   figure=c["figure"], run=c["run"], description=c["description"])
            for n, c in found.items()
        ]
        envelope = [c for c in cols if c.name in ENVELOPE_TYPES]
        run = [c for c in cols if c.run is not None and c.kinds == ("run_started",)]
        rest = [c for c in cols if c not in envelope and c not in run]
        return tuple(envelope + run + rest)

    @staticmethod
    def _add(found: dict[str, dict[str, Any]], name: str, kind: str, path: tuple[str, ...], t: Any,
             extra: dict[str, Any], description: str, attrs: tuple[str, ...]) -> None:
        typ = ENVELOPE_TYPES.get(name) or _logical(t, bool(extra.get("json")))
        col = found.setdefault(name, {"type": typ, "sources": [], "json": bool(extra.get("json")),
                                      "figure": bool(extra.get("figure")), "run": extra.get("run"),
                                      "description": description, "attrs": []})
        if col["type"] != typ:
            raise TypeError(f"column {name}: {kind} gives it type {typ}, another kind {col['type']}")
        if name in ENVELOPE_TYPES and col["sources"]:
            return  # the envelope is every kind's: one source says where it is
        col["sources"].append((kind, path))
        col["attrs"].append(attrs)

    @cached_property
    def _defaults(self) -> dict[type, dict[str, Any]]:
        out: dict[type, dict[str, Any]] = {}
        todo = list(self.types)
        while todo:
            cls = todo.pop()
            if cls in out:
                continue
            out[cls] = {}
            for f in mi.type_info(cls).fields:
                extra, _ = _meta(f)
                if "default" in extra:
                    out[cls][f.name] = extra["default"]
                sub = _struct(f.type)
                if sub is not None:
                    todo.append(sub)
        return out

    def value(self, obj: Any, name: str) -> Any:
        """A field's value, or what it reads as when it was not given (``UNSET``)."""
        v = getattr(obj, name)
        return self._defaults[type(obj)].get(name) if v is msgspec.UNSET else v

    def column(self, name: str) -> Column:
        return next(c for c in self.columns if c.name == name)

    @cached_property
    def envelope(self) -> tuple[Column, ...]:
        return tuple(c for c in self.columns if c.name in ENVELOPE_TYPES)

    @cached_property
    def run_columns(self) -> tuple[Column, ...]:
        """Columns a run's ``run_started`` fills and ingest copies onto every event of the run."""
        return tuple(c for c in self.columns if c.run is not None and c.kinds == ("run_started",))

    @cached_property
    def event_columns(self) -> tuple[Column, ...]:
        """Columns each event fills from its own fields (besides the envelope)."""
        return tuple(c for c in self.columns if c not in self.envelope and c not in self.run_columns)

    @cached_property
    def figures(self) -> tuple[Column, ...]:
        return tuple(c for c in self.columns if c.figure)

    def kind_columns(self, kind: str) -> tuple[Column, ...]:
        """The event columns a kind fills."""
        cached = self._by_kind_columns.get(kind)
        if cached is None:
            cached = self._by_kind_columns[kind] = tuple(c for c in self.event_columns if kind in c.kinds)
        return cached

    @property
    def finish_columns(self) -> tuple[tuple[str, str, tuple[str, ...] | None], ...]:
        """(runs-view name, column or '', JSON path) of run_finished fields shown per run."""
        out = []
        cls = self.by_kind.get("run_finished")
        for f in mi.type_info(cls).fields if cls else ():
            extra, _ = _meta(f)
            if "run" in extra:
                col = extra.get("column") or ""
                out.append((extra["run"], col, None if col else (f.encode_name,)))
        return tuple(out)

    @property
    def tallies(self) -> tuple[tuple[str, str], ...]:
        """(runs-view name, kind) of the kinds counted per run (``runs_count`` on the class)."""
        return tuple(
            (cls.runs_count, kind) for kind, cls in self.by_kind.items() if getattr(cls, "runs_count", None)
        )

    # -- the one-line summary -----------------------------------------------------------------
    @cached_property
    def _shown(self) -> dict[type, tuple[tuple[str, bool], ...]]:
        out = {}
        for cls in self.types:
            out[cls] = tuple(
                (f.name, f.required and isinstance(_base(f.type), (mi.StrType, mi.LiteralType)))
                for f in mi.type_info(cls).fields
                if _meta(f)[0].get("show")
            )
        return out

    def summary(self, event: msgspec.Struct, width: int = 70) -> str:
        """``kind`` and the fields marked ``show``: a required word bare, others ``name=value``."""
        parts = [type(event).__struct_config__.tag]  # type: ignore[attr-defined]
        for name, bare in self._shown[type(event)]:
            value = getattr(event, name)
            if value is None or value is msgspec.UNSET:
                continue
            if isinstance(value, str):
                text = value.replace("\n", " ")
            else:
                text = json.dumps(msgspec.to_builtins(value), ensure_ascii=False)
            if len(text) > width:
                text = text[: width - 3] + "..."
            parts.append(text if bare else f"{name}={text}")
        return " ".join(parts)


# -- the format for people (docs/events.md) ---------------------------------------------------------


@functools.cache
def declaration() -> Declaration:
    """The columns and summaries derived from the declared event types, built once."""
    return Declaration(ev.EVENT_TYPES)


def _type_text(t: Any) -> str:
    base = _base(t)
    if isinstance(base, mi.LiteralType):
        return " \\| ".join(f"`{json.dumps(v)}`" for v in base.values)
    if isinstance(base, mi.StrType):
        return "string"
    if isinstance(base, mi.IntType):
        return "integer ≥ 0" if base.ge == 0 else "integer"
    if isinstance(base, mi.FloatType):
        return "number ≥ 0" if base.ge == 0 else "number"
    if isinstance(base, mi.StructType):
        return "object: " + ", ".join(f"`{f.encode_name}`" for f in mi.type_info(base.cls).fields)
    if isinstance(base, (mi.DictType,)):
        return "object"
    if isinstance(base, (mi.ListType,)):
        return "array"
    if isinstance(base, mi.UnionType):
        names = {type(m).__name__ for m in base.types}
        if "DateTimeType" in names:
            return "RFC 3339 string, or integer epoch ms"
        return "string, number, or an array of them"
    return "any JSON"


def _field_rows(cls: type) -> list[str]:
    rows = []
    for f in mi.type_info(cls).fields:
        extra, description = _meta(f)
        if f.encode_name in ("run_id", "seq", "ts", "extra") and cls.__name__ != "Event":
            continue
        where = []
        if "column" in extra:
            sub = _struct(f.type)
            if sub is None:
                where.append(f"column `{extra['column']}`")
            else:
                prefix = extra["column"]
                cols = [
                    (f"{prefix}_{_meta(g)[0]['column']}" if prefix else _meta(g)[0]["column"])
                    for g in mi.type_info(sub).fields if "column" in _meta(g)[0]
                ]
                where.append("columns " + ", ".join(f"`{c}`" for c in cols))
        if "run" in extra:
            where.append(f"runs view `{extra['run']}`")
        if "default" in extra:
            where.append(f"absent reads as `{json.dumps(extra['default'])}`")
        name = f"`{f.encode_name}`" + ("*" if f.required else "")
        rows.append(f"| {name} | {_type_text(f.type)} | {description} | {'; '.join(where)} |")
    return rows


def markdown(decl: Declaration, envelope: type) -> str:
    """The per-kind field tables of docs/events.md, from the declaration."""
    lines = ["### envelope (every kind)", "", "| field | type | meaning | stored as |", "|---|---|---|---|"]
    lines += _field_rows(envelope)
    for kind, cls in decl.by_kind.items():
        lines += ["", f"### `{kind}`", "", (cls.__doc__ or "").strip().splitlines()[0], ""]
        rows = _field_rows(cls)
        if rows:
            lines += ["| field | type | meaning | stored as |", "|---|---|---|---|", *rows]
    return "\n".join(lines) + "\n"


BEGIN = "<!-- kinds: generated from trajectory/events.py by `python -m trajectory.columns docs/events.md` -->"
END = "<!-- end of kinds -->"


def update_doc(path: str) -> bool:
    """Rewrite the generated part of a doc; whether it changed."""
    from pathlib import Path

    p = Path(path)
    text = p.read_text(encoding="utf-8")
    head, _, rest = text.partition(BEGIN)
    _, _, tail = rest.partition(END)
    new = f"{head}{BEGIN}\n\n{markdown(declaration(), ev.Event)}\n{END}{tail}"
    if new != text:
        p.write_text(new, encoding="utf-8")
    return new != text


if __name__ == "__main__":
    import sys

    for target in sys.argv[1:]:
        print(f"{target}: {'updated' if update_doc(target) else 'up to date'}")
