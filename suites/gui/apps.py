"""Read-only accessors over the simulated apps' state (the schema is in README.md).

Tasks read the world through these so that a schema detail lives in one place. Each accessor
wraps one app's state dict and never changes it; a missing city, alarm or timer raises KeyError
naming it, because a task asking for it is a task bug, not an agent mistake.
"""

from __future__ import annotations

import datetime as dt
from typing import Any
from zoneinfo import ZoneInfo

WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
DEFAULT_TIMEZONE = "Asia/Shanghai"
RAIN = "雨"


def _hhmm(text: str) -> int:
    h, m = text.split(":")
    return int(h) * 60 + int(m)


def minutes_text(minutes: int) -> str:
    """A duration as the clock app shows it: 1小时15分, 4分 (hours only when there are some)."""
    h, m = divmod(minutes, 60)
    return f"{h}小时{m}分" if h else f"{m}分"


def now(os_state: dict[str, Any] | None) -> dt.datetime:
    """The simulated now, in the simulated time zone; KeyError when the state has no clock."""
    if not os_state or "time" not in os_state:
        raise KeyError("the world state has no os.time")
    t = os_state["time"]
    ms = t["timestamp"] if isinstance(t, dict) else t
    tz = ZoneInfo(os_state.get("timezone") or DEFAULT_TIMEZONE)
    return dt.datetime.fromtimestamp(ms / 1000, tz)


class Weather:
    def __init__(self, state: dict[str, Any]):
        self.state = state

    @property
    def cities(self) -> list[dict[str, Any]]:
        return list(self.state.get("cities") or [])

    @property
    def saved(self) -> list[str]:
        """Ids of the cities on the home screen, in order."""
        return list(self.state.get("saved") or [])

    @property
    def settings(self) -> dict[str, Any]:
        return dict(self.state.get("settings") or {})

    def city(self, key: str) -> dict[str, Any]:
        """A city by id or by name."""
        for c in self.cities:
            if key in (c.get("id"), c.get("name")):
                return c
        raise KeyError(f"weather: no city {key!r}")

    def current_temp(self, key: str) -> int:
        return self.city(key)["current"]["temp"]

    def forecast(self, key: str) -> list[dict[str, Any]]:
        return list(self.city(key)["forecast"])

    def day(self, key: str, offset: int) -> dict[str, Any]:
        """The forecast for today (0), tomorrow (1), ..."""
        days = self.forecast(key)
        if not 0 <= offset < len(days):
            raise KeyError(f"weather: no forecast {offset} days ahead for {key!r}")
        return days[offset]

    def rainy_dates(self, key: str) -> list[str]:
        return [d["date"] for d in self.forecast(key) if RAIN in d["condition"]]

    def coldest_date(self, key: str) -> str:
        """The forecast day with the lowest low (the first of equals)."""
        return min(self.forecast(key), key=lambda d: d["low"])["date"]


class Clock:
    def __init__(self, state: dict[str, Any]):
        self.state = state

    @property
    def alarms(self) -> list[dict[str, Any]]:
        return list(self.state.get("alarms") or [])

    @property
    def enabled_alarms(self) -> list[dict[str, Any]]:
        return [a for a in self.alarms if a.get("enabled")]

    @property
    def timers(self) -> list[dict[str, Any]]:
        return list(self.state.get("timers") or [])

    def alarm(self, label: str) -> dict[str, Any]:
        for a in self.alarms:
            if a.get("label") == label:
                return a
        raise KeyError(f"clock: no alarm labelled {label!r}")

    def alarms_at(self, time: str) -> list[dict[str, Any]]:
        return [a for a in self.alarms if a.get("time") == time]

    def timer(self, label: str) -> dict[str, Any]:
        for t in self.timers:
            if t.get("label") == label:
                return t
        raise KeyError(f"clock: no timer labelled {label!r}")

    def sleep_minutes(self) -> int:
        """Minutes from bedtime to wake-up, across midnight."""
        bed = self.state["bedtime"]
        return (_hhmm(bed["wake"]) - _hhmm(bed["sleep"])) % (24 * 60)

    def next_ring(self, label: str, at: dt.datetime) -> dt.date:
        """The date the alarm rings next after `at` (a repeating alarm on its days, a one-off
        alarm today if its time is still ahead, else tomorrow)."""
        alarm = self.alarm(label)
        minute = _hhmm(alarm["time"])
        days = alarm.get("repeat") or list(WEEKDAYS)
        for ahead in range(8):
            day = at.date() + dt.timedelta(days=ahead)
            if WEEKDAYS[day.weekday()] in days and (ahead or minute > at.hour * 60 + at.minute):
                return day
        raise KeyError(f"clock: alarm {label!r} never rings")  # pragma: no cover - repeat is non-empty
