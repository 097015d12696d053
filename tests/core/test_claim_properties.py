"""Properties of judge fidelity (issue 10), per class, under Hypothesis.

CI runs modest example counts; ``TRAJ_HYPOTHESIS_SCALE=10`` multiplies them for a long run.
"""

from __future__ import annotations

import datetime as dt

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from judges.claims import outclaimed, rain_days
from judges.matchers import match_date, match_duration, match_field, match_time, match_value, stated_spans
from judges.subjects import Subject, about
from judges.tokens import scan

try:  # tests/ may or may not become a package; support both import styles
    from tests import strategies_matchers as S
    from tests.test_judge_fidelity import ALL as MATCHER_CASES
except ImportError:  # pragma: no cover - depends on how pytest was started
    import strategies_matchers as S  # type: ignore[no-redef]
    from core.test_grader_cases import ALL as MATCHER_CASES  # type: ignore[no-redef]

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
@given(st.integers(1, 500), st.sampled_from(["{n}多度", "将近{n}度", "几乎{n}度", "nearly {n} degrees",
                                             "不到{n}度", "超过{n}度", "{n}度以上"]))
def test_a_bound_is_not_an_exact_value(n, form):
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


# -- class 5: a value said of another subject never answers for the asked one ------------------------

ALARMS = ["起床", "开会", "健身", "吃药"]
FILLERS = ["", "现在", "今天", "的气温是", "当前", " "]


@st.composite
def said_of_two(draw):
    """(judge, subject, asked, other, value, another value, rendering of each): one value said of
    another subject of the asked one's kind."""
    kind = draw(st.sampled_from(["number", "phrase", "time"]))
    if kind == "time":
        names = ALARMS
        a, b = draw(S.minute_of_day), draw(S.minute_of_day)
        assume(all(min((a - b + k) % 1440, (b - a - k) % 1440) > 10 for k in (0, 720)))
        ra = draw(st.sampled_from(S.time_renderings(*divmod(a, 60))))
        rb = draw(st.sampled_from(S.time_renderings(*divmod(b, 60))))
        judge, v, w = match_time, hhmm(a), hhmm(b)
        filler = draw(st.sampled_from(["闹钟", "闹钟定在", "的闹钟是", "闹钟："]))
    else:
        names = S.CITIES
        filler = draw(st.sampled_from(FILLERS))
        if kind == "number":
            v, w = draw(st.integers(-30, 45)), draw(st.integers(-30, 45))
            assume(v != w)
            ra, rb = (draw(st.sampled_from([str(x), f"{x}度", f"{x}°C"] + ([f"{S.to_chinese(x)}度"] if x > 0 else [])))
                      for x in (v, w))
        else:
            v, w = draw(st.sampled_from(["多云", "小雨", "晴", "阴", "东风"])), draw(st.sampled_from(["雷阵雨", "大雪", "北风"]))
            ra, rb = v, w
        judge = match_value
    asked, other = draw(st.sampled_from(names)), draw(st.sampled_from(names))
    assume(asked != other)
    subject = Subject((asked,), tuple(n for n in names if n != asked))
    return judge, subject, asked, other, v, ra, rb, filler


@PROPS
@given(said_of_two(), st.sampled_from(["{o}{f}{x}", "{o}{f}{x}，{a}{f}{y}", "{a}{f}{y}，{o}{f}{x}", "{a}{f}{y}。{o}{f}{x}"]))
def test_a_value_said_of_another_subject_never_answers_for_the_asked_one(case, shape):
    judge, subject, asked, other, value, mine, theirs, filler = case
    # The asked subject's own clause states another value (or nothing); the value is the other's.
    text = shape.format(o=other, a=asked, f=filler, x=mine, y=theirs)
    assert not judge(value, about(text, (subject,))), text
    # The same words with the names swapped give the value to the asked subject.
    swapped = shape.format(o=asked, a=other, f=filler, x=mine, y=theirs)
    assert judge(value, about(swapped, (subject,))), swapped


# -- class 2 (English) and units -------------------------------------------------------------------


@PROPS
@given(st.integers(1, 999), st.sampled_from(["minus {n}", "negative {n}", "{n} below zero", "{n} degrees below zero",
                                              "minus {n} degrees", "{n}°C below zero"]))
