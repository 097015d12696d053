"""Serving the app: check the address first, build the run index, then uvicorn until Ctrl-C."""

from __future__ import annotations

import socket
from collections.abc import Callable
from typing import Any

from trajectory.view.data import StoreData, TrajError


class PortError(TrajError, OSError):
    """The address to serve on cannot be bound."""


def check_bind(host: str, port: int) -> None:
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


def serve(store: str, host: str = "127.0.0.1", port: int = 8000, split: str = "tune",
          out: Callable[[str], Any] = print) -> None:
    """Serve the app on ``host:port`` until interrupted; ``out`` gets the line with its URL."""
    import uvicorn

    from trajectory.view.app import create_app

    data = StoreData(store, split)
    try:
        check_bind(host, port)
        # The run index first (seconds on 100,000 runs): then every page reads it, not the events.
        data.build_index()
        if split == "holdout":
            # The session is a look at the holdout pool; each query in it is recorded too.
            data.record_look("view", {"host": host, "port": port})
        shown = f"[{host}]" if ":" in host else host
        out(f"traj view: store {data.path} ({split} pool) at http://{shown}:{port}/  (Ctrl-C to stop)")
        uvicorn.run(create_app(data), host=host, port=port, log_level="warning", access_log=False)
    finally:
        data.close()
