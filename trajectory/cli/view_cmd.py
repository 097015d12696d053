"""``traj view``: a local, read-only web app over a store, or (``--static``) the same pages
written to a folder (see trajectory/view/)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from trajectory.errors import TrajError
from trajectory.query.limits import MAX_ROWS, MEMORY, TIMEOUT, QueryLimits, human_size
from trajectory.store.delta import default_store_path

from trajectory.cli.common import JsonOpt, StoreOpt, command, echo_json, handle_errors, open_store


@handle_errors
def view(
    store: StoreOpt = None,
    host: Annotated[str, typer.Option(help="Address to serve on (only this machine by default).", metavar="HOST")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port to serve on.", metavar="PORT")] = 8000,
    split: Annotated[str, typer.Option("--split", help="Pool to show: tune (default) or holdout (the look is recorded).", metavar="POOL")] = "tune",
    static: Annotated[Path | None, typer.Option("--static", help="Write the pages to this folder instead of serving.", metavar="OUT")] = None,
    share: Annotated[bool, typer.Option("--share", help="With --static: leave out answers, images, device serials, paths.")] = False,
    allow_host: Annotated[list[str] | None, typer.Option(
        "--allow-host", help="Also answer requests addressed to this host name (repeatable); others get a 400.",
        metavar="NAME")] = None,
    timeout: Annotated[float, typer.Option(
        help=f"Stop a query of the query page after this many seconds (at most {TIMEOUT.high:g}).",
        metavar="SECONDS")] = TIMEOUT.default,
    max_rows: Annotated[int, typer.Option(
        help=f"Refuse a query result (or download) with more rows (at most {int(MAX_ROWS.high):,}).",
        metavar="N")] = int(MAX_ROWS.default),
    max_memory: Annotated[str, typer.Option(
        help=f"Memory a query may use, e.g. 512MiB (at most {human_size(MEMORY.high)}).",
        metavar="SIZE")] = human_size(MEMORY.default).replace(" ", ""),
    json_: JsonOpt = False,
) -> None:
    """See runs, time-travel them, and see why verdicts flipped, in a browser (read-only)."""
    limits = QueryLimits.checked(timeout, max_rows, max_memory)
    path = store or default_store_path()
    # A mistyped --store is an error, as for every command that reads one; the store is read
    # as opened here, with this command's --storage-option values.
    opened = open_store(store)
    if share and static is None:
        raise TrajError("--share goes with --static OUT (the live app shows everything, on this machine only)")
    if static is not None:
        from trajectory.view.static_site import write_static

        line = write_static(opened, static, split=split, share=share)
        if json_:
            echo_json({"out": str(static), "index": str(static / "index.html"), "split": split, "share": share})
        else:
            typer.echo(line)
        return
    from trajectory.view.server import serve

    def said(line: str) -> None:
        if json_:
            shown = f"[{host}]" if ":" in host else host
            echo_json({"url": f"http://{shown}:{port}/", "store": path, "split": split})
        else:
            typer.echo(line)

    serve(opened, host, port, split, out=said, allow_hosts=allow_host or (), limits=limits,
          warn=lambda line: typer.echo(line, err=True))


def register(app: typer.Typer) -> None:
    command(app, view)
