"""Limits on a person's query: time, output rows and memory.

A sandboxed query cannot reach out, but it can still take the machine: a recursive CTE or
``range(1e13)`` runs for ever, a self-join of ``events`` or ``string_agg`` over everything fills
memory. Each limit stops such a query with one line that says which limit and how to raise it.

- time: a timer thread interrupts the connection (``con.interrupt()``) when the limit passes;
  it covers planning, running and fetching alike.
- memory: DuckDB's ``memory_limit`` with spilling to disk turned off (no temporary directory),
  so a query that needs more fails instead of filling the disk.
- rows: the result is fetched in batches and refused as soon as it has more rows than allowed.

Defaults are sized for a 2-core, 24 GiB machine shared by several people.
"""

from __future__ import annotations

import dataclasses
import re
import threading
from collections.abc import Iterator

import duckdb
import pyarrow as pa

from trajectory.errors import QueryError

GiB = 1024**3
MiB = 1024**2


@dataclasses.dataclass(frozen=True)
class Bound:
    """One limit's default and the range an option may set it to."""

    default: float
    low: float
    high: float


TIMEOUT = Bound(30.0, 0.1, 3600.0)  # seconds
MAX_ROWS = Bound(1_000_000, 1, 50_000_000)
MEMORY = Bound(4 * GiB, 64 * MiB, 16 * GiB)  # bytes

# Every stop by a limit is counted here (the test suite prints the figure).
STOPPED: dict[str, int] = {"time": 0, "memory": 0, "rows": 0}


@dataclasses.dataclass(frozen=True)
class QueryLimits:
    timeout: float = TIMEOUT.default
    max_rows: int = int(MAX_ROWS.default)
    memory: int = int(MEMORY.default)

    @classmethod
    def checked(
        cls, timeout: float | None = None, max_rows: int | None = None, memory: str | int | None = None
    ) -> QueryLimits:
        """Limits from options; a value outside its bounds is refused with one line."""
        t = TIMEOUT.default if timeout is None else float(timeout)
        r = int(MAX_ROWS.default) if max_rows is None else int(max_rows)
        m = int(MEMORY.default) if memory is None else parse_size(memory)
        _within("--timeout", t, TIMEOUT, _seconds)
        _within("--max-rows", r, MAX_ROWS, lambda v: f"{int(v):,}")
        _within("--max-memory", m, MEMORY, human_size)
        return cls(t, r, m)


def _seconds(value: float) -> str:
    return f"{value:g} s"


def _within(option: str, value: float, bound: Bound, show) -> None:  # noqa: ANN001
    if not bound.low <= value <= bound.high:
        raise QueryError(f"{option} must be between {show(bound.low)} and {show(bound.high)}, got {show(value)}")


_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]?i?b?)?\s*$", re.I)
_UNITS = {"": 1, "b": 1, "k": 1024, "m": MiB, "g": GiB, "t": 1024 * GiB}


def parse_size(text: str | int) -> int:
    """``4GiB``, ``512MB``, ``2g`` or a number of bytes; units are binary (1 GB = 1024 MiB)."""
    if isinstance(text, int):
        return text
    m = _SIZE.match(text)
    if m is None:
        raise QueryError(f"--max-memory: not a size: {text!r} (examples: 512MiB, 4GiB)")
    unit = (m.group(2) or "").lower()[:1]
    return int(float(m.group(1)) * _UNITS[unit])


def human_size(n: float) -> str:
    if n >= GiB and n % GiB == 0:
        return f"{int(n // GiB)} GiB"
    if n >= GiB:
        return f"{n / GiB:.1f} GiB"
    return f"{n / MiB:.0f} MiB"


def apply_memory_limit(con: duckdb.DuckDBPyConnection, limits: QueryLimits) -> None:
    """Set before the configuration is locked: a query cannot raise them again."""
    con.execute(f"SET memory_limit = '{int(limits.memory)}B'")
    # No spilling: a query that does not fit is stopped rather than writing the disk full.
    con.execute("SET temp_directory = ''")
    con.execute("SET max_temp_directory_size = '0B'")
    # Strings in 64-bit Arrow buffers: a result with over 2 GiB of text in one batch is an
    # answer (within the memory limit), not an Arrow appender error.
    con.execute("SET arrow_large_buffer_size = true")


def time_stop(limits: QueryLimits) -> QueryError:
    STOPPED["time"] += 1
    return QueryError(
        f"query stopped: it ran past the time limit of {_seconds(limits.timeout)} "
        f"(raise --timeout up to {_seconds(TIMEOUT.high)})"
    )


def memory_stop(limits: QueryLimits) -> QueryError:
    STOPPED["memory"] += 1
    return QueryError(
        f"query stopped: it needs more than the memory limit of {human_size(limits.memory)} "
        f"(raise --max-memory up to {human_size(MEMORY.high)})"
    )


def rows_stop(limits: QueryLimits) -> QueryError:
    STOPPED["rows"] += 1
    return QueryError(
        f"query stopped: the result has more than {limits.max_rows:,} rows "
        f"(add LIMIT, or raise --max-rows up to {int(MAX_ROWS.high):,})"
    )


def size_stop(limits: QueryLimits) -> QueryError:
    STOPPED["memory"] += 1
    return QueryError(
        f"query stopped: the result is larger than the memory limit of {human_size(limits.memory)} "
        f"(add LIMIT, select fewer or shorter columns, or raise --max-memory up to {human_size(MEMORY.high)})"
    )


def limited_batches(con: duckdb.DuckDBPyConnection, sql: str, limits: QueryLimits,
                    batch_rows: int = 65536) -> Iterator[pa.RecordBatch | pa.Schema]:
    """Run ``sql`` (already checked by the sandbox) within the time and row limits: first the
    result's schema, then its batches. Every failure is one QueryError line (DuckDB's, Arrow's
    included: a result whose strings overflow an Arrow buffer is not a traceback)."""
    fired = threading.Event()

    def stop() -> None:
        fired.set()
        con.interrupt()

    timer = threading.Timer(limits.timeout, stop)
    timer.daemon = True
    timer.start()
    rows = 0
    try:
        reader = con.sql(sql).to_arrow_reader(batch_rows)
        yield reader.schema
        for batch in reader:
            rows += batch.num_rows
            if rows > limits.max_rows:
                raise rows_stop(limits)
            yield batch
    except duckdb.InterruptException:
        raise time_stop(limits) from None
    except duckdb.OutOfMemoryException:
        raise memory_stop(limits) from None
    except (duckdb.Error, pa.ArrowException, OSError, MemoryError) as exc:
        if fired.is_set():  # an interrupt can surface as another error kind mid-fetch
            raise time_stop(limits) from None
        if isinstance(exc, MemoryError) or "out of memory" in str(exc).lower():
            raise memory_stop(limits) from None
        lines = str(exc).strip().splitlines()
        raise QueryError(lines[0] if lines else type(exc).__name__) from None
    finally:
        timer.cancel()
        timer.join()


def run_limited(con: duckdb.DuckDBPyConnection, sql: str, limits: QueryLimits) -> pa.Table:
    """Run ``sql`` (already checked by the sandbox) within the time and row limits, in this
    process (DuckDB's own limits only: :mod:`trajectory.query.worker` enforces them on a process)."""
    parts = limited_batches(con, sql, limits)
    schema = next(parts)
    return pa.Table.from_batches(list(parts), schema=schema)
