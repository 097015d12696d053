"""Clock app tasks: alarms, timers and bedtime; query, operate and hybrid."""

from __future__ import annotations

from typing import Any

from judges.base import Check
from judges.matchers import match_value

from .apps import Clock, minutes_text, now
from .task import AnswerTask, CriteriaTask, Enum, Observation, Task, Time

# An alarm named by its label is a subject: "开会闹钟14:30，吃药闹钟22:50" gives 吃药 22:50 only.
ALARM = Enum({"起床": "起床", "开会": "开会", "健身": "健身", "吃药": "吃药"}, default="开会", subject=True)


def _c(obs: Observation, *, final: bool = False) -> Clock:
    return Clock(obs.app("clock", final=final))


def _count_enabled(alarms: list[dict[str, Any]]) -> int:
    return sum(1 for a in alarms if a.get("enabled"))


class CountEnabledAlarms(AnswerTask):
    app = "clock"
    templates = ("我现在开着几个闹钟？",)
    answer = ("apps.clock.alarms", _count_enabled)
    answer_fields = [{"type": "number", "label": "开启的闹钟数"}]


class AlarmTime(AnswerTask):
    app = "clock"
    templates = ("我的{label}闹钟定在几点？",)
    parameters = {"label": ALARM}
    answer = "apps.clock.alarms[label={label}].time"
    answer_fields = [
        {"type": "text", "label": "响铃时间", "hint": "e.g. 07:30", "matcher": "time"},
    ]


class EnabledAlarmTimes(AnswerTask):
    app = "clock"
    templates = ("列出所有开启的闹钟的时间",)
    answer_fields = [{"type": "text", "label": "闹钟时间", "hint": "e.g. 07:30", "matcher": "time",
                      "repeatable": True, "compare": "set"}]

    def get_answer(self, obs: Observation) -> list[str]:
        return [a["time"] for a in _c(obs).enabled_alarms]

    def get_expected_response(self, obs: Observation) -> list[Any]:
        return [self.get_answer(obs)]


class TimerLength(AnswerTask):
    app = "clock"
    templates = ("“{label}”计时器设的是多长时间？",)
    parameters = {"label": Enum({"烤蛋糕": "烤蛋糕", "泡茶": "泡茶", "午睡": "午睡"}, default="烤蛋糕", subject=True)}
    answer = ("apps.clock.timers[label={label}].minutes", minutes_text)
    answer_fields = [{"type": "text", "label": "时长", "hint": "e.g. 1小时15分", "matcher": "duration"}]


class SleepDuration(AnswerTask):
    app = "clock"
    templates = ("按就寝计划，我每晚能睡多久？",)
    answer_fields = [{"type": "text", "label": "睡眠时长", "hint": "e.g. 8小时", "matcher": "duration"}]

    def get_answer(self, obs: Observation) -> str:
        return minutes_text(_c(obs).sleep_minutes())


class NextRingDate(AnswerTask):
    app = "clock"
    templates = ("{label}闹钟下一次是哪天响？",)
    parameters = {"label": Enum({"起床": "起床", "健身": "健身"}, default="健身", subject=True, kin=("开会", "吃药"))}
    answer_fields = [{"type": "text", "label": "日期", "hint": "e.g. 4月7日", "matcher": "date"}]

    def get_answer(self, obs: Observation) -> str:
        return _c(obs).next_ring(self.p.label, now(obs.os)).isoformat()


def _one_new_alarm(obs: Observation, time: str) -> tuple[str, ...]:
    """The rule covering the one alarm a task asked for: the first new alarm at that time (or,
    when none is, the first new alarm, whose error the goal check reports). Any other new
    alarm is a side effect that ``alarms[+]`` would have hidden."""
    before = {a["id"] for a in _c(obs).alarms}
    new = [a for a in _c(obs, final=True).alarms if a.get("id") not in before]
    hit = next((a for a in new if a.get("time") == time), new[0] if new else None)
    return () if hit is None else (f"apps.clock.alarms[id={hit['id']}]",)


