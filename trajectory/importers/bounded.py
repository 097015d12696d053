"""Reading an importer's input within ingest's limits: bytes, nesting depth, counts and, for
zip archives (Inspect's ``.eval``), a decompression ratio.

Every importer (``traj import inspect``, ``otel``, ``mobilegym``, ``selfevo``) reads its files
through here, so that no input can take it past its memory or keep it reading for ever:

- only regular files are read (a FIFO would block, ``/dev/zero`` never ends);
- a file, or an archive entry once unpacked, is at most ``max_file_bytes``;
- JSON nests at most ``max_depth`` deep (ingest's limit), checked on the bytes before any
  decoder recurses into them;
- a key given twice in one object is refused as ``traj ingest`` refuses it, ``FILE:LINE: $.path:
  key "k" given twice in one object`` (JSON decoders keep the last one silently: a doubled
  ``traceId`` would move a span to another trace);
- an archive entry unpacks to at most ``max_ratio`` times its packed size (a zip bomb), and an
  archive has at most ``max_items`` entries; an import reads at most ``max_items`` spans,
  samples, episodes or lines.

Each refusal is one line naming the file (and the line or entry where it is known).
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import stat
import zipfile
from pathlib import Path
from typing import Any

import msgspec

from trajectory.errors import LimitError, SchemaError
from trajectory.ingest.plain import _depth_exceeds as too_deep  # ingest's own depth rule, byte for byte
from trajectory.text import hint


@dataclasses.dataclass(frozen=True)
class ImportLimits:
    """What one importer reads at most; the defaults are ingest's where ingest has one."""

    max_file_bytes: int = 1024**3  # a file read whole, or one archive entry unpacked
    max_depth: int = 64  # ingest's nesting limit
    max_items: int = 1_000_000  # spans, samples, lines, episodes or archive entries; ingest's events per run
    max_ratio: int = 200  # unpacked / packed bytes of an archive entry (above 1 MiB unpacked)


DEFAULT = ImportLimits()


class NotJson(SchemaError):
    """The text is not JSON (as opposed to JSON over a limit or with a doubled key)."""
_RATIO_FROM = 1024**2  # small entries compress well without being a bomb

# A JSON string with its escapes, matched whole.
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
# A string (a key when a colon follows) or one structural character.
_TOKEN = re.compile(rb'("[^"\\]*(?:\\.[^"\\]*)*")(\s*:)?|[\[\]{},]')


def _kind_of(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode):
        return "a folder"
    return "not a regular file"


