from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from trajectory.store.delta import Store

# Tests live in folders by part (tests/core, tests/system, ...); their shared helpers stay in
# tests/ itself, importable from every folder.
sys.path.insert(0, str(Path(__file__).resolve().parent))

from hypothesis import settings

# Hypothesis runs deterministic by default (the `.ci/run` lane): derandomized, no example
# database, no deadline (a deadline is a speed limit, and speed is never asserted). A bug a
# random seed could find then never fails an unrelated change; the long exploration is the
# `fuzz` profile, 20x the examples, randomized, selected with `pytest -m fuzz` (which also runs
# the fuzz-marked tests, e.g. the 100,000-answer phrasing corpus) or `--hypothesis-profile=fuzz`.
FUZZ_SCALE = 20
settings.register_profile("ci", derandomize=True, database=None, deadline=None, print_blob=True)
settings.register_profile("fuzz", max_examples=100 * FUZZ_SCALE, derandomize=False, database=None, deadline=None,
                          print_blob=True)
settings.load_profile("ci")


def pytest_configure(config) -> None:
    if not hasattr(config, "workerinput"):
        _compile_sources()
    markexpr = config.getoption("markexpr", "") or ""
    chosen = config.getoption("hypothesis_profile", None)
    if chosen == "fuzz" or (chosen is None and "fuzz" in markexpr and "not fuzz" not in markexpr):
        settings.load_profile("fuzz")
        # Tests that size their runs with strategies_matchers.examples() scale with the profile.
        os.environ.setdefault("TRAJ_HYPOTHESIS_SCALE", str(FUZZ_SCALE))


def _compile_sources() -> None:
    """Byte-compile the project once, before any test starts a Python process. The suite starts
    a few thousand (traj commands, crash workers, servers); an environment that sets
    PYTHONDONTWRITEBYTECODE (this one does) never writes the .pyc files, so each of them would
    compile the hundred modules it imports from source again, half a second apiece here.
    compileall writes them whatever the setting says, and only those out of date."""
    import compileall

    root = Path(__file__).resolve().parent.parent
    for part in ("trajectory", "judges", "replay", "suites", "benchmarks", "tests"):
        compileall.compile_dir(root / part, quiet=1, workers=1)


@pytest.fixture
def store(tmp_path) -> Store:
    # Imported here, not above: the fast lane (tests/core) never loads the store.
    from trajectory.store.delta import Store

    return Store(tmp_path / "store")


# -- the stores built once per test session -------------------------------------------------------
# Building them costs seconds of recording and judging each; a test that writes takes a copy
# (``samples_copy``, ``demo_copy``), the others read the one built (and must not write to it).


@pytest.fixture(scope="session")
def samples_store(tmp_path_factory) -> Path:
    """Every bundled suite's sample runs (what `traj demo` records), ingested, not judged."""
    import suites as suite_pkg
    from trajectory.demo import record_all
    from trajectory.store.delta import Store

    store = Store(tmp_path_factory.mktemp("samples") / "store")
    record_all(store, suite_pkg.builtin_names(), out=lambda *_: None)
    return Path(store.backend.root)


@pytest.fixture
def samples_copy(samples_store, tmp_path) -> Store:
    """A copy of ``samples_store`` of the test's own, to write to."""
    from trajectory.store.delta import Store

    shutil.copytree(samples_store, tmp_path / "store")
    return Store(tmp_path / "store")


@pytest.fixture(scope="session")
def demo_store(tmp_path_factory) -> Path:
    """`traj demo` (all suites) plus one human override (see tests/view_helpers.py)."""
    from view_helpers import OVERRIDDEN_RUN, OVERRIDE_EVIDENCE

    from helpers import traj

    path = tmp_path_factory.mktemp("demo") / "store"
    r = traj("demo", "--store", path)
    assert r.exit_code == 0, r.output
    r = traj("override", OVERRIDDEN_RUN, "--to", "pass", "--evidence", OVERRIDE_EVIDENCE, "--by", "reviewer",
             "--category", "perception", "--store", path)
    assert r.exit_code == 0, r.output
    return path


@pytest.fixture
def demo_copy(demo_store, tmp_path) -> Path:
    """A copy of ``demo_store`` of the test's own, to write to (holdout looks, new passes)."""
    return Path(shutil.copytree(demo_store, tmp_path / "store"))