def test_every_english_minus_is_negative(n, form):
    text = "It is " + form.format(n=n) + " now"
    assert match_value(-n, text), text
    assert not match_value(n, text), text


@PROPS
@given(st.integers(-40, 120), st.sampled_from(S.CITIES),
       st.sampled_from(["{c}现在{n}华氏度", "{c} {n}°F", "{c}华氏{n}度", "{c} is {n} degrees Fahrenheit", "{c}{n}\u2109"]))
def test_a_number_in_the_other_scale_never_states_a_celsius_value(n, city, form):
    text = form.format(c=city, n=n)
    assert not match_value(n, text, unit="°C"), text
    assert match_value(n, text, unit="°F"), text
    celsius = text.replace("华氏", "摄氏").replace("°F", "°C").replace("Fahrenheit", "Celsius").replace("\u2109", "\u2103")
    assert match_value(n, celsius, unit="°C"), celsius


# -- class 7: day words keep their period; a span given as an estimate states no time ------------------


@PROPS
@given(st.integers(6, 11), st.integers(0, 59), st.sampled_from(["今晚", "明晚", "昨晚", "tonight at "]),
       st.sampled_from(["{h}点{m}分", "{h}:{mm}"]))
def test_an_evening_day_word_is_evening(h, m, word, form):
    form = "{h}:{mm}" if word.isascii() else form  # English writes the clock, not 点/分
    text = word + form.format(h=h, m=m, mm=f"{m:02d}")
    assert match_time(f"{h + 12}:{m:02d}", text, tolerance_minutes=0), text
    assert not match_time(f"{h:02d}:{m:02d}", text), text


@PROPS
@given(st.integers(5, 11), st.integers(0, 59), st.sampled_from(["今早", "明早", "今晨", "明晨", "tomorrow morning at "]))
def test_a_morning_day_word_is_morning(h, m, word):
    text = f"{word}{h}:{m:02d}"
    assert match_time(f"{h:02d}:{m:02d}", text, tolerance_minutes=0), text
    assert not match_time(f"{h + 12}:{m:02d}", text), text


@PROPS
@given(st.integers(1, 10), st.sampled_from(["早上{a}点到{b}点之间", "大概{a}点到{b}点吧", "{a}点到{b}点左右", "约{a}:00-{b}:00",
                                            "between {a} and {b} am"]))
def test_a_span_given_as_an_estimate_states_neither_end(h, form):
    text = form.format(a=h, b=h + 1)
    for hour in (h, h + 1):
        assert not match_time(f"{hour:02d}:00", text), text
    assert match_time(f"{h + 1:02d}:00", f"营业到{h + 1}:00"), h


# -- class 5 (the claim): a rival claimed for the question outclaims a mention ---------------------------

TITLES = ["肖申克的救赎", "霸王别姬", "阿甘正传", "泰坦尼克号", "千与千寻", "这个杀手不太冷"]
QUESTION = "用网页查豆瓣电影 Top250 第一名是哪部电影"


def _claims(value: str, answer: str) -> bool:
    s = scan(answer)
    return any(not outclaimed(s, span, QUESTION) for span in stated_spans("exact", value, answer))


@PROPS
@given(st.sampled_from(TITLES), st.sampled_from(TITLES), st.integers(2, 10),
       st.sampled_from(["第一名是《{y}》，《{x}》排第{k}", "《{x}》排第{k}，第一名是《{y}》", "第一名是《{y}》，第{k}名是《{x}》",
                        "第一名是《{y}》，不过很多人以为是《{x}》"]))
def test_a_title_ranked_elsewhere_is_not_the_answer(x, y, k, shape):
    assume(x != y)
    text = shape.format(x=x, y=y, k=S.to_chinese(k))
    assert not _claims(x, text), text
    assert _claims(y, text), text


# -- exact fields: spacing and case are typing habits ----------------------------------------------------


@PROPS
@given(st.sampled_from(S.STRING_VALUES + ["Sunny", "New York", "小雨转多云"]), st.data())
def test_spacing_and_case_never_change_an_exact_field(value, data):
    spaced = "".join(ch + data.draw(st.sampled_from(["", "", " ", "\u3000"])) for ch in value)
    cased = "".join(ch.upper() if data.draw(st.booleans()) else ch.lower() for ch in spaced)
    assert match_field("exact", value, cased), cased
    assert match_field("exact", value, f" {cased}。")
