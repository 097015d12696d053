"""The two Hypothesis lanes (tests/conftest.py): the default run is deterministic, the fuzz lane
explores. A default run that drew random seeds could fail an unrelated change on a bug a new seed
happened to find; a deadline would assert speed on a shared machine."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import settings

ROOT = Path(__file__).resolve().parents[2]


def test_the_default_lane_is_derandomized_without_database_or_deadline(request):
    if request.config.getoption("markexpr") and "not fuzz" not in request.config.getoption("markexpr"):
        pytest.skip("the fuzz lane is running")
    current = settings()
    assert current.derandomize is True
    assert current.database is None
    assert current.deadline is None


def test_pytest_m_fuzz_selects_the_fuzz_lane_and_its_profile(tmp_path):
    probe = tmp_path / "test_probe.py"
    probe.write_text(
        "import pytest\nfrom hypothesis import settings\n\n"
        "@pytest.mark.fuzz\ndef test_profile():\n"
        "    s = settings()\n"
        "    assert (s.derandomize, s.max_examples, s.deadline) == (False, 2000, None)\n\n"
        "def test_not_fuzz():\n    pass\n",
        encoding="utf-8",
    )
    conftest = ROOT / "tests" / "conftest.py"
    (tmp_path / "conftest.py").write_text(conftest.read_text(encoding="utf-8"), encoding="utf-8")
    # Of the installed plugins only Hypothesis's (its --hypothesis-profile option is what the
    # conftest reads): the others only cost each interpreter its start-up.
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "tests"), str(ROOT), os.environ.get("PYTHONPATH", "")]),
           "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    # pytest-xdist too: the project's options name its workers (the probe runs in one: -n 0).
    args = [sys.executable, "-m", "pytest", "-q", "-p", "_hypothesis_pytestplugin", "-p", "xdist.plugin", "-n", "0",
            "-p", "no:cacheprovider", "-c",
            str(ROOT / "pyproject.toml"), "--rootdir", str(tmp_path), str(probe)]
    default = subprocess.run(args, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert "1 passed, 1 deselected" in default.stdout, default.stdout + default.stderr
    fuzz = subprocess.run([*args, "-m", "fuzz"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert "1 passed, 1 deselected" in fuzz.stdout, fuzz.stdout + fuzz.stderr
