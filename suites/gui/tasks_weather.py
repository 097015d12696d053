"""Weather app tasks: query, operate and hybrid."""

from __future__ import annotations

import re
from typing import Any

import datetime as dt

from judges.base import Check
from judges.claims import TIE, more_of, rain_days, rain_on
from judges.dates import expected_date, now_date
from judges.matchers import has_close_number, match_value, phrase_hits
from judges.tokens import Scan, scan
from judges.subjects import Subject
from judges.units import fits

from .apps import Weather
from .answers import states
from .task import TEMPERATURE_UNITS, AnswerTask, CriteriaTask, Enum, Field, Observation, Task

CITY_VALUES = {"北京": "beijing", "上海": "shanghai", "广州": "guangzhou", "杭州": "hangzhou", "成都": "chengdu"}


def city(default: str) -> Enum:
    """A city the question is about: a value the answer gives another city does not count."""
    return Enum(CITY_VALUES, default=default, subject=True)


# "上海明天小雨，今天中雨" says 中雨 of today: a question about today (or now) reads what the
# answer says of today, not of the other days it names.
TODAY = Subject(
    asked=("今天", "今日", "现在", "当前", "目前", "today", "now", "currently"),
    others=("明天", "明日", "后天", "大后天", "昨天", "昨日", "前天", "tomorrow", "yesterday"),
)
# "北京实际温度18度，体感20度" gives 18 as the temperature: the feels-like reading and the day's
# high and low are other readings.
READING = Subject(
    asked=("实际温度", "实际气温", "实际", "气温", "温度", "现在", "当前", "目前", "temperature", "now", "currently"),
    others=("体感温度", "体感", "最高气温", "最低气温", "最高温度", "最低温度", "最高", "最低",
            "feels like", "feels-like", "high of", "low of"),
)


def _w(obs: Observation, *, final: bool = False) -> Weather:
    return Weather(obs.app("weather", final=final))


class CheckCurrentTemp(AnswerTask):
    app = "weather"
    templates = ("{city}现在多少度？", "查一下{city}当前的气温")
    parameters = {"city": city("beijing")}
    answer = "apps.weather.cities[id={city}].current.temp"
    answer_fields = [{"type": "number", "label": "{city}当前温度（°C）"}]
    aspects = (TODAY, READING)
    unit = "°C"  # "北京现在20华氏度" does not state 20°C


class CheckCondition(AnswerTask):
    app = "weather"
    templates = ("{city}今天天气怎么样？",)
    parameters = {"city": city("shanghai")}
    answer = "apps.weather.cities[id={city}].current.condition"
    answer_fields = [{"type": "text", "label": "天气状况", "hint": "e.g. 多云"}]
    aspects = (TODAY,)


class CheckDetailMetric(AnswerTask):
    """The field's type and label follow the metric parameter (numeric metrics are numbers)."""

    app = "weather"
    aspects = (TODAY,)
    templates = ("{city}现在的{metric}是多少？",)
    parameters = {
        "city": city("beijing"),
        # A metric is a subject too: "紫外线指数68" does not state a humidity of 68.
        "metric": Enum({"湿度": "humidity", "紫外线指数": "uv", "空气质量指数": "aqi", "风向": "wind_dir"}, default="humidity",
                       subject=True, aliases={"uv": ("紫外线",), "aqi": ("空气质量",), "wind_dir": ("wind direction",)}),
    }
    answer = "apps.weather.cities[id={city}].current.{metric}"
    _NUMERIC = frozenset({"humidity", "uv", "aqi"})

    @property
    def answer_fields(self) -> list[dict[str, Any]]:  # type: ignore[override]
        metric = getattr(getattr(self, "p", None), "metric", "humidity")
        label = self.parameters["metric"].label(metric)  # the display label, never "humidity"
        if metric in self._NUMERIC:
            return [{"type": "number", "label": label}]
        return [{"type": "text", "label": label, "hint": "e.g. 东风"}]


