"""By hand, not part of ``python -m benchmarks``: the device suite's judging alone, in one process.

``python -m benchmarks.device_judge [--runs 1500] [--verdicts FILE]`` builds the held-out-style
device corpus (``corpus.generate``, ~90 events a run), replays every run with the fold, warms the
imports on 20 runs, clears the matchers' caches and times judging every run in one memo, as a pass
does (wall and CPU seconds).
No store, no DuckDB: what judge code changes cost, without what `traj judge` adds around it.
``--verdicts`` writes the verdicts as JSON Lines, to compare two versions of the judge code.
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict

import msgspec

from replay.fold import replay
from trajectory import events as ev
from trajectory.judging.execution import judge_state
from trajectory.judging.resolve import SuiteResolver

from . import corpus


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m benchmarks.device_judge", description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=int, default=1500)
    p.add_argument("--events-per-run", type=int, default=90)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--verdicts", help="write the verdicts here (JSON Lines)")
    a = p.parse_args(argv)
    import judges.matchers
    from judges.memo import TextMemo, reading

    runs: dict[str, list[ev.Event]] = defaultdict(list)
    for line in corpus.generate(a.runs, a.events_per_run, a.seed, names=("device",)):
        e = ev.decode(line)
        runs[e.run_id].append(e)
    states = [replay(events) for events in runs.values()]
    resolver, versions = SuiteResolver(), {}
    for s in states[:20]:
        judge_state(resolver, s, None, versions)
    for name in dir(judges.matchers):
        clear = getattr(getattr(judges.matchers, name), "cache_clear", None)
        if clear is not None:
            clear()
    # As in a pass: the texts read are remembered in a memo of its own (judges.memo).
    wall, cpu = time.perf_counter(), time.process_time()
    with reading(TextMemo()):
        verdicts = [judge_state(resolver, s, None, versions)[0] for s in states]
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    events = sum(len(v) for v in runs.values())
    print(f"{len(states)} device runs ({events} events) judged in {wall:.2f} s wall, {cpu:.2f} s CPU")
    if a.verdicts:
        with open(a.verdicts, "w", encoding="utf-8") as fh:
            for v in verdicts:
                fh.write(msgspec.json.encode(v).decode() + "\n")


if __name__ == "__main__":
    main()
