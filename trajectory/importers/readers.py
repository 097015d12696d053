"""Reading the inputs of ``traj import inspect`` and ``traj import otel`` into mapped sources.

Inspect logs are read only through inspect-ai's own reader (``.eval`` entries are compressed
and the format moves between versions): the header, the list of samples, then the samples in
chunks that share one read of the zip directory. A log or a sample the reader refuses gives
``FILE: sample S: message`` for that log. OTLP files are plain JSON and read here.
"""

from __future__ import annotations

import gc
import zipfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from trajectory.errors import LimitError, SchemaError
from trajectory.importers import bounded
from trajectory.importers import inspect_log as il
from trajectory.importers import otel
from trajectory.importers.writer import CHUNK, MappedRun, RecordedAnswer, Source

#: ``progress(files done, files, file now read or None)``: what a progress bar shows of an import.
Progress = Callable[[int, int, "str | None"], None]

INSPECT_EXTENSIONS = (".eval", ".json")


class MissingExtra(SchemaError):
    """inspect-ai is not installed."""


def _inspect_log_api() -> Any:
    try:
        import inspect_ai.log as api
    except ImportError:
        raise MissingExtra("reading Inspect logs needs inspect-ai: pip install 'traj[inspect]'") from None
    return api


def _why(exc: BaseException) -> str:
    """One line for a reader error; pydantic's errors give their first location and message."""
    errors = getattr(exc, "errors", None)
    if callable(errors):
        try:
            first = errors()[0]
            loc = ".".join(str(p) for p in first.get("loc", ()))
            msg = first.get("msg", "")
            hint = ""
            if first.get("type") == "union_tag_invalid":
                hint = " (written by a newer inspect-ai? upgrade it: pip install -U inspect-ai)"
            return " ".join(f"{loc}: {msg}{hint}".split())
        except Exception:  # noqa: BLE001 - fall back to the plain message
            pass
    text = " ".join(str(exc).split()) or type(exc).__name__
    return f"{type(exc).__name__}: {text}" if type(exc).__name__ not in text else text


def inspect_log_files(paths: Sequence[str | Path]) -> list[str]:
    """The logs named: files as given, folders searched (with inspect-ai's own listing)."""
    api = _inspect_log_api()
    out: list[str] = []
    for p in paths:
        path = Path(p)
        if path.is_dir():
            found = api.list_eval_logs(str(path), recursive=True)
            names = sorted(_local(info.name) for info in found)
            if not names:
                raise SchemaError(f"{path}: no .eval or .json Inspect logs in this folder")
            out += names
        elif path.exists():
            bounded.check_regular(path)  # a FIFO or a device would block or never end
            out.append(str(path))
        else:
            raise SchemaError(f"{path}: no such file or folder")
    return list(dict.fromkeys(out))


def _local(name: str) -> str:
    return name[len("file://"):] if name.startswith("file://") else name


def _mapped(sample: Any, info: il.LogInfo) -> list[il.MappedSample]:
    return [il.map_sample(info, sample), *il.map_retries(info, sample)]


def read_inspect_log(path: str) -> Source:
    """One log as a source: its runs, recorded verdicts and grader answers, or its error."""
    # Reading and mapping make many small objects and no garbage cycles worth collecting
    # before the log is done: the cyclic collector would walk the growing heap over and over.
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _read_inspect_log(path)
    finally:
        if enabled:
            gc.enable()


def _bounded(path: str, limits: bounded.ImportLimits) -> None:
    """Refuse a log past the limits, or with nothing of an Inspect log, before inspect-ai reads it
    (its reader would unpack a zip bomb or recurse into any depth)."""
    if path.endswith(".eval"):
        bounded.check_zip(path, limits)
        with zipfile.ZipFile(path) as z:
            names = set(z.namelist())
        if not names & {"header.json", "_journal/start.json"}:
            raise SchemaError(f"{path}: a zip archive without an Inspect log header (header.json), "
                              "not an Inspect .eval log")
        samples = sum(1 for n in names if n.startswith("samples/"))
        if samples > limits.max_items:
            raise LimitError(f"{path}: {samples} samples, over the limit of {limits.max_items}")
        return
    value = bounded.load_json(bounded.read_file(path, limits), path, 1, limits)
    if not isinstance(value, dict) or not isinstance(value.get("eval"), dict):
        raise SchemaError(f"{path}: {bounded.format_of(value)}, not an Inspect log (expected a JSON log with "
                          "an eval header, as inspect_ai writes with log_format='json')")
    if isinstance(value.get("samples"), list) and len(value["samples"]) > limits.max_items:
        raise LimitError(f"{path}: {len(value['samples'])} samples, over the limit of {limits.max_items}")


