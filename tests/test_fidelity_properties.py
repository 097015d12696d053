"""Properties of judge fidelity (issue 10), per class, under Hypothesis.

CI runs modest example counts; ``TRAJ_HYPOTHESIS_SCALE=10`` multiplies them for a long run.
"""

from __future__ import annotations

import datetime as dt

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from judges.claims import rain_days
from judges.matchers import match_date, match_duration, match_field, match_time, match_value

try:  # tests/ may or may not become a package; support both import styles
    from tests import strategies_matchers as S
    from tests.test_judge_fidelity import ALL as MATCHER_CASES
except ImportError:  # pragma: no cover - depends on how pytest was started
    import strategies_matchers as S  # type: ignore[no-redef]
    from test_judge_fidelity import ALL as MATCHER_CASES  # type: ignore[no-redef]

PROPS = settings(max_examples=S.examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
SUNDAY = {"time": {"timestamp": 1775354400000}, "timezone": "Asia/Shanghai"}  # 2026-04-05 10:00
TODAY = dt.date(2026, 4, 5)


def hhmm(minute: int) -> str:
    return f"{minute // 60 % 24:02d}:{minute % 60:02d}"


# -- class 1: a numeral-bearing word never supplies a number ---------------------------------------


@PROPS
@given(S.numeric_answer(), st.sampled_from(S.NUMERAL_BEARING_WORDS), st.sampled_from(["{a}，{w}", "{w}，{a}", "{a}。{w}很好"]))
def test_inserting_a_numeral_word_never_supplies_a_number(case, word, shape):
    n, answer = case
    inserted = shape.format(a=answer, w=word)
    for k in S.WORD_NUMERALS | {n}:
        assert match_value(k, inserted) == match_value(k, answer), (k, inserted)


# -- class 2: signs --------------------------------------------------------------------------------


@PROPS
@given(st.integers(1, 999), st.sampled_from(["负{n}", "零下{n}", "\u2212{n}", "\u2013{n}", "-{n}", "负{cn}", "零下{cn}"]))
def test_every_minus_spelling_is_negative(n, form):
    written = form.format(n=n, cn=S.to_chinese(n))
    assert match_value(-n, f"现在{written}度")
    assert not match_value(n, f"现在{written}度")
    assert match_field("number", -n, written)
    assert not match_field("number", n, written)


# -- class 3: wrapping a correct answer in a clause-level negation flips it ------------------------


@st.composite
def correct_answer(draw):
    """(judge function, expected, a one-clause answer that states it)."""
    kind = draw(st.sampled_from(["number", "string", "time", "duration", "date"]))
    if kind == "number":
        n, answer = draw(S.numeric_answer())
        return match_value, n, answer
    if kind == "string":
        value = draw(st.sampled_from(S.STRING_VALUES))
        form = draw(st.sampled_from(["{c}今天{v}", "是{v}", "答案是{v}"]))
        return match_value, value, form.format(c=draw(st.sampled_from(S.CITIES)), v=value)
    if kind == "time":
        minute = draw(S.minute_of_day)
        text = draw(st.sampled_from(S.time_renderings(*divmod(minute, 60))))
        return match_time, hhmm(minute), draw(st.sampled_from(S.SINGLE_CLAUSE_TIME_SENTENCES)).format(text)
    if kind == "duration":
        total = draw(st.integers(1, 600))
        text = draw(st.sampled_from(S.duration_renderings(total)))
        return match_duration, total, draw(st.sampled_from(S.SINGLE_CLAUSE_DURATION_SENTENCES)).format(text)
    day = TODAY + dt.timedelta(days=draw(st.integers(-20, 20)))
    text = draw(st.sampled_from(S.absolute_date_renderings(day, with_day_only=False)))
    return (lambda e, a: match_date(e, a, SUNDAY)), day, draw(st.sampled_from(S.DATE_SENTENCES[:2])).format(text)


@PROPS
@given(correct_answer(), st.sampled_from(S.NEGATION_WRAPPERS))
def test_a_clause_level_negation_flips_a_correct_answer(case, wrapper):
    judge, expected, answer = case
    assert judge(expected, answer), answer
    assert not judge(expected, wrapper.format(answer)), wrapper.format(answer)


# -- formatting never changes a verdict -----------------------------------------------------------


@PROPS
@given(st.sampled_from(MATCHER_CASES), st.lists(st.sampled_from(sorted(S.FORMATTINGS)), min_size=1, max_size=3))
def test_whitespace_full_width_and_punctuation_never_change_a_verdict(case, formattings):
    fn, expected, answer, want = case.values
    text = answer
    for name in formattings:
        text = S.FORMATTINGS[name](text)
    assert fn(expected, text) is want, (formattings, text)


@PROPS
@given(correct_answer(), st.lists(st.sampled_from(sorted(S.FORMATTINGS)), min_size=1, max_size=3))
def test_formatting_keeps_a_generated_answer_correct(case, formattings):
    judge, expected, answer = case
    text = answer
    for name in formattings:
        text = S.FORMATTINGS[name](text)
    assert judge(expected, text), text


# -- class 7: match_time is symmetric across midnight --------------------------------------------


near_midnight = st.integers(-20, 20).map(lambda k: k % 1440)


@PROPS
@given(near_midnight, near_midnight, st.data())
def test_match_time_is_symmetric_across_midnight(a, b, data):
    gap = abs(a - b) % 1440
    assert match_time(hhmm(a), hhmm(b)) == match_time(hhmm(b), hhmm(a)) == (min(gap, 1440 - gap) <= 5)
    _, ta = data.draw(S.rendered_time(a))
    _, tb = data.draw(S.rendered_time(b))
    assert match_time(ta, tb) == match_time(tb, ta), (ta, tb)


@PROPS
@given(st.integers(1, 11), st.integers(1, 9))
def test_ling_after_dian_is_minutes(h, m):
    assert match_time(f"{h:02d}:0{m}", f"{S.to_chinese(h)}点零{S.to_chinese(m)}", tolerance_minutes=0)
    assert match_time(f"{h:02d}:0{m}", f"{h}点0{m}分", tolerance_minutes=0)


@PROPS
@given(st.integers(6, 11), st.sampled_from(["深夜", "半夜", "夜里"]))
def test_night_words_are_night(h, word):
    assert match_time(f"{h + 12}:00", f"{word}{h}点", tolerance_minutes=0)
    assert not match_time(f"{h:02d}:00", f"{word}{h}点")


# -- class 8: a hedge always fails ------------------------------------------------------------------


@st.composite
def hedge(draw):
    """(judge of a free-text answer, judge of a field, value a, value b, text offering both)."""
    kind = draw(st.sampled_from(["time", "duration", "number", "date"]))
    connector = draw(st.sampled_from(S.HEDGE_CONNECTORS + (["/"] if kind in ("time", "duration") else [])))
    if kind == "time":
        a, b = draw(S.minute_of_day), draw(S.minute_of_day)
        # Out of each other's tolerance, also 12 hours apart (a bare hour reads both ways).
        assume(all(min((a - b + k) % 1440, (b - a - k) % 1440) > 10 for k in (0, 720)))
        ta = draw(st.sampled_from(S.time_renderings(*divmod(a, 60))))
        tb = draw(st.sampled_from(S.time_renderings(*divmod(b, 60))))
        return match_time, (lambda e, t: match_field("time", e, t)), hhmm(a), hhmm(b), f"{ta}{connector}{tb}"
    if kind == "duration":
        a, b = draw(st.integers(1, 600)), draw(st.integers(1, 600))
        assume(a != b)
        ta = draw(st.sampled_from(S.duration_renderings(a)))
        tb = draw(st.sampled_from(S.duration_renderings(b)))
        return match_duration, (lambda e, t: match_field("duration", e, t)), a, b, f"{ta}{connector}{tb}"
    if kind == "number":
        a, b = draw(st.integers(0, 999)), draw(st.integers(0, 999))
        assume(a != b)
        unit = draw(st.sampled_from(["", "度", "个"]))
        return match_value, (lambda e, t: match_field("number", e, t)), a, b, f"{a}{unit}{connector}{b}{unit}"
    a = TODAY + dt.timedelta(days=draw(st.integers(-10, 10)))
    b = TODAY + dt.timedelta(days=draw(st.integers(-10, 10)))
    assume(a != b)
    text = f"{a.month}月{a.day}日{connector}{b.month}月{b.day}日"
    return (lambda e, t: match_date(e, t, SUNDAY)), (lambda e, t: match_field("date", e, t, SUNDAY)), a, b, text


@PROPS
@given(hedge())
def test_a_hedge_always_fails(case):
    in_text, in_field, a, b, text = case
    for value in (a, b):
        assert not in_text(value, text), text
        assert not in_field(value, text), text


# -- class 4 and 12: whole values, scales, approximations, ordered dates ------------------------------


@PROPS
@given(st.integers(1, 99_999), st.integers(1, 9), st.integers(1, 9))
def test_a_value_inside_a_longer_one_is_not_stated(n, digit, minor):
    # (a trailing .0 is the same version: Android 14.0 is 14)
    assert not match_value(str(n), f"共{digit}{n}元")
    assert not match_value(str(n), f"共{n}{digit}元")
    assert not match_value(str(n), f"MIUI {n}.{minor}")
    assert match_value(f"{n}.{minor}", f"MIUI {n}.{minor}")


@PROPS
@given(st.sampled_from("东南西北"), st.sampled_from("东南西北"))
def test_a_compass_direction_is_not_inside_another(first, second):
    assume(first != second)
    assert not match_value(f"{second}风", f"现在刮{first}{second}风")
    assert match_value(f"{first}{second}风", f"现在刮{first}{second}风")


@PROPS
@given(st.integers(1, 9999))
def test_wan_scales(tenths):
    value = tenths * 1000
    assert match_value(value, f"粉丝{tenths / 10:g}万")
    assert match_field("number", value, f"{tenths / 10:g}万")


@PROPS
@given(st.integers(1, 500), st.sampled_from(["约{n}度", "大约{n}度", "大概{n}度", "{n}度左右", "{n}多度", "差不多{n}度",
                                             "about {n} degrees", "不到{n}度", "超过{n}度"]))
def test_an_approximation_is_not_an_exact_value(n, form):
    assert not match_value(n, form.format(n=n))


@PROPS
@given(st.integers(1, 8))
def test_adjacent_numerals_are_an_approximation(d):
    text = f"大概有{S.to_chinese(d)}{S.to_chinese(d + 1)}个"
    for k in (d, d + 1, 10 * d + d + 1):
        assert not match_value(k, text)


@PROPS
@given(st.integers(1, 12), st.integers(1, 12))
def test_month_and_day_keep_their_order(m, d):
    assume(m != d)
    day = dt.date(2026, m, d)
    assert match_date(day, f"{m}月{d}日")
    assert not match_date(day, f"{d}月{m}日")


# -- class 6: lists are sets ------------------------------------------------------------------------


@PROPS
@given(st.sets(st.integers(0, 6), min_size=1, max_size=6), st.sampled_from(["有雨", "下雨", "有小雨", "会下雨"]), st.data())
def test_a_rain_list_is_a_set_and_an_extra_day_fails(days, rain, data):
    dates = [TODAY + dt.timedelta(days=k) for k in sorted(days)]
    listed = "、".join(f"{d.month}月{d.day}日" for d in dates)
    assert rain_days(f"{listed}{rain}", SUNDAY) == set(dates)
    extra = data.draw(st.sampled_from([k for k in range(7) if k not in days]))
    more = TODAY + dt.timedelta(days=extra)
    assert rain_days(f"{listed}和{more.month}月{more.day}日{rain}", SUNDAY) != set(dates)
    assert rain_days(f"{listed}{rain}，{more.month}月{more.day}日晴", SUNDAY) == set(dates)
