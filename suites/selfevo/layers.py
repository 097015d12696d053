"""The four layers of the self-evolution harness, as pure functions over plain data.

L1, L2 and L4 compute exactly what the seed's harness computes: the same criteria, the same
components and weights, the same not-applicable rules and the same rounding. A layer result is
a dict with ``score`` (a float, or None when the layer does not apply) and ``detail`` (one line
a person can read), plus the layer's own figures. Nothing here reads a file or a clock.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

LAYERS = ("L1", "L2", "L3", "L4")
# Weights in the overall score; an n/a layer drops out and the rest are re-normalised.
WEIGHTS: dict[str, float] = {"L1": 0.35, "L2": 0.25, "L3": 0.25, "L4": 0.15}
LAYER_NAMES = {
    "L1": "task correctness",
    "L2": "tool discovery",
    "L3": "tool quality",
    "L4": "tool reuse",
}

# Actions that count as discovery work (L2) -- creating a tool is part of it.
DISCOVERY_ACTIONS = ("search", "select_library", "create_tool")
# The actions whose arguments the layers read (the rest count by name only).
ARG_ACTIONS = ("search", "select_library", "create_tool", "retrieve_tool")


_NOT_GIVEN = object()


@dataclass(frozen=True)
class Attempt:
    """One attempt at a task as the layers see it: its steps (action, args), its answer and,
    when the trajectory's ``created_tools`` said something else than its steps, that list."""

    steps: tuple[tuple[str, Mapping[str, Any]], ...] = ()
    answer: str = ""
    run_id: str | None = None
    declared_tools: Any = _NOT_GIVEN

    def actions(self) -> list[str]:
        return [a for a, _ in self.steps]

    def args_of(self, action: str) -> list[Mapping[str, Any]]:
        return [args for a, args in self.steps if a == action]

    def step_tools(self) -> list[dict[str, Any]]:
        """Tools created by this attempt's create_tool steps (name and code)."""
        return [
            {"name": args.get("name"), "code": args.get("code")}
            for args in self.args_of("create_tool")
        ]

    def created_tools(self) -> list[dict[str, Any]]:
        """The tools the harness's L3 reads: ``created_tools`` as the trajectory lists them (the
        steps' tools when the list agreed with them). A listed entry the harness cannot read as
        a {name, code} object is given without code, so L3 says it cannot judge it."""
        if self.declared_tools is _NOT_GIVEN:
            return self.step_tools()
        declared = self.declared_tools
        if not declared:
            return []  # the harness: `if not created` -> L3 does not apply
        if not isinstance(declared, list):
            return [{"name": None, "code": None}]
        return [
            {"name": t.get("name"), "code": t.get("code")} if isinstance(t, dict) else {"name": None, "code": None}
            for t in declared
        ]

    def warnings(self) -> list[str]:
        """How ``created_tools`` disagrees with the steps (empty when it does not)."""
        return [] if self.declared_tools is _NOT_GIVEN else tool_warnings(self.declared_tools, self.step_tools())


def tool_warnings(declared: Any, steps: list[dict[str, Any]]) -> list[str]:
    """One line per way the trajectory's ``created_tools`` disagrees with its create_tool steps.
    The harness reads the list and never compares it with the steps; the verdict says so."""
    if declared is None or (isinstance(declared, list) and not declared and steps):
        names = ", ".join(repr(t.get("name")) for t in steps)
        what = "missing" if declared is None else "empty"
        return [f"created_tools is {what} but create_tool steps create {names}: L3 follows created_tools, "
                "as the harness does, and does not apply"]
    if not isinstance(declared, list) or not all(isinstance(t, dict) for t in declared):
        return [f"created_tools is not a list of {{name, code}} objects ({type(declared).__name__}): "
                "the harness reads its first entry for L3"]
    out = []
    listed = [(t.get("name"), t.get("code")) for t in declared]
    stepped = [(t.get("name"), t.get("code")) for t in steps]
    listed_names = [n for n, _ in listed]
    stepped_names = [n for n, _ in stepped]
    for name in listed_names:
        if name not in stepped_names:
            out.append(f"created_tools lists {name!r} without a create_tool step: L3 judges the list, as the harness does")
    for name in stepped_names:
        if name not in listed_names:
            out.append(f"a create_tool step creates {name!r}, which created_tools does not list")
    for name, code in listed:
        same = [c for n, c in stepped if n == name]
        if same and code not in same:
            out.append(f"created_tools gives other code for {name!r} than its create_tool step: L3 judges the listed code")
    if not out and listed != stepped:
        out.append("created_tools lists the created tools in another order than the create_tool steps: "
                   "L3 judges the first listed, as the harness does")
    return out


# -- L1 -----------------------------------------------------------------------------------------


def layer1(task: Mapping[str, Any], attempt: Attempt) -> dict[str, Any]:
    """Task correctness: the dataset's criterion applied to the final answer."""
    answer = attempt.answer or ""
    crit = task["correctness_criteria"]
    check = crit["check"]
    if check == "regex":
        passed = re.search(crit["pattern"], answer) is not None
    elif check == "contains_any":
        low = answer.lower()
        passed = any(v.lower() in low for v in crit["values"])
    else:
        # The harness knows two kinds of criterion; any other never passes (as there).
        passed = False
    return {
        "score": 1.0 if passed else 0.0,
        "passed": passed,
        "check": check,
        "detail": f"criterion {check}: {'passed' if passed else 'failed'}; {crit.get('description', '')}",
    }


