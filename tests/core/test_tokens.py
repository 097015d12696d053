"""Named cases for the tokenizer (judges.tokens): what each piece of text states, and how."""

from __future__ import annotations

import pytest

from judges.numerals import fold
from judges.tokens import scan


def cases(*rows):
    return [pytest.param(*row[1:], id=row[0]) for row in rows]


def tokens(text: str, kind: str) -> list:
    return [t for t in scan(text).tokens if t.kind == kind]


# -- folding -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text,expected",
    cases(
        ("place_sanya", "三亚今天二十八度", "三亚今天28度"),
        ("place_sichuan", "四川成都", "四川成都"),
        ("book_three_body", "《三体》评分八点九", "《三体》评分8.9"),
        ("qr_code", "扫二维码", "扫二维码"),
        ("a_week", "未来一周风力不变", "未来一周风力不变"),
        ("weekday", "星期一下雨", "星期一下雨"),
        ("same", "温度一样", "温度一样"),
        ("in_case", "万一下雨", "万一下雨"),
        ("brand_samsung", "三星手机", "三星手机"),
        ("star_rating", "三星级酒店", "3星级酒店"),
        ("mountain", "五台山今天五度", "五台山今天5度"),
        ("count", "有三个闹钟", "有3个闹钟"),
        ("ordinal", "第三名", "第3名"),
        ("at_the_end", "答案是三", "答案是3"),
        ("approx_adjacent", "五六个", "5~6个"),
        ("approx_teens", "十二三岁", "12~13岁"),
        ("approx_tens", "二三十度", "20~30度"),
        ("approx_few", "三五个人", "3~5个人"),
        ("minute_with_ling", "六点零五", "6点05"),
        ("decimal_with_ling_and_unit", "一点零五元", "1.05元"),
        ("decimal", "三点五", "3.5"),
        ("clock_after_period", "下午三点五", "下午3点5"),
        ("clock_twenty", "两点二十", "2点20"),
        ("negative_word", "负五度", "-5度"),
        ("below_zero", "零下五度", "-5度"),
        ("minus_sign", "\u22125度", "-5度"),
        ("en_dash", "\u20135度", "-5度"),
        ("traditional_time", "下午兩點半", "下午2点半"),
        ("traditional_number", "三萬五", "35000"),
        ("full_width", "１４：３０", "14:30"),
        ("english_hours", "two hours", "2 hours"),
        ("english_clock", "seven thirty pm", "7:30 pm"),
        ("english_past", "half past seven", "half past 7"),
        ("no_one_is_not_one", "no one knows", "no one knows"),
        ("currency_code", "RMB25", "RMB 25"),
    ),
)
def test_fold(text, expected):
    assert fold(text) == expected
    assert fold(expected) == expected


# -- numbers -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text,values,exact",
    cases(
        ("negative_word", "北京现在负5度", [-5.0], [True]),
        ("wan_decimal", "粉丝1.2万", [12000.0], [True]),
        ("wan_trailing_digit", "3万5", [35000.0], [True]),
        ("wan_and_qian", "1万2千", [12000.0], [True]),
        ("yi", "2.5亿", [250000000.0], [True]),
        ("k", "1.2k赞", [1200.0], [True]),
        ("million", "3 million views", [3000000.0], [True]),
        ("kilometre_is_no_thousand", "5千米", [5.0], [True]),
        ("thousands", "56,088元", [56088.0], [True]),
        # An approximation word states its value (issue 22); a bound does not.
        ("approx_word", "约20度", [20.0], [True]),
        ("approx_word_apart", "大概能睡8小时", [8.0], [True]),
        ("more_than", "二十多度", [20.0], [False]),
        ("around_after", "20度左右", [20.0], [True]),
        ("english_about", "about 20 degrees", [20.0], [True]),
        ("english_nearly", "nearly 20 degrees", [20.0], [False]),
        ("bound_after_unit", "30分钟以内", [30.0], [False]),
        ("bound", "不到1小时", [1.0], [False]),
        ("adjacent_numerals", "五六个", [5.0, 6.0], [False, False]),
        ("range", "20到25度", [20.0, 25.0], [False, False]),
        ("hedge", "5个或6个", [5.0, 6.0], [False, False]),
        ("cloudy_is_not_more", "今天20度多云", [20.0], [True]),
        ("letters_before", "A380和G7010", [], []),
        ("date_holds_none", "4月5日", [], []),
        ("year_is_a_number", "1925年10月10日", [1925.0], [True]),
        ("time_holds_none", "下午3点", [], []),
        ("version_holds_none", "MIUI 12.5", [], []),
    ),
)
def test_numbers(text, values, exact):
    found = tokens(text, "number")
    assert [t.value for t in found] == values
    assert [t.exact for t in found] == exact


