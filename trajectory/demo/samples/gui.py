"""Deterministic sample runs for `traj demo`: a careful agent and a sloppy one, both modes.

Recorded through the Recorder like a harness would: the initial world state in run_started,
JSON patches for what operate tasks change, the AnswerSheet (grounded) or a final answer (text).
The careful agent writes times the way people do ("下午2点30分"), which the demo's broken copy
of AlarmTime judges exactly and fails; the bundled suite passes them. The sloppy agent makes the
mistakes the suite exists to catch: swapped fields, a flipped yes/no, the wrong alarm, a side
effect, an unsubmitted sheet.
"""

from __future__ import annotations

import datetime as _dt
import itertools
from typing import Any

from trajectory.ingest.recorder import Recorder

from suites.gui import defaults, load
from suites.gui.apps import Clock, Weather

UNIT_F = {"op": "replace", "path": "/apps/weather/settings/temp_unit", "value": "fahrenheit"}


def _alarm(time: str, label: str) -> dict[str, Any]:
    alarm = {"id": "a5", "time": time, "label": label, "enabled": True, "repeat": []}
    return {"op": "add", "path": "/apps/clock/alarms/-", "value": alarm}


# (agent, mode, task, params, what the agent did)
SCRIPT: list[tuple[str, str, str, dict[str, Any], dict[str, Any]]] = [
    ("careful", "grounded", "CheckCurrentTemp", {"city": "北京"}, {"sheet": ["20"]}),
    ("careful", "text", "CheckCurrentTemp", {"city": "上海"}, {"answer": "上海现在十八度，小雨"}),
    ("careful", "grounded", "AlarmTime", {"label": "开会"}, {"sheet": ["下午2点30分"]}),
    ("careful", "text", "AlarmTime", {"label": "起床"}, {"answer": "起床闹钟定在早上7点"}),
    ("careful", "grounded", "AlarmTime", {"label": "吃药"}, {"sheet": ["晚上10点50分"]}),
    ("careful", "grounded", "CheckHighLow", {"city": "北京"}, {"sheet": ["23", "15"]}),
    ("careful", "grounded", "RainyDays", {"city": "上海"}, {"sheet": [["今天", "4月6日", "4月9日"]]}),
    ("careful", "text", "TimerLength", {"label": "烤蛋糕"}, {"answer": "烤蛋糕计时器设的是1小时15分钟"}),
    ("careful", "grounded", "NextRingDate", {"label": "健身"}, {"sheet": ["周二"]}),
    ("careful", "text", "IsRainyTomorrow", {"city": "上海"}, {"answer": "上海明天会下雨，记得带伞"}),
    ("careful", "grounded", "SwitchTempUnit", {"unit": "fahrenheit"}, {"patch": [UNIT_F]}),
    ("careful", "grounded", "SwitchUnitAndReport", {"city": "上海"}, {"patch": [UNIT_F], "sheet": ["64"]}),
    ("careful", "grounded", "SetAlarm", {"time": "06:30", "label": "赶飞机"}, {"patch": [_alarm("06:30", "赶飞机")]}),
    ("sloppy", "grounded", "CheckHighLow", {"city": "北京"}, {"sheet": ["15", "23"]}),
    ("sloppy", "grounded", "AlarmTime", {"label": "开会"}, {"sheet": ["14:30"]}),
    ("sloppy", "grounded", "AlarmTime", {"label": "健身"}, {"sheet": ["下午6点"]}),
    ("sloppy", "text", "IsRainyTomorrow", {"city": "上海"}, {"answer": "上海明天不会下雨"}),
    ("sloppy", "grounded", "DisableAlarm", {"label": "起床"},
     {"patch": [{"op": "replace", "path": "/apps/clock/alarms/1/enabled", "value": False}]}),
    ("sloppy", "text", "SwitchTempUnit", {"unit": "fahrenheit"},
     {"patch": [UNIT_F, {"op": "replace", "path": "/apps/weather/settings/wind_unit", "value": "m/s"}]}),
    ("sloppy", "grounded", "CheckCurrentTemp", {"city": "北京"}, {"sheet": ["20"], "submit": False}),
    ("sloppy", "grounded", "AddAlarmAndCount", {"time": "06:00"}, {"patch": [_alarm("06:00", "")], "sheet": ["3"]}),
    ("sloppy", "text", "SleepDuration", {}, {"answer": "按计划每晚能睡8小时"}),
    ("sloppy", "grounded", "CompareCityTemp", {"city1": "北京", "city2": "杭州"}, {"sheet": ["北京"]}),
]


def _clock(start: _dt.datetime) -> Any:
    ticks = itertools.count()
    return lambda: start + _dt.timedelta(seconds=4 * next(ticks))


def _screen(app: str, params: dict[str, Any], world: dict[str, Any]) -> str:
    if app == "weather":
        w = Weather(world["apps"]["weather"])
        c = w.city(params.get("city") or params.get("city1") or "北京")
        cur, today = c["current"], c["forecast"][0]
        return (f"{c['name']} {cur['temp']}° {cur['condition']} 最高{today['high']}° 最低{today['low']}° "
                f"{cur['wind_dir']}{cur['wind_scale']}级 湿度{cur['humidity']}%")
    alarms = Clock(world["apps"]["clock"]).alarms
    return "闹钟 " + " ".join(f"{a['time']} {a['label']}{'' if a['enabled'] else '(关)'}" for a in alarms)


def record(store: Any, batch: str = "gui-demo") -> list[str]:
    suite = load()
    world = defaults()
    start = _dt.datetime(2026, 4, 5, 2, 0, tzinfo=_dt.timezone.utc)
    usage = {"input_tokens": 1400, "output_tokens": 45}
    run_ids = []
    for i, (agent, mode, task_id, params, did) in enumerate(SCRIPT):
        task = suite.get_task(task_id, params)
        run_id = f"gui-{agent}-{i:02d}"
        run_ids.append(run_id)
        with Recorder(
            store, run_id=run_id, suite=task.app, task=task_id, params=params, goal=task.instruction(mode),
            batch=batch, agent={"name": agent, "model": "scripted"}, mode=mode, state=world,
            route={"app": "launcher", "path": "/"}, clock=_clock(start + _dt.timedelta(minutes=5 * i)),
        ) as rec:
            rec.step("open_app", {"app": task.app}, usage=usage, timing={"model_ms": 900, "act_ms": 200})
            rec.screen(_screen(task.app, params, world), app=task.app, route={"app": task.app, "path": "/"})
            if did.get("patch"):
                rec.step("tap", {"x": 540, "y": 1200}, thought="改设置", usage=usage, timing={"model_ms": 850})
                rec.patch(did["patch"])
            if "sheet" in did:
                rec.step("open_app", {"app": "answer_sheet"}, usage=usage, timing={"model_ms": 700})
                for field, value in enumerate(did["sheet"]):
                    rec.step("type", {"field": field, "text": value}, usage=usage, timing={"model_ms": 600})
                    rec.sheet_set(field, value)
                if did.get("submit", True):
                    rec.step("tap", {"target": "提交"}, usage=usage, timing={"model_ms": 500})
                    rec.sheet_submit()
            if "answer" in did:
                rec.answer(did["answer"])
            rec.finish("succeeded")
    return run_ids
