"""Deterministic sample runs of the bundled real-device set: a careful agent and a sloppy one.

Each agent runs a handful of tasks as one batch (the batch is the ``{run}`` in markers), on
two phones. The runs cover every verdict the suite gives: passes, failed checks, a wrong
outcome, a takeover handed to the user, skips (harness skip and an unmet requirement), a
harness error, a missing probe, a run over its step budget and an open run. Two careful runs
answer "56,088" for 123×456: the demo's broken regex rejects them, the bundled one does not.
"""

from __future__ import annotations

import datetime as _dt
import itertools
from collections.abc import Callable
from typing import Any

from trajectory.ingest.recorder import Recorder

from suites.device import load

PIXEL = {"serial": "R5CT40XYZ1", "calculator": "com.google.android.calculator", "clock": "com.google.android.deskclock",
         "notes": "com.google.android.keep"}
XIAOMI = {"serial": "8f3a21c0", "calculator": "com.miui.calculator", "clock": "com.android.deskclock",
          "notes": "com.miui.notes"}

Script = Callable[[Recorder, dict[str, str], str], None]
USAGE = {"input_tokens": 2400, "output_tokens": 90, "cached_tokens": 1600}
TIMING = {"model_ms": 1800, "read_ms": 450, "act_ms": 600, "other_ms": 150}


def _steps(rec: Recorder, n: int) -> None:
    for i in range(n):
        rec.step("tap", {"x": 100 + i, "y": 200}, usage=USAGE, timing=TIMING)


def calc_careful(rec: Recorder, phone: dict[str, str], batch: str) -> None:
    _steps(rec, 4)
    rec.screen("123×456\n56,088", app=phone["calculator"], image="shots/calc-1.png")
    rec.answer("123×456 = 56,088")
    rec.finish("succeeded")


def calc_sloppy(rec: Recorder, phone: dict[str, str], batch: str) -> None:
    _steps(rec, 3)
    rec.screen("123×456\n56088", app=phone["calculator"])
    rec.answer("结果是56088,算了大概3秒")  # 3 was never on screen: not grounded
    rec.finish("succeeded")


def version_careful(rec: Recorder, phone: dict[str, str], batch: str) -> None:
    rec.probe("android_version", "14")
    _steps(rec, 3)
    rec.screen("关于手机\nAndroid 版本 14\n安全补丁 2026-03-01", app="com.android.settings")
    rec.answer("这台手机的安卓版本是 14")
    rec.finish("succeeded")


def version_no_probe(rec: Recorder, phone: dict[str, str], batch: str) -> None:
    _steps(rec, 3)
    rec.screen("关于手机\nAndroid 版本 14", app="com.android.settings")
    rec.answer("安卓 14")
    rec.finish("succeeded")


def storage_long(rec: Recorder, phone: dict[str, str], batch: str) -> None:
    _steps(rec, 24)  # over maxSteps 20: the verdict stands, the report shows it
    rec.screen("存储空间\n已用 98.6 GB / 共 128 GB\n可用 29.4 GB", app="com.android.settings")
    rec.answer("还剩 29.4 GB 可用")
    rec.finish("succeeded")


def battery_error(rec: Recorder, phone: dict[str, str], batch: str) -> None:
    _steps(rec, 1)
    rec.finish("error", error="adb: device offline")


def alarm_careful(rec: Recorder, phone: dict[str, str], batch: str) -> None:
    _steps(rec, 3)
    rec.screen("闹钟\n06:40 工作日\n08:30 周末 已关闭", app=phone["clock"])
    rec.answer("明天早上的闹钟是 06:40(工作日闹钟)")
    rec.finish("succeeded")


def alarm_sloppy(rec: Recorder, phone: dict[str, str], batch: str) -> None:
    _steps(rec, 2)
    rec.screen("闹钟\n06:40 工作日", app=phone["clock"])
    rec.answer("明天早上7点")
    rec.finish("succeeded")


