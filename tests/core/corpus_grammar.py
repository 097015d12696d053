"""A phrasing corpus with the truth known by construction (issue 22).

A small claim grammar, written from the seeds (000's matchers and Path A fields, 003's checks,
004's match_value edge cases and multi-format tables) and issue 22's named classes, composes
answers: a subject, a value in one of its renderings (corpus_values.py), a construct that says
how the answer claims it (plainly, approximately, as one of two alternatives, negated, corrected,
after a question and its denial, among distractors, in a marked list ...), a wrapper an LLM puts
around it (markdown, bullets, "Sure! Here is ..."), in Chinese, English or mixed. The grader's
verdict is fixed by the construct, never by reading the text back: a case passes when its claim
is the expected value.

``compose(r)`` builds one case from a ``random.Random``-like ``r``; ``generate(seed, n)`` is the
seeded deterministic corpus; ``cases()`` is the Hypothesis strategy (tests/core/corpus_paths.py
runs a case through every path that reads answers).
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass
from typing import Any, Callable, Iterator

import corpus_values as V
from corpus_constructs import (CONSTRUCTS, QUESTIONS, WRAPPERS, _Ctx, _listing, _pick, plain)

CITIES = (("北京", "Beijing"), ("上海", "Shanghai"), ("广州", "Guangzhou"), ("成都", "Chengdu"), ("杭州", "Hangzhou"))
ALARMS = ("起床", "上班", "午睡", "健身")
KINDS = ("number", "time", "duration", "date", "name", "times")


@dataclass(frozen=True)
class Case:
    """One generated answer and the verdict a careful grader gives it, by construction."""

    kind: str  # number, time, duration, date, name, or times (a list of times)
    expected: Any  # as a task holds it: 28, "14:30", "1小时30分", "2026-04-06", "多云", ["07:00", ...]
    answer: str
    verdict: bool
    construct: str
    form: str
    wrapper: str = "none"
    lang: str = "zh"
    unit: str | None = None  # the unit the question asks in
    quantity: str = ""
    subject: str = ""  # the asked subject (one of CITIES or ALARMS), "" when the question names none
    field: bool = False  # an AnswerSheet field value (Path A), not free text
    screen: str | None = None  # the last screen read, for answer_grounded; None: not judged there
    grounded: bool | None = None  # is every value the answer claims on that screen
    matcher_level: bool = True  # the verdict holds for a bare matcher (it needs no subject reading)
    device: bool = True  # judged by answer_contains/answer_regex (whose checks name no subject and no unit)
    question: str = ""

    def classes(self) -> dict[str, str]:
        """The grammar classes the case belongs to, one per dimension (agreement is per class)."""
        return {"kind": self.kind + (":" + self.quantity if self.quantity else ""), "construct": self.construct,
                "form": f"{self.kind}:{self.form}", "wrapper": self.wrapper, "lang": self.lang,
                "verdict": "pass" if self.verdict else "fail"}


# -- contexts per kind -----------------------------------------------------------------------


def _city(r) -> tuple[tuple[str, str], tuple[str, str]]:
    a, b = r.sample(range(len(CITIES)), 2)
    return CITIES[a], CITIES[b]


def _number_ctx(r, lang: str, vlang: str, quantity: str | None = None) -> _Ctx:
    q = V.BY_NAME[quantity] if quantity else _pick(r, V.QUANTITIES)
    v = V.number_value(r, q)
    w = V.number_wrong(r, q, v)
    forms = {x: V.number_forms(q, x, vlang) for x in (v, w)}

    def render(x):
        # The wrong value is written in the form the truth was, where it has one.
        return _pick(r, forms[x])

    (city, city_en), (other, other_en) = _city(r)
    subject = city if q.name in ("temperature", "humidity", "wind") else ""
    words = q.zh if lang == "zh" else q.en
    if lang == "zh":
        lead = f"{subject}{_pick(r, words)}"
    else:
        lead = (f"In {city_en}, " if subject else "") + _pick(r, words) + " "
    if q.name == "count":
        lead = "开着的闹钟一共有" if lang == "zh" else "There are "
        tail = "" if lang == "zh" else " switched on" if vlang == "en" else ""
    else:
        tail = ""
    ctx = _Ctx(r, "number", lang, vlang, v, w, render, lead, tail, expected=int(v) if q.name != "price" else v,
               quantity=q, subject=subject, screen_of=lambda x: V.screen_number(q, x))
    ctx.other = other if lang == "zh" or vlang == "zh" else other_en
    ctx.extra["city_en"] = city_en
    return ctx


def _time_ctx(r, lang: str, vlang: str) -> _Ctx:
    h, m = V.time_value(r)
    # Away from the distractor clock (上午10:00, and 22:00 on a bare clock face).
    while min(abs((h * 60 + m) - x) % 1440 for x in (600, 1320)) <= 20:
        h, m = V.time_value(r)
    w = V.time_wrong(r, h, m)
    while min(abs((w[0] * 60 + w[1]) - x) % 1440 for x in (600, 1320)) <= 20:
        w = V.time_wrong(r, h, m)
    forms = {x: V.time_forms(*x, vlang) for x in ((h, m), w)}
    label = _pick(r, ALARMS)
    lead = f"{label}闹钟定在" if lang == "zh" else f"The {label} alarm is set for " if vlang == "zh" else "The alarm rings at "
    ctx = _Ctx(r, "time", lang, vlang, (h, m), w, lambda x: _pick(r, forms[x]), lead, expected=V.hhmm(h, m),
               subject=label if (lang == "zh" or vlang == "zh") else "",
               screen_of=lambda x: V.hhmm(*x))
    ctx.other = _pick(r, [a for a in ALARMS if a != label])
    return ctx


def _duration_ctx(r, lang: str, vlang: str) -> _Ctx:
    minutes = V.duration_value(r)
    w = V.duration_wrong(r, minutes)
    context = lang == "zh" and vlang == "zh"
    lead = _pick(r, ("全程", "用时", "时长")) if context else ("The trip takes " if lang == "en" else "时长是")
    forms = {x: V.duration_forms(x, vlang, context=context) for x in (minutes, w)}
    return _Ctx(r, "duration", lang, vlang, minutes, w, lambda x: _pick(r, forms[x]), lead,
                expected=V.duration_expected(minutes), screen_of=V.screen_duration)


def _date_ctx(r, lang: str, vlang: str, *, absolute: bool = False) -> _Ctx:
    d = V.date_value(r)
    w = V.date_wrong(r, d)
    forms = {x: [f for f in V.date_forms(x, vlang) if f[2] or not absolute] for x in (d, w)}

    def render(x):
        form, text, _ = _pick(r, forms[x])
        return form, text

    lead = "下次响铃是" if lang == "zh" else "The next alarm rings on "
    ctx = _Ctx(r, "date", lang, vlang, d, w, render, lead, expected=d.isoformat(), screen_of=V.screen_date)
    ctx.extra["absolute"] = absolute
    return ctx


def _name_ctx(r, lang: str, vlang: str) -> _Ctx:
    family = _pick(r, ("condition", "title", "network", "full_width", "verified"))
    (city, _), (other, _) = _city(r)
    if family == "condition":
        truth, wrong, _ = _pick(r, V.CONDITIONS)
        lead, subject = (f"{city}今天天气" if lang == "zh" else f"The weather in {city} today is "), city
    elif family == "title":
        truth, sequel = _pick(r, V.TITLES)
        wrong = _pick(r, [t for t, _ in V.TITLES if t != truth])
        lead, subject = ("正在热映的是" if lang == "zh" else "Now showing: "), ""
    elif family == "network":
        truth, _ = _pick(r, V.NETWORKS)
        wrong = _pick(r, [n for n, _ in V.NETWORKS if n != truth])
        lead, subject = ("已连接的网络是" if lang == "zh" else "The phone is connected to "), ""
    elif family == "full_width":
        truth = _pick(r, V.FULL_WIDTH)
        wrong = _pick(r, [c for c in V.FULL_WIDTH if c != truth])
        lead, subject = ("你要找的城市是" if lang == "zh" else "The city you asked about is "), ""
    else:
        truth, wrong, lead, subject = "通过", "未通过", "实名核验", ""

    def render(x):
        if family == "full_width" and r.random() < 0.6:
            return "full_width", V.full_width(x)
        if family == "title" and r.random() < 0.5:
            return "quoted", f"《{x}》"
        return "plain", x

    ctx = _Ctx(r, "name", lang, vlang, truth, wrong, render, lead, expected=truth, subject=subject,
               screen_of=lambda x: f"《{x}》")
    ctx.other, ctx.extra["family"] = other, family
    if family == "title":
        ctx.extra["sequel"] = sequel
    if family == "network":
        ctx.extra["suffixed"] = _pick(r, dict(V.NETWORKS)[truth])
    return ctx


# Date forms that name the day without the clock (answer_grounded reads absolute dates only).
ABSOLUTE_DATE_FORMS = {"iso", "mm_dd", "slash", "md", "md_hao", "ymd", "cn_numeral", "en_month"}
_MULTILINE_WRAPPERS = {"none", "polite_zh", "screen_zh", "heading_zh", "heading_en", "closing_zh", "closing_en", "sure_en",
                       "numbered_one_zh", "numbered_one_en"}


def _context(r, kind: str, lang: str, vlang: str) -> _Ctx:
    if kind == "number":
        return _number_ctx(r, lang, vlang)
    if kind == "time":
        return _time_ctx(r, lang, vlang)
    if kind == "duration":
        return _duration_ctx(r, lang, vlang)
    if kind == "date":
        return _date_ctx(r, lang, vlang, absolute=r.random() < 0.5)
    return _name_ctx(r, lang, vlang)


def _langs(r) -> tuple[str, str, str]:
    lang = _pick(r, ("zh", "zh", "zh", "en", "mixed"))
    if lang == "mixed":
        frame = _pick(r, ("zh", "en"))
        return lang, frame, "en" if frame == "zh" else "zh"
    return lang, lang, lang


def _wrap(r, body: str, lang: str) -> tuple[str, str]:
    choices = [w for w in WRAPPERS if ("\n" not in body or w[0] in _MULTILINE_WRAPPERS)
               and (lang == "mixed" or w[2] in ("", lang))]
    name, pattern, _ = _pick(r, choices) if r.random() < 0.7 else WRAPPERS[0]
    if "**{}**" in pattern and "**" in body:
        name, pattern, _ = WRAPPERS[0]
    return name, pattern.format(body)


def _screen(c: _Ctx) -> str:
    parts = [f"{c.subject} {c.screen_of(c.truth)}".strip(), *c.extra.get("screen_extra", ())]
    return "\n".join(parts)


def compose_free(r, kind: str | None = None, construct: str | None = None) -> Case:
    """One free-text answer (text mode, Path B, the device checks)."""
    kind = kind or _pick(r, KINDS)
    if kind == "times":
        return compose_times(r)
    lang, frame, vlang = _langs(r)
    c = _context(r, kind, frame, vlang)
    c.question = QUESTIONS[c.quantity.name if c.quantity else kind].format(s=c.subject)
    names = [construct] if construct else list(CONSTRUCTS)
    r.shuffle(names)
    for name in names:
        got = CONSTRUCTS[name](c)
        if got is not None:
            break
    else:
        name, got = "plain", plain(c)
    body, verdict, grounded, form = got
    wrapper, answer = _wrap(r, body, lang)
    # answer_grounded reads absolute dates and quoted names only (seed 003 leaves the rest open):
    # a case is judged there when every value it writes is such an item.
    if kind == "date" and not c.extra["absolute"]:
        grounded = None
    if kind == "name" and name not in ("plain", "wrong", "suffix_name"):
        grounded = None
    if name == "wrong_unit":
        grounded = None
    if form in ("bare_clock_face",) or (c.quantity is not None and c.quantity.name == "count"):
        grounded = None
    return Case(kind=kind, expected=c.expected, answer=answer, verdict=verdict, construct=name, form=form,
                wrapper=wrapper, lang=lang, unit=c.quantity.unit if c.quantity else None,
                quantity=c.quantity.name if c.quantity else "", subject=c.subject,
                screen=_screen(c) if grounded is not None else None, grounded=grounded,
                matcher_level=name != "distractor_subject",
                device=name not in ("distractor_subject", "wrong_unit"), question=c.question)


def compose_times(r) -> Case:
    """A list of the alarms that are on, with markers and closed items (issue 22 item 4)."""
    lang = _pick(r, ("zh", "zh", "en"))
    hours = r.sample(range(6, 12), 4)
    minutes = [_pick(r, (0, 15, 30, 45)) for _ in hours]
    times = [(h, m) for h, m in zip(hours, minutes)]
    n = r.randint(1, 3)
    on, off = times[:n], times[n:]
    variant = _pick(r, ("exact", "closed_marked", "extra_item", "missing_item"))
    listed, closed = list(on), []
    if variant == "closed_marked":
        closed = off[: r.randint(1, 2)]
    elif variant == "extra_item":
        listed.append(off[0])
    elif variant == "missing_item" and len(on) > 1:
        listed = on[:-1]
    else:
        variant = "exact"
    c = _Ctx(r, "times", lang, lang, None, None, lambda x: ("", ""), "")
    text = lambda t: _pick(r, [f for f in V.time_forms(*t, lang) if f[0] in ("hhmm", "cn_period", "ampm")])[1]
    head = "开着的闹钟有：\n" if lang == "zh" else "The alarms that are on:\n"
    body = head + _listing(c, [text(t) for t in listed], [text(t) for t in closed])
    wrapper, answer = _wrap(r, body, lang)
    return Case(kind="times", expected=[V.hhmm(*t) for t in on], answer=answer,
                verdict=variant in ("exact", "closed_marked"), construct="list_" + variant, form="marked_list",
                wrapper=wrapper, lang=lang, question="哪些闹钟开着")


def compose_field(r, kind: str | None = None) -> Case:
    """One AnswerSheet field as the agent typed it (Path A; seed 000's per-field matchers)."""
    kind = kind or _pick(r, ("number", "time", "duration", "date", "name"))
    ok = r.random() < 0.5
    lang = _pick(r, ("zh", "en"))
    if kind == "number":
        q = V.BY_NAME[_pick(r, ("count", "humidity", "temperature", "price"))]
        v = V.number_value(r, q)
        x = v if ok else V.number_wrong(r, q, v)
        text, form = (f"{x:g}", "bare") if q.name == "price" else (str(int(x)), "bare")
        if r.random() < 0.25:
            text, form, ok = text + _pick(r, ("个", "度", "%", "元")), "with_unit", False  # seed 000: "3个" fails
        expected: Any = v if q.name == "price" else int(v)
    elif kind == "time":
        t = V.time_value(r)
        x = t if ok else V.time_wrong(r, *t)
        form, text = _pick(r, V.time_forms(*x, lang))
        expected = V.hhmm(*t)
    elif kind == "duration":
        m = V.duration_value(r)
        form, text = _pick(r, V.duration_forms(m if ok else V.duration_wrong(r, m), "zh" if lang == "zh" else "en",
                                               context=True))
        expected = V.duration_expected(m)
    elif kind == "date":
        d = V.date_value(r)
        form, text, _ = _pick(r, V.date_forms(d if ok else V.date_wrong(r, d), lang))
        expected = d.isoformat()
    else:
        c = _name_ctx(r, "zh", "zh")
        expected = c.truth
        if c.extra["family"] == "verified":
            text, form = (c.truth, "plain") if ok else (c.wrong, "plain")
        elif ok:
            form, text = ("full_width", V.full_width(c.truth)) if c.extra["family"] == "full_width" else ("padded", f" {c.truth} ")
        elif c.extra["family"] in ("title", "network") and r.random() < 0.5:
            text, form = c.extra.get("sequel") or c.extra["suffixed"], "suffixed"
        else:
            text, form = c.wrong, "plain"
    return Case(kind=kind, expected=expected, answer=text, verdict=ok, construct="field", form=form,
                lang=lang, field=True)


def compose(r, kind: str | None = None, construct: str | None = None) -> Case:
    """One case: an AnswerSheet field one time in eight, else a free-text answer."""
    if construct == "field" or (construct is None and kind != "times" and r.random() < 0.125):
        return compose_field(r, kind if kind != "times" else None)
    return compose_free(r, kind, construct)


def generate(seed: int, n: int) -> Iterator[Case]:
    """The seeded corpus: case i depends only on (seed, i), so any prefix is the same corpus."""
    for i in range(n):
        yield compose(random.Random(f"{seed}:{i}"))


def cases(kind: str | None = None, construct: str | None = None):
    """Hypothesis strategy of corpus cases (its random draws are Hypothesis's, so it shrinks
    and replays them like any strategy)."""
    from hypothesis import strategies as st

    return st.randoms(use_true_random=False).map(lambda r: compose(r, kind, construct))
