"""Hypothesis strategies for judges.matchers: the many ways an agent writes one value.

Each strategy draws a value together with one rendering of it, so a property can say "every
rendering of X matches X". Renderings are written independently of the parser under test.
"""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

from hypothesis import strategies as st

CN_DIGITS = "零一二三四五六七八九"


def to_chinese(n: int) -> str:
    """Chinese numeral for 0 <= n < 10**8, as a person writes it (十二, 一百零五, 三万六千六百五十)."""
    if n == 0:
        return "零"
    if n < 10_000:
        return _under_wan(n, top=True)
    high, low = divmod(n, 10_000)
    text = _under_wan(high, top=True) + "万"
    if low:
        text += ("零" if low < 1000 else "") + _under_wan(low, top=False)
    return text


def _under_wan(n: int, top: bool) -> str:
    digits = [n // 1000, n // 100 % 10, n // 10 % 10, n % 10]
    units = ["千", "百", "十", ""]
    parts: list[str] = []
    pending_zero = False
    for d, unit in zip(digits, units):
        if d == 0:
            pending_zero = bool(parts)
            continue
        if pending_zero:
            parts.append("零")
            pending_zero = False
        parts.append(CN_DIGITS[d] + unit)
    text = "".join(parts)
    # 12 is 十二 on its own but 一百一十二 inside a larger number.
    if top and 10 <= n < 20:
        text = text[1:]
    return text


def full_width(text: str) -> str:
    """The full-width form of the ASCII in `text`, as a Chinese input method types it."""
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


# Text dense in the pieces the normaliser rewrites, so idempotence is tested where it is hard.
tricky_text = st.lists(
    st.sampled_from(
        list("零〇一二两三四五六七八九十百千万亿点分钟时刻半下午上晚好之负第周星期样起")
        + list("0123456789.,:-% ０１２３：，")
        + ["百分之", "零下", "十分", "一点", "万一", "星期一", "下午"]
    ),
    max_size=20,
).map("".join)

# ---------------------------------------------------------------------------------------------
# Times of day
# ---------------------------------------------------------------------------------------------

# The period words a person would use for each hour, with the clock-face hour said after them.
def _periods(h: int) -> list[tuple[str, int]]:
    if h == 0:
        return [("凌晨", 12), ("凌晨", 0), ("晚上", 12), ("半夜", 12)]
    if 1 <= h <= 4:
        return [("凌晨", h), ("半夜", h)]
    if h == 5:
        return [("凌晨", 5), ("早上", 5)]
    if 6 <= h <= 8:
        return [("早上", h), ("清晨", h), ("上午", h)]
    if 9 <= h <= 11:
        return [("上午", h)]
    if h == 12:
        return [("中午", 12), ("下午", 12)]
    if h == 13:
        return [("中午", 1), ("下午", 1)]
    if h <= 17:
        return [("下午", h - 12)]
    if h == 18:
        return [("傍晚", 6), ("下午", 6), ("晚上", 6)]
    return [("晚上", h - 12), ("傍晚", h - 12)] if h == 19 else [("晚上", h - 12)]


def _cn_minutes_digits(m: int) -> list[str]:
    forms = [f"点{m}分", f"点{m:02d}分"]
    if m == 0:
        forms += ["点", "点整", "点钟"]
    if m == 30:
        forms.append("点半")
    if m == 15:
        forms.append("点一刻")
    if m == 45:
        forms.append("点三刻")
    return forms


def _cn_minutes_numerals(m: int) -> list[str]:
    if m == 0:
        return ["点", "点整"]
    forms = [f"点{to_chinese(m)}分" if m >= 10 else f"点零{to_chinese(m)}分"]
    if m >= 10:
        forms.append(f"点{to_chinese(m)}")  # 两点二十: the 分 is often dropped
    if m == 30:
        forms.append("点半")
    return forms


def _hour_numerals(h12: int) -> list[str]:
    return ["两", "二"] if h12 == 2 else [to_chinese(h12)]


def time_renderings(h: int, m: int) -> list[str]:
    """Every way we expect an agent to write h:m (24-hour), with or without a period word."""
    out = [f"{h:02d}:{m:02d}", f"{h}:{m:02d}", f"{h}点{m}分", full_width(f"{h:02d}:{m:02d}")]
    for period, h12 in _periods(h):
        out += [f"{period}{h12}{tail}" for tail in _cn_minutes_digits(m)]
        out += [f"{period}{h12}:{m:02d}", full_width(f"{period}{h12}:{m:02d}")]
        out += [
            f"{period}{hour}{tail}"
            for hour in _hour_numerals(h12)
            for tail in _cn_minutes_numerals(m)
        ]
    h12 = h % 12 or 12
    for am, pm in (("AM", "PM"), ("am", "pm"), ("a.m.", "p.m."), ("A.M.", "P.M.")):
        mark = am if h < 12 else pm
        out += [f"{h12}:{m:02d} {mark}", f"{h12}:{m:02d}{mark}"]
        if m == 0:
            out.append(f"{h12} {mark}")
    return out


TIME_SENTENCES = [
    "{}",
    "闹钟定在{}",
    "会议{}开始，请准时参加",
    "列车预计{}到达",
    "The train leaves at {}.",
    "好的，已为您查到：{}。",
]

hours = st.integers(0, 23)
minutes = st.integers(0, 59)
minute_of_day = st.integers(0, 1439)


@st.composite
def rendered_time(draw, minute: int | None = None):
    """(minute of day, one rendering of it inside one sentence)."""
    t = draw(minute_of_day) if minute is None else minute
    text = draw(st.sampled_from(time_renderings(*divmod(t, 60))))
    return t, draw(st.sampled_from(TIME_SENTENCES)).format(text)


# ---------------------------------------------------------------------------------------------
# Durations
# ---------------------------------------------------------------------------------------------


def duration_renderings(total: int, whole_text: bool = False) -> list[str]:
    """Every way we expect an agent to write a duration of `total` minutes."""
    h, mm = divmod(total, 60)
    out = [
        f"{total}分钟",
        f"{h}小时{mm}分",
        f"{h}小时{mm}分钟",
        f"{h}:{mm:02d}",
        f"{h}h{mm}m",
        f"{h} hr {mm} min",
        f"{h} {'hour' if h == 1 else 'hours'} {mm} {'minute' if mm == 1 else 'minutes'}",
        f"{total} {'minute' if total == 1 else 'minutes'}",
        f"{to_chinese(total)}分钟",
        full_width(f"{total}分钟"),
    ]
    if h >= 1 and mm >= 1:
        out.append(f"{to_chinese(h)}小时{to_chinese(mm)}分钟")
        out.append(f"{to_chinese(h)}个小时{'零' if mm < 10 else ''}{to_chinese(mm)}分")
    if h == 2:
        out.append(f"两小时{mm}分钟")
    if h >= 1 and mm == 0:
        out += [f"{h}小时", f"{h}个小时", f"{to_chinese(h)}个小时", f"{h}h"]
        out.append(f"{h} {'hour' if h == 1 else 'hours'}")
    if mm == 30:
        out += [f"{h}.5小时", f"{h}.5 hours"]
        if h >= 1:
            out += [f"{h}个半小时", f"{to_chinese(h)}个半小时", f"{h}小时半"]
    if mm in (15, 45):
        out.append(f"{h}.{25 if mm == 15 else 75}小时")
    if total == 30:
        out += ["半小时", "半个小时", "half an hour"]
    if total == 15:
        out.append("一刻钟")
    if total == 45:
        out.append("三刻钟")
    if whole_text:
        out.append(str(total))  # a bare integer is minutes only when it is the whole answer
    return out


DURATION_SENTENCES = ["{}", "全程用时{}", "需要{}。", "It takes {} in total."]
duration_minutes = st.integers(0, 2000)


@st.composite
def rendered_duration(draw, total: int | None = None):
    """(total minutes, one rendering of it, possibly inside a sentence)."""
    t = draw(duration_minutes) if total is None else total
    sentence = draw(st.sampled_from(DURATION_SENTENCES))
    text = draw(st.sampled_from(duration_renderings(t, whole_text=sentence == "{}")))
    return t, sentence.format(text)


# ---------------------------------------------------------------------------------------------
# Dates
# ---------------------------------------------------------------------------------------------

MONTH_NAMES = [
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
]
WEEKDAYS_EN = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
WEEKDAYS_CN = ["一", "二", "三", "四", "五", "六", "日"]
ZONES = ["Asia/Shanghai", "America/New_York", "Europe/London", "Pacific/Auckland"]
# Days whose neighbours cross a month, a year or a leap day.
BOUNDARY_DAYS = [
    dt.date(2024, 2, 28), dt.date(2024, 2, 29), dt.date(2024, 12, 31), dt.date(2025, 2, 28),
    dt.date(2023, 12, 31), dt.date(2024, 1, 1), dt.date(2025, 12, 30), dt.date(2024, 3, 31),
]


@st.composite
def simulated_now(draw):
    """(local date of now, os_state) with now at some second of that local day."""
    day = draw(
        st.one_of(
            st.sampled_from(BOUNDARY_DAYS), st.dates(dt.date(2001, 1, 1), dt.date(2090, 12, 31))
        )
    )
    zone = draw(st.sampled_from(ZONES))
    # 04:00-23:59 local: daylight-saving switches in these zones happen between 01:00 and 03:00.
    seconds = draw(st.integers(4 * 3600, 86_399))
    local = dt.datetime.combine(day, dt.time()) + dt.timedelta(seconds=seconds)
    stamp = local.replace(tzinfo=ZoneInfo(zone)).timestamp()
    ms = int(stamp * 1000)
    shape = draw(st.sampled_from(["nested", "flat"]))
    state = {"time": {"timestamp": ms} if shape == "nested" else ms, "timezone": zone}
    if zone == "Asia/Shanghai" and draw(st.booleans()):
        del state["timezone"]  # Asia/Shanghai is the default zone
    return day, state


def absolute_date_renderings(d: dt.date, with_day_only: bool) -> list[str]:
    """Ways to write `d` without relative words (some without the year)."""
    month = MONTH_NAMES[d.month - 1]
    out = [
        d.isoformat(),
        f"{d.year}年{d.month}月{d.day}日",
        f"{d.year}/{d.month}/{d.day}",
        f"{d.month}月{d.day}日",
        f"{d.month}月{d.day}号",
        f"{d.month:02d}-{d.day:02d}",
        f"{d.month}/{d.day}",
        f"{month} {d.day}",
        f"{month[:3]} {d.day}, {d.year}",
        f"{d.day} {month}",
        f"{to_chinese(d.month)}月{to_chinese(d.day)}日",
        full_width(f"{d.month}月{d.day}日"),
    ]
    if with_day_only:
        out += [f"{d.day}号", f"{d.day}日"]
    return out


DATE_SENTENCES = ["{}", "会议安排在{}", "下一次降雨是{}。", "It will rain on {}."]


# ---------------------------------------------------------------------------------------------
# Judge fidelity (issue 10): words, negations, formatting, hedges
# ---------------------------------------------------------------------------------------------


def examples(n: int) -> int:
    """CI example counts, scaled by TRAJ_HYPOTHESIS_SCALE for a long run (10 for 10x)."""
    import os

    return n * max(1, int(os.environ.get("TRAJ_HYPOTHESIS_SCALE", "1")))


CITIES = ["北京", "上海", "广州", "杭州", "成都"]

# Words with a numeral character that state no number: function words, idioms, places, brands,
# titles. Written here independently of the tokenizer's lexicon (a missing entry is a failure).
NUMERAL_BEARING_WORDS = [
    "一周", "未来一周", "三亚", "四川", "一样", "温度一样", "星期一", "万一", "查一下", "十分热", "一起",
    "一些", "一直", "一般", "一定", "三体", "二维码", "五台山", "九寨沟", "七夕", "八卦", "三国", "万达",
    "百度", "一加", "三星", "六安", "九江", "十堰", "老三", "初一", "周一", "礼拜天", "三明治", "两岸", "二手",
    "统一", "唯一", "之一", "千万别", "一会儿", "十二生肖", "四季", "五金", "一半", "一路", "一点儿", "好一点",
    "三心二意", "七上八下", "一带一路", "五颜六色", "千方百计", "万无一失", "四面八方", "十全十美",
]
# The numbers a careless reader would take from those words.
WORD_NUMERALS = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 100, 1000, 10000}


