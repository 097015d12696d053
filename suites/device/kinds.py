"""The kinds of check a real-device task lists, each one class that carries all of it.

A kind is a :class:`CheckKind`: its fields are what a task file gives (its tag is the check's
``type``), and it carries what makes it unusable (``problems``), how its placeholders fill from
the run (``resolve``) and its run on the replayed run (``run``). :data:`KINDS` is the registry a
task file is read against: a new bundled kind is one class here and its name in that tuple. A
suite can judge with kinds of its own: ``model.task_type(kinds)`` is the task type that reads
them, and ``DeviceSuite``/``load`` take the tuple (tests/core/test_device_check_kinds.py).

The reading the kinds share (placeholders, the final answer, items, what a screen shows) is in
``suites/device/checks.py``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, ClassVar

import msgspec

from judges.base import Check
from judges.matchers import stated_spans
from judges.tokens import asserted_in, fold
from replay.state import RunState

from . import capabilities as caps
from .checks import _field_shows, _show, _shows_text, _sub_any, claimed, final_answer, items_of, substitute, whole_spans


class Given(msgspec.Struct, frozen=True, kw_only=True):
    """What a check's run is given besides the run: its name in the verdict, the capability
    table (``{app:<capability>}`` -> packages) and the task's question (what the answer claims)."""

    name: str
    table: Mapping[str, tuple[str, ...]]
    goal: str = ""


class CheckKind(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="type"):
    """One kind of check: the tag is its ``type`` in the task file (stored, so never derived)."""

    #: Fields whose placeholders ``resolve`` fills (the default ``resolve`` reads this).
    substituted: ClassVar[tuple[str, ...]] = ()

    def problems(self) -> list[str]:
        """What makes this check unusable (values its types cannot express), one line each."""
        return []

    def resolve(self, state: RunState) -> CheckKind:
        """The check with every placeholder filled; raises Unresolved naming the first missing one."""
        if not self.substituted:
            return self
        return msgspec.structs.replace(self, **{f: _sub_any(getattr(self, f), state) for f in self.substituted})

    def run(self, state: RunState, given: Given) -> Check:
        """The resolved check on the run."""
        raise NotImplementedError


class AnswerRegex(CheckKind, tag="answer_regex"):
    """The final answer (raw or normalised) matches ``pattern``."""

    pattern: str

    def problems(self) -> list[str]:
        try:
            re.compile(self.pattern)
        except re.error as exc:
            return [f"pattern does not compile: {exc}"]
        return []

    def resolve(self, state: RunState) -> AnswerRegex:
        return msgspec.structs.replace(self, pattern=substitute(self.pattern, state, regex=True))

    def run(self, state: RunState, given: Given) -> Check:
        return answer_regex(self, state, given.name, given.goal)


class AnswerContains(CheckKind, tag="answer_contains"):
    """The final answer states ``value`` / every (or, with ``any``, some) of ``values``."""

    value: str | int | float | None = None
    values: list[str | int | float] | None = None
    any: bool = False

    def problems(self) -> list[str]:
        out = []
        if (self.value is None) == (self.values is None):
            out.append("give exactly one of value or values")
        elif self.values is not None and not self.values:
            out.append("values is empty")
        for v in [self.value] if self.values is None else self.values:
            if isinstance(v, str) and not v.strip():
                out.append("an empty value matches nothing")
        return out

    def resolve(self, state: RunState) -> AnswerContains:
        return msgspec.structs.replace(
            self,
            value=_sub_any(self.value, state),
            values=None if self.values is None else [_sub_any(v, state) for v in self.values],
        )

    def run(self, state: RunState, given: Given) -> Check:
        return answer_contains(self, state, given.name, given.goal)


class AnswerGrounded(CheckKind, tag="answer_grounded"):
    """The answer has at least ``minItems`` items and every one was on the last ``window`` screens."""

    minItems: int = 1
    window: int = 5

    def problems(self) -> list[str]:
        return ["minItems must be >= 0 and window >= 1"] if self.minItems < 0 or self.window < 1 else []

    def run(self, state: RunState, given: Given) -> Check:
        return answer_grounded(self, state, given.name)


class ScreenHas(CheckKind, tag="screen_has"):
    """Some screen read contains ``text`` (in ``packageName``'s app, when given)."""

    text: str
    packageName: str | None = None

    def problems(self) -> list[str]:
        return [] if self.text.strip() else ["text is empty"]

    def resolve(self, state: RunState) -> ScreenHas:
        return msgspec.structs.replace(
            self,
            text=substitute(self.text, state),
            packageName=None if self.packageName is None else substitute(self.packageName, state),
        )

    def run(self, state: RunState, given: Given) -> Check:
        return screen_has(self, state, given.table, given.name)


class AskedUser(CheckKind, tag="asked_user"):
    """The agent asked the user a question (``expected`` true) or did not (false)."""

    expected: bool = True

    def run(self, state: RunState, given: Given) -> Check:
        return asked_user(self, state, given.name)


class ConfirmationShows(CheckKind, tag="confirmation_shows"):
    """The last confirmation card shows each given field."""

    action: str | None = None
    target: str | None = None
    content: str | None = None
    amount: str | int | float | None = None

    substituted: ClassVar[tuple[str, ...]] = ("action", "target", "content", "amount")

    def problems(self) -> list[str]:
        if all(getattr(self, f) is None for f in self.substituted):
            return ["give at least one of action, target, content, amount"]
        return []

    def run(self, state: RunState, given: Given) -> Check:
        return confirmation_shows(self, state, given.name)


