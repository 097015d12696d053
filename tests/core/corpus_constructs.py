"""The constructs of the phrasing corpus: how an answer claims a value (tests/core/corpus_grammar.py).

Each construct takes a drawn context (the value, a wrong one, their renderings, the lead words)
and returns (answer body, verdict, answer_grounded verdict or None where the seeds leave that
path open, form), or None when it does not apply to the context. The verdict is the claim's, by
construction: a correction claims the corrected value, a hedge claims neither alternative, a
question and its denial claim what follows the denial.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import corpus_values as V


@dataclass
class _Ctx:
    """What one composition draws: the value, a wrong one, how they read, the lead words."""

    r: Any
    kind: str
    lang: str  # the frame's language
    vlang: str  # the value's language (differs from lang in a mixed answer)
    truth: Any
    wrong: Any
    render: Callable[[Any], tuple[str, str]]  # value -> (form, text)
    lead: str  # the words before the value
    tail: str = ""
    expected: Any = None
    quantity: V.Quantity | None = None
    subject: str = ""
    other: str = ""
    screen_of: Callable[[Any], str] = str
    extra: dict[str, Any] = field(default_factory=dict)

    def say(self, value_text: str) -> str:
        return f"{self.lead}{value_text}{self.tail}"


def _pick(r, seq):
    return seq[r.randrange(len(seq))]


def _bold(r, text: str) -> str:
    return f"**{text}**" if r.random() < 0.12 else text


# -- constructs: how the answer claims the value ---------------------------------------------
# Each returns (answer body, verdict, grounded verdict or None when not judged there, form),
# or None when the construct does not apply to the drawn context.

APPROX_ZH = ("大约{}", "约{}", "大概{}", "{}左右", "预计{}")
APPROX_EN = ("about {}", "around {}", "approximately {}", "roughly {}")
CORRECT_ZH = ("{w}，修正后为{t}", "{w}，更正为{t}", "{w}，抱歉看错了，是{t}", "{w}——不对，是{t}", "{t}（之前说的{w}是我数错了）")
CORRECT_EN = ("{w}, actually {t}", "{w}. Sorry, I misread: it's {t}", "{w}, scratch that, {t}")


def _plain(c: _Ctx, ok: bool):
    form, text = c.render(c.truth if ok else c.wrong)
    if c.kind == "name" and ok and c.extra["family"] == "condition" and c.r.random() < 0.4 and c.lang == "zh":
        text += "转" + _pick(c.r, [x for x, _, _ in V.CONDITIONS if x not in (c.truth, "晴")] or ["阴"])
        form = "turns_into"  # seed 004: 天气多云转晴 states 多云
    if c.kind == "name" and c.extra["family"] == "verified":
        text, ok = (("已" + text) if ok else text), ok  # 已通过 / 未通过 (seed 004's substring trap)
        form = "verified"
    grounded = ok if (c.kind != "name" or form == "quoted") else None
    return c.say(_bold(c.r, text)), ok, grounded, form


def plain(c: _Ctx):
    return _plain(c, True)


def wrong(c: _Ctx):
    return _plain(c, False)


def approx(c: _Ctx, ok: bool = True):
    if c.kind in ("name",):
        return None
    form, text = c.render(c.truth if ok else c.wrong)
    if c.kind == "date":
        if c.lang != "zh":
            return None
        return f"预计{_base(c)}在{text}", ok, ok, form
    else:
        pattern = _pick(c.r, APPROX_ZH if c.lang == "zh" else APPROX_EN)
    return c.say(pattern.format(text)), ok, ok, form


def approx_wrong(c: _Ctx):
    return approx(c, False)


def tolerance(c: _Ctx):
    if c.kind != "time":
        return None
    k = c.r.choice((-5, -4, -3, -2, -1, 1, 2, 3, 4, 5))  # seed 000: ±5 minutes is the same time
    form, text = _pick(c.r, V.time_forms(*V.time_shift(*c.truth, k), c.vlang))
    return c.say(text), True, None, form


def hedge(c: _Ctx):
    if c.kind == "name":
        return None
    form, t = c.render(c.truth)
    _, w = c.render(c.wrong)
    a, b = (t, w) if c.r.random() < 0.5 else (w, t)
    joins = ["{}或{}"] if c.lang == "zh" else ["{} or {}"]
    if c.kind == "number" and c.quantity.name not in ("price",):
        joins.append("{}/{}")
    text = _pick(c.r, joins).format(a, b)
    if c.kind == "number" and c.quantity.name == "count" and c.lang == "zh" and abs(c.wrong - c.truth) == 1:
        lo, hi = sorted((int(c.truth), int(c.wrong)))
        text, form = f"{lo}-{hi}个", "range"  # 5-6个
    return c.say(text), False, False, form


def _base(c: _Ctx) -> str:
    """The lead without a final 是, so that a denial reads 下次响铃不是…, never 是不是… (a question)."""
    return c.lead[:-1] if c.lead.endswith("是") else c.lead


def negated(c: _Ctx):
    form, t = c.render(c.truth)
    if c.kind == "name" and c.extra["family"] == "verified":
        return c.say(_pick(c.r, ("没有通过", "未通过", "没通过"))), False, None, "verified"
    body = f"{_base(c)}不是{t}{c.tail}" if c.lang == "zh" else f"It is not {t}"
    return body, False, None, form


def negated_then(c: _Ctx):
    if c.kind == "name" and c.extra["family"] == "verified":
        return None
    form, t = c.render(c.truth)
    _, w = c.render(c.wrong)
    body = f"{_base(c)}不是{w}，是{t}" if c.lang == "zh" else f"{c.lead}not {w} but {t}"
    return body, True, None, form


def _correction(c: _Ctx, ok: bool):
    if c.kind == "name" and c.extra["family"] == "verified":
        return None
    form, t = c.render(c.truth)
    _, w = c.render(c.wrong)
    if not ok:
        t, w = w, t
    pattern = _pick(c.r, CORRECT_ZH if c.lang == "zh" else CORRECT_EN)
    return c.say(pattern.format(w=w, t=t)), ok, ok if c.kind != "name" or form == "quoted" else None, form


def correction(c: _Ctx):
    return _correction(c, True)


def correction_back(c: _Ctx):
    return _correction(c, False)


def question_denial(c: _Ctx):
    if c.kind == "name" and c.extra["family"] == "verified":
        return None
    ok = c.r.random() < 0.5
    form, t = c.render(c.truth)
    _, w = c.render(c.wrong)
    asked, said = (w, t) if ok else (t, w)
    if c.lang == "zh":
        body = f"{c.lead}{asked}吗？不是，是{said}"
    else:
        body = f"{c.lead}{asked}? No, it is {said}"
    return body, ok, None, form


def distractor_quantity(c: _Ctx):
    """Other readings of the same screen around the value (seed 004: 北京气温20度，湿度40%)."""
    if c.kind != "number" or c.quantity.name not in ("temperature", "humidity", "wind"):
        return None
    own = {"temperature": "气温", "humidity": "湿度", "wind": "风力"}[c.quantity.name]
    readings = [x for x in V.OTHER_READINGS if x[0] != own]
    used = {int(c.truth), int(c.wrong)}
    parts, shown = [], []
    for zh, en_, unit, lo, hi in c.r.sample(readings, 2):
        n = c.r.randint(lo, hi)
        while n in used:
            n = c.r.randint(lo, hi)
        used.add(n)
        parts.append(f"{zh}{n}{unit}" if c.lang == "zh" else f"{en_} {n}{unit}")
        shown.append(f"{zh} {n}{unit}")
    c.extra["screen_extra"] = shown
    sep = "，" if c.lang == "zh" else ", "
    if c.r.random() < 0.5:
        form, t = c.render(c.truth)
        return c.say(t) + sep + sep.join(parts), True, True, form
    # Every number on the page but the asked one (seed 004's noise negative).
    return (c.subject + sep.join(parts)) if c.lang == "zh" else sep.join(parts), False, True, "absent"


def distractor_subject(c: _Ctx):
    """Another subject's value beside the asked one's (seed 004: asked 北京, 上海28度)."""
    if not c.subject or not c.other:
        return None
    ok = c.r.random() < 0.5
    form, t = c.render(c.truth)
    _, w = c.render(c.wrong)
    mine, theirs = (t, w) if ok else (w, t)
    sep = "，" if c.lang == "zh" else "; "
    own = c.say(mine)
    name = c.subject if c.subject in own else c.extra.get("city_en", "")
    if not name or name not in own:
        return None
    other = own.replace(name, c.other, 1).replace(mine, theirs, 1)
    body = other + sep + own if c.r.random() < 0.5 else own + sep + other
    return body, ok, None, form


def distractor_time(c: _Ctx):
    """Another time or date beside the value: the clock now, an arrival time, today's date."""
    if c.kind not in ("time", "duration", "date"):
        return None
    ok = c.r.random() < 0.5
    form, text = c.render(c.truth if ok else c.wrong)
    sep = "，" if c.lang == "zh" else ", "
    if c.kind == "time":
        pre = "现在是上午10:00" if c.lang == "zh" else "It is 10:00 AM now"
        c.extra["screen_extra"] = ["10:00"]
    elif c.kind == "duration":
        pre = "13:10到达" if c.lang == "zh" else "arriving at 13:10"  # seed 004: G7010，1小时10分，13:10
        c.extra["screen_extra"] = ["13:10"]
    else:
        pre = "今天是4月5日" if c.lang == "zh" else "Today is April 5"
        c.extra["screen_extra"] = ["今天 4月5日"]
    return pre + sep + c.say(text), ok, ok, form


