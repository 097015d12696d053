"""The verdicts and passes tables' schemas are derived from their records (trajectory/records.py)
and stay byte for byte what stores were written with (tests/golden/table_schemas.txt)."""

from __future__ import annotations

import datetime as _dt
import hashlib
from pathlib import Path
from typing import Annotated

import msgspec
import pyarrow as pa

from trajectory import records
from trajectory.store.tables import PASSES_SCHEMA, VERDICTS_SCHEMA, record_schema

GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "table_schemas.txt"


def _golden() -> dict[str, str]:
    out = {}
    for line in GOLDEN.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            name, digest = line[3:].split(" sha256:")
            out[name] = digest
    return out


def test_the_derived_schemas_are_the_ones_stores_were_written_with() -> None:
    golden = _golden()
    for name, schema in (("verdicts", VERDICTS_SCHEMA), ("passes", PASSES_SCHEMA)):
        assert hashlib.sha256(schema.serialize().to_pybytes()).hexdigest() == golden[name], name
    assert VERDICTS_SCHEMA.field("checks").type == pa.list_(pa.struct(
        [pa.field(n, t, metadata=VERDICTS_SCHEMA.field("checks").type.value_type.field(n).metadata)
         for n, t in (("name", pa.string()), ("passed", pa.bool_()), ("expected", pa.string()),
                      ("actual", pa.string()), ("reason", pa.string()))]))
    assert VERDICTS_SCHEMA.field("judged_at").type == pa.timestamp("us", tz="UTC")
    assert VERDICTS_SCHEMA.field("partner").metadata == {b"doc": b"The pair partner run the judge was given (null: none)."}


def test_a_field_added_to_a_record_is_a_column() -> None:
    class Wider(records.PassRow, frozen=True, kw_only=True):
        reviewer: Annotated[str | None, msgspec.Meta(description="Who looked.")] = None
        took_ms: int = 0

    schema = record_schema(Wider)
    assert schema.names == PASSES_SCHEMA.names + ["reviewer", "took_ms"]
    assert schema.field("reviewer").metadata == {b"doc": b"Who looked."}
    assert schema.field("took_ms").type == pa.int64() and schema.field("took_ms").metadata is None


def test_a_record_becomes_a_row_of_its_table() -> None:
    at = _dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=_dt.timezone.utc)
    row = records.VerdictRow(
        pass_id="p1", run_id="r1", suite="s", task="t", batch=None, split=None, outcome="fail", score=0.5,
        reason="no", checks=[records.CheckRow(name="c", passed=False, expected='"a"', actual='"b"', reason="no")],
        judge_version="v", judged_at=at, details=None, params=None, judged_seq=3,
    )
    table = pa.Table.from_pylist(records.as_dicts([row]), schema=VERDICTS_SCHEMA)
    (back,) = table.to_pylist()
    assert back == row.as_dict()
    assert back["checks"] == [{"name": "c", "passed": False, "expected": '"a"', "actual": '"b"', "reason": "no"}]
    assert back["judged_at"] == at and back["judgements"] == 0 and back["partner"] is None
    assert msgspec.convert(back, records.VerdictRow) == row