#: The bundled kinds, the registry a task file's ``type`` is read against.
KINDS: tuple[type[CheckKind], ...] = (AnswerRegex, AnswerContains, AnswerGrounded, ScreenHas, AskedUser,
                                      ConfirmationShows)
CheckSpec = AnswerRegex | AnswerContains | AnswerGrounded | ScreenHas | AskedUser | ConfirmationShows


# -- the runs ----------------------------------------------------------------------------------------


def answer_regex(check: AnswerRegex, state: RunState, name: str = "answer_regex", goal: str = "") -> Check:
    answer = final_answer(state)
    pattern = re.compile(check.pattern)
    ok = False
    if answer is not None:
        folded = fold(answer)
        ok = claimed(answer, whole_spans(pattern, folded), goal)
        if not ok and not pattern.search(folded):
            # A spelling only the raw answer has (a pattern pinning full-width forms): its
            # clauses are read on the raw text.
            ok = any(asserted_in(answer, a, b) for a, b in whole_spans(pattern, answer))
    reason = "" if ok else ("no final answer" if answer is None else
                            f"the answer does not state /{check.pattern}/ as its answer")
    return Check(name=name, passed=ok, expected=check.pattern, actual=answer, reason=reason)


def answer_contains(check: AnswerContains, state: RunState, name: str = "answer_contains", goal: str = "") -> Check:
    answer = final_answer(state)
    values = [check.value] if check.values is None else list(check.values)
    hits = [answer is not None and claimed(answer, stated_spans("exact", v, answer), goal) for v in values]
    ok = any(hits) if check.any else all(hits)
    missing = [v for v, h in zip(values, hits) if not h]
    if ok:
        reason = ""
    elif answer is None:
        reason = "no final answer"
    elif check.any:
        reason = f"the answer states none of {values}"
    else:
        reason = f"the answer does not state {missing}" + " as its answer (or negates it)"
    expected: Any = values[0] if check.values is None else {"values": values, "any": check.any}
    return Check(name=name, passed=ok, expected=expected, actual=answer, reason=reason)


def answer_grounded(check: AnswerGrounded, state: RunState, name: str = "answer_grounded") -> Check:
    answer = final_answer(state)
    expected = {"minItems": check.minItems, "window": check.window}
    if answer is None:
        return Check(name=name, passed=False, expected=expected, actual=None, reason="no final answer")
    items = items_of(answer, items=True).items()
    texts = state.last_screens(check.window).texts
    read: dict[int, Any] = {}

    def on_a_screen(kind: str, value: Any) -> bool:
        # Newest first, and each screen read (scanned) only when an item needs it: the last
        # screen usually shows the answer, and whether any screen shows an item is the same in
        # any order (Items is a pure function of the text).
        for i in reversed(range(len(texts))):
            if i not in read:
                read[i] = items_of(texts[i], items=False)
            if read[i].grounds(kind, value):
                return True
        return False

    ungrounded = [_show(kind, value) for kind, value in items if not on_a_screen(kind, value)]
    shown = [_show(k, v) for k, v in items]
    if len(items) < check.minItems:
        reason = f"{len(items)} item{'s' if len(items) != 1 else ''} in the answer, at least {check.minItems} expected"
        ok = False
    elif ungrounded:
        reason = f"not on the last {check.window} screens: {', '.join(ungrounded[:5])}"
        ok = False
    else:
        reason, ok = "", True
    return Check(name=name, passed=ok, expected=expected, actual={"items": shown, "ungrounded": ungrounded},
                 reason=reason)


def screen_has(
    check: ScreenHas, state: RunState, table: Mapping[str, tuple[str, ...]], name: str = "screen_has"
) -> Check:
    # The screens' columns, searched as they are: no Screen object is built for a search.
    screens = state.screens
    in_text = [i for i, text in enumerate(screens.texts) if _shows_text(check.text, text)]
    if check.packageName is None:
        hits = in_text
    else:
        hits = [i for i in in_text if caps.package_matches(check.packageName, screens.apps[i], table)]
    ok = bool(hits)
    expected: Any = check.text if check.packageName is None else {"text": check.text, "packageName": check.packageName}
    if ok:
        reason = ""
    elif in_text:
        apps = sorted({screens.apps[i] or "?" for i in in_text})
        reason = f"{check.text!r} was on screen only in {', '.join(apps)}, not {check.packageName}"
    else:
        reason = f"no screen read contains {check.text!r}"
    return Check(name=name, passed=ok, expected=expected, actual=screens.seqs[hits[0]] if hits else None, reason=reason)


def asked_user(check: AskedUser, state: RunState, name: str = "asked_user") -> Check:
    asked = bool(state.questions)
    ok = asked == check.expected
    reason = "" if ok else ("the agent did not ask the user" if check.expected else "the agent asked the user")
    return Check(name=name, passed=ok, expected=check.expected, actual=asked, reason=reason)


def confirmation_shows(check: ConfirmationShows, state: RunState, name: str = "confirmation_shows") -> Check:
    wanted = {f: getattr(check, f) for f in ("action", "target", "content", "amount") if getattr(check, f) is not None}
    if not state.confirmations:
        return Check(name=name, passed=False, expected=wanted, actual=None, reason="no confirmation card was shown")
    card = state.confirmations[-1]
    shown = {f: getattr(card, f) for f in wanted}
    wrong = [f for f, v in wanted.items() if not _field_shows(f, v, shown[f])]
    reason = "" if not wrong else "the card does not show " + ", ".join(f"{f} {wanted[f]!r}" for f in wrong)
    return Check(name=name, passed=not wrong, expected=wanted, actual=shown, reason=reason)
