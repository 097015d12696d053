"""OTLP/JSON as spans: the parsing half of the OTel importer (``otel.py`` maps the spans).

Pure: parses bytes already read. Input is what an OTLP/JSON file exporter writes: one
``{"resourceSpans": [...]}`` document, or JSON Lines of them. Bytes, depth and doubled keys are
checked as every importer checks them (``bounded.py``); a file with nothing of OTLP's structure
is refused naming what it holds.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import json
import math
from collections.abc import Mapping
from typing import Any

from trajectory.errors import SchemaError
from trajectory.importers import bounded

_STATUS = {"STATUS_CODE_UNSET": 0, "STATUS_CODE_OK": 1, "STATUS_CODE_ERROR": 2}


@dataclasses.dataclass
class SpanEvent:
    name: str
    time_ns: int
    attrs: dict[str, Any]


@dataclasses.dataclass
class Span:
    trace_id: str
    span_id: str
    parent_id: str | None
    name: str
    kind: Any
    start_ns: int
    end_ns: int
    attrs: dict[str, Any]
    events: list[SpanEvent]
    status_code: int
    status_message: str | None
    resource: dict[str, Any]
    scope: str | None
    where: str = ""  # FILE:LINE of the document it came in


@dataclasses.dataclass
class Document:
    """One OTLP/JSON document (a file, or one line of JSON Lines)."""

    source: str
    line: int
    spans: list[Span]


# -- parsing --------------------------------------------------------------------------------


class _Bad(ValueError):
    def __init__(self, path: str, message: str):
        super().__init__(f"{path}: {message}")


def any_value(v: Any, path: str) -> Any:
    """An OTLP AnyValue as plain JSON (ints given as strings become ints; NaN becomes None)."""
    if not isinstance(v, Mapping):
        raise _Bad(path, "expected an AnyValue object")
    if not v:
        return None
    if "stringValue" in v:
        return str(v["stringValue"])
    if "boolValue" in v:
        return bool(v["boolValue"])
    if "intValue" in v:
        try:
            return int(v["intValue"])
        except (TypeError, ValueError):
            raise _Bad(path + ".intValue", f"not an integer: {v['intValue']!r}") from None
    if "doubleValue" in v:
        try:
            d = float(v["doubleValue"])
        except (TypeError, ValueError):
            raise _Bad(path + ".doubleValue", f"not a number: {v['doubleValue']!r}") from None
        return d if math.isfinite(d) else None
    if "arrayValue" in v:
        values = (v["arrayValue"] or {}).get("values") or []
        return [any_value(x, f"{path}.arrayValue.values[{i}]") for i, x in enumerate(values)]
    if "kvlistValue" in v:
        return attributes((v["kvlistValue"] or {}).get("values") or [], path + ".kvlistValue.values")
    if "bytesValue" in v:
        return str(v["bytesValue"])
    raise _Bad(path, f"unknown AnyValue with keys {sorted(v)}")


def attributes(items: Any, path: str) -> dict[str, Any]:
    """OTLP ``[{key, value}]`` as a dict; ``path`` names the list in error messages."""
    if items is None:
        return {}
    if not isinstance(items, list):
        raise _Bad(path, "expected a list of {key, value}")
    out: dict[str, Any] = {}
    for i, kv in enumerate(items):
        if not isinstance(kv, Mapping) or not isinstance(kv.get("key"), str):
            raise _Bad(f"{path}[{i}]", "expected {key, value} with a string key")
        out[kv["key"]] = any_value(kv.get("value") or {}, f"{path}[{i}].value")
    return out


def _id(value: Any, size: int, path: str, required: bool = True) -> str | None:
    if value in (None, "") and not required:
        return None
    if not isinstance(value, str) or not value:
        raise _Bad(path, f"expected a {size * 2}-digit hex id")
    text = value.lower()
    if len(text) == size * 2 and all(c in "0123456789abcdef" for c in text):
        return None if (not required and set(text) == {"0"}) else text
    try:  # protobuf JSON mapping writes bytes as base64
        raw = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raw = b""
    if len(raw) == size:
        return raw.hex()
    raise _Bad(path, f"expected a {size * 2}-digit hex id, got {value!r}")


def _nanos(value: Any, path: str, default: int | None = None) -> int:
    if value in (None, "") and default is not None:
        return default
    try:
        n = int(value)
    except (TypeError, ValueError):
        raise _Bad(path, f"expected nanoseconds since the epoch, got {value!r}") from None
    if not 0 <= n < 253402300800 * 10**9:
        raise _Bad(path, f"time out of range: {n}")
    return n


def _span(d: Any, path: str, resource: dict[str, Any], scope: str | None) -> Span:
    if not isinstance(d, Mapping):
        raise _Bad(path, "expected a span object")
    name = d.get("name")
    if not isinstance(name, str):
        raise _Bad(path + ".name", "expected a string")
    start = _nanos(d.get("startTimeUnixNano"), path + ".startTimeUnixNano")
    end = _nanos(d.get("endTimeUnixNano"), path + ".endTimeUnixNano", default=start)
    events = []
    for i, e in enumerate(d.get("events") or []):
        p = f"{path}.events[{i}]"
        if not isinstance(e, Mapping) or not isinstance(e.get("name"), str):
            raise _Bad(p, "expected an event with a string name")
        events.append(SpanEvent(e["name"], _nanos(e.get("timeUnixNano"), p + ".timeUnixNano", default=start),
                                attributes(e.get("attributes"), p + ".attributes")))
    status = d.get("status") or {}
    if not isinstance(status, Mapping):
        raise _Bad(path + ".status", "expected an object")
    code = status.get("code", 0)
    code = _STATUS.get(code, code) if isinstance(code, str) else code
    if code not in (0, 1, 2):
        raise _Bad(path + ".status.code", f"expected 0, 1, 2 or a STATUS_CODE_ name, got {status.get('code')!r}")
    return Span(
        trace_id=_id(d.get("traceId"), 16, path + ".traceId") or "",
        span_id=_id(d.get("spanId"), 8, path + ".spanId") or "",
        parent_id=_id(d.get("parentSpanId"), 8, path + ".parentSpanId", required=False),
        name=name, kind=d.get("kind"), start_ns=start, end_ns=max(end, start),
        attrs=attributes(d.get("attributes"), path + ".attributes"), events=events, status_code=code,
        status_message=status.get("message") or None, resource=resource, scope=scope,
    )


def parse_document(doc: Any, source: str, line: int) -> Document:
    """The spans of one OTLP/JSON document; a malformed one raises ``FILE:LINE: $.path: message``."""
    if not isinstance(doc, Mapping) or not isinstance(doc.get("resourceSpans", []), list):
        raise SchemaError(f"{source}:{line}: $: expected an OTLP/JSON object with resourceSpans")
    spans = []
    try:
        for i, rs in enumerate(doc.get("resourceSpans") or []):
            p = f"$.resourceSpans[{i}]"
            if not isinstance(rs, Mapping):
                raise _Bad(p, "expected an object")
            resource = attributes((rs.get("resource") or {}).get("attributes"), p + ".resource.attributes")
            for j, ss in enumerate(rs.get("scopeSpans") or rs.get("instrumentationLibrarySpans") or []):
                q = f"{p}.scopeSpans[{j}]"
                if not isinstance(ss, Mapping):
                    raise _Bad(q, "expected an object")
                scope = (ss.get("scope") or ss.get("instrumentationLibrary") or {}).get("name")
                for k, sp in enumerate(ss.get("spans") or []):
                    s = _span(sp, f"{q}.spans[{k}]", resource, scope)
                    s.where = f"{source}:{line}"
                    spans.append(s)
    except _Bad as exc:
        raise SchemaError(f"{source}:{line}: {exc}") from None
    return Document(source, line, spans)


EXPECTED = 'OTLP/JSON traces ({"resourceSpans": [...]} documents; the README shows how to write them with the SDK)'


def _refuse_format(found: str, where: str) -> SchemaError:
    return SchemaError(f"{where}: {found}, not {EXPECTED}")


def parse_file(data: bytes, source: str, limits: bounded.ImportLimits = bounded.DEFAULT) -> list[Document]:
    """One JSON document, or JSON Lines of them (blank lines ignored). A file with nothing of
    OTLP's structure (empty, another tool's JSON) is refused naming what it holds."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SchemaError(f"{source}: not UTF-8: {exc}") from None
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    if not data.strip():
        raise SchemaError(f"{source}: empty file, expected {EXPECTED}")
    try:
        whole = bounded.load_json(data, source, 1, limits)
    except bounded.NotJson:
        whole = None
    else:
        if isinstance(whole, Mapping):
            if "resourceSpans" not in whole:
                raise _refuse_format(bounded.format_of(whole), source)
            return [parse_document(whole, source, 1)]
    docs = []
    for n, raw in enumerate(data.split(b"\n"), start=1):
        if not raw.strip():
            continue
        try:
            doc = bounded.load_json(raw, source, n, limits)
        except bounded.NotJson:
            if not docs:  # pretty-printed documents one after another (the SDK's console exporter)
                first_doc = _first_document(data)
                if first_doc is not None and not (isinstance(first_doc, Mapping) and "resourceSpans" in first_doc):
                    raise _refuse_format(bounded.format_of(first_doc) + " written over several lines", source) from None
            raise
        if not isinstance(doc, Mapping) or "resourceSpans" not in doc:
            raise _refuse_format(bounded.format_of(doc), f"{source}:{n}")
        docs.append(parse_document(doc, source, n))
    return docs


def _first_document(data: bytes) -> Any:
    try:
        return json.JSONDecoder().raw_decode(data[: 1024 * 1024].decode("utf-8", "replace").lstrip())[0]
    except (ValueError, RecursionError):
        return None


