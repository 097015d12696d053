"""Import speed of ``traj import inspect`` on a generated eval log (issue 15).

    python -m benchmarks.import_speed --samples 10000            # the issue's size
    python -m benchmarks.import_speed --samples 200 --no-save    # a quick look

The log is built with inspect-ai's own types and written with ``write_eval_log`` (no model is
called), like an agent eval with one tool: per sample a ``sample_init``, a solver span, a model
call asking for a tool, the tool call with its result, a store change, the answering model call,
the solver's state change, and the scorers' span with one ``match``-style score; every fifth
sample errors instead, every seventh gets a second epoch. It is cached under
``benchmarks/out/`` by size. The import is timed end to end (a fresh store, the library call the
CLI makes) and then in parts: reading the samples through inspect-ai's reader alone, and
mapping them without writing. Samples/s counts runs imported; events/s counts the traj events
written (and the Inspect events read are reported too).
"""

from __future__ import annotations

import argparse
import gc
import datetime as dt
import json
import platform
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent / "out"
RESULTS = Path(__file__).resolve().parent / "results" / "import-inspect.json"
T0 = dt.datetime(2026, 6, 1, tzinfo=dt.timezone.utc)


def write_log(path: Path, samples: int) -> dict[str, int]:
    from inspect_ai._util.error import EvalError
    from inspect_ai._util.json import json_changes
    from inspect_ai.event import (
        ErrorEvent, ModelEvent, SampleInitEvent, ScoreEvent, SpanBeginEvent, SpanEndEvent, StateEvent,
        StoreEvent, ToolEvent,
    )
    from inspect_ai.log import EvalConfig, EvalDataset, EvalLog, EvalSample, EvalSpec, write_eval_log
    from inspect_ai.model import (
        ChatMessageAssistant, ChatMessageTool, ChatMessageUser, GenerateConfig, ModelOutput, ModelUsage,
    )
    from inspect_ai.scorer import Score
    from inspect_ai.tool import ToolCall

    def dump(m: Any) -> Any:
        return m.model_dump(mode="json", exclude_none=True)

    items, n_events = [], 0
    for i in range(samples):
        for epoch in (1, 2) if i % 7 == 0 else (1,):
            t = T0 + dt.timedelta(seconds=10 * i + epoch)

            def at(s: float, t: dt.datetime = t) -> dict[str, Any]:
                return {"timestamp": t + dt.timedelta(seconds=s), "working_start": s}

            span = f"s{i}e{epoch}"
            user = ChatMessageUser(content=f"What is {i} + {i}?", id=f"u{i}")
            messages: list[Any] = [user]
            empty = ModelOutput(model="openai/gpt-4o")
            before = {"messages": [dump(user)], "store": {}, "output": dump(empty), "completed": False, "metadata": {}}
            events: list[Any] = [SampleInitEvent(sample={"id": i, "input": user.text, "target": str(2 * i)},
                                                 state=before, **at(0)),
                                 SpanBeginEvent(id=span, name="agent", type="solver", **at(0.1))]
            error = None
            if i % 5 == 4:
                error = EvalError(message="TimeoutError: tool did not answer", traceback="", traceback_ansi="")
                events += [ErrorEvent(error=error, span_id=span, **at(1)), SpanEndEvent(id=span, **at(1.1))]
                output, store = empty, {}
            else:
                call = ToolCall(id=f"c{i}", function="add", arguments={"a": i, "b": i})
                ask = ModelOutput.from_message(ChatMessageAssistant(content="", tool_calls=[call]))
                ask.usage = ModelUsage(input_tokens=150, output_tokens=12, total_tokens=162, input_tokens_cache_read=100)
                events.append(ModelEvent(model="openai/gpt-4o", input=list(messages), tools=[], tool_choice="auto",
                                         config=GenerateConfig(), output=ask, working_time=0.6, span_id=span, **at(1)))
                messages += [ask.message, ChatMessageTool(content=str(2 * i), tool_call_id=call.id, function="add")]
                events.append(ToolEvent(id=call.id, function="add", arguments=call.arguments, result=str(2 * i),
                                        working_time=0.01, span_id=span, **at(2)))
                store = {"calls": 1}
                events.append(StoreEvent(changes=json_changes({}, store) or [], span_id=span, **at(2.1)))
                answer = str(2 * i) if i % 3 else str(2 * i + 1)
                output = ModelOutput.from_message(ChatMessageAssistant(content=answer))
                output.usage = ModelUsage(input_tokens=180, output_tokens=3, total_tokens=183)
                events.append(ModelEvent(model="openai/gpt-4o", input=list(messages), tools=[], tool_choice="auto",
                                         config=GenerateConfig(), output=output, working_time=0.4, span_id=span, **at(3)))
                messages.append(output.message)
                after = {"messages": [dump(m) for m in messages], "store": store, "output": dump(output),
                         "completed": False, "metadata": {}}
                events += [StateEvent(changes=json_changes(before, after) or [], span_id=span, **at(4)),
                           SpanEndEvent(id=span, **at(4.1))]
            value = "C" if output.completion == str(2 * i) else "I"
            score = Score(value=value, answer=output.completion, explanation=output.completion)
            events += [SpanBeginEvent(id=f"{span}-scorers", name="scorers", type="scorers", **at(5)),
                       SpanBeginEvent(id=f"{span}-match", parent_id=f"{span}-scorers", name="match", type="scorer", **at(5)),
                       ScoreEvent(score=score, target=str(2 * i), scorer="match", span_id=f"{span}-match", **at(5.1)),
                       SpanEndEvent(id=f"{span}-match", **at(5.2)), SpanEndEvent(id=f"{span}-scorers", **at(5.3))]
            n_events += len(events)
            items.append(EvalSample(id=i, epoch=epoch, input=user.text, target=str(2 * i), messages=messages,
                                    output=output, store=store, events=events, scores={"match": score},
                                    error=error, uuid=f"bench{i:06d}e{epoch}",
                                    started_at=t.isoformat(), completed_at=(t + dt.timedelta(seconds=5)).isoformat()))
    spec = EvalSpec(created=T0.isoformat(), task="addition", task_id="bench-task", run_id="bench-run", eval_id="bench-eval",
                    dataset=EvalDataset(name="addition", samples=samples, sample_ids=list(range(samples))),
                    model="openai/gpt-4o", config=EvalConfig(epochs=2))
    write_eval_log(EvalLog(eval=spec, status="success", samples=items), str(path))
    return {"samples": len(items), "inspect_events": n_events}


