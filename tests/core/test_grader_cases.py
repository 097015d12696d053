"""The twelve classes of issue 10 at the matcher level: named positive and negative cases.

Each verdict below is what a careful human grader signs; the suites' own cases (text mode,
Path A, Path B, device checks) are in tests/core/test_suite_fidelity.py.
"""

from __future__ import annotations

import re

import pytest

from judges.matchers import (
    has_close_number,
    match_date,
    match_duration,
    match_field,
    match_time,
    match_value,
    parse_number,
)
from judges.subjects import Subject, about

SUNDAY = {"time": {"timestamp": 1775354400000}, "timezone": "Asia/Shanghai"}  # 2026-04-05 10:00


def V(expected, answer):
    return match_value(expected, answer)


def T(expected, answer):
    return match_time(expected, answer)


def D(expected, answer):
    return match_duration(expected, answer)


def DT(expected, answer):
    return match_date(expected, answer, SUNDAY)


def F(matcher):
    def judge(expected, answer):
        return match_field(matcher, expected, answer, SUNDAY)

    judge.__name__ = f"field_{matcher}"
    return judge


def rows(cls, *items):
    return [pytest.param(fn, e, a, want, id=f"{cls}-{name}") for name, fn, e, a, want in items]


CLASS_1_NUMBERS_INSIDE_WORDS = rows(
    "c1",
    ("a_week_is_no_wind_scale", V, 1, "北风，风力2级，未来一周风力变化不大", False),
    ("a_week_en_passant", V, 1, "未来一周都是北风", False),
    ("sanya", V, 3, "三亚今天28度", False),
    ("sichuan", V, 4, "四川成都今天18度", False),
    ("yiyang", V, 1, "两个城市温度一样", False),
    ("xingqiyi", V, 1, "星期一有雨", False),
    ("zhouyi", V, 1, "周一有雨", False),
    ("wanyi", V, 1, "万一下雨记得带伞", False),
    ("yixia", V, 1, "我查一下，北京现在20度", False),
    ("shifen", V, 10, "十分热，35度", False),
    ("santi", V, 3, "《三体》评分8.9", False),
    ("erweima", V, 2, "扫二维码查看", False),
    ("qixi", V, 7, "七夕那天有雨", False),
    ("samsung", V, 3, "三星手机卖2999元", False),
    ("oneplus", V, 1, "一加手机卖2999元", False),
    ("wutaishan", V, 5, "五台山现在-3度", False),
    ("yiqi", V, 1, "两个一起算", False),
    ("chuyi", V, 1, "初一有雨", False),
    ("english_one", V, 1, "no one knows", False),
    ("place_but_number_too", V, 5, "五台山现在5度", True),
    ("a_real_count", V, 3, "有三个闹钟开着", True),
    ("one_alarm", V, 1, "只有一个闹钟", True),
    ("ordinal", V, 1, "排第一名", True),
    ("wind_scale_numeral", V, 2, "风力二级", True),
    ("two_weeks_is_two", V, 2, "还要两周", True),
)

CLASS_2_SIGNS = rows(
    "c2",
    ("fu_is_not_plus", V, 5, "北京现在负5度", False),
    ("fu", V, -5, "北京现在负5度", True),
    ("fu_numeral", V, -5, "北京现在负五度", True),
    ("lingxia", V, -5, "零下五度", True),
    ("lingxia_is_not_plus", V, 5, "零下5度", False),
    ("minus_sign", V, -5, "\u22125°C", True),
    ("en_dash", V, -5, "\u20135°C", True),
    ("en_dash_is_not_plus", V, 5, "\u20135°C", False),
    ("hyphen", V, -5, "气温-5度", True),
    ("dash_date_is_no_sign", V, -16, "03-16", False),
    ("range_end_is_no_sign", V, -5, "3-5个", False),
    ("field_fu", F("number"), -5, "负5", True),
    ("field_lingxia", F("number"), -5, "零下5", True),
    ("field_minus_sign", F("number"), -5, "\u22125", True),
    ("field_en_dash", F("number"), -5, "\u20135", True),
    ("field_fu_is_not_plus", F("number"), 5, "负5", False),
    ("field_plus", F("number"), 5, "5", True),
    ("en_minus", V, -1, "The temperature is minus 1 degree", True),
    ("en_minus_is_not_plus", V, 1, "The temperature is minus 1 degree", False),
    ("en_minus_words", V, -5, "It's minus five degrees in Beijing", True),
    ("en_negative", V, -3, "negative 3 degrees", True),
    ("en_below_zero", V, -5, "5 below zero", True),
    ("en_below_zero_is_not_plus", V, 5, "5 below zero", False),
    ("en_degrees_below_zero", V, -5, "five degrees below zero", True),
    ("en_minus_arithmetic", V, -3, "10 minus 3 is 7", False),
    ("en_minus_arithmetic_result", V, 7, "10 minus 3 is 7", True),
)

