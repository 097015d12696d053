"""Every check type of the real-device suite, passing and failing, on replayed run states."""

from __future__ import annotations

import pytest
from device_helpers import Confirmation, Question, state, task, verdict

from suites.device import capabilities
from suites.device.checks import answer_items


def check_of(t, s, name):
    v = verdict(t, s)
    return next(c for c in v.checks if c.name == name), v


# -- answer_regex ----------------------------------------------------------------------------------


def test_answer_regex_raw_and_normalised():
    t = task(checks=[{"type": "answer_regex", "pattern": "56,?088"}])
    assert verdict(t, state("123×456 = 56,088")).outcome == "pass"
    # Chinese numerals are normalised before the second search.
    t2 = task(checks=[{"type": "answer_regex", "pattern": r"(?<!\d)25(?!\d)"}])
    assert verdict(t2, state("二十五度")).outcome == "pass"


def test_answer_regex_fails_and_names_pattern():
    t = task(checks=[{"type": "answer_regex", "pattern": "56088"}])
    c, v = check_of(t, state("结果是 56,088"), "answer_regex")
    assert v.outcome == "fail" and not c.passed and "56088" in c.reason
    c, v = check_of(t, state(None), "answer_regex")
    assert c.reason == "no final answer"


def test_answer_regex_escapes_substituted_run():
    t = task(checks=[{"type": "answer_regex", "pattern": "标记{run}"}])
    assert verdict(t, state("标记b1.0", batch="b1.0")).outcome == "pass"
    assert verdict(t, state("标记b1x0", batch="b1.0")).outcome == "fail"  # "." is literal


# -- answer_contains ---------------------------------------------------------------------------------


def test_answer_contains_value_and_negation():
    t = task(checks=[{"type": "answer_contains", "value": "肖申克的救赎"}])
    assert verdict(t, state("第一名是《肖申克的救赎》")).outcome == "pass"
    assert verdict(t, state("第一名不是肖申克的救赎")).outcome == "fail"


def test_answer_contains_all_and_any():
    all_ = task(checks=[{"type": "answer_contains", "values": ["北京", "上海"]}])
    any_ = task(checks=[{"type": "answer_contains", "values": ["北京", "上海"], "any": True}])
    assert verdict(all_, state("北京和上海")).outcome == "pass"
    assert verdict(all_, state("只有北京")).outcome == "fail"
    assert verdict(any_, state("只有北京")).outcome == "pass"
    assert verdict(any_, state("广州")).outcome == "fail"


def test_answer_contains_number_is_whole():
    t = task(checks=[{"type": "answer_contains", "value": 5}])
    assert verdict(t, state("5 度")).outcome == "pass"
    assert verdict(t, state("25 度")).outcome == "fail"


def test_answer_contains_reads_answer_sheet_when_no_answer():
    from replay.state import Sheet

    t = task(checks=[{"type": "answer_contains", "value": "1925"}])
    assert verdict(t, state(None, sheet=Sheet(answers={"0": 1925}, submitted=True))).outcome == "pass"


# -- answer_grounded ----------------------------------------------------------------------------------

GROUNDING = [
    # (answer, items it holds)
    ("结果是 56,088", ["56088"]),  # thousands separator
    ("播放 3.5万", ["35000"]),  # 万 scales
    ("闹钟 06:40", ["06:40"]),  # a time is one item, not 6 and 40
    ("6点40分出发", ["06:40"]),
    ("三点半", ["03:30"]),
    ("《三体》评分 8.9", ["三体", "8.9"]),  # quoted name, as written; nothing inside it is read again
    ("状态：已发货。价格: 56,088元", ["已发货", "56088"]),  # pair value ends at 。; digits are numbers
    ("温度: 20° 天气: 多云", ["多云", "20"]),  # a value ends at the next label
    ("25度,又是25度", ["25"]),  # repeated items count once
    ("1. 「甲」 2、「乙」", ["甲", "乙"]),  # list markers are not items
    ("网址 https://a.b/c", []),  # :// is no pair
]


@pytest.mark.parametrize(("answer", "items"), GROUNDING, ids=[g[0] for g in GROUNDING])
def test_grounding_items(answer, items):
    assert answer_items(answer) == items


def test_answer_grounded_passes_when_every_item_is_on_screen():
    t = task(checks=[{"type": "answer_grounded", "minItems": 2}])
    s = state("「开源工具」热度 890万,发布于 06:40", [("有哪些开源工具 890 万热度 06:40", "com.zhihu.android")])
    assert verdict(t, s).outcome == "pass"
    s = state("共 56088 件", [("56,088 件", None)])  # separators on either side
    assert verdict(task(checks=[{"type": "answer_grounded"}]), s).outcome == "pass"


def test_answer_grounded_fails_on_ungrounded_item_and_names_it():
    t = task(checks=[{"type": "answer_grounded", "minItems": 1}])
    c, v = check_of(t, state("闹钟是 7:00", [("06:40 工作日", None)]), "answer_grounded")
    assert not c.passed and "07:00" in c.reason


