"""Ingest's line rules and what both sides of a batch read: lines in, validated events out.

A line is one JSON object the event decoder accepts (unknown fields, types, bounds, times), with
no key twice, no byte order mark, within the size and depth limits; ``line_problem`` words what
is wrong with one, and staging.py asks it for every line it cannot take. ``parse`` gives the
events of a whole text as objects, for callers that need them (the recorder, the importers,
trust). The batch rules are rules.py's; every refusal names
``FILE:LINE: $.path: message (run R, seq S)``.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import re
import uuid
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import msgspec
import pyarrow as pa
import pyarrow.compute as pc

from trajectory import events as ev
from trajectory.columns import declaration
from trajectory.runtime import interrupts
from trajectory.errors import ConflictError, LimitError, SchemaError
from trajectory.ingest.rows import rows, sort_for_layout  # noqa: F401 - the rows of new events, for callers
from trajectory.ingest.jsonkeys import duplicate_key
from trajectory.ingest.patchcheck import WorldCheck
from trajectory.store.delta import Store, now_utc
from trajectory.store.tables import ARROW_TYPES, EVENTS_SCHEMA, TS, events_schema
from trajectory.text import first_difference, plural
from trajectory.text import short as _short

MAX_REPORTED = 20  # problems listed per refused batch; more are counted, not listed


@dataclasses.dataclass(frozen=True)
class Limits:
    """Input limits; every one is configurable because harnesses differ in what they record."""

    max_line_bytes: int = 8 * 1024 * 1024
    max_depth: int = 64
    max_events_per_run: int = 1_000_000


DEFAULT_LIMITS = Limits()


@dataclasses.dataclass(frozen=True)
class Parsed:
    line: int
    event: ev.Event
    data: bytes  # the stored form: the wire form, every field as it was given
    hash: str  # of the canonical form: equal content, equal hash


@dataclasses.dataclass
class IngestReport:
    source: str
    runs: int = 0
    events: int = 0
    new: int = 0
    present: int = 0
    new_runs: int = 0
    version: int | None = None
    commit_id: str | None = None
    trusted: int | None = None  # judgement runs newly trusted (``--trust-judgements`` only)

    def line(self) -> str:
        return (
            f"{self.source}: {plural(self.runs, 'run')}, {plural(self.events, 'event')} read: "
            f"{self.new} new, {self.present} already present"
        )


RunInfo = dict  # run column name -> value: what a run's run_started says, copied onto its events


def run_info(start: ev.RunStarted, split: str | None, decl: Any = None) -> dict[str, Any]:
    """The run columns of a run (declared on run_started's fields), read from its start event.

    ``split``: the task's own pool, the default for a run that does not say.
    """
    decl = decl or declaration()
    info = {}
    for col in decl.run_columns:
        [path] = col.attrs
        obj: Any = start
        for part in path[:-1]:
            obj = getattr(obj, part, None)
            if obj is None:
                break
        info[col.name] = None if obj is None else decl.value(obj, path[-1])
    if info.get("split") is None:
        info["split"] = split
    return info


def run_fields() -> list[str]:
    return [c.name for c in declaration().run_columns]


# -- parsing ------------------------------------------------------------------------------

_AT = re.compile(r"^(?P<msg>.*?) - at `(?P<path>[^`]*)`$", re.S)
_REL = re.compile(r"^(?P<rel>[A-Za-z_][\w\[\]\.]*): (?P<msg>.*)$", re.S)
# Greedy: a field name may itself contain a backtick.
_UNKNOWN = re.compile(r"^Object contains unknown field `(?P<f>.*)`$", re.S)
_MISSING = re.compile(r"^Object missing required field `(?P<f>.*)`$", re.S)
# Control characters (a newline in a field name or value) would split a problem: shown escaped.
_CONTROL = re.compile(r"[\x00-\x1f\x7f\u2028\u2029]")


def _one_line(text: str) -> str:
    return _CONTROL.sub(lambda m: ascii(m.group(0))[1:-1], text)


def _describe(exc: Exception) -> tuple[str, str]:
    """Split a msgspec error into (JSON path, message)."""
    text = str(exc)
    base = "$"
    m = _AT.match(text)
    if m:
        text, base = m.group("msg"), m.group("path")
    if not isinstance(exc, msgspec.ValidationError):
        return "$", text.replace("JSON is malformed: ", "not JSON: ")
    if (u := _UNKNOWN.match(text)) is not None:
        return f"{base}.{u.group('f')}", "unknown field"
    if (u := _MISSING.match(text)) is not None:
        return f"{base}.{u.group('f')}", "missing required field"
    if (r := _REL.match(text)) is not None:
        return f"{base}.{r.group('rel')}", r.group("msg")
    return base, text.replace("`", "")


def _where(raw: bytes) -> str:
    """`` (run R, seq S)`` for a bad line when those two fields can still be read."""
    try:
        obj = msgspec.json.decode(raw)
    except Exception:  # noqa: BLE001 - best effort only, the line is already refused
        return ""
    if not isinstance(obj, dict):
        return ""
    run, seq = obj.get("run_id"), obj.get("seq")
    parts = []
    if isinstance(run, str):
        parts.append(f"run {run[:80]}")
    if isinstance(seq, int) and not isinstance(seq, bool):
        parts.append(f"seq {seq}")
    return f" ({', '.join(parts)})" if parts else ""


# A JSON string with its escapes (written unrolled: one regex step per run of plain characters).
# Strings are removed whole before brackets are counted, so a bracket inside one never counts.
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
_NOT_BRACKETS = bytes(c for c in range(256) if c not in b"[]{}")


def _depth_exceeds(raw: bytes, limit: int) -> bool:
    # Cheap pre-check: a line cannot nest deeper than its count of openers.
    if raw.count(b"[") + raw.count(b"{") <= limit:
        return False
    depth = 0
    for byte in _STRING.sub(b"", raw).translate(None, _NOT_BRACKETS):
        if byte in (0x5B, 0x7B):  # [ {
            depth += 1
            if depth > limit:
                return True
        else:
            depth -= 1
    return False


def line_problem(raw: bytes, limits: Limits = DEFAULT_LIMITS) -> tuple[str | None, int]:
    """What is wrong with one non-blank line (after ``FILE:LINE: ``), or None; and 1 when the
    problem is a limit rather than malformed input."""
    if len(raw) > limits.max_line_bytes:
        return f"$: line is {len(raw)} bytes, over the limit of {limits.max_line_bytes}", 1
    if raw.startswith(_BOM):  # the decoder would only say "invalid character"
        return "$: the file starts with a UTF-8 byte order mark (BOM); save it without one", 0
    if raw.count(b"[") + raw.count(b"{") > limits.max_depth and _depth_exceeds(raw, limits.max_depth):
        return f"$: nesting deeper than the limit of {limits.max_depth}{_where(raw)}", 1
    try:
        event = ev.DECODER.decode(raw)
    except (msgspec.ValidationError, msgspec.DecodeError) as exc:
        path, msg = _describe(exc)
        return f"{path}: {msg}{_where(raw)}", 0
    except RecursionError:  # only reachable with a --max-depth above the decoder's own
        return f"$: nesting too deep to decode{_where(raw)}", 0
    dup = duplicate_key(raw, ev.stored_and_canonical(event)[0])
    if dup is not None:
        return f"{dup[0]}: key {_short(dup[1])} given twice in one object{_where(raw)}", 0
    return None, 0


Progress = Callable[[int, int], None]  # (lines read, lines) of a batch: a progress bar's figures
_BOM = b"\xef\xbb\xbf"


def parse(data: bytes, source: str, limits: Limits = DEFAULT_LIMITS, progress: Progress | None = None) -> list[Parsed]:
    """Decode every line; raise one :class:`SchemaError` listing the first problems."""
    out: list[Parsed] = []
    lines = data.count(b"\n") + 1 if progress is not None else 0
    problems: list[str] = []
    n_problems = 0
    over_limit = 0  # problems that are a limit, not a malformed line
    decode = ev.DECODER.decode
    encode = ev.stored_and_canonical
    digest = ev.content_hash
    for lineno, raw in enumerate(data.split(b"\n"), start=1):
        if progress is not None and lineno % 20_000 == 0:
            progress(lineno, lines)
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        if not raw.strip():
            continue
        if len(raw) <= limits.max_line_bytes and raw.count(b"[") + raw.count(b"{") <= limits.max_depth:
            try:
                event = decode(raw)
            except (msgspec.ValidationError, msgspec.DecodeError, RecursionError):
                pass
            else:
                body, same = encode(event)
                if duplicate_key(raw, body) is None:
                    out.append(Parsed(lineno, event, body, digest(same)))
                    continue
        problem, limit = line_problem(raw, limits)
        if problem is None:  # a line with many brackets that does not nest too deep
            body, same = encode(event := decode(raw))
            out.append(Parsed(lineno, event, body, digest(same)))
            continue
        n_problems += 1
        over_limit += limit
        if len(problems) < MAX_REPORTED:
            problems.append(_one_line(f"{source}:{lineno}: {problem}"))
    if problems:
        raise _refusal(LimitError if over_limit == n_problems else SchemaError, problems, n_problems)
    return out


def _refusal(kind: type[Exception], problems: list[str], total: int) -> Exception:
    more = total - len(problems)
    text = "\n".join(problems)
    if more > 0:
        text += f"\n... and {more} more problems"
    return kind(text)


# -- checking against the store ------------------------------------------------------------


@dataclasses.dataclass
class Existing:
    """What the store already holds for one run."""

    hashes: dict[int, str]
    last_seq: int
    finished_seq: int | None
    info: RunInfo | None


def existing_table(store: Store, run_ids: Sequence[str] | pa.Array, version: int | None = None) -> pa.Table:
    """The stored events of these runs (as of ``version``, -1: none yet): run_id, seq, hash,
    kind and the run columns."""
    cols = ["run_id", "seq", "hash", "kind", *run_fields()]
    if not len(run_ids) or (version is None and not store.has_table("events")) or (version is not None and version < 0):
        return EVENTS_SCHEMA.empty_table().select(cols)
    values = run_ids if isinstance(run_ids, pa.Array) else pa.array(list(run_ids), pa.string())
    return store.read("events", columns=cols, filter=pc.field("run_id").isin(values), version=version)


def existing_runs(store: Store, run_ids: Sequence[str], version: int | None = None) -> dict[str, Existing]:
    if not run_ids or (version is None and not store.has_table("events")) or (version is not None and version < 0):
        return {}
    fields = run_fields()
    table = existing_table(store, run_ids, version)
    out: dict[str, Existing] = {}
    for row in table.to_pylist():
        run = out.get(row["run_id"])
        if run is None:
            run = out[row["run_id"]] = Existing({}, -1, None, None)
        seq = row["seq"]
        run.hashes[seq] = row["hash"]
        run.last_seq = max(run.last_seq, seq)
        if row["kind"] == "run_finished":
            run.finished_seq = seq
        if row["kind"] == "run_started":
            run.info = {k: row[k] for k in fields}
    return out


def stored_event(store: Store, run_id: str, seq: int, version: int | None = None) -> ev.Event | None:
    """The stored event at (run_id, seq) as of ``version`` (latest by default), or None."""
    where = (pc.field("run_id") == run_id) & (pc.field("seq") == seq)
    table = store.read("events", columns=["data"], filter=where, version=version)
    if table.num_rows == 0:
        return None
    return ev.decode(table.column("data")[0].as_py())


SplitResolver = Callable[[str, str], "str | None"]


def pool_contradiction(start: ev.RunStarted, declared: str | None) -> str | None:
    """Why a run cannot be in the pool its ``run_started`` names: its task declares the other
    one. A run's pool is its task's, whatever a file says (a holdout run exported and ingested
    again as ``split: tune`` would be judged and shown as tune); None when they agree."""
    if start.split is None or declared is None or start.split == declared:
        return None
    return (f"task {start.task!r} of suite {start.suite!r} is in the {declared} pool; a run of it cannot "
            f"say split {start.split!r} (leave split out, or give {declared!r})")


def parsed_from_events(events: Iterable[ev.Event], source: str = "<events>") -> list[Parsed]:
    """Validate already-built events (recorder, importers) for :func:`trajectory.ingest.batchplan.ingest_events`.

    Struct constructors do not check constraints (patterns, bounds), so each event goes through
    the same decoder as a file line would.
    """
    data = b"\n".join(ev.encode(e) for e in events)
    return parse(data, source)
