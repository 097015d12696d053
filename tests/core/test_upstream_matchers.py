"""The judged harness's own matcher tests, as a table (tests/core/upstream_matchers.json), run
against traj's matchers.

Every literal assertion the GUI benchmark's tests make about match_value (and the numeric
comparison it uses for numbers), match_time, match_duration and the best-candidate answer checks,
at the fork's upstream merge commit and at the version the search index holds, is one row. A row
agrees (traj gives the upstream verdict) or says why traj judges otherwise (``deliberate``, with
the seed rule), and then traj's own verdict (``traj``) is asserted.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from judges.matchers import match_date, match_duration, match_time, match_value

TABLE = json.loads((Path(__file__).with_name("upstream_matchers.json")).read_text(encoding="utf-8"))
ROWS = TABLE["rows"]
MERGE = "093a3292d13fc4186e279af4ef1b005ac8e4d2b7"
INDEXED = "ab5bd21fb7b81f4492553cf6fa20024ef36dd669"
MATCHERS = {"match_value": match_value, "match_time": match_time, "match_duration": match_duration,
            "match_date": match_date}


def _arg(value: Any) -> Any:
    if isinstance(value, dict) and set(value) == {"pattern"}:
        return re.compile(value["pattern"])
    return value


def _best_match(candidates: list[dict[str, Any]], fields: list[list[str]], answer: str) -> dict[str, Any]:
    """The upstream best-candidate rule, on traj's matchers: the first candidate every field of
    which the answer states, else the first candidate."""
    def checks(c: dict[str, Any]) -> list[bool]:
        return [MATCHERS[matcher](c[key], answer) for _, key, matcher in fields]

    chosen = next((c for c in candidates if all(checks(c))), candidates[0])
    return {"all_passed": all(checks(chosen)), "chosen": chosen[fields[0][1]]}


def verdict(row: dict[str, Any]) -> Any:
    if row["matcher"] == "best_match":
        return _best_match(*row["arguments"])
    return MATCHERS[row["matcher"]](*map(_arg, row["arguments"]))


def _id(row: dict[str, Any]) -> str:
    return f"{row['commit'][:7]}-{row['test'].split('::')[1]}-L{row['line']}"


@pytest.mark.parametrize("row", ROWS, ids=_id)
def test_row(row):
    want = row["traj"] if "deliberate" in row else row["expected"]
    assert verdict(row) == want, row


def test_table_covers_both_commits_and_every_matcher_test():
    """The table holds both versions, and each holds the rows it should: the same matcher
    assertions (the tests of the matchers did not change between the two commits)."""
    by_commit = Counter(r["commit"] for r in ROWS)
    assert set(by_commit) == {MERGE, INDEXED}
    assert by_commit[MERGE] == by_commit[INDEXED] == 54

    def facts(commit: str) -> list[tuple[str, str, str]]:
        return sorted((r["test"], r["matcher"], json.dumps(r["arguments"], ensure_ascii=False)) for r in ROWS
                      if r["commit"] == commit)

    assert facts(MERGE) == facts(INDEXED)
    kinds = Counter(r["matcher"] for r in ROWS if r["commit"] == MERGE)
    assert kinds == {"match_value": 30, "match_duration": 10, "match_time": 10, "best_match": 4}


def test_deliberate_rows_name_their_rule():
    for row in ROWS:
        if "deliberate" in row:
            assert row["deliberate"].strip() and row["traj"] != row["expected"], row


def test_approximation_rows_are_the_six_that_failed():
    """The six upstream duration assertions issue 22 found failing: an approximation word
    (大约, 大概, 预计, 左右) beside one duration states it."""
    approx = [r for r in ROWS if r["commit"] == MERGE and r["matcher"] == "match_duration"
              and re.search("大约|大概|预计|左右", r["arguments"][1] or "") and r["expected"] is True]
    assert len(approx) == 6
    assert all(verdict(r) is True for r in approx)