CLASS_3_NEGATION_SCOPE = rows(
    "c3",
    ("copula_title", V, "肖申克的救赎", "第一名不是《肖申克的救赎》，是《霸王别姬》", False),
    ("copula_title_other", V, "霸王别姬", "第一名不是《肖申克的救赎》，是《霸王别姬》", True),
    ("number_corrected", V, 20, "不是20度，是22度", False),
    ("number_correction", V, 22, "不是20度，是22度", True),
    ("er_shi", V, "多云", "不是多云而是晴", False),
    ("er_shi_other", V, "晴", "不是多云而是晴", True),
    ("modal", V, "下雨", "明天不会下雨", False),
    ("modal_value", V, "不会下雨", "明天不会下雨", True),
    ("modal_other_day", V, "会下雨", "明天不会下雨", False),
    ("mei_you", V, "通过", "没有通过核验", False),
    ("wei", V, "完成", "任务尚未完成", False),
    ("in_value", V, "未通过", "审核未通过", True),
    ("passive", V, "通过", "申请被驳回，没能通过", False),
    ("potential", V, "买到", "买不到", False),
    ("wufa", V, "连接", "无法连接", False),
    ("bie", V, "下单", "别下单", False),
    ("english_not", V, "sunny", "It isn't sunny today", False),
    ("belief_is_no_claim", V, "肖申克的救赎", "第一名是《霸王别姬》，不过很多人以为是《肖申克的救赎》", False),
    ("belief_then_fact", V, "肖申克的救赎", "很多人以为第一名是《霸王别姬》，其实是《肖申克的救赎》", True),
    ("belief_number", V, 20, "原以为20度，其实是22度", False),
    ("keyi_wei_is_no_belief", V, 20, "我可以为你查：北京20度", True),
    ("pattern_denied", V, re.compile(r"8\.93\s*%"), "不是8.93%，我算出来是9.8%", False),
    ("pattern_asserted", V, re.compile(r"8\.93\s*%"), "不是9.8%，我算出来是8.93%", True),
    ("english_but", V, "cloudy", "It's not sunny but cloudy", True),
    ("english_wont", V, "rain", "It won't rain tomorrow", False),
    ("english_cant_number", V, 20, "It can't be 20 degrees", False),
    ("english_never", V, "passed", "It never passed", False),
    ("retraction", V, 20, "20度，不对，是22度", False),
    ("retraction_kept", V, 22, "20度，不对，是22度", True),
    ("question", V, 20, "是20度吗？", False),
    ("other_clause", V, "通过", "没有问题，通过了", True),
    ("praise_is_no_negation", V, "多云", "今天天气不错，多云", True),
    ("future_is_no_negation", V, 20, "未来三天最高20度", True),
    ("state_word", V, 3, "你有3条未读消息", True),
    ("modifier", V, 3, "不下雨的日子有3天", True),
    ("time_corrected", T, "07:40", "不是7:40，是6:40", False),
    ("time_correction", T, "06:40", "不是7:40，是6:40", True),
    ("date_denied", DT, "2026-04-06", "不是4月6日", False),
    # scope: a negator after a value denies it only as an identity or a correction
    ("predicate_after", V, "多云", "今天多云不下雨", True),
    ("not_cold", V, "小雨", "上海今天小雨不冷", True),
    ("not_counted_cold", V, 20, "20度不算冷", True),
    ("degree", V, "小雨", "小雨不是很大", True),
    ("copula_after", V, "肖申克的救赎", "肖申克的救赎不是第一名", False),
    ("correction_after", V, 20, "20度不对，是22度", False),
    ("potential_complement", V, "去", "我去不了", False),
    ("english_not_after", V, "cloudy", "it is cloudy and not sunny", True),
    ("english_not_before", V, "sunny", "it is cloudy and not sunny", False),
    ("english_copula_after", V, "Beijing", "Beijing is not the hotter one", False),
)

