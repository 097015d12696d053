"""Judging a run of a GUI task: the answer (text mode, Path A or Path B), side effects, budget.

Which path judges the answer:

* the task has no ``answer_fields``, or the run was in text mode → the task's ``check_goals``
  on the agent's free-text answer (operate tasks only look at the world state), reading what it
  says of the asked subject (``Task.about``: "杭州现在20度" says nothing of 北京);
* grounded mode and the task defines its own ``check_goals`` → Path B: the AnswerSheet values
  joined with ", " in field order become the answer (only when the sheet was submitted), then
  ``check_goals``;
* otherwise → Path A: each field is matched on its own against the expected response with the
  field's matcher, plus the ``submitted`` check.

Then every change between the initial and the final world state that neither
``expected_changes`` nor ``always_ignore`` covers is a warning, and the run passes only when
its goals are met and it is clean. Pure: the verdict depends on the task and the state alone.
"""

from __future__ import annotations

from typing import Any

from judges.base import Check, Verdict
from judges.matchers import match_field, match_repeatable
from replay.state import RunState

from . import paths
from .task import AnswerTask, JudgeError, Observation, Task, has_own_check_goals

WARNING = "side effect: "


def judge(task: Task, state: RunState) -> Verdict:
    if state.initial_state is None:
        return Verdict.na(
            f"the run recorded no world state, and {task.task_id} is judged on it "
            "(its expected answer and goals are read from the initial and final state)"
        )
    final = state.state if state.state is not None else state.initial_state
    fields = task.fields()
    mode = state.mode
    try:
        if not fields or mode == "text":
            path = "text"
            obs = _observation(state, final, answer=state.answer, about=task.about(state.answer))
            goals = task.check_goals(obs)
        elif has_own_check_goals(task):
            path = "B"
            submitted = state.sheet.submitted
            joined = ", ".join(_cell(state.sheet.value(i)) for i in range(len(fields))) if submitted else None
            obs = _observation(state, final, answer=joined, about=task.about(joined))
            goals = [_submitted_check(submitted), *task.check_goals(obs)]
        else:
            path = "A"
            obs = _observation(state, final, answer=None)
            goals = [_submitted_check(state.sheet.submitted), *_path_a(task, obs)]
    except (JudgeError, paths.PathError) as exc:
        return Verdict.error(str(exc))
    warnings = side_effects(task, state.initial_state, final, obs)
    success = bool(goals) and all(c.passed for c in goals)
    clean = not warnings
    budget = task.budget(mode)
    details: dict[str, Any] = {
        "path": path,
        "mode": mode,
        "success": success,
        "clean": clean,
        "progress": round(sum(c.passed for c in goals) / len(goals), 4) if goals else 0.0,
        "warnings": [c.expected for c in warnings],
        "max_steps": budget,
        "steps": state.n_steps,
        "over_budget": state.n_steps > budget,
    }
    return Verdict.from_checks([*goals, *warnings], details=details)


def _observation(state: RunState, final: dict[str, Any], *, answer: str | None,
                 about: str | None = None) -> Observation:
    return Observation(
        initial=state.initial_state or {},
        final=final,
        answer=answer,
        about=about,
        sheet=dict(state.sheet.answers),
        submitted=state.sheet.submitted,
        mode=state.mode,
    )


def _cell(value: Any) -> str:
    """A sheet value as it reads in the joined answer (a repeatable field's items joined too)."""
    if value is None:
        return ""
    if isinstance(value, list):
        return ", ".join(_cell(v) for v in value)
    return str(value)


def _submitted_check(submitted: bool) -> Check:
    return Check(
        name="submitted",
        passed=submitted,
        expected=True,
        actual=submitted,
        reason="" if submitted else "the AnswerSheet was left unsubmitted",
    )


def _path_a(task: Task, obs: Observation) -> list[Check]:
    if not isinstance(task, AnswerTask):
        raise JudgeError(f"{task.task_id}: Path A needs an AnswerTask (one with an expected answer)")
    fields = task.fields()
    expected = task.get_expected_response(obs)
    if len(expected) != len(fields):
        raise JudgeError(
            f"{task.task_id}: {len(fields)} answer field(s) but {len(expected)} expected value(s); "
            "override get_expected_response so that there is one value per field"
        )
    out = []
    for i, (f, want) in enumerate(zip(fields, expected)):
        got = obs.sheet.get(str(i))
        name = f"field {i}: {f.label}"
        if f.options is not None:
            wants = want if f.repeatable and isinstance(want, list) else [want]
            bad = [w for w in wants if w not in f.options]
            if bad:
                raise JudgeError(f"{task.task_id}: expected {bad[0]!r} is not an option of field {i} {f.options}")
        if got is None or got == "" or got == []:
            out.append(Check(name=name, passed=False, expected=want, actual=got, reason="left empty"))
            continue
        if f.repeatable:
            wants = want if isinstance(want, list) else [want]
            gots = got if isinstance(got, list) else [got]
            ok = match_repeatable(f.matcher, f.compare, wants, gots, obs.os)
            reason = "" if ok else (
                f"{len(gots)} item(s), expected {len(wants)}" if len(gots) != len(wants)
                else f"items do not match by {f.matcher} ({f.compare})"
            )
        elif isinstance(got, list):
            ok, reason = False, "several values in a single-value field"
        else:
            ok = match_field(f.matcher, want, got, obs.os)
            reason = "" if ok else f"does not match {want!r} by {f.matcher}"
        out.append(Check(name=name, passed=ok, expected=want, actual=got, reason=reason))
    return out


def side_effects(task: Task, initial: dict[str, Any], final: dict[str, Any], obs: Observation | None = None) -> list[Check]:
    """One failed warning check per change no rule of the task covers (given the run, the task
    covers only the changes it asked for: a second new alarm is a side effect)."""
    expected, ignored = task.change_rules(obs)
    rules = [paths.parse(r) for r in expected + ignored]
    out = []
    for change in paths.diff(initial, final):
        if any(paths.covers(rule, change) for rule in rules):
            continue
        where = change.show()
        out.append(
            Check(
                name=WARNING + where,
                passed=False,
                expected=where,
                actual={"kind": change.kind, "before": change.before, "after": change.after},
                reason=f"unexpected change ({change.kind}) at {where}",
            )
        )
    return out