def count_of_days(c: _Ctx):
    """未来7日 counts days; it names no 7th (issue 22 item 14)."""
    if c.kind != "date" or c.lang != "zh":
        return None
    if c.truth.day == 7:
        return "未来7日以晴为主，" + c.say("4月9日"), False, None, "count_of_days"
    form, text = c.render(c.truth)
    return "未来7日里，" + c.say(text), True, None, form


def echo(c: _Ctx):
    """The question said back before the answer."""
    form, text = c.render(c.truth if (ok := c.r.random() < 0.6) else c.wrong)
    q = c.question or ("你的问题" if c.lang == "zh" else "your question")
    pre = f"您问的是“{q}”：" if c.lang == "zh" else f"You asked: \"{q}\". "
    return pre + c.say(text), ok, None, form


def clock_not_duration(c: _Ctx):
    """会议定在下午3:20 states no duration of 3小时20分 (issue 22 item 1)."""
    if c.kind != "duration" or c.lang != "zh" or not (60 < c.truth < 720) or c.truth % 60 == 0:
        return None
    h, m = divmod(c.truth, 60)
    body = _pick(c.r, (f"会议定在下午{h}:{m:02d}", f"晚上{h}:{m:02d}到家", f"车次下午{h}:{m:02d}发车"))
    return body, False, False, "clock_time"


