"""Units of measure a stated number carries, against the unit a value was asked in. Pure.

A temperature asked in °C is not stated by "北京现在20华氏度" or "28°F": the number coincides,
the value does not (20°F is -6.7°C). The tokenizer gives each number the unit written after it;
this module reads the scale of a temperature from that unit, from 华氏/摄氏 written before the
number (华氏68度) and from "degrees Fahrenheit" after it. A unit that names no scale (度, °,
degrees, none) fits any: the agent said the number the question asked for.
"""

from __future__ import annotations

import re

from .tokens import Scan, Token

__all__ = ["scale_of_unit", "temperature_scale", "fits"]

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


def fits(s: Scan, t: Token, unit: str | None) -> bool:
    """Is the number given in a unit compatible with `unit` (the unit it was asked in)?"""
    want = scale_of_unit(unit)
    if want is None:
        return True
    got = temperature_scale(s, t)
    return got is None or got == want
