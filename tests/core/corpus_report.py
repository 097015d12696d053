"""Run the phrasing corpus through every answer path and report agreement per class.

    python -m tests.core.corpus_report [--n 100000] [--seed 22] [--out FILE] [--examples 5]
    python -m tests.core.corpus_report --shard 0/2 --out a.json & ... --shard 1/2 --out b.json
    python -m tests.core.corpus_report --merge a.json b.json

prints, for each path and each grammar class (kind, construct, form, wrapper, language, verdict),
how many judged answers agree with the verdict the grammar gave them, then the disagreement
groups (path, construct, form), largest first, with examples (answer, expected, grader's
verdict, the path's). ``--out`` writes the same figures as JSON (the slow test writes one too).
Identical (path, case) inputs are judged once: the corpus repeats short answers.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpus_grammar as G  # noqa: E402
import corpus_paths as P  # noqa: E402

DEFAULT_N = 100_000
DEFAULT_SEED = 22


def run(n: int = DEFAULT_N, seed: int = DEFAULT_SEED, examples: int = 5, shard: tuple[int, int] = (0, 1)) -> dict[str, Any]:
    """Agreement of every path with the grammar's verdicts over the seeded corpus of n answers
    (of shard (i, k): the answers whose index is i modulo k; `merge` adds shards up)."""
    started = time.monotonic()
    seen: dict[tuple, bool | None] = {}
    total = Counter()
    agree = Counter()
    per_class: dict[str, Counter] = defaultdict(Counter)
    per_class_ok: dict[str, Counter] = defaultdict(Counter)
    groups: Counter = Counter()
    by_path: dict[tuple, Counter] = defaultdict(Counter)
    wrong_pass: Counter = Counter()
    shown: dict[tuple, list] = defaultdict(list)
    answers = 0
    for index, case in enumerate(G.generate(seed, n)):
        if index % shard[1] != shard[0]:
            continue
        answers += 1
        classes = case.classes()
        for path in P.PATHS:
            key = (path, repr(case))
            got = seen[key] if key in seen else seen.setdefault(key, P.run_path(path, case))
            if got is None:
                continue
            ok = got == P.expected_on(path, case)
            total[path] += 1
            agree[path] += ok
            for dim, value in classes.items():
                per_class[f"{dim}={value}"][path] += 1
                per_class_ok[f"{dim}={value}"][path] += ok
            if not ok:
                group = (case.construct, f"{case.kind}:{case.form}")
                groups[group] += 1
                by_path[group][path] += 1
                wrong_pass[group] += bool(got)
                if len(shown[group]) < examples and all(e["answer"] != case.answer for e in shown[group]):
                    shown[group].append({"path": path, "answer": case.answer, "expected": case.expected,
                                         "grader": P.expected_on(path, case), "got": got})
    judged = sum(total.values())
    return {
        "seed": seed, "answers": answers, "judged": judged, "agree": sum(agree.values()),
        "agreement": round(sum(agree.values()) / judged, 5) if judged else None,
        "seconds": round(time.monotonic() - started, 1),
        "paths": {p: {"judged": total[p], "agree": agree[p]} for p in P.PATHS},
        "classes": {c: {p: [per_class_ok[c][p], per_class[c][p]] for p in P.PATHS if per_class[c][p]}
                    for c in sorted(per_class)},
        "wrong_passes": sum(wrong_pass.values()),
        "wrong_fails": sum(groups.values()) - sum(wrong_pass.values()),
        "disagreements": [{"construct": g[0], "form": g[1], "count": k, "wrong_passes": wrong_pass[g],
                           "paths": dict(by_path[g]), "examples": shown[g]} for g, k in groups.most_common()],
    }


def merge(parts: list[dict[str, Any]], examples: int = 5) -> dict[str, Any]:
    """The result of the whole corpus from the results of its shards."""
    out: dict[str, Any] = {"seed": parts[0]["seed"], "answers": sum(p["answers"] for p in parts),
                           "judged": sum(p["judged"] for p in parts), "agree": sum(p["agree"] for p in parts),
                           "seconds": round(sum(p["seconds"] for p in parts), 1)}
    out["agreement"] = round(out["agree"] / out["judged"], 5) if out["judged"] else None
    out["paths"] = {p: {k: sum(r["paths"][p][k] for r in parts) for k in ("judged", "agree")} for p in P.PATHS}
    classes: dict[str, dict[str, list[int]]] = defaultdict(dict)
    for r in parts:
        for c, by_path in r["classes"].items():
            for p, (ok, n) in by_path.items():
                a, b = classes[c].get(p, [0, 0])
                classes[c][p] = [a + ok, b + n]
    out["classes"] = {c: classes[c] for c in sorted(classes)}
    out["wrong_passes"] = sum(r["wrong_passes"] for r in parts)
    out["wrong_fails"] = sum(r["wrong_fails"] for r in parts)
    groups: dict[tuple, dict[str, Any]] = {}
    for r in parts:
        for d in r["disagreements"]:
            g = groups.setdefault((d["construct"], d["form"]), {"construct": d["construct"], "form": d["form"],
                                                                "count": 0, "wrong_passes": 0, "paths": Counter(),
                                                                "examples": []})
            g["count"] += d["count"]
            g["wrong_passes"] += d["wrong_passes"]
            g["paths"].update(d["paths"])
            g["examples"] = (g["examples"] + d["examples"])[:examples]
    out["disagreements"] = sorted(({**g, "paths": dict(g["paths"])} for g in groups.values()),
                                  key=lambda g: -g["count"])
    return out


def _pct(ok: int, n: int) -> str:
    return f"{100 * ok / n:6.2f}%" if n else "      -"


def table(result: dict[str, Any]) -> str:
    """The per-class agreement table and the disagreement groups, as text."""
    lines = [f"phrasing corpus: {result['answers']} answers (seed {result['seed']}), {result['judged']} path verdicts, "
             f"agreement {100 * (result['agreement'] or 0):.2f}% ({result['seconds']} s)", ""]
    paths = [p for p in P.PATHS if result["paths"][p]["judged"]]
    lines.append(f"{'class':38} " + " ".join(f"{p:>14}" for p in paths))
    lines.append(f"{'ALL':38} " + " ".join(f"{_pct(result['paths'][p]['agree'], result['paths'][p]['judged']):>14}"
                                            for p in paths))
    for name, by_path in result["classes"].items():
        cells = [_pct(*by_path[p]) + f" {by_path[p][1]:>6}" if p in by_path else "" for p in paths]
        lines.append(f"{name[:38]:38} " + " ".join(f"{c:>14}" for c in cells))
    lines += ["", f"disagreements: {result['wrong_passes']} wrong passes, {result['wrong_fails']} wrong fails; "
              "by (construct, kind:form), largest first:"]
    for d in result["disagreements"]:
        paths = ", ".join(f"{p} {k}" for p, k in d["paths"].items())
        lines.append(f"  {d['count']:6}  {d['construct']:20} {d['form']:28} wrong passes {d['wrong_passes']}; {paths}")
        for e in d["examples"]:
            lines.append(f"          [{e['path']}] expected {e['expected']!r}, grader {'pass' if e['grader'] else 'fail'}, "
                         f"got {'pass' if e['got'] else 'fail'}: {e['answer']!r}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=DEFAULT_N)
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument("--examples", type=int, default=5)
    ap.add_argument("--out", type=Path, default=None, help="write the figures as JSON here")
    ap.add_argument("--shard", default="0/1", help="i/k: judge only the answers whose index is i modulo k")
    ap.add_argument("--merge", type=Path, nargs="+", default=None, help="add up the JSON results of shards")
    args = ap.parse_args(argv)
    if args.merge:
        result = merge([json.loads(p.read_text(encoding="utf-8")) for p in args.merge], args.examples)
    else:
        i, k = (int(x) for x in args.shard.split("/"))
        result = run(args.n, args.seed, args.examples, (i, k))
    if args.out:
        args.out.write_text(json.dumps(result, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(table(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