@pytest.fixture(autouse=True)
def _no_env_store(monkeypatch, tmp_path_factory) -> None:
    # Tests never touch a store named by the environment of whoever runs them, nor the journal
    # spool of their object-storage stores.
    monkeypatch.delenv("TRAJ_STORE", raising=False)
    monkeypatch.setenv("TRAJ_SPOOL", str(tmp_path_factory.getbasetemp() / "spool"))
    monkeypatch.setenv("TRAJ_USER", "tester")
    os.environ.pop("TRAJ_LLM_BASE_URL", None)


@pytest.fixture(autouse=True, scope="session")
def _own_config(tmp_path_factory) -> None:
    # The suites the tests trust (traj suite add, traj suite trust) go to a configuration folder
    # of the session's, never the user's ~/.config/traj. Session-wide, before any module's
    # fixtures: trust is kept per store, and every test has stores of its own.
    os.environ["XDG_CONFIG_HOME"] = str(tmp_path_factory.mktemp("config"))


@pytest.fixture(scope="session")
def s3_server():
    """One S3 server (moto, 127.0.0.1) for the whole session; each test takes a bucket."""
    from s3server import S3Server

    server = S3Server()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def s3_env(s3_server, monkeypatch) -> dict[str, str]:
    """The standard variables pointing at the test server (inherited by child processes)."""
    env = s3_server.env()
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    return env


@pytest.fixture
def s3_store_uri(s3_server, s3_env) -> str:
    """``s3://BUCKET/store``: a fresh, empty store location on the test server."""
    return f"s3://{s3_server.bucket()}/store"


@pytest.fixture(scope="session")
def ray_cluster():
    """One local Ray cluster (2 CPUs, 127.0.0.1, no dashboard) for the session's Ray tests.

    Skipped with a message when Ray is not installed (the test extra installs it: CI runs
    these). After the session, every process the cluster started must have ended.
    """
    from pathlib import Path

    from trajectory.engines.ray_engine import RAY_ENV, RayCluster

    os.environ.update(RAY_ENV)  # before Ray is first imported (see trajectory/engines/ray_engine.py)
    pytest.importorskip("ray", reason="Ray is not installed: pip install -e '.[test]' installs it (ray[data])")
    from rayprocs import ray_processes, wait_gone

    tests = str(Path(__file__).resolve().parent)
    before = ray_processes()
    cluster = RayCluster(num_cpus=2, runtime_env={"env_vars": {"PYTHONPATH": tests}})
    cluster.__enter__()
    started = ray_processes() - before
    try:
        yield cluster, started
    finally:
        cluster.__exit__(None, None, None)
        left = wait_gone(started | (ray_processes() - before))
        assert not left, f"Ray processes left after shutdown: {sorted(left)}"


def pytest_collection_modifyitems(items) -> None:
    # The system tests (processes, servers, browsers: the slowest) are handed out first, so the
    # workers finish together instead of one of them running them at the end. The sort is
    # stable: within a module the order stays the file's.
    items.sort(key=lambda item: 0 if item.path.parent.name == "system" else 1)


# -- the figures, from every worker -------------------------------------------------------------
# The suite runs in several worker processes (pytest-xdist, ``-n`` in pyproject.toml): each worker
# collects its own tests' figures and hands them to the controlling process when it ends, which
# adds them up and prints them once.


def pytest_sessionfinish(session) -> None:
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:  # a worker: hand the figures over
        from figures import CRASH, HARDENING, RELIABILITY_FIGURES

        workeroutput["traj_figures"] = {"lines": list(RELIABILITY_FIGURES), "hardening": dict(HARDENING),
                                        "crash": {kind: dict(c) for kind, c in CRASH.items()}}


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error) -> None:
    from figures import CRASH, HARDENING, RELIABILITY_FIGURES

    handed = getattr(node, "workeroutput", {}).get("traj_figures")
    if handed:
        RELIABILITY_FIGURES.extend(handed["lines"])
        HARDENING.update(handed["hardening"])
        for kind, counts in handed["crash"].items():
            CRASH[kind].update(counts)


def pytest_terminal_summary(terminalreporter) -> None:
    # The reliability tests' figures, shown even without -s (see tests/figures.py).
    from figures import RELIABILITY_FIGURES, crash_lines, hardening_lines

    lines = crash_lines() + sorted(RELIABILITY_FIGURES) + hardening_lines()
    if lines:
        terminalreporter.section("reliability figures")
        for text in lines:
            terminalreporter.write_line(text)
