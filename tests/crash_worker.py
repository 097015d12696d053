"""A writer process for the crash and concurrency tests: it ingests, records, judges or
compacts a store and prints one line to stdout after each operation has *returned*.

The tests start it with ``subprocess``, kill it with SIGKILL at a random moment and then check
the store against what it printed: a line on stdout is the writer's promise that the operation
is durable. Everything it writes is a pure function of its arguments, so the tests rebuild the
expected events with the same functions (``batch_lines``, ``recorder_events``).

    python tests/crash_worker.py ingest STORE --seed 3 --batches 0:8
    python tests/crash_worker.py record STORE --seed 3 --runs 3 --events 20
    python tests/crash_worker.py judge STORE --passes 3
    python tests/crash_worker.py compact STORE --seed 3 --batches 12:16
    python tests/crash_worker.py race STORE --run R --variant 1 --wait
"""

from __future__ import annotations

import argparse
import datetime as dt
import faulthandler
import json
import signal
import sys
from typing import Any

UTC = dt.timezone.utc
T0 = 1775354400000  # 2026-04-05T02:00:00Z in epoch ms
RUNS_PER_BATCH = 4


# -- deterministic inputs (imported by the tests) ---------------------------------------------


def _line(run_id: str, seq: int, kind: str, **fields: Any) -> str:
    return json.dumps(
        {"run_id": run_id, "seq": seq, "ts": T0 + seq * 1000, "kind": kind, **fields},
        ensure_ascii=False,
    )


def run_lines(run_id: str, *, start: int = 0, stop: int = 5, variant: int = 0) -> list[str]:
    """Events ``start..stop-1`` of a five-event run (the last one is run_finished).

    ``variant`` changes the screen text and the answer, so two variants of one run conflict at
    seq 2 (and only there, and at seq 3).
    """
    body = [
        lambda s: _line(run_id, s, "run_started", suite="crash", task="t", split="tune",
                        batch="crash", params={"run": run_id}, agent={"name": "w", "model": "m"}),
        lambda s: _line(run_id, s, "step_taken", action="tap", args={"x": s},
                        usage={"input_tokens": 10 * s, "output_tokens": 1}),
        lambda s: _line(run_id, s, "screen_read", text=f"screen of {run_id} v{variant} 北京 20°", app="w"),
        lambda s: _line(run_id, s, "answer_given", text=f"answer {variant}"),
        lambda s: _line(run_id, s, "run_finished", outcome="succeeded"),
    ]
    return [body[s](s) for s in range(start, stop)]


def batch_runs(seed: int, k: int) -> list[str]:
    return [f"c{seed}-{k}-{j}" for j in range(RUNS_PER_BATCH)]


def batch_lines(seed: int, k: int, *, complete: bool = False) -> list[str]:
    """Batch ``k`` of a sequence: it opens new runs (seq 0-3) and finishes the runs the
    previous batch opened (seq 4), so a batch spans several runs and continues earlier ones.

    ``complete``: every run of the batch is whole and finished (no continuation), for readers
    that check that every run they see is complete.
    """
    if complete:
        return [x for r in batch_runs(seed, k) for x in run_lines(r)]
    out = [x for r in batch_runs(seed, k) for x in run_lines(r, stop=4)]
    if k > 0:
        out += [x for r in batch_runs(seed, k - 1) for x in run_lines(r, start=4)]
    return out


def batch_bytes(seed: int, k: int, *, complete: bool = False) -> bytes:
    return ("\n".join(batch_lines(seed, k, complete=complete)) + "\n").encode()


def recorder_run_id(seed: int, i: int) -> str:
    return f"rec{seed}-{i}"


def recorder_calls(n: int) -> list[tuple[str, tuple[Any, ...], dict[str, Any]]]:
    """The Recorder calls of one run after open: n events, the last one finish."""
    calls: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = []
    for j in range(1, n - 1):
        match j % 4:
            case 1:
                calls.append(("step", ("tap", {"i": j}), {"usage": {"input_tokens": j}}))
            case 2:
                calls.append(("screen", (f"screen {j} 北京 20°",), {"app": "weather"}))
            case 3:
                calls.append(("sheet_set", (0, str(j)), {}))
            case 0:
                calls.append(("probe", (f"p{j}", str(j)), {}))
    calls.append(("finish", ("succeeded",), {}))
    return calls


def recorder_clock(run_index: int) -> Any:
    ticks = iter(range(10**9))
    start = dt.datetime(2026, 4, 5, tzinfo=UTC) + dt.timedelta(hours=run_index)
    return lambda: start + dt.timedelta(seconds=next(ticks))


RECORDER_START = {"suite": "crash", "task": "rec", "split": "tune", "params": {"k": 1},
                  "agent": {"name": "w", "model": "m"}, "state": {"apps": {}}}


