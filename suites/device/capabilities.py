"""Capabilities: which Android packages play a role that every phone has (calculator, clock, ...).

A task for "the phone's own calculator" must run on any Android phone, so it names the
capability (``{app:calculator}``) instead of a package. This table lists the packages that the
common builds ship for each capability: AOSP, Google (Pixel), Samsung, Xiaomi (MIUI/HyperOS),
Huawei (EMUI/HarmonyOS), OPPO/OnePlus (ColorOS) and vivo (OriginOS/Funtouch). A suite folder
extends it with a ``capabilities.json`` at its root: ``{"calculator": ["com.example.calc"]}``
adds packages (a new capability name adds a capability).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from trajectory.errors import TrajError

CAPABILITIES: dict[str, tuple[str, ...]] = {
    "calculator": (
        "com.android.calculator2",  # AOSP
        "com.google.android.calculator",  # Google
        "com.sec.android.app.popupcalculator",  # Samsung
        "com.miui.calculator",  # Xiaomi
        "com.huawei.calculator",  # Huawei
        "com.coloros.calculator",  # OPPO
        "com.oplus.calculator",  # OPPO (ColorOS 12+)
        "com.android.bbkcalculator",  # vivo
    ),
    "clock": (
        "com.android.deskclock",  # AOSP, Xiaomi, Huawei
        "com.google.android.deskclock",  # Google
        "com.sec.android.app.clockpackage",  # Samsung
        "com.coloros.alarmclock",  # OPPO
        "com.oplus.alarmclock",  # OPPO (ColorOS 12+)
        "com.android.BBKClock",  # vivo
    ),
    "calendar": (
        "com.android.calendar",  # AOSP, Xiaomi
        "com.google.android.calendar",  # Google
        "com.samsung.android.calendar",  # Samsung
        "com.huawei.calendar",  # Huawei
        "com.coloros.calendar",  # OPPO
        "com.bbk.calendar",  # vivo
    ),
    "contacts": (
        "com.android.contacts",  # AOSP, Xiaomi, Huawei, vivo
        "com.google.android.contacts",  # Google
        "com.samsung.android.app.contacts",  # Samsung
        "com.huawei.contacts",  # Huawei (HarmonyOS)
        "com.coloros.contacts",  # OPPO
    ),
    "files": (
        "com.android.documentsui",  # AOSP
        "com.google.android.documentsui",  # Google
        "com.google.android.apps.nbu.files",  # Google Files
        "com.sec.android.app.myfiles",  # Samsung
        "com.android.fileexplorer",  # Xiaomi
        "com.huawei.hidisk",  # Huawei
        "com.coloros.filemanager",  # OPPO
        "com.android.filemanager",  # vivo
    ),
    "weather": (
        "com.google.android.apps.weather",  # Google
        "com.sec.android.daemonapp",  # Samsung
        "com.miui.weather2",  # Xiaomi
        "com.huawei.android.totemweather",  # Huawei
        "com.coloros.weather2",  # OPPO
        "com.vivo.weather",  # vivo
    ),
    "notes": (
        "com.google.android.keep",  # Google
        "com.samsung.android.app.notes",  # Samsung
        "com.miui.notes",  # Xiaomi
        "com.huawei.notepad",  # Huawei
        "com.coloros.note",  # OPPO
        "com.android.notes",  # vivo
    ),
}

CAPABILITY_RE = re.compile(r"^\{app:([a-z_]+)\}$")
CAPABILITIES_FILE = "capabilities.json"


class CapabilityError(TrajError, ValueError):
    """capabilities.json is not a mapping of capability name to a list of package names."""


def read_extension(folder: Path) -> dict[str, list[str]]:
    """The folder's ``capabilities.json`` (empty when there is none); raises CapabilityError."""
    path = folder / CAPABILITIES_FILE
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise CapabilityError(f"{path}: not valid JSON: {exc}") from exc
    if not isinstance(data, dict) or not all(
        isinstance(k, str) and isinstance(v, list) and all(isinstance(p, str) for p in v) for k, v in data.items()
    ):
        raise CapabilityError(f"{path}: expected {{capability: [package, ...]}}")
    return {k: list(v) for k, v in data.items()}


def merged(extension: Mapping[str, list[str]] | None = None) -> dict[str, tuple[str, ...]]:
    """The built-in table with an extension's packages added (built-in ones first)."""
    table = dict(CAPABILITIES)
    for cap, packages in (extension or {}).items():
        table[cap] = tuple(dict.fromkeys([*table.get(cap, ()), *packages]))
    return table


def capability_of(name: str) -> str | None:
    """``calculator`` for ``{app:calculator}``; None for a plain package name."""
    m = CAPABILITY_RE.match(name)
    return m.group(1) if m else None


def package_matches(wanted: str, actual: str | None, table: Mapping[str, tuple[str, ...]]) -> bool:
    """Does a screen read's app satisfy ``wanted`` (a package, or ``{app:<capability>}``)?"""
    if actual is None:
        return False
    cap = capability_of(wanted)
    if cap is None:
        return actual == wanted
    return actual in table.get(cap, ())


def builtin_packages(table: Mapping[str, tuple[str, ...]]) -> set[str]:
    return {p for packages in table.values() for p in packages}
