"""A deterministic corpus of realistic runs across the bundled suites.

Templates are the suites' own sample runs (recorded through the Recorder by each suite's
``trajectory.demo.samples``), so the corpus always judges with the current suites. Each generated run is
a template with a new run id, a new batch, shifted timestamps, and padding in the middle — more
step/screen pairs with token usage and timings — up to the requested size, the way long agent
runs look (many actions, many reads, one answer).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import hashlib
import json
import os
import random
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import suites as suite_pkg
from trajectory import events as ev
from trajectory.demo import samples
from trajectory.query.sql import Views
from trajectory.store.delta import Store

DEFAULT_SUITES = ("gui", "device", "selfevo")


def _sample_runs(names: tuple[str, ...]) -> tuple[dict[str, list[dict]], dict[str, str]]:
    """run_id -> the events (JSON objects, in seq order) of the named suites' sample runs, and
    run_id -> the bundled suite name that recorded it (gui records runs of weather and clock).

    Recorded once per version of the suites' and recorder's source, then read from a cache file:
    recording goes through the Recorder (a Delta commit per run), which takes seconds.
    """
    cache = _cache_file(names)
    if cache is not None and cache.exists():
        try:
            cached = json.loads(cache.read_text())
            return cached["runs"], cached["family"]
        except (OSError, ValueError, KeyError):
            pass
    runs: dict[str, list[dict]] = {}
    family: dict[str, str] = {}
    for name in names:
        # One scratch store per suite: a recorder's checks cost more as a store grows.
        with tempfile.TemporaryDirectory(prefix="traj-corpus-") as tmp:
            scratch = Store(Path(tmp) / "s")
            scratch.on_create = lambda: None  # a scratch store: its creation is no news
            record_samples(scratch, (name,))
            if not scratch.has_table("events"):
                continue
            with Views(scratch, split=None) as views:
                rows = views.con.execute("SELECT run_id, data FROM events ORDER BY run_id, seq").fetchall()
        for run_id, data in rows:
            runs.setdefault(run_id, []).append(json.loads(data))
            family.setdefault(run_id, name)
    if cache is not None:
        try:
            cache.parent.mkdir(parents=True, exist_ok=True)
            tmp_file = cache.with_suffix(f".{os.getpid()}.tmp")
            tmp_file.write_text(json.dumps({"runs": runs, "family": family}, ensure_ascii=False))
            os.replace(tmp_file, cache)
        except OSError:
            pass
    return runs, family


def _cache_file(names: tuple[str, ...]) -> Path | None:
    """A cache path named by a hash of every source the sample runs come from."""
    if os.environ.get("TRAJ_BENCH_NO_CACHE"):
        return None
    digest = hashlib.sha256(repr(names).encode())
    roots = [Path(suite_pkg.__file__).parent / n for n in names if n in suite_pkg.BUILTIN]
    sources = [Path(ev.__file__), Path(ev.__file__).parent / "ingest" / "recorder.py"]
    sources += sorted(Path(samples.__file__).parent.glob("*.py"))
    for root in roots:
        sources += sorted(p for p in root.rglob("*") if p.is_file() and p.suffix in (".py", ".json", ".jsonl"))
    for path in sources:
        digest.update(str(path).encode())
        digest.update(path.read_bytes())
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "traj" / f"bench-templates-{digest.hexdigest()[:16]}.json"


def record_samples(store: Store, names: tuple[str, ...] = DEFAULT_SUITES) -> None:
    """Record the sample runs of the named bundled suites (those that have them) into ``store``."""
    for name in names:
        if name in suite_pkg.BUILTIN:
            samples.record(store, name)


@functools.lru_cache(maxsize=4)
def _groups(names: tuple[str, ...]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """(family, group) for every template group, families in ``names`` order."""
    runs, family = _sample_runs(names)
    _RUNS.update(runs)
    groups = list(_group(runs))
    order = {n: i for i, n in enumerate(names)}
    groups.sort(key=lambda g: (order[family[g[0]]], g))
    return tuple((family[g[0]], g) for g in groups)


_RUNS: dict[str, list[dict]] = {}


def _group(runs: dict[str, list[dict]]) -> Iterator[tuple[str, ...]]:
    """Finished template runs, one group per unit of copying: a lone run, or both rounds of a
    pair (in round order) — a pair's judge reads its partner, so the two travel together with
    a new pair id. A pair whose rounds are not both finished is left out."""
    pairs: dict[str, list[tuple[int, str]]] = {}
    for run_id, run in runs.items():
        if run[-1]["kind"] != "run_finished":
            continue
        pair = run[0].get("pair")
        if pair:
            pairs.setdefault(pair["id"], []).append((pair.get("round") or 0, run_id))
        else:
            yield (run_id,)
    for members in pairs.values():
        rounds = sorted(members)
        if len(rounds) == 2 and rounds[0][0] != rounds[1][0]:
            yield tuple(r for _, r in rounds)


def templates(names: tuple[str, ...] = DEFAULT_SUITES) -> list[list[dict]]:
    """The finished sample runs of the named bundled suites, as JSON objects (pairs included,
    round 1 before round 2)."""
    return [_RUNS[r] for _, group in _groups(names) for r in group]


@dataclasses.dataclass(frozen=True)
class Planned:
    """One corpus run: its new id, the template run it copies, and its new pair id (if paired)."""

    index: int
    run_id: str
    template: str
    pair_id: str | None


def plan(n_runs: int, names: tuple[str, ...] = DEFAULT_SUITES) -> list[Planned]:
    """Which template each of the ``n_runs`` corpus runs copies.

    The suites share the corpus about equally: the next group comes from the suite with the
    fewest runs so far, each suite cycling through its own groups. A pair takes two
    consecutive runs; when only one run is left, a lone run takes it instead.
    """
    groups = _groups(names)
    if not groups:
        raise RuntimeError("no bundled suite has sample runs")
    by_family: dict[str, list[tuple[str, ...]]] = {}
    for fam, group in groups:
        by_family.setdefault(fam, []).append(group)
    singles = [g for _, g in groups if len(g) == 1]
    taken = {fam: 0 for fam in by_family}
    turns = {fam: 0 for fam in by_family}
    out: list[Planned] = []
    while len(out) < n_runs:
        fam = min(by_family, key=lambda f: taken[f])  # dicts keep order: ties go to the first
        group = by_family[fam][turns[fam] % len(by_family[fam])]
        turns[fam] += 1
        if len(out) + len(group) > n_runs:
            if not singles:
                break
            group = singles[len(out) % len(singles)]
        taken[fam] += len(group)
        pair_id = f"bench-pair-{len(out):07d}" if len(group) > 1 else None
        for template in group:
            i = len(out)
            out.append(Planned(i, f"bench-{i:07d}", template, pair_id))
    return out


def _pad(rng: random.Random, run_id: str, seq: int, ts: int, app: str) -> Iterator[dict]:
    yield {
        "run_id": run_id, "seq": seq, "ts": ts, "kind": "step_taken",
        "action": rng.choice(["tap", "swipe", "type", "back", "wait"]),
        "args": {"x": rng.randrange(1080), "y": rng.randrange(2400)},
        "thought": "继续查找需要的信息",
        "usage": {"input_tokens": rng.randrange(800, 3000), "output_tokens": rng.randrange(10, 120), "cached_tokens": rng.randrange(0, 500)},
        "timing": {"model_ms": rng.randrange(300, 2500), "read_ms": rng.randrange(50, 400), "act_ms": rng.randrange(50, 600), "other_ms": rng.randrange(0, 50)},
    }
    yield {
        "run_id": run_id, "seq": seq + 1, "ts": ts + 700, "kind": "screen_read",
        "text": f"列表 第{rng.randrange(1, 40)}项 {rng.randrange(100, 9999)} 条结果 更新于{rng.randrange(1, 12)}:{rng.randrange(10, 59)}",
        "app": app, "route": {"app": app, "path": f"/page/{rng.randrange(20)}"},
    }


def _rebatch(value: Any, old: str, new: str) -> Any:
    if isinstance(value, str):
        return value.replace(old, new)
    if isinstance(value, list):
        return [_rebatch(v, old, new) for v in value]
    if isinstance(value, dict):
        return {k: _rebatch(v, old, new) for k, v in value.items()}
    return value


def generate(n_runs: int, events_per_run: int = 100, seed: int = 7,
             names: tuple[str, ...] = DEFAULT_SUITES) -> Iterator[bytes]:
    """JSON lines of ``n_runs`` runs of about ``events_per_run`` events each."""
    for _, lines in generate_runs(n_runs, events_per_run, seed, names):
        yield from lines


def generate_runs(n_runs: int, events_per_run: int = 100, seed: int = 7,
                  names: tuple[str, ...] = DEFAULT_SUITES) -> Iterator[tuple[Planned, list[bytes]]]:
    """Each corpus run's plan and its JSON lines, in order."""
    rng = random.Random(seed)
    planned = plan(n_runs, names)
    base = int(dt.datetime(2026, 6, 1, tzinfo=dt.timezone.utc).timestamp() * 1000)
    encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
    for p in planned:
        temp = _RUNS[p.template]
        i, run_id = p.index, p.run_id
        start = base + i * 60_000
        head, body, tail = temp[:1], temp[1:-1], temp[-1:]
        pad_pairs = max(0, (events_per_run - len(temp)) // 2)
        app = "com.example.app"
        out: list[dict] = []
        seq = 0
        batch = f"bench-{i % 20:02d}"
        # A run may carry its batch as a marker in what it types (the device suite's {run}):
        # the copy carries its own batch, wherever the template's appeared.
        old_batch = head[0].get("batch")
        if old_batch:
            head, body, tail = (_rebatch(part, old_batch, batch) for part in (head, body, tail))
        for e in head:
            e = dict(e, run_id=run_id, seq=seq, ts=start)
            e["batch"] = batch
            if p.pair_id is not None:
                e["pair"] = dict(e["pair"], id=p.pair_id)
            out.append(e)
            seq += 1
        ts = start + 1000
        for _ in range(pad_pairs):
            out.extend(_pad(rng, run_id, seq, ts, app))
            seq += 2
            ts += 1500
        for e in body + tail:
            out.append(dict(e, run_id=run_id, seq=seq, ts=ts))
            seq += 1
            ts += 1000
        yield p, [encode(e).encode() for e in out]


def write(path: str | Path, n_runs: int, events_per_run: int = 100, seed: int = 7,
          names: tuple[str, ...] = DEFAULT_SUITES) -> int:
    n = 0
    with open(path, "wb") as fh:
        for line in generate(n_runs, events_per_run, seed, names):
            fh.write(line + b"\n")
            n += 1
    return n