# -- L2 -----------------------------------------------------------------------------------------


def _texts(values: Sequence[Mapping[str, Any]], key: str) -> list[str]:
    # The harness indexes step[key] directly; a step without a string there is skipped here
    # rather than crashing the whole judgement.
    return [v[key] for v in values if isinstance(v.get(key), str)]


def library_matches(library: str, pool: Sequence[str]) -> bool:
    """The harness's library match, kept as is: the pool entry's head (before an ASCII "(")
    inside the choice, or the choice inside the pool entry. Both sides lower-cased.

    It is a substring rule on purpose-written prose: "pypdf" is inside the pitfall
    "pypdf2（已并入并更名为 pypdf…）", so choosing the recommended pypdf counts as hitting that
    pitfall (task-10 and task-19 score 0.75 for the strong agent in the published table). The
    full-width "（" of the dataset's entries is not split on, exactly as in the harness.
    """
    lo = library.lower()
    return any(p.split("(")[0].strip() in lo or lo in p for p in pool)


def layer2(task: Mapping[str, Any], attempt: Attempt) -> dict[str, Any]:
    """Tool discovery: on-topic search, visited docs, recommended library, pitfalls avoided."""
    actions = attempt.actions()
    reused = "retrieve_tool" in actions
    discovered = any(a in DISCOVERY_ACTIONS for a in actions)
    if reused and not discovered:
        return {
            "score": None,
            "detail": "pure reuse of a registered tool with no discovery: L2 does not apply",
        }
    queries = _texts(attempt.args_of("search"), "query")
    selected = _texts(attempt.args_of("select_library"), "library")
    keywords = [k.lower() for k in task.get("discovery_keywords", [])]
    recommended = [lib.lower() for lib in task["reference_solution"]["libraries"]]
    pitfalls = task.get("known_pitfalls", {})
    bad = [
        b.lower()
        for b in list(pitfalls.get("deprecated_libraries") or []) + list(pitfalls.get("paid_or_registration_apis") or [])
    ]

    on_topic = any(any(k in q.lower() for k in keywords) for q in queries) if queries else False
    visited_web = "read_web" in actions
    chose_recommended = any(library_matches(lib, recommended) for lib in selected)
    hit_pitfall = any(library_matches(lib, bad) for lib in selected)
    avoided = not hit_pitfall

    # Same terms, same order as the harness, so the float sum rounds the same way.
    score = 0.40 * chose_recommended + 0.25 * on_topic + 0.25 * avoided + 0.10 * visited_web
    return {
        "score": round(score, 3),
        "components": {
            "on_topic_search": on_topic,
            "visited_web": visited_web,
            "selected_recommended_lib": chose_recommended,
            "avoided_pitfalls": avoided,
        },
        "selected_libraries": selected,
        "detail": (
            f"on-topic search={on_topic} visited web={visited_web} "
            f"recommended library={chose_recommended} avoided pitfalls={avoided} (chose {selected})"
        ),
    }


# -- L4 -----------------------------------------------------------------------------------------


def layer4(task: Mapping[str, Any], second: Attempt | None) -> dict[str, Any]:
    """Tool reuse, from the second, similar attempt's actions."""
    if second is None:
        return {"score": None, "detail": "no second attempt: L4 not measured"}
    tool = task["tool_name"]
    retrieved = any(args.get("name") == tool for args in second.args_of("retrieve_tool"))
    actions = second.actions()
    re_searched = "search" in actions
    re_created = "create_tool" in actions
    if retrieved and not re_searched and not re_created:
        score, detail = 1.0, f"retrieved the registered tool {tool!r} and reused it (no new search or tool)"
    elif retrieved:
        score, detail = 0.5, f"retrieved {tool!r} but still searched or created a tool again"
    else:
        score, detail = 0.0, f"did not reuse {tool!r}: searched and created a tool again"
    return {
        "score": score,
        "retrieved_from_registry": retrieved,
        "re_searched": re_searched,
        "re_created": re_created,
        "second_attempt": second.run_id,
        "second_actions": actions,
        "detail": detail,
    }


# -- aggregate ----------------------------------------------------------------------------------


def aggregate(results: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """The weighted overall over the layers that have a score, re-normalised, rounded to 3."""
    avail = {k: results[k]["score"] for k in LAYERS if k in results and results[k].get("score") is not None}
    if not avail:
        return {"overall": None, "used_layers": []}
    # sum() in layer order, as the harness does: the float result must round identically.
    wsum = sum(WEIGHTS[k] for k in avail)
    overall = sum(WEIGHTS[k] * s for k, s in avail.items()) / wsum
    return {"overall": round(overall, 3), "used_layers": list(avail)}


# -- the verdict's outcome ------------------------------------------------------------------------

# The harness gives scores only; the platform also needs pass/fail. A first attempt passes when
# its overall is at least PASS_OVERALL and no scored layer is below PASS_LAYER: a high overall
# must not hide a layer that is mostly wrong (a right answer from a deprecated library, a tool
# re-created from scratch instead of reused).
PASS_OVERALL = 0.7
PASS_LAYER = 0.5


def layer_passes(score: float) -> bool:
    return score >= PASS_LAYER


def overall_passes(overall: float) -> bool:
    return overall >= PASS_OVERALL
