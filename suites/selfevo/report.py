"""``traj report --suite selfevo``: the per-task x per-layer table, from the current verdicts.

One row per first attempt (the verdict of a pair lives there): task, domain, profile, the four
layer scores and the overall, ``n/a`` where a layer has no score. Formats: ``md`` (default),
``csv``, ``json`` (a list of objects with exactly the keys of :data:`COLUMNS`, numbers or null)
and ``table`` (aligned text for a terminal).
"""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from trajectory.errors import QueryError
from trajectory.query import Views, format_table

SUITE = "selfevo"
COLUMNS = ("task", "domain", "profile", "L1", "L2", "L3", "L4", "overall")
SCORES = ("L1", "L2", "L3", "L4", "overall")
FORMATS = ("md", "csv", "json", "table")


def report_rows(store: Any, split: str = "tune") -> list[dict[str, Any]]:
    """The rows of the table, ordered by profile then task."""
    with Views(store, split=split) as views:
        table = views.arrow(
            "SELECT run_id, details FROM verdicts WHERE suite = ? AND details IS NOT NULL ORDER BY run_id",
            [SUITE],
        )
    rows = []
    for run_id, raw in zip(table.column("run_id").to_pylist(), table.column("details").to_pylist()):
        details = json.loads(raw)
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
                "_run": run_id,
            }
        )
    rows.sort(key=lambda r: (r["profile"] or "", r["task"] or "", r["_run"]))
    return [{k: r[k] for k in COLUMNS} for r in rows]


def _cell(key: str, value: Any) -> str:
    if key in SCORES:
        return "n/a" if value is None else f"{value:.3f}"
    return "" if value is None else str(value)


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
        import pyarrow as pa

        return format_table(pa.table({k: [row[i] for row in cells] for i, k in enumerate(COLUMNS)}))
    raise QueryError(f"unknown report format {fmt!r} ({', '.join(FORMATS)})")


def cli_report(store: Any, fmt: str = "md") -> str:
    """What ``traj report --suite selfevo --format FMT`` prints."""
    if fmt not in FORMATS:
        raise QueryError(f"unknown report format {fmt!r} ({', '.join(FORMATS)})")
    return render(report_rows(store), fmt)
