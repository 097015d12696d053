"""Values of the phrasing corpus and every way an answer may write them (tests/core/corpus_grammar.py).

Each kind of value knows its expected form (what a task holds: 28, "14:30", "1小时30分",
"2026-04-06", "多云"), the canonical form a screen shows, and the renderings an agent writes,
each tagged with the form's name so the corpus reports agreement per form. The renderings come
from the seeds (000: the matchers' examples; 004: the multi-format tables and match_value edge
cases; 003: thousands separators, signs) and from issue 22's named classes; a form whose reading
the seeds leave open is not here.

``r`` is a ``random.Random`` (or Hypothesis's): every choice is drawn from it, so a seed fixes
the corpus.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

DIGITS = "零一二三四五六七八九"
EN_ONES = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
           "sixteen seventeen eighteen nineteen").split()
EN_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()
NOW = dt.date(2026, 4, 5)  # the GUI world's os.time: 2026-04-05 10:00 Asia/Shanghai, a Sunday
NOW_CLOCK = "10:00"


def cn(n: int) -> str:
    """A Chinese numeral (0 <= n < 1000): 二十八, 一百零五, 十二."""
    if n < 10:
        return DIGITS[n]
    if n < 20:
        return "十" + (DIGITS[n % 10] if n % 10 else "")
    if n < 100:
        return DIGITS[n // 10] + "十" + (DIGITS[n % 10] if n % 10 else "")
    head, rest = DIGITS[n // 100] + "百", n % 100
    if rest == 0:
        return head
    if rest < 10:
        return head + "零" + DIGITS[rest]
    return head + DIGITS[rest // 10] + "十" + (DIGITS[rest % 10] if rest % 10 else "")


def cn_count(n: int) -> str:
    """A count before a measure word: 两个, not 二个."""
    return "两" if n == 2 else cn(n)


def en(n: int) -> str:
    """English number words (0 <= n < 100): twenty-eight."""
    if n < 20:
        return EN_ONES[n]
    return EN_TENS[n // 10] + ("-" + EN_ONES[n % 10] if n % 10 else "")


# -- numbers -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Quantity:
    """A numeric quantity a question asks: its words, its unit, the values it takes."""

    name: str
    unit: str | None  # the unit the question asks in (AnswerTask.unit), None when any fits
    zh: tuple[str, ...]  # how a Chinese answer names it before the value
    en: tuple[str, ...]
    lo: int
    hi: int
    screen_unit: str  # how the app's screen writes a value: "28°C"


QUANTITIES = (
    Quantity("temperature", "°C", ("现在", "气温", "温度是", "当前气温"), ("the temperature is", "it is"), -5, 39, "°C"),
    Quantity("humidity", None, ("湿度", "湿度为"), ("humidity is", "the humidity is"), 20, 95, "%"),
    Quantity("count", None, ("共有", "一共有"), ("there are",), 1, 12, "个"),
    Quantity("price", None, ("总共", "合计", "价格是"), ("the total is", "it costs"), 100, 999, "元"),
    Quantity("amount", None, ("步数为", "今天走了", "总计"), ("the step count is", "you walked"), 1000, 99999, "步"),
    Quantity("wind", "级", ("风力", "风力为"), ("the wind force is",), 1, 9, "级"),
)
BY_NAME = {q.name: q for q in QUANTITIES}

# Other readings of a weather screen, for distractor numbers: (zh label, en label, unit, lo, hi).
OTHER_READINGS = (("湿度", "humidity", "%", 20, 95), ("风力", "wind force", "级", 1, 9),
                  ("紫外线指数", "UV index", "", 1, 11), ("气温", "temperature", "度", -5, 39),
                  ("空气质量指数", "AQI", "", 20, 300))

# Thousands separators (issue 22 item 10; seed 003's 56,?088): no-break, narrow no-break and thin
# spaces, the apostrophe, and a plain space between three-digit groups.
SEPARATORS = (("sep_comma", ","), ("sep_nbsp", "\u00a0"), ("sep_nnbsp", "\u202f"), ("sep_thin", "\u2009"),
              ("sep_apostrophe", "'"), ("sep_space", " "))


def number_value(r, q: Quantity) -> float:
    if q.name == "price":
        return r.randint(q.lo * 10, q.hi * 10 + 9) / 10  # 278.2
    return r.randint(q.lo, q.hi)


def number_wrong(r, q: Quantity, v: float) -> float:
    """A close but wrong reading (seed 004: ±1, or another digit)."""
    if q.name == "price":
        return round(v + r.choice((-1, 1)) * r.choice((0.1, 1, 10)), 1)
    step = r.choice((1, 1, 2, 10)) if q.name in ("amount", "temperature", "humidity") else 1
    w = v + r.choice((-1, 1)) * step
    if q.name == "amount" and r.random() < 0.3:
        w = v + r.choice((-1, 1)) * 1000
    if w < q.lo or w > q.hi or (q.name == "temperature" and (v < 0) != (w < 0)):
        w = v - (w - v)
    return w


def screen_number(q: Quantity, v: float) -> str:
    if q.name == "price":
        return f"¥{v:.2f}"
    if q.name == "amount":
        return f"{int(v):,}步"
    return f"{int(v)}{q.screen_unit}"


def number_forms(q: Quantity, v: float, lang: str) -> list[tuple[str, str]]:
    """(form, text) for a value of the quantity, unit included, in `lang` (zh or en)."""
    out: list[tuple[str, str]] = []
    if q.name == "price":
        out += [("digits", f"{v:g}元"), ("trailing_zero", f"{v:.2f}元"), ("yuan_sign", f"¥{v:.2f}")]
        if lang == "en":
            out = [("trailing_zero", f"¥{v:.2f}"), ("digits", f"{v:g} yuan"), ("trailing_zero", f"{v:.2f} yuan")]
        return out
    n = int(v)
    if q.name == "amount":
        word = "步" if lang == "zh" else " steps"
        out.append(("digits", f"{n}{word}"))
        if n >= 1000:
            for tag, sep in SEPARATORS:
                out.append((tag, f"{n // 1000}{sep}{n % 1000:03d}{word}"))
        return out
    if q.name == "temperature":
        if lang == "en":
            out += [("digits", f"{n}°C"), ("digits", f"{n} degrees"), ("digits", f"{n} degrees Celsius")]
            if 0 <= n < 100:
                out.append(("en_words", f"{en(n)} degrees"))
            return out
        out += [("digits", f"{n}度"), ("digits", f"{n}°C"), ("digits", f"{n}℃"), ("digits", f"{n}摄氏度"),
                ("digits", f"{n}°")]
        if n >= 0:
            out.append(("cn_numeral", f"{cn(n)}度"))
        else:
            out += [("signed", f"零下{-n}度"), ("signed", f"负{-n}度"), ("signed", f"零下{cn(-n)}度")]
        return out
    if q.name == "humidity":
        out.append(("digits", f"{n}%"))
        if lang == "zh":
            out.append(("cn_numeral", f"百分之{cn(n)}"))
        else:
            out.append(("digits", f"{n} percent"))
        return out
    if q.name == "count":
        if lang == "en":
            noun = "alarm" if n == 1 else "alarms"
            return [("digits", f"{n} {noun}"), ("en_words", f"{en(n)} {noun}")]
        return [("digits", f"{n}个"), ("cn_numeral", f"{cn_count(n)}个")]
    if q.name == "wind":
        if lang == "en":
            return [("digits", f"force {n}"), ("digits", f"level {n}")]
        return [("digits", f"{n}级"), ("cn_numeral", f"{cn(n)}级")]
    raise ValueError(q.name)


def wrong_unit_forms(q: Quantity, v: float, lang: str) -> list[str]:
    """The number of the value in the unit of another quantity (issue 22 item 5; °F for °C)."""
    n = int(v)
    if q.name == "temperature":
        return [f"{n}°F", f"{n}华氏度", f"华氏{n}度"] if lang == "zh" else [f"{n}°F", f"{n} degrees Fahrenheit"]
    if q.name == "wind":
        return [f"风速{n} m/s", f"风速{n}米/秒", f"风速{n} km/h"] if lang == "zh" else [f"wind speed {n} m/s",
                                                                                       f"{n} km/h"]
    return []


# -- times of day ------------------------------------------------------------------------------


def period(h: int) -> str:
    if h < 5:
        return "凌晨"
    if h < 12:
        return "早上" if h < 9 else "上午"
    if h == 12:
        return "中午"
    if h < 18:
        return "下午"
    return "晚上"


def time_value(r) -> tuple[int, int]:
    return r.randint(1, 23), r.choice((0, 5, 10, 15, 20, 30, 30, 40, 45, 50, 54, 10, 25))


def time_shift(h: int, m: int, d: int) -> tuple[int, int]:
    t = (h * 60 + m + d) % 1440
    return t // 60, t % 60


def time_wrong(r, h: int, m: int) -> tuple[int, int]:
    """Another time: off by more than the tolerance, never by exactly 12 hours."""
    return time_shift(h, m, r.choice((-1, 1)) * r.choice((8, 10, 15, 30, 60, 120, 180)))


def time_forms(h: int, m: int, lang: str) -> list[tuple[str, str]]:
    """(form, text) for 24-hour (h, m): 14:30, 下午2点30分, 2:30 pm, 14h30, 下午两点半, bare 2:30."""
    h12 = h % 12 or 12
    out = [("hhmm", f"{h:02d}:{m:02d}" if h >= 10 else f"{h}:{m:02d}")]
    if lang == "zh":
        p = period(h)
        if not (h == 0):
            out.append(("cn_period", f"{p}{h12}点{m}分" if m else f"{p}{h12}点"))
            out.append(("cn_period_colon", f"{p}{h12}:{m:02d}"))
            out.append(("cn_numeral", f"{p}{cn_count(h12)}点{cn(m)}分" if m else f"{p}{cn_count(h12)}点整"))
            if m == 30:
                out.append(("cn_half", f"{p}{cn_count(h12)}点半"))
        out.append(("h24_dian", f"{h}点{m}分" if m else f"{h}点整"))
    else:
        suffix = "am" if h < 12 else "pm"
        if h != 0:
            out.append(("ampm", f"{h12}:{m:02d} {suffix.upper()}"))
            out.append(("ampm", f"{h12}:{m:02d}{suffix}"))
    out.append(("h_separator", f"{h}h{m:02d}"))
    if 10 <= h <= 23 and h != 12 and h12 != h:
        # Issue 22 item 9: a bare clock face reads either way, for every hour.
        out.append(("bare_clock_face", f"{h12}:{m:02d}"))
    return out


def hhmm(h: int, m: int) -> str:
    return f"{h:02d}:{m:02d}"


# -- durations ---------------------------------------------------------------------------------


def duration_value(r) -> int:
    return r.choice((r.randint(5, 59), r.randint(61, 299), 90, 60, 120, 45, 15, 30, 135, 70, 59))


def duration_wrong(r, minutes: int) -> int:
    w = minutes + r.choice((-1, 1)) * r.choice((1, 5, 10, 30, 60))
    return w if w > 0 else minutes + 10


def duration_expected(minutes: int) -> str:
    """As a task holds it: seed 000's "1小时30分", "0小时59分"."""
    return f"{minutes // 60}小时{minutes % 60}分"


