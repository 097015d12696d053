"""screen_has's fast path (suites.device.checks._shows_text) equals the plain one that scans every
screen (_shows_text_plain), and both equal the search as it was before phrase_hits was split
(written out here, so a change to judges.matchers.phrase_spans cannot move both sides at once).

The fast path reads a phrase needle off the folded text alone (judges.screens.folded) and scans
for a time needle only where the clock finder reads the wanted time (judges.screens.clocks).
"""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from judges.matchers import _squeezed, phrase_spans
from judges.names import whole as _whole
from judges.screens import clocks, folded
from judges.tokens import fold, scan
from suites.device.checks import Items, _show, _shows_text, _shows_text_plain, _time_needle
from suites.device.kinds import answer_grounded
from suites.device.model import AnswerGrounded
from device_helpers import state
from strategies_matchers import examples, full_width, time_renderings, to_chinese

_WS = re.compile(r"\s+")


def _phrase_before_split(needle: str, text: str) -> bool:
    """phrase_hits(needle, scan(text), asserted=False) as written before phrase_spans existed."""
    want = fold(needle).casefold()
    if not want.strip():
        return False
    hay = scan(text).text.casefold()
    spans = []
    pos = hay.find(want)
    while pos != -1:
        spans.append((pos, pos + len(want)))
        pos = hay.find(want, pos + 1)
    if not spans:
        sq_want = _WS.sub("", want)
        sq_hay, index = _squeezed(hay)
        pos = sq_hay.find(sq_want) if sq_want else -1
        while pos != -1:
            spans.append((index[pos], index[pos + len(sq_want) - 1] + 1))
            pos = sq_hay.find(sq_want, pos + 1)
    return any(_whole(hay, a, b, _WS.sub("", want)) for a, b in spans)


def _shows_before(needle: str, text: str) -> bool:
    """_shows_text as it was: every screen scanned."""
    want = _time_needle(needle)
    if want:
        return any(set(want) & set(t.value) for t in scan(text).tokens if t.kind == "time")
    if _phrase_before_split(needle, text):
        return True
    bare = fold(needle).strip()
    return bool(re.fullmatch(r"\d:\d{2}", bare)) and _phrase_before_split("0" + bare, text)


# -- strategies -------------------------------------------------------------------------------------

CODES = ["CMCC-8F2A", "CMCC-8F", "Xiaomi_5G_2F", "G11", "A380", "iPhone 15", "iPhone15", "PM2.5", "HX6730"]
MARKERS = ["备忘-b1", "备忘-b12", "traj-bench-03", "提醒-bench-14", "交电费-b1", "王小明-x", "闹钟-b2"]
WORDS = ["已保存", "闹钟", "设置", "下午", "上午", "早上", "晚上", "明天", "今晚", "正午", "午夜", "noon",
         "midnight", "am", "PM", "点", "分", "半", "差", "刻", "月", "日", "号", "年", "周一", "Dec", "at",
         "quarter past", "ten to", "o'clock", "不是", "或", "约", "标记", "结果", "更新于", "第", "项", "元", "¥"]
SPACES = [" ", "  ", "\t", "\n", "\u3000", "\xa0", ""]
CLOCK_NEEDLES = ["6:40", "06:40", "16:40", "18:40", "12:00", "00:00", "下午6点40", "六点四十", "早上6:40",
                 "6:75", "3:60", "7:05", "6点40分"]
NUMBERS = ["25", "125", "1,025", "25.00", "56088", "-5", "负5", "二十五", "1.2万", "8.9%", "12.5", "14"]


def _variant(draw, text: str) -> str:
    """One spelling of `text` that folding, casefolding or squeezing brings back (or not)."""
    how = draw(st.sampled_from(["same", "full", "upper", "lower", "swap", "spaced", "squeezed"]))
    if how == "full":
        return full_width(text)
    if how == "upper":
        return text.upper()
    if how == "lower":
        return text.lower()
    if how == "swap":
        return text.swapcase()
    if how == "spaced" and len(text) > 1:
        cut = draw(st.integers(1, len(text) - 1))
        return text[:cut] + draw(st.sampled_from(SPACES[:-1])) + text[cut:]
    if how == "squeezed":
        return _WS.sub("", text)
    return text