class CheckHighLow(AnswerTask):
    """Two same-typed fields: per-field matching (Path A) catches a swapped high and low."""

    app = "weather"
    aspects = (TODAY,)
    templates = ("{city}今天最高和最低气温分别是多少？",)
    parameters = {"city": city("beijing")}
    answer_hint = "只填数字，不要带单位"
    answer_fields = [
        {"type": "number", "label": "最高气温（°C）"},
        {"type": "number", "label": "最低气温（°C）"},
    ]

    def get_answer(self, obs: Observation) -> dict[str, int]:
        today = _w(obs).day(self.p.city, 0)
        return {"high": today["high"], "low": today["low"]}  # order = field order

    def text_check(self, name: str, field: Field | None, value: Any, obs: Observation) -> Check:
        """Free text must say which is which: "最高15度，最低23度" states both numbers but swaps
        them. Labelled values decide (最高/最低, high/low); without labels, a range "15~23度" is
        low to high, and two values are in the order asked (high, then low)."""
        said = _high_low(obs.said or "")
        key = name.rsplit(".", 1)[-1]
        got = None if said is None else said[0 if key == "high" else 1]
        ok = got is not None and abs(got - float(value)) < 1e-9
        reason = "" if ok else ("no answer" if not obs.answer else f"the answer gives {key} {got if got is not None else 'nothing definite'}")
        return Check(name=name, passed=ok, expected=value, actual=obs.answer, reason=reason)


_HIGH_RE = re.compile(r"(?:最高|高温|白天|high(?:est)?|max(?:imum)?)[^,;。\d]{0,6}$", re.IGNORECASE)
_LOW_RE = re.compile(r"(?:最低|低温|夜间|晚上|low(?:est)?|min(?:imum)?)[^,;。\d]{0,6}$", re.IGNORECASE)


def _high_low(text: str) -> tuple[float | None, float | None] | None:
    """(high, low) as the answer states them, or None when it does not say."""
    s = scan(text)
    values = [t for t in s.of("number") if not (t.hedged or t.approx) and t.unit in TEMPERATURE_UNITS
              and fits(s, t, "°C")]
    high = {t.value for t in values if _HIGH_RE.search(s.text[s.clause_at(t.start).start : t.start])}
    low = {t.value for t in values if _LOW_RE.search(s.text[s.clause_at(t.start).start : t.start])}
    if high or low:
        return (high.pop() if len(high) == 1 else None, low.pop() if len(low) == 1 else None)
    if len(values) == 2 and values[0].ranged and values[1].ranged:
        return max(values[0].value, values[1].value), min(values[0].value, values[1].value)
    exact = [t.value for t in values if t.exact]
    return (exact[0], exact[1]) if len(exact) == 2 else None


class CompareCityTemp(AnswerTask):
    """A tie is a pattern in text mode (agents say 一样/相同/差不多); the form needs an option."""

    app = "weather"
    templates = ("{city1}和{city2}现在哪里更热？",)
    parameters = {"city1": city("beijing"), "city2": city("hangzhou")}
    TIE = "一样热"
    answer_fields = [{"type": "choice", "label": "更热的城市", "options": ["{city1}", "{city2}", "一样热"]}]

    def get_answer(self, obs: Observation) -> Any:
        w = _w(obs)
        t1, t2 = w.current_temp(self.p.city1), w.current_temp(self.p.city2)
        if t1 == t2:
            return re.compile(r"一样|相同|差不多|持平")
        return w.city(self.p.city1 if t1 > t2 else self.p.city2)["name"]

    def get_expected_response(self, obs: Observation) -> list[Any]:
        answer = self.get_answer(obs)
        return [self.TIE if isinstance(answer, re.Pattern) else answer]

    def text_check(self, name: str, field: Field | None, value: Any, obs: Observation) -> Check:
        """The answer must say which city is hotter (北京比广州更热 names both but claims one)."""
        w = _w(obs)
        # A city by its name or its id (广州 or Guangzhou): agents answer in either language.
        a = (w.city(self.p.city1)["name"], self.p.city1.capitalize())
        b = (w.city(self.p.city2)["name"], self.p.city2.capitalize())
        want = TIE if isinstance(value, re.Pattern) else value
        said = more_of(obs.said or "", a, b, _stated_temp) if obs.answer else None
        ok = said == want
        reason = "" if ok else ("no answer" if not obs.answer else
                                f"the answer says {said or 'nothing definite'}, expected {want}")
        return Check(name=name, passed=ok, expected=want, actual=obs.answer, reason=reason)


def _stated_temp(s: Scan, city_name: str) -> float | None:
    """The temperature the answer gives for a city: the first degree value after its name, in
    the same clause (北京20度，广州28度)."""
    for start, _ in phrase_hits(city_name, s):
        clause = s.clause_at(start)
        for t in s.of("number", exact=True):
            if start < t.start < clause.end and t.unit in TEMPERATURE_UNITS:
                return t.value
    return None


