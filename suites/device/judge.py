"""The verdict on one real-device run: outcome rules first, then the task's checks.

Precedence, first match wins:

1. ``run_finished.skip_reason`` → ``skipped`` with that reason.
2. A requirement the device did not meet → ``skipped`` ("requires not met: installed:…"; for
   ``signedIn:`` the reason is 未登录). The harness reports a requirement's state as a probe named
   after it (``probe_read installed:com.taobao.taobao = false``); values false/no/0/missing/
   absent/未安装/未登录/否 mean not met. Placed before the harness-failure rule: a run that could
   not meet its requirements is never counted against anyone.
3. The run ended ``error`` or ``cancelled`` → ``error`` (the harness failed, not the agent).
4. The login rule → ``na`` "handed to user: login" (or captcha): a read task whose run ended in a
   takeover for a reason in {login, captcha} (narrowed by ``acceptTakeoverOn``; ``[]`` accepts
   none) when the last screen read before the takeover shows a login box or captcha words,
   unless the task says it is signed in (``signedIn:``, ``login:``, ``site:`` in requires).
   Only the screen counts: the agent saying it met a login (in the takeover's text or its
   answer) is a claim, and a login button on a feed is not a login box (the seed: 那一屏上看得出
   登录框/验证码字样). A login box is a login word with a credential or prompt word (手机号登录
   获取验证码, 请先登录, 登录后查看, Sign in … password); captcha words are 验证码, 滑块, 安全验证,
   人机验证, captcha, "verify you are human".
5. A ``{probe:…}`` the run did not read (or ``{run}`` without a batch) → ``error`` naming it.
6. Otherwise ``pass`` when the outcome equals ``expect`` (for ``takeover``: with a reason the
   task accepts, default login/captcha/verification) and every check passes; else ``fail``.
   ``timeout`` is an outcome like any other (the agent ran out of time: it did not succeed).

Going over ``maxSteps`` or ``timeoutSec`` never changes the verdict; ``details`` records it for
the reports, with the task's category and, for write tasks, the marker left on the device.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from judges.base import Check, Verdict
from judges.tokens import fold
from replay.state import RunState

from .checks import Unresolved, substitute
from .kinds import Given
from .model import DEFAULT_ACCEPT_TAKEOVER, Task, is_signed_in_requirement

NOT_MET_VALUES = frozenset({"false", "no", "0", "missing", "absent", "not installed", "not signed in",
                            "未安装", "未登录", "否"})
_LOGIN_WORD = r"登录|登陆|log\s*-?\s*in|sign\s*-?\s*in"
_CREDENTIAL = (
    r"密码|验证码|手机号|手机号码|账号|帐号|用户名|短信|一键登录|本机号码|扫码|微信登录|QQ登录|注册|"
    r"password|username|phone|e-?mail|verification\s+code|account"
)
LOGIN_BOX_RE = re.compile(
    rf"(?:{_LOGIN_WORD})[\s\S]{{0,80}}?(?:{_CREDENTIAL})|(?:{_CREDENTIAL})[\s\S]{{0,80}}?(?:{_LOGIN_WORD})"
    r"|请先?登录|登录后(?:才能|查看|可|即可|继续)|立即登录|去登录|未登录|登录以|sign\s+in\s+to|log\s+in\s+to",
    re.IGNORECASE,
)
CAPTCHA_RE = re.compile(
    r"验证码|滑块|拖动.{0,6}(?:完成|验证|拼图)|安全验证|人机验证|图形验证|点击.{0,4}验证|拼图验证|滑动验证|"
    r"(?:请|需要)(?:先)?(?:完成|进行)验证|"
    r"captcha|verify\s+(?:you\s+are|that\s+you\s*(?:'re|are))\s+(?:a\s+)?human|not\s+a\s+robot",
    re.IGNORECASE,
)
HANDED_TO_USER = ("login", "captcha")


def budget(task: Task, state: RunState) -> dict[str, Any]:
    """Steps and time against the task's budget (reports show these; verdicts ignore them)."""
    duration = state.duration_ms
    out: dict[str, Any] = {
        "category": task.category,
        "expect": task.expect,
        "steps": state.n_steps,
        "maxSteps": task.maxSteps,
        "over_steps": task.maxSteps is not None and state.n_steps > task.maxSteps,
        "duration_ms": duration,
        "timeoutSec": task.timeoutSec,
        "over_time": task.timeoutSec is not None and duration is not None and duration > task.timeoutSec * 1000,
    }
    if task.marker:
        try:
            out["marker"] = substitute(task.marker, state)
        except Unresolved:
            out["marker"] = task.marker
    return out