@st.composite
def clock_text(draw) -> str:
    h, m = draw(st.integers(0, 23)), draw(st.integers(0, 59))
    return draw(st.sampled_from(time_renderings(h, m)))


@st.composite
def needles(draw) -> str:
    kind = draw(st.sampled_from(["code", "marker", "clock", "clock_any", "number", "word", "free"]))
    if kind == "code":
        base = draw(st.sampled_from(CODES))
    elif kind == "marker":
        base = draw(st.sampled_from(MARKERS))
    elif kind == "clock":
        base = draw(st.sampled_from(CLOCK_NEEDLES))
    elif kind == "clock_any":
        base = draw(clock_text())
    elif kind == "number":
        base = draw(st.sampled_from(NUMBERS))
    elif kind == "word":
        base = draw(st.sampled_from(WORDS))
    else:
        base = draw(st.lists(st.sampled_from(list("6４0:点十四六ab B-_ ") + ["下午"]), min_size=1, max_size=6).map("".join))
    return _variant(draw, base)


@st.composite
def screens(draw, needle: str) -> str:
    """A screen of pieces: the needle in some spelling (or a near miss), other clocks, numbers,
    codes, words, Chinese numerals, whitespace of several kinds."""
    pieces = []
    for _ in range(draw(st.integers(0, 7))):
        kind = draw(st.sampled_from(["needle", "near", "clock", "number", "code", "marker", "word", "cn", "space", "char"]))
        if kind == "needle":
            pieces.append(_variant(draw, needle))
        elif kind == "near":
            # The needle with a digit or a letter glued to one side: whole-value rules decide.
            pieces.append(draw(st.sampled_from(["1", "0", "b", "Pro", "-2", ".5", "下午"])) + needle
                          if draw(st.booleans()) else needle + draw(st.sampled_from(["2", "0", "a", " Pro", ".5", ",000", " 下午"])))
        elif kind == "clock":
            pieces.append(_variant(draw, draw(clock_text())))
        elif kind == "number":
            pieces.append(_variant(draw, draw(st.sampled_from(NUMBERS + [str(draw(st.integers(0, 99999)))]))))
        elif kind == "code":
            pieces.append(_variant(draw, draw(st.sampled_from(CODES))))
        elif kind == "marker":
            pieces.append(_variant(draw, draw(st.sampled_from(MARKERS))))
        elif kind == "word":
            pieces.append(draw(st.sampled_from(WORDS)))
        elif kind == "cn":
            pieces.append(to_chinese(draw(st.integers(0, 100))))
        elif kind == "space":
            pieces.append(draw(st.sampled_from(SPACES)))
        else:
            pieces.append(draw(st.characters(codec="utf-8", exclude_categories=("Cs",))))
    return "".join(pieces)


@st.composite
def needle_and_screen(draw) -> tuple[str, str]:
    needle = draw(needles())
    return needle, draw(screens(needle))


PROPS = settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow])


# -- properties ---------------------------------------------------------------------------------------


@PROPS
@given(needle_and_screen())
@example(("06:40", "12月6am 早上六点四十"))
@example(("06:00", "12月6am"))  # find_times reads 6am, the scan's date 12月6 covers it: not shown
@example(("6:75", "编号 06:75"))
@example(("CMCC-8F2A", "ＷＩＦＩ ｃｍｃｃ－８ｆ２ａ 已连接"))
def test_fast_path_equals_plain_path(case: tuple[str, str]) -> None:
    needle, text = case
    fast = _shows_text(needle, text)
    assert fast == _shows_text_plain(needle, text)
    assert fast == _shows_before(needle, text)


@PROPS
@given(st.lists(st.sampled_from(list("ab 6:40点下午Ａ１\t\n\u3000\xa0\u2028\x1c\x85") + ["12月", "am", "noon"]), max_size=30).map("".join))
def test_cheap_readings_agree_with_the_scan(text: str) -> None:
    s = scan(text)
    assert folded(text) == s.text
    # Every reading of a time token of the scan is among the clock finder's readings.
    assert {r for t in s.tokens if t.kind == "time" for r in t.value} <= clocks(text)
    # The squeezed text phrase_spans tests before it builds an index is _squeezed's text.
    assert "".join(text.split()) == _squeezed(text)[0]