def check_regular(path: str | Path) -> None:
    """Refuse anything but a regular file (following links), without opening it."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise SchemaError(f"{path}: cannot read: no such file") from None
    except OSError as exc:
        raise SchemaError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if not stat.S_ISREG(st.st_mode):
        raise SchemaError(f"{path}: {_kind_of(st.st_mode)}, not a regular file: importers read only files")


def read_file(path: str | Path, limits: ImportLimits = DEFAULT) -> bytes:
    """The bytes of a regular file of at most ``max_file_bytes``."""
    check_regular(path)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError as exc:
        raise SchemaError(f"{path}: cannot read: {exc.strerror or exc}") from None
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode):  # swapped since the check
            raise SchemaError(f"{path}: {_kind_of(st.st_mode)}, not a regular file: importers read only files")
        if st.st_size > limits.max_file_bytes:
            raise LimitError(f"{path}: {st.st_size} bytes, over the limit of {limits.max_file_bytes}")
        try:
            data = f.read(limits.max_file_bytes + 1)
        except OSError as exc:
            raise SchemaError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if len(data) > limits.max_file_bytes:
        raise LimitError(f"{path}: more than {limits.max_file_bytes} bytes, over the limit")
    return data


def read_stream(stream: Any, source: str, limits: ImportLimits = DEFAULT) -> bytes:
    """At most ``max_file_bytes`` of a stream (standard input)."""
    data = stream.read(limits.max_file_bytes + 1)
    if len(data) > limits.max_file_bytes:
        raise LimitError(f"{source}: more than {limits.max_file_bytes} bytes, over the limit")
    return data


# -- JSON -------------------------------------------------------------------------------------


def _key_count(raw: bytes) -> int:
    """Keys in valid JSON text: its colons outside strings."""
    return _STRING.sub(b"", raw).count(b":")


def duplicate_key(raw: bytes) -> tuple[str, str, int] | None:
    """(JSON path of the object, key, byte offset) of the first key given twice in one object."""
    stack: list[list[Any]] = []  # ("{", path, keys seen) or ("[", path, index)
    pending: str | None = None
    for m in _TOKEN.finditer(raw):
        if m.group(1) is not None:
            if m.group(2) is None:
                continue  # a string value
            key = json.loads(m.group(1))
            top = stack[-1]
            if key in top[2]:
                return top[1], key, m.start()
            top[2].add(key)
            pending = key
            continue
        char = m.group(0)[:1]
        if char in (b"{", b"["):
            if not stack:
                path = "$"
            elif stack[-1][0] == b"[":
                path = f"{stack[-1][1]}[{stack[-1][2]}]"
            else:
                path = f"{stack[-1][1]}.{pending}"
            stack.append([char, path, set() if char == b"{" else 0])
            pending = None
        elif char in (b"}", b"]"):
            stack.pop()
        elif char == b"," and stack and stack[-1][0] == b"[":
            stack[-1][2] += 1
    return None


def _short(key: str) -> str:
    return json.dumps(key if len(key) <= 60 else key[:57] + "...", ensure_ascii=False)


def load_json(raw: bytes, source: str, line: int = 1, limits: ImportLimits = DEFAULT) -> Any:
    """One JSON text (a file, or one line of JSON Lines starting at ``line``) as Python values,
    refused as ingest refuses a line: too deep, not JSON, or a key given twice."""
    if too_deep(raw, limits.max_depth):
        raise LimitError(f"{source}:{line}: $: nesting deeper than the limit of {limits.max_depth}")
    try:
        value = msgspec.json.decode(raw)
    except msgspec.DecodeError as exc:
        raise NotJson(f"{source}:{line}: not JSON: {exc}") from None
    if isinstance(value, (dict, list)) and _key_count(raw) != _key_count(msgspec.json.encode(value)):
        dup = duplicate_key(raw)
        if dup is not None:
            path, key, at = dup
            where = line + raw.count(b"\n", 0, at)
            raise SchemaError(f"{source}:{where}: {path}: key {_short(key)} given twice in one object")
    return value


def json_lines(data: bytes, source: str, limits: ImportLimits = DEFAULT) -> list[tuple[int, Any]]:
    """(line number, value) of each non-blank line; the first bad line is refused."""
    out = []
    for n, raw in enumerate(data.split(b"\n"), start=1):
        if not raw.strip():
            continue
        if len(out) >= limits.max_items:
            raise LimitError(f"{source}:{n}: more than {limits.max_items} lines, over the limit")
        out.append((n, load_json(raw, source, n, limits)))
    return out


# -- zip archives -------------------------------------------------------------------------


def check_zip(path: str | Path, limits: ImportLimits = DEFAULT, *, json_entries: bool = True) -> None:
    """Refuse a zip archive that unpacks past the limits, before anything unpacks it; with
    ``json_entries`` also each ``.json`` entry that nests too deep or gives a key twice (read
    one entry at a time)."""
    check_regular(path)
    try:
        with zipfile.ZipFile(path) as z:
            infos = z.infolist()
            if len(infos) > limits.max_items:
                raise LimitError(f"{path}: {len(infos)} archive entries, over the limit of {limits.max_items}")
            for info in infos:
                size, packed = info.file_size, max(info.compress_size, 1)
                if size > limits.max_file_bytes:
                    raise LimitError(f"{path}: entry {info.filename} unpacks to {size} bytes, over the limit "
                                     f"of {limits.max_file_bytes}")
                if size > _RATIO_FROM and size / packed > limits.max_ratio:
                    raise LimitError(f"{path}: entry {info.filename} unpacks {size / packed:.0f} times its size "
                                     f"({packed} to {size} bytes), over the limit of {limits.max_ratio}")
            if json_entries:
                for info in infos:
                    if info.filename.endswith(".json"):
                        with z.open(info) as f:
                            raw = f.read(limits.max_file_bytes + 1)
                        if len(raw) > limits.max_file_bytes:
                            raise LimitError(f"{path}: entry {info.filename} unpacks past {limits.max_file_bytes} bytes")
                        load_json(raw, f"{path}: entry {info.filename}", 1, limits)
    except zipfile.BadZipFile as exc:
        raise SchemaError(f"{path}: not a zip archive (an .eval log is one): {exc}") from None
    except (OSError, EOFError, zipfile.LargeZipFile, NotImplementedError, RuntimeError) as exc:
        raise SchemaError(f"{path}: cannot read the archive: {' '.join(str(exc).split())}") from None


# -- formats ----------------------------------------------------------------------------------


def format_of(value: Any) -> str:
    """What a decoded JSON document looks like, for a refusal naming the format found."""
    if isinstance(value, list):
        return f"a JSON array of {len(value)} values" if not value else f"a JSON array of {format_of(value[0])}"
    if not isinstance(value, dict):
        return f"a JSON {type(value).__name__.replace('str', 'string').replace('NoneType', 'null')}"
    keys = set(value)
    ctx = value.get("context")
    if isinstance(ctx, dict) and "trace_id" in ctx and "span_id" in ctx:
        return "OpenTelemetry SDK span JSON (ConsoleSpanExporter output)"
    if "resourceSpans" in keys:
        return "OTLP/JSON traces"
    if "resourceLogs" in keys or "resourceMetrics" in keys:
        return "OTLP/JSON " + ("logs" if "resourceLogs" in keys else "metrics")
    if {"run_id", "seq", "kind"} <= keys:
        return f"traj event lines (import them with {hint('traj ingest FILE')})"
    if "eval" in keys and ("version" in keys or "samples" in keys):
        return f"an Inspect log (import it with {hint('traj import inspect FILE')})"
    if "task_id" in keys and ("steps" in keys or "trajectory" in keys):
        return f"a trajectory line (import it with {hint('traj import selfevo FILE')})"
    names = ", ".join(sorted(keys)[:5]) + (", ..." if len(keys) > 5 else "")
    return f"a JSON object with keys {names}" if keys else "an empty JSON object"
