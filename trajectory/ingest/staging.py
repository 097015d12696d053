"""Ingest's staging, one chunk of lines at a time: validate, canonicalise and stage.

A chunk is a run of whole lines of one input file. Staging it means: every line decoded with
the event decoder (the line rules of plain.py: unknown fields, types, bounds, times,
limits), its stored form and content hash computed, and its typed columns built — in batches,
so that per event only the decoding and the hash are Python calls. The chunk's rows go to an
Arrow IPC file in a staging folder (the file's batch is committed only once every chunk is
staged and the whole batch checked, see batchplan.py); what planning needs (run, seq, kind,
hash, line of each event, and the run columns of each run_started) comes back small.

A chunk with a problem stages nothing and returns its problems, worded by the line rules
(``line_problem`` in plain.py): any problem refuses the batch, and batchplan.py lists them. Chunks are independent, so they are staged on worker
processes in parallel; a worker reads its chunk itself when it comes from a file.
"""

from __future__ import annotations

import dataclasses
import gc
import hashlib
import os
from typing import Any, Union

import msgspec
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from trajectory import events as ev

#: Input bytes per chunk: small enough that a worker holds a few times this, large enough that
#: the per-chunk costs (a staged file, a batch of columns) stay small beside the events'.
CHUNK_BYTES = 16 << 20
#: The smallest chunk cut from a file: a file is cut into about 16 chunks between this and
#: CHUNK_BYTES, so that a small one still tells progress as its chunks are staged.
MIN_CHUNK_BYTES = 1 << 20