CLASS_4_WHOLE_VALUES = rows(
    "c4",
    ("version_head", V, "12", "MIUI 12.5", False),
    ("version_whole", V, "12.5", "MIUI 12.5", True),
    ("version_number", V, 12, "MIUI 12.5", False),
    ("android", V, "14", "Android 14", True),
    ("android_trailing_zero", V, "14", "安卓版本14.0", True),
    ("android_other", V, "13", "Android 13.5", False),
    ("inside_bigger", V, "25", "一共125元", False),
    ("standalone", V, "25", "一共25元", True),
    ("inside_bigger_int", V, 25, "一共125元", False),
    ("compass", V, "南风", "东南风3级", False),
    ("compass_own", V, "南风", "南风3级", True),
    ("compass_northwest", V, "北风", "西北风1级", False),
    ("heavier_rain", V, "暴雨", "大暴雨", False),
    ("thunder_shower", V, "阵雨", "雷阵雨", False),
    ("model_suffix", V, "iPhone 15", "iPhone 15 Pro 售价7999元", False),
    ("model_plain", V, "iPhone 15", "iPhone 15 售价5999元", True),
    ("year", V, "1925", "故宫博物院成立于1925年", True),
    ("year_longer", V, "1925", "19255年", False),
    ("percent", V, "8.9%", "广东占全国的18.9%", False),
    ("train", V, "G1", "G10次", False),
    ("city_suffix", V, "北京", "北京市", True),
    ("condition_change", V, "多云", "多云转晴", True),
    ("thousands", V, "56088", "结果是56,088", True),
)

CLASS_7_TIMES = rows(
    "c7",
    ("ling_minutes", T, "06:05", "六点零五", True),
    ("ling_minutes_fen", T, "06:05", "早上六点零五分", True),
    ("ling_is_not_decimal", T, "06:30", "六点零五", False),
    ("late_night", T, "23:00", "深夜11点", True),
    ("late_night_not_morning", T, "11:00", "深夜11点", False),
    ("midnight_twelve", T, "00:00", "半夜12点", True),
    ("small_hours", T, "02:00", "半夜两点", True),
    ("noon_word", T, "12:00", "正午", True),
    ("midnight_word", T, "00:00", "午夜", True),
    ("cha_before", T, "07:55", "差五分八点", True),
    ("cha_after", T, "07:55", "八点差五分", True),
    ("cha_quarter", T, "08:45", "差一刻九点", True),
    ("traditional", T, "14:30", "下午兩點半", True),
    ("traditional_dian", T, "06:40", "早上六點四十", True),
    ("quarter_past", T, "08:15", "quarter past eight", True),
    ("half_past", T, "07:30", "half past seven", True),
    ("ten_to", T, "08:50", "ten to nine", True),
    ("quarter_to", T, "08:45", "quarter to nine", True),
    ("oclock_evening", T, "19:00", "seven o'clock in the evening", True),
    ("words_pm", T, "19:30", "seven thirty pm", True),
    ("noon_en", T, "12:00", "noon", True),
    ("midnight_en", T, "00:00", "midnight", True),
    ("pm_is_not_morning", T, "06:40", "6:40 PM", False),
    ("morning_is_not_pm", T, "18:40", "早上6点40分", False),
    ("across_midnight", T, "23:58", "00:02", True),
    ("across_midnight_back", T, "00:02", "23:58", True),
    ("range_end_is_stated", T, "22:00", "营业时间10:00-22:00", True),
    ("about_within_tolerance", T, "06:40", "6点43分左右", True),
    ("jinwan", T, "20:00", "今晚8点", True),
    ("jinwan_not_morning", T, "08:00", "今晚8点", False),
    ("mingzao", T, "06:00", "明早6点", True),
    ("mingzao_not_evening", T, "18:00", "明早6点", False),
    ("jinzao", T, "07:00", "今早7点", True),
    ("mingwan_numerals", T, "20:30", "明晚八点半", True),
    ("zuowan", T, "20:00", "昨晚8点", True),
    ("jinwan_24h", T, "22:50", "吃药闹钟是今晚22:50", True),
    ("tonight_at", T, "20:00", "tonight at 8", True),
    ("tonight_at_not_morning", T, "08:00", "tonight at 8", False),
    ("tonight_count_is_no_time", V, 3, "Tonight 3 alarms are on", True),
    ("at_tonight", T, "20:00", "at 8 tonight", True),
    ("tomorrow_morning_at", T, "06:40", "tomorrow morning at 6:40", True),
    ("this_evening", T, "19:30", "this evening 7:30", True),
    ("period_after_clock", T, "18:40", "6:40 下午", True),
    ("period_after_clock_not_morning", T, "06:40", "6:40 下午", False),
    ("period_after_not_stolen", T, "20:00", "7:00 晚上8:00", True),
    ("span_between", T, "07:00", "早上7点到8点之间", False),
    ("span_between_end", T, "08:00", "早上7点到8点之间", False),
    ("span_estimate", T, "07:00", "大概7点到8点吧", False),
    ("span_english", T, "08:00", "between 7 and 8 am", False),
    ("closing_span_is_stated", T, "22:00", "营业到22:00", True),
)

