from __future__ import annotations

import os

import pytest

from trajectory.store import Store


@pytest.fixture
def store(tmp_path) -> Store:
    return Store(tmp_path / "store")


@pytest.fixture(autouse=True)
def _no_env_store(monkeypatch) -> None:
    # Tests never touch a store named by the environment of whoever runs them.
    monkeypatch.delenv("TRAJ_STORE", raising=False)
    monkeypatch.setenv("TRAJ_USER", "tester")
    os.environ.pop("TRAJ_LLM_BASE_URL", None)


def pytest_terminal_summary(terminalreporter) -> None:
    # The reliability tests' figures, shown even without -s (see tests/figures.py).
    from figures import RELIABILITY_FIGURES, hardening_lines

    lines = RELIABILITY_FIGURES + hardening_lines()
    if lines:
        terminalreporter.section("reliability figures")
        for text in lines:
            terminalreporter.write_line(text)