@PROPS
@given(needle_and_screen())
def test_phrase_spans_is_phrase_hits_on_the_folded_text(case: tuple[str, str]) -> None:
    from judges.matchers import phrase_hits

    needle, text = case
    s = scan(text)
    assert phrase_spans(needle, s.text) == phrase_hits(needle, s, asserted=False)


# -- named cases: each breaks a filter that rejects too much ----------------------------------------


@pytest.mark.parametrize(
    ("needle", "screen", "shown"),
    [
        ("备忘-b1", "备忘－Ｂ１ 已保存", True),  # full-width letters and digits, upper case
        ("CMCC-8F2A", "Wi-Fi: cmcc-8f2a", True),  # case
        ("cmcc-8f2a", "ＣＭＣＣ－８Ｆ２Ａ", True),  # full width and case at once
        ("iPhone 15", "iphone15 128GB", True),  # spaces dropped on the screen
        ("iPhone15", "iPhone   15", True),  # spaces added on the screen
        ("王小明-x", "联系人 王小明 - x", True),  # spaces inside the marker
        ("提醒-b1", "提醒-b1\u3000明天", True),  # ideographic space after it
        ("备忘-b1", "备忘-b12", False),  # whole values only
        ("iPhone 15", "iPhone 15 Pro", False),
        ("25", "¥125", False),
        ("二十五", "共25元", True),  # Chinese numerals fold to digits on both sides
        ("6:75", "编号 06:75", True),  # not a time: the leading-zero retry finds 06:75
        ("06:40", "闹钟 ６：４０", True),  # a time needle, full-width clock
        ("06:40", "早上六点四十分 响铃", True),  # Chinese numerals
        ("6:40", "06:40", True),
        ("06:40", "下午6点40", False),
        ("06:40", "16:40", False),
        ("06:40", "6:40 下午", False),
        ("06:00", "12月6am", False),  # the clock finder reads 6am; the scan's date covers it
        ("20:00", "Dec8pm", False),
        ("12:00", "正午 开会", True),  # a time with no digit at all
    ],
)
def test_named_cases(needle: str, screen: str, shown: bool) -> None:
    assert _shows_text(needle, screen) is shown
    assert _shows_text_plain(needle, screen) is shown


# -- answer_grounded reads the last screens lazily, newest first ------------------------------------

ANSWER_PIECES = ["闹钟是", "《三体》", "“霸王别姬”", "状态: 已发货", "共", "，", "。", "和", "约", "不是", "1. ", "第一条"]


@st.composite
def grounded_case(draw) -> tuple[str, list[str], int]:
    """An answer of items and the screens that may show them (in some spelling) or not."""
    parts = []
    for _ in range(draw(st.integers(0, 5))):
        kind = draw(st.sampled_from(["clock", "number", "code", "word"]))
        if kind == "clock":
            parts.append(draw(clock_text()))
        elif kind == "number":
            parts.append(draw(st.sampled_from(NUMBERS)))
        elif kind == "code":
            parts.append(draw(st.sampled_from(CODES + MARKERS)))
        else:
            parts.append(draw(st.sampled_from(ANSWER_PIECES)))
    answer = " ".join(parts)
    shots = []
    for _ in range(draw(st.integers(0, 6))):
        bits = [_variant(draw, p) for p in parts if draw(st.booleans())]
        if draw(st.booleans()):
            bits.append(draw(screens(draw(st.sampled_from(parts or ["06:40"])))))
        shots.append(" ".join(bits))
    return answer, shots, draw(st.integers(1, 6))


@PROPS
@given(grounded_case())
@example(("闹钟是 06:40 和 《三体》", ["三体 6:40", "无关", "06:40"], 3))
@example(("共 25 元 CMCC-8F2A", ["cmcc-8f2a", "共25元"], 5))
def test_answer_grounded_equals_reading_every_screen(case: tuple[str, list[str], int]) -> None:
    answer, shots, window = case
    run = state(answer, [(t, None) for t in shots])
    got = answer_grounded(AnswerGrounded(minItems=1, window=window), run)
    # Every one of the last screens read, as answer_grounded did before it read them lazily.
    screens_read = [Items(s.text, items=False) for s in run.last_screens(window)]
    items = Items(answer, items=True).items()
    want = [_show(k, v) for k, v in items if not any(s.grounds(k, v) for s in screens_read)]
    assert got.actual["ungrounded"] == want
    assert got.passed == (bool(items) and not want)
