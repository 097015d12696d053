"""What the viewer answers and how: only requests addressed to the host names it was started
for, and every answer with headers that keep other sites out.

Why a Host check: the server listens on 127.0.0.1, but a web page the person visits can point
its own name at 127.0.0.1 (DNS rebinding) and then read every page as same-origin. Such a
request still names the attacker's host in its ``Host`` header; answering only our own names
(127.0.0.1, localhost, [::1], the ``--host`` given and each ``--allow-host``) shuts that door.

Why the headers: a page of another site may still embed ours (frames, images, scripts). The
content security policy lets a page load only the viewer's own files and be framed by no one;
``nosniff`` keeps a download from being run as a script; no referrer leaves the viewer.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from typing import Any

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")

HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"content-security-policy",
     b"default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
     b"font-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-resource-policy", b"same-origin"),
    (b"cross-origin-opener-policy", b"same-origin"),
)


def host_name(header: str) -> str:
    """The name in a Host header, without its port, lower case: ``[::1]:8000`` -> ``::1``."""
    header = header.strip().lower()
    if header.startswith("["):
        end = header.find("]")
        return header[1:end] if end > 0 else header
    if header.count(":") == 1:
        header = header.split(":", 1)[0]
    return header.rstrip(".")


def allowed_hosts(host: str, extra: Iterable[str] = ()) -> frozenset[str]:
    """The names a server started on ``host`` answers to."""
    names = {*LOOPBACK_NAMES, host_name(host) if host.startswith("[") else host.lower()}
    names.update(host_name(h) if h.startswith("[") or h.count(":") == 1 else h.lower() for h in extra)
    return frozenset(n for n in names if n)


def is_loopback(host: str) -> bool:
    """Whether serving on ``host`` reaches only this machine."""
    name = host_name(host) if host.startswith("[") else host.lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


class Guard:
    """ASGI middleware: a 400 for a Host the server was not started for; the headers on every
    answer it gives (the 400 included)."""

    def __init__(self, app: Any, hosts: Iterable[str] | None):
        self.app = app
        self.hosts = None if hosts is None else frozenset(hosts)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        header = next((v.decode("latin-1") for k, v in scope.get("headers", []) if k == b"host"), None)
        if self.hosts is not None and (header is None or host_name(header) not in self.hosts):
            shown = "no Host header" if header is None else f"host {header[:100]!r}"
            body = (f"400: {shown} is not one this traj view answers (it answers {', '.join(sorted(self.hosts))}; "
                    "start it with --allow-host NAME for another name)\n").encode("utf-8", "replace")
            await send({"type": "http.response.start", "status": 400,
                        "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                                    (b"content-length", str(len(body)).encode()), *HEADERS]})
            await send({"type": "http.response.body", "body": body})
            return

        async def with_headers(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                present = {k.lower() for k, _ in message.get("headers", [])}
                message["headers"] = [*message.get("headers", []), *(h for h in HEADERS if h[0] not in present)]
            await send(message)

        await self.app(scope, receive, with_headers)