def zhihu_careful(rec: Recorder, phone: dict[str, str], batch: str) -> None:
    _steps(rec, 5)
    rec.screen("知乎热榜\n1 如何看待今年的清明假期出行高峰 1520 万热度\n2 有哪些让你相见恨晚的开源工具 890 万热度\n"
               "3 为什么年轻人开始喜欢逛博物馆 760 万热度", app="com.zhihu.android", image="shots/zhihu.png")
    rec.answer("热榜前三:1.「如何看待今年的清明假期出行高峰」(1520万热度);2.「有哪些让你相见恨晚的开源工具」;"
               "3.「为什么年轻人开始喜欢逛博物馆」")
    rec.finish("succeeded")


def zhihu_sloppy(rec: Recorder, phone: dict[str, str], batch: str) -> None:
    _steps(rec, 2)
    rec.screen("知乎热榜\n1 如何看待今年的清明假期出行高峰", app="com.zhihu.android")
    rec.answer("热榜第一是「如何看待今年的清明假期出行高峰」")
    rec.finish("succeeded")


def note_careful(rec: Recorder, phone: dict[str, str], batch: str) -> None:
    _steps(rec, 4)
    rec.screen(f"备忘录\n周末买牛奶 备忘-{batch}", app=phone["notes"])
    rec.answer("已新建备忘录")
    rec.finish("succeeded")


def note_sloppy(rec: Recorder, phone: dict[str, str], batch: str) -> None:
    _steps(rec, 3)
    rec.screen("备忘录\n周末买牛奶", app=phone["notes"])  # left the marker out
    rec.answer("好了")
    rec.finish("succeeded")


def ask_careful(rec: Recorder, phone: dict[str, str], batch: str) -> None:
    _steps(rec, 1)
    rec.ask("闹钟要定在几点?", "早上7点")
    _steps(rec, 3)
    rec.screen(f"闹钟\n07:00 提醒-{batch}", app=phone["clock"])
    rec.answer(f"已定好早上7点的闹钟,标签是 提醒-{batch}")
    rec.finish("succeeded")


def ask_sloppy(rec: Recorder, phone: dict[str, str], batch: str) -> None:
    _steps(rec, 3)
    rec.screen(f"闹钟\n08:00 提醒-{batch}", app=phone["clock"])
    rec.answer("给你定了 8 点的闹钟")
    rec.finish("succeeded")


def wechat_careful(rec: Recorder, phone: dict[str, str], batch: str) -> None:
    _steps(rec, 4)
    rec.screen("文件传输助手", app="com.tencent.mm")
    rec.confirmation(action="发送消息", target="文件传输助手", content=f"测试消息-{batch}")
    rec.finish("confirmation")


def wechat_sloppy(rec: Recorder, phone: dict[str, str], batch: str) -> None:
    _steps(rec, 4)
    rec.screen(f"文件传输助手\n测试消息-{batch}", app="com.tencent.mm")
    rec.finish("succeeded")  # sent without showing a card


def downgrade(rec: Recorder, phone: dict[str, str], batch: str) -> None:
    _steps(rec, 2)
    rec.screen("系统更新\n已是最新版本", app="com.android.settings")
    rec.answer("做不到:系统不支持降级到安卓 4.0")
    rec.finish("failed")


def barrier_login(rec: Recorder, phone: dict[str, str], batch: str) -> None:
    _steps(rec, 2)
    rec.screen("登录后查看你的收藏\n手机号登录 | 密码登录", app="com.xingin.xhs")
    rec.takeover("login", "需要登录小红书")
    rec.finish("takeover")


def xhs_search_login(rec: Recorder, phone: dict[str, str], batch: str) -> None:
    _steps(rec, 3)
    rec.screen("登录后查看更多笔记\n获取验证码", app="com.xingin.xhs")
    rec.takeover("login", "搜索结果要登录才能看")
    rec.finish("takeover")


def skipped_by_harness(rec: Recorder, phone: dict[str, str], batch: str) -> None:
    rec.finish("failed", skip_reason="未安装 com.taobao.taobao")


