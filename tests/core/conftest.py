"""The fast lane: tests of replay, judges and suites that need no store.

Run alone (``python -m pytest tests/core``), the lane must load none of the shell's heavy
libraries: a test here that needs the store belongs in the shell's folders instead.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

HEAVY = ("duckdb", "deltalake", "pyarrow", "polars")
HERE = Path(__file__).resolve().parent


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    items = getattr(session, "items", None) or []
    if not items or any(HERE not in Path(str(item.fspath)).resolve().parents for item in items):
        return  # the lane ran with other tests, which may load what they need
    loaded = sorted(m for m in sys.modules if m.split(".")[0] in HEAVY)
    if loaded:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
        print(f"\nthe fast lane loaded {', '.join(sorted({m.split('.')[0] for m in loaded}))}: "
              "move the test that needs them out of tests/core", file=sys.stderr)
