"""``traj report``: a batch's summary.md, scores.jsonl and metrics.json, or a suite's own table
(see trajectory/reports/report.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from trajectory.errors import NotFound
from trajectory.reports.report import suite_report, write_report

from trajectory.cli.common import JsonOpt, StoreOpt, command, echo_json, handle_errors, open_store, progress, show_progress


@handle_errors
def report(
    batch: Annotated[str | None, typer.Option("--batch", help="The batch (evaluation run) to report on.", metavar="BATCH")] = None,
    suite: Annotated[
        str | None, typer.Option("--suite", help="A suite: its own table, or a filter on the batch.", metavar="SUITE")
    ] = None,
    out: Annotated[Path | None, typer.Option("--out", help="Folder for the files (default: eval/BATCH).", metavar="DIR")] = None,
    split: Annotated[
        str, typer.Option("--split", help="Pool: tune (default) or holdout (the look is recorded).", metavar="POOL")
    ] = "tune",
    price_in: Annotated[float | None, typer.Option("--price-in", help="Price per million input tokens.", metavar="PRICE")] = None,
    price_out: Annotated[float | None, typer.Option("--price-out", help="Price per million output tokens.", metavar="PRICE")] = None,
    price_cached: Annotated[
        float | None, typer.Option("--price-cached", help="Price per million cached tokens.", metavar="PRICE")
    ] = None,
    share: Annotated[bool, typer.Option("--share", help="Leave out answers, images, device serials, paths.")] = False,
    fmt: Annotated[str, typer.Option("--format", help="For a suite's own table: md, csv or json.", metavar="FORMAT")] = "md",
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Write a batch's report files, or print a suite's own report table."""
    s = open_store(store)
    if suite and batch is None:
        text = suite_report(s, suite, fmt)
        if json_:
            echo_json({"suite": suite, "format": fmt, "report": text})
        else:
            typer.echo(text)
        return
    if batch is None:
        raise NotFound("give --batch NAME (or --suite S for a suite's own report)")
    prices = None
    if any(p is not None for p in (price_in, price_out, price_cached)):
        prices = {"in": price_in or 0.0, "out": price_out or 0.0}
        if price_cached is not None:
            prices["cached"] = price_cached
    with progress(f"report {batch}", enabled=show_progress(json_), unit="runs") as update:
        written = write_report(s, batch, out or Path("eval") / batch, split=split, suite=suite, prices=prices,
                               share=share, progress=update)
    if json_:
        echo_json({"batch": batch, "files": {name: str(path) for name, path in written.items()}})
        return
    for path in written.values():
        typer.echo(f"wrote {path}")


def register(app: typer.Typer) -> None:
    command(app, report)
