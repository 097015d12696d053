"""Charts as inline SVG, drawn on the server: no script, they print and they survive ``--static``."""

from __future__ import annotations

from html import escape
from typing import Any

from markupsafe import Markup


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def rate_bar(rate: float | None, width: int = 120) -> Markup:
    """A pass-rate bar for a table cell (the rate of trajectory/rates.py; the figure is written
    beside it). No rate (no pass and no fail) draws an empty bar."""
    rate = rate or 0.0
    w = round(rate * width, 1)
    return Markup(
        f'<svg class="bar" width="{width}" height="10" viewBox="0 0 {width} 10" role="img" '
        f'aria-label="pass rate {_pct(rate)}"><rect width="{width}" height="10" class="bar-bg"/>'
        f'<rect width="{w}" height="10" class="bar-fg"/></svg>'
    )


def pass_series(points: list[dict[str, Any]], judge_hint: str = "traj judge", width: int = 640,
                height: int = 180) -> Markup:
    """Pass rate of each pass (pass / (pass + fail) of its verdicts in this pool, as
    trajectory/rates.py defines it; a pass with neither has no point), oldest first.

    Passes are spaced evenly (several passes a minute apart and one a week later are equally
    readable); each point names its pass and time in a tooltip.
    """
    if not points:
        return Markup('<p class="muted">No judging pass yet: run <code>{}</code>.</p>').format(judge_hint)
    points = [p for p in points if p.get("pass_rate") is not None][-200:]
    if not points:
        return Markup('<p class="muted">No pass has a pass or fail verdict in this pool yet.</p>')
    left, right, top, bottom = 44, 12, 12, 28
    iw, ih = width - left - right, height - top - bottom
    n = len(points)

    def x(i: int) -> float:
        return left + (iw / 2 if n == 1 else iw * i / (n - 1))

    def y(rate: float) -> float:
        return top + ih * (1 - rate)

    parts = [f'<svg class="chart" width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" '
             f'aria-label="pass rate per pass over time">']
    for tick in (0, 0.25, 0.5, 0.75, 1):
        ty = y(tick)
        parts.append(f'<line x1="{left}" x2="{width - right}" y1="{ty:.1f}" y2="{ty:.1f}" class="grid"/>'
                     f'<text x="{left - 6}" y="{ty + 4:.1f}" text-anchor="end" class="axis">{_pct(tick)}</text>')
    coords = []
    for i, p in enumerate(points):
        rate = p["pass_rate"]
        coords.append((x(i), y(rate), rate, p))
    if n > 1:
        path = " ".join(f"{'M' if i == 0 else 'L'}{cx:.1f},{cy:.1f}" for i, (cx, cy, _, _) in enumerate(coords))
        parts.append(f'<path d="{path}" class="line"/>')
    for cx, cy, rate, p in coords:
        label = escape(f"{p['pass_id']} ({p['kind']}) {str(p['started_at'])[:19]}: {_pct(rate)} of {p['pass'] + p['fail']} pass or fail "
                       f"({p['runs']} verdicts)")
        parts.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="4" class="dot"><title>{label}</title></circle>')
    first, last = str(points[0]["started_at"])[:16], str(points[-1]["started_at"])[:16]
    parts.append(f'<text x="{left}" y="{height - 8}" class="axis">{escape(first)}</text>')
    if n > 1:
        parts.append(f'<text x="{width - right}" y="{height - 8}" text-anchor="end" class="axis">{escape(last)}</text>')
    parts.append("</svg>")
    return Markup("".join(parts))
