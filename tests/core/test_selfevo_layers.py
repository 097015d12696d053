"""The self-evolution suite's four layers and its verdicts: positive, negative and n/a cases.

Expected numbers marked "seed" were computed by the seed's own harness on the same input.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from selfevo_helpers import SUITE, TASKS, good_steps, judge, reuse_steps, state_of, traj

from replay.state import Judgement
from suites.selfevo import layers, rubric
from suites.selfevo.layers import Attempt, aggregate, layer1, layer2, layer4


def attempt(steps=(), answer: str = "") -> Attempt:
    return Attempt(steps=tuple((s["action"], {k: v for k, v in s.items() if k != "action"}) for s in steps), answer=answer)


# -- L1 ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("task_id", "answer", "score"),
    [
        pytest.param("task-03", "x ≈ 2.094551", 1.0, id="regex-hit"),
        pytest.param("task-03", "x ≈ 2.0945", 0.0, id="regex-miss"),
        pytest.param("task-01", "已通过 YouTube_Transcript_API 取回", 1.0, id="contains-any-ignores-case"),
        pytest.param("task-01", "I could not do it", 0.0, id="contains-any-miss"),
        pytest.param("task-01", "", 0.0, id="empty-answer"),
        pytest.param("task-15", "1 USD = 7.18 CNY", 1.0, id="regex-order-usd-then-cny"),
        pytest.param("task-15", "7.18 CNY per USD", 0.0, id="regex-order-matters"),
    ],
)
def test_layer1_applies_the_task_criterion(task_id, answer, score) -> None:
    result = layer1(TASKS[task_id], attempt(answer=answer))
    assert result["score"] == score
    assert result["passed"] is (score == 1.0)


def test_layer1_unknown_criterion_never_passes() -> None:
    task = {**TASKS["task-01"], "correctness_criteria": {"check": "exact", "values": ["x"], "description": ""}}
    assert layer1(task, attempt(answer="x"))["score"] == 0.0


# -- L2 ------------------------------------------------------------------------------------------


def test_layer2_full_marks_for_good_discovery() -> None:
    result = layer2(TASKS["task-01"], attempt(good_steps("task-01")))
    assert result["score"] == 1.0
    assert result["components"] == {
        "on_topic_search": True,
        "visited_web": True,
        "selected_recommended_lib": True,
        "avoided_pitfalls": True,
    }


@pytest.mark.parametrize(
    ("steps", "score"),
    [
        pytest.param([{"action": "search", "query": "TRANSCRIPT of a video"}], 0.5, id="on-topic-search-only"),
        pytest.param([{"action": "search", "query": "easy python"}], 0.25, id="off-topic-search"),
        pytest.param([{"action": "read_web", "url": "u"}, {"action": "create_tool", "name": "t"}], 0.35, id="web-only"),
        pytest.param([{"action": "select_library", "library": "youtube-transcript-api"}], 0.65, id="recommended-only"),
        pytest.param([{"action": "select_library", "library": "pytube（字幕/caption 功能长期失效）"}], 0.0, id="pitfall"),
        pytest.param(
            [{"action": "select_library", "library": "YouTube-Transcript-API"},
             {"action": "select_library", "library": "pytube"}],
            0.4,
            id="recommended-and-pitfall",
        ),
        pytest.param([{"action": "create_tool", "name": "t"}], 0.25, id="no-search-no-library"),
    ],
)
def test_layer2_components(steps, score) -> None:
    assert layer2(TASKS["task-01"], attempt(steps))["score"] == score


def test_layer2_is_na_for_a_pure_reuse_only() -> None:
    reuse = attempt(reuse_steps("task-01"))
    assert layer2(TASKS["task-01"], reuse)["score"] is None
    assert "does not apply" in layer2(TASKS["task-01"], reuse)["detail"]
    # Reuse plus any discovery work is judged.
    mixed = attempt([*reuse_steps("task-01"), {"action": "search", "query": "youtube"}])
    assert layer2(TASKS["task-01"], mixed)["score"] == 0.5
    # No steps at all is not a reuse: it scores (only "avoided pitfalls").
    assert layer2(TASKS["task-01"], attempt([]))["score"] == 0.25


def test_layer2_keeps_the_harness_substring_rule() -> None:
    # "pypdf" is inside the pitfall "PyPDF2（…）": the recommended choice hits it (seed: 0.75).
    result = layer2(TASKS["task-10"], attempt(good_steps("task-10")))
    assert result["score"] == 0.75
    assert result["components"]["avoided_pitfalls"] is False
    # ...and the deprecated PyPDF2 "matches" the recommended pypdf (seed: 0.4 for the weak agent).
    weak = attempt([{"action": "select_library", "library": "PyPDF2（已并入并更名为 pypdf，旧包停止维护）"}])
    assert layer2(TASKS["task-10"], weak)["score"] == 0.4


# -- L4 ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("steps", "score"),
    [
        pytest.param(reuse_steps("task-01"), 1.0, id="retrieved"),
        pytest.param([*reuse_steps("task-01"), {"action": "search", "query": "q"}], 0.5, id="retrieved-and-searched"),
        pytest.param([*reuse_steps("task-01"), {"action": "create_tool", "name": "x"}], 0.5, id="retrieved-and-created"),
        pytest.param([{"action": "retrieve_tool", "name": "other_tool"}], 0.0, id="retrieved-another-tool"),
        pytest.param(good_steps("task-01"), 0.0, id="redid-everything"),
        pytest.param([], 0.0, id="did-nothing"),
    ],
)
def test_layer4_reads_the_second_attempt(steps, score) -> None:
    assert layer4(TASKS["task-01"], attempt(steps))["score"] == score


def test_layer4_is_na_without_a_second_attempt() -> None:
    assert layer4(TASKS["task-01"], None)["score"] is None


# -- aggregate -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("scores", "overall", "used"),
    [
        pytest.param((1.0, 1.0, 1.0, 1.0), 1.0, "L1 L2 L3 L4", id="all-full"),
        pytest.param((1.0, 0.75, None, 1.0), 0.917, "L1 L2 L4", id="seed-strong-task-10"),
        pytest.param((1.0, 0.0, None, 0.0), 0.467, "L1 L2 L4", id="seed-weak-task-01"),
        pytest.param((0.0, None, 1.0, None), 0.417, "L1 L3", id="renormalised-two-layers"),
        pytest.param((1.0, None, None, None), 1.0, "L1", id="one-layer"),
        pytest.param((1.0, 0.35, 0.583, 0.5), 0.658, "L1 L2 L3 L4", id="seed-mixed"),
        # Float rounding exactly as the harness: 0.4875 exactly would round to 0.488 or 0.487
        # depending on the arithmetic; the harness's float sum gives these.
        pytest.param((0.0, 0.35, 1.0, 1.0), 0.488, "L1 L2 L3 L4", id="seed-rounding-a"),
        pytest.param((0.0, 0.1, 0.25, 0.5), 0.162, "L1 L2 L3 L4", id="seed-rounding-b"),
        pytest.param((0.0, 0.35, 1.0, 0.5), 0.413, "L1 L2 L3 L4", id="seed-rounding-c"),
        pytest.param((None, None, None, None), None, "", id="nothing-scored"),
    ],
)
def test_aggregate_renormalises_and_rounds_like_the_harness(scores, overall, used) -> None:
    result = aggregate({k: {"score": s} for k, s in zip(layers.LAYERS, scores)})
    assert result["overall"] == overall
    assert result["used_layers"] == used.split()


# -- L3 --------------------------------------------------------------------------------------------

CODE = "def fetch_youtube_transcript(url):\n    return url\n"


def l3_key(task_id: str = "task-01", code: str = CODE) -> str:
    req = rubric.request_for(TASKS[task_id]["goal"], {"name": TASKS[task_id]["tool_name"], "code": code})
    assert req is not None
    return req.key


def recorded(output: dict, key: str | None = None, model: str = "m") -> tuple[Judgement, ...]:
    return (Judgement(seq=1, judge=rubric.JUDGE, model=model, key=key or l3_key(), output=output),)


def test_layer3_scores_a_recorded_rubric() -> None:
    raw = '{"error_handling": 3, "input_validation": 2, "documentation": 1, "robustness": 1, "comment": "ok"}'
    v = judge(traj("task-01", good_steps("task-01", CODE)), judgements=recorded({"raw": raw}))
    l3 = v.details["layers"]["L3"]
    assert l3["score"] == 0.583  # 7/12, rounded to 3
    assert l3["rubric"]["comment"] == "ok"
    assert l3["model"] == "m"
    assert v.details["overall"] == round((0.35 * 1 + 0.25 * 1 + 0.25 * 0.583) / 0.85, 3)


def test_layer3_reads_one_fenced_object_and_marks_as_strings() -> None:
    raw = '```json\n{"error_handling": "3", "input_validation": 3.0, "documentation": 3, "robustness": 3}\n```\n'
    v = judge(traj("task-01", good_steps("task-01", CODE)), judgements=recorded({"raw": raw}))
    assert v.details["layers"]["L3"]["score"] == 1.0


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param("The code looks fine to me.", id="prose"),
        pytest.param('{"error_handling": 3, "input_validation": 3, "documentation": 3}', id="missing-dimension"),
        pytest.param('{"error_handling": 4, "input_validation": 3, "documentation": 3, "robustness": 3}', id="out-of-range"),
        pytest.param('{"error_handling": 2.5, "input_validation": 3, "documentation": 3, "robustness": 3}', id="fraction"),
        pytest.param('[3, 3, 3, 3]', id="not-an-object"),
        pytest.param('{"error_handling": true, "input_validation": 3, "documentation": 3, "robustness": 3}', id="bool"),
        # JSON inside prose is not the answer: the object may be a quote of the tool's code.
        pytest.param('Here: ```json\n{"error_handling": 3, "input_validation": 3, "documentation": 3, "robustness": 3}\n```',
                     id="prose-then-fence"),
        pytest.param('{"error_handling": 3, "input_validation": 3, "documentation": 3, "robustness": 3} I mean 0.',
                     id="object-then-prose"),
    ],
)
def test_layer3_unreadable_answer_is_na_with_raw_text_kept(raw) -> None:
    v = judge(traj("task-01", good_steps("task-01", CODE)), judgements=recorded({"raw": raw}))
    l3 = v.details["layers"]["L3"]
    assert l3["score"] is None
    assert l3["judge_text"] == raw
    assert "unreadable LLM judgement" in v.reason
    assert v.details["used_layers"] == ["L1", "L2"]


def test_layer3_without_recorded_judgement_is_na_and_says_why() -> None:
    v = judge(traj("task-01", good_steps("task-01", CODE)))
    assert v.details["layers"]["L3"]["score"] is None
    assert "traj judge --llm" in v.reason
    # A judgement for another prompt (other code) is not used.
    other = recorded({"raw": '{"error_handling":3,"input_validation":3,"documentation":3,"robustness":3}'},
                     key=l3_key(code="def other(): pass\n"))
    assert judge(traj("task-01", good_steps("task-01", CODE)), judgements=other).details["layers"]["L3"]["score"] is None


def test_layer3_latest_recorded_answer_wins() -> None:
    full = '{"error_handling":3,"input_validation":3,"documentation":3,"robustness":3}'
    zero = '{"error_handling":0,"input_validation":0,"documentation":0,"robustness":0}'
    judgements = recorded({"raw": zero}, model="a") + recorded({"raw": full}, model="b")
    v = judge(traj("task-01", good_steps("task-01", CODE)), judgements=judgements)
    assert v.details["layers"]["L3"]["score"] == 1.0
    assert v.details["layers"]["L3"]["model"] == "b"


def test_layer3_is_na_without_a_created_tool_or_its_code() -> None:
    v = judge(traj("task-01", reuse_steps("task-01")))
    assert v.details["layers"]["L3"]["score"] is None
    assert "no tool created" in v.details["layers"]["L3"]["detail"]
    no_code = [s if s["action"] != "create_tool" else {"action": "create_tool", "name": "t"} for s in good_steps()]
    # The harness reads created_tools, not the steps: a null list is no created tool.
    v = judge(traj("task-01", no_code, created_tools=None))
    assert "no tool created" in v.details["layers"]["L3"]["detail"]
    assert "created_tools is missing" in v.details["warnings"][0]
    v = judge(traj("task-01", no_code, created_tools=[{"name": "t"}]))
    assert "no code recorded" in v.details["layers"]["L3"]["detail"]


def test_llm_requests_ask_for_the_first_created_tool_only_on_first_attempts() -> None:
    first = state_of(traj("task-01", good_steps("task-01", CODE)))
    reqs = SUITE.llm_requests(SUITE.get_task("task-01"), first)
    assert [r.key for r in reqs] == [l3_key()]
    assert reqs[0].judge == "selfevo.L3"
    assert CODE in reqs[0].messages[-1]["content"]
    second = state_of(traj("task-01", good_steps("task-01", CODE), variant=True))
    assert SUITE.llm_requests(SUITE.get_task("task-01"), second) == []
    assert SUITE.llm_requests(SUITE.get_task("task-01"), state_of(traj("task-01", reuse_steps()))) == []


def test_prompt_key_depends_on_the_prompt_only() -> None:
    assert l3_key() == l3_key()
    assert l3_key(code=CODE + "\n") != l3_key()
    assert l3_key("task-02") != l3_key()


# -- verdicts ------------------------------------------------------------------------------------


def test_strong_pair_passes_with_l4_from_its_second_attempt() -> None:
    v = judge(traj("task-01", good_steps()), traj("task-01", reuse_steps(), variant=True))
    assert v.outcome == "pass"
    assert v.score == 1.0
    assert v.details["layers"]["L4"]["score"] == 1.0
    assert v.details["second_attempt"].endswith("-r2")
    assert [c.name for c in v.checks] == ["L1 task correctness", "L2 tool discovery", "L4 tool reuse", "overall"]


def test_no_second_attempt_leaves_l4_na_and_renormalises() -> None:
    v = judge(traj("task-10", good_steps("task-10")))
    assert v.details["layers"]["L4"]["score"] is None
    assert v.details["overall"] == round((0.35 + 0.25 * 0.75) / 0.6, 3)
    assert "L4 n/a: no second attempt" in v.reason
    assert v.outcome == "pass"


def test_a_layer_below_half_fails_the_run_even_with_a_high_overall() -> None:
    # Right answer and reuse, but a deprecated library chosen: L2 0.35 < 0.5.
    steps = [
        {"action": "search", "query": "youtube transcript"},
        {"action": "read_web", "url": "u"},
        {"action": "select_library", "library": "pytube"},
        {"action": "create_tool", "name": "t", "code": "x"},
    ]
    v = judge(traj("task-01", steps), traj("task-01", reuse_steps(), variant=True))
    assert v.details["overall"] == 0.783
    assert v.outcome == "fail"
    assert "L2 tool discovery 0.350" in v.reason


def test_low_overall_fails() -> None:
    v = judge(traj("task-01", good_steps(), answer="no idea"), traj("task-01", good_steps(), variant=True))
    assert v.outcome == "fail"
    assert v.score == round((0.25 * 1.0) / 0.75, 3)


def test_second_attempt_is_na_and_names_its_first() -> None:
    first = traj("task-01", good_steps())
    second = traj("task-01", reuse_steps(), variant=True)
    s2 = state_of(second)
    v = SUITE.judge(SUITE.bind_partner(SUITE.get_task("task-01"), state_of(first)), s2)
    assert v.outcome == "na"
    assert v.reason == f"second attempt: scored on its first attempt {state_of(first).run_id}"
    alone = SUITE.judge(SUITE.get_task("task-01"), s2)
    assert alone.outcome == "na" and "not in the store" in alone.reason


def test_unknown_task_is_a_key_error() -> None:
    with pytest.raises(KeyError, match="task-99"):
        SUITE.get_task("task-99")


def test_judge_version_ignores_the_partner() -> None:
    task = SUITE.get_task("task-01")
    bound = SUITE.bind_partner(task, state_of(traj("task-01", reuse_steps(), variant=True)))
    assert SUITE.version(task) == SUITE.version(bound)
    assert SUITE.version(task) != SUITE.version(SUITE.get_task("task-02"))


# -- properties --------------------------------------------------------------------------------------

ACTIONS = ["search", "read_web", "select_library", "create_tool", "register_tool", "retrieve_tool", "call_tool",
           "final_answer", "other"]
TEXT = st.text(max_size=12)
ARGS = st.dictionaries(st.sampled_from(["query", "library", "name", "url", "result", "args"]),
                       st.one_of(TEXT, st.integers(-5, 5), st.dictionaries(TEXT, TEXT, max_size=2)), max_size=3)
STEPS = st.lists(st.tuples(st.sampled_from(ACTIONS), ARGS), max_size=8)
SCORE = st.one_of(st.none(), st.floats(0, 1, allow_nan=False))


@settings(max_examples=60, deadline=None)
@given(STEPS, st.one_of(st.none(), TEXT), st.sampled_from(sorted(TASKS)))
def test_import_mapping_keeps_steps_and_answer(steps, answer, task_id) -> None:
    obj = {"task_id": task_id, "profile": "p", "steps": [{"action": a, **args} for a, args in steps]}
    if answer is not None:
        obj["final_answer"] = answer
    state = state_of(obj)
    assert [(s.action, s.args or {}) for s in state.steps] == [(a, args) for a, args in steps]
    assert state.answer == answer
    assert state.finished and state.pair_round == 1


@settings(max_examples=200, deadline=None)
@given(STEPS, st.sampled_from(sorted(TASKS)))
def test_layer2_score_is_its_components_weighted(steps, task_id) -> None:
    a = Attempt(steps=tuple(steps))
    result = layer2(TASKS[task_id], a)
    if result["score"] is None:
        assert "retrieve_tool" in a.actions() and not set(a.actions()) & {"search", "select_library", "create_tool"}
        return
    c = result["components"]
    expected = (0.40 * c["selected_recommended_lib"] + 0.25 * c["on_topic_search"]
                + 0.25 * c["avoided_pitfalls"] + 0.10 * c["visited_web"])
    assert result["score"] == round(expected, 3)


@settings(max_examples=300, deadline=None)
@given(st.tuples(SCORE, SCORE, SCORE, SCORE))
def test_aggregate_lies_between_the_layer_scores(scores) -> None:
    result = aggregate({k: {"score": s} for k, s in zip(layers.LAYERS, scores)})
    present = [s for s in scores if s is not None]
    if not present:
        assert result["overall"] is None
        return
    assert round(min(present), 3) - 0.0005 <= result["overall"] <= round(max(present), 3) + 0.0005
    assert result["used_layers"] == [k for k, s in zip(layers.LAYERS, scores) if s is not None]
    # Layer order in the input does not matter.
    shuffled = {k: {"score": s} for k, s in reversed(list(zip(layers.LAYERS, scores)))}
    assert aggregate(shuffled) == result