def weread_not_signed_in(rec: Recorder, phone: dict[str, str], batch: str) -> None:
    rec.probe("signedIn:com.tencent.weread", "未登录")
    rec.finish("failed")


def douban_careful(rec: Recorder, phone: dict[str, str], batch: str) -> None:
    _steps(rec, 3)
    rec.screen("豆瓣电影 Top 250\n1. 肖申克的救赎 9.7", app="com.android.chrome")
    rec.answer("第一名是《肖申克的救赎》,9.7 分")
    rec.finish("succeeded")


def douban_sloppy(rec: Recorder, phone: dict[str, str], batch: str) -> None:
    _steps(rec, 2)
    rec.screen("豆瓣电影 Top 250\n1. 肖申克的救赎 9.7", app="com.android.chrome")
    rec.answer("第一名不是肖申克的救赎,是霸王别姬")
    rec.finish("succeeded")


def open_run(rec: Recorder, phone: dict[str, str], batch: str) -> None:
    _steps(rec, 2)  # the harness died: no run_finished, the run stays open and unjudged


# (agent, phone, task, script)
CAREFUL: list[tuple[dict[str, str], str, Script]] = [
    (PIXEL, "calculator-multiply", calc_careful),
    (XIAOMI, "calculator-multiply", calc_careful),
    (PIXEL, "android-version", version_careful),
    (PIXEL, "next-alarm", alarm_careful),
    (PIXEL, "zhihu-hot-top3", zhihu_careful),
    (PIXEL, "note-create", note_careful),
    (XIAOMI, "alarm-ask-time", ask_careful),
    (PIXEL, "wechat-send-self", wechat_careful),
    (PIXEL, "android-downgrade", downgrade),
    (XIAOMI, "xhs-my-favorites", barrier_login),
    (XIAOMI, "xhs-search-notes", xhs_search_login),
    (PIXEL, "weread-book-rating", weread_not_signed_in),
    (PIXEL, "web-douban-top1", douban_careful),
]
SLOPPY: list[tuple[dict[str, str], str, Script]] = [
    (PIXEL, "calculator-multiply", calc_sloppy),
    (XIAOMI, "android-version", version_no_probe),
    (PIXEL, "storage-free", storage_long),
    (PIXEL, "battery-level", battery_error),
    (XIAOMI, "next-alarm", alarm_sloppy),
    (PIXEL, "zhihu-hot-top3", zhihu_sloppy),
    (PIXEL, "note-create", note_sloppy),
    (PIXEL, "alarm-ask-time", ask_sloppy),
    (XIAOMI, "wechat-send-self", wechat_sloppy),
    (PIXEL, "taobao-powerbank", skipped_by_harness),
    (PIXEL, "web-douban-top1", douban_sloppy),
    (XIAOMI, "screen-timeout", open_run),
]
BATCHES = {"careful": ("careful-0405", CAREFUL), "sloppy": ("sloppy-0405", SLOPPY)}


def _clock(start: _dt.datetime) -> Callable[[], _dt.datetime]:
    ticks = itertools.count()
    return lambda: start + _dt.timedelta(seconds=4 * next(ticks))


def record(store: Any) -> list[str]:
    """Record every sample run through the Recorder; returns the run ids."""
    suite = load()
    start = _dt.datetime(2026, 4, 5, 1, 0, tzinfo=_dt.timezone.utc)
    run_ids = []
    n = 0
    for agent, (batch, script) in BATCHES.items():
        for i, (phone, task_id, play) in enumerate(script):
            task = suite.task(task_id)
            run_id = f"device-{agent}-{i:02d}-{task_id}"
            run_ids.append(run_id)
            with Recorder(
                store, run_id=run_id, suite="device", task=task_id, goal=task.goal, batch=batch,
                agent={"name": agent, "model": "scripted"}, device=phone["serial"], mode="text",
                split=task.partition, clock=_clock(start + _dt.timedelta(minutes=5 * n)),
            ) as rec:
                play(rec, phone, batch)
            n += 1
    return run_ids
