"""Serving the app: check the address first, build the run index, then uvicorn until Ctrl-C."""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterable
from typing import Any

from trajectory.query.limits import QueryLimits
from trajectory.store.delta import Store

from trajectory.view.data import StoreData, TrajError
from trajectory.view.guard import allowed_hosts, is_loopback


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


def beyond_loopback(host: str) -> str | None:
    """The one-line warning for an address other machines can reach, else None."""
    if is_loopback(host):
        return None
    return (f"warning: traj view on {host} can be reached from other machines, with no login: anyone who can "
            "reach it reads this store (serve on 127.0.0.1 and use an SSH tunnel instead)")


def serve(store: str | Store, host: str = "127.0.0.1", port: int = 8000, split: str = "tune",
          out: Callable[[str], Any] = print, *, allow_hosts: Iterable[str] = (),
          limits: QueryLimits | None = None, warn: Callable[[str], Any] = print) -> None:
    """Serve the app on ``host:port`` until interrupted; ``out`` gets the line with its URL,
    ``warn`` the line that says the address reaches beyond this machine."""
    import uvicorn

    from trajectory.view.app import create_app

    data = StoreData(store, split, limits=limits)
    try:
        check_bind(host, port)
        # The run index first (seconds on 100,000 runs): then every page reads it, not the events.
        data.build_index()
        if split == "holdout":
            # The session is the look at the holdout pool: once, not at every request.
            data.record_look("view", {"host": host, "port": port})
        shown = f"[{host}]" if ":" in host else host
        line = beyond_loopback(host)
        if line is not None:
            warn(line)
        out(f"traj view: store {data.path} ({split} pool) at http://{shown}:{port}/  (Ctrl-C to stop)")
        app = create_app(data, hosts=allowed_hosts(host, allow_hosts))
        uvicorn.run(app, host=host, port=port, log_level="warning", access_log=False)
    finally:
        data.close()