def recorder_events(seed: int, i: int, n: int) -> list[bytes]:
    """Stored bytes (trajectory.events.stored) of the n events the worker records for run i."""
    from trajectory import events as ev

    run_id = recorder_run_id(seed, i)
    clock = recorder_clock(i)
    out = [ev.RunStarted(run_id=run_id, seq=0, ts=clock(), **_start_fields())]
    for seq, (name, args, kwargs) in enumerate(recorder_calls(n), start=1):
        ts = clock()
        common = {"run_id": run_id, "seq": seq, "ts": ts}
        if name == "step":
            e = ev.StepTaken(**common, action=args[0], args=args[1], usage=ev.Usage(**kwargs["usage"]))
        elif name == "screen":
            e = ev.ScreenRead(**common, text=args[0], app=kwargs["app"])
        elif name == "sheet_set":
            e = ev.SheetChanged(**common, op="set", field=args[0], value=args[1])
        elif name == "probe":
            e = ev.ProbeRead(**common, name=args[0], value=args[1])
        else:
            e = ev.RunFinished(**common, outcome=args[0])
        out.append(e)
    return [ev.stored(ev.decode(ev.encode(e))) for e in out]


def _start_fields() -> dict[str, Any]:
    from trajectory import events as ev

    f = dict(RECORDER_START)
    f["agent"] = ev.Agent(**f["agent"])
    return f


# -- the worker -------------------------------------------------------------------------------


def say(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def _range(text: str) -> range:
    a, b = text.split(":")
    return range(int(a), int(b))


def do_ingest(store: Any, args: argparse.Namespace) -> None:
    from trajectory.ingest.files import ingest_bytes

    for k in _range(args.batches):
        r = ingest_bytes(store, batch_bytes(args.seed, k, complete=args.complete), f"batch-{args.seed}-{k}")
        say(f"committed {k} new={r.new} present={r.present}")


def do_record(store: Any, args: argparse.Namespace) -> None:
    from trajectory.ingest.recorder import Recorder

    for i in range(args.runs):
        run_id = recorder_run_id(args.seed, i)
        rec = Recorder(store, run_id=run_id, clock=recorder_clock(i), **RECORDER_START).open()
        say(f"wrote {run_id} 0")
        for seq, (name, a, kw) in enumerate(recorder_calls(args.events), start=1):
            getattr(rec, name)(*a, **kw)
            say(f"wrote {run_id} {seq}")
            if args.hold and seq == args.hold:
                say("holding")
                sys.stdin.readline()  # a live writer: the test decides when it goes on
        say(f"sealed {run_id}")


def do_judge(store: Any, args: argparse.Namespace) -> None:
    import suites
    from trajectory.judging import SuiteResolver, judge_runs, write_pass

    # Only the example suite: loading every bundled suite would be most of the work.
    resolver = SuiteResolver(store, overrides={"example": suites.load_builtin("example")})
    for _ in range(args.passes):
        # judge_runs(dry_run=False) is exactly these two steps; split to tell the test when the
        # writing starts, so that it can aim kills at the commits.
        result = judge_runs(store, resolver, dry_run=True)
        say(f"judged {result.pass_id} {len(result.rows)}")
        write_pass(store, result, kind="judge", by="crash", command="crash_worker", filters={})
        say(f"pass {result.pass_id} {len(result.rows)}")


def do_compact(store: Any, args: argparse.Namespace) -> None:
    from trajectory.ingest.files import ingest_bytes

    for k in _range(args.batches):
        ingest_bytes(store, batch_bytes(args.seed, k), f"batch-{args.seed}-{k}")
        say(f"committed {k}")
        r = store.compact("events")
        say(f"compacted {k} {r['version']} {r['files_after']}")


def do_race(store: Any, args: argparse.Namespace) -> None:
    from trajectory.errors import ConflictError
    from trajectory.ingest.files import ingest_bytes

    data = ("\n".join(run_lines(args.run, variant=args.variant)) + "\n").encode()
    try:
        r = ingest_bytes(store, data, f"race-{args.variant}.jsonl")
    except ConflictError as exc:
        say("conflict " + json.dumps(str(exc), ensure_ascii=False))
    else:
        say(f"won new={r.new} present={r.present}")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser()
    p.add_argument("mode", choices=["ingest", "record", "judge", "compact", "race"])
    p.add_argument("store")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--batches", default="0:1")
    p.add_argument("--complete", action="store_true")
    p.add_argument("--runs", type=int, default=1)
    p.add_argument("--events", type=int, default=10)
    p.add_argument("--hold", type=int, default=0)
    p.add_argument("--passes", type=int, default=1)
    p.add_argument("--run", default="race")
    p.add_argument("--variant", type=int, default=0)
    p.add_argument("--wait", action="store_true", help="after 'ready', wait for a line on stdin")
    args = p.parse_args(argv)

    # A test that finds this process hung sends SIGUSR1 for the threads' stacks before it kills.
    faulthandler.register(signal.SIGUSR1, all_threads=True)
    from trajectory.store.delta import Store

    store = Store(args.store)
    say("ready")
    if args.wait:
        sys.stdin.readline()
    {"ingest": do_ingest, "record": do_record, "judge": do_judge, "compact": do_compact,
     "race": do_race}[args.mode](store, args)
    say("done")


if __name__ == "__main__":
    main()
