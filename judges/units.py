"""Units of measure a stated number carries, against the unit a value was asked in. Pure.

A temperature asked in °C is not stated by "北京现在20华氏度" or "28°F": the number coincides,
the value does not (20°F is -6.7°C). The tokenizer gives each number the unit written after it;
this module reads the scale of a temperature from that unit, from 华氏/摄氏 written before the
number (华氏68度) and from "degrees Fahrenheit" after it. A unit that names no scale (度, °,
degrees, none) fits any: the agent said the number the question asked for.

The same holds for every quantity: the asked unit decides. A wind force asked in 级 is not
stated by a wind speed (3 m/s, 12 km/h), a distance in km not by miles; see ``fits``.
"""

from __future__ import annotations

import re

from .tokens import Scan, Token

__all__ = ["scale_of_unit", "temperature_scale", "canonical", "unit_of", "fits"]

_CELSIUS = frozenset({"°c", "摄氏度", "celsius", "℃"})
_FAHRENHEIT = frozenset({"°f", "华氏度", "fahrenheit", "℉"})
_BEFORE_RE = re.compile(r"(?P<s>华氏|摄氏)\s*-?$")
_AFTER_RE = re.compile(r"\s*(?:°|度|degrees?)?\s*(?P<s>fahrenheit|celsius)(?![a-z])", re.IGNORECASE)


def scale_of_unit(unit: str | None) -> str | None:
    """"C" or "F" for a temperature unit ("°C", "华氏度", "fahrenheit"); None for any other."""
    u = (unit or "").strip().casefold().replace(" ", "")
    if u in _CELSIUS:
        return "C"
    if u in _FAHRENHEIT:
        return "F"
    return None


def temperature_scale(s: Scan, t: Token) -> str | None:
    """The temperature scale the text gives the number in, or None when it names none."""
    scale = scale_of_unit(t.unit)
    if scale:
        return scale
    before = _BEFORE_RE.search(s.text[max(0, t.start - 4) : t.start])
    if before:
        return "F" if before.group("s") == "华氏" else "C"
    after = _AFTER_RE.match(s.text, t.end)
    if after:
        return "F" if after.group("s").lower() == "fahrenheit" else "C"
    return None


# Units by quantity, each with its spellings (compared case-folded, spaces removed). A number
# written with one of these is a value of that unit; another unit of the same or of another
# quantity does not state the asked one (3 m/s is no wind force of 3级, 20 miles no 20 km).
_UNITS: dict[str, tuple[str, ...]] = {
    "级": ("级", "beaufort"),
    "m/s": ("m/s", "米/秒", "米每秒", "mps"),
    "km/h": ("km/h", "kmh", "kph", "公里/小时", "公里每小时", "千米/小时", "千米每小时", "km/hr"),
    "mph": ("mph", "英里/小时", "英里每小时"),
    "km": ("km", "公里", "千米"),
    "m": ("m", "米"),
    "cm": ("cm", "厘米"),
    "mm": ("mm", "毫米"),
    "mile": ("mile", "miles", "英里"),
    "%": ("%", "percent", "百分比"),
    "元": ("元", "块", "yuan", "rmb", "cny", "¥", "￥"),
    "usd": ("usd", "$", "美元", "dollars", "dollar"),
    "kg": ("kg", "公斤", "千克"),
    "g": ("g", "克"),
    "斤": ("斤",),
    "h": ("h", "hr", "hrs", "hour", "hours", "小时", "个小时"),
    "min": ("min", "mins", "minute", "minutes", "分钟"),
    "s": ("s", "sec", "secs", "second", "seconds", "秒"),
}
_CANON = {spelling: unit for unit, spellings in _UNITS.items() for spelling in spellings}
# Compound units the tokenizer splits (3 m/s: "m" then "/s"), read from the text after the number.
_COMPOUND_RE = re.compile(
    r"\s*(?P<u>m\s*/\s*s|米\s*/\s*秒|米每秒|km\s*/\s*hr?|kmh|kph|公里\s*/\s*小时|公里每小时|千米\s*/\s*小时|千米每小时"
    r"|mph|英里\s*/\s*小时|英里每小时|miles?|kilomet(?:er|re)s?|met(?:er|re)s?|dollars?|hours?|minutes?|seconds?)(?![a-z])",
    re.IGNORECASE,
)


def canonical(unit: str | None) -> str | None:
    """The unit a spelling names ("公里" is km, "米/秒" m/s), a temperature scale as "°C"/"°F",
    or None for a unit that names no quantity (度, °, degrees, none)."""
    scale = scale_of_unit(unit)
    if scale:
        return "°" + scale
    u = (unit or "").strip().casefold().replace(" ", "")
    return _CANON.get(u)


def unit_of(s: Scan, t: Token) -> str | None:
    """The unit the text gives a number in (canonical, see `canonical`), or None."""
    scale = temperature_scale(s, t)
    if scale:
        return "°" + scale
    compound = _COMPOUND_RE.match(s.text, t.end)
    if compound:
        word = re.sub(r"\s+", "", compound.group("u")).casefold()
        return canonical({"kilometer": "km", "kilometre": "km", "kilometers": "km", "kilometres": "km", "meter": "m",
                          "metre": "m", "meters": "m", "metres": "m"}.get(word, word))
    return canonical(t.unit)


def fits(s: Scan, t: Token, unit: str | None) -> bool:
    """Is the number given in a unit compatible with `unit` (the unit it was asked in)? The
    asked quantity decides: a number in another unit (°F for °C, m/s or km/h for 级) does not
    state it; a number with no unit, or one that names no quantity (度), does."""
    want = canonical(unit)
    if want is None:
        return True
    got = unit_of(s, t)
    return got is None or got == want