CLASS_8_ONE_VALUE = rows(
    "c8",
    ("time_or", F("time"), "06:40", "6:40或7:40", False),
    ("time_or_second", F("time"), "07:40", "6:40或7:40", False),
    ("time_huozhe", F("time"), "06:40", "6点40或者7点40", False),
    ("time_slash", F("time"), "06:40", "6:40/7:40", False),
    ("time_range", F("time"), "06:40", "6:40-7:40", False),
    ("time_one", F("time"), "06:40", "早上6:40", True),
    ("duration_or", F("duration"), "1小时", "1小时或1小时15分", False),
    ("duration_or_second", F("duration"), "75分钟", "1小时或1小时15分", False),
    ("duration_one", F("duration"), "75分钟", "1小时15分", True),
    ("number_or", F("number"), 5, "5或6", False),
    ("date_or", F("date"), "2026-04-06", "4月6日或4月7日", False),
    ("text_time_or", T, "06:40", "6:40或7:40", False),
    ("text_duration_or", D, "75分钟", "1小时或1小时15分", False),
    ("text_number_or", V, 5, "5个或6个", False),
    ("text_date_or", DT, "2026-04-06", "4月6日或4月7日", False),
    ("text_maybe_either", T, "06:40", "可能是6:40，也可能是7:40", False),
)

