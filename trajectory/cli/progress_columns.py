"""Columns of traj's progress bars (rich), imported only when a bar is shown."""

from __future__ import annotations

from typing import Any

from rich.progress import ProgressColumn
from rich.text import Text


def _size(n: float) -> str:
    for unit in ("B", "kB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n:.1f} GB"


class RateColumn(ProgressColumn):
    """Items (or bytes) per second."""

    def __init__(self, unit: str):
        super().__init__()
        self.unit = unit

    def render(self, task: Any) -> Text:
        speed = task.finished_speed or task.speed
        if speed is None:
            return Text("")
        if self.unit == "bytes":
            return Text(f"{_size(speed)}/s")
        return Text(f"{speed:,.0f} {self.unit}/s")


class SizeColumn(ProgressColumn):
    """Bytes done of the total."""

    def render(self, task: Any) -> Text:
        total = f"/{_size(task.total)}" if task.total is not None else ""
        return Text(f"{_size(task.completed)}{total}")
