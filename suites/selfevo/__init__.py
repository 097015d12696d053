"""The self-evolution suite: tool-creating agents judged in four layers, from the event store.

Twenty tasks (``dataset.json``, the harness's own data) whose goals never name the tool to use. A
run is one attempt; a first attempt (pair round 1) and its second, similar attempt (round 2)
are linked by ``pair``. The verdict for a pair is given on its first attempt:

- L1 task correctness: the task's criterion (regex or contains-any) on the final answer;
- L2 tool discovery: on-topic search, docs visited, recommended library, pitfalls avoided
  (n/a for a pure reuse with no discovery);
- L3 tool quality: an LLM judge's rubric on the first created tool (n/a without a created tool,
  and without a recorded judgement: ``traj judge --llm`` records one; unreadable answers are
  n/a with the raw text kept);
- L4 tool reuse: from the second attempt's actions (n/a without a second attempt);
- overall: weighted 0.35/0.25/0.25/0.15, re-normalised over the layers with a score, rounded.

The outcome: ``pass`` when overall >= 0.7 and every scored layer >= 0.5 (see
``layers.PASS_OVERALL``); the verdict's score is the overall. A second attempt gets ``na``: it is
scored on its first attempt, not separately.

How a first attempt's judge sees its second attempt: the judging engine finds the finished run
with the same pair id and the other round and hands it over through :meth:`bind_partner`; the
events of a run never depend on its partner, which may be recorded or imported later.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from judges.base import Check, Suite, Verdict
from judges.contract import LLMRequest
from replay.batch import Reads
from replay.state import RunState

from . import layers, report, rubric
from .layers import LAYER_NAMES, LAYERS, Attempt

__all__ = ["SelfEvoSuite", "SelfEvoTask", "load"]

NAME = "selfevo"
DATASET = "dataset.json"


@dataclass(frozen=True)
class SelfEvoTask:
    """A dataset entry, and for a paired run, the replayed state of the other attempt."""

    spec: dict[str, Any]
    partner: RunState | None = None


def attempt_of(state: RunState) -> Attempt:
    metrics = state.metrics if isinstance(state.metrics, dict) else {}
    extra = {"declared_tools": metrics["created_tools"]} if "created_tools" in metrics else {}
    return Attempt(
        steps=tuple((s.action, s.args or {}) for s in state.steps),
        answer=state.answer or "",
        run_id=state.run_id,
        **extra,
    )


def _fmt(score: float | None) -> str:
    return "n/a" if score is None else f"{score:.3f}"


class SelfEvoSuite(Suite):
    name = NAME
    # L2 and L4 read the actions and their arguments; no screen is ever read.
    reads = Reads(screens=0, steps=True, step_actions=layers.ARG_ACTIONS)

    def __init__(self, data: dict[str, Any]):
        self.data = data
        self.tasks: dict[str, dict[str, Any]] = {t["id"]: t for t in data["tasks"]}

    # -- the Suite interface ------------------------------------------------------------------
    def task_ids(self) -> list[str]:
        return list(self.tasks)

    def get_task(self, task_id: str, params: dict[str, Any] | None = None) -> SelfEvoTask:
        if task_id not in self.tasks:
            raise KeyError(f"selfevo: no task {task_id!r}")
        return SelfEvoTask(self.tasks[task_id])

    def task_data(self, task: SelfEvoTask) -> Any:
        return task.spec

    # -- its own report (traj report --suite selfevo) -----------------------------------------
    report_formats = report.FORMATS

    def render_report(self, rows: Any, fmt: str) -> str:
        """The per-task x per-layer table from the suite's current verdict rows."""
        return report.render(report.report_rows(rows), fmt)

    def bind_partner(self, task: SelfEvoTask, partner: RunState) -> SelfEvoTask:
        """Called by the judging engine with the other attempt of this run's pair."""
        return replace(task, partner=partner)

    def llm_requests(self, task: SelfEvoTask, state: RunState) -> list[LLMRequest]:
        """The LLM prompts this run's verdict needs (L3 on a first attempt's created tool)."""
        if state.pair_round == 2:
            return []
        tools = attempt_of(state).created_tools()
        if not tools:
            return []
        req = rubric.request_for(task.spec["goal"], tools[0], label=state.run_id)
        return [req] if req is not None else []

    def judge(self, task: SelfEvoTask, state: RunState) -> Verdict:
        if state.pair_round == 2:
            first = task.partner.run_id if task.partner is not None else None
            reason = (
                f"second attempt: scored on its first attempt {first}"
                if first
                else "second attempt: its first attempt is not in the store, so nothing scores it"
            )
            return Verdict.na(reason, details={"round": 2, "task": task.spec["id"], "first_attempt": first})
        return self.judge_first(task, state)

    # -- the four layers ----------------------------------------------------------------------
    def layer_results(self, task: SelfEvoTask, state: RunState) -> dict[str, dict[str, Any]]:
        spec = task.spec
        attempt = attempt_of(state)
        partner = task.partner if task.partner is not None and task.partner.finished else None
        second = attempt_of(partner) if partner is not None else None

        def lookup(judge: str, key: str) -> tuple[str, dict[str, Any]] | None:
            j = state.judgement(judge, key)
            return None if j is None else (j.model, j.output)

        l3, _ = rubric.layer3(spec["goal"], attempt.created_tools(), lookup)
        return {
            "L1": layers.layer1(spec, attempt),
            "L2": layers.layer2(spec, attempt),
            "L3": l3,
            "L4": layers.layer4(spec, second),
        }

    def judge_first(self, task: SelfEvoTask, state: RunState) -> Verdict:
        spec = task.spec
        results = self.layer_results(task, state)
        summary = layers.aggregate(results)
        overall = summary["overall"]
        warnings = attempt_of(state).warnings()
        details = {
            "round": 1,
            "task": spec["id"],
            "domain": spec.get("domain"),
            "profile": state.agent_name,
            "layers": results,
            "overall": overall,
            "used_layers": summary["used_layers"],
            "second_attempt": results["L4"].get("second_attempt"),
        }
        if warnings:
            # An inconsistent trajectory is scored as the harness scores it, and said so.
            details["warnings"] = warnings
        not_applicable = [f"{k} n/a: {results[k]['detail']}" for k in LAYERS if results[k]["score"] is None]
        if overall is None:
            return Verdict.na("no layer has a score; " + "; ".join(not_applicable), details=details)
        checks = [
            Check(
                name=f"{k} {LAYER_NAMES[k]}",
                passed=layers.layer_passes(results[k]["score"]),
                expected=f">= {layers.PASS_LAYER}",
                actual=results[k]["score"],
                reason=results[k]["detail"],
            )
            for k in LAYERS
            if results[k]["score"] is not None
        ]
        checks.append(
            Check(
                name="overall",
                passed=layers.overall_passes(overall),
                expected=f">= {layers.PASS_OVERALL}",
                actual=overall,
                reason=f"weighted over {', '.join(summary['used_layers'])}",
            )
        )
        ok = all(c.passed for c in checks)
        scores = ", ".join(f"{k} {_fmt(results[k]['score'])}" for k in LAYERS)
        if ok:
            reason = f"overall {overall:.3f} ({scores})"
        else:
            failed = [c for c in checks if not c.passed]
            reason = f"overall {overall:.3f} ({scores}); below the bar: " + "; ".join(
                f"{c.name} {_fmt(c.actual)}: {c.reason}" for c in failed
            )
        if not_applicable:
            reason += "; " + "; ".join(not_applicable)
        return Verdict(outcome="pass" if ok else "fail", score=overall, checks=tuple(checks), reason=reason, details=details)


def load(path: str | Path | None = None) -> SelfEvoSuite:
    folder = Path(path) if path is not None else Path(__file__).parent
    with open(folder / DATASET, encoding="utf-8") as fh:
        return SelfEvoSuite(json.load(fh))

