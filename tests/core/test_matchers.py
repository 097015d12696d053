"""Named cases for judges.matchers: known behaviour, seed examples and regressions."""

from __future__ import annotations

import datetime as dt
import re

import pytest

from judges.matchers import (
    extract_numbers,
    has_close_number,
    match_date,
    match_duration,
    match_field,
    match_repeatable,
    match_time,
    match_value,
    normalize_text,
    parse_dates,
    parse_duration_minutes,
    parse_number,
    parse_times,
)


def state_at(iso: str, zone: str | None = None, flat: bool = False) -> dict:
    """An os_state whose simulated clock reads `iso` (local time in `zone`, default Shanghai)."""
    from zoneinfo import ZoneInfo

    local = dt.datetime.fromisoformat(iso).replace(tzinfo=ZoneInfo(zone or "Asia/Shanghai"))
    ms = int(local.timestamp() * 1000)
    state: dict = {"time": ms if flat else {"timestamp": ms}}
    if zone:
        state["timezone"] = zone
    return state


def cases(*rows):
    """parametrize rows given as (id, *values)."""
    return [pytest.param(*row[1:], id=row[0]) for row in rows]


# ---------------------------------------------------------------------------------------------
# normalize_text
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text,expected",
    cases(
        ("big_number", "三万六千六百五十", "36650"),
        ("twenty", "二十", "20"),
        ("liang", "两个城市", "2个城市"),
        ("ling_placeholder", "一百零五", "105"),
        ("ling_circle_year", "二〇二五年", "2025年"),
        ("colloquial_thousand", "一千二", "1200"),
        ("colloquial_wan", "三万五", "35000"),
        ("yi", "一亿二千万", "120000000"),
        ("decimal", "三点五", "3.5"),
        ("decimal_digits", "三点一四", "3.14"),
        ("clock_not_decimal_fen", "三点五分", "3点5分"),
        ("clock_not_decimal_positional", "三点五十", "3点50"),
        ("clock_not_decimal_after_period", "下午三点五", "下午3点5"),
        ("full_width_digits", "５６，０８８", "56,088"),
        ("full_width_colon_letters", "１４：３０ ＡＭ", "14:30 AM"),
        ("whitespace_folded", "  北京 \t 上海  ", "北京 上海"),
        # A line break stays one (issue 22: the lines of a list are its items).
        ("line_break_kept", "  北京 \t\n 上海  ", "北京\n上海"),
        ("ideographic_space", "北京\u3000上海", "北京 上海"),
        ("minus_sign", "\u22123度", "-3度"),
        ("below_zero", "零下五度", "-5度"),
        ("percent", "百分之四十", "40%"),
        ("ordinal_is_a_number", "第一名", "第1名"),
        ("yiyang_kept", "两个城市温度一样", "2个城市温度一样"),
        ("weekday_kept", "星期一和周三", "星期一和周三"),
        ("libai_kept", "礼拜天", "礼拜天"),
        ("yixia_kept", "查一下", "查一下"),
        ("wanyi_kept", "万一下雨", "万一下雨"),
        ("wanyi_inside_number", "三万一千", "31000"),
        ("yiqi_yixie_yizhi", "一起 一些 一直", "一起 一些 一直"),
        ("tongyi_weiyi", "统一 唯一", "统一 唯一"),
        ("yigong_kept", "一共三个", "一共3个"),
        ("a_little_kept", "好一点", "好一点"),
        ("one_oclock_converted", "下午一点", "下午1点"),
        ("very_kept", "十分热", "十分热"),
        ("ten_minutes", "十分钟", "10分钟"),
        ("clock_ten_past", "三点十分", "3点10分"),
        ("by_all_means_kept", "千万不要", "千万不要"),
        ("ten_million", "三千万", "30000000"),
        ("leading_unit_word_kept", "百度 千米", "百度 千米"),
        ("approximation_is_a_range", "十二三岁", "12~13岁"),
        ("not_text", None, ""),
    ),
)
def test_normalize_text(text, expected):
    assert normalize_text(text) == expected
    assert normalize_text(expected) == expected


