"""The suite contract: what the platform calls on a suite, and the optional capabilities.

A suite is anything that follows :class:`SuiteProtocol`; ``judges.base.Suite`` is a convenience
base class that provides ``version``/``code_version`` and defaults (subclass it and write
``task_ids``, ``get_task``, ``judge``, ``task_data`` and, optionally, ``task_split``). Optional
capabilities are small protocols of their own; the shell asks ``isinstance(suite, Pairing)``
instead of looking for attributes by name. All are ``runtime_checkable``.

For every finished run of a suite the platform calls ``task = suite.get_task(state.task,
state.params)``, binds the pair partner when the suite is :class:`Pairing`, then
``suite.judge(task, state)``, and records ``suite.version(task)`` with the verdict.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from replay.batch import Reads
from replay.state import RunState

from .base import Verdict


@runtime_checkable
class SuiteProtocol(Protocol):
    """A named set of tasks and the pure judge for them."""

    name: str

    def task_ids(self) -> list[str]:
        """Every task id the suite has."""
        ...

    def get_task(self, task_id: str, params: dict[str, Any] | None = None) -> Any:
        """The task object for a run; raises ``KeyError`` naming the id when there is none."""
        ...

    def judge(self, task: Any, state: RunState) -> Verdict:
        """The verdict on one replayed run: pure, the same state always gives the same verdict."""
        ...

    def version(self, task: Any) -> str:
        """The judge version recorded with a verdict on ``task`` (code and task data)."""
        ...

    def code_version(self) -> str:
        """The part of the version that covers the code (every module the verdicts depend on)."""
        ...

    def task_split(self, task_id: str) -> str | None:
        """The task's own pool (tune/holdout): the default for runs that do not say."""
        ...


@runtime_checkable
class Aliased(Protocol):
    """A suite that judges runs recorded under several suite names (gui: weather and clock)."""

    names: Sequence[str]


@runtime_checkable
class Reading(Protocol):
    """A suite that says what its judge reads, so that batch replay builds only that."""

    reads: Reads


@runtime_checkable
class Pairing(Protocol):
    """A suite that judges a run together with the other attempt of its pair."""

    def bind_partner(self, task: Any, partner: RunState) -> Any:
        """The task with the partner's replayed state bound to it (the judge stays (task, state))."""
        ...


@dataclass(frozen=True)
class LLMRequest:
    """One prompt for an LLM judge, as ``traj judge --llm`` asks and records it
    (``trajectory/llm/ask.py``). ``key`` identifies the prompt; the model is recorded next to the
    answer, so the same prompt asked of two models gives two answers under one key. ``label``
    names the prompt for people (the tool or scorer it is about)."""

    judge: str
    key: str
    messages: tuple[Mapping[str, str], ...]
    response_format: Mapping[str, Any] | None = None
    label: str = ""


@runtime_checkable
class LLMJudged(Protocol):
    """A suite whose verdicts read recorded LLM judgements (``traj judge --llm`` asks for them)."""

    def llm_requests(self, task: Any, state: RunState) -> list[LLMRequest]:
        """The prompts this run's verdict needs."""
        ...


@runtime_checkable
class ReportRendering(Protocol):
    """A suite with a report of its own (``traj report --suite NAME``). The shell queries the
    suite's current verdicts and gives their rows; the suite only renders."""

    report_formats: Sequence[str]

    def render_report(self, rows: Sequence[dict[str, Any]], fmt: str) -> str:
        """The report text from verdict rows (``run_id``, ``task``, ``outcome``, ``score``,
        ``details`` as JSON text, ...), in format ``fmt``."""
        ...


@runtime_checkable
class DemoSamples(Protocol):
    """A suite that ships sample runs for ``traj demo``, as events (it never records them)."""

    def sample_runs(self) -> Iterable[Sequence[Any]]:
        """Runs, each a sequence of events (trajectory.events types), seq 0 first."""
        ...


@runtime_checkable
class Registered(Protocol):
    """A suite that is neither a folder nor a class built without arguments, loaded from what
    ``traj suite add`` registered: Inspect scorers named as ``module:function``. Its tasks are
    open (any sample id; ``task_ids`` is empty) and ``registration`` is what the store keeps for
    it, ``{"scorers": "module:function", "root": folder}``, from which a judging worker loads it
    again (``suites.registry.SuiteSpec`` kind ``scorers``)."""

    registration: Mapping[str, str | None]


@runtime_checkable
class Checked(Protocol):
    """A suite that lists problems found while loading it (left-out task files, ...)."""

    problems: list[str]
