"""The judge matrix of a Python suite: every task has runs that must pass and runs that must
fail, and the suite's judge gets each one right.

A suite folder keeps its cases as JSON Lines event files (docs/events.md), one or more runs
per file: ``cases/pass/*.jsonl`` must be judged ``pass``, ``cases/fail/*.jsonl`` must be
judged ``fail`` (an ``error`` is a broken judge, not a caught mistake; a ``review`` is a judge
that cannot tell a case its matrix decides, and fails the matrix as well). A recorded run becomes
a case with ``traj export events --run RUN --out SUITE/cases/pass/NAME.jsonl``. The matrix is
complete when every task of ``suite.task_ids()`` has at least one case of each kind.

``traj suite check FOLDER`` and the test file ``traj suite new`` writes both call
:func:`judge_matrix`. Reading the files is the shell's work; judging is the suite's pure judge
through :func:`trajectory.judging.judge_state`, exactly as ``traj judge`` calls it.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from pathlib import Path
from typing import Any

from trajectory.errors import TrajError
from trajectory.text import plural

EXPECTATIONS = ("pass", "fail")


@dataclasses.dataclass
class Case:
    """One run of the matrix and what its judge said."""

    file: str  # relative to the suite folder
    line: int  # of the run's first event
    run_id: str
    task: str | None
    expect: str
    outcome: str = ""
    reason: str = ""
    failed_checks: list[str] = dataclasses.field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.outcome == self.expect

    @property
    def label(self) -> str:
        return f"{self.task}-{self.expect}-{self.run_id}"

    def line_text(self) -> str:
        head = f"{'ok  ' if self.ok else 'FAIL'}  {self.task}  must {self.expect}: {self.outcome}"
        where = f"  ({self.file}:{self.line}, run {self.run_id})"
        if self.ok:
            return head + where
        if self.outcome == "review":
            head += " (the matrix decides this case: the judge may not answer review here)"
        return head + (f": {self.reason}" if self.reason else "") + where

    def explain(self) -> str:
        lines = [self.line_text()] + [f"    {c}" for c in self.failed_checks]
        return "\n".join(lines)


@dataclasses.dataclass
class Matrix:
    """The matrix of one suite folder: its cases and what is wrong beyond them."""

    folder: str
    suite: str | None
    tasks: list[str]
    cases: list[Case]
    problems: list[str]

    @property
    def ok(self) -> bool:
        return not self.problems and all(c.ok for c in self.cases)

    def lines(self) -> list[str]:
        out = [c.line_text() for c in self.cases]
        out += [f"problem: {p}" for p in self.problems]
        return out

    def summary(self) -> str:
        wrong = sum(1 for c in self.cases if not c.ok)
        if self.ok:
            return (f"ok: suite {self.suite}, {plural(len(self.tasks), 'task')}, {plural(len(self.cases), 'case')}; "
                    "every task has a passing and a failing case and is judged right")
        return (f"{plural(wrong, 'case')} judged wrong, {plural(len(self.problems), 'problem')} "
                f"in {self.folder}")

    def to_json(self) -> dict[str, Any]:
        return {"folder": self.folder, "suite": self.suite, "tasks": self.tasks, "ok": self.ok,
                "cases": [dataclasses.asdict(c) | {"ok": c.ok} for c in self.cases], "problems": self.problems}


def is_python_suite(folder: Path) -> bool:
    return (folder / "__init__.py").is_file()


def _load(folder: Path) -> Any:
    from suites.registry import load_folder

    return load_folder(folder)


def _read_cases(folder: Path, expect: str, problems: list[str]) -> list[tuple[str, list[Any]]]:
    """(relative file, [(line, events of one run)]) for the case files of one expectation."""
    from trajectory.ingest.plain import parse

    out: list[tuple[str, list[Any]]] = []
    for path in sorted((folder / "cases" / expect).glob("*.jsonl")):
        rel = str(path.relative_to(folder))
        try:
            parsed = parse(path.read_bytes(), rel)
        except TrajError as exc:
            problems.append(str(exc).splitlines()[0])
            continue
        runs: dict[str, list[Any]] = defaultdict(list)
        for p in parsed:
            runs[p.event.run_id].append(p)
        out.append((rel, list(runs.values())))
    return out


def judge_matrix(folder: str | Path) -> Matrix:
    """Judge every case of a Python suite folder (see the module docstring)."""
    from replay import ReplayError, replay

    from trajectory.judging import SuiteResolver, judge_state

    folder = Path(folder)
    problems: list[str] = []
    try:
        suite = _load(folder)
    except Exception as exc:  # noqa: BLE001 - the folder's own code failed: say so in one line
        first = str(exc).splitlines()[0] if str(exc) else ""
        return Matrix(str(folder), None, [], [], [f"cannot load the suite: {type(exc).__name__}: {first}"])
    tasks = list(suite.task_ids())
    if not (folder / "cases").is_dir():
        problems.append("no judge matrix: put runs that must pass in cases/pass/ and runs that must fail in "
                        "cases/fail/ (JSON Lines events; see docs/suites.md)")
    cases: list[Case] = []
    seen: dict[str, set[str]] = defaultdict(set)
    for expect in EXPECTATIONS:
        for rel, runs in _read_cases(folder, expect, problems):
            for parsed in runs:
                events = [p.event for p in sorted(parsed, key=lambda p: p.event.seq)]
                case = Case(rel, parsed[0].line, events[0].run_id, None, expect)
                try:
                    state = replay(events)
                except ReplayError as exc:
                    problems.append(f"{rel}:{parsed[0].line}: run {case.run_id}: {exc}")
                    continue
                case.task = state.task
                if not state.finished:
                    problems.append(f"{rel}:{parsed[0].line}: run {case.run_id} has no run_finished: "
                                    "a case is a finished run")
                    continue
                resolver = SuiteResolver(overrides={state.suite or "": suite})
                verdict, _ = judge_state(resolver, state)
                case.outcome, case.reason = verdict.outcome, verdict.reason
                case.failed_checks = [
                    f"{c.name}: expected {c.expected!r}, actual {c.actual!r}" + (f" ({c.reason})" if c.reason else "")
                    for c in verdict.checks if not c.passed
                ]
                seen[expect].add(state.task or "")
                cases.append(case)
    for task in tasks:
        for expect in EXPECTATIONS:
            if task not in seen[expect]:
                problems.append(f"task {task} has no case that must {expect} (add one to cases/{expect}/)")
    return Matrix(str(folder), getattr(suite, "name", None), tasks, cases, problems)