# ---------------------------------------------------------------------------------------------
# Numbers
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text,expected",
    cases(
        ("standalone_only", "2012年有25个", [2012.0, 25.0]),
        ("thousands", "56,088", [56088.0]),
        ("thousands_full_width", "56，088", [56088.0]),
        ("list_not_thousands", "32,28", [32.0, 28.0]),
        ("trailing_zero", "278.20元", [278.2]),
        ("negative", "-3度", [-3.0]),
        ("a_date_holds_no_numbers", "2025-03-16", []),
        ("year_with_nian_is_a_number", "1925年10月10日", [1925.0]),
        ("identifier_digits_skipped", "A380和G7010", []),
        ("chinese", "二十三度", [23.0]),
        ("overflow_dropped", "9" * 400, []),
        ("none", None, []),
    ),
)
def test_extract_numbers(text, expected):
    assert extract_numbers(text) == expected


@pytest.mark.parametrize(
    "text,expected",
    cases(
        ("padded", " 25 ", 25.0),
        ("trailing_zero", "25.0", 25.0),
        ("thousands", "1,234", 1234.0),
        ("chinese", "二十五", 25.0),
        ("unit", "25°C", None),
        ("counter", "3个", None),
        ("two_numbers", "3 4", None),
        ("empty", "", None),
        ("nan_word", "nan", None),
        ("inf_word", "inf", None),
    ),
)
def test_parse_number(text, expected):
    assert parse_number(text) == expected


@pytest.mark.parametrize(
    "text,expected,tol,result",
    cases(
        ("unit_after", "全程3.5km", 3.5, 0.01, True),
        ("within_tol", "约3.51公里", 3.5, 0.01, True),
        ("outside_tol", "约3.6公里", 3.5, 0.01, False),
        ("nan_expected", "3.5", float("nan"), 0.01, False),
    ),
)
def test_has_close_number(text, expected, tol, result):
    assert has_close_number(text, expected, tol) is result


# ---------------------------------------------------------------------------------------------
# match_value
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "expected,actual,result",
    cases(
        # seed examples
        ("chinese_numeral", 20, "北京现在二十度", True),
        ("trailing_zero", 278.2, "总共278.20元", True),
        ("distractor_positive", 28, "今天32度，明天28度", True),
        ("distractor_negative", 40, "气温32度，风力3级，紫外线指数7", False),
        ("humidity_among_numbers", 40, "北京气温20度，湿度40%", True),
        ("negated_affirmation", "通过", "没有通过核验", False),
        ("negation_in_expected", "未通过", "审核未通过", True),
        ("numeral_word_kept", "一样", "两个城市温度一样", True),
        ("thousands_sep", 56088, "56,088", True),
        ("thousands_sep_full_width", 56088, "共56，088步", True),
        ("none_answer", 20, None, False),
        ("empty_answer", "多云", "", False),
        # number tokenising
        ("five_is_not_twentyfive", 5, "现在25度", False),
        ("four_is_not_four_point_five", 4, "4.5公里", False),
        ("three_is_not_minus_three", 3, "气温−3度", False),
        ("minus_three", -3, "气温零下三度", True),
        ("twelve_is_not_2012", 12, "2012年", False),
        ("off_by_one", 20, "北京现在21度", False),
        ("float_expected_int_answer", 25.0, "25度", True),
        ("answer_is_a_number", 25, 25, True),
        # strings
        ("substring", "多云", "上海今天天气多云转晴", True),
        ("synonym_is_not_enough", "多云", "今天阴天", False),
        ("case_insensitive", "sunny", "It is Sunny today", True),
        ("whitespace_fallback", "iPhone 15", "买了iPhone15", True),
        ("full_width_both_sides", "ABC", "ａｂｃ公司", True),
        ("english_not", "passed", "The check was not passed", False),
        ("english_failed_to", "pass", "it failed to pass", False),
        ("english_nt", "pass", "it didn't pass", False),
        ("one_unnegated_occurrence_counts", "通过", "初审未通过，复审通过", True),
        ("bu", "下雨", "明天不下雨", False),
        ("shangwei", "完成", "任务尚未完成", False),
        ("not_directly_preceded", "通过", "没有问题，通过了", True),
        ("empty_expected_matches_nothing", "", "anything", False),
        # patterns
        ("pattern_normalised", re.compile(r"温度\s*20"), "温度二十", True),
        ("pattern_raw", re.compile(r"二十"), "温度二十", True),
        ("pattern_miss", re.compile(r"一样|相同|差不多"), "温度接近", False),
    ),
)
def test_match_value(expected, actual, result):
    assert match_value(expected, actual) is result


@pytest.mark.parametrize("expected", [True, [1], {"a": 1}], ids=["bool", "list", "dict"])
def test_match_value_rejects_unsupported_expected_types(expected):
    with pytest.raises(TypeError):
        match_value(expected, "1")