CLASS_12_OTHER_FORMS = rows(
    "c12",
    ("wan", V, 12000, "粉丝1.2万", True),
    ("wan_numeral", V, 12000, "粉丝一万二", True),
    ("wan_qian", V, 12000, "粉丝1万2千", True),
    ("yi", V, 250000000, "2.5亿", True),
    ("k", V, 1200, "1.2k", True),
    ("million_m", V, 2500000, "2.5M views", True),
    ("million_m_is_not_small", V, 2.5, "2.5M views", False),
    ("size_m_before_chinese", V, 5, "5M流量", True),
    ("size_m_is_no_million", V, 5000000, "5M流量", False),
    ("peaked_at", V, 18, "It peaked at 18 degrees", True),
    ("never_reached_then_peaked", V, 18, "It never reached 20 degrees; it peaked at 18", True),
    ("never_reached_denied", V, 20, "It never reached 20 degrees; it peaked at 18", False),
    ("at_most_is_a_bound", V, 18, "at most 18 degrees", False),
    ("up_to_is_a_bound", V, 18, "up to 18 degrees", False),
    ("duration_an_hour_and_a_quarter", D, 75, "an hour and a quarter", True),
    ("duration_hours_and_a_quarter", D, 135, "2 hours and a quarter", True),
    ("duration_two_and_a_quarter", D, 135, "two and a quarter hours", True),
    ("duration_quarter_is_not_half", D, 90, "an hour and a quarter", False),
    ("this_weekday_is_coming", DT, "2026-04-11", "this Saturday", True),
    ("this_weekday_not_past", DT, "2026-04-04", "this Saturday", False),
    ("this_monday", DT, "2026-04-06", "this Monday", True),
    ("zhe_zhou_keeps_the_week", DT, "2026-04-04", "这周六", True),
    ("exact_case", F("exact"), "Sunny", "sunny", True),
    ("exact_case_two_words", F("exact"), "New York", "new york", True),
    ("exact_inner_space", F("exact"), "小雨", "小 雨", True),
    ("exact_full_width_space", F("exact"), "小雨", "小\u3000雨。", True),
    ("exact_other_word", F("exact"), "小雨", "中雨", False),
    ("exact_other_word_cased", F("exact"), "Sunny", "cloudy", False),
    ("field_wan", F("number"), 12000, "1.2万", True),
    ("approx_numerals", V, 56, "五六个", False),
    ("approx_numerals_low", V, 5, "五六个", False),
    ("approx_numerals_high", V, 6, "五六个", False),
    ("approx_teens", V, 12, "十二三岁", False),
    ("more_than", V, 20, "二十多度", False),
    # Issue 22 item 13: an approximation word beside one value states it (the GUI benchmark's
    # own tests pass "大约二小时" for 2小时); only bounds and alternatives do not.
    ("around", V, 20, "20度左右", True),
    ("yue", V, 20, "约20度", True),
    ("dagai", V, 20, "大概20度", True),
    ("about", V, 20, "about 20 degrees", True),
    ("exact", V, 20, "20度", True),
    ("float_expected", V, 20.5, "20.5度", True),
    ("float_expected_numeral", V, 20.5, "二十点五度", True),
    ("float_whole_expected", V, 20.0, "二十度", True),
    ("float_field", F("number"), 20.5, "20.50", True),
    ("duration_english", D, "90分钟", "1 hour 30 minutes", True),
    ("duration_hour_and_half", D, "90分钟", "an hour and a half", True),
    ("duration_one_and_half", D, "90分钟", "one and a half hours", True),
    ("duration_decimal_hours", D, "90分钟", "1.5 hours", True),
    ("duration_mins", D, "90分钟", "90 mins", True),
    ("duration_numerals", D, "90分钟", "一小时三十分钟", True),
    ("duration_ling", D, "65分钟", "一小时零五分", True),
    ("duration_float_expected", D, 90.0, "1.5小时", True),
    ("duration_words", D, 120, "two hours", True),
    ("duration_forty_five", D, 45, "forty-five minutes", True),
    ("duration_three_quarters", D, 45, "three quarters of an hour", True),
    ("duration_an_hour", D, 60, "an hour", True),
    ("duration_approx", D, 60, "大约1小时", True),
    ("duration_bound", D, 60, "不到1小时", False),
    ("duration_more", D, 60, "1个多小时", False),
    ("duration_more_than", D, 60, "1个多小时", False),
    ("date_tomorrow", DT, "2026-04-06", "tomorrow", True),
    ("date_weekday", DT, "2026-04-06", "Monday", True),
    ("date_ordinal", DT, "2026-04-06", "April 6th", True),
    ("date_day_month", DT, "2026-04-06", "6 April", True),
    ("date_abbrev", DT, "2026-04-06", "Apr. 6", True),
    ("date_of", DT, "2026-04-06", "the 6th of April", True),
    ("date_evening_word", DT, "2026-04-06", "明晚", True),
    ("date_days_later", DT, "2026-04-07", "两天后", True),
    ("date_in_days", DT, "2026-04-07", "in 2 days", True),
    ("date_days_later_en", DT, "2026-04-07", "2 days later", True),
    ("date_next_month", DT, "2026-05-05", "下个月5号", True),
    ("date_order", DT, "2026-05-04", "4月5日", False),
    ("date_order_back", DT, "2026-04-05", "5月4日", False),
)

def C(expected, answer):
    return match_value(expected, answer, unit="°C")


def FH(expected, answer):
    return match_value(expected, answer, unit="°F")


C.__name__, FH.__name__ = "celsius", "fahrenheit"

CITIES = ("北京", "上海", "广州", "杭州", "成都")
EN = {"北京": "Beijing", "上海": "Shanghai", "广州": "Guangzhou", "杭州": "Hangzhou", "成都": "Chengdu"}
ALARMS = ("起床", "开会", "健身", "吃药")


def about_city(asked, judge=match_value):
    """A judge of what the answer says of one city (judges.subjects.about), then `judge`."""
    subject = Subject((asked, EN[asked]), tuple(n for c in CITIES if c != asked for n in (c, EN[c])))

    def fn(expected, answer):
        return judge(expected, about(answer, (subject,)))

    fn.__name__ = f"about_{asked}"
    return fn


def about_alarm(asked):
    subject = Subject((asked,), tuple(a for a in ALARMS if a != asked))

    def fn(expected, answer):
        return match_time(expected, about(answer, (subject,)))

    fn.__name__ = f"alarm_{asked}"
    return fn


