"""``traj view``: a local, read-only web app over a store, or (``--static``) the same pages
written to a folder (see trajectory/view/)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from trajectory.errors import TrajError
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
    json_: JsonOpt = False,
) -> None:
    """See runs, time-travel them, and see why verdicts flipped, in a browser (read-only)."""
    path = store or default_store_path()
    open_store(store)  # a mistyped --store is an error, as for every command that reads one
    if share and static is None:
        raise TrajError("--share goes with --static OUT (the live app shows everything, on this machine only)")
    if static is not None:
        from trajectory.view.static_site import write_static

        line = write_static(path, static, split=split, share=share)
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

    serve(path, host, port, split, out=said)


def register(app: typer.Typer) -> None:
    command(app, view)
