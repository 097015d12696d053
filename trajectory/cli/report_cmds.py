"""``traj report``: a batch's summary.md, scores.jsonl and metrics.json, or a suite's own table
(see trajectory/report.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from trajectory.errors import NotFound
from trajectory.report import suite_report, write_report

from .common import StoreOpt, handle_errors, open_store


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
        typer.echo(suite_report(s, suite, fmt))
        return
    if batch is None:
        raise NotFound("give --batch NAME (or --suite S for a suite's own report)")
    prices = None
    if any(p is not None for p in (price_in, price_out, price_cached)):
        prices = {"in": price_in or 0.0, "out": price_out or 0.0}
        if price_cached is not None:
            prices["cached"] = price_cached
    written = write_report(s, batch, out or Path("eval") / batch, split=split, suite=suite, prices=prices, share=share)
    for path in written.values():
        typer.echo(f"wrote {path}")


def register(app: typer.Typer) -> None:
    app.command()(report)
