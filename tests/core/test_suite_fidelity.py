"""The twelve classes of issue 10 in the bundled suites' judging: named cases per class.

GUI runs are replayed from real events (gui_helpers); device runs are RunStates built like the
device tests do. Defaults: 北京 20°C 东风3级, 杭州 20°C 北风1级, 广州 28°C, 上海 18°C; 上海 rains
04-05, 04-06 and 04-09; 北京 is dry tomorrow; enabled alarms 07:00, 14:30, 22:50 (18:45 is off).
"""

from __future__ import annotations

import pytest
from device_helpers import Confirmation, Takeover, state, task, verdict
from gui_helpers import judge

import suites.device as device
from suites.gui import tasks_clock as C
from suites.gui import tasks_weather as W


def op(o, path, value=None):
    return {"op": o, "path": path, **({} if o == "remove" else {"value": value})}


def alarm(i, time, label="", enabled=True):
    return op("add", "/apps/clock/alarms/-", {"id": i, "time": time, "label": label, "enabled": enabled, "repeat": []})


def text(answer):
    return {"mode": "text", "answer": answer}


def sheet(*values):
    return {"mode": "grounded", "sheet": list(values)}


def gui(cls, name, make, run, want):
    return pytest.param(make, run, want, id=f"{cls}-{name}")


BJ_GZ = lambda: W.CompareCityTemp(city1="北京", city2="广州")  # noqa: E731 - 广州 is hotter
BJ_HZ = lambda: W.CompareCityTemp(city1="北京", city2="杭州")  # noqa: E731 - a tie
SH_RAIN = lambda: W.IsRainyTomorrow(city="上海")  # noqa: E731 - 中雨 tomorrow
BJ_RAIN = lambda: W.IsRainyTomorrow(city="北京")  # noqa: E731 - 晴 tomorrow
SH_DAYS = lambda: W.RainyDays(city="上海")  # noqa: E731
GZ_HIGHS = lambda: W.ForecastHighs(city="广州")  # noqa: E731 - 30, 29, 27
HZ_WIND = lambda: W.CheckWind(city="杭州")  # noqa: E731 - 北风 1级