# ---------------------------------------------------------------------------------------------
# Times
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "expected,actual,result",
    cases(
        # seed examples
        ("afternoon_chinese", "14:30", "下午2点30分", True),
        ("within_tolerance", "09:54", "9:58", True),
        ("outside_tolerance", "09:54", "10:02", False),
        ("seed_variant_1", "09:54", "上午9点54分", True),
        ("seed_variant_2", "09:54", "上午9:54", True),
        ("seed_variant_3", "13:10", "下午1点10分", True),
        ("bare_hour_either_reading_pm", "13:10", "1点10分", True),
        ("bare_hour_either_reading_am", "01:10", "1点10分", True),
        ("zero_padded_decides", "13:10", "01:10", False),
        # Issue 22 item 9: a two-digit clock-face hour reads both ways too; a leading zero decides.
        ("two_digit_hour_reads_both_ways", "22:30", "10:30", True),
        ("leading_zero_decides", "21:30", "09:30", False),
        ("period_decides", "01:10", "下午1点10分", False),
        ("noon_one", "13:00", "中午1点", True),
        ("noon_twelve", "12:00", "中午12点", True),
        ("small_hours_twelve", "00:00", "凌晨12点", True),
        ("night_twelve", "00:00", "晚上12点", True),
        ("night_eleven", "23:00", "晚上十一点", True),
        ("evening", "18:30", "傍晚六点半", True),
        ("whole_hour", "15:00", "下午三点整", True),
        ("quarter", "08:15", "早上8点一刻", True),
        ("three_quarters", "08:45", "早上八点三刻", True),
        ("numerals_with_ling", "09:05", "上午九点零五分", True),
        ("twelve_am", "00:05", "12:05 AM", True),
        ("twelve_pm", "12:05", "12:05 PM", True),
        ("dotted_pm", "15:05", "3:05 p.m.", True),
        ("hour_only_pm", "15:00", "at 3pm", True),
        ("am_without_space_before_chinese", "00:01", "12:01 AM开始", True),
        ("full_width", "14:30", "１４：３０", True),
        ("inclusive_boundary", "23:58", "00:03", True),
        ("midnight_wrap", "23:58", "00:02", True),
        ("beyond_boundary", "23:58", "00:04", False),
        ("any_time_may_match", "13:10", "出发9:00，到达13:10", True),
        ("after_full_width_colon", "00:00", "查到：00:00。", True),
        ("expected_as_time_object", dt.time(14, 30), "下午两点半", True),
        ("not_a_time", "14:30", "今天天气不错", False),
        ("duration_is_not_a_time", "01:00", "1小时", False),
        ("none_answer", "14:30", None, False),
        ("unreadable_expected", "soon", "14:30", False),
    ),
)
def test_match_time(expected, actual, result):
    assert match_time(expected, actual) is result


def test_match_time_tolerance_is_a_parameter():
    assert not match_time("09:54", "9:58", tolerance_minutes=3)
    assert match_time("09:54", "10:04", tolerance_minutes=10)


@pytest.mark.parametrize(
    "text,expected",
    cases(
        ("seconds_ignored", "12:34:56", [(12, 34), (0, 34)]),
        ("ambiguous_morning_first", "9:58", [(9, 58), (21, 58)]),
        ("twenty_four", "24:00", [(0, 0)]),
        ("minute_out_of_range", "10:75", []),
        ("latest_is_not_evening", "最晚3点", [(3, 0), (15, 0)]),
        ("two_times", "8:00 AM 到 5:30 PM", [(8, 0), (17, 30)]),
    ),
)
def test_parse_times(text, expected):
    assert parse_times(text) == expected