class SetAlarm(Task):
    app = "clock"
    kind = "operate"
    templates = ("帮我定一个{time}的闹钟，备注“{label}”",)
    parameters = {"time": Time("06:30"), "label": Enum({"早起": "早起", "赶飞机": "赶飞机"}, default="赶飞机")}
    expected_changes = ("apps.clock.alarms[+]",)

    def covered_changes(self, obs: Observation, rules: tuple[str, ...]) -> tuple[str, ...]:
        return _one_new_alarm(obs, self.p.time)

    def check_goals(self, obs: Observation) -> list[Check]:
        before = {a["id"] for a in _c(obs).alarms}
        new = [a for a in _c(obs, final=True).alarms if a["id"] not in before]
        hit = [a for a in new if a.get("time") == self.p.time]
        ok = bool(hit) and bool(hit[0].get("enabled"))
        labelled = bool(hit) and hit[0].get("label") == self.p.label
        return [
            Check(name="alarm added", passed=ok, expected=self.p.time, actual=[a.get("time") for a in new],
                  reason="" if ok else f"no new enabled alarm at {self.p.time}"),
            Check(name="alarm label", passed=labelled, expected=self.p.label,
                  actual=hit[0].get("label") if hit else None,
                  reason="" if labelled else f"the new alarm is not labelled {self.p.label}"),
        ]


class DisableAlarm(CriteriaTask):
    app = "clock"
    kind = "operate"
    templates = ("关掉{label}闹钟",)
    parameters = {"label": Enum({"起床": "起床", "开会": "开会", "吃药": "吃药"}, default="起床")}
    criteria = {"apps.clock.alarms[label={label}].enabled": False}
    expected_changes = ("apps.clock.alarms[label={label}].enabled",)


class DeleteAlarm(Task):
    app = "clock"
    kind = "operate"
    templates = ("删除{label}闹钟",)
    parameters = {"label": ALARM}
    expected_changes = ("apps.clock.alarms[label={label}]",)

    def check_goals(self, obs: Observation) -> list[Check]:
        target = _c(obs).alarm(self.p.label)["id"]
        left = [a["id"] for a in _c(obs, final=True).alarms]
        ok = target not in left
        return [Check(name="alarm deleted", passed=ok, expected=f"no alarm {target}", actual=left,
                      reason="" if ok else f"alarm {self.p.label} ({target}) is still there")]


class AddAlarmAndCount(Task):
    """Hybrid (Path B): add an alarm, then say how many alarms are on now (the new one too)."""

    app = "clock"
    kind = "hybrid"
    templates = ("加一个{time}的闹钟，然后告诉我现在一共开着几个闹钟",)
    parameters = {"time": Time("06:00")}
    answer_fields = [{"type": "number", "label": "开启的闹钟数"}]
    expected_changes = ("apps.clock.alarms[+]",)

    def covered_changes(self, obs: Observation, rules: tuple[str, ...]) -> tuple[str, ...]:
        return _one_new_alarm(obs, self.p.time)

    def check_goals(self, obs: Observation) -> list[Check]:
        before = {a["id"] for a in _c(obs).alarms}
        added = [a for a in _c(obs, final=True).alarms
                 if a["id"] not in before and a.get("time") == self.p.time and a.get("enabled")]
        # The count the agent gives is checked against the world as it left it: an alarm added
        # twice makes the real count one higher (and the second one is a side effect).
        want = _count_enabled(_c(obs, final=True).alarms)
        ok = match_value(want, obs.said)
        return [
            Check(name="alarm added", passed=bool(added), expected=self.p.time, actual=len(added),
                  reason="" if added else f"no new enabled alarm at {self.p.time}"),
            Check(name="answer", passed=ok, expected=want, actual=obs.answer,
                  reason="" if ok else f"{want} not stated"),
        ]