def duration_forms(minutes: int, lang: str, *, context: bool) -> list[tuple[str, str]]:
    """(form, text); `context` says the sentence marks a duration (用时, 全程), where H:MM is one."""
    h, m = divmod(minutes, 60)
    out: list[tuple[str, str]] = []
    if lang == "zh":
        if h and m:
            out += [("h_m", f"{h}小时{m}分"), ("h_m", f"{h}小时{m}分钟"), ("cn_numeral", f"{cn(h)}小时{cn(m)}分钟")]
        elif h:
            out += [("h_m", f"{h}小时"), ("cn_numeral", f"{cn_count(h)}个小时"), ("cn_numeral", f"{cn(h)}小时")]
        else:
            out += [("h_m", f"{m}分"), ("cn_numeral", f"{cn(m)}分钟")]
        out += [("minutes", f"{minutes}分钟"), ("minutes", f"{minutes}分")]
        if m == 30:
            out.append(("cn_half", f"{cn_count(h)}个半小时" if h else "半小时"))
        if h == 0 and m in (15, 30, 45):
            out.append(("quarter", f"{cn_count(m // 15)}刻钟"))  # issue 22 item 12
    else:
        hours = f"{h} hour{'s' if h > 1 else ''}"
        if h and m:
            out += [("h_m", f"{hours} {m} minutes"), ("h_m", f"{h}h{m}m"), ("h_m", f"{h} hr {m} min")]
        elif h:
            out.append(("h_m", hours))
        out += [("minutes", f"{minutes} minutes"), ("minutes", f"{minutes} min")]
    if context and h and m:
        out.append(("h_colon_mm", f"{h}:{m:02d}"))
    return out