class RainyDays(AnswerTask):
    app = "weather"
    templates = ("{city}未来7天（含今天）哪几天有雨？",)
    parameters = {"city": city("shanghai")}
    answer_fields = [{"type": "text", "label": "下雨的日期", "hint": "e.g. 4月6日", "matcher": "date",
                      "repeatable": True, "compare": "set"}]

    def get_answer(self, obs: Observation) -> list[str]:
        return _w(obs).rainy_dates(self.p.city)

    def get_expected_response(self, obs: Observation) -> list[Any]:
        return [self.get_answer(obs)]  # one repeatable field holding the whole list

    def text_check(self, name: str, field: Field | None, value: Any, obs: Observation) -> Check:
        """The days the answer says it rains on are the rainy days: none missing, none extra
        (naming all seven days fails), days said to be dry do not count."""
        now = now_date(obs.os)
        want = {d for v in value if (d := expected_date(v, now)) is not None}
        said = rain_days(obs.said or "", obs.os) if obs.answer else set()
        ok = bool(obs.answer) and said == want
        extra, missing = sorted(said - want), sorted(want - said)
        reason = "" if ok else ("no answer" if not obs.answer else
                                f"missing {', '.join(map(str, missing)) or 'none'}; extra {', '.join(map(str, extra)) or 'none'}")
        return Check(name=name, passed=ok, expected=value, actual=obs.answer, reason=reason)


class ForecastHighs(AnswerTask):
    app = "weather"
    templates = ("按顺序告诉我{city}今天、明天、后天的最高气温",)
    parameters = {"city": city("guangzhou")}
    answer_fields = [{"type": "number", "label": "最高气温（°C）", "repeatable": True, "compare": "sequence"}]
    unit = "°C"

    def get_answer(self, obs: Observation) -> list[int]:
        return [d["high"] for d in _w(obs).forecast(self.p.city)[:3]]

    def get_expected_response(self, obs: Observation) -> list[Any]:
        return [self.get_answer(obs)]


class ColdestDay(AnswerTask):
    app = "weather"
    templates = ("{city}未来7天哪天最冷（最低气温最低）？",)
    parameters = {"city": city("beijing")}
    answer_fields = [{"type": "text", "label": "日期", "hint": "e.g. 4月8日", "matcher": "date"}]

    def get_answer(self, obs: Observation) -> str:
        return _w(obs).coldest_date(self.p.city)


class SunriseTime(AnswerTask):
    app = "weather"
    templates = ("{city}今天几点日出？",)
    parameters = {"city": city("chengdu")}
    answer = "apps.weather.cities[id={city}].sunrise"
    answer_fields = [{"type": "text", "label": "日出时间", "hint": "e.g. 06:05", "matcher": "time"}]


class IsRainyTomorrow(AnswerTask):
    app = "weather"
    templates = ("帮我看看{city}明天要不要带伞",)
    parameters = {"city": city("shanghai")}
    YES, NO = "会下雨", "不会下雨"
    answer_fields = {
        "question": "{city}明天会下雨吗？",
        "fields": [{"type": "choice", "label": "明天下雨吗", "options": ["会下雨", "不会下雨"]}],
    }

    def get_answer(self, obs: Observation) -> str:
        return self.YES if "雨" in _w(obs).day(self.p.city, 1)["condition"] else self.NO

    def text_check(self, name: str, field: Field | None, value: Any, obs: Observation) -> Check:
        """Judged on what the answer says about tomorrow: "明天不会下雨，后天会下雨" is a no,
        "要带伞，明天有中雨" a yes."""
        tomorrow = dt.date.fromisoformat(_w(obs).day(self.p.city, 1)["date"])
        said = rain_on(obs.said or "", tomorrow, obs.os) if obs.answer else None
        want = value == self.YES
        ok = said is want
        shown = {True: self.YES, False: self.NO, None: "nothing definite"}[said]
        reason = "" if ok else ("no answer" if not obs.answer else f"the answer says {shown} about tomorrow")
        return Check(name=name, passed=ok, expected=value, actual=obs.answer, reason=reason)


