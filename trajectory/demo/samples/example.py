"""Deterministic sample runs for the example suite: a careful agent and a sloppy one."""

from __future__ import annotations

import datetime as _dt
import itertools
from typing import Any

from trajectory.ingest.recorder import Recorder

WORLD = {
    "apps": {
        "weather": {
            "cities": {
                "北京": {"temp": 20, "humidity": 40, "condition": "多云"},
                "上海": {"temp": 25, "humidity": 72, "condition": "小雨"},
                "广州": {"temp": 5, "humidity": 35, "condition": "晴"},
            }
        }
    },
    "os": {"time": {"timestamp": 1775354400000}, "timezone": "Asia/Shanghai"},
}

# (agent, mode, task, city, answer): the careful agent writes Chinese numerals sometimes; the
# sloppy one reads the wrong number ("25" for 广州's 5 passes a substring rule by accident) or
# hedges (三四十 offers 30 to 40, which is not the 40 on the screen, under either rule).
SCRIPT: list[tuple[str, str, str, str, str]] = [
    ("careful", "grounded", "current_temp", "北京", "20"),
    ("careful", "text", "current_temp", "北京", "北京现在二十度"),
    ("careful", "text", "humidity", "上海", "上海的湿度是72%"),
    ("careful", "grounded", "humidity", "广州", "35"),
    ("sloppy", "text", "current_temp", "广州", "广州现在25度"),
    ("sloppy", "grounded", "current_temp", "上海", "26"),
    ("sloppy", "text", "humidity", "北京", "北京湿度三四十"),
]


def _clock(start: _dt.datetime) -> Any:
    ticks = itertools.count()
    return lambda: start + _dt.timedelta(seconds=3 * next(ticks))


def record(store: Any, batch: str = "example-demo") -> list[str]:
    run_ids = []
    start = _dt.datetime(2026, 4, 5, 2, 0, tzinfo=_dt.timezone.utc)
    for i, (agent, mode, task, city, answer) in enumerate(SCRIPT):
        run_id = f"example-{agent}-{i:02d}"
        run_ids.append(run_id)
        clock = _clock(start + _dt.timedelta(minutes=10 * i))
        with Recorder(
            store, run_id=run_id, suite="example", task=task, params={"city": city},
            goal=f"{city}?", batch=batch, agent={"name": agent, "model": "scripted"},
            mode=mode, state=WORLD, route={"app": "launcher", "path": "/"}, clock=clock,
        ) as rec:
            rec.step("open_app", {"app": "weather"}, usage={"input_tokens": 900, "output_tokens": 30},
                     timing={"model_ms": 800, "act_ms": 150})
            c = WORLD["apps"]["weather"]["cities"][city]
            rec.screen(f"{city} {c['temp']}° {c['condition']} 湿度{c['humidity']}%", app="weather",
                       route={"app": "weather", "path": "/"})
            if mode == "grounded":
                rec.step("open_app", {"app": "answer_sheet"}, usage={"input_tokens": 1000, "output_tokens": 20})
                rec.sheet_set(0, answer)
                rec.sheet_submit()
            else:
                rec.answer(answer)
            rec.finish("succeeded")
    return run_ids
