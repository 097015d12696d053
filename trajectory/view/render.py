"""Templates and links: one Jinja environment for the live app and the static folder; only
the links differ (``/runs/X?at=4`` live, ``run-X.html#at=4`` in a folder a person unzips)."""

from __future__ import annotations

import json
import urllib.parse
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from trajectory.view import charts

HERE = Path(__file__).parent
TEMPLATES = HERE / "templates"
STATIC = HERE / "static"


def _q(params: dict[str, Any]) -> str:
    kept = {k: v for k, v in params.items() if v not in (None, "")}
    return ("?" + urllib.parse.urlencode(kept)) if kept else ""


class LiveLinks:
    """Links of the running app: every page at a stable URL."""

    static = False

    def home(self) -> str:
        return "/"

    def runs(self, **params: Any) -> str:
        return "/runs" + _q(params)

    def run(self, run_id: str, at: int | None = None, tpage: int | None = None) -> str:
        return f"/runs/{urllib.parse.quote(run_id, safe='')}" + _q({"at": at, "tpage": tpage})

    def run_state(self, run_id: str) -> str:
        return f"/runs/{urllib.parse.quote(run_id, safe='')}/state"

    def image(self, run_id: str, seq: int) -> str:
        return f"/runs/{urllib.parse.quote(run_id, safe='')}/image/{seq}"

    def passes(self, **params: Any) -> str:
        return "/passes" + _q(params)

    def diff(self, a: str | None = None, b: str | None = None, page: int | None = None) -> str:
        return "/diff" + _q({"a": a, "b": b, "page": page})

    def query(self, sql: str | None = None) -> str:
        return "/query" + _q({"sql": sql})

    def download(self, sql: str, fmt: str) -> str:
        return f"/query.{fmt}" + _q({"sql": sql})

    def asset(self, name: str) -> str:
        return f"/static/{name}"

    def api(self, path: str) -> str:
        return "/api" + path


def run_file(run_id: str) -> str:
    """A run's page in a static folder (':' is legal in run ids, not in every file system; '~' is
    not legal in run ids, so the mapping is one to one)."""
    return f"run-{run_id.replace(':', '~')}.html"


class StaticLinks:
    """Links inside a static folder: one file per page, flat, relative."""

    static = True

    def __init__(self, images: dict[tuple[str, int], str] | None = None, queries: dict[str, int] | None = None):
        self.images = images if images is not None else {}
        self.queries = queries if queries is not None else {}

    def home(self) -> str:
        return "index.html"

    def runs(self, page: int | None = None, **_: Any) -> str:
        return "runs.html" if not page or page == 1 else f"runs-{page}.html"

    def run(self, run_id: str, at: int | None = None, tpage: int | None = None) -> str:
        name = urllib.parse.quote(run_file(run_id))
        if tpage is not None and at is None:
            return name + f"#tpage={tpage}"
        return name + (f"#at={at}" if at is not None else "")

    def run_state(self, run_id: str) -> str:
        return ""

    def image(self, run_id: str, seq: int) -> str:
        return self.images.get((run_id, seq), "")

    def passes(self, page: int | None = None, **_: Any) -> str:
        return "passes.html" if not page or page == 1 else f"passes-{page}.html"

    def diff(self, a: str | None = None, b: str | None = None, page: int | None = None) -> str:
        return "diff.html" if not page or page == 1 else f"diff-{page}.html"

    def query(self, sql: str | None = None) -> str:
        if sql and sql in self.queries:
            return f"query-{self.queries[sql]}.html"
        return "query.html"

    def download(self, sql: str, fmt: str) -> str:
        return f"query-{self.queries.get(sql, 0)}.{fmt}"

    def asset(self, name: str) -> str:
        return f"static/{name}"

    def api(self, path: str) -> str:
        return ""


def _show(value: Any, limit: int = 0) -> str:
    """A value as a person reads it: text as it is, anything else as compact JSON."""
    if value is None:
        return "—"
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if not limit or len(text) <= limit else text[: limit - 1] + "…"


def _num(value: Any, digits: int = 0) -> str:
    if value is None:
        return "—"
    if isinstance(value, (int, float)):
        return f"{value:,.{digits}f}"
    return str(value)


def _pct(value: Any) -> str:
    from trajectory.query.rates import percent

    return percent(value)


def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        autoescape=jinja2.select_autoescape(["html"]),
        undefined=jinja2.ChainableUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["show"] = _show
    env.filters["num"] = _num
    env.filters["pct"] = _pct
    env.filters["tojson_text"] = lambda v: json.dumps(v, ensure_ascii=False, indent=1, default=str)
    env.globals["rate_bar"] = charts.rate_bar
    env.globals["series_chart"] = charts.pass_series
    env.globals["Markup"] = Markup
    return env


ENV = environment()


def render(template: str, links: LiveLinks | StaticLinks, **context: Any) -> str:
    return ENV.get_template(template).render(links=links, here=template, **context)