def _read_inspect_log(path: str, limits: bounded.ImportLimits = bounded.DEFAULT) -> Source:
    api = _inspect_log_api()
    try:
        _bounded(path, limits)
    except SchemaError as exc:
        return Source(path, error=str(exc))
    try:
        header = api.read_eval_log(path, header_only=True)
        info = il.LogInfo.of(header)
    except Exception as exc:  # noqa: BLE001 - whatever the reader refuses is this log's error
        return Source(path, error=f"{path}: cannot read the log: {_why(exc)}")
    src = Source(path, version=il.judgement_version(info))
    try:
        for sample, label in _samples(api, path, header):
            if isinstance(sample, BaseException):
                return Source(path, error=f"{path}: {label}: cannot read: {_why(sample)}")
            try:
                mapped = _mapped(sample, info)
            except Exception as exc:  # noqa: BLE001 - a sample the mapping cannot read
                return Source(path, error=f"{path}: {label}: {_why(exc)}")
            for m in mapped:
                src.runs.append(MappedRun(m.run_id, f"sample {m.sample}", m.events, m.verdict))
                src.answers += [RecordedAnswer(il.JUDGE, j.model, j.key, j.output, j.ts,
                                               {"scorer": j.scorer, "run": j.run_id} if j.scorer else {"run": j.run_id})
                                for j in m.judgements]
    except Exception as exc:  # noqa: BLE001
        return Source(path, error=f"{path}: cannot read the log: {_why(exc)}")
    return src


def _samples(api: Any, path: str, header: Any) -> Iterator[tuple[Any, str]]:
    """(sample, label), or (the exception, label) for a sample the reader refuses."""
    if path.endswith(".json"):
        # A .json log is one document: inspect-ai reads it whole.
        try:
            log = api.read_eval_log(path, resolve_attachments="core")
        except Exception as exc:  # noqa: BLE001
            yield exc, _json_sample_label(exc)
            return
        for s in log.samples or []:
            yield s, f"sample {s.id} epoch {s.epoch}"
        return
    summaries = api.read_eval_log_sample_summaries(path)
    wanted = [(s.id, s.epoch) for s in summaries]
    for i in range(0, len(wanted), CHUNK):
        chunk = wanted[i : i + CHUNK]
        try:
            samples = api.read_eval_log_samples_by_id(path, chunk, resolve_attachments="core")
        except Exception:  # noqa: BLE001 - find the sample that cannot be read
            samples = []
            for sid, epoch in chunk:
                try:
                    samples.append(api.read_eval_log_sample(path, id=sid, epoch=epoch, resolve_attachments="core"))
                except Exception as exc:  # noqa: BLE001
                    yield exc, f"sample {sid} epoch {epoch}"
                    return
        for s in samples:
            yield s, f"sample {s.id} epoch {s.epoch}"


def _json_sample_label(exc: BaseException) -> str:
    errors = getattr(exc, "errors", None)
    if callable(errors):
        try:
            loc = errors()[0].get("loc", ())
            if len(loc) >= 2 and loc[0] == "samples":
                return f"sample #{int(loc[1]) + 1} in the file"
        except Exception:  # noqa: BLE001
            pass
    return "the log"


def inspect_sources(paths: Sequence[str | Path], progress: Progress | None = None) -> Iterator[Source]:
    """One source per log, read lazily (one log's samples in memory at a time); ``progress`` is
    told of each log as its reading starts, and once more when all are read."""
    files = inspect_log_files(paths)
    for i, path in enumerate(files):
        if progress is not None:
            progress(i, len(files), path)
        yield read_inspect_log(path)
    if progress is not None:
        progress(len(files), len(files), None)


def read_otel_files(paths: Sequence[str | Path], progress: Progress | None = None,
                    limits: bounded.ImportLimits = bounded.DEFAULT) -> tuple[list[otel.Document], list[Source], list[str]]:
    """The OTLP documents of the files named (folders searched), the files that cannot be read
    as failed sources, and the names of the files read. ``progress`` is told of each file as its
    reading starts."""
    docs: list[otel.Document] = []
    failed: list[Source] = []
    names = []
    every: list[Path] = []
    for p in paths:
        path = Path(p)
        every += sorted(f for f in path.rglob("*") if not f.is_dir()) if path.is_dir() else [path]
    spans = 0
    for i, f in enumerate(every):
        if progress is not None:
            progress(i, len(every), str(f))
        try:
            found = otel.parse_file(bounded.read_file(f, limits), str(f), limits)
            spans += sum(len(d.spans) for d in found)
            if spans > limits.max_items:
                raise LimitError(f"{f}: more than {limits.max_items} spans in this import, over the limit")
        except SchemaError as exc:
            failed.append(Source(str(f), error=str(exc)))
            continue
        docs += found
        names.append(str(f))
    if progress is not None:
        progress(len(every), len(every), None)
    return docs, failed, names


def otel_source(docs: list[otel.Document], names: list[str], kept: dict[str, dict[str, otel.Span]] | None = None,
                **options: Any) -> tuple[Source, otel.Traces | None]:
    """The traces of all readable files as one source, so a trace spread over files stays
    whole; ``kept`` holds the spans of these traces read by earlier imports (``options``: the
    mapping's, ``run_ids`` included)."""
    name = names[0] if len(names) == 1 else f"{names[0]} (+{len(names) - 1} files)"
    try:
        traces = otel.map_traces(docs, kept=kept, **options)
    except SchemaError as exc:
        return Source(names[0], error=str(exc)), None
    src = Source(name, version=otel.VERSION)
    src.runs = [MappedRun(t.run_id, f"trace {t.trace_id}", t.events, t.verdict) for t in traces.runs]
    src.open_traces = traces.open_traces
    return src, traces
