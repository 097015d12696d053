"""When a phrase stands whole in a text: the rules every phrase and pattern hit must pass. Pure.

A value is whole: 25 is not in 125, "iPhone 15" is not in "iPhone 15 Pro", 南风 is not in 东南风,
暴雨 is not in 大暴雨. A name with a suffix is another name: a sequel or edition number
(唐人街探案3, 唐人街探案第二部, "Dune Part II") or a token joined by - or _ (MyWifi-5G) makes
another title, network or product. Plain words keep running on: 天气多云转晴 states 多云, and a
number with a unit after a name is a value said of it (多云28度, Tokyo 20 degrees).
"""

from __future__ import annotations

import re

__all__ = ["whole", "whole_at"]

# A needle starting with one of these may not follow one of the others: 南风 is not in 东南风,
# 暴雨 not in 大暴雨, 阵雨 not in 雷阵雨.
_NO_PREFIX = {"东": "东西南北", "西": "东西南北", "南": "东西南北", "北": "东西南北", "暴": "大特", "大": "特", "阵": "雷"}
_MODEL_SUFFIX_RE = re.compile(r"\s*(?:pro|max|plus|ultra|mini|lite|se|air)(?![a-z])", re.IGNORECASE)
# A name with a suffix is another name: a sequel or edition number (唐人街探案3, 唐人街探案第二部,
# "Dune Part II", "Dune 2") or a token joined by - or _ (MyWifi-5G is not MyWifi). A number with
# a unit after a name is a value said of it (多云28度, Tokyo 20 degrees), so only a lone digit
# that ends the name counts; plain words keep running on (天气多云转晴 states 多云).
_NAME_END = r"(?=$|[\s,.;:!?()\]》」』”\"'、。，；：！？（）]|的|是|和|与|或)"
_CN_SUFFIX_RE = re.compile(rf"[1-9](?!\d|\.\d){_NAME_END}|\s*第\d{{1,2}}(?:部|季|集|册|卷|辑|代)|\s*(?:续集|前传|外传)"
                           r"|\s*(?:ii|iii|iv|vi|vii|viii|ix)(?![a-z0-9])")
_LATIN_SUFFIX_RE = re.compile(
    r"[-_][a-z0-9]|\d"
    r"|\s*:?\s*(?:part|season|vol\.?|volume|chapter|episode|book)\s+(?:\d{1,2}|[ivx]{1,4}|one|two|three|four|five)(?![a-z0-9])"
    rf"|\s+(?:ii|iii|iv|vi|vii|viii|ix)(?![a-z0-9])|\s[1-9](?!\d|\.\d){_NAME_END}"
)


def whole(text: str, start: int, end: int, needle: str) -> bool:
    """Does `needle`, found at text[start:end] (both case-folded), stand whole there?"""
    before = text[start - 1] if start > 0 else ""
    after = text[end] if end < len(text) else ""
    first, last = needle[0], needle[-1]
    if first.isdigit() and (before.isdigit() or (before == "." and start > 1 and text[start - 2].isdigit())):
        return False
    if last.isdigit() and (after.isdigit() or re.match(r"[.,]\d", text[end : end + 2])):
        return False
    if first.isascii() and first.isalnum() and before.isascii() and before.isalnum():
        return False
    if last.isascii() and last.isalnum() and after.isascii() and after.isalpha():
        return False
    if last.isascii() and last.isalnum() and _MODEL_SUFFIX_RE.match(text, end):
        return False  # "iPhone 15" is not "iPhone 15 Pro"
    if first.isascii() and first.isalnum() and re.search(r"[a-z0-9][-_]$", text[max(0, start - 2) : start]):
        return False  # Guest-MyWifi is not MyWifi
    if not last.isdigit() and (_LATIN_SUFFIX_RE if last.isascii() else _CN_SUFFIX_RE).match(text, end):
        return False  # 唐人街探案3 is not 唐人街探案, MyWifi-5G not MyWifi
    if before and before in _NO_PREFIX.get(first, ""):
        return False
    return True


def whole_at(text: str, a: int, b: int) -> bool:
    """Is text[a:b] (a pattern's hit) a whole value, as a phrase needle must be: 唐人街探案 is not
    in 唐人街探案3, MyWifi not in MyWifi-5G, 南风 not in 东南风?"""
    hay = text.casefold()
    return a < b and whole(hay, a, b, hay[a:b])
