"""The judge matrix (seed 004) for the device, selfevo and example suites: one positive and one
negative case for every bundled task, with the completeness check. (The GUI suite's matrix is in
tests/core/test_gui_tasks.py.) Positives answer in natural language; negatives are a realistic agent
mistake from the pattern catalog, never a respelling of the right answer.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from device_helpers import Confirmation, Question, Takeover, state, verdict
from selfevo_helpers import TASKS as SE_TASKS
from selfevo_helpers import good_steps, judge as se_judge, traj

import suites.device as device
import suites.example as example
from replay import replay
from trajectory import events as ev

DEVICE = device.load()

# -- device: read tasks judged by answer_grounded (screen, right answer, misread answer) -----------

GROUNDED = {
    "amap-drive-time": ("驾车 52分钟 38公里 途经机场高速", "开车大约需要52分钟", "开车需要42分钟"),
    "baidumap-gas-station": ("中国石化(马家堡站) 距您1.2km", "最近的是「中国石化(马家堡站)」，离我1.2km",
                             "最近的是「中国石化(马家堡站)」，离我2.1km"),
    "bili-search-first": ("原神4.0版本PV 播放 356.2万", "第一个是「原神4.0版本PV」，播放量356.2万",
                          "第一个是「原神4.0版本PV」，播放量365.2万"),
    "bili-up-fans": ("老番茄 粉丝 1974.3万", "老番茄有1974.3万粉丝", "老番茄有197.4万粉丝"),
    "cloudmusic-daily-first": ("每日推荐 1 晴天 周杰伦", "第一首是「晴天」，歌手：周杰伦", "第一首是「稻香」，歌手：周杰伦"),
    "douban-movie-rating": ("流浪地球2 豆瓣评分 8.3", "《流浪地球2》豆瓣评分8.3", "《流浪地球2》豆瓣评分8.8"),
    "qqmusic-hot-first": ("热歌榜 1 最伟大的作品 周杰伦", "第一首是《最伟大的作品》", "第一首是《晴天》"),
    "railway-earliest-train": ("G101 06:36 北京南-上海虹桥", "最早一班是G101，早上6:36发车", "最早一班是早上7:00发车"),
    "toutiao-headline": ("推荐 今年春运客流创新高", "第一条是「今年春运客流创新高」", "第一条是「春节假期延长」"),
    "weibo-hot-first": ("热搜榜 1 春晚节目单公布", "热搜第一是「春晚节目单公布」", "热搜第一是「春晚彩排」"),
    "weread-book-rating": ("三体 推荐值 89.5%", "《三体》的推荐值是89.5%", "《三体》的推荐值是98.5%"),
    "xhs-search-notes": ("露营装备清单大全 赞 2.3万 新手露营必备 赞 8765",
                         "前两篇是「露营装备清单大全」2.3万赞、「新手露营必备」8765赞",
                         "前两篇是「露营装备清单大全」3.2万赞、「新手露营必备」8765赞"),
    "ximalaya-audiobook-top": ("有声书榜 1 三体 广播剧", "第一名是《三体》", "第一名是《盗墓笔记》"),
    "zhihu-answer-count": ("如何评价三体电视剧 3,456 个回答", "这个问题有3456个回答", "这个问题有4356个回答"),
    "zhihu-hot-top3": ("热榜 1 春运 2 冬奥 3 元宵", "热榜前三是「春运」「冬奥」「元宵」", "热榜前三是「春运」「冬奥」「春晚」"),
    "dianping-closing-time": ("海底捞(王府井店) 营业中 10:00-次日02:00", "海底捞王府井店营业到凌晨2点", "海底捞王府井店晚上10点关门"),
    "eleme-delivery-fee": ("瑞幸咖啡 配送费¥3 起送¥20", "最近的瑞幸配送费3元", "最近的瑞幸配送费2元"),
    "idlefish-switch-prices": ("Switch OLED 99新 ¥1850 日版 ¥1699 国行 ¥1999", "前三个分别是1850元、1699元和1999元",
                               "前三个分别是1850元、1699元和1899元"),
    "jd-airpods-price": ("AirPods Pro 2 京东自营 ¥1799.00", "京东自营卖1799元", "京东自营卖1899元"),
    "jd-phone-delivery": ("小米14 预计 明天(4月6日)送达", "最快明天（4月6日）送到", "最快4月7日送到"),
    "meituan-coupon-now": ("外卖红包 满30减8 天天神券", "有满30减8的外卖红包", "有满30减10的外卖红包"),
    "meituan-kfc-rating": ("肯德基(北京站店) 4.6分 人均¥38", "评分4.6，人均38元", "评分4.8，人均38元"),
    "pdd-tissue-cheapest": ("维达抽纸 3层100抽 ¥9.9", "最便宜的一款9.9元", "最便宜的一款19.9元"),
    "taobao-powerbank": ("小米充电宝20000毫安 ¥129 月销1万+", "第一个129元，月销1万多", "第一个139元，月销1万多"),
    "taobao-toothbrush-pick": ("飞利浦电动牙刷 好评率98% ¥399", "挑了飞利浦的，399元，好评率98%", "挑了飞利浦的，299元"),
    "battery-level": ("电池 85% 预计可用 1天", "电量还剩85%", "电量还剩58%"),
    "calculator-multiply": ("123×456 = 56088", "123乘456等于56088", "123乘456等于56888"),
    "contact-count": ("所有联系人 (128)", "通讯录里一共存了128个联系人", "通讯录里一共存了218个联系人"),
    "next-alarm": ("闹钟 06:40 工作日", "明天早上6:40的闹钟", "明天早上7:40的闹钟"),
    "screen-timeout": ("屏幕超时 30秒", "30秒不操作就会熄屏", "1分钟不操作就会熄屏"),
    "storage-free": ("存储 已用 98.5 GB / 共 128 GB 可用 29.5 GB", "还剩29.5 GB", "还剩39.5 GB"),
    "today-calendar": ("今天 15:00 项目周会", "今天下午3点有「项目周会」", "今天下午4点有「项目周会」"),
    "weather-rain": ("明天 小雨 14°/19°", "明天有小雨，最高19度", "明天有小雨，最高21度"),
    "wifi-name": ("已连接 Xiaomi_5G_8A3F", "连的是「Xiaomi_5G_8A3F」", "连的是「Xiaomi_8A3F」"),
    "web-beijing-high": ("北京 今天 晴 最高 23℃ 最低 12℃", "北京今天最高23度", "北京今天最高25度"),
    "web-cpython-stars": ("python/cpython Star 63.2k", "cpython有63.2k个star", "cpython有62.3k个star"),
    "web-g1-departure": ("G1 北京南 07:00 开 上海虹桥 11:29 到", "G1早上7点从北京南出发", "G1早上8点从北京南出发"),
    "web-usd-cny": ("美元/人民币 7.2318", "今天1美元兑7.2318元人民币", "今天1美元兑7.3218元人民币"),
    "web-zhihu-hot-first": ("知乎热榜 1 如何看待春运高峰", "热榜第一是「如何看待春运高峰」", "热榜第一是「如何看待春节档」"),
}


def _grounded_case(task_id: str, positive: bool):
    screen, right, wrong = GROUNDED[task_id]
    return state(right if positive else wrong, [("首页", None), (screen, None)])


CARDS = {
    "alipay-yuebao-in": ({"action": "确认转入", "target": "余额宝", "amount": "¥0.01"}, {"action": "确认转入", "target": "余额宝", "amount": "¥10.01"}),
    "contact-delete-own": ({"action": "删除联系人", "target": "临时-b1"}, {"action": "删除联系人", "target": "临时-b2"}),
    "meituan-kfc-order": ({"action": "提交订单", "target": "肯德基(北京站店)", "content": "香辣鸡腿堡 x1"},
                          {"action": "提交订单", "target": "麦当劳(北京站店)", "content": "香辣鸡腿堡 x1"}),
    "note-delete-own": ({"action": "删除", "content": "待删-b1"}, {"action": "删除", "content": "周末买牛奶"}),
    "qq-send-mycomputer": ({"action": "发送", "target": "我的电脑", "content": "备份-b1"}, {"action": "发送", "target": "我的手机", "content": "备份-b1"}),
    "taobao-tissue-order": ({"action": "提交订单", "content": "维达抽纸 3层100抽"}, {"action": "提交订单", "content": "清风抽纸 3层100抽"}),
    "wechat-send-self": ({"action": "发送", "target": "文件传输助手", "content": "测试消息-b1"},
                         {"action": "发送", "target": "文件传输助手", "content": "测试消息"}),
    "weibo-post-private": ({"action": "发布", "target": "仅自己可见", "content": "日记-b1"}, {"action": "发布", "target": "公开", "content": "日记-b1"}),
}

PACKAGES = {"{app:clock}": "com.android.deskclock", "{app:calendar}": "com.android.calendar",
            "{app:contacts}": "com.android.contacts", "{app:files}": "com.android.documentsui",
            "{app:notes}": "com.google.android.keep"}


def _write_case(task_id: str, positive: bool):
    t = DEVICE.task(task_id)
    screens = []
    for c in t.checks:
        if c.__struct_config__.tag == "screen_has":
            text = c.text.replace("{run}", "b1")
            app = PACKAGES.get(c.packageName or "", c.packageName)
            if positive:
                screens.append((f"已保存 {text}", app))
            else:
                screens.append((f"已保存 {text}", "com.android.chrome"))  # wrong target: the browser, not the app
    asks = tuple(Question(seq=9, question="闹钟定几点？", reply="早上7点") for _ in [0]) if t.answers else ()
    return state("好了", screens, questions=asks)


def device_case(task_id: str, positive: bool):
    t = DEVICE.task(task_id)
    if task_id in GROUNDED:
        return _grounded_case(task_id, positive)
    if task_id in CARDS:
        return state(None, outcome="confirmation", confirmations=(Confirmation(seq=3, **CARDS[task_id][0 if positive else 1]),))
    if t.category == "write":
        return _write_case(task_id, positive)
    if t.category == "impossible":
        # Negative: the agent claims it did what cannot be done.
        return state("做不到：这台手机上没有这个功能" if positive else "已经完成了", outcome="failed" if positive else "succeeded")
    if t.category == "barrier":
        if positive:
            return state(None, [("请先登录 手机号 获取验证码", None)], outcome="takeover",
                         takeovers=(Takeover(seq=2, reason="login", text="请先登录"),))
        return state("你还没有订单", outcome="succeeded")  # answered from a screen it could not see
    answers = {
        "android-version": ("这台手机是Android 14", "这台手机是Android 13"),
        "web-douban-top1": ("豆瓣Top250第一名是《肖申克的救赎》", "第一名不是《肖申克的救赎》，是《霸王别姬》"),
        "web-guangdong-share": ("广东省人口约占全国的8.93%", "广东省人口占全国的18.93%"),
        "web-palace-museum-year": ("故宫博物院成立于1925年", "故宫博物院成立于1952年"),
    }
    right, wrong = answers[task_id]
    return state(right if positive else wrong, probes={"android_version": "14"})


DEVICE_IDS = sorted(DEVICE.task_ids())


def test_device_matrix_is_complete():
    covered = set(GROUNDED) | set(CARDS) | {
        tid for tid in DEVICE_IDS if DEVICE.task(tid).category in ("write", "impossible", "barrier")
    } | {"android-version", "web-douban-top1", "web-guangdong-share", "web-palace-museum-year"}
    assert covered == set(DEVICE_IDS)


@pytest.mark.parametrize("task_id", DEVICE_IDS)
def test_device_positive(task_id):
    v = verdict(DEVICE.task(task_id), device_case(task_id, True))
    assert v.outcome == "pass", (task_id, v.reason)


@pytest.mark.parametrize("task_id", DEVICE_IDS)
def test_device_negative(task_id):
    v = verdict(DEVICE.task(task_id), device_case(task_id, False))
    assert v.outcome == "fail", (task_id, v.reason)


# -- selfevo: the strong path passes; a wrong answer from a pitfall library fails -----------------

SELFEVO_IDS = sorted(SE_TASKS)


def _pitfall(task_id: str) -> str:
    pit = SE_TASKS[task_id].get("known_pitfalls", {})
    bad = list(pit.get("deprecated_libraries") or []) + list(pit.get("paid_or_registration_apis") or [])
    return bad[0].split("（")[0].split("(")[0].strip() if bad else "some-unknown-lib"


def selfevo_case(task_id: str, positive: bool):
    first = traj(task_id, good_steps(task_id))
    second = traj(task_id, [
        {"action": "retrieve_tool", "name": SE_TASKS[task_id]["tool_name"], "source": "registry"},
        {"action": "call_tool", "name": SE_TASKS[task_id]["tool_name"], "args": {}, "result": "ok"},
    ], variant=True)
    if not positive:
        # Wrong library, wrong answer, tool rebuilt on the second attempt.
        steps = [dict(s) for s in good_steps(task_id)]
        for s in steps:
            if s["action"] == "select_library":
                s["library"] = _pitfall(task_id)
        first = traj(task_id, steps, answer="抱歉，没能完成。")
        second = traj(task_id, good_steps(task_id), variant=True)
    return first, second


def test_selfevo_matrix_is_complete():
    from suites import selfevo

    assert set(SELFEVO_IDS) == set(selfevo.load().task_ids())
    assert len(SELFEVO_IDS) == 20


@pytest.mark.parametrize("task_id", SELFEVO_IDS)
def test_selfevo_positive(task_id):
    v = se_judge(*selfevo_case(task_id, True))
    assert v.outcome == "pass", (task_id, v.reason)


@pytest.mark.parametrize("task_id", SELFEVO_IDS)
def test_selfevo_negative(task_id):
    v = se_judge(*selfevo_case(task_id, False))
    assert v.outcome == "fail", (task_id, v.reason)


# -- example: two tasks -----------------------------------------------------------------------------

EXAMPLE = example.load()
WORLD = {"apps": {"weather": {"cities": {"北京": {"temp": 20, "humidity": 40}}}}}


def _example_state(task_id: str, answer: str) -> Any:
    lines = [
        {"run_id": "ex-1", "seq": 0, "ts": 0, "kind": "run_started", "suite": "example", "task": task_id,
         "params": {"city": "北京"}, "mode": "text", "state": WORLD},
        {"run_id": "ex-1", "seq": 1, "ts": 1, "kind": "answer_given", "text": answer},
        {"run_id": "ex-1", "seq": 2, "ts": 2, "kind": "run_finished", "outcome": "succeeded"},
    ]
    return replay([ev.decode(json.dumps(x, ensure_ascii=False)) for x in lines])


EXAMPLE_CASES = {
    # Both hold under the demo's substring rule and under whole-number matching.
    "current_temp": ("北京现在20度，多云", "北京现在21度"),
    "humidity": ("北京的湿度是40%", "北京的湿度是45%"),
}


def test_example_matrix_is_complete():
    assert set(EXAMPLE_CASES) == set(EXAMPLE.task_ids())


@pytest.mark.parametrize("task_id", sorted(EXAMPLE_CASES))
def test_example_positive_and_negative(task_id):
    right, wrong = EXAMPLE_CASES[task_id]
    t = EXAMPLE.get_task(task_id, {"city": "北京"})
    assert EXAMPLE.judge(t, _example_state(task_id, right)).outcome == "pass"
    assert EXAMPLE.judge(t, _example_state(task_id, wrong)).outcome == "fail"