def chunk_size(total: int) -> int:
    """The chunk size for a batch of ``total`` bytes."""
    return min(CHUNK_BYTES, max(MIN_CHUNK_BYTES, total // 16))

# The event types with ``run_id`` as a plain string: msgspec checks a pattern constraint with a
# Python regex call per event, so the run ids are checked here once per chunk instead (a
# vectorised match of the same pattern). Everything else is the declared types' own: these
# are subclasses that only relax that one field, and encode exactly as the declared ones.
_FAST_TYPES = {
    t: msgspec.defstruct(
        t.__name__, [("run_id", str)], bases=(t,), tag=t.__struct_config__.tag, kw_only=True, module=__name__,
    )
    for t in ev.EVENT_TYPES
}
_FAST = msgspec.json.Decoder(Union[tuple(_FAST_TYPES.values())])  # type: ignore[misc]
_DECLARED = {fast: t for t, fast in _FAST_TYPES.items()}
_TAGS = {t: t.__struct_config__.tag for t in (*ev.EVENT_TYPES, *_FAST_TYPES.values())}
_ENCODER = msgspec.json.Encoder()
_SORTED = msgspec.json.Encoder(order="sorted")

# ev.RunId's constraints in RE2 (pyarrow's regex engine). Python's ``$`` also matches before a
# final newline, which msgspec's check (re.search) therefore accepts: ``\n?$`` says the same.
_RUN_ID_RE2 = r"^[A-Za-z0-9._:-]+\n?$"
_RUN_ID_MAX = 128


@dataclasses.dataclass
class Chunk:
    """Where a chunk's bytes are: in given bytes (``data``, from ``offset``, ``size`` long) or
    in a file (``path``, ``offset``, ``size``)."""

    index: int
    data: bytes | None = None
    path: str | None = None
    offset: int = 0
    size: int = 0

    def materialized(self) -> Chunk:
        """The chunk with only its own bytes (what is sent to a worker)."""
        if self.data is None or (self.offset == 0 and self.size == len(self.data)):
            return self
        return Chunk(self.index, data=self.data[self.offset : self.offset + self.size], size=self.size)

    def read(self) -> bytes:
        if self.data is not None:
            if self.offset == 0 and self.size == len(self.data):
                return self.data
            return self.data[self.offset : self.offset + self.size]
        assert self.path is not None
        with open(self.path, "rb") as fh:
            fh.seek(self.offset)
            return fh.read(self.size)


@dataclasses.dataclass
class Staged:
    """What staging one chunk gives back to the planner (small; the rows are in ``path``)."""

    index: int
    newlines: int  # newlines in the chunk: the next chunk's first line is this many lines on
    problems: list[tuple[int, str]]  # (line in the chunk, message after "FILE:LINE: ")
    n_problems: int
    over_limit: int
    path: str | None = None  # the staged rows (Arrow IPC), when there were no problems
    meta: pa.Table | None = None  # line, run_id, seq, kind, hash of every event
    starts: pa.Table | None = None  # run_id and run columns of every run_started
    worlds: pa.Table | None = None  # line, run_id, seq, data of every run_started and state_changed


def chunks_of_bytes(data: bytes, size: int | None = None) -> list[Chunk]:
    """Newline-aligned chunks of ``data`` (of :func:`chunk_size` unless given)."""
    size = size or chunk_size(len(data))
    return [Chunk(i, data=data, offset=a, size=b - a) for i, (a, b) in enumerate(_bounds(data, size))]


def chunks_of_file(path: str, size: int | None = None) -> list[Chunk]:
    """Newline-aligned chunks of a file (of :func:`chunk_size` unless given), found by reading
    a little around each cut."""
    total = os.path.getsize(path)
    size = size or chunk_size(total)
    cuts = [0]
    with open(path, "rb") as fh:
        while cuts[-1] + size < total:
            fh.seek(cuts[-1] + size)
            while True:
                block = fh.read(1 << 16)
                if not block:
                    cut = total
                    break
                nl = block.find(b"\n")
                if nl >= 0:
                    cut = fh.tell() - len(block) + nl + 1
                    break
            if cut >= total:
                break
            cuts.append(cut)
    cuts.append(total)
    return [Chunk(i, path=path, offset=a, size=b - a) for i, (a, b) in enumerate(zip(cuts, cuts[1:])) if b > a]


def _bounds(data: bytes, size: int) -> list[tuple[int, int]]:
    out = []
    start = 0
    n = len(data)
    while start < n:
        end = start + size
        if end >= n:
            end = n
        else:
            nl = data.find(b"\n", end)
            end = n if nl < 0 else nl + 1
        out.append((start, end))
        start = end
    return out


def stage(chunk: Chunk, folder: str, limits: Any, decl: Any = None) -> Staged:
    """Validate one chunk and stage its rows in ``folder`` (see the module docstring)."""
    enabled = gc.isenabled()
    gc.disable()  # millions of small acyclic objects: the collector would walk them again and again
    try:
        data = chunk.read()
        lines = Lines(data, limits)
        whole = lines.decode_all()
        if whole is not None:
            # Every line decoded: the run ids are checked on the staged column, see below.
            return _stage_events(chunk.index, lines, *whole, folder, decl)
        events, numbers, problems, n_problems, over_limit = lines.decode_each()
        bad = _bad_run_ids(pa.array([e.run_id for e in events], pa.string()))
        n_problems += len(bad)
        problems += [(numbers[i], lines.problem(numbers[i])[0] or "") for i in bad[:_MAX_REPORTED]]
        problems.sort()
        if n_problems:
            return Staged(chunk.index, lines.newlines, problems[:_MAX_REPORTED], n_problems, over_limit)
        return _stage_events(chunk.index, lines, events, numbers, folder, decl)
    finally:
        if enabled:
            gc.enable()


class Lines:
    """A chunk's physical lines, with what the line rules check of each found at once."""

    def __init__(self, data: bytes, limits: Any):
        self.data = data
        self.limits = limits
        arr = np.frombuffer(data, dtype=np.uint8)
        ends = np.flatnonzero(arr == 10)
        self.newlines = len(ends)
        starts = np.concatenate(([0], ends + 1)).astype(np.int64)
        stops = np.concatenate((ends, [len(data)])).astype(np.int64)
        # A line's \r before its \n is not part of it.
        nonempty = stops > starts
        cr = np.zeros(len(stops), dtype=bool)
        cr[nonempty] = arr[stops[nonempty] - 1] == 13
        stops = stops - cr
        lengths = stops - starts
        filled = np.flatnonzero(lengths > 0)
        openers = np.flatnonzero((arr == 0x5B) | (arr == 0x7B))  # [ {
        brackets = np.searchsorted(openers, stops) - np.searchsorted(openers, starts)
        # Plain: every non-empty line one object ({ first, } last) within the limits. Anything
        # else (blank lines of spaces, a line over a limit) goes line by line.
        self.plain = bool(
            np.all(lengths[filled] <= limits.max_line_bytes)
            and np.all(arr[starts[filled]] == 0x7B)
            and np.all(arr[stops[filled] - 1] == 0x7D)
        )
        self.filled = filled
        self.starts = starts.tolist()
        self.stops = stops.tolist()
        if self.plain:
            from trajectory.ingest.plain import _depth_exceeds

            # Many brackets is not yet too deep: the exact check, for those few lines only.
            many = filled[brackets[filled] > limits.max_depth].tolist()
            self.plain = not any(_depth_exceeds(self.raw(line), limits.max_depth) for line in many)
        self._lengths = lengths
        self._brackets = brackets

    def raw(self, line: int) -> bytes:
        return self.data[self.starts[line] : self.stops[line]]

    def decode_all(self) -> tuple[list[ev.Event], list[int]] | None:
        """Every event and its line, decoded in one call, when every non-empty line is one
        plain object within the limits; None otherwise (or on any error: the lines are then
        decoded one by one). One object per line is certain: an object cannot continue past
        the end of its line (a string holds no raw newline, and ``}`` then ``{`` is not JSON),
        so as many objects as lines, each starting with ``{`` and ending with ``}``, is one
        each."""
        if not self.plain:
            return None
        try:
            events = _FAST.decode_lines(self.data)
        except (msgspec.ValidationError, msgspec.DecodeError, RecursionError):
            return None
        return (events, self.filled.tolist()) if len(events) == len(self.filled) else None

    def decode_each(self) -> tuple[list[ev.Event], list[int], list[tuple[int, str]], int, int]:
        """The events and line numbers of the good lines, and the problems of the others."""
        events: list[ev.Event] = []
        numbers: list[int] = []
        problems: list[tuple[int, str]] = []
        n_problems = over_limit = 0
        decode = _FAST.decode
        limits = self.limits
        lengths = self._lengths.tolist()
        brackets = self._brackets.tolist()
        for line in self.filled.tolist():
            raw = self.raw(line)
            if raw.isspace():
                continue
            if lengths[line] <= limits.max_line_bytes and brackets[line] <= limits.max_depth:
                try:
                    events.append(decode(raw))
                    numbers.append(line)
                    continue
                except (msgspec.ValidationError, msgspec.DecodeError, RecursionError):
                    pass
            problem, limit = self.problem(line)
            if problem is None:  # many brackets, but not nested too deep
                events.append(ev.DECODER.decode(raw))
                numbers.append(line)
                continue
            n_problems += 1
            over_limit += limit
            if len(problems) < _MAX_REPORTED:
                problems.append((line, problem))
        return events, numbers, problems, n_problems, over_limit

    def problem(self, line: int) -> tuple[str | None, int]:
        """The line rules' problem with a line (plain.line_problem), or None."""
        from trajectory.ingest.plain import line_problem

        return line_problem(self.raw(line), self.limits)


_MAX_REPORTED = 20


def _bad_run_ids(ids: pa.Array | pa.ChunkedArray) -> list[int]:
    """Indexes of the run ids that break ev.RunId's constraints (the fast types skip them)."""
    if not len(ids):
        return []
    ok = pc.and_(
        pc.match_substring_regex(ids, _RUN_ID_RE2),
        pc.less_equal(pc.utf8_length(ids), _RUN_ID_MAX),
    )
    if pc.all(ok).as_py():
        return []
    return np.flatnonzero(~np.asarray(ok.to_numpy(zero_copy_only=False), dtype=bool)).tolist()


def _stage_events(index: int, chunk_lines: Lines, events: list[ev.Event], lines: list[int], folder: str,
                  decl: Any) -> Staged:
    from trajectory.ingest.rows import typed_columns

    # Staged in the events table's layout (the commit only adds columns), put in that order
    # before anything is encoded: every column is then built in it, and no table is reordered.
    order = _layout_order(events)
    events = [events[i] for i in order]
    lines = [lines[i] for i in order]
    n = len(events)
    stored = _ENCODER.encode_lines(events)
    canonical = _SORTED.encode_lines(events)
    s_off = _offsets(stored)
    c_off = _same_offsets(canonical, s_off)
    # The canonical form leaves out a field given with its default value; the sorted encoding
    # of the event keeps it. The few events that may have one are canonicalised one by one.
    fixes = {}
    for i in _marked(stored, s_off):
        event = events[i]
        fixes[i] = ev._canonical(_declared(event), stored[s_off[i] : s_off[i + 1] - 1])
    view = memoryview(canonical)
    blake = hashlib.blake2b
    c_list = c_off.tolist()
    if fixes:
        digests = b"".join(
            blake(fixes[i] if i in fixes else view[c_list[i] : c_list[i + 1] - 1], digest_size=16).digest()
            for i in range(n)
        )
    else:
        digests = b"".join(blake(view[a : b - 1], digest_size=16).digest() for a, b in zip(c_list, c_list[1:]))
    hexed = digests.hex().encode()
    hashes = pa.StringArray.from_buffers(n, pa.py_buffer(np.arange(0, 32 * n + 1, 32, dtype=np.int32)), pa.py_buffer(hexed))
    data = _lines_array(stored, s_off)
    dups = _duplicate_keys(chunk_lines, lines, stored, s_off)
    if dups:
        dups.sort(key=lines.__getitem__)  # the first problems in line order are the ones told
        problems = [(lines[i], chunk_lines.problem(lines[i])[0] or "") for i in dups[:_MAX_REPORTED]]
        return Staged(index, chunk_lines.newlines, problems, len(dups), 0)
    table = typed_columns(data, events, decl)
    bad = _bad_run_ids(table.column("run_id"))
    if bad:
        bad.sort(key=lines.__getitem__)
        problems = [(lines[i], chunk_lines.problem(lines[i])[0] or "") for i in bad[:_MAX_REPORTED]]
        return Staged(index, chunk_lines.newlines, problems, len(bad), 0)
    table = table.append_column("hash", hashes).append_column("line", pa.array(lines, pa.int64()))
    starts = _run_starts(events, table)
    path = os.path.join(folder, f"chunk-{index:06d}.arrow")
    with pa.OSFile(path, "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table)
    meta = table.select(["line", "run_id", "seq", "kind", "hash"])
    # What ingest needs to check state patches against the states they follow (patchcheck.py).
    worlds = table.filter(pc.is_in(table.column("kind"), value_set=_WORLD_KINDS)).select(["line", "run_id", "seq", "data"])
    return Staged(index, chunk_lines.newlines, [], 0, 0, path, meta, starts, worlds)


def _layout_order(events: list[ev.Event]) -> np.ndarray:
    """The order of a chunk's events (given in line order) in the events table's layout
    (rows.sort_for_layout): by kind, then the suite and task of the runs that start in this
    chunk, run and seq; a run continued from another chunk after them (order carries no
    meaning, it only groups rows for the scans). A stable sort: equal keys keep line order."""
    from trajectory.ingest.rows import LAYOUT

    run_ids = [e.run_id for e in events]
    task_of: dict[str, tuple[str, str]] = {}
    for e in events:
        if isinstance(e, ev.RunStarted):
            task_of.setdefault(e.run_id, (e.suite, e.task))  # the first start of a run, as index_in
    ids = pa.array(run_ids, pa.string())
    at = pc.index_in(ids, value_set=pa.array(list(task_of), pa.string()))
    keys = pa.table({
        "kind": pa.array([_TAGS[type(e)] for e in events], pa.string()),
        "suite": pa.array([v[0] for v in task_of.values()], pa.string()).take(at),
        "task": pa.array([v[1] for v in task_of.values()], pa.string()).take(at),
        "run_id": ids,
        "seq": pa.array([e.seq for e in events], pa.int64()),
    })
    return pc.sort_indices(keys, sort_keys=[(k, "ascending") for k in LAYOUT]).to_numpy()


_WORLD_KINDS = pa.array(["run_started", "state_changed"])


def _colons(buffer: bytes, starts: np.ndarray, stops: np.ndarray) -> np.ndarray:
    """The colons within each [start, stop) of a buffer, counted at once."""
    at = np.flatnonzero(np.frombuffer(buffer, dtype=np.uint8) == 0x3A)
    return np.searchsorted(at, stops) - np.searchsorted(at, starts)


def _duplicate_keys(chunk_lines: Lines, lines: list[int], stored: bytes, s_off: np.ndarray) -> list[int]:
    """Indexes of the events whose line gives a key twice in one object (jsonkeys.py). Most
    lines are cleared at once: a line with exactly two colons fewer than its stored encoding
    (the encoding's ``ts``) dropped no key; the rest are looked at one by one."""
    from trajectory.ingest.jsonkeys import duplicate_key

    if not lines:
        return []
    which = np.asarray(lines, dtype=np.int64)
    starts = np.asarray(chunk_lines.starts, dtype=np.int64)[which]
    stops = np.asarray(chunk_lines.stops, dtype=np.int64)[which]
    diff = _colons(stored, s_off[:-1], s_off[1:] - 1) - _colons(chunk_lines.data, starts, stops)
    # A colon written as an escape (\u003a) counts on the encoding's side only: those lines too.
    escaped = b"\\u003" in chunk_lines.data
    todo = range(len(lines)) if escaped else np.flatnonzero(diff != 2).tolist()
    return [i for i in todo if duplicate_key(chunk_lines.raw(lines[i]), stored[s_off[i] : s_off[i + 1] - 1]) is not None]


def _declared(event: ev.Event) -> ev.Event:
    """The event as its declared type (for the code that looks types up)."""
    declared = _DECLARED.get(type(event))
    return event if declared is None else declared(**msgspec.structs.asdict(event))


def _offsets(buffer: bytes) -> np.ndarray:
    """Start offsets of the newline-terminated lines of an encode_lines buffer, and its end."""
    ends = np.flatnonzero(np.frombuffer(buffer, dtype=np.uint8) == 10)
    return np.concatenate(([0], ends + 1)).astype(np.int64)


def _same_offsets(buffer: bytes, offsets: np.ndarray) -> np.ndarray:
    """The line offsets of ``buffer`` when they are ``offsets`` (the sorted encoding only
    reorders the keys of each line, so its lines are as long as the stored ones): proved by its
    newlines, one per line and none inside a line, all being at those places."""
    if len(buffer) == offsets[-1] and np.all(np.frombuffer(buffer, dtype=np.uint8)[offsets[1:] - 1] == 10):
        return offsets
    return _offsets(buffer)


def _lines_array(buffer: bytes, offsets: np.ndarray) -> pa.Array:
    """The lines of an encode_lines buffer as a string array, without their newlines: a view
    of the buffer with the newlines in (no copy), each element cut by one byte in one Arrow
    pass (no Python object per line)."""
    n = len(offsets) - 1
    if n == 0:
        return pa.array([], pa.string())
    whole = pa.Array.from_buffers(pa.large_string(), n, [None, pa.py_buffer(offsets), pa.py_buffer(buffer)])
    return pc.utf8_slice_codeunits(whole, 0, -1).cast(pa.string())


def _marked(stored: bytes, offsets: np.ndarray) -> list[int]:
    """Indexes of the events whose stored form contains one of ev._MARKS (a field that may be
    given with its default value). Python's regex over the whole buffer tries every
    alternative at every byte; instead the rows that hold a mark's value after a key
    (``":0``, found with numpy) or a longer mark whole (``bytes.find``) are found first, and
    the regex is run on those rows only: the same rows, a few per cent of them searched."""
    at: list[np.ndarray] = []
    a = np.frombuffer(stored, dtype=np.uint8)
    tails = {m[m.index(b'":') :] for m in ev.DEFAULT_MARKS}
    for tail in (t for t in tails if len(t) == 3):  # '":' and a one-byte value: three comparisons
        at.append(np.flatnonzero((a[:-2] == tail[0]) & (a[1:-1] == tail[1]) & (a[2:] == tail[2])))
    for mark in ev.DEFAULT_MARKS:
        if len(mark[mark.index(b'":') :]) == 3:
            continue
        found = []
        i = stored.find(mark)
        while i >= 0:
            found.append(i)
            i = stored.find(mark, i + 1)
        at.append(np.asarray(found, dtype=np.int64))
    hits = np.concatenate(at) if at else np.zeros(0, dtype=np.int64)
    if not len(hits):
        return []
    rows = np.unique(np.searchsorted(offsets, hits, side="right") - 1).tolist()
    bounds = offsets.tolist()
    search = ev._MARKS.search
    return [i for i in rows if search(stored, bounds[i], bounds[i + 1])]


def _run_starts(events: list[ev.Event], table: pa.Table) -> pa.Table:
    """line, run_id and the run columns (split as the event says, or null) of every run_started
    in the chunk, in line order."""
    from trajectory.ingest.plain import run_info

    which = np.flatnonzero(np.asarray(pc.equal(table.column("kind"), "run_started").to_numpy(zero_copy_only=False)))
    lines = table.column("line").to_numpy()
    which = which[np.argsort(lines[which], kind="stable")].tolist()
    rows = [{"line": int(lines[i]), "run_id": events[i].run_id} | run_info(_declared(events[i]), None) for i in which]
    return pa.Table.from_pylist(rows, schema=_STARTS)


def _starts_schema() -> pa.Schema:
    from trajectory.ingest.plain import run_fields
    from trajectory.store.tables import EVENTS_SCHEMA

    return pa.schema([pa.field("line", pa.int64()), pa.field("run_id", pa.string())]
                     + [EVENTS_SCHEMA.field(f) for f in run_fields()])


_STARTS = _starts_schema()
