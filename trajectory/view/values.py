"""Plain values for pages and JSON: what DuckDB and msgspec give, made JSON-able."""

from __future__ import annotations

import datetime as _dt
import decimal
from typing import Any

from trajectory.text import json_or_text  # noqa: F401 - the view's name for it


def plain(value: Any) -> Any:
    """A value DuckDB or msgspec gave, as JSON-able Python (times as ISO text)."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, decimal.Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, (_dt.datetime, _dt.date, _dt.time)):
        return value.isoformat()
    if isinstance(value, (bytes, bytearray)):
        return value.hex()
    if isinstance(value, _dt.timedelta):
        return value.total_seconds()
    return value
