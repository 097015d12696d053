"""The web app: Starlette routes over the page builders. Every page has a stable URL and a JSON
twin under ``/api`` with the same content; nothing here writes to the store (a look at the
holdout pool is recorded by the data layer, as ``traj query --split holdout`` records it)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from trajectory.view import pages
from trajectory.view.guard import Guard
from trajectory.view.data import IMAGE_TYPES, Busy, NotFound, QueryError, StoreData, TrajError
from trajectory.view.render import STATIC, LiveLinks, render
from trajectory.view.values import plain

LINKS = LiveLinks()

Builder = Callable[[StoreData, Request], dict[str, Any]]


def _status(exc: TrajError) -> int:
    return 404 if isinstance(exc, NotFound) else 503 if isinstance(exc, Busy) else 400


def _error_page(request: Request, status: int, message: str, data: StoreData | None) -> Response:
    if request.url.path.startswith("/api"):
        return JSONResponse({"error": message, "status": status}, status_code=status)
    title = "Not found" if status == 404 else "Cannot show this"
    html = render("error.html", LINKS, title=title, message=message, status=status,
                  split=data.split if data else None, store=data.path if data else None)
    return HTMLResponse(html, status_code=status)


def page(template: str, build: Builder) -> tuple[Callable[[Request], Response], Callable[[Request], Response]]:
    """The HTML page and its JSON twin for one builder."""

    def html(request: Request) -> Response:
        data: StoreData = request.app.state.data
        try:
            ctx = build(data, request)
        except TrajError as exc:
            return _error_page(request, _status(exc), str(exc), data)
        api_url = "/api" + request.url.path + (f"?{request.url.query}" if request.url.query else "")
        return HTMLResponse(render(template, LINKS, **{"split": data.split, "store": data.path, "api_url": api_url,
                                                      "judge_hint": data.hint("traj judge"), **ctx}),
                            status_code=ctx.get("status", 400) if ctx.get("error") else 200)

    def api(request: Request) -> Response:
        data: StoreData = request.app.state.data
        try:
            ctx = build(data, request)
            return JSONResponse(ctx, status_code=ctx.get("status", 400) if ctx.get("error") else 200)
        except TrajError as exc:
            return _error_page(request, _status(exc), str(exc), data)

    return html, api


def _params(request: Request) -> dict[str, str]:
    return dict(request.query_params)


BUILDERS: dict[str, tuple[str, Builder]] = {
    "overview": ("overview.html", lambda d, r: pages.overview(d)),
    "runs": ("runs.html", lambda d, r: pages.runs(d, _params(r))),
    "run": ("run.html", lambda d, r: pages.run(d, r.path_params["run_id"], _params(r))),
    "passes": ("passes.html", lambda d, r: pages.passes(d, _params(r))),
    "diff": ("diff.html", lambda d, r: pages.diff(d, _params(r))),
    "query": ("query.html", lambda d, r: pages.query(d, _params(r))),
}
PATHS = {"overview": "/", "runs": "/runs", "run": "/runs/{run_id}", "passes": "/passes",
         "diff": "/diff", "query": "/query"}


def run_state(request: Request) -> Response:
    """The time-travel panel alone, for the slider (HTML fragment)."""
    data: StoreData = request.app.state.data
    try:
        ctx = pages.run_state(data, request.path_params["run_id"], _params(request))
    except TrajError as exc:
        return HTMLResponse(f'<p class="error">{_escape(str(exc))}</p>', status_code=_status(exc))
    return HTMLResponse(render("_state.html", LINKS, run_id=ctx["run_id"], tt=ctx["time_travel"]))


def image(request: Request) -> Response:
    """The screenshot the agent saw at a screen read, from the run's image folder."""
    data: StoreData = request.app.state.data
    try:
        seq = int(request.path_params["seq"])
        ref, path = data.image_file(request.path_params["run_id"], seq)
    except ValueError:
        return _error_page(request, 400, "seq must be a whole number", data)
    except TrajError as exc:
        return _error_page(request, _status(exc), str(exc), data)
    if path is None:
        why = "this screen read has no image" if ref is None else f"image {ref} is not in the store or the folder the run was imported from"
        return _error_page(request, 404, why, data)
    return FileResponse(path, media_type=IMAGE_TYPES[path.suffix.lower()])