GUI_CASES = [
    # 1: numbers inside words (Path B and text)
    gui("c1", "wind_a_week", HZ_WIND, text("北风，风力2级，未来一周风力变化不大"), "fail"),
    gui("c1", "wind_scale_one", HZ_WIND, text("北风，风力1级，未来一周变化不大"), "pass"),
    gui("c1", "sanya_is_no_temperature", lambda: W.CheckCurrentTemp(city="北京"), text("三亚二十度以上，北京十八度"), "fail"),
    # 2: signs
    gui("c2", "negative_text", lambda: W.CheckCurrentTemp(city="北京"), text("北京现在负20度"), "fail"),
    gui("c2", "negative_field", lambda: W.CheckCurrentTemp(city="北京"), sheet("负20"), "fail"),
    # 3: negation scope
    gui("c3", "wind_denied", lambda: W.CheckWind(city="北京"), text("不是东风，是东南风，3级"), "fail"),
    gui("c3", "condition_corrected", lambda: W.CheckCondition(city="上海"), text("上海今天不是多云，是小雨"), "pass"),
    gui("c3", "condition_denied", lambda: W.CheckCondition(city="上海"), text("上海今天没有小雨，是多云"), "fail"),
    # 4: whole values
    gui("c4", "compass_in_text", lambda: W.CheckDetailMetric(city="广州", metric="风向"), text("广州现在刮东南风"), "fail"),
    gui("c4", "compass_path_b", HZ_WIND, sheet("东北风", "1"), "fail"),
    gui("c4", "compass_path_b_ok", HZ_WIND, sheet("北风", "1"), "pass"),
    # 5: the claim about the asked subject
    gui("c5", "hotter_wrong_claim", BJ_GZ, text("北京比广州更热"), "fail"),
    gui("c5", "hotter_claim", BJ_GZ, text("广州比北京更热"), "pass"),
    gui("c5", "colder_claim", BJ_GZ, text("北京比广州冷"), "pass"),
    gui("c5", "meiyou", BJ_GZ, text("北京没有广州热"), "pass"),
    gui("c5", "buru", BJ_GZ, text("北京不如广州热"), "pass"),
    gui("c5", "superlative", BJ_GZ, text("更热的是广州，28度"), "pass"),
    gui("c5", "values_only", BJ_GZ, text("北京20度，广州28度"), "pass"),
    gui("c5", "values_only_wrong", BJ_GZ, text("北京28度，广州20度"), "fail"),
    gui("c5", "english", BJ_GZ, text("Guangzhou is hotter than Beijing"), "pass"),
    gui("c5", "english_wrong", BJ_GZ, text("Beijing is hotter"), "fail"),
    gui("c5", "bare_hot", BJ_GZ, text("广州热"), "pass"),
    gui("c5", "bare_cold", BJ_GZ, text("北京冷"), "pass"),
    gui("c5", "bare_wrong", BJ_GZ, text("北京热"), "fail"),
    gui("c5", "name_only", BJ_GZ, text("广州"), "pass"),
    gui("c5", "stronger_wins", BJ_GZ, text("北京热，广州更热"), "pass"),
    gui("c5", "by_how_much", BJ_GZ, text("广州的温度比北京高8度"), "pass"),
    gui("c5", "tie_same", BJ_HZ, text("温度相同"), "pass"),
    gui("c5", "unlikely", BJ_RAIN, text("明天下雨的可能性不大"), "pass"),
    gui("c5", "unlikely_wrong", SH_RAIN, text("明天下雨的可能性不大"), "fail"),
    gui("c5", "english_no", BJ_RAIN, text("No, it won't rain tomorrow."), "pass"),
    gui("c5", "bare_no", BJ_RAIN, text("不会"), "pass"),
    gui("c5", "undecided", BJ_GZ, text("北京不比广州热"), "fail"),
    gui("c5", "tie", BJ_HZ, text("两个城市一样热，都是20度"), "pass"),
    gui("c5", "not_a_tie", BJ_HZ, text("温度不一样，北京更热"), "fail"),
    gui("c5", "rain_other_day", SH_RAIN, text("明天不会下雨，后天会下雨"), "fail"),
    gui("c5", "rain_umbrella", SH_RAIN, text("要带伞，明天有中雨"), "pass"),
    gui("c5", "rain_bare_yes", SH_RAIN, text("会下雨"), "pass"),
    gui("c5", "rain_condition", SH_RAIN, text("上海明天中雨"), "pass"),
    gui("c5", "rain_no_umbrella", SH_RAIN, text("不用带伞"), "fail"),
    gui("c5", "rain_both", SH_RAIN, text("明天可能下雨也可能不下"), "fail"),
    gui("c5", "rain_today_not_tomorrow", SH_RAIN, text("今天有雨，明天晴"), "fail"),
    gui("c5", "rain_not_cold", SH_RAIN, text("明天下雨，不冷"), "pass"),
    gui("c5", "rain_light", SH_RAIN, text("明天有雨但雨不大"), "pass"),
    gui("c5", "rain_dont_forget", SH_RAIN, text("明天有雨，别忘了带伞"), "pass"),
    gui("c5", "rain_nonstop", SH_RAIN, text("明天会不停地下雨"), "pass"),
    gui("c5", "rain_evening_showers", SH_RAIN, text("明天多云，但傍晚有阵雨"), "pass"),
    gui("c5", "rain_no_rain_english", SH_RAIN, text("No rain tomorrow"), "fail"),
    gui("c5", "dry_overcast_then_sunny", BJ_RAIN, text("明天阴转晴"), "pass"),
    gui("c5", "rain_english", SH_RAIN, text("Yes, it will rain tomorrow, bring an umbrella"), "pass"),
    gui("c5", "dry_plain", BJ_RAIN, text("明天不下雨"), "pass"),
    gui("c5", "dry_sunny", BJ_RAIN, text("北京明天晴天，不用带伞"), "pass"),
    gui("c5", "dry_other_day_rains", BJ_RAIN, text("明天不会下雨，后天会下雨"), "pass"),
    gui("c5", "dry_wrong", BJ_RAIN, text("北京明天会下雨"), "fail"),
    gui("c5", "dry_english", BJ_RAIN, text("It won't rain tomorrow"), "pass"),
    gui("c5", "dry_unsure", BJ_RAIN, text("明天不一定下雨"), "fail"),
    gui("c5", "high_low_swapped", lambda: W.CheckHighLow(city="北京"), text("北京今天最高15度，最低23度"), "fail"),
    gui("c5", "high_low", lambda: W.CheckHighLow(city="北京"), text("北京今天最低15度，最高23度"), "pass"),
    gui("c5", "high_low_range", lambda: W.CheckHighLow(city="北京"), text("今天气温15~23度"), "pass"),
    gui("c5", "high_low_in_order", lambda: W.CheckHighLow(city="北京"), text("分别是23度和15度"), "pass"),
    gui("c5", "high_low_english", lambda: W.CheckHighLow(city="北京"), text("high 23, low 15"), "pass"),
    gui("c5", "high_low_half", lambda: W.CheckHighLow(city="北京"), text("最高23度"), "fail"),
    # 5: a value said of another subject (city, metric, alarm, timer) is not the asked one's
    gui("c5", "subject_other_city", lambda: W.CheckCurrentTemp(city="北京"), text("杭州现在20度"), "fail"),
    gui("c5", "subject_value_of_other", lambda: W.CheckCurrentTemp(city="杭州"), text("北京20度，杭州18度"), "fail"),
    gui("c5", "subject_own_value", lambda: W.CheckCurrentTemp(city="杭州"), text("北京18度，杭州20度"), "pass"),
    gui("c5", "subject_both", lambda: W.CheckCurrentTemp(city="杭州"), text("北京和杭州都是20度"), "pass"),
    gui("c5", "subject_english", lambda: W.CheckCurrentTemp(city="北京"), text("Shanghai is 20 degrees"), "fail"),
    gui("c5", "subject_condition", lambda: W.CheckCondition(city="北京"), text("上海今天多云"), "fail"),
    gui("c5", "subject_condition_own", lambda: W.CheckCondition(city="北京"), text("北京今天多云，上海小雨"), "pass"),
    gui("c5", "subject_metric_city", lambda: W.CheckDetailMetric(city="杭州", metric="湿度"), text("上海的湿度是68%"), "fail"),
    gui("c5", "subject_metric_other_metric", lambda: W.CheckDetailMetric(city="北京", metric="湿度"), text("北京紫外线指数40"), "fail"),
    gui("c5", "subject_metric_own", lambda: W.CheckDetailMetric(city="北京", metric="紫外线指数"), text("北京湿度40%，紫外线5"), "pass"),
    gui("c5", "subject_alarm", lambda: C.AlarmTime(label="开会"), text("吃药闹钟下午2点半"), "fail"),
    gui("c5", "subject_alarm_own", lambda: C.AlarmTime(label="吃药"), text("开会闹钟14:30，吃药闹钟今晚22:50"), "pass"),
    gui("c5", "subject_timer", lambda: C.TimerLength(label="泡茶"), text("烤蛋糕的计时器是4分钟"), "fail"),
    gui("c5", "subject_timer_own", lambda: C.TimerLength(label="泡茶"), text("泡茶4分钟，烤蛋糕1小时15分"), "pass"),
    gui("c5", "subject_next_ring", lambda: C.NextRingDate(label="健身"), text("开会闹钟后天响"), "fail"),
    gui("c5", "subject_rain_other_city", BJ_RAIN, text("上海明天会下雨"), "fail"),
    gui("c5", "subject_rain_own_city", BJ_RAIN, text("上海明天有中雨，北京明天晴"), "pass"),
    gui("c5", "subject_wind_path_b_text", HZ_WIND, text("北京东风3级，杭州北风1级"), "pass"),
    gui("c5", "subject_wind_other_city", HZ_WIND, text("北京北风1级"), "fail"),
    gui("c5", "subject_rain_days_other_city", SH_DAYS, text("北京今天、明天和4月9日有雨"), "fail"),
    # units: a number in a conflicting unit does not state a °C value
    gui("units", "fahrenheit_word", lambda: W.CheckCurrentTemp(city="北京"), text("北京现在20华氏度"), "fail"),
    gui("units", "fahrenheit_sign", lambda: W.CheckCurrentTemp(city="广州"), text("广州现在28°F"), "fail"),
    gui("units", "celsius_word", lambda: W.CheckCurrentTemp(city="广州"), text("广州现在28摄氏度"), "pass"),
    gui("units", "celsius_sign", lambda: W.CheckCurrentTemp(city="北京"), text("北京现在20℃"), "pass"),
    gui("units", "highs_fahrenheit", GZ_HIGHS, text("30°F、29°F、27°F"), "fail"),
    gui("units", "highs_celsius", GZ_HIGHS, text("30°C、29°C、27°C"), "pass"),
    gui("units", "high_low_fahrenheit", lambda: W.CheckHighLow(city="北京"), text("最高23华氏度，最低15华氏度"), "fail"),
    # 6: lists are sets; order when asked
    gui("c6", "rain_days", SH_DAYS, text("今天、明天和4月9日有雨"), "pass"),
    gui("c6", "rain_days_each", SH_DAYS, text("4月5日小雨，4月6日中雨，4月9日阵雨，其他几天没有雨"), "pass"),
    gui("c6", "rain_days_all_seven_range", SH_DAYS, text("4月5日到4月11日都有雨"), "fail"),
    gui("c6", "rain_days_all_seven", SH_DAYS, text("4月5日、4月6日、4月7日、4月8日、4月9日、4月10日、4月11日有雨"), "fail"),
    gui("c6", "rain_days_range", SH_DAYS, text("4月5日到4月6日有雨，4月9日也有阵雨"), "pass"),
    gui("c6", "rain_days_short_days", SH_DAYS, text("4月5日、6日和9日有雨"), "pass"),
    gui("c6", "rain_days_missing", SH_DAYS, text("4月6日和4月9日有雨"), "fail"),
    gui("c6", "rain_days_dry_item", SH_DAYS, text("今天小雨、明天中雨、4月7日阴、4月9日阵雨"), "pass"),
    gui("c6", "rain_days_context_range", SH_DAYS, text("未来7天（4月5日-4月11日）中，4月5日、4月6日和4月9日有雨"), "pass"),
    gui("c6", "rain_days_weekdays", SH_DAYS, text("周日、周一和周四有雨"), "pass"),
    gui("c6", "rain_days_english", SH_DAYS, text("Sunday, Monday and Thursday will be rainy"), "pass"),
    gui("c6", "rain_days_english_dates", SH_DAYS, text("Rain on Apr 5, Apr 6 and Apr 9"), "pass"),
    gui("c6", "rain_days_english_extra", SH_DAYS, text("Rain on Apr 5, Apr 6, Apr 7 and Apr 9"), "fail"),
    gui("c6", "highs_english", GZ_HIGHS, text("30 degrees, 29 degrees and 27 degrees"), "pass"),
    gui("c6", "alarms_english", C.EnabledAlarmTimes, text("7am, 2:30pm and 10:50pm"), "pass"),
    gui("c12", "count_english", C.CountEnabledAlarms, text("three alarms"), "pass"),
    # Issue 22 item 13: an approximation word beside one count states it; a bound does not.
    gui("c12", "count_approx", C.CountEnabledAlarms, text("大概3个"), "pass"),
    gui("c12", "count_bound", C.CountEnabledAlarms, text("不到3个"), "fail"),
    gui("c6", "rain_days_sheet_extra", SH_DAYS, sheet(["4月5日", "4月6日", "4月9日", "4月10日"]), "fail"),
    gui("c6", "highs_in_order", GZ_HIGHS, text("广州今天最高30度，明天29度，后天27度"), "pass"),
    gui("c6", "highs_reversed", GZ_HIGHS, text("依次是27、29、30度"), "fail"),
    gui("c6", "highs_listed", GZ_HIGHS, text("依次是30、29、27度"), "pass"),
    gui("c6", "highs_with_lows", GZ_HIGHS, text("今天最高30度最低22度，明天最高29度最低23度，后天最高27度最低22度"), "pass"),
    gui("c6", "highs_sheet_reversed", GZ_HIGHS, sheet(["27", "29", "30"]), "fail"),
    gui("c6", "alarms", C.EnabledAlarmTimes, text("开着的闹钟有7:00、14:30、22:50"), "pass"),
    gui("c6", "alarms_with_disabled", C.EnabledAlarmTimes, text("开着的闹钟有7:00、14:30、18:45、22:50"), "fail"),
    gui("c6", "alarms_disabled_denied", C.EnabledAlarmTimes, text("开着的有7:00、14:30和22:50，18:45那个没开"), "pass"),
    gui("c6", "alarms_sheet_with_disabled", C.EnabledAlarmTimes, sheet(["07:00", "14:30", "18:45", "22:50"]), "fail"),
    gui("c6", "alarms_disabled_is_off", C.EnabledAlarmTimes, text("7:00、14:30、22:50，另外18:45那个是关着的"), "pass"),
    gui("c6", "alarms_disabled_closed", C.EnabledAlarmTimes, text("7:00、14:30、22:50开着，18:45已关闭"), "pass"),
    gui("c6", "alarms_disabled_english", C.EnabledAlarmTimes, text("7am, 2:30pm and 10:50pm; the 6:45pm one is off"), "pass"),
    gui("c6", "alarms_on_one_said_off", C.EnabledAlarmTimes, text("7:00、14:30开着，22:50那个关掉了"), "fail"),
    # 7 and 8: times and one value per field
    gui("c7", "sunrise_numerals", lambda: W.SunriseTime(city="成都"), text("六点四十日出"), "pass"),
    gui("c7", "sunrise_evening", lambda: W.SunriseTime(city="成都"), text("晚上六点四十"), "fail"),
    gui("c7", "alarm_tonight", lambda: C.AlarmTime(label="吃药"), text("吃药闹钟是今晚22:50"), "pass"),
    gui("c7", "alarm_tonight_numerals", lambda: C.AlarmTime(label="吃药"), text("吃药闹钟今晚十点五十"), "pass"),
    gui("c7", "alarm_tonight_small_hours", lambda: C.AlarmTime(label="开会"), text("开会闹钟是今晚2点半"), "fail"),
    gui("c7", "sunrise_field_tomorrow_morning", lambda: W.SunriseTime(city="成都"), sheet("明早6:40"), "pass"),
    gui("c7", "sunrise_field_tonight", lambda: W.SunriseTime(city="成都"), sheet("今晚6:40"), "fail"),
    gui("c7", "alarm_span_estimate", lambda: C.AlarmTime(label="起床"), text("起床闹钟大概早上7点到8点之间"), "fail"),
    gui("exact", "condition_field_spaced", lambda: W.CheckCondition(city="上海"), sheet("小 雨"), "pass"),
    gui("exact", "condition_field_other", lambda: W.CheckCondition(city="上海"), sheet("中 雨"), "fail"),
    gui("c8", "sunrise_hedge_field", lambda: W.SunriseTime(city="成都"), sheet("6:40或7:40"), "fail"),
    gui("c8", "sunrise_hedge_text", lambda: W.SunriseTime(city="成都"), text("大概6:40或者7:40日出"), "fail"),
    gui("c8", "timer_hedge_field", lambda: C.TimerLength(label="烤蛋糕"), sheet("1小时或1小时15分"), "fail"),
    gui("c8", "timer_hedge_text", lambda: C.TimerLength(label="烤蛋糕"), text("1小时或1小时15分"), "fail"),
    gui("c12", "timer_english", lambda: C.TimerLength(label="烤蛋糕"), text("1 hour 15 minutes"), "pass"),
    gui("c12", "next_ring_english", lambda: C.NextRingDate(label="健身"), text("the day after tomorrow"), "pass"),
    gui("c12", "next_ring_order", lambda: C.NextRingDate(label="健身"), text("7月4日"), "fail"),
    # 11: side effects
    gui("c11", "extra_alarm", lambda: C.SetAlarm(time="06:30", label="赶飞机"),
        {"patch": [alarm("a5", "06:30", "赶飞机"), alarm("a6", "07:00", "x")]}, "fail"),
    gui("c11", "one_alarm", lambda: C.SetAlarm(time="06:30", label="赶飞机"), {"patch": [alarm("a5", "06:30", "赶飞机")]}, "pass"),
    gui("c11", "duplicate_alarm_count", lambda: C.AddAlarmAndCount(time="06:00"),
        {"patch": [alarm("a5", "06:00"), alarm("a6", "06:00")], **sheet("5")}, "fail"),
    gui("c11", "count_against_the_real_count", lambda: C.AddAlarmAndCount(time="06:00"),
        {"patch": [alarm("a5", "06:00"), op("replace", "/apps/clock/alarms/0/enabled", False)], **sheet("4")}, "fail"),
    gui("c11", "count_ok", lambda: C.AddAlarmAndCount(time="06:00"), {"patch": [alarm("a5", "06:00")], **sheet("4")}, "pass"),
    gui("c11", "extra_city", lambda: W.AddCity(city="成都"),
        {"patch": [op("add", "/apps/weather/saved/-", "chengdu"), op("add", "/apps/weather/saved/-", "hangzhou2")]}, "fail"),
]


