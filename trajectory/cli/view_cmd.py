"""``traj view``: a local, read-only web app over a store, or (``--static``) the same pages
written to a folder."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Annotated

import typer

from trajectory.view.data import TrajError, default_store_path

from .common import StoreOpt, handle_errors


class PortError(TrajError, OSError):
    """The address to serve on cannot be bound."""


def _check_bind(host: str, port: int) -> None:
    """Fail with one line when the port is taken, before the server starts talking."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        raise PortError(f"cannot serve on {host}:{port}: {exc}") from None
    family, kind, proto, _, addr = infos[0]
    with socket.socket(family, kind, proto) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(addr)
        except OSError as exc:
            raise PortError(f"cannot serve on {host}:{port}: {exc.strerror or exc}; pick another with --port") from None


def serve(store: str, host: str, port: int, split: str) -> None:
    """Serve the app until interrupted."""
    import uvicorn

    from trajectory.view.app import create_app
    from trajectory.view.data import StoreData

    data = StoreData(store, split)
    _check_bind(host, port)
    # The run index first (a second on 100,000 runs): then every page reads it, not the events.
    data.build_index()
    if split == "holdout":
        # The session is a look at the holdout pool; each query in it is recorded too.
        data.record_look("view", {"host": host, "port": port})
    shown = f"[{host}]" if ":" in host else host
    typer.echo(f"traj view: store {data.path} ({split} pool) at http://{shown}:{port}/  (Ctrl-C to stop)")
    try:
        uvicorn.run(create_app(data), host=host, port=port, log_level="warning", access_log=False)
    finally:
        data.close()


def register(app: typer.Typer) -> None:
    @app.command()
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

            summary = write_static(path, static, split=split, share=share)
            typer.echo(summary)
            return
        serve(path, host, port, split)