def _log(samples: int) -> tuple[Path, dict[str, int]]:
    OUT.mkdir(parents=True, exist_ok=True)
    path, meta = OUT / f"addition-{samples}.eval", OUT / f"addition-{samples}.json"
    if not (path.exists() and meta.exists()):
        t = time.perf_counter()
        info = write_log(path, samples)
        info["write_s"] = round(time.perf_counter() - t, 2)
        meta.write_text(json.dumps(info))
    return path, json.loads(meta.read_text())


def measure(samples: int) -> dict[str, Any]:
    t = time.perf_counter()
    import inspect_ai
    import inspect_ai.log  # noqa: F401 - once per process; the figures below are per sample

    startup = time.perf_counter() - t

    from trajectory.importers import import_inspect
    from trajectory.importers import inspect_log as il
    from trajectory.store.delta import Store

    path, info = _log(samples)
    work = Path(tempfile.mkdtemp(prefix="traj-import-bench-"))
    try:
        t = time.perf_counter()
        report = import_inspect(Store(work / "store"), [str(path)])
        total = time.perf_counter() - t
        (src,) = report.sources
        assert src.error is None, src.error
        t = time.perf_counter()
        again = import_inspect(Store(work / "store"), [str(path)])
        reimport = time.perf_counter() - t
        assert again.sources[0].new_events == 0
        # the parts: inspect-ai's reader alone, then mapping without writing
        import inspect_ai.log as api

        read_s = map_s = 0.0
        events = 0
        gc.disable()  # as the import does while it reads and maps a log
        t = time.perf_counter()
        header = api.read_eval_log(str(path), header_only=True)
        wanted = [(s.id, s.epoch) for s in api.read_eval_log_sample_summaries(str(path))]
        log_info = il.LogInfo.of(header)
        read_s += time.perf_counter() - t
        for i in range(0, len(wanted), 200):  # in chunks, as the import reads them
            t = time.perf_counter()
            chunk = api.read_eval_log_samples_by_id(str(path), wanted[i:i + 200], resolve_attachments="core")
            read_s += time.perf_counter() - t
            t = time.perf_counter()
            events += sum(len(il.map_sample(log_info, s).events) for s in chunk)
            map_s += time.perf_counter() - t
        gc.enable()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    runs = src.runs
    return {
        "command": f"python -m benchmarks.import_speed --samples {samples}",
        "machine": {"python": platform.python_version(), "cpu": platform.processor() or platform.machine(),
                    "inspect_ai": inspect_ai.__version__},
        "log": {"file": path.name, "bytes": path.stat().st_size, **info},
        "runs": runs, "events": src.new_events, "judgements": src.judgements,
        "seconds": round(total, 2),
        "samples_per_s": round(runs / total, 1),
        "events_per_s": round(src.new_events / total, 1),
        "inspect_events_per_s": round(info["inspect_events"] / total, 1),
        "parts": {"inspect_reader_s": round(read_s, 2), "map_s": round(map_s, 2),
                  "validate_write_s": round(max(0.0, total - read_s - map_s), 2)},
        "reimport_s": round(reimport, 2),
        "inspect_ai_import_s": round(startup, 2),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "traj_events_per_run": round(events / max(1, len(wanted)), 1),
        "mapped_with": il.SOURCE,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=10_000, help="dataset samples (every seventh has two epochs)")
    ap.add_argument("--no-save", action="store_true", help=f"do not write {RESULTS.name}")
    args = ap.parse_args(argv)
    r = measure(args.samples)
    print(f"traj import inspect: {r['runs']:,} runs ({r['log']['samples']:,} samples x epochs, "
          f"{r['log']['inspect_events']:,} Inspect events, {r['log']['bytes'] / 1e6:.1f} MB .eval) in {r['seconds']} s")
    print(f"  {r['samples_per_s']:,} samples/s, {r['events_per_s']:,} traj events/s written "
          f"({r['inspect_events_per_s']:,} Inspect events/s read)")
    p = r["parts"]
    print(f"  inspect-ai reader {p['inspect_reader_s']} s, mapping {p['map_s']} s, validating+writing {p['validate_write_s']} s; "
          f"re-import (nothing new) {r['reimport_s']} s; peak RSS {r['peak_rss_mb']} MB; "
          f"importing inspect-ai once: {r['inspect_ai_import_s']} s")
    if not args.no_save:
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(json.dumps(r, indent=2) + "\n")
        print(f"  saved {RESULTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
