"""Issue 22, the value-reading classes (items 1 and 9-14): named cases from a JSON table
(tests/core/value_classes.json) through every path that reads the value, and a Hypothesis
property per class.

1  a clock time is no duration; H:MM is one where the text or the field says so
9  a bare clock-face hour 1-12 reads either way (10:50 is 22:50 too)
10 every thousands separator (spaces of any width, apostrophes)
11 "h" as the hours separator of a time (14h30)
12 刻 counts (两刻钟 = 30 minutes)
13 an approximation word beside one value states it; bounds and alternatives do not
14 day counts are no dates, year-less dates without a clock, weekday abbreviations, ranks on a
   screen, discounts on a confirmation card
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import strategies_matchers as S
from judges.matchers import match_date, match_duration, match_field, match_time, match_value, parse_number
from suites.device.checks import Items, _field_shows, _shows_text, _shows_text_plain
from suites.gui.answers import text_matches

TABLE = json.loads(Path(__file__).with_name("value_classes.json").read_text(encoding="utf-8"))
SUNDAY = {"time": {"timestamp": 1775354400000}, "timezone": "Asia/Shanghai"}  # 2026-04-05 10:00
PROPS = settings(max_examples=S.examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _grounded(answer: str, screen: str) -> bool:
    items = Items(answer, items=True).items()
    shown = Items(screen, items=False)
    return bool(items) and all(shown.grounds(kind, value) for kind, value in items)


def judge(check: str, expected: Any, answer: Any) -> bool:
    if check == "value":
        return match_value(expected, answer)
    if check == "time":
        return match_time(expected, answer)
    if check == "duration":
        return match_duration(expected, answer)
    if check == "date":
        return match_date(expected, answer, SUNDAY)
    if check == "date_nonow":
        return match_date(expected, answer, None)
    if check.startswith("field:"):
        return match_field(check.split(":")[1], expected, answer, SUNDAY)
    if check.startswith("field_nonow:"):
        return match_field(check.split(":")[1], expected, answer, None)
    if check.startswith("gui_text:"):
        return text_matches(check.split(":")[1], expected, answer, SUNDAY)
    if check == "device_amount":
        return _field_shows("amount", expected, answer)
    if check == "device_screen":
        fast, plain = _shows_text(expected, answer), _shows_text_plain(expected, answer)
        assert fast == plain  # the prefiltered screen read and the full scan agree
        return fast
    if check == "device_grounded":
        return _grounded(*answer)
    raise AssertionError(f"unknown check {check!r}")


@pytest.mark.parametrize("case", TABLE["cases"], ids=lambda c: f"{c['class'].split('_')[0]}-{c['id']}")
def test_named_case(case):
    assert judge(case["check"], case["expected"], case["answer"]) is case["verdict"], case


def test_every_class_has_cases_both_ways():
    by_class: dict[str, set[bool]] = {}
    for case in TABLE["cases"]:
        by_class.setdefault(case["class"], set()).add(case["verdict"])
    assert len(by_class) == 7
    assert all(v == {True, False} for v in by_class.values()), by_class


# -- 1: a clock time is no duration ----------------------------------------------------------------

CLOCK_CONTEXTS = ["会议定在{t}", "晚上{t}到家", "{t}出发", "闹钟响在{t}", "the meeting is at {t}", "下午{t}开会",
                  "行程：{t}出发", "需要{t}前到"]
DURATION_CONTEXTS = ["用时{t}", "全程 {t}", "耗时{t}", "历时{t}", "{t}的车程", "it took {t}", "总时长{t}", "需要{t}",
                     "行驶时间{t}", "{t}小时"]


@PROPS
@given(st.integers(1, 12), st.integers(0, 59), st.sampled_from(CLOCK_CONTEXTS), st.sampled_from(DURATION_CONTEXTS))
def test_h_mm_is_a_duration_only_where_the_text_says_so(h, m, clock, duration):
    t = f"{h}:{m:02d}"
    minutes = h * 60 + m
    assert not match_duration(minutes, clock.format(t=t))
    assert match_duration(minutes, duration.format(t=t))
    assert match_field("duration", minutes, t)  # a duration field says it
    assert match_duration(minutes, t)  # so does a question answered with nothing but the value


# -- 9: every clock-face hour reads either way -------------------------------------------------------


@PROPS
@given(st.integers(1, 12), st.integers(0, 59), st.sampled_from(["{t}", "闹钟是{t}", "{t}出发", "定在{t}"]))
def test_every_clock_face_hour_reads_either_way(h, m, form):
    text = form.format(t=f"{h}:{m:02d}")
    other = (h + 12) % 24
    assert match_time(f"{h:02d}:{m:02d}", text, tolerance_minutes=0)
    assert match_time(f"{other:02d}:{m:02d}", text, tolerance_minutes=0)
    assert not match_time(f"{other:02d}:{m:02d}", f"上午{h}:{m:02d}" if h < 12 else f"中午{h}:{m:02d}", tolerance_minutes=0)
    # An expected time is a fact: the state's hh:mm is that hour only.
    if h < 12:
        assert not match_time(f"{h:02d}:{m:02d}", f"{other}:{m:02d}", tolerance_minutes=0)


# -- 10: every thousands separator --------------------------------------------------------------------

SEPARATORS = [" ", "\u00a0", "\u202f", "\u2009", "'", "\u2019"]


def grouped(n: int, sep: str) -> str:
    return f"{n:,}".replace(",", sep)


@PROPS
@given(st.integers(1000, 10**10), st.sampled_from(SEPARATORS), st.sampled_from(["共{n}人", "{n}元", "{n}", "views: {n}"]))
def test_every_thousands_separator_groups_a_number(n, sep, form):
    text = form.format(n=grouped(n, sep))
    assert match_value(n, text), text
    head = int(grouped(n, ",").split(",")[0])
    assert not match_value(head, text), text
    assert parse_number(grouped(n, sep)) == n


# -- 11: "h" as the hours separator -------------------------------------------------------------------


@PROPS
@given(st.integers(0, 23), st.integers(0, 59), st.sampled_from(["{t}", "会议{t}开始", "depart at {t}"]))
def test_h_separates_hours_and_minutes(h, m, form):
    text = form.format(t=f"{h}h{m:02d}")
    assert match_time(f"{h:02d}:{m:02d}", text, tolerance_minutes=0), text
    assert not match_time(f"{(h + 3) % 24:02d}:{m:02d}", text, tolerance_minutes=0), text


# -- 12: 刻 counts ------------------------------------------------------------------------------------


@PROPS
@given(st.integers(1, 3), st.integers(0, 5), st.sampled_from(["一", "两", "二", "1", "2"]))
def test_quarters_count(q, hours, one_or_two):
    word = {1: "一", 2: one_or_two if one_or_two in ("两", "二", "2") else "两", 3: "三"}[q]
    text = (f"{S.to_chinese(hours)}小时" if hours else "") + f"{word}刻钟"
    assert match_duration(hours * 60 + 15 * q, text), text
    assert not match_duration(hours * 60 + 15 * q + 15, text), text


# -- 13: approximation words state one value; bounds and alternatives do not -------------------------

APPROX = ["约{v}", "大约{v}", "大概{v}", "{v}左右", "预计{v}", "差不多{v}", "估计{v}", "约莫{v}", "about {v}", "around {v}", "approximately {v}", "roughly {v}"]
BOUNDS = ["不到{v}", "超过{v}", "将近{v}", "nearly {v}", "至少{v}", "{v}以上"]


def _duration_text(minutes: int) -> str:
    h, m = divmod(minutes, 60)
    return (f"{h}小时" if h else "") + (f"{m}分钟" if m or not h else "")


@PROPS
@given(st.integers(1, 600), st.sampled_from(APPROX), st.sampled_from(BOUNDS))
def test_approximation_states_a_duration_and_a_bound_does_not(minutes, approx, bound):
    value = _duration_text(minutes)
    assert match_duration(minutes, approx.format(v=value)), approx
    assert text_matches("duration", minutes, approx.format(v=value), SUNDAY)
    assert not match_duration(minutes, bound.format(v=value)), bound
    other = _duration_text(minutes + 10)
    assert not match_duration(minutes, approx.format(v=f"{value}或{other}"))


@PROPS
@given(st.integers(-40, 5000), st.sampled_from(APPROX), st.sampled_from(BOUNDS), st.sampled_from(["度", "个", "元", ""]))
def test_approximation_states_a_number_and_a_bound_does_not(n, approx, bound, unit):
    assert match_value(n, approx.format(v=f"{n}{unit}")), approx
    assert not match_value(n, bound.format(v=f"{n}{unit}")), bound
    assert not match_value(n, approx.format(v=f"{n}{unit}或{n + 1}{unit}"))


@PROPS
@given(st.dates(min_value=dt.date(2026, 3, 10), max_value=dt.date(2026, 5, 1)), st.sampled_from(["预计{d}送达", "大约{d}", "{d}左右"]),
       st.sampled_from(["{m}月{d}日", "{m}/{d}", "{m:02d}-{d:02d}"]))
def test_approximation_states_a_date(day, approx, form):
    text = approx.format(d=form.format(m=day.month, d=day.day))
    assert match_date(day, text, SUNDAY), text


# -- 14: day counts, year-less dates, weekday abbreviations --------------------------------------------

WEEKDAY_ABBR = [("Mon", "Mon."), ("Tue", "Tues"), ("Wed", "Wed."), ("Thu", "Thurs"), ("Fri", "Fri."), ("Sat", "Sat."), ("Sun", "Sun.")]


@PROPS
@given(st.integers(1, 30), st.sampled_from(["未来{n}日", "近{n}日", "最近{n}日", "过去{n}日", "{n}日内", "连续{n}日"]))
def test_a_count_of_days_is_no_date(n, form):
    text = form.format(n=n) + "都有雨"
    for offset in range(-31, 32):
        assert not match_date(dt.date(2026, 4, 5) + dt.timedelta(days=offset), text, SUNDAY), text


@PROPS
@given(st.integers(1, 12), st.integers(1, 28), st.sampled_from(["{m}月{d}日", "{m}月{d}号", "{m:02d}-{d:02d}", "{m}/{d}"]))
def test_identical_yearless_dates_match_without_a_clock(m, d, form):
    answer = form.format(m=m, d=d)
    assert match_date(f"{m}月{d}日", answer, None), answer
    assert match_field("date", f"{m}月{d}日", answer, None), answer
    assert not match_date(f"{m}月{d % 28 + 1}日", answer, None), answer


@PROPS
@given(st.integers(0, 6), st.booleans())
def test_weekday_abbreviations(weekday, longer):
    day = dt.date(2026, 4, 6) + dt.timedelta(days=weekday)  # Monday 4/6 .. Sunday 4/12
    # On Sunday 4/5 a bare weekday is the next one on or after today: Sunday is today.
    want = dt.date(2026, 4, 5) if weekday == 6 else day
    word = WEEKDAY_ABBR[weekday][1 if longer else 0]
    assert match_date(want, f"rain on {word}", SUNDAY), word
    assert not match_date(want + dt.timedelta(days=1), f"rain on {word}", SUNDAY), word


@PROPS
@given(st.integers(1, 50), st.sampled_from(["No.{n}", "NO.{n}", "Top {n}", "TOP{n}", "#{n}", "第{n}名"]))
def test_a_rank_on_a_screen_is_the_rank(n, form):
    screen = form.format(n=n) + " 三体"
    assert _shows_text(f"第{S.to_chinese(n)}", screen) and _shows_text_plain(f"第{S.to_chinese(n)}", screen)
    assert not _shows_text(f"第{n + 1}", screen)


@PROPS
@given(st.integers(1, 500), st.integers(1, 99), st.sampled_from(["已优惠{d}元", "立减¥{d}", "优惠{d}元", "节省{d}元"]))
def test_a_discount_is_not_the_amount_a_card_shows(paid, discount, form):
    card = f"¥{paid} " + form.format(d=discount)
    assert _field_shows("amount", str(paid), card)
    if discount != paid:
        assert not _field_shows("amount", str(discount), card)
