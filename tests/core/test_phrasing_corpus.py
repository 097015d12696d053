"""The phrasing corpus (issue 22): answers with their verdict known by construction, run through
every path that reads an answer (tests/core/corpus_paths.py).

* The generator is deterministic and covers every construct, kind, language and verdict.
* A Hypothesis property (the normal, derandomized lane) holds every path to the grammar's verdict
  on the classes that agree today; the classes still open on main (issue 22's list, and the ones
  the corpus found) are named in OPEN with the item they belong to, so a fix shows as a class to
  take off the list, and a regression in a settled class fails here.
* The fuzz lane (``pytest -m fuzz``) runs the seeded 100,000-answer corpus through every path,
  writes the per-class agreement (tests/core/corpus_report.py prints the same table), and holds
  the total to >= 99.5 %.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest
from hypothesis import given

import corpus_grammar as G
import corpus_paths as P
import corpus_report as R
from corpus_constructs import CONSTRUCTS

# Classes that still disagree (after the merge of issue 22's two fixes, branch wip/judgemerge), by
# construct, kind:form, wrapper or construct/kind:form (alone or after "path:"), with the issue 22
# item or "found" (a class the corpus found beyond the list). Every class not named here is held
# to the grader's verdict by the properties below; the fixed ones came off this list: corrections,
# retractions, question denials, suffixed names, clock times as durations, other units, marked
# lists and closed items, approximations, hedges (a slash or a unit between the values too),
# 未来7日, 14h30, 两刻钟, Tue., every thousands separator, 用时1:30 grounded, a wrapper's "1.",
# 不到1小时 for 0小时59分 (seed 004).
OPEN = {
    "correction/time:bare_clock_face": "9 (found: a withdrawn 23:10 sets the answer's clock to 24 hours, so 11:25 no longer reads 23:25)",
    "question_denial/time:bare_clock_face": "9 (found: the same with an asked-and-denied 23:35)",
    "negated_then/time:bare_clock_face": "9 (found: the same with a denied 22:57)",
    "number:en_words": "found: English number words in some frames ('approximately zero degrees', 'one degrees', "
                       "'not two alarms but one alarm', 'actually thirty-one degrees')",
    "suffix_name/name:plain": "3 (found: a sequel number before markdown's closing ** (三体2**) is not read as a suffix)",
    "dev_grounded:number:cn_numeral": "found: 百分之五十六 after English words not grounded by 56%",
    "dev_grounded:bold_label_zh": "found: an LLM wrapper's label (答案：) makes a label:value item",
    "dev_grounded:bold_label_en": "found: the same (**Answer:**)", "dev_grounded:md_sure_zh": "found: the same (以下是查询结果：)",
    "dev_grounded:sure_en": "found: the same (Here is the answer:)",
    "dev_grounded:approx/number:digits": "found: 'roughly level 5' (level N is no reading answer_grounded takes)",
    "dev_regex:list_markers": "4 (found: a list of ten whose 10th item is closed: its marker 10. is read as the count)",
}


def _open(path: str, case: G.Case) -> bool:
    form = f"{case.kind}:{case.form}"
    both = f"{case.construct}/{form}"
    return bool({case.construct, form, case.wrapper, both, f"{path}:{case.construct}", f"{path}:{form}",
                 f"{path}:{case.wrapper}", f"{path}:{both}"} & set(OPEN))


def test_the_corpus_is_deterministic_and_prefix_stable():
    first = list(G.generate(22, 300))
    assert first == list(G.generate(22, 300))
    assert first[:120] == list(G.generate(22, 120))
    assert first != list(G.generate(23, 300))


def test_the_corpus_covers_every_construct_kind_language_and_verdict():
    cases = list(G.generate(22, 6000))
    constructs = Counter(c.construct for c in cases)
    missing = [n for n in CONSTRUCTS if constructs[n] == 0]
    assert not missing, missing
    assert {c.kind for c in cases} == set(G.KINDS)
    assert {c.lang for c in cases} >= {"zh", "en", "mixed"}
    assert any(c.field for c in cases) and any(c.screen for c in cases)
    for construct in ("plain", "wrong", "correction", "correction_back", "hedge", "negated", "question_denial",
                      "distractor_subject", "distractor_time", "field"):
        assert {c.verdict for c in cases if c.construct == construct} == ({True, False} if construct in (
            "distractor_subject", "distractor_time", "question_denial", "field") else
            {construct in ("plain", "correction")}), construct
    for path in P.PATHS:
        assert any(P.run_path(path, c) is not None for c in cases[:400]), path


MARKS = {
    "correction": ("修正后为", "更正为", "看错了", "不对", "数错了", "actually", "misread", "scratch that"),
    "hedge": ("或", " or ", "/", "-"),
    "negated": ("不是", "没有", "未通过", "没通过", "not"),
    "question_denial": ("吗？不是", "? No"),
    "approx": ("大约", "约", "大概", "左右", "预计", "about", "around", "approximately", "roughly"),
}


def test_each_construct_writes_what_it_claims():
    # The words that make a construct are in every answer it writes: a correction corrects, a
    # hedge offers two values, a denial denies (so the verdict by construction is the right one).
    for case in G.generate(22, 4000):
        marks = MARKS.get(case.construct.removesuffix("_back").removesuffix("_wrong"))
        if marks:
            assert any(m in case.answer for m in marks), case
        if case.construct == "list_closed_marked":
            assert any(m in case.answer for m in ("已关闭", "未开启", "disabled", "off")), case


@given(G.cases())
def test_every_path_gives_the_graders_verdict_on_settled_classes(case):
    for path in P.PATHS:
        got = P.run_path(path, case)
        if got is None or _open(path, case):
            continue
        assert got == P.expected_on(path, case), (path, case)


@given(G.cases(construct="field"))
def test_path_a_fields_give_the_graders_verdict(case):
    got = P.run_path("gui_a", case)
    if not _open("gui_a", case):
        assert got == case.verdict, case


@pytest.mark.slow
@pytest.mark.fuzz
def test_the_100k_corpus_agrees(tmp_path):
    result = R.run(R.DEFAULT_N, R.DEFAULT_SEED)
    out = tmp_path / "phrasing-corpus.json"
    out.write_text(json.dumps(result, ensure_ascii=False, indent=1), encoding="utf-8")
    print(R.table(result))
    print(f"results: {out}")
    assert result["answers"] >= 100_000
    assert result["agreement"] >= 0.995, (
        f"{100 * result['agreement']:.2f}% agreement; largest disagreement classes: "
        + "; ".join(f"{d['construct']} {d['form']} ({d['count']})" for d in result["disagreements"][:8]))


def test_shards_add_up_to_the_whole_corpus():
    whole = R.run(120, 5, examples=2)
    merged = R.merge([R.run(120, 5, examples=2, shard=(i, 3)) for i in range(3)], examples=2)
    for key in ("answers", "judged", "agree", "agreement", "paths", "classes", "wrong_passes", "wrong_fails"):
        assert merged[key] == whole[key], key
    assert {(d["construct"], d["form"], d["count"]) for d in merged["disagreements"]} == {
        (d["construct"], d["form"], d["count"]) for d in whole["disagreements"]}
