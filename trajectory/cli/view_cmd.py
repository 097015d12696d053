"""``traj view``: a local, read-only web app over a store, or (``--static``) the same pages
written to a folder (see trajectory/view/)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from trajectory.errors import TrajError
from trajectory.store import default_store_path

from .common import StoreOpt, handle_errors


@handle_errors
def view(
    store: StoreOpt = None,
    host: Annotated[str, typer.Option(help="Address to serve on (only this machine by default).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port to serve on.")] = 8000,
    split: Annotated[str, typer.Option("--split", help="Pool to show: tune (default) or holdout (the look is recorded).")] = "tune",
    static: Annotated[Path | None, typer.Option("--static", help="Write the pages to this folder instead of serving.")] = None,
    share: Annotated[bool, typer.Option("--share", help="With --static: leave out answers, images, device serials, paths.")] = False,
) -> None:
    """See runs, time-travel them, and see why verdicts flipped, in a browser (read-only)."""
    path = store or default_store_path()
    if share and static is None:
        raise TrajError("--share goes with --static OUT (the live app shows everything, on this machine only)")
    if static is not None:
        from trajectory.view.static_site import write_static

        typer.echo(write_static(path, static, split=split, share=share))
        return
    from trajectory.view.server import serve

    serve(path, host, port, split, out=typer.echo)


def register(app: typer.Typer) -> None:
    app.command()(view)