# ---------------------------------------------------------------------------------------------
# Durations
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "expected,actual,result",
    cases(
        # seed examples
        ("minutes_vs_compound", "1小时30分", "90分钟", True),
        ("bare_fen", "0小时59分", "59分", True),
        ("colon_form", "2小时15分", "2:15", True),
        ("seed_variant_70", "1小时10分", "70分钟", True),
        ("seed_variant_suffix", "1小时10分", "1小时10分钟", True),
        ("seed_variant_colon", "1小时10分", "1:10", True),
        ("half_hour_count", "90分钟", "一个半小时", True),
        ("decimal_hours", "90分钟", "1.5小时", True),
        ("half_hour", "30分钟", "半小时", True),
        ("quarter_hour", "15分钟", "一刻钟", True),
        ("english_compact", "90分钟", "1h30m", True),
        ("english_abbrev", "90分钟", "1 hr 30 min", True),
        ("english_hours", "120分钟", "2 hours", True),
        ("english_minutes", "1小时30分", "90 minutes", True),
        ("chinese_numerals", "135分钟", "两小时十五分钟", True),
        ("bare_integer_is_minutes", "1小时30分", "90", True),
        ("expected_as_minutes", 90, "1个半小时", True),
        ("expected_as_timedelta", dt.timedelta(minutes=90), "1:30", True),
        ("any_duration_may_match", "1小时10分", "G7010，1小时10分，上海虹桥，13:10", True),
        ("compound_minutes_not_alone", "59分钟", "1小时59分", False),
        ("seconds_are_not_minutes", "30分钟", "30秒", False),
        ("decimal_vs_compound", "1.5小时", "1小时5分", False),
        ("colon_vs_compound", "1:30", "1小时3分", False),
        ("exact_no_tolerance", "90分钟", "91分钟", False),
        ("just_under_an_hour_is_59_minutes", "59分钟", "不到1小时", True),  # seed 004, 4.3.5
        ("just_under_is_not_the_bound_itself", "1小时", "不到1小时", False),
        ("clock_minutes_are_not_duration", "30分钟", "3点30分", False),
        ("none_answer", "1小时", None, False),
    ),
)
def test_match_duration(expected, actual, result):
    assert match_duration(expected, actual) is result


@pytest.mark.parametrize(
    "text,expected",
    cases(
        ("minutes_and_seconds_not_whole", "1分30秒", []),
        ("zero_seconds_fine", "1小时0分0秒", [60]),
        ("hour_and_half", "1小时半", [90]),
        ("half_an_hour_english", "half an hour", [30]),
        ("two_durations", "步行20分钟，骑车1小时", [20, 60]),
        ("bare_number_in_sentence_is_not", "大约90", []),
    ),
)
def test_parse_duration_minutes(text, expected):
    assert parse_duration_minutes(text) == expected


# ---------------------------------------------------------------------------------------------
# Dates
# ---------------------------------------------------------------------------------------------

# 2026-04-05 is a Sunday; 2025-03-12 a Wednesday.
SUNDAY = state_at("2026-04-05T10:00")
WEDNESDAY = state_at("2025-03-12T09:00")


@pytest.mark.parametrize(
    "expected,actual,state,result",
    cases(
        # seed examples
        ("month_day", "2026-04-06", "4月6日", SUNDAY, True),
        ("tomorrow", "2026-04-06", "明天", SUNDAY, True),
        ("bare_weekday_is_next_occurrence", "2026-04-06", "周一", SUNDAY, True),
        ("hao", "2026-04-06", "4月6号", SUNDAY, True),
        ("iso", "2025-03-16", "2025-03-16", None, True),
        ("chinese_full", "2025-03-16", "2025年3月16日", None, True),
        ("chinese_numerals", "2025-03-16", "二〇二五年三月十六日", None, True),
        ("padded_numeric", "2025-03-16", "03-16", WEDNESDAY, True),
        ("slash", "2025-03-16", "3/16", WEDNESDAY, True),
        ("day_only", "2025-03-16", "16号", WEDNESDAY, True),
        ("english_month_day", "2025-03-16", "March 16", WEDNESDAY, True),
        ("english_with_year", "2025-03-16", "Mar 16, 2025", None, True),
        ("english_day_month", "2025-03-16", "16 March", WEDNESDAY, True),
        ("english_ordinal", "2025-03-16", "on March 16th", WEDNESDAY, True),
        ("english_tomorrow", "2025-03-13", "tomorrow", WEDNESDAY, True),
        ("english_today", "2025-03-12", "Today", WEDNESDAY, True),
        ("english_yesterday", "2025-03-11", "yesterday", WEDNESDAY, True),
        ("english_weekday", "2025-03-14", "on Friday", WEDNESDAY, True),
        ("english_next_weekday", "2025-03-17", "next Monday", WEDNESDAY, True),
        ("houtian", "2025-03-14", "后天", WEDNESDAY, True),
        ("dahoutian", "2025-03-15", "大后天", WEDNESDAY, True),
        ("qiantian", "2025-03-10", "前天", WEDNESDAY, True),
        ("this_week_past_day", "2025-03-10", "这周一", WEDNESDAY, True),
        ("benzhou", "2025-03-14", "本周五", WEDNESDAY, True),
        ("next_week", "2025-03-17", "下周一", WEDNESDAY, True),
        ("week_after_next", "2025-03-24", "下下周一", WEDNESDAY, True),
        ("last_week", "2025-03-07", "上周五", WEDNESDAY, True),
        ("sunday_ends_the_week", "2025-03-16", "这周日", WEDNESDAY, True),
        ("xingqitian", "2025-03-16", "星期天", WEDNESDAY, True),
        ("libai", "2025-03-14", "礼拜五", WEDNESDAY, True),
        ("bare_weekday_today_counts", "2025-03-12", "周三", WEDNESDAY, True),
        ("bare_weekday_past_means_next_week", "2025-03-17", "星期一", WEDNESDAY, True),
        ("evening_is_not_last_week", "2025-03-17", "晚上周一有雨", WEDNESDAY, True),
        ("flat_time_shape", "2025-03-13", "明天", state_at("2025-03-12T09:00", flat=True), True),
        ("any_date_may_match", "2025-03-13", "今天晴，明天有雨", WEDNESDAY, True),
        ("wrong_day", "2025-03-13", "后天", WEDNESDAY, False),
        ("relative_needs_now", "2025-03-13", "明天", None, False),
        ("date_object", dt.date(2025, 3, 13), "3月13日", WEDNESDAY, True),
        ("none_answer", "2025-03-13", None, WEDNESDAY, False),
        ("no_date", "2025-03-13", "天气不错", WEDNESDAY, False),
    ),
)
def test_match_date(expected, actual, state, result):
    assert match_date(expected, actual, state) is result


