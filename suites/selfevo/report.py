"""The suite's own report: the per-task x per-layer table, rendered from verdict rows.

The shell runs the query (``traj report --suite selfevo``, trajectory/reports/report.py) and gives the
suite's current verdict rows; this module only reads their ``details`` and renders. One row per
first attempt (the verdict of a pair lives there): task, domain, profile, the four layer scores
and the overall, ``n/a`` where a layer has no score. Formats: ``md`` (default), ``csv``,
``json`` (a list of objects with exactly the keys of :data:`COLUMNS`, numbers or null) and
``table`` (aligned text for a terminal).
"""

from __future__ import annotations

import csv
import io
import json
import unicodedata
from collections.abc import Sequence
from typing import Any

COLUMNS = ("task", "domain", "profile", "L1", "L2", "L3", "L4", "overall")
SCORES = ("L1", "L2", "L3", "L4", "overall")
FORMATS = ("md", "csv", "json", "table")


def report_rows(verdicts: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows of the table from verdict rows (``run_id``, ``details``), by profile then task."""
    rows = []
    for v in verdicts:
        if not v.get("details"):
            continue
        details = json.loads(v["details"])
        if details.get("round") != 1 or "layers" not in details:
            continue  # second attempts are reported on their first attempt
        layer = details["layers"]
        rows.append(
            {
                "task": details.get("task"),
                "domain": details.get("domain"),
                "profile": details.get("profile"),
                **{k: layer.get(k, {}).get("score") for k in ("L1", "L2", "L3", "L4")},
                "overall": details.get("overall"),
                "_run": v["run_id"],
            }
        )
    rows.sort(key=lambda r: (r["profile"] or "", r["task"] or "", r["_run"]))
    return [{k: r[k] for k in COLUMNS} for r in rows]


def _cell(key: str, value: Any) -> str:
    if key in SCORES:
        return "n/a" if value is None else f"{value:.3f}"
    return "" if value is None else str(value)


def _width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def render(rows: list[dict[str, Any]], fmt: str = "md") -> str:
    if fmt == "json":
        return json.dumps(rows, ensure_ascii=False)
    cells = [[_cell(k, r[k]) for k in COLUMNS] for r in rows]
    if fmt == "md":
        lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "|".join("---" for _ in COLUMNS) + "|"]
        lines += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in cells]
        return "\n".join(lines)
    if fmt == "csv":
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(COLUMNS)
        writer.writerows(cells)
        return buf.getvalue().rstrip("\n")
    if fmt == "table":
        widths = [max([_width(k)] + [_width(c[i]) for c in cells]) for i, k in enumerate(COLUMNS)]
        pad = lambda t, w: t + " " * max(0, w - _width(t))  # noqa: E731
        lines = ["  ".join(pad(k, w) for k, w in zip(COLUMNS, widths)).rstrip()]
        lines.append("  ".join("-" * w for w in widths))
        lines += ["  ".join(pad(c, w) for c, w in zip(row, widths)).rstrip() for row in cells]
        lines.append(f"({len(rows)} row{'s' if len(rows) != 1 else ''})")
        return "\n".join(lines)
    raise ValueError(f"unknown report format {fmt!r} ({', '.join(FORMATS)})")