CLASS_5_SUBJECTS = rows(
    "c5",
    ("other_city", about_city("北京"), 20, "杭州现在20度", False),
    ("other_city_first", about_city("杭州"), 20, "北京20度，杭州18度", False),
    ("own_city_second", about_city("杭州"), 18, "北京20度，杭州18度", True),
    ("own_city_first", about_city("北京"), 20, "北京20度，杭州18度", True),
    ("no_comma", about_city("杭州"), 20, "北京20度杭州18度", False),
    ("phrase_other_city", about_city("北京"), "多云", "上海今天多云", False),
    ("phrase_own_city", about_city("上海"), "多云", "上海今天多云", True),
    ("no_city_named", about_city("北京"), 20, "现在20度", True),
    ("joined_cities", about_city("杭州"), 20, "北京和杭州都是20度", True),
    ("compared_with", about_city("北京"), 20, "北京现在20度，比杭州暖和", True),
    ("compared_object_is_no_subject", about_city("北京"), 22, "北京比杭州热，现在22度", True),
    ("compared_object_own_value", about_city("杭州"), 22, "北京比杭州热，现在22度", False),
    ("later_clause_continues", about_city("北京"), 20, "北京今天多云，气温20度", True),
    ("likeness_object", about_city("杭州"), 20, "杭州的温度和北京一样，都是20度", True),
    ("likeness_subject", about_city("北京"), 20, "杭州的温度和北京一样，都是20度", True),
    ("likeness_joined", about_city("杭州"), 20, "北京和杭州一样，都是20度", True),
    ("likeness_not_the_value", about_city("杭州"), 20, "杭州18度，北京和上海一样都是20度", False),
    ("beijing_time_is_a_clock", about_city("成都", match_time), "06:40", "成都日出时间是北京时间6:40", True),
    ("english_other_city", about_city("北京"), 20, "Shanghai is 20 degrees", False),
    ("english_own_city", about_city("北京"), 20, "Beijing is 20 degrees, Shanghai 18", True),
    ("english_word_inside", about_city("北京"), 20, "Beijing: 20 degrees; Shanghaiese food is sweet", True),
    ("alarm_other_label", about_alarm("开会"), "22:50", "吃药闹钟22:50", False),
    ("alarm_own_label", about_alarm("吃药"), "22:50", "开会闹钟14:30，吃药闹钟22:50", True),
    ("alarm_other_of_two", about_alarm("开会"), "22:50", "开会闹钟14:30，吃药闹钟22:50", False),
)

UNITS = rows(
    "units",
    ("fahrenheit_word", C, 20, "北京现在20华氏度", False),
    ("fahrenheit_sign", C, 28, "广州现在28°F", False),
    ("fahrenheit_symbol", C, 28, "广州现在28\u2109", False),
    ("fahrenheit_before", C, 68, "华氏68度", False),
    ("fahrenheit_english", C, 68, "68 degrees Fahrenheit", False),
    ("celsius_word", C, 28, "广州现在28摄氏度", True),
    ("celsius_symbol", C, 20, "北京现在20\u2103", True),
    ("neutral_degree", C, 20, "北京现在20度", True),
    ("bare_number", C, 20, "北京现在20", True),
    ("asked_fahrenheit", FH, 64, "上海现在64华氏度", True),
    ("asked_fahrenheit_given_celsius", FH, 64, "上海现在64摄氏度", False),
    ("no_unit_asked", V, 20, "北京现在20华氏度", True),
)

ALL = (
    UNITS + CLASS_5_SUBJECTS + CLASS_1_NUMBERS_INSIDE_WORDS + CLASS_2_SIGNS + CLASS_3_NEGATION_SCOPE + CLASS_4_WHOLE_VALUES
    + CLASS_7_TIMES + CLASS_8_ONE_VALUE + CLASS_12_OTHER_FORMS
)


@pytest.mark.parametrize("fn,expected,answer,want", ALL)
def test_matcher_class_case(fn, expected, answer, want):
    assert fn(expected, answer) is want, (fn.__name__, expected, answer)


def test_every_class_table_has_positive_and_negative_cases():
    for table in (CLASS_1_NUMBERS_INSIDE_WORDS, CLASS_2_SIGNS, CLASS_3_NEGATION_SCOPE, CLASS_4_WHOLE_VALUES,
                  CLASS_7_TIMES, CLASS_8_ONE_VALUE, CLASS_12_OTHER_FORMS, UNITS, CLASS_5_SUBJECTS):
        wants = {p.values[3] for p in table}
        assert wants == {True, False}


def test_number_field_reads_numerals_and_scales_but_no_units():
    assert parse_number("负五") == -5
    assert parse_number("1.2万") == 12000
    assert parse_number("五六") is None
    assert parse_number("25°C") is None


def test_measured_values_allow_an_approximation_but_not_alternatives():
    assert has_close_number("上海现在约64华氏度", 64.4, tol=0.5)
    assert not has_close_number("上海现在64或65华氏度", 64.4, tol=0.5)
    assert not has_close_number("上海现在64到66华氏度", 64.4, tol=0.5)
