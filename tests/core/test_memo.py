"""The pass's memory of texts (judges.memo): each reading once per distinct text, nothing
remembered outside a pass. (That verdicts are the same with it and without it is held by
tests/judging/test_batch_equivalence.py: a pass judges in a memo, judge_state alone in none.)"""

from __future__ import annotations

from judges.memo import TextMemo, once, reading
from judges.tokens import scan


def test_a_reading_is_computed_once_per_text_inside_a_pass_and_every_time_outside() -> None:
    calls: list[str] = []

    def length(text: str) -> int:
        calls.append(text)
        return len(text)

    memo = TextMemo()
    with reading(memo):
        assert [once("len", t, length) for t in ("ab", "abc", "ab", "ab")] == [2, 3, 2, 2]
        assert once("len", None, lambda t: -1) == -1  # no text: computed, not remembered
    assert calls == ["ab", "abc"] and memo.computed == 2
    assert once("len", "ab", length) == 2 and calls == ["ab", "abc", "ab"]  # outside: nothing kept


def test_a_full_memo_starts_again_and_still_gives_each_reading() -> None:
    memo = TextMemo(limit=3)
    with reading(memo):
        got = [once("upper", t, str.upper) for t in "abcdabcd"]
    assert got == list("ABCDABCD") and all(len(t) <= 3 for t in memo.tables.values())


def test_a_remembered_scan_is_the_scan_of_its_text() -> None:
    text = "不是20度，是22度；明天（4月6日）下午3点"
    with reading(TextMemo()):
        first, again = scan(text), scan(text)
    plain = scan(text)
    assert first is again and plain is not first
    assert (first.text, first.clauses, _plain(first)) == (plain.text, plain.clauses, _plain(plain))


def _plain(s) -> list[tuple]:
    # A date token's value is its regex match, which compares by identity: compare its text.
    return [(t.kind, t.start, t.end, t.value.group(0) if t.kind == "date" else t.value, t.asserted, t.approx)
            for t in s.tokens]