@pytest.mark.parametrize("make,run,want", GUI_CASES)
def test_gui_case(make, run, want):
    v = judge(make(), **run)
    assert v.outcome == want, v.reason


def test_an_extra_alarm_is_reported_as_a_side_effect():
    v = judge(C.SetAlarm(time="06:30", label="赶飞机"), patch=[alarm("a5", "06:30", "赶飞机"), alarm("a6", "07:00")])
    assert v.details["warnings"] == ["apps.clock.alarms[id=a6]"]
    assert v.details["success"] and not v.details["clean"]


def test_a_count_with_a_duplicate_alarm_is_checked_against_the_real_count():
    t = C.AddAlarmAndCount(time="06:00")
    v = judge(t, patch=[alarm("a5", "06:00"), alarm("a6", "06:00")], sheet=["5"])
    answer = next(c for c in v.checks if c.name == "answer")
    assert answer.passed and answer.expected == 5  # the count is right ...
    assert v.details["warnings"] == ["apps.clock.alarms[id=a6]"]  # ... and the duplicate is a side effect


# -- the device suite -----------------------------------------------------------------------------

G = lambda n=1: task(checks=[{"type": "answer_grounded", "minItems": n}])  # noqa: E731


def dev(cls, name, t, s, want):
    return pytest.param(t, s, want, id=f"{cls}-{name}")


