"""Run the reviewer's probes (review_probes.json) against the public judge API.

Usage: python tests/core/review_run.py [--limit N] [--probes PATH]
Prints agreement overall and per class, every disagreement, and wrong passes / wrong fails.
An exception in a probe counts as a disagreement and is printed.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import traceback
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
for p in (str(ROOT), str(ROOT / "tests")):
    if p not in sys.path:
        sys.path.insert(0, p)

DEVICE_PATHS = {"answer_regex", "answer_contains", "answer_grounded", "screen_has"}


def _value(v):
    if isinstance(v, dict) and set(v) == {"pattern"}:
        return re.compile(v["pattern"])
    return v


def run_probe(probe: dict) -> bool:
    path, a = probe["path"], probe["args"]
    if path in DEVICE_PATHS:
        from device_helpers import state, task, verdict

        t = task(goal=a.get("goal") or "看看", checks=[a["check"]])
        screens = [tuple(s) for s in a.get("screens") or []]
        s = state(a.get("answer"), screens, batch=a.get("batch") or "b1")
        v = verdict(t, s)
        hits = [c for c in v.checks if c.name == path or c.name.startswith(path)]
        if len(hits) != 1:
            raise RuntimeError(f"expected one {path} check in verdict, got {[c.name for c in v.checks]}")
        return bool(hits[0].passed)
    import judges.matchers as m

    if path == "match_value":
        return bool(m.match_value(_value(a["expected"]), a["actual"], **(a.get("kwargs") or {})))
    if path == "match_time":
        return bool(m.match_time(a["expected"], a["actual"], **(a.get("kwargs") or {})))
    if path == "match_duration":
        return bool(m.match_duration(a["expected"], a["actual"]))
    if path == "match_date":
        return bool(m.match_date(a["expected"], a["actual"], a.get("os_state")))
    if path == "match_field":
        return bool(m.match_field(a["matcher"], a["expected"], a["actual"], a.get("os_state")))
    if path == "match_repeatable":
        return bool(m.match_repeatable(a["matcher"], a["compare"], a["expected"], a["actual"], a.get("os_state")))
    raise ValueError(f"unknown path {path}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--probes", default=str(HERE / "review_probes.json"))
    ns = ap.parse_args(argv)
    probes = json.loads(Path(ns.probes).read_text(encoding="utf-8"))
    if ns.limit is not None:
        probes = probes[: ns.limit]
    per = defaultdict(lambda: [0, 0])
    per_path = defaultdict(lambda: [0, 0])
    bad = []
    wrong_pass = wrong_fail = errors = 0
    for p in probes:
        try:
            got = run_probe(p)
            err = None
        except Exception as e:  # a crash is a disagreement
            got, err = None, "".join(traceback.format_exception_only(type(e), e)).strip()
        ok = err is None and got == p["expected"]
        for d in (per[p["class"]], per_path[p["path"]]):
            d[1] += 1
            d[0] += ok
        if not ok:
            if err is not None:
                errors += 1
            elif got and not p["expected"]:
                wrong_pass += 1
            else:
                wrong_fail += 1
            bad.append((p, got, err))
    n = len(probes)
    agree = sum(v[0] for v in per.values())
    print(f"agreement: {agree}/{n} = {100.0 * agree / max(n, 1):.2f}%")
    print(f"wrong passes (judge true, grader false): {wrong_pass}")
    print(f"wrong fails (judge false, grader true): {wrong_fail}")
    print(f"errors (exceptions): {errors}")
    print("\nper class:")
    for k in sorted(per):
        a, t = per[k]
        print(f"  {k:30s} {a:3d}/{t:3d}")
    print("\nper path:")
    for k in sorted(per_path):
        a, t = per_path[k]
        print(f"  {k:30s} {a:3d}/{t:3d}")
    if bad:
        print("\ndisagreements:")
        for p, got, err in bad:
            print(json.dumps({"id": p["id"], "class": p["class"], "path": p["path"], "args": p["args"],
                              "expected": p["expected"], "got": got if err is None else f"ERROR: {err}"},
                             ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
