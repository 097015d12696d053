"""The corpus judges as its templates do: padding adds only step and screen events, new ids
and new times, none of which a judge's verdict may depend on."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from trajectory.ingest.files import ingest_bytes
from trajectory.judging import SuiteResolver, judge_runs
from trajectory.store.delta import Store

from . import corpus


def verdicts(store: Store) -> dict[str, tuple[str, float]]:
    """run_id -> (outcome, score) of a dry-run pass over every finished run."""
    result = judge_runs(store, SuiteResolver(store), dry_run=True, timeout=None)
    return {r.run_id: (r.outcome, round(r.score, 9)) for r in result.rows}


def corpus_matches_templates(n_runs: int, events_per_run: int = 100,
                             names: tuple[str, ...] = corpus.DEFAULT_SUITES) -> dict:
    """Judge the templates and a corpus of ``n_runs``; every corpus run must get its template's
    outcome and score. Returns counts, the templates covered and the mismatches."""
    with tempfile.TemporaryDirectory(prefix="traj-verify-") as tmp:
        # The templates as recorded (ingesting their events stores exactly what was recorded).
        temps = Store(Path(tmp) / "templates")
        temps.on_create = lambda: None  # scratch stores: their creation is no news
        recorded = b"\n".join(json.dumps(e, ensure_ascii=False).encode() for run in corpus.templates(names) for e in run)
        ingest_bytes(temps, recorded + b"\n", "templates", split_of=SuiteResolver(temps).split_of)
        expected = verdicts(temps)
        store = Store(Path(tmp) / "corpus")
        store.on_create = lambda: None
        data = b"\n".join(corpus.generate(n_runs, events_per_run, names=names)) + b"\n"
        ingest_bytes(store, data, "corpus", split_of=SuiteResolver(store).split_of)
        got = verdicts(store)
    planned = corpus.plan(n_runs, names)
    mismatches = [
        {"run_id": p.run_id, "template": p.template, "expected": expected.get(p.template), "got": got.get(p.run_id)}
        for p in planned
        if expected.get(p.template) != got.get(p.run_id)
    ]
    templates = {p.template for p in planned}
    return {
        "runs": len(planned),
        "templates_covered": len(templates),
        "templates": len(corpus.templates(names)),
        "outcomes": _count(got.values()),
        "mismatches": mismatches,
    }


def _count(values) -> dict[str, int]:
    out: dict[str, int] = {}
    for outcome, _ in values:
        out[outcome] = out.get(outcome, 0) + 1
    return dict(sorted(out.items()))
