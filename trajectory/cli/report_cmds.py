"""``traj report``: a batch's summary.md, scores.jsonl and metrics.json, or a suite's own table.

``--batch NAME`` gathers the batch's current verdicts (tune pool by default; ``--split holdout``
shows the holdout pool and is recorded as a look at it), the runs' figures, their human
overrides and the holdout-view log, and writes the three files (formatting lives in
suites/device/report.py). ``--suite S`` for a suite whose package has
``cli_report(store, fmt) -> str`` prints that suite's own table instead.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Annotated, Any

import typer

import suites as suite_pkg
from replay import replay
from suites.device import report as device_report
from trajectory.errors import NotFound, QueryError
from trajectory.judging import JUDGEMENT_SUITE, load_events
from trajectory.query import SPLITS, Views, holdout_views, record_holdout_view
from trajectory.store import Store

from .common import StoreOpt, handle_errors, open_store

FORMATS = ("md", "csv", "json")


def suite_reporter(store: Store, name: str) -> Any:
    """The ``cli_report`` function of a suite's package, or None."""
    module = None
    if name in suite_pkg.BUILTIN:
        module = suite_pkg.builtin_module(name)
    else:
        from trajectory.judging import SuiteResolver

        reg = SuiteResolver(store).registered().get(name)
        if reg is not None and (Path(reg["path"]) / "__init__.py").exists():
            module = suite_pkg.import_package(Path(reg["path"]))
    if module is None:
        return None
    fn = getattr(module, "cli_report", None)
    if fn is None:
        try:
            fn = getattr(importlib.import_module(module.__name__ + ".report"), "cli_report", None)
        except ImportError:
            fn = None
    return fn


def gather(store: Store, batch: str, split: str, suite: str | None = None) -> tuple[list[dict[str, Any]], list[str]]:
    """The batch's judged runs as report rows, and the ids of its runs without a verdict."""
    cond = "batch = ? AND suite IS DISTINCT FROM ?" + (" AND suite = ?" if suite else "")
    params: list[Any] = [batch, JUDGEMENT_SUITE] + ([suite] if suite else [])
    with Views(store, split=split) as views:
        runs = {r["run_id"]: r for r in views.arrow(f"SELECT * FROM runs WHERE {cond}", params).to_pylist()}
        verdicts = views.arrow(f"SELECT * FROM verdicts WHERE {cond}", params).to_pylist()
    if not runs:
        raise NotFound(f"no runs of batch {batch!r} in the {split} pool" + (f" of suite {suite}" if suite else ""))
    judged = {v["run_id"] for v in verdicts}
    events = load_events(store, [v["run_id"] for v in verdicts])
    rows = []
    for v in verdicts:
        evs = events[v["run_id"]]
        state = replay(evs)
        run = runs.get(v["run_id"], {})
        metrics = state.metrics if isinstance(state.metrics, dict) else {}
        turns = metrics.get("turns")
        rows.append({
            **{k: run.get(k) for k in ("agent", "model", "device")},
            # DuckDB sums come back as Decimal: plain numbers for formatting and JSON.
            **{k: int(run.get(k) or 0) for k in ("steps", "input_tokens", "output_tokens", "cached_tokens")},
            **{k: float(run.get(k) or 0) for k in ("model_ms", "read_ms", "act_ms", "other_ms")},
            "duration_ms": None if run.get("duration_ms") is None else float(run["duration_ms"]),
            **v,
            "answer": state.answer if state.answer is not None else (
                None if state.sheet.value(0) is None else str(state.sheet.value(0))),
            "images": [s.image for s in state.screens if s.image],
            "device": state.device,
            "first_feedback_ms": device_report.first_feedback_ms(evs),
            "turns": turns if isinstance(turns, int) and not isinstance(turns, bool) else state.n_steps,
        })
    return rows, sorted(set(runs) - judged)


def overrides_of(store: Store, run_ids: set[str]) -> list[dict[str, Any]]:
    if not store.has_table("overrides"):
        return []
    return [o for o in store.read("overrides").to_pylist() if o["run_id"] in run_ids]


def write_report(
    store: Store,
    batch: str,
    out: Path,
    *,
    split: str = "tune",
    suite: str | None = None,
    prices: dict[str, float] | None = None,
    share: bool = False,
) -> dict[str, Path]:
    """Write the three files for a batch; returns file name -> path."""
    if split not in SPLITS:
        raise QueryError(f"--split must be one of {', '.join(SPLITS)}, got {split!r}")
    rows, unjudged = gather(store, batch, split, suite)
    if split == "holdout":
        record_holdout_view(store, "report", {"batch": batch})
    files = device_report.build(
        batch, rows,
        overrides=overrides_of(store, {r["run_id"] for r in rows}),
        holdout_views=holdout_views(store),
        split=split, prices=prices, share=share, unjudged=unjudged,
    )
    out.mkdir(parents=True, exist_ok=True)
    written = {}
    for name, text in files.items():
        (out / name).write_text(text, encoding="utf-8")
        written[name] = out / name
    return written


def register(app: typer.Typer) -> None:
    @app.command()
    @handle_errors
    def report(
        batch: Annotated[str | None, typer.Option("--batch", help="The batch (evaluation run) to report on.")] = None,
        suite: Annotated[str | None, typer.Option("--suite", help="A suite: its own table, or a filter on the batch.")] = None,
        out: Annotated[Path | None, typer.Option("--out", help="Folder for the files (default: eval/BATCH).")] = None,
        split: Annotated[str, typer.Option("--split", help="Pool: tune (default) or holdout (the look is recorded).")] = "tune",
        price_in: Annotated[float | None, typer.Option("--price-in", help="Price per million input tokens.")] = None,
        price_out: Annotated[float | None, typer.Option("--price-out", help="Price per million output tokens.")] = None,
        price_cached: Annotated[float | None, typer.Option("--price-cached", help="Price per million cached tokens.")] = None,
        share: Annotated[bool, typer.Option("--share", help="Leave out answers, images, device serials, paths.")] = False,
        fmt: Annotated[str, typer.Option("--format", help="For a suite's own table: md, csv or json.")] = "md",
        store: StoreOpt = None,
    ) -> None:
        """Write a batch's report files, or print a suite's own report table."""
        s = open_store(store)
        if suite and batch is None:
            fn = suite_reporter(s, suite)
            if fn is None:
                raise NotFound(f"suite {suite!r} has no report of its own; give --batch")
            if fmt not in FORMATS:
                raise QueryError(f"--format must be one of {', '.join(FORMATS)}, got {fmt!r}")
            typer.echo(fn(s, fmt))
            return
        if batch is None:
            raise NotFound("give --batch NAME (or --suite S for a suite's own report)")
        prices = None
        if any(p is not None for p in (price_in, price_out, price_cached)):
            prices = {"in": price_in or 0.0, "out": price_out or 0.0}
            if price_cached is not None:
                prices["cached"] = price_cached
        written = write_report(s, batch, out or Path("eval") / batch, split=split, suite=suite,
                               prices=prices, share=share)
        for name, path in written.items():
            typer.echo(f"wrote {path}")