def download(request: Request) -> Response:
    """A query's full result as CSV or JSON (every row, every character), within the limits of
    ``traj query``: a result past its row limit is refused in one line before a byte is sent,
    never cut short mid-download."""
    data: StoreData = request.app.state.data
    fmt = request.path_params["fmt"]
    sql = (request.query_params.get("sql") or "").strip()
    if not sql:
        return _error_page(request, 400, "give sql=SELECT …", data)
    try:
        table = data.query_table(sql, "traj view download")
    except TrajError as exc:
        return _error_page(request, _status(exc), str(exc), data)
    names = table.column_names
    batches = ((names, [{k: plain(v) for k, v in r.items()} for r in b.to_pylist()]) for b in table.to_batches(10_000))
    body = _csv(names, batches) if fmt == "csv" else _json_array(batches)
    media = "text/csv; charset=utf-8" if fmt == "csv" else "application/json"
    return StreamingResponse(body, media_type=media,
                             headers={"Content-Disposition": f'attachment; filename="query.{fmt}"'})


def _cell(value: Any) -> str:
    from trajectory.query.sql import csv_cell

    return csv_cell(value)


def _csv(names: list[str], batches: Iterator[tuple[list[str], list[dict[str, Any]]]]) -> Iterator[bytes]:
    from trajectory.text import csv_line

    yield (csv_line(names) + "\n").encode()
    for _, rows in batches:
        yield "".join(csv_line([_cell(r[n]) for n in names]) + "\n" for r in rows).encode()


def _json_array(batches: Iterator[tuple[list[str], list[dict[str, Any]]]]) -> Iterator[bytes]:
    yield b"["
    first = True
    for _, rows in batches:
        for r in rows:
            yield (b"" if first else b",\n") + json.dumps(r, ensure_ascii=False).encode()
            first = False
    yield b"]\n"


def health(request: Request) -> Response:
    data: StoreData = request.app.state.data
    return JSONResponse({"ok": True, "store": data.path, "split": data.split})


def _escape(text: str) -> str:
    from html import escape

    return escape(text)


async def not_found(request: Request, exc: Exception) -> Response:
    status = exc.status_code if isinstance(exc, HTTPException) else 500
    message = f"no page at {request.url.path}" if status == 404 else str(getattr(exc, "detail", exc))
    return _error_page(request, status, message, getattr(request.app.state, "data", None))


def create_app(data: StoreData, hosts: Iterable[str] | None = None) -> Starlette:
    """The app over one store and pool. ``hosts``: the Host names it answers (``traj view``
    passes its own, see guard.py); None answers any, for a test client in this process."""
    routes: list[Any] = [Route("/api/health", health)]
    for name, (template, build) in BUILDERS.items():
        html, api = page(template, build)
        path = PATHS[name]
        if name == "run":
            routes += [Route("/runs/{run_id}/state", run_state),
                       Route("/runs/{run_id}/image/{seq}", image)]
        routes += [Route(path, html), Route("/api" + path, api)]
        if name == "overview":
            routes.append(Route("/api", api))
    routes += [Route("/query.csv", _fmt(download, "csv")),
               Route("/query.json", _fmt(download, "json")),
               Mount("/static", StaticFiles(directory=str(STATIC)), name="static")]
    app = Starlette(routes=routes, exception_handlers={HTTPException: not_found},
                    middleware=[Middleware(Guard, hosts=hosts)])
    app.state.data = data
    return app


def _fmt(fn: Callable[[Request], Response], fmt: str) -> Callable[[Request], Response]:
    def endpoint(request: Request) -> Response:
        request.path_params["fmt"] = fmt
        return fn(request)

    return endpoint


__all__ = ["QueryError", "create_app"]