def bound_seed(c: _Ctx):
    """Seed 004 lists 不到1小时 among the ways to say 0小时59分."""
    if c.kind != "duration" or c.truth != 59 or c.lang != "zh":
        return None
    return c.lead + "不到1小时", True, None, "bound"


def wrong_unit(c: _Ctx):
    """The number in another quantity's unit (°F for °C, m/s for 级: issue 22 item 5)."""
    if c.kind != "number":
        return None
    forms = V.wrong_unit_forms(c.quantity, c.truth, c.vlang)
    if not forms:
        return None
    return c.say(_pick(c.r, forms)), False, None, "other_unit"


def suffix_name(c: _Ctx):
    """A sequel number or a -/_ token makes another name (issue 22 item 3)."""
    if c.kind != "name" or c.extra["family"] not in ("title", "network"):
        return None
    other = c.extra.get("sequel") or c.extra["suffixed"]
    quoted = c.extra["family"] == "title" and c.r.random() < 0.5
    text = f"《{other}》" if quoted else other
    return c.say(text), False, False if quoted else None, "quoted" if quoted else "plain"


MARKERS = ("{i}. ", "{i}、", "- ", "({i}) ")
CLOSED = ("（已关闭）", "（未开启）", " — 已关闭", " (disabled)", " (off)")


def _listing(c: _Ctx, items: list[str], closed: list[str]) -> str:
    marker = _pick(c.r, MARKERS)
    rows = [(x, "") for x in items] + [(x, _pick(c.r, CLOSED)) for x in closed]
    c.r.shuffle(rows)
    return "\n".join(marker.format(i=i + 1) + x + note for i, (x, note) in enumerate(rows))


def list_markers(c: _Ctx):
    """A count stated over a numbered list: the item numbers are no count (issue 22 item 4)."""
    if c.kind != "number" or c.quantity.name != "count" or c.lang != "zh":
        return None
    ok = c.r.random() < 0.5
    n = int(c.truth) if ok else int(c.wrong)
    times = [V.hhmm(6 + i, 30 if i % 2 else 0) for i in range(n + 2)]
    closed = times[n:n + c.r.randint(0, 2)]
    head = f"开着的闹钟一共有{n}个：\n" if c.r.random() < 0.5 else f"共{n}个闹钟开着：\n"
    return head + _listing(c, times[:n], closed), ok, None, "marked_list"


CONSTRUCTS: dict[str, Callable[[_Ctx], Any]] = {
    f.__name__: f for f in (plain, wrong, approx, approx_wrong, tolerance, hedge, negated, negated_then,
                           correction, correction_back, question_denial, distractor_quantity,
                           distractor_subject, distractor_time, count_of_days, echo, clock_not_duration,
                           bound_seed, wrong_unit, suffix_name, list_markers)
}

# The question each kind of case answers (echoed back by `echo`; the device checks' goal).
QUESTIONS = {"temperature": "{s}现在多少度", "humidity": "{s}湿度是多少", "count": "开着的闹钟有几个",
             "price": "总共多少钱", "amount": "今天走了多少步", "wind": "{s}风力几级", "time": "{s}闹钟定在几点",
             "duration": "全程要多久", "date": "下次响铃是哪天", "name": "查一下"}

# (name, pattern, language: zh, en or "" for either)
WRAPPERS = (("none", "{}", ""), ("polite_zh", "好的，{}。", "zh"), ("screen_zh", "根据屏幕显示，{}。", "zh"),
            ("sure_en", "Sure! Here is the answer: {}.", "en"), ("bold_label_zh", "**答案**：{}", "zh"),
            ("bold_label_en", "**Answer:** {}", "en"), ("heading_zh", "### 查询结果\n\n{}\n", "zh"),
            ("heading_en", "### Result\n\n{}\n", "en"), ("bullet", "- {}", ""), ("quote", "> {}", ""),
            ("closing_zh", "{}。\n\n希望对你有帮助！", "zh"), ("closing_en", "{}.\n\nLet me know if you need more!", "en"),
            ("based_en", "Based on the screen, {}.", "en"), ("numbered_one_zh", "结果如下：\n\n1. {}", "zh"),
            ("numbered_one_en", "Here is what I found:\n\n1. {}", "en"),
            ("md_sure_zh", "当然！以下是查询结果：\n\n**{}**", "zh"))

