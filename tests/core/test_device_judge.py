"""Outcome rules and their precedence for real-device runs."""

from __future__ import annotations

from device_helpers import Takeover, state, task, verdict

GROUNDED = [{"type": "answer_grounded"}]


def _takeover(reason="login", text="请登录", screen="手机号登录 获取验证码", **fields):
    """A run that ended in a takeover right after a screen read (seq 1, takeover seq 2)."""
    takeovers = (Takeover(seq=2, reason=reason, text=text),)
    return state(None, [(screen, "com.xingin.xhs")], outcome="takeover", takeovers=takeovers, **fields)


def test_pass_when_outcome_and_checks_agree():
    v = verdict(task(checks=GROUNDED), state("20度", [("20°", None)]))
    assert v.outcome == "pass" and v.score == 1.0 and v.checks[0].name == "outcome"


def test_fail_when_outcome_differs_even_if_checks_pass():
    v = verdict(task(checks=GROUNDED), state("20度", [("20°", None)], outcome="failed"))
    assert v.outcome == "fail" and "ended failed" in v.reason


def test_timeout_is_a_fail_not_an_error():
    assert verdict(task(), state("x", outcome="timeout")).outcome == "fail"


def test_skip_reason_wins_over_everything():
    v = verdict(task(checks=GROUNDED), state(None, outcome="error", skip_reason="未安装 com.x"))
    assert (v.outcome, v.reason) == ("skipped", "未安装 com.x")


def test_unmet_requirement_is_skipped_never_failed():
    t = task(apps=["com.x"], requires=["installed:com.x"], checks=GROUNDED)
    v = verdict(t, state(None, outcome="failed", probes={"installed:com.x": "false"}))
    assert v.outcome == "skipped" and "installed:com.x" in v.reason
    t = task(requires=["signedIn:com.y"])
    assert verdict(t, state(None, outcome="failed", probes={"signedIn:com.y": "未登录"})).reason.startswith("未登录")
    # A met requirement does not skip.
    assert verdict(t, state("x", probes={"signedIn:com.y": "true"})).outcome == "pass"


def test_harness_error_and_cancel_are_errors():
    v = verdict(task(checks=GROUNDED), state(None, outcome="error", error="adb: device offline"))
    assert v.outcome == "error" and "device offline" in v.reason
    assert verdict(task(), state(None, outcome="cancelled")).outcome == "error"


def test_login_rule_hands_read_task_to_user():
    v = verdict(task(checks=GROUNDED), _takeover())
    assert (v.outcome, v.reason) == ("na", "handed to user: login")
    v = verdict(task(checks=GROUNDED), _takeover(reason="captcha", text="", screen="请输入验证码"))
    assert v.reason == "handed to user: captcha"


def test_login_rule_needs_a_cue_a_read_task_and_no_signed_in():
    no_cue = _takeover(text="需要你处理一下", screen="首页推荐")
    assert verdict(task(), no_cue).outcome == "fail"
    assert verdict(task(category="write", marker="m-{run}", goal="写 m-{run}"), _takeover()).outcome == "fail"
    assert verdict(task(requires=["signedIn:com.xingin.xhs"]), _takeover()).outcome == "fail"
    assert verdict(task(), _takeover(reason="other")).outcome == "fail"


def test_login_rule_narrowed_by_accept_takeover_on():
    assert verdict(task(acceptTakeoverOn=[]), _takeover()).outcome == "fail"
    assert verdict(task(acceptTakeoverOn=["captcha"]), _takeover()).outcome == "fail"
    assert verdict(task(acceptTakeoverOn=["captcha"]), _takeover(reason="captcha")).outcome == "na"


def test_login_rule_comes_before_missing_probe():
    t = task(checks=[{"type": "answer_contains", "value": "{probe:v}"}], probesBefore=["v"])
    assert verdict(t, _takeover()).outcome == "na"


def test_missing_probe_is_an_error_naming_it():
    t = task(checks=[{"type": "answer_contains", "value": "{probe:android_version}"}], probesBefore=["android_version"])
    v = verdict(t, state("14"))
    assert v.outcome == "error" and "android_version" in v.reason
    assert verdict(t, state("安卓 14", probes={"android_version": "14"})).outcome == "pass"


def test_run_placeholder_without_batch_is_an_error():
    t = task(checks=[{"type": "screen_has", "text": "m-{run}"}])
    assert verdict(t, state("x", batch=None)).outcome == "error"


def test_takeover_task_accepts_reasons():
    barrier = task(category="barrier", expect="takeover")
    assert verdict(barrier, _takeover()).outcome == "pass"
    assert verdict(barrier, _takeover(reason="verification")).outcome == "pass"
    assert verdict(barrier, _takeover(reason="other")).outcome == "fail"
    assert verdict(task(category="barrier", expect="takeover", acceptTakeoverOn=[]), _takeover()).outcome == "fail"
    assert verdict(task(category="barrier", expect="takeover", acceptTakeoverOn=["captcha"]),
                   _takeover(reason="captcha")).outcome == "pass"
    assert verdict(barrier, state("x")).outcome == "fail"


def test_budget_does_not_change_the_verdict_but_is_recorded():
    from replay.state import Step

    t = task(maxSteps=2, timeoutSec=1)
    steps = tuple(Step(seq=i, action="tap") for i in range(5))
    import datetime as dt

    t0 = dt.datetime(2026, 4, 5, tzinfo=dt.timezone.utc)
    s = state("x", steps=steps, started_at=t0, last_at=t0 + dt.timedelta(seconds=5))
    v = verdict(t, s)
    assert v.outcome == "pass"
    assert v.details["over_steps"] and v.details["over_time"] and v.details["steps"] == 5
    assert not verdict(task(maxSteps=9), s).details["over_steps"]


def test_write_task_marker_is_in_details():
    t = task(category="write", goal="写 备忘-{run}", marker="备忘-{run}")
    assert verdict(t, state("x", batch="b9")).details["marker"] == "备忘-b9"


def test_login_cue_must_be_on_the_screen_before_the_takeover():
    import msgspec

    from replay.state import Screen

    s = _takeover(text="需要你处理", screen="首页推荐")
    assert verdict(task(), s).outcome == "fail"
    # A login page read after the takeover is not the obstacle the agent reported.
    later = msgspec.structs.replace(s, screens=s.screens + (Screen(seq=3, text="请登录"),))
    assert verdict(task(), later).outcome == "fail"
    assert verdict(task(), _takeover(text="需要你处理", screen="请先登录")).outcome == "na"
