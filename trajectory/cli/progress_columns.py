"""Columns of traj's progress bars (rich), imported only when a bar is shown."""

from __future__ import annotations

from typing import Any

from rich.progress import ProgressColumn
from rich.text import Text


class RateColumn(ProgressColumn):
    """Items per second."""

    def __init__(self, unit: str):
        super().__init__()
        self.unit = unit

    def render(self, task: Any) -> Text:
        speed = task.finished_speed or task.speed
        if speed is None:
            return Text("")
        return Text(f"{speed:,.0f} {self.unit}/s")