@pytest.mark.parametrize(
    "now,text,expected",
    cases(
        # Near a year end the nearest occurrence wins, whichever year that is.
        ("dec30_next_january", "2024-12-30T12:00", "1月2日", dt.date(2025, 1, 2)),
        ("jan2_last_december", "2025-01-02T12:00", "12月30日", dt.date(2024, 12, 30)),
        ("dec30_same_year", "2024-12-30T12:00", "12月25日", dt.date(2024, 12, 25)),
        ("day_only_next_month", "2024-12-30T12:00", "2号", dt.date(2025, 1, 2)),
        ("leap_day_without_year", "2024-02-20T12:00", "2月29日", dt.date(2024, 2, 29)),
        ("tomorrow_is_leap_day", "2024-02-28T12:00", "明天", dt.date(2024, 2, 29)),
        ("tomorrow_new_year", "2024-12-31T12:00", "明天", dt.date(2025, 1, 1)),
        ("next_week_across_year", "2024-12-31T12:00", "下周三", dt.date(2025, 1, 8)),
        ("tomorrow_march", "2025-02-28T12:00", "明天", dt.date(2025, 3, 1)),
    ),
)
def test_parse_dates_near_boundaries(now, text, expected):
    assert parse_dates(text, state_at(now)) == [expected]


def test_dates_use_the_simulated_zone_not_the_machine_zone():
    # 2025-03-12 23:30 in Shanghai is still 2025-03-12 10:30 in New York.
    instant = state_at("2025-03-12T23:30")
    new_york = dict(instant, timezone="America/New_York")
    assert match_date("2025-03-13", "明天", instant)
    assert match_date("2025-03-13", "明天", new_york)
    late = state_at("2025-03-13T00:30")  # already the 13th in Shanghai, the 12th in New York
    assert match_date("2025-03-14", "明天", late)
    assert match_date("2025-03-13", "明天", dict(late, timezone="America/New_York"))


@pytest.mark.parametrize(
    "state",
    [
        {"time": "soon"},
        {"time": {"timestamp": float("nan")}},
        {"time": 0, "timezone": "Mars/Base"},
        "x",
    ],
    ids=["text_time", "nan_time", "unknown_zone", "not_a_dict"],
)
def test_unreadable_os_state_means_no_now(state):
    assert not match_date("2025-03-13", "明天", state)
    assert match_date("2025-03-13", "2025年3月13日", state)
    assert parse_dates("明天", state) == []


def test_year_less_forms_without_now_use_the_expected_year():
    assert match_date("2025-03-16", "3月16日")
    assert match_date("2025-03-16", "16号")
    assert not match_date("2025-03-16", "3月17日")
    assert parse_dates("3月16日") == []


