"""Imports judge what the harness judges: every trajectory the self-evolution harness (seed 002)
would score is imported, and scored exactly as the harness scores it.

``harness`` below restates the seed harness's deterministic layers from its description (L1 on
the final answer, L2 on the steps, L3 on the first entry of ``created_tools``, L4 on the second
attempt's steps, the weighted re-normalised overall). A random trajectory, consistent or not,
goes through the real import path (parse → events → replay → judge) and must score the same.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from selfevo_helpers import SUITE, TASKS, good_steps, judge, state_of, traj

from suites.selfevo.trajectories import parse_trajectory

try:
    from tests.strategies_matchers import examples
except ImportError:  # pragma: no cover - depends on how pytest was started
    from strategies_matchers import examples  # type: ignore[no-redef]

WEIGHTS = {"L1": 0.35, "L2": 0.25, "L3": 0.25, "L4": 0.15}


class NotScorable(Exception):
    """The harness would crash on this trajectory (so it scores nothing)."""


def harness(task: dict[str, Any], first: dict[str, Any], second: dict[str, Any] | None) -> dict[str, Any]:
    """The seed harness's L1, L2, L4, its L3 input and its overall over L1/L2/L4 (offline)."""
    try:
        answer = first.get("final_answer", "") or ""
        crit = task["correctness_criteria"]
        if crit["check"] == "regex":
            l1 = 1.0 if re.search(crit["pattern"], answer) is not None else 0.0
        else:
            l1 = 1.0 if any(v.lower() in answer.lower() for v in crit["values"]) else 0.0
        steps = first["steps"]
        actions = [s["action"] for s in steps]
        if "retrieve_tool" in actions and not any(a in ("search", "select_library", "create_tool") for a in actions):
            l2 = None
        else:
            queries = [s["query"] for s in steps if s["action"] == "search"]
            libs = [s["library"] for s in steps if s["action"] == "select_library"]
            kws = [k.lower() for k in task.get("discovery_keywords", [])]
            rec = [x.lower() for x in task["reference_solution"]["libraries"]]
            pit = task.get("known_pitfalls", {})
            bad = [x.lower() for x in pit.get("deprecated_libraries", []) + pit.get("paid_or_registration_apis", [])]

            def hit(lib: str, pool: list[str]) -> bool:
                lo = lib.lower()
                return any(p.split("(")[0].strip() in lo or lo in p for p in pool)

            on_topic = any(any(k in q.lower() for k in kws) for q in queries) if queries else False
            l2 = round(0.40 * any(hit(x, rec) for x in libs) + 0.25 * on_topic
                       + 0.25 * (not any(hit(x, bad) for x in libs)) + 0.10 * ("read_web" in actions), 3)
        created = first.get("created_tools", [])
        l3_tool = None if not created else (created[0]["name"], created[0]["code"])
        if second is None:
            l4 = None
        else:
            s2 = second["steps"]
            got = any(s["action"] == "retrieve_tool" and s.get("name") == task["tool_name"] for s in s2)
            again = any(s["action"] == "search" for s in s2) or any(s["action"] == "create_tool" for s in s2)
            l4 = 1.0 if got and not again else 0.5 if got else 0.0
    except (KeyError, TypeError, AttributeError, IndexError) as exc:
        raise NotScorable(repr(exc)) from exc
    avail = {k: v for k, v in (("L1", l1), ("L2", l2), ("L4", l4)) if v is not None}
    overall = round(sum(WEIGHTS[k] * v for k, v in avail.items()) / sum(WEIGHTS[k] for k in avail), 3)
    return {"L1": l1, "L2": l2, "L3_tool": l3_tool, "L4": l4, "overall": overall}


def ours(first: dict[str, Any], second: dict[str, Any] | None) -> dict[str, Any]:
    v = judge(first, second)
    layers = v.details["layers"]
    l3 = layers["L3"]
    tool = (l3["tool_name"], _code(first, second)) if "tool_name" in l3 else None
    return {"L1": layers["L1"]["score"], "L2": layers["L2"]["score"], "L3_tool": tool,
            "L4": layers["L4"]["score"], "overall": v.details["overall"], "verdict": v}


def _code(first: dict[str, Any], second: dict[str, Any] | None) -> Any:
    """The code L3 would send to the judge model (from the real request), or None."""
    st_ = state_of(first)
    reqs = SUITE.llm_requests(SUITE.get_task(st_.task), st_)
    if not reqs:
        return None
    m = re.search(r"```python\n(.*)\n```", reqs[0].messages[-1]["content"], re.DOTALL)
    return m.group(1) if m else None


def _comparable(h: dict[str, Any], o: dict[str, Any]) -> None:
    for key in ("L1", "L2", "L4", "overall"):
        assert o[key] == h[key], key
    if h["L3_tool"] is None:
        assert o["L3_tool"] is None
    else:
        name, code = h["L3_tool"]
        assert o["L3_tool"][0] == name
        assert o["L3_tool"][1] == (code if isinstance(code, str) and code.strip() else None)


