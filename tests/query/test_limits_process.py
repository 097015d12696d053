"""Query limits held on the process (issue 24, section 3): queries that DuckDB's own
``memory_limit`` and interrupt do not stop (lists built outside its buffer manager, a single
expression that never looks at the interrupt) are stopped all the same, the worker that ran
them is gone, and the command answers in one line.

Each attack runs ``traj`` as a subprocess whose processes the test kills when they hold more than
CEILING together, so that on a traj that does not stop them the test machine stays safe: the
attack fails there instead of taking many GiB."""

from __future__ import annotations

from hang import HANG
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from helpers import example_run, jsonl
from trajectory.ingest.files import ingest_bytes
from trajectory.store.delta import Store

MiB = 1024**2
# The most a command's processes may hold together before the test kills them: far above what a
# stopped query needs, far below the machine (a traj that does not stop these grows past it).
CEILING = 2560 * MiB
_PAGE = os.sysconf("SC_PAGE_SIZE")


@pytest.fixture(scope="module")
def small(tmp_path_factory) -> Store:
    store = Store(tmp_path_factory.mktemp("proc") / "store")
    lines: list[str] = []
    for i in range(20):
        lines += example_run(f"r{i:02d}")
    ingest_bytes(store, jsonl(lines), "small")
    return store


def _session_procs(sid: int) -> dict[int, int]:
    """Live (not zombie) processes of session ``sid``, with their resident memory in bytes."""
    out = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if int(fields[3]) == sid and fields[0] != "Z":
            out[int(entry)] = int(fields[21]) * _PAGE
    return out


def traj_bounded(store: Store, *args: str) -> tuple[int, str, str, int]:
    """Run ``traj ARGS --store STORE`` in a session of its own, killed if its processes together
    pass CEILING: exit code, stdout, stderr and the most they held together (bytes)."""
    cmd = [sys.executable, "-m", "trajectory.cli.main", *args, "--store", str(store.loc)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    peak = {"bytes": 0, "killed": False}
    done = threading.Event()

    def guard() -> None:
        while not done.wait(0.05):
            held = sum(_session_procs(proc.pid).values())
            peak["bytes"] = max(peak["bytes"], held)
            if held > CEILING:
                peak["killed"] = True
                os.killpg(proc.pid, 9)
                return

    watcher = threading.Thread(target=guard, daemon=True)
    watcher.start()
    try:
        out, err = proc.communicate(timeout=HANG)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        out, err = proc.communicate()
        pytest.fail(f"traj {args[0]} did not answer in {HANG} s")
    finally:
        done.set()
        watcher.join()
    assert not peak["killed"], f"`traj {args[0]}` grew past {CEILING // MiB} MiB: killed by the test"
    # Nothing of the command is left running: its worker was stopped, not abandoned.
    deadline = time.monotonic() + HANG
    while _session_procs(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _session_procs(proc.pid) == {}, f"processes of `traj {args[0]}` outlived it"
    return proc.returncode, out, err, peak["bytes"]


# (attack, options): each builds a list of 1e9 numbers outside DuckDB's buffer manager.
MEMORY_ATTACKS = [
    "SELECT count(*) FROM (SELECT unnest(range(1e9::BIGINT)))",
    "SELECT list_sum(range(1e9::BIGINT))",
    "SELECT length(string_agg(repeat('x', 10000000), ',')) FROM range(1000)",
]


@pytest.mark.parametrize("sql", MEMORY_ATTACKS, ids=[s[:40] for s in MEMORY_ATTACKS])
def test_a_query_past_the_memory_limit_is_stopped_on_the_process(small: Store, sql: str) -> None:
    code, out, err, peak = traj_bounded(small, "query", sql, "--timeout", "600", "--max-memory", "512MiB")
    assert code == 1 and out == "", (out, err)
    assert err.splitlines() == [err.strip()] and err.startswith("error: query stopped: "), err
    assert "memory limit of 512 MiB" in err and "--max-memory" in err, err
    # Its processes never held much more than the limit (traj's own ~300 MiB besides).
    assert peak < 512 * MiB + 1024 * MiB, f"peak {peak // MiB} MiB"


def test_a_query_that_ignores_the_interrupt_is_stopped_at_the_time_limit(small: Store) -> None:
    # One expression over a 3e7-element list: DuckDB sees its interrupt only when it is done
    # (on 8ec75cb this printed its answer, 1000, long after --timeout 1).
    sql = "SELECT len(list_distinct(list_transform(range(3e7::BIGINT), lambda x: x % 1000))) AS n"
    code, out, err, _ = traj_bounded(small, "query", sql, "--timeout", "1", "--max-memory", "2GiB")
    assert code == 1 and out == "", (out, err)
    assert err.strip() == "error: query stopped: it ran past the time limit of 1 s (raise --timeout up to 3600 s)"


def test_rows_of_large_strings_are_one_line_not_an_arrow_traceback(small: Store) -> None:
    # 250 strings of 10 MB: more than one Arrow string buffer holds (2 GiB); on 8ec75cb an
    # "Arrow Appender" traceback. Within 1 GiB they cannot be answered: one line says so.
    sql = "SELECT repeat('x', 10000000) AS s FROM range(250)"
    code, out, err, _ = traj_bounded(small, "query", sql, "--format", "csv", "--max-memory", "1GiB")
    assert "Traceback" not in err and "Arrow" not in err, err
    assert code == 1 and out == "" and len(err.splitlines()) == 1, err
    assert err.startswith("error: query stopped: ") and "1 GiB" in err, err


def test_a_result_larger_than_the_memory_limit_is_one_line(small: Store) -> None:
    sql = "SELECT repeat('x', 10000000) AS s FROM range(100)"  # 1 GB of strings
    code, out, err, _ = traj_bounded(small, "query", sql, "--max-memory", "256MiB")
    assert code == 1 and out == "", (out, err)
    assert len(err.splitlines()) == 1 and err.startswith("error: query stopped: ") and "256 MiB" in err, err


def test_judge_where_has_the_query_time_limit(small: Store, monkeypatch) -> None:
    import trajectory.judging.selection as selection
    from trajectory.errors import QueryError
    from trajectory.judging.selection import select_runs
    from trajectory.query.limits import QueryLimits

    # The same limits as `traj query` (its defaults in use; lowered here for the test).
    monkeypatch.setattr(selection, "WHERE_LIMITS", QueryLimits(timeout=1, max_rows=100, memory=2048 * MiB),
                        raising=False)
    where = "len(list_distinct(list_transform(range(3e7::BIGINT), lambda x: x % 1000))) > 0"
    with pytest.raises(QueryError) as info:
        select_runs(small, where=where)
    assert str(info.value) == "--where: query stopped: it ran past the time limit of 1 s"
    # A condition that is fine still selects.
    monkeypatch.setattr(selection, "WHERE_LIMITS", None)
    assert len(select_runs(small, where="task IS NOT NULL").finished) == 20
