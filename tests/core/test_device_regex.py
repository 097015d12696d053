"""Every bundled answer_regex against near-miss answers: 18.93% does not pass for 8.9x%.

Each bundled task with an ``answer_regex`` has a right answer here (the completeness check fails
when a task is added without one); every answer made from it by putting a digit before or after
one of its digit runs must fail the check, whatever anchoring the pattern itself has.
"""

from __future__ import annotations

import re

import pytest
from device_helpers import state

import suites.device as device
from suites.device.kinds import answer_regex
from suites.device.model import AnswerRegex

SUITE = device.load()
REGEX_TASKS = {
    tid: [c for c in tf.task.checks if isinstance(c, AnswerRegex)]
    for tid, tf in SUITE.tasks.items()
    if any(isinstance(c, AnswerRegex) for c in tf.task.checks)
}
RIGHT_ANSWERS = {
    "calculator-multiply": ["123×456 = 56088", "结果是56088。", "计算器显示 56,088"],
    "web-guangdong-share": ["广东省人口占全国的8.93%", "约为 8.9 %", "占比百分之八点九三"],
}


def near_misses(answer: str, pattern: str) -> list[str]:
    """The right answer's value made into a longer one: a digit (or a digit and a group comma)
    before it, a digit after it when it ends in one. 8.93% becomes 18.93%, 56088 becomes 156088."""
    m = re.search(pattern, answer)
    assert m is not None, (pattern, answer)
    a, b = m.span()
    out = [answer[:a] + p + answer[a:] for p in ("1", "7", "1,")]
    if answer[b - 1].isdigit():
        out.append(answer[:b] + "7" + answer[b:])
    return out


def test_every_bundled_regex_task_has_right_answers():
    assert set(RIGHT_ANSWERS) == set(REGEX_TASKS)


@pytest.mark.parametrize("task_id", sorted(REGEX_TASKS))
def test_right_answers_pass(task_id):
    for check in REGEX_TASKS[task_id]:
        for answer in RIGHT_ANSWERS[task_id]:
            assert answer_regex(check, state(answer)).passed, (check.pattern, answer)


@pytest.mark.parametrize("task_id", sorted(REGEX_TASKS))
def test_near_misses_fail(task_id):
    for check in REGEX_TASKS[task_id]:
        for answer in RIGHT_ANSWERS[task_id]:
            if re.search(r"[零一二三四五六七八九十]", answer):
                continue  # numerals: the near misses of their digits are in the named cases
            for miss in near_misses(answer, check.pattern):
                assert not answer_regex(check, state(miss)).passed, (check.pattern, miss)


def test_named_near_misses():
    share = REGEX_TASKS["web-guangdong-share"][0]
    for miss in ("广东省占18.93%", "占8.931%", "占88.9%", "占28.9 %"):
        assert not answer_regex(share, state(miss)).passed, miss
    calc = REGEX_TASKS["calculator-multiply"][0]
    for miss in ("156088", "560880", "56088.5", "1,56088", "156,088", "56,0881", "56,088.5", "1,56,088"):
        assert not answer_regex(calc, state(miss)).passed, miss


def test_the_guangdong_pattern_is_anchored_itself():
    pattern = re.compile(REGEX_TASKS["web-guangdong-share"][0].pattern)
    assert pattern.search("8.93%") and not pattern.search("18.93%")