# ---------------------------------------------------------------------------------------------
# match_field and match_repeatable
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "matcher,expected,actual,result",
    cases(
        # seed examples
        ("exact_strip", "exact", "北京", " 北京 ", True),
        ("exact_other_city", "exact", "北京", "上海", False),
        ("number_counter_unit", "number", 3, "3个", False),
        ("number_trailing_zero", "number", 25, "25.0", True),
        ("number_plain", "number", 3, "3", True),
        ("number_padded", "number", 25, " 25 ", True),
        ("number_thousands", "number", 1234, "1,234", True),
        ("number_unit_rejected", "number", 25, "25°C", False),
        ("number_expected_as_text", "number", "25", "二十五", True),
        ("exact_full_width", "exact", "A1", "Ａ１", True),
        ("exact_numerals", "exact", "3号楼", "三号楼", True),
        ("exact_is_not_substring", "exact", "北京", "北京市", False),
        ("date_whole_answer", "date", "2026-04-06", "4月6日", True),
        ("date_two_forms_same_day", "date", "2026-04-06", "4月6日 周一", True),
        ("date_with_other_text", "date", "2026-04-06", "应该是4月6日吧", False),
        ("date_two_different_days", "date", "2026-04-06", "4月6日或4月7日", False),
        ("time_field", "time", "13:10", "下午1:10", True),
        ("duration_field", "duration", "1小时10分", "70分钟", True),
        ("none_actual", "exact", "北京", None, False),
    ),
)
def test_match_field(matcher, expected, actual, result):
    assert match_field(matcher, expected, actual, SUNDAY) is result


def test_match_field_unknown_matcher_is_a_programming_error():
    with pytest.raises(ValueError, match="unknown matcher 'fuzzy'"):
        match_field("fuzzy", "a", "a")
    with pytest.raises(ValueError):
        match_field("fuzzy", "a", None)


@pytest.mark.parametrize(
    "matcher,compare,expected,actual,result",
    cases(
        ("sequence_in_order", "exact", "sequence", ["北京", "上海"], ["北京", " 上海"], True),
        ("sequence_out_of_order", "exact", "sequence", ["北京", "上海"], ["上海", "北京"], False),
        ("set_out_of_order", "exact", "set", ["北京", "上海"], ["上海", "北京"], True),
        ("set_counts_duplicates", "exact", "set", ["北京", "北京"], ["北京", "上海"], False),
        ("length_differs", "exact", "set", ["北京"], ["北京", "北京"], False),
        ("empty_lists", "number", "set", [], [], True),
        ("set_numbers", "number", "set", [3, 25], ["25.0", "3"], True),
        # 09:58 fits both 09:54 and 10:00, 10:03 only 10:00: a greedy pass could pair wrongly.
        ("set_needs_matching", "time", "set", ["10:00", "09:54"], ["09:58", "10:03"], True),
        ("set_both_fit_both", "time", "set", ["10:00", "09:54"], ["09:58", "09:59"], True),
        ("set_unmatched", "time", "set", ["10:00", "09:30"], ["09:58", "09:59"], False),
        ("set_durations", "duration", "set", ["1小时", "30分钟"], ["半小时", "60分钟"], True),
        ("not_a_list", "exact", "set", ["北京"], "北京", False),
        ("none_item", "exact", "set", ["北京"], [None], False),
    ),
)
def test_match_repeatable(matcher, compare, expected, actual, result):
    assert match_repeatable(matcher, compare, expected, actual) is result


def test_match_repeatable_rejects_unknown_modes():
    with pytest.raises(ValueError, match="compare"):
        match_repeatable("exact", "bag", [], [])
    with pytest.raises(ValueError, match="matcher"):
        match_repeatable("fuzzy", "set", [], [])


@pytest.mark.parametrize(
    "answer",
    [
        "G7010，1小时10分，上海虹桥，13:10",
        "最快的车是G7010, 70分钟, 始发站上海虹桥, 下午1点10分到达",
        "G7010，70分钟，上海虹桥，下午1:10",
        "G7010，1小时10分钟，上海虹桥，13:10到",
    ],
    ids=["exact", "chinese_natural", "mixed_format", "suffix_variant"],
)
def test_multi_format_answers_for_one_train(answer):
    assert match_duration("1小时10分", answer)
    assert match_time("13:10", answer)
    assert match_value("上海虹桥", answer)
    assert not match_time("13:30", answer)
