"""Agreement of a judge with people (judges/agreement.py): counts, rate and Cohen's kappa."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from judges.agreement import Agreement, agreement, kappa_text

OUTCOMES = st.sampled_from(["pass", "fail", "error", "na", "skipped", None])
RATED = st.sampled_from(["pass", "fail"])
PAIRS = st.lists(st.tuples(OUTCOMES, OUTCOMES), max_size=60)
RATED_PAIRS = st.lists(st.tuples(RATED, RATED), max_size=60)


def both_classes(labels: list[str]) -> bool:
    return "pass" in labels and "fail" in labels


@given(st.lists(RATED, min_size=2, max_size=60))
def test_identical_labels_with_both_classes_have_kappa_one(labels: list[str]) -> None:
    a = agreement(zip(labels, labels))
    assert a.rate == (1.0 if labels else None)
    if both_classes(labels):
        assert a.kappa is not None and math.isclose(a.kappa, 1.0)
    else:
        assert a.kappa is None  # one class missing: n/a, not 1 nor 0


@given(RATED_PAIRS)
def test_kappa_and_rate_are_symmetric(pairs: list[tuple[str, str]]) -> None:
    a = agreement(pairs)
    b = agreement((p, j) for j, p in pairs)
    assert a.rate == b.rate and a.agree == b.agree
    assert (a.kappa is None) == (b.kappa is None)
    if a.kappa is not None:
        assert math.isclose(a.kappa, b.kappa or 0.0, abs_tol=1e-12)


@given(PAIRS)
def test_counts_add_up_and_only_pass_fail_pairs_are_rated(pairs: list[tuple[str | None, str | None]]) -> None:
    a = agreement(pairs)
    rated = [(j, p) for j, p in pairs if j in ("pass", "fail") and p in ("pass", "fail")]
    assert a.rated == len(rated) and a.apart == len(pairs) - len(rated)
    assert a.agree == sum(1 for j, p in rated if j == p)
    assert a.judge_fail_person_pass == sum(1 for j, p in rated if (j, p) == ("fail", "pass"))
    if a.kappa is not None:
        assert -1.0 - 1e-12 <= a.kappa <= 1.0 + 1e-12
        assert both_classes([j for j, _ in rated]) and both_classes([p for _, p in rated])


@given(st.lists(RATED, min_size=2, max_size=60))
def test_opposite_labels_never_agree(labels: list[str]) -> None:
    flipped = ["fail" if x == "pass" else "pass" for x in labels]
    a = agreement(zip(labels, flipped))
    assert a.rate == 0.0
    if both_classes(labels):
        assert a.kappa is not None and a.kappa < 0  # worse than chance
        if labels.count("pass") * 2 == len(labels):
            assert math.isclose(a.kappa, -1.0)


def test_a_known_table() -> None:
    # 20 runs: both pass 10, both fail 5, judge pass / person fail 3, judge fail / person pass 2.
    pairs = [("pass", "pass")] * 10 + [("fail", "fail")] * 5 + [("pass", "fail")] * 3 + [("fail", "pass")] * 2
    a = agreement(pairs + [("error", "pass")])
    assert (a.rated, a.agree, a.apart) == (20, 15, 1)
    assert a.rate == 0.75
    # observed 0.75; chance: judge pass 13/20, person pass 12/20 -> 0.39 + 0.14 = 0.53
    assert a.kappa is not None and math.isclose(a.kappa, (0.75 - 0.53) / (1 - 0.53))
    assert kappa_text(a.kappa) == "0.47" and kappa_text(Agreement(both_pass=3).kappa) == "n/a"
    assert a.to_json()["disagree"] == 5