def screen_duration(minutes: int) -> str:
    return duration_expected(minutes)


# -- dates -------------------------------------------------------------------------------------

WEEK_ZH = "一二三四五六日"
WEEK_EN = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MONTH_EN = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
            "October", "November", "December")


def date_value(r) -> dt.date:
    return NOW + dt.timedelta(days=r.randint(1, 6))  # tomorrow .. next Saturday: weekdays resolve


def date_wrong(r, d: dt.date) -> dt.date:
    w = d + dt.timedelta(days=r.choice((-1, 1, 2, -2, 3)))  # never ±7: a weekday would name both
    return w if w > NOW else d + dt.timedelta(days=1 if d.day % 2 else 2)


def date_forms(d: dt.date, lang: str) -> list[tuple[str, str, bool]]:
    """(form, text, absolute) for a date after NOW and within a week of it."""
    k = (d - NOW).days
    wd = d.weekday()
    out = [("iso", d.isoformat(), True), ("mm_dd", f"{d.month:02d}-{d.day:02d}", True),
           ("slash", f"{d.month}/{d.day}", True)]
    if lang == "zh":
        out += [("md", f"{d.month}月{d.day}日", True), ("md_hao", f"{d.month}月{d.day}号", True),
                ("ymd", f"{d.year}年{d.month}月{d.day}日", True), ("cn_numeral", f"{cn(d.month)}月{cn(d.day)}日", True),
                ("weekday", f"周{WEEK_ZH[wd]}", False), ("weekday", f"星期{WEEK_ZH[wd]}", False)]
        if k == 1:
            out.append(("relative", "明天", False))
        if k == 2:
            out.append(("relative", "后天", False))
    else:
        month = MONTH_EN[d.month - 1]
        out += [("en_month", f"{month} {d.day}", True), ("en_month", f"{month[:3]} {d.day}", True),
                ("en_weekday", WEEK_EN[wd], False), ("en_weekday_abbr", WEEK_EN[wd][:3], False),
                ("en_weekday_abbr", WEEK_EN[wd][:3] + ".", False)]
        if k == 1:
            out.append(("relative", "tomorrow", False))
    return out


def screen_date(d: dt.date) -> str:
    return f"{d.month}月{d.day}日"


# -- names -------------------------------------------------------------------------------------

# (expected, a near synonym that differs, a suffixed other name or None, whether quotes fit)
CONDITIONS = (("多云", "阴天", None), ("小雨", "中雨", None), ("晴", "阴", None), ("雷阵雨", "大雨", None))
TITLES = (("唐人街探案", "唐人街探案3"), ("流浪地球", "流浪地球2"), ("三体", "三体2"), ("满江红", "满江红2"))
NETWORKS = (("MyWifi", ("MyWifi-5G", "MyWifi_5G")), ("HomeNet", ("HomeNet-Guest", "HomeNet_2G")))
FULL_WIDTH = ("Tokyo", "Paris", "London")  # cities an answer may write in full-width letters


def full_width(text: str) -> str:
    """Ｔｏｋｙｏ: ASCII letters moved to the full-width block (issue 22 item 8)."""
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)
