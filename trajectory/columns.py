"""What the shell derives from the event declaration (``trajectory/events.py``).

Pure (msgspec and the standard library): the pure core may import it. From the field metadata
of the event types (:func:`trajectory.events.doc`) it derives

- the typed columns of the events table (name, type, which kinds fill them, from which JSON
  path), the run columns copied from ``run_started`` onto every event, and the figures summed
  per run — the Arrow schema (``trajectory/store.py``), the columns ingest builds
  (``trajectory/ingest.py``), the batch replay's aggregates (``replay/batch.py``) and the
  ``runs`` view (``trajectory/query.py``) are made from these;
- the one-line summary of an event that ``traj show`` prints.

Everything is computed from the event types it is given, so a copy of the declaration (a test
adding a field) derives its own columns.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from functools import cached_property
from typing import Any

import msgspec
import msgspec.inspect as mi

ENVELOPE_TYPES = {"run_id": "string", "seq": "int64", "ts": "timestamp"}


@dataclasses.dataclass(frozen=True)
class Column:
    """One typed column of the events table."""

    name: str
    type: str  # string, int64, float64, bool or timestamp
    #: (kind, JSON path in that kind's events) for every kind that fills this column.
    sources: tuple[tuple[str, tuple[str, ...]], ...]
    json: bool = False  # holds the value as JSON text
    figure: bool = False  # a number summed per run
    run: str | None = None  # name in the runs view (run_started fields: copied onto every event)
    description: str = ""

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(k for k, _ in self.sources)


def _meta(f: Any) -> tuple[dict[str, Any], str]:
    t = f.type
    extra = getattr(t, "extra", None) or {}
    return extra, getattr(t, "description", None) or ""


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
                    self._add(found, extra["column"], kind, (f.encode_name,), f.type, extra, description)
                    continue
                prefix = extra["column"]
                for g in mi.type_info(sub).fields:
                    gextra, gdescription = _meta(g)
                    if "column" not in gextra:
                        continue
                    name = f"{prefix}_{gextra['column']}" if prefix else gextra["column"]
                    self._add(found, name, kind, (f.encode_name, g.encode_name), g.type, gextra, gdescription)
        cols = [
            Column(name=n, type=c["type"], sources=tuple(c["sources"]), json=c["json"], figure=c["figure"],
                   run=c["run"], description=c["description"])
            for n, c in found.items()
        ]
        envelope = [c for c in cols if c.name in ENVELOPE_TYPES]
        run = [c for c in cols if c.run is not None and c.kinds == ("run_started",)]
        rest = [c for c in cols if c not in envelope and c not in run]
        return tuple(envelope + run + rest)

    @staticmethod
    def _add(found: dict[str, dict[str, Any]], name: str, kind: str, path: tuple[str, ...], t: Any,
             extra: dict[str, Any], description: str) -> None:
        typ = ENVELOPE_TYPES.get(name) or _logical(t, bool(extra.get("json")))
        col = found.setdefault(name, {"type": typ, "sources": [], "json": bool(extra.get("json")),
                                      "figure": bool(extra.get("figure")), "run": extra.get("run"),
                                      "description": description})
        if col["type"] != typ:
            raise TypeError(f"column {name}: {kind} gives it type {typ}, another kind {col['type']}")
        if name in ENVELOPE_TYPES and col["sources"]:
            return  # the envelope is every kind's: one source says where it is
        col["sources"].append((kind, path))

    def column(self, name: str) -> Column:
        return next(c for c in self.columns if c.name == name)

    @property
    def envelope(self) -> tuple[Column, ...]:
        return tuple(c for c in self.columns if c.name in ENVELOPE_TYPES)

    @property
    def run_columns(self) -> tuple[Column, ...]:
        """Columns a run's ``run_started`` fills and ingest copies onto every event of the run."""
        return tuple(c for c in self.columns if c.run is not None and c.kinds == ("run_started",))

    @property
    def event_columns(self) -> tuple[Column, ...]:
        """Columns each event fills from its own fields (besides the envelope)."""
        return tuple(c for c in self.columns if c not in self.envelope and c not in self.run_columns)

    @property
    def figures(self) -> tuple[Column, ...]:
        return tuple(c for c in self.columns if c.figure)

    def kind_columns(self, kind: str) -> tuple[Column, ...]:
        return tuple(c for c in self.event_columns if kind in c.kinds)

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