@st.composite
def numeric_answer(draw):
    """(n, one clause stating n)."""
    n = draw(st.integers(-50, 5000))
    form = draw(st.sampled_from(["{c}现在{n}度", "共{n}个", "{n}", "一共有{n}条", "{c}的湿度是{n}%"]))
    return n, form.format(c=draw(st.sampled_from(CITIES)), n=n)


STRING_VALUES = ["多云", "小雨", "晴", "东风", "西北风", "肖申克的救赎", "iPhone 15", "文件传输助手"]

SINGLE_CLAUSE_TIME_SENTENCES = ["{}", "闹钟定在{}", "列车预计{}到达", "The train leaves at {}"]
SINGLE_CLAUSE_DURATION_SENTENCES = ["{}", "全程用时{}", "需要{}", "It takes {} in total"]

# Clause-level negations a person writes around a whole claim.
NEGATION_WRAPPERS = ["不是{}", "并不是{}", "其实不是{}", "绝不是{}", "{}，不对", "It is not true that {}", "{}? No wait"]

# Alternatives: two values of one kind, offered together.
HEDGE_CONNECTORS = ["或", "或者", "还是", " or ", "，也可能是", "，或者"]


def ascii_to_full_width(text: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


def _is_cjk(ch: str) -> bool:
    return "\u4e00" <= ch <= "\u9fff"


def spaced_at_script_boundaries(text: str) -> str:
    """A space wherever Chinese meets Latin letters or digits (北京现在 20 度)."""
    out = []
    for i, ch in enumerate(text):
        if i and ch != " " and text[i - 1] != " ":
            a, b = text[i - 1], ch
            if (_is_cjk(a) and b.isascii() and b.isalnum()) or (a.isascii() and a.isalnum() and _is_cjk(b)):
                out.append(" ")
        out.append(ch)
    return "".join(out)


_WIDE_PUNCT = {",": "，", ":": "：", ";": "；", "!": "！", "?": "？", "(": "（", ")": "）"}


def swapped_punctuation(text: str) -> str:
    """Full-width marks for half-width ones and back (，↔, ：↔: …); a sentence-final "." ↔ "。"."""
    back = {v: k for k, v in _WIDE_PUNCT.items()}
    out = []
    for i, ch in enumerate(text):
        if ch in _WIDE_PUNCT:
            out.append(_WIDE_PUNCT[ch])
        elif ch in back:
            out.append(back[ch])
        elif ch == "。":
            out.append(".")
        elif ch == "." and i == len(text) - 1 and i > 0 and not text[i - 1].isalnum():
            out.append("。")
        else:
            out.append(ch)
    return "".join(out)


FORMATTINGS = {
    "full_width": ascii_to_full_width,
    "spaced": spaced_at_script_boundaries,
    "punctuation": swapped_punctuation,
    "final_stop": lambda t: t if t.endswith(("。", ".", "!", "?", "！", "？")) else t + "。",
    "padded": lambda t: f"  {t}\t",
    "doubled_spaces": lambda t: t.replace(" ", "  "),
}
