"""Verdicts, checks and the Suite interface every judge implements.

A judge is a pure function ``(task, RunState) -> Verdict``. It reads nothing but its arguments:
no files, no clock, no network. Everything a judge needs from the outside world (an LLM's
answer, a probe's value) arrives as an event and is replayed into the RunState.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from types import ModuleType
from typing import Any, Literal

import msgspec
from msgspec import Struct

from replay.batch import ALL, Reads
from replay.state import RunState

from .versions import files_hash, suite_modules

Outcome = Literal["pass", "fail", "error", "skipped", "na", "review"]
#: Every outcome a verdict may have, in the order reports list them: the one enumeration the
#: shell's readers (counts, reports, the viewer, the share allow-list) take theirs from.
OUTCOMES: tuple[str, ...] = ("pass", "fail", "error", "skipped", "na", "review")


class Check(Struct, frozen=True, kw_only=True):
    """One thing a judge looked at: what it expected, what it found, and why it decided so."""

    name: str
    """What was checked, short and stable across versions (``diff`` pairs checks by name)."""
    passed: bool
    """Whether the check held."""
    expected: Any = None
    """What the task wanted (JSON-able; stored as JSON text), shown as evidence in diffs."""
    actual: Any = None
    """What the run showed (JSON-able), shown next to ``expected``."""
    reason: str = ""
    """One line a person can act on when the check failed; empty when it passed."""
    review: bool = False
    """The check could not decide (the answer gives two readings of the asked value it does not
    resolve): ``passed`` is False and ``reason`` says what a person should look at. A verdict whose
    only unheld checks are such is ``review``, not ``fail`` (see :meth:`Verdict.from_checks`)."""


class Verdict(Struct, frozen=True, kw_only=True):
    """A judge's decision on one run."""

    outcome: Outcome
    """``pass``, ``fail``, ``error`` (the judge or the harness failed, not the agent),
    ``skipped`` (not attempted, or a requirement not met), ``na`` (nothing to score, or the
    task's rules hand it to a person) or ``review`` (the judge cannot tell: a check could not
    decide between readings of the answer; a person settles it with ``traj override``).
    Only pass and fail make a pass rate; the others are counted apart."""
    score: float
    """In [0, 1]; for a list of checks, the share that passed."""
    checks: tuple[Check, ...] = ()
    """Everything the judge looked at, in order."""
    reason: str = ""
    """Why, in one line: the first failed checks' reasons, or what went wrong."""
    details: dict[str, Any] | None = None
    """Suite-specific figures a report shows (per-layer scores, step budget, ...): JSON only."""

    def __post_init__(self) -> None:
        if self.outcome not in OUTCOMES:
            raise ValueError(f"outcome must be one of {OUTCOMES}, got {self.outcome!r}")
        if not 0.0 <= self.score <= 1.0:
            raise ValueError(f"score must be in [0, 1], got {self.score!r}")

    @classmethod
    def from_checks(
        cls,
        checks: Iterable[Check],
        *,
        reason: str | None = None,
        details: dict[str, Any] | None = None,
    ) -> Verdict:
        """``pass`` when every check passed; ``fail`` when one failed; ``review`` when the only
        checks that did not pass are ones that could not decide (``Check.review``): a check that
        fails decides the verdict whatever another could not tell. The score is the share of
        checks that passed."""
        checks = tuple(checks)
        if not checks:
            return cls(outcome="fail", score=0.0, reason=reason or "no checks", details=details)
        passed = sum(1 for c in checks if c.passed)
        ok = passed == len(checks)
        failed = [c for c in checks if not c.passed and not c.review]
        outcome = "pass" if ok else "fail" if failed else "review"
        if reason is None:
            shown = failed or [c for c in checks if not c.passed]
            reason = "all checks passed" if ok else ("cannot tell: " if outcome == "review" else "") + "; ".join(
                f"{c.name}: {c.reason}" if c.reason else c.name for c in shown[:3]
            )
        return cls(
            outcome=outcome,
            score=1.0 if ok else passed / len(checks),
            checks=checks,
            reason=reason,
            details=details,
        )

    @classmethod
    def error(cls, message: str, *, checks: Sequence[Check] = ()) -> Verdict:
        return cls(outcome="error", score=0.0, checks=tuple(checks), reason=message)

    @classmethod
    def skipped(cls, reason: str) -> Verdict:
        return cls(outcome="skipped", score=0.0, reason=reason)

    @classmethod
    def review(cls, reason: str, *, checks: Sequence[Check] = (), details: dict[str, Any] | None = None) -> Verdict:
        """The judge cannot tell; `reason` says what a person should look at."""
        return cls(outcome="review", score=0.0, checks=tuple(checks), reason=reason, details=details)

    @classmethod
    def na(cls, reason: str, *, checks: Sequence[Check] = (), details: dict[str, Any] | None = None) -> Verdict:
        return cls(outcome="na", score=0.0, checks=tuple(checks), reason=reason, details=details)


def _digest(*parts: bytes) -> str:
    h = hashlib.blake2b(digest_size=8)
    for p in parts:
        h.update(len(p).to_bytes(8, "little"))
        h.update(p)
    return h.hexdigest()





def data_hash(data: Any) -> str:
    """A content hash of task definition data (JSON-able), independent of key order."""
    if isinstance(data, bytes):
        return _digest(data)
    return _digest(json.dumps(msgspec.to_builtins(data), sort_keys=True, ensure_ascii=False).encode())


def judge_version(code: str, task_data: str) -> str:
    """The version recorded with a verdict: judge code and the task's definition together."""
    return f"{code[:8]}.{task_data[:8]}"


class Suite:
    """A convenience base for the suite contract (``judges/contract.py``): subclasses write
    ``task_ids``, ``get_task``, ``judge``, ``task_data`` and, if tasks have their own pool,
    ``task_split``; ``version`` and ``code_version`` are provided.

    The platform calls, for every finished run of this suite:
    ``task = suite.get_task(state.task, state.params)``, then ``suite.judge(task, state)``, and
    records ``suite.version(task)`` with the verdict.
    """

    name: str = ""
    #: Modules to count in the code version besides those found from the imports of the
    #: suite's own module (see judges/versions.py); rarely needed.
    code_modules: tuple[ModuleType, ...] = ()
    #: What the judge reads from a RunState; the batch replay builds only that. The default,
    #: everything, is always correct; a narrower one makes re-judging faster.
    reads: Reads = ALL

    # -- to override ------------------------------------------------------------------------
    def task_ids(self) -> list[str]:
        raise NotImplementedError

    def get_task(self, task_id: str, params: dict[str, Any] | None = None) -> Any:
        """The task object for a run; raise ``KeyError`` naming the id when there is none."""
        raise NotImplementedError

    def judge(self, task: Any, state: RunState) -> Verdict:
        raise NotImplementedError

    def task_data(self, task: Any) -> Any:
        """The task's definition data, hashed into the judge version."""
        raise NotImplementedError

    def task_split(self, task_id: str) -> str | None:
        """The task's own pool (tune/holdout), the default for runs that do not say."""
        return None

    # -- provided ---------------------------------------------------------------------------
    def code_version(self) -> str:
        """A hash of every module the verdicts depend on, found from imports; once per object."""
        cached = self.__dict__.get("_code_version")
        if cached is None:
            cached = files_hash(suite_modules(self).values())
            self.__dict__["_code_version"] = cached
        return cached

    def version(self, task: Any) -> str:
        return judge_version(self.code_version(), data_hash(self.task_data(task)))

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"