def unmet_requirement(task: Task, state: RunState) -> str | None:
    for req in task.requires:
        value = state.probes.get(req)
        if value is not None and value.strip().casefold() in NOT_MET_VALUES:
            if is_signed_in_requirement(req):
                return f"未登录 ({req})"
            return f"requires not met: {req}"
    return None


def handed_to_user(task: Task, state: RunState) -> str | None:
    """``login``/``captcha`` when the login rule applies to this run, else None."""
    if task.category != "read" or state.outcome != "takeover" or not state.takeovers:
        return None
    if any(is_signed_in_requirement(r) for r in task.requires):
        return None
    accepted = [r for r in HANDED_TO_USER if task.acceptTakeoverOn is None or r in task.acceptTakeoverOn]
    takeover = state.takeovers[-1]
    if takeover.reason not in accepted:
        return None
    screens = state.screens
    before = [i for i, seq in enumerate(screens.seqs) if seq < takeover.seq]
    screen = fold(screens.texts[before[-1]]) if before else ""
    if not (LOGIN_BOX_RE.search(screen) or CAPTCHA_RE.search(screen)):
        return None
    return takeover.reason


def outcome_check(task: Task, state: RunState) -> Check:
    outcome = state.outcome
    if outcome != task.expect:
        return Check(name="outcome", passed=False, expected=task.expect, actual=outcome,
                     reason=f"the run ended {outcome}, expected {task.expect}")
    if task.expect == "takeover":
        accepted = DEFAULT_ACCEPT_TAKEOVER if task.acceptTakeoverOn is None else tuple(task.acceptTakeoverOn)
        reason = state.takeovers[-1].reason if state.takeovers else None
        if reason not in accepted:
            return Check(name="outcome", passed=False, expected={"takeover": list(accepted)}, actual=reason,
                         reason=f"takeover for {reason or 'no recorded reason'}, the task accepts "
                                f"{', '.join(accepted) or 'none'}")
        return Check(name="outcome", passed=True, expected={"takeover": list(accepted)}, actual=reason)
    return Check(name="outcome", passed=True, expected=task.expect, actual=outcome)


def check_names(task: Task) -> list[str]:
    """Check names: the type, with #2, #3 … when a type repeats (the diff pairs checks by name)."""
    seen: dict[str, int] = {}
    names = []
    for c in task.checks:
        kind = c.__struct_config__.tag
        seen[kind] = seen.get(kind, 0) + 1
        names.append(kind if seen[kind] == 1 else f"{kind}#{seen[kind]}")
    return names


def judge(task: Task, state: RunState, table: Mapping[str, tuple[str, ...]]) -> Verdict:
    details = budget(task, state)
    if state.skip_reason:
        return Verdict(outcome="skipped", score=0.0, reason=state.skip_reason, details=details)
    unmet = unmet_requirement(task, state)
    if unmet:
        return Verdict(outcome="skipped", score=0.0, reason=unmet, details=details)
    if state.outcome in ("error", "cancelled"):
        why = f"harness {state.outcome}" + (f": {state.error}" if state.error else "")
        return Verdict(outcome="error", score=0.0, reason=why, details=details)
    handed = handed_to_user(task, state)
    if handed:
        return Verdict.na(f"handed to user: {handed}", details={**details, "handed_to_user": handed})
    try:
        resolved = [c.resolve(state) for c in task.checks]
    except Unresolved as exc:
        return Verdict(outcome="error", score=0.0, reason=exc.what, details=details)
    checks = [outcome_check(task, state)]
    checks += [c.run(state, Given(name=name, table=table, goal=task.goal)) for c, name in zip(resolved, check_names(task))]
    return Verdict.from_checks(checks, details=details)
