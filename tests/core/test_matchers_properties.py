"""Properties of judges.matchers: every rendering of a value matches it, and nothing else does."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

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

try:  # tests/ may or may not become a package; support both import styles
    from tests.strategies_matchers import (
        WEEKDAYS_CN,
        WEEKDAYS_EN,
        absolute_date_renderings,
        duration_minutes,
        examples,
        full_width,
        minute_of_day,
        rendered_duration,
        rendered_time,
        simulated_now,
        time_renderings,
        to_chinese,
        tricky_text,
    )
except ImportError:  # pragma: no cover - depends on how pytest was started
    from strategies_matchers import (  # type: ignore[no-redef]
        WEEKDAYS_CN,
        WEEKDAYS_EN,
        absolute_date_renderings,
        duration_minutes,
        examples,
        full_width,
        minute_of_day,
        rendered_duration,
        rendered_time,
        simulated_now,
        time_renderings,
        to_chinese,
        tricky_text,
    )

FAST = settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
QUICK = settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])


def hhmm(minute: int) -> str:
    return f"{minute // 60 % 24:02d}:{minute % 60:02d}"


# ---------------------------------------------------------------------------------------------
# Normalisation and robustness
# ---------------------------------------------------------------------------------------------

@FAST
@given(st.one_of(st.text(), tricky_text))
@example("三点五十分")
@example("好一点十分")
@example("三万一千")
def test_normalising_twice_equals_once(text):
    once = normalize_text(text)
    assert normalize_text(once) == once


@FAST
@given(st.one_of(st.text(), tricky_text))
def test_parsers_and_matchers_never_raise_on_any_text(text):
    state = {"time": {"timestamp": 1_742_083_200_000}}
    extract_numbers(text)
    parse_number(text)
    parse_times(text)
    parse_duration_minutes(text)
    parse_dates(text, state)
    parse_dates(text)
    has_close_number(text, 3.5)
    for expected in (5, 2.5, "通过", "一样"):
        match_value(expected, text)
    match_time("14:30", text)
    match_duration("1小时30分", text)
    match_date("2025-03-16", text, state)
    for matcher in ("exact", "number", "date", "time", "duration"):
        match_field(matcher, "25", text, state)
    match_repeatable("time", "set", ["14:30"], [text])


@QUICK
@given(st.text())
def test_odd_expected_values_never_raise(text):
    assert isinstance(match_time(text, "14:30"), bool)
    assert isinstance(match_duration(text, "90分钟"), bool)
    assert isinstance(match_date(text, "3月16日"), bool)


# ---------------------------------------------------------------------------------------------
# Numbers
# ---------------------------------------------------------------------------------------------


@FAST
@given(st.integers(-10**9, 10**9), st.sampled_from(["现在{}度", "共{}个", "{}", "余额：{}元。"]))
def test_every_standalone_integer_is_found(n, sentence):
    assert match_value(n, sentence.format(n))


@FAST
@given(st.integers(1, 10**6), st.integers(1, 9))
def test_a_number_inside_another_number_is_not_found(n, digit):
    # 25 contains 5 as text but states a different number.
    assert not match_value(n, f"现在{digit}{n}度")
    assert not match_value(n, f"现在{n}{digit}度")


@FAST
@given(st.integers(0, 99_999_999))
def test_chinese_numerals_read_as_their_value(n):
    assert extract_numbers(f"共{to_chinese(n)}人") == [float(n)]


@FAST
@given(st.integers(1000, 10**12))
def test_thousands_separators_read_as_one_number(n):
    grouped = f"{n:,}"
    assert match_value(n, f"总计{grouped}元")
    assert match_value(n, f"总计{grouped.replace(',', '，')}元")


@QUICK
@given(st.decimals(min_value=-1000, max_value=1000, places=2))
def test_number_field_reads_its_own_rendering(value):
    assert match_field("number", float(value), f" {value} ")
    assert has_close_number(f"约{value}km", float(value))


# ---------------------------------------------------------------------------------------------
# Times
# ---------------------------------------------------------------------------------------------


@FAST
@given(rendered_time())
def test_every_rendering_of_a_time_matches_it(case):
    minute, text = case
    assert match_time(hhmm(minute), text), text
    assert match_time(hhmm(minute), text, tolerance_minutes=0), text


@FAST
@given(minute_of_day, st.integers(-5, 5), st.data())
@example(23 * 60 + 58, 5, None)
@example(0, -5, None)
def test_a_shift_within_five_minutes_matches(minute, shift, data):
    text = (
        hhmm(minute + shift)
        if data is None
        else data.draw(rendered_time((minute + shift) % 1440))[1]
    )
    assert match_time(hhmm(minute), text), text


@FAST
@given(minute_of_day, st.integers(6, 714), st.sampled_from([1, -1]), st.data())
@example(23 * 60 + 58, 6, 1, None)
@example(2, 6, -1, None)
@example(9 * 60, 714, 1, None)
def test_a_shift_of_six_to_714_minutes_does_not_match(minute, size, sign, data):
    # 714 = 720 - 6: a bare clock-face hour also reads 12 hours later, which must stay out too.
    moved = (minute + sign * size) % 1440
    text = hhmm(moved) if data is None else data.draw(rendered_time(moved))[1]
    assert not match_time(hhmm(minute), text), text


@FAST
@given(st.integers(1, 12), st.integers(0, 59))
def test_a_bare_clock_hour_reads_both_ways_and_a_period_word_decides(h, m):
    # Every clock-face hour 1-12 (issue 22: 10:50 is 22:50 as 2:30 is 14:30; 12:30 is 00:30 too).
    other = (h + 12) % 24
    bare = [
        f"{h}点{m}分",
        f"{h}:{m:02d}",
        f"{to_chinese(h)}点{'零' if m < 10 else ''}{to_chinese(m)}分",
    ]
    for text in bare:
        assert match_time(f"{h:02d}:{m:02d}", text, tolerance_minutes=0), text
        assert match_time(f"{other:02d}:{m:02d}", text, tolerance_minutes=0), text
    if h == 12:
        return
    assert not match_time(f"{h + 12}:{m:02d}", f"上午{h}点{m}分")
    assert not match_time(f"{h:02d}:{m:02d}", f"下午{h}点{m}分")
    assert not match_time(f"{h + 12}:{m:02d}", f"{h}:{m:02d} AM")
    assert not match_time(f"{h:02d}:{m:02d}", f"{h}:{m:02d} PM")
    # Zero padding says the writer meant a 24-hour clock.
    if h < 10:
        assert not match_time(f"{h + 12}:{m:02d}", f"{h:02d}:{m:02d}")


# ---------------------------------------------------------------------------------------------
# Durations
# ---------------------------------------------------------------------------------------------


@FAST
@given(rendered_duration(), st.data())
def test_every_rendering_of_a_duration_matches_every_other(case, data):
    total, text = case
    _, other = data.draw(rendered_duration(total))
    assert match_duration(text, other), (text, other)
    assert match_duration(total, text), text


@FAST
@given(rendered_duration(), duration_minutes, st.data())
def test_a_rendering_of_a_duration_matches_no_other_duration(case, other_total, data):
    total, text = case
    if other_total == total:
        other_total += 1
    _, other = data.draw(rendered_duration(other_total))
    assert not match_duration(text, other), (text, other)


@FAST
@given(st.integers(1, 600), st.integers(0, 20), st.integers(1, 5))
def test_unit_traps_never_match(n, h, tens):
    assert not match_duration(f"{n}分钟", f"{n}秒")
    assert not match_duration(f"{n}秒", f"{n}分钟")
    assert not match_duration(f"{h}.5小时", f"{h}小时5分")
    assert not match_duration(f"{h}:{tens}0", f"{h}小时{tens}分")
    # The minutes of a compound duration are not a duration of their own.
    assert not match_duration(f"{tens}分钟", f"{h + 1}小时{tens}分")


# ---------------------------------------------------------------------------------------------
# Dates
# ---------------------------------------------------------------------------------------------


def _monday(day: dt.date) -> dt.date:
    return day - dt.timedelta(days=day.weekday())


@FAST
@given(simulated_now(), st.integers(-150, 150), st.data())
def test_absolute_dates_near_now_resolve_to_that_date(now, offset, data):
    today, state = now
    target = today + dt.timedelta(days=offset)
    # A bare day (14号) is the nearest such day; 14 days back in February it ties with the same
    # day next month, and a tie points forward, so day-only forms are drawn within that reach.
    text = data.draw(st.sampled_from(absolute_date_renderings(target, -14 < offset <= 14)))
    assert match_date(target.isoformat(), text, state), text
    assert not match_date((target + dt.timedelta(days=1)).isoformat(), text, state), text
    assert match_field("date", target.isoformat(), text, state), text


@st.composite
def relative_date(draw, today: dt.date):
    """(target date, a relative rendering of it) computed by calendar arithmetic."""
    kind = draw(st.sampled_from(["day", "this", "next", "next2", "bare", "english"]))
    if kind == "day":
        word, shift = draw(
            st.sampled_from(
                [("今天", 0), ("明天", 1), ("后天", 2), ("大后天", 3), ("昨天", -1), ("前天", -2),
                 ("today", 0), ("tomorrow", 1), ("yesterday", -1)]
            )
        )
        return today + dt.timedelta(days=shift), word
    wd = draw(st.integers(0, 6))
    name = draw(st.sampled_from(["周", "星期", "礼拜"]))
    cn = WEEKDAYS_CN[wd] if wd < 6 or name == "周" else draw(st.sampled_from(["日", "天"]))
    if kind == "bare":
        return today + dt.timedelta(days=(wd - today.weekday()) % 7), f"{name}{cn}"
    if kind == "english":
        return today + dt.timedelta(days=(wd - today.weekday()) % 7), WEEKDAYS_EN[wd]
    weeks, prefix = {"this": (0, draw(st.sampled_from(["这", "本"]))), "next": (1, "下"),
                     "next2": (2, "下下")}[kind]
    return _monday(today) + dt.timedelta(days=7 * weeks + wd), f"{prefix}{name}{cn}"


@FAST
@given(simulated_now(), st.data())
@example((dt.date(2024, 2, 28), {"time": 1709107200000}), None)
def test_relative_dates_resolve_across_month_year_and_leap_day(now, data):
    today, state = now
    if data is None:  # 2024-02-28 16:00 Shanghai: tomorrow is the leap day
        target, text = today + dt.timedelta(days=1), "明天"
    else:
        target, text = data.draw(relative_date(today))
    assert match_date(target, f"是{text}", state), text
    assert not match_date(target + dt.timedelta(days=1), text, state), text
    assert not match_date(target, text), "relative words need a simulated now"


@pytest.mark.parametrize(
    "today", [dt.date(2024, 2, 28), dt.date(2024, 12, 31), dt.date(2025, 2, 28)]
)
@pytest.mark.parametrize("word,shift", [("明天", 1), ("后天", 2), ("下周一", None)])
def test_named_boundaries_for_relative_dates(today, word, shift):
    noon = dt.datetime.combine(today, dt.time(12)) - dt.timedelta(hours=8)  # 12:00 in Shanghai
    state = {"time": {"timestamp": int(noon.replace(tzinfo=dt.timezone.utc).timestamp() * 1000)}}
    target = today + dt.timedelta(days=shift) if shift else _monday(today) + dt.timedelta(days=7)
    assert match_date(target.isoformat(), word, state)
    assert parse_dates(word, state) == [target]


@QUICK
@given(st.dates(dt.date(1990, 1, 1), dt.date(2090, 12, 31)))
def test_dates_with_a_year_need_no_now(day):
    chinese = f"{day.year}年{day.month}月{day.day}日"
    for text in (day.isoformat(), chinese, full_width(day.isoformat())):
        assert match_date(day.isoformat(), text)
        assert parse_dates(text) == [day]


@QUICK
@given(st.lists(rendered_time(), min_size=1, max_size=5), st.randoms(use_true_random=False))
def test_time_sets_match_in_any_order(cases, rnd):
    expected = [hhmm(m) for m, _ in cases]
    actual = [text for _, text in cases]
    rnd.shuffle(actual)
    assert match_repeatable("time", "set", expected, actual)


def test_renderings_cover_every_minute_of_the_day():
    # A cheap exhaustive sweep of the fixed renderings (no sentence wrapper) for every minute.
    for minute in range(0, 1440, 7):
        for text in time_renderings(*divmod(minute, 60)):
            assert match_time(hhmm(minute), text, tolerance_minutes=0), text
