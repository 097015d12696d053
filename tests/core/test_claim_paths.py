"""Issue 22, the claim classes, read alike on every path that reads an answer.

Named cases: tests/core/claim_cases.json, each run through every path of tests/claim_paths.py
(match_value, a task's pattern, has_close_number, the GUI free-text check, a GUI task in text
mode and on Path B, answer_regex, answer_contains, answer_grounded, a time sheet field).
Properties: one Hypothesis property per class, each over the paths, plus the claim readers
(more_of, rain_on, stated_list) and judges.subjects for full-width Latin.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
import strategies_matchers as S
from claim_paths import CLAIM_PATHS, PATHS, applies
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from judges.claims import TIE, more_of, rain_on
from judges.matchers import match_value
from judges.subjects import Subject, about
from suites.gui.answers import stated_list

CASES = json.loads((Path(__file__).parent / "claim_cases.json").read_text(encoding="utf-8"))["rows"]
PROPS = settings(max_examples=S.examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
SUNDAY = {"time": {"timestamp": 1775354400000}, "timezone": "Asia/Shanghai"}  # 2026-04-05 10:00
TOMORROW = dt.date(2026, 4, 6)


def _params():
    for row in CASES:
        for name in PATHS:
            if name not in row.get("skip", []) and applies(name, row["kind"], row.get("unit")):
                yield pytest.param(row, name, id=f"{row['class']}-{row['name']}-{name}")


@pytest.mark.parametrize("row,path", list(_params()))
def test_named_case_on_every_path(row, path):
    got = PATHS[path](row["kind"], row["expected"], row["answer"], row.get("unit"))
    assert got is row["claimed"], (row["answer"], row["expected"])


def test_every_named_case_runs_on_every_path_that_reads_it():
    """A row runs on each path that reads its kind (and asked unit); none silently on none."""
    for row in CASES:
        ran = [n for n in PATHS if n not in row.get("skip", []) and applies(n, row["kind"], row.get("unit"))]
        assert len(ran) >= 3, (row["name"], ran)
        assert all(PATHS[n](row["kind"], row["expected"], "", row.get("unit")) is not None for n in ran)


def test_every_class_has_positive_and_negative_cases():
    classes = {r["class"] for r in CASES}
    assert classes == {"2_corrections", "3_names", "4_list_markers", "5_units", "6_question_denied",
                       "7_negation_by_meaning", "8_full_width"}
    for c in classes:
        assert {r["claimed"] for r in CASES if r["class"] == c} == {True, False}, c


def _on_paths(kind, expected, answer, unit=None, paths=CLAIM_PATHS):
    """{path: verdict} on every path that reads this kind of value."""
    out = {}
    for name in paths:
        got = PATHS[name](kind, expected, answer, unit)
        if got is not None:
            out[name] = got
    assert out, "no path read the value"
    return out


def _all(verdicts, want):
    return {k: v for k, v in verdicts.items() if v is not want}


# -- class 2: a corrected or withdrawn value is not claimed; the correction is ----------------------

CORRECTIONS = [
    "{old}，修正后为{new}", "{old}，更正为{new}", "{old}，抱歉看错了，是{new}", "{old}——不对，是{new}", "{old}，不对，应为{new}",
    "{new}（之前说的{old}是我看错了）", "{old}，纠正一下，是{new}", "{old}。之前说的{old}是我数错了，是{new}",
    "{old}, actually {new}", "{old}. Sorry, I misread, it is {new}", "{old}, scratch that, {new}", "{old}, correction: {new}",
    "{old}. My mistake, it is {new}",
]


@PROPS
# (from 2: answer_grounded reads a 1 before a measure word as the article 一, 一度 / 一个, on purpose)
@given(st.integers(2, 99), st.integers(2, 99), st.sampled_from(["度", ""]), st.sampled_from(["温度是", "现在", ""]),
       st.sampled_from(CORRECTIONS))
def test_a_corrected_number_is_not_claimed_and_its_correction_is(old, new, unit, lead, shape):
    assume(old != new)
    answer = lead + shape.format(old=f"{old}{unit}", new=f"{new}{unit}")
    paths = CLAIM_PATHS + ("grounded",)
    assert not _all(_on_paths("number", new, answer, paths=paths), True), answer
    assert not _all(_on_paths("number", old, answer, paths=paths), False), answer


@PROPS
@given(st.sampled_from(["多云", "晴", "小雨", "阴", "东风", "北风"]), st.sampled_from(["多云", "晴", "小雨", "阴", "东风", "北风"]),
       st.sampled_from(["今天{old}，更正为{new}", "{old}——不对，是{new}", "今天{old}，抱歉看错了，是{new}", "今天{old}，实际上是{new}",
                        "{new}（之前说的{old}是我看错了）", "{old}，不对，应为{new}"]))
def test_a_corrected_phrase_is_not_claimed_and_its_correction_is(old, new, shape):
    assume(old != new)
    answer = shape.format(old=old, new=new)
    assert not _all(_on_paths("text", new, answer), True), answer
    assert not _all(_on_paths("text", old, answer), False), answer


@PROPS
@given(st.integers(0, 23), st.integers(0, 59), st.integers(1, 11),
       st.sampled_from(["闹钟是{old}，不对，是{new}", "闹钟是{old}，修正后为{new}", "{old}, actually {new}"]))
def test_a_corrected_time_is_not_claimed_in_free_text_or_a_field(h, m, shift, shape):
    old, new = f"{h:02d}:{m:02d}", f"{(h + shift) % 24:02d}:{m:02d}"
    answer = shape.format(old=old, new=new)
    paths = ("match", "value_text", "grounded", "field")
    assert not _all(_on_paths("time", new, answer, paths=paths), True), answer
    assert not _all(_on_paths("time", old, answer, paths=paths), False), answer


# -- class 3: a name with a suffix is another name -------------------------------------------------

NAMES_CN = ["唐人街探案", "流浪地球", "满江红", "熊出没"]
NAMES_LATIN = ["MyWifi", "Dune", "Avatar", "HomeNet"]
SUFFIX_CN = ["3", "2", "三", "第二部", "第3部"]
SUFFIX_LATIN = ["-5G", "_2G", " Part II", " 2", "2", " III", "-Guest"]
SHAPES = ["答案是{x}", "最火的是《{x}》", "是{x}。", "已连接{x}，信号良好"]


@PROPS
@given(st.one_of(st.tuples(st.sampled_from(NAMES_CN), st.sampled_from(SUFFIX_CN)),
                 st.tuples(st.sampled_from(NAMES_LATIN), st.sampled_from(SUFFIX_LATIN))),
       st.sampled_from(SHAPES))
def test_a_name_with_a_suffix_is_another_name(name_suffix, shape):
    name, suffix = name_suffix
    other = shape.format(x=name + suffix)
    assert not _all(_on_paths("text", name, other), False), other
    assert not _all(_on_paths("text", name, shape.format(x=name)), True), shape.format(x=name)


@PROPS
@given(st.sampled_from(["多云", "晴", "小雨", "阴"]), st.sampled_from(["转晴", "转多云", "有风", "28度", "，气温20度", "间晴"]))
def test_plain_text_keeps_running_on(word, rest):
    answer = f"天气{word}{rest}"
    assert not _all(_on_paths("text", word, answer), True), answer


# -- class 4: list markers are not values ----------------------------------------------------------

ITEMS = ["起床闹钟", "开会闹钟", "健身", "吃药", "读书会", "Morning run"]


@PROPS
@given(st.lists(st.sampled_from(ITEMS), min_size=2, max_size=5, unique=True),
       st.sampled_from(["{i}. ", "{i}、", "({i}) ", "{i}) "]), st.sampled_from(["\n", " ", "；"]),
       st.sampled_from(["", "开着的有：", "Here are the alarms:\n"]))
def test_item_numbers_are_no_values(items, marker, sep, intro):
    answer = intro + sep.join(marker.format(i=i + 1) + item for i, item in enumerate(items))
    for k in range(1, len(items) + 1):
        assert not _all(_on_paths("number", k, answer), False), (k, answer)
    stated = f"一共{len(items)}个：" + answer
    assert not _all(_on_paths("number", len(items), stated), True), stated


@PROPS
@given(st.lists(st.integers(0, 1439), min_size=3, max_size=5, unique=True), st.data(),
       st.sampled_from(["（已关闭）", " 已关闭", " (disabled)", " closed", "（已停用）"]),
       st.sampled_from(["{i}. ", "- ", "{i}、"]))
def test_an_item_marked_off_is_not_listed(minutes, data, off, marker):
    assume(all(abs(a - b) % 720 > 10 for a in minutes for b in minutes if a != b))
    closed = data.draw(st.sampled_from(range(len(minutes))))
    lines = [marker.format(i=i + 1) + f"{m // 60:02d}:{m % 60:02d}" + (off if i == closed else "")
             for i, m in enumerate(minutes)]
    got = stated_list("time", "\n".join(lines), None)
    want = [m for i, m in enumerate(minutes) if i != closed]
    assert len(got) == len(want), lines
    assert all((m // 60, m % 60) in readings for m, readings in zip(want, got)), lines


# -- class 5: the asked quantity decides the unit ----------------------------------------------------


@PROPS
@given(st.integers(1, 12), st.sampled_from(["m/s", " m/s", "米/秒", "米每秒", "km/h", " km/h", "公里/小时", "mph", " miles"]),
       st.sampled_from(["风速{v}", "东风，风速{v}", "wind speed {v}"]))
def test_a_value_in_another_unit_does_not_answer_the_asked_one(n, unit, shape):
    paths = ("match", "close_number", "value_text", "gui_text", "gui_path_b")
    answer = shape.format(v=f"{n}{unit}")
    assert not _all(_on_paths("number", n, answer, unit="级", paths=paths), False), answer
    force = shape.format(v=f"{n}{unit}") + f"，风力{n}级"
    assert not _all(_on_paths("number", n, force, unit="级", paths=paths), True), force


# -- class 6: a question followed by its denial states nothing -----------------------------------------


@PROPS
@given(st.sampled_from(["一样", "差不多", "相同", "20度", "多云"]),
       st.sampled_from(["{q}吗？不是，{o}", "{q}吗？不，{o}", "是{q}吗?不是的，{o}", "{q}吗？不对，{o}", "Is it {q}? No, {o}"]),
       st.sampled_from(["上海更冷", "差得远", "是晴天", "温度不同"]))
def test_a_question_followed_by_its_denial_states_nothing(q, shape, other):
    answer = shape.format(q=q, o=other)
    kind, expected = ("number", 20) if q == "20度" else ("text", q)
    assert not _all(_on_paths(kind, expected, answer), False), answer


@PROPS
@given(st.sampled_from(["一样热吗？不一样，{c}更热", "温度一样吗？不，{c}更热", "差不多吗？不，{c}热得多"]),
       st.sampled_from(["北京", "杭州"]))
def test_a_tie_asked_and_denied_is_no_tie(shape, city):
    assert more_of(shape.format(c=city), "北京", "杭州") == city


# -- class 7: negation by meaning ------------------------------------------------------------------

NULL_CN = ["下{t}的可能性为零", "{t}的概率为0", "今天下{t}的概率是0%", "出现{t}的几率为零", "下{t}的机会为0"]
NULL_EN = ["no chance of {t}", "zero chance of {t}", "the chance of {t} is 0%", "0% chance of {t}", "the probability of {t} is zero"]


@PROPS
@given(st.one_of(st.tuples(st.sampled_from(["雪", "雨", "冰雹"]), st.sampled_from(NULL_CN)),
                 st.tuples(st.sampled_from(["snow", "rain", "hail"]), st.sampled_from(NULL_EN))))
def test_a_likelihood_of_nothing_denies(thing_shape):
    thing, shape = thing_shape
    answer = shape.format(t=thing)
    assert not _all(_on_paths("text", thing, answer), False), answer
    likely = answer.replace("零", "60%").replace("0%", "60%").replace("为0", "为60%").replace("zero", "60%").replace(
        "no chance", "a 60% chance")
    assert not _all(_on_paths("text", thing, likely), True), likely


def test_rain_with_no_chance_is_no_rain():
    assert rain_on("明天下雨的可能性为零", TOMORROW, SUNDAY) is False
    assert rain_on("明天降雨概率为0%", TOMORROW, SUNDAY) is False
    assert rain_on("明天下雨的概率为80%", TOMORROW, SUNDAY) is True


# -- class 8: full-width Latin is Latin ---------------------------------------------------------------

LATIN_CITIES = ["Tokyo", "Osaka", "Paris", "London", "Berlin"]


@PROPS
@given(st.sampled_from(LATIN_CITIES), st.sampled_from(LATIN_CITIES), st.integers(-10, 40), st.integers(-10, 40),
       st.sampled_from(["{o} {y}°C, {a} {x}°C", "{a} is {x} degrees, {o} is {y} degrees", "{o} {y}度，{a} {x}度"]))
def test_a_full_width_name_names_its_subject(asked, other, x, y, shape):
    """Always written full width, so the property reaches the class under any seed."""
    assume(asked != other and x != y)
    subject = (Subject((asked,), tuple(c for c in LATIN_CITIES if c != asked)),)
    text = shape.format(a=S.full_width(asked), o=S.full_width(other), x=x, y=y)
    assert match_value(x, about(text, subject)), text
    assert not match_value(y, about(text, subject)), text


@PROPS
@given(st.sampled_from(LATIN_CITIES + ["MyWifi", "iPhone"]), st.sampled_from(["答案是{x}", "{x}。", "已连接{x}"]))
def test_a_full_width_value_reads_as_half_width(value, shape):
    half, full = shape.format(x=value), shape.format(x=S.full_width(value))
    assert _on_paths("text", value, full) == _on_paths("text", value, half)
    assert not _all(_on_paths("text", value, full), True), full


SUBJECT_CASES = [
    # (asked, others, expected, answer, stated): full-width names are names (class 8).
    ("Tokyo", ("Osaka",), 20, "Ｏｓａｋａ 25°C, Ｔｏｋｙｏ 20°C", True),
    ("Tokyo", ("Osaka",), 25, "Ｏｓａｋａ 25°C, Ｔｏｋｙｏ 20°C", False),
    ("北京", ("上海", "Shanghai"), 20, "Ｓｈａｎｇｈａｉ is 20 degrees", False),
    ("Paris", ("London",), 18, "ＬＯＮＤＯＮ 12度，ｐａｒｉｓ 18度", True),
]


@pytest.mark.parametrize("asked,others,expected,answer,stated", SUBJECT_CASES,
                         ids=[f"8_full_width-subject-{i}" for i in range(len(SUBJECT_CASES))])
def test_a_full_width_name_is_its_subject(asked, others, expected, answer, stated):
    assert match_value(expected, about(answer, (Subject((asked,), others),))) is stated


@pytest.mark.parametrize("answer,passed", [("Ｈａｎｇｚｈｏｕ 25°C, Ｂｅｉｊｉｎｇ 20°C", True),
                                           ("Ｂｅｉｊｉｎｇ 25°C, Ｈａｎｇｚｈｏｕ 20°C", False)])
def test_a_gui_task_reads_full_width_city_names(answer, passed):
    from gui_helpers import judge

    from suites.gui import tasks_weather as W

    v = judge(W.CheckCurrentTemp(city="beijing"), mode="text", answer=answer)
    assert (v.outcome == "pass") is passed, v.reason