# -- named cases: the trajectories the importer used to refuse --------------------------------------

CODE = "def fetch(url):\n    return url\n"


def _steps(task_id: str = "task-01", create: bool = True) -> list[dict[str, Any]]:
    return [s for s in good_steps(task_id, CODE) if create or s["action"] != "create_tool"]


INCONSISTENT = {
    "tool_listed_without_step": (_steps(create=False), [{"name": "fetch_youtube_transcript", "code": CODE}]),
    "step_not_listed": (_steps(), []),
    "other_code": (_steps(), [{"name": "fetch_youtube_transcript", "code": "def other(): pass\n"}]),
    "other_name": (_steps(), [{"name": "helper", "code": CODE}]),
    "two_listed_one_step": (_steps(), [{"name": "helper", "code": "def h(): pass\n"},
                                      {"name": "fetch_youtube_transcript", "code": CODE}]),
    "null_list": (_steps(), None),
}


@pytest.mark.parametrize("name", sorted(INCONSISTENT))
def test_inconsistent_trajectories_are_scored_as_the_harness_scores_them(name):
    steps, created = INCONSISTENT[name]
    first = traj("task-01", steps)
    first["created_tools"] = created
    h = harness(TASKS["task-01"], first, None)
    o = ours(first, None)
    _comparable(h, o)
    assert o["verdict"].details["warnings"], name  # the inconsistency is reported, not refused


def test_missing_created_tools_key_is_an_empty_list_for_the_harness():
    first = traj("task-01", _steps())
    del first["created_tools"]
    _comparable(harness(TASKS["task-01"], first, None), ours(first, None))


def test_consistent_trajectories_store_nothing_extra_and_warn_nothing():
    first = traj("task-01", _steps())
    v = ours(first, None)["verdict"]
    assert "warnings" not in v.details
    assert state_of(first).metrics is None


# -- the property: random trajectories -------------------------------------------------------------

TASK_IDS = sorted(TASKS)


@st.composite
def trajectory(draw, task_id: str, variant: bool = False):
    t = TASKS[task_id]
    libs = t["reference_solution"]["libraries"] + ["requests", "pytube", "left-pad"]
    pit = t.get("known_pitfalls", {})
    libs += [x.split("（")[0] for x in pit.get("deprecated_libraries", []) + pit.get("paid_or_registration_apis", [])]
    names = [t["tool_name"], "helper", "x"]
    step = st.one_of(
        st.builds(lambda q: {"action": "search", "query": q}, st.sampled_from(t["discovery_keywords"] + ["weather", "随便搜搜"])),
        st.just({"action": "read_web", "url": "https://example.org"}),
        st.builds(lambda lib: {"action": "select_library", "library": lib}, st.sampled_from(libs)),
        st.builds(lambda n, c: {"action": "create_tool", "name": n, "code": c}, st.sampled_from(names),
                  st.sampled_from([CODE, "def g(): pass\n"])),
        st.builds(lambda n: {"action": "register_tool", "name": n}, st.sampled_from(names)),
        st.builds(lambda n: {"action": "retrieve_tool", "name": n, "source": "registry"}, st.sampled_from(names)),
        st.builds(lambda n: {"action": "call_tool", "name": n, "args": {}, "result": "ok"}, st.sampled_from(names)),
    )
    steps = draw(st.lists(step, max_size=8))
    made = [{"name": s["name"], "code": s["code"]} for s in steps if s["action"] == "create_tool"]
    shape = draw(st.sampled_from(["consistent", "extra", "missing", "other_code", "absent", "null", "empty", "reversed"]))
    created: Any = {
        "consistent": made,
        "extra": made + [{"name": draw(st.sampled_from(names)), "code": CODE}],
        "missing": made[1:],
        "other_code": [{**m, "code": "def changed(): pass\n"} for m in made],
        "absent": None,
        "null": None,
        "empty": [],
        "reversed": list(reversed(made)),
    }[shape]
    answer = draw(st.sampled_from([t["mock_answer"], "", "不知道", None]))
    obj = {"task_id": task_id, "profile": "p", "is_variant": variant, "steps": steps, "final_answer": answer}
    if shape != "absent":
        obj["created_tools"] = created
    if answer is None:
        del obj["final_answer"]
    return obj


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_every_trajectory_the_harness_scores_is_imported_and_scored_the_same(data):
    task_id = data.draw(st.sampled_from(TASK_IDS))
    first = data.draw(trajectory(task_id))
    second = data.draw(st.none() | trajectory(task_id, variant=True))
    try:
        expected = harness(TASKS[task_id], first, second)
    except NotScorable:
        return  # the harness crashes on it: nothing to match
    parse_trajectory(first, "t:1")  # never refused
    if second is not None:
        parse_trajectory(second, "t:2")
    _comparable(expected, ours(first, second))