class CheckWind(AnswerTask):
    """Path B: its own check_goals reads "东风, 3" (the joined sheet) and "东风3级" alike."""

    app = "weather"
    templates = ("{city}现在刮什么风，几级？",)
    aspects = (TODAY,)
    parameters = {"city": city("beijing")}
    answer_fields = [
        {"type": "text", "label": "风向", "hint": "e.g. 东风"},
        {"type": "number", "label": "风力（级）"},
    ]

    def get_answer(self, obs: Observation) -> dict[str, Any]:
        cur = _w(obs).city(self.p.city)["current"]
        return {"dir": cur["wind_dir"], "scale": cur["wind_scale"]}

    def check_goals(self, obs: Observation) -> list[Check]:
        want = self.get_answer(obs)
        text = obs.answer
        # Whole values, asserted: 南风 is not in 东南风, 一周 supplies no 1, 不是东风 is not 东风;
        # and said of the asked city (obs.said).
        ok_dir = states(want["dir"], obs.said)
        # The asked quantity decides the unit: a wind speed (3 m/s, 12 km/h) is no force of 3级.
        ok_scale = match_value(want["scale"], obs.said, unit="级")
        return [
            Check(name="answer.dir", passed=ok_dir, expected=want["dir"], actual=text,
                  reason="" if ok_dir else f"wind direction {want['dir']} not stated"),
            Check(name="answer.scale", passed=ok_scale, expected=want["scale"], actual=text,
                  reason="" if ok_scale else f"wind scale {want['scale']} not stated"),
        ]


class SwitchTempUnit(CriteriaTask):
    app = "weather"
    kind = "operate"
    templates = ("把天气的温度单位改成{unit}",)
    parameters = {"unit": Enum({"华氏度": "fahrenheit", "摄氏度": "celsius"}, default="fahrenheit")}
    criteria = {"apps.weather.settings.temp_unit": "{unit}"}
    expected_changes = ("apps.weather.settings.temp_unit",)
    max_steps = 12


class DisableSevereAlerts(CriteriaTask):
    app = "weather"
    kind = "operate"
    templates = ("关闭天气App的恶劣天气提醒",)
    criteria = {"apps.weather.settings.severe_alerts": False}
    expected_changes = ("apps.weather.settings.severe_alerts",)
    max_steps = 12


class AddCity(Task):
    app = "weather"
    kind = "operate"
    templates = ("把{city}添加到天气的城市列表",)
    parameters = {"city": city("chengdu")}
    expected_changes = ("apps.weather.saved",)

    def covered_changes(self, obs: Observation, rules: tuple[str, ...]) -> tuple[str, ...]:
        """The saved list may gain this city and nothing else: another city added or one
        removed is a side effect."""
        before, after = _w(obs).saved, _w(obs, final=True).saved
        if [c for c in after if c != self.p.city] == before and after.count(self.p.city) == 1:
            return rules
        return ()

    def check_goals(self, obs: Observation) -> list[Check]:
        before, after = _w(obs).saved, _w(obs, final=True).saved
        added = self.p.city in after
        kept = all(c in after for c in before)
        return [
            Check(name="city added", passed=added, expected=self.p.city, actual=after,
                  reason="" if added else f"{self.p.city} is not in the saved cities"),
            Check(name="others kept", passed=kept, expected=before, actual=after,
                  reason="" if kept else "a saved city was removed"),
        ]


class SwitchUnitAndReport(Task):
    """Hybrid (Path B): switch to Fahrenheit, then report the temperature in °F."""

    app = "weather"
    kind = "hybrid"
    templates = ("把温度单位切换成华氏度，然后告诉我{city}现在多少华氏度",)
    parameters = {"city": city("shanghai")}
    answer_fields = [{"type": "number", "label": "{city}当前温度（°F）"}]
    expected_changes = ("apps.weather.settings.temp_unit",)

    def fahrenheit(self, obs: Observation) -> float:
        return _w(obs).current_temp(self.p.city) * 9 / 5 + 32

    def check_goals(self, obs: Observation) -> list[Check]:
        unit = _w(obs, final=True).settings.get("temp_unit")
        want = self.fahrenheit(obs)
        # The app rounds °F to whole degrees; either rounding of x.5 is what the screen may show.
        ok = bool(obs.answer) and has_close_number(obs.said or "", want, tol=0.5, unit="°F")
        return [
            Check(name="apps.weather.settings.temp_unit", passed=unit == "fahrenheit", expected="fahrenheit",
                  actual=unit, reason="" if unit == "fahrenheit" else f"unit is {unit!r} at the end"),
            Check(name="answer", passed=ok, expected=want, actual=obs.answer,
                  reason="" if ok else f"{want:g}°F (±0.5) not stated"),
        ]