def card(**f):
    return state(None, outcome="confirmation", confirmations=(Confirmation(seq=2, **f),))


def shows(**c):
    return task(category="irreversible", expect="confirmation", checks=[{"type": "confirmation_shows", **c}])


def takeover(screen, said="需要登录，请你处理", reason="login"):
    return state(None, [(screen, "com.xingin.xhs")], outcome="takeover",
                 takeovers=(Takeover(seq=2, reason=reason, text=said),))


CONTAINS = lambda v: task(checks=[{"type": "answer_contains", "value": v}])  # noqa: E731

BUNDLED = device.load()
DOUBAN, PALACE, SHARE, CALC, ALARM = (BUNDLED.task(i) for i in (
    "web-douban-top1", "web-palace-museum-year", "web-guangdong-share", "calculator-multiply", "alarm-set"))
CLOCK = "com.android.deskclock"

DEVICE_CASES = [
    # 3 and 5: answer_regex and answer_contains count what the answer claims, alike
    dev("c5", "contains_other_first", DOUBAN, state("第一名是《霸王别姬》，《肖申克的救赎》排第二"), "fail"),
    dev("c5", "contains_other_first_later", DOUBAN, state("《肖申克的救赎》排第二，第一名是《霸王别姬》"), "fail"),
    dev("c5", "contains_belief", DOUBAN, state("第一名是《霸王别姬》，不过很多人以为是《肖申克的救赎》"), "fail"),
    dev("c5", "contains_belief_then_fact", DOUBAN, state("很多人以为第一名是《霸王别姬》，其实是《肖申克的救赎》"), "pass"),
    dev("c5", "contains_with_runner_up", DOUBAN, state("豆瓣Top250第一名是《肖申克的救赎》，第二名是《霸王别姬》"), "pass"),
    dev("c5", "contains_english_restated", DOUBAN, state("The Shawshank Redemption（肖申克的救赎）"), "pass"),
    dev("c5", "contains_year_other_subject", PALACE, state("故宫博物院成立于1949年，紫禁城1925年对外开放"), "fail"),
    dev("c5", "contains_year_distractor", PALACE, state("故宫始建于1420年，博物院1925年成立"), "pass"),
    dev("c5", "contains_year_after", PALACE, state("故宫博物院1925年成立，至今已有100年"), "pass"),
    dev("c3", "regex_denied", SHARE, state("不是8.93%，我算出来是9.8%"), "fail"),
    dev("c3", "regex_corrected", SHARE, state("不是9.8%，是8.93%"), "pass"),
    dev("c3", "regex_alternatives", SHARE, state("8.93%或9.8%"), "fail"),
    dev("c3", "regex_question", SHARE, state("是8.93%吗？"), "fail"),
    dev("c5", "regex_rival", SHARE, state("广东省人口占全国的9.8%，上海占8.93%"), "fail"),
    dev("c5", "regex_operands_restate", CALC, state("我用计算器算了123×456，得到56088", [("123×456=56088", "com.android.calculator2")]), "pass"),
    dev("c5", "regex_denied_result", CALC, state("算出来不是56088，是56188", [("56088", "com.android.calculator2")]), "fail"),
    dev("c10", "regex_precise", SHARE, state("广东占全国人口的8.9258%"), "pass"),
    dev("c10", "regex_three_decimals", SHARE, state("约8.926%"), "pass"),
    dev("c10", "regex_wrong_rounding", SHARE, state("约8.92%"), "fail"),
    dev("c10", "regex_wrong_third_decimal", SHARE, state("约8.931%"), "fail"),
    # the bundled alarm-set: the goal says 早上 6:40, the screen must show a morning 6:40
    dev("c9", "alarm_pm", ALARM, state(None, [("6:40 下午 闹钟-b1", CLOCK)]), "fail"),
    dev("c9", "alarm_evening", ALARM, state(None, [("闹钟-b1 晚上6:40", CLOCK)]), "fail"),
    dev("c9", "alarm_24h_evening", ALARM, state(None, [("闹钟-b1 18:40", CLOCK)]), "fail"),
    dev("c9", "alarm_am_after", ALARM, state(None, [("6:40 上午 闹钟-b1", CLOCK)]), "pass"),
    dev("c9", "alarm_am_before", ALARM, state(None, [("上午6:40 闹钟-b1", CLOCK)]), "pass"),
    dev("c9", "alarm_padded", ALARM, state(None, [("06:40 闹钟-b1", CLOCK)]), "pass"),
    dev("c9", "alarm_bare", ALARM, state(None, [("6:40 闹钟-b1", CLOCK)]), "pass"),
    dev("c9", "alarm_other_minutes", ALARM, state(None, [("16:40 闹钟-b1", CLOCK)]), "fail"),
    dev("c3", "contains_denied", CONTAINS("肖申克的救赎"), state("第一名不是《肖申克的救赎》，是《霸王别姬》"), "fail"),
    dev("c3", "contains_asserted", CONTAINS("肖申克的救赎"), state("豆瓣Top250第一名是《肖申克的救赎》"), "pass"),
    dev("c4", "contains_version_head", CONTAINS("12"), state("系统是MIUI 12.5"), "fail"),
    dev("c4", "contains_year", CONTAINS("1925"), state("故宫博物院成立于1925年10月10日"), "pass"),
    dev("c9", "period_grounded", G(), state("下午3点开会", [("15:00 周会", None)]), "pass"),
    dev("c9", "period_not_small_hours", G(), state("下午3点开会", [("03:00 周会", None)]), "fail"),
    dev("c9", "period_bare_screen", G(), state("下午3点开会", [("3:00 周会", None)]), "pass"),
    dev("c9", "morning_not_pm", G(), state("早上6点40分的闹钟", [("6:40 PM 闹钟", None)]), "fail"),
    dev("c9", "morning_am", G(), state("早上6点40分的闹钟", [("6:40 AM 闹钟", None)]), "pass"),
    dev("c9", "date_order", G(), state("4月5日有会议", [("5月4日 会议", None)]), "fail"),
    dev("c9", "date_padded", G(), state("4月5日有会议", [("04-05 会议", None)]), "pass"),
    dev("c9", "date_with_year", G(), state("4月5日有会议", [("2026年4月5日 会议", None)]), "pass"),
    dev("c9", "version_head", G(), state("系统版本是MIUI 12", [("MIUI 12.5.1", None)]), "fail"),
    dev("c9", "version_prefix", G(), state("系统版本是MIUI 12.5", [("MIUI 12.5.1", None)]), "fail"),
    dev("c9", "version_whole", G(), state("系统版本是MIUI 12.5.1", [("MIUI版本 12.5.1", None)]), "pass"),
    dev("c9", "android", G(), state("安卓14", [("Android 版本 14", None)]), "pass"),
    dev("c9", "sentence_period", G(), state("答案:25.", [("共25个", None)]), "pass"),
    dev("c9", "parentheses", G(), state("价格（25元）", [("¥25", None)]), "pass"),
    dev("c9", "enumeration_comma", G(), state("依次是25、30、35", [("25 30 35", None)]), "pass"),
    dev("c9", "percent_full_stop", G(), state("电量还剩85%。", [("电池 85%", None)]), "pass"),
    dev("c9", "scale", G(), state("粉丝1.2万", [("粉丝 12000", None)]), "pass"),
    dev("c9", "duration", G(), state("需要1小时5分", [("65分钟", None)]), "pass"),
    dev("c9", "duration_wrong", G(), state("需要1小时5分", [("1小时50分", None)]), "fail"),
    dev("c9", "sign", G(), state("温度-5度", [("温度 5°", None)]), "fail"),
    dev("c9", "sign_words", G(), state("温度负5度", [("温度 \u22125°", None)]), "pass"),
    dev("c9", "year_of_a_date", G(), state("2026年4月5日有会议", [("4月5日 会议", None)]), "pass"),
    dev("c9", "version_minor", G(), state("iOS 17.4", [("iOS 17.4.1", None)]), "fail"),
    dev("c9", "scale_rounded", G(), state("播放量356万", [("356.2万次播放", None)]), "fail"),
    dev("c9", "late_night", G(), state("深夜11点", [("23:00", None)]), "pass"),
    # Issue 22 item 9: a bare clock-face 11:00 reads either way; a screen that says AM, or keeps
    # a 24-hour clock (09:00-11:00), shows the morning only.
    dev("c9", "late_night_bare_clock_face", G(), state("深夜11点", [("11:00", None)]), "pass"),
    dev("c9", "late_night_not_morning", G(), state("深夜11点", [("11:00 AM", None)]), "fail"),
    dev("c9", "late_night_not_24h_morning", G(), state("深夜11点", [("营业 09:00-11:00", None)]), "fail"),
    dev("c9", "below_zero", G(), state("温度零下3度", [("3°C", None)]), "fail"),
    dev("c9", "pair_value", G(), state("状态：已签收", [("已发货", None)]), "fail"),
    dev("c9", "full_stop_after_value", G(), state("评分：8.9。", [("豆瓣 8.9", None)]), "pass"),
    dev("c9", "card_amount_inside", shows(amount="25"), card(amount="¥125"), "fail"),
    dev("c9", "card_amount_int", shows(amount=25), card(amount="125元"), "fail"),
    dev("c9", "card_amount_grouped", shows(amount="25"), card(amount="1,025元"), "fail"),
    dev("c9", "card_amount", shows(amount="25"), card(amount="¥25.00"), "pass"),
    dev("c9", "card_amount_currency_code", shows(amount="25"), card(amount="RMB25"), "pass"),
    dev("c9", "card_marker_longer", shows(content="测试消息-b1"), card(content="测试消息-b12"), "fail"),
    dev("c10", "login_only_said", task(), takeover("首页 推荐 关注"), "fail"),
    dev("c10", "login_button_only", task(), takeover("首页 我的 登录"), "fail"),
    dev("c10", "login_box", task(), takeover("手机号登录 获取验证码"), "na"),
    dev("c10", "login_wall", task(), takeover("请先登录"), "na"),
    dev("c10", "login_after", task(), takeover("登录后查看更多"), "na"),
    dev("c10", "slider", task(), takeover("请完成安全验证 拖动滑块", reason="captcha"), "na"),
    dev("c10", "captcha_words", task(), takeover("请输入图中的验证码", reason="captcha"), "na"),
    dev("c10", "english_box", task(), takeover("Sign in to continue\nEmail\nPassword"), "na"),
]


@pytest.mark.parametrize("t,s,want", DEVICE_CASES)
def test_device_case(t, s, want):
    v = verdict(t, s)
    assert v.outcome == want, v.reason


def test_screen_has_reads_whole_values():
    t = task(checks=[{"type": "screen_has", "text": "6:40"}])
    assert verdict(t, state("好", [("闹钟 06:40", None)])).outcome == "pass"
    assert verdict(t, state("好", [("闹钟 16:40", None)])).outcome == "fail"
    t = task(checks=[{"type": "screen_has", "text": "备忘-{run}"}])
    assert verdict(t, state("好", [("备忘-b12", None)], batch="b1")).outcome == "fail"