@pytest.mark.parametrize(
    "text,versions",
    cases(
        ("miui", "MIUI 12.5", [(12, 5)]),
        ("android", "Android 14", [(14,)]),
        ("anzhuo", "安卓版本14.0", [(14, 0)]),
        ("three_parts", "微信 8.0.49", [(8, 0, 49)]),
        ("v_prefix", "v2.3", [(2, 3)]),
        ("plain_decimal_is_no_version", "评分8.9", []),
    ),
)
def test_versions(text, versions):
    assert [t.value for t in tokens(text, "version")] == versions


# -- clauses -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text,asserted",
    cases(
        ("copula", "第一名不是《肖申克的救赎》，是《霸王别姬》", [False, True]),
        ("correction", "不是20度，是22度", [False, True]),
        ("instead", "不是A而是B", [False, True]),
        ("english_but", "It's not sunny but cloudy", [False, True]),
        ("modal", "明天不会下雨，后天会下雨", [False, True]),
        ("potential", "我去不了", [False]),
        ("potential_see", "看不到", [False]),
        ("passive", "申请被驳回", [False]),
        ("unable", "无法连接", [False]),
        ("english_contraction", "It won't rain", [False]),
        ("english_cant", "I can't see it", [False]),
        ("retraction", "20度，不对，是22度", [False, False, True]),
        ("question", "是20度吗？", [False]),
        ("a_not_a", "明天会不会下雨", [False]),
        ("praise", "今天天气不错", [True]),
        ("future", "未来三天", [True]),
        ("very", "非常热", [True]),
        ("no_doubt", "毫无疑问是20度", [True]),
        ("regardless", "无论如何", [True]),
        ("state", "你有3条未读消息", [True]),
        ("modifier", "不下雨的日子有3天", [True]),
        ("existential", "没有会下雨的迹象", [False]),
        ("bound_is_not_denial", "不到1小时", [True]),
        ("title_is_a_name", "是《霸王别姬》", [True]),
        ("number_abbreviation", "No. 1 is Shawshank", [True]),
        ("not_only", "不但下雨还刮风", [True]),
    ),
)
def test_clause_assertion(text, asserted):
    s = scan(text)
    assert [c.asserted for c in s.clauses if s.text[c.start : c.end].strip(" ,.")] == asserted


# -- times, durations, dates -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "text,readings",
    cases(
        ("bare_hour", "1点10分", ((1, 10), (13, 10))),
        ("padded", "09:58", ((9, 58),)),
        ("late_night", "深夜11点", ((23, 0),)),
        ("midnight_twelve", "半夜12点", ((0, 0),)),
        ("small_hours", "半夜两点", ((2, 0),)),
        ("noon_word", "正午", ((12, 0),)),
        ("midnight_word", "午夜", ((0, 0),)),
        ("cha_before", "差五分八点", ((7, 55), (19, 55))),
        ("cha_after", "八点差五分", ((7, 55), (19, 55))),
        ("cha_quarter", "差一刻九点", ((8, 45), (20, 45))),
        ("ling_minutes", "六点零五", ((6, 5), (18, 5))),
        ("quarter_past", "quarter past eight", ((8, 15), (20, 15))),
        ("ten_to", "ten to nine", ((8, 50), (20, 50))),
        ("oclock_evening", "seven o'clock in the evening", ((19, 0),)),
        ("dot_pm", "7.30 pm", ((19, 30),)),
        ("noon_en", "noon", ((12, 0),)),
        ("twelve_noon", "12 noon", ((12, 0),)),
    ),
)
def test_time_readings(text, readings):
    assert [t.value for t in tokens(text, "time")] == [readings]


def test_a_range_of_numbers_is_no_clock():
    assert tokens("from 9 to 5", "time") == []


@pytest.mark.parametrize(
    "text,minutes",
    cases(
        ("compound", "1小时30分", 90),
        ("ling", "一小时零五分", 65),
        ("colon", "2:15", 135),
        ("english_compact", "1h30", 90),
        ("english_words", "an hour and a half", 90),
        ("english_and_a_half", "one and a half hours", 90),
        ("english_quarter", "a quarter of an hour", 15),
        ("three_quarters", "three quarters of an hour", 45),
        ("day_and_hours", "1天2小时", 1560),
    ),
)
def test_durations(text, minutes):
    assert [t.value for t in tokens(text, "duration")] == [minutes]


def test_hedged_and_ranged_values():
    hedge = tokens("6:40或7:40", "time")
    assert [t.hedged for t in hedge] == [True, True]
    ranged = tokens("营业时间10:00-22:00", "time")
    assert [t.ranged for t in ranged] == [True, True]
    assert [t.hedged for t in tokens("1小时或1小时15分", "duration")] == [True, True]
    dates = tokens("4月5日到4月7日", "date")
    assert [t.ranged for t in dates] == [True, True]


def test_a_week_is_not_monday():
    assert tokens("未来一周一直下雨", "date") == []
    assert [t.value.group(0) for t in tokens("下周一下雨", "date")] == ["下周一"]