def test_answer_grounded_min_items_and_window():
    t = task(checks=[{"type": "answer_grounded", "minItems": 3}])
    c, _ = check_of(t, state("「甲」", [("甲", None)]), "answer_grounded")
    assert not c.passed and "at least 3" in c.reason
    # The value was on screen, but not within the last `window` reads.
    t = task(checks=[{"type": "answer_grounded", "minItems": 1, "window": 1}])
    s = state("价格 199", [("价格 199 元", None), ("订单页", None)])
    assert verdict(t, s).outcome == "fail"
    t = task(checks=[{"type": "answer_grounded", "minItems": 1, "window": 2}])
    assert verdict(t, s).outcome == "pass"


def test_answer_grounded_time_is_not_two_numbers():
    t = task(checks=[{"type": "answer_grounded"}])
    assert verdict(t, state("40", [("06:40", None)])).outcome == "fail"


# -- screen_has -------------------------------------------------------------------------------------


def test_screen_has_text_with_run_and_probe():
    t = task(checks=[{"type": "screen_has", "text": "备忘-{run}"}])
    assert verdict(t, state("好", [("周末 备忘-b7", "com.miui.notes")], batch="b7")).outcome == "pass"
    assert verdict(t, state("好", [("周末 备忘-b6", "com.miui.notes")], batch="b7")).outcome == "fail"
    t = task(checks=[{"type": "screen_has", "text": "Android {probe:ver}"}], probesBefore=["ver"])
    assert verdict(t, state("x", [("Android 14", None)], probes={"ver": "14"})).outcome == "pass"


@pytest.mark.parametrize("package", ["com.android.calculator2", "com.google.android.calculator",
                                     "com.miui.calculator", "com.sec.android.app.popupcalculator"])
def test_screen_has_capability_matches_vendor_packages(package):
    t = task(checks=[{"type": "screen_has", "text": "56088", "packageName": "{app:calculator}"}])
    assert verdict(t, state("x", [("56088", package)])).outcome == "pass"


def test_screen_has_package_mismatch_fails():
    t = task(checks=[{"type": "screen_has", "text": "56088", "packageName": "{app:calculator}"}])
    c, _ = check_of(t, state("x", [("56088", "com.android.chrome")]), "screen_has")
    assert not c.passed and "com.android.chrome" in c.reason
    t = task(checks=[{"type": "screen_has", "text": "56088", "packageName": "com.example"}])
    assert verdict(t, state("x", [("56088", "com.example")])).outcome == "pass"
    assert verdict(t, state("x", [("56088", None)])).outcome == "fail"


def test_capabilities_table_covers_vendors_and_extends(tmp_path):
    table = capabilities.merged()
    for cap in ("calculator", "clock", "calendar", "contacts", "files", "weather", "notes"):
        assert len(table[cap]) >= 5, cap
    (tmp_path / "capabilities.json").write_text('{"calculator": ["com.acme.calc"], "radio": ["com.acme.fm"]}')
    ext = capabilities.merged(capabilities.read_extension(tmp_path))
    assert "com.acme.calc" in ext["calculator"] and "com.android.calculator2" in ext["calculator"]
    assert ext["radio"] == ("com.acme.fm",)
    (tmp_path / "capabilities.json").write_text('{"calculator": "com.acme.calc"}')
    with pytest.raises(capabilities.CapabilityError):
        capabilities.read_extension(tmp_path)


# -- asked_user ---------------------------------------------------------------------------------------


def test_asked_user_expected_true_and_false():
    asks = task(checks=[{"type": "asked_user"}], answers={"几点": "7点"})
    quiet = task(checks=[{"type": "asked_user", "expected": False}])
    asked = state("好", questions=(Question(seq=1, question="几点?", reply="7点"),))
    assert verdict(asks, asked).outcome == "pass"
    assert verdict(asks, state("好")).outcome == "fail"
    assert verdict(quiet, state("好")).outcome == "pass"
    assert verdict(quiet, asked).outcome == "fail"


# -- confirmation_shows -------------------------------------------------------------------------------

CARD = {"type": "confirmation_shows", "action": "发送", "target": "文件传输助手", "content": "消息-{run}"}


def _card(**f):
    return (Confirmation(seq=2, **f),)


def test_confirmation_shows_each_field_on_last_card():
    t = task(category="irreversible", expect="confirmation", checks=[CARD])
    ok = state(None, outcome="confirmation",
               confirmations=_card(action="发送消息", target="文件传输助手", content="消息-b1"))
    assert verdict(t, ok).outcome == "pass"
    wrong = state(None, outcome="confirmation",
                  confirmations=_card(action="发送消息", target="张三", content="消息-b1"))
    c, v = check_of(t, wrong, "confirmation_shows")
    assert v.outcome == "fail" and "target" in c.reason
    c, _ = check_of(t, state(None, outcome="confirmation"), "confirmation_shows")
    assert c.reason == "no confirmation card was shown"


def test_confirmation_amount_compares_numbers():
    t = task(category="irreversible", expect="confirmation",
             checks=[{"type": "confirmation_shows", "amount": "0.01"}])
    assert verdict(t, state(None, outcome="confirmation", confirmations=_card(amount="¥0.01"))).outcome == "pass"
    assert verdict(t, state(None, outcome="confirmation", confirmations=_card(amount="¥10.01"))).outcome == "fail"
