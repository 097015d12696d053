"""Your own suite in ten minutes: `traj suite new` writes a runnable skeleton, and `traj suite
check` runs a Python suite's judge matrix (runs that must pass, runs that must fail)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from helpers import traj


ROOT = Path(__file__).resolve().parents[2]


def test_suite_new_writes_a_skeleton_whose_matrix_passes(tmp_path) -> None:
    r = traj("suite", "new", "mine", "--dir", str(tmp_path))
    assert r.exit_code == 0, r.output
    folder = tmp_path / "mine"
    assert {str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()} == {
        "__init__.py", "test_mine.py", "cases/pass/current_temp.jsonl", "cases/fail/current_temp.jsonl"}
    r = traj("suite", "check", str(folder))
    assert r.exit_code == 0, r.output
    assert "ok    current_temp  must pass: pass" in r.output and "ok    current_temp  must fail: fail" in r.output
    assert r.output.rstrip().endswith("every task has a passing and a failing case and is judged right")
    # Its test file runs the same matrix under pytest.
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "mine"], cwd=tmp_path,
                       capture_output=True, text=True, env=env, timeout=300)
    assert p.returncode == 0 and "3 passed" in p.stdout, p.stdout + p.stderr


def test_suite_new_refuses_a_bad_name_and_an_existing_folder(tmp_path) -> None:
    assert traj("suite", "new", "My Suite", "--dir", str(tmp_path)).exit_code == 1
    traj("suite", "new", "mine", "--dir", str(tmp_path))
    r = traj("suite", "new", "mine", "--dir", str(tmp_path))
    assert r.exit_code == 1 and "already exists" in r.output


def test_suite_check_catches_a_wrong_rule_and_a_missing_case(tmp_path) -> None:
    traj("suite", "new", "mine", "--dir", str(tmp_path))
    folder = tmp_path / "mine"
    init = folder / "__init__.py"
    init.write_text(init.read_text().replace("ok = actual is not None and match_value(expected, str(actual))",
                                             "ok = actual is not None and str(expected) in str(actual)"))
    (folder / "cases" / "fail" / "current_temp.jsonl").unlink()
    r = traj("suite", "check", str(folder))
    assert r.exit_code == 1
    assert "FAIL  current_temp  must pass: fail: answer: 20 is not in the answer" in r.output
    assert "problem: task current_temp has no case that must fail (add one to cases/fail/)" in r.output
    assert "1 case judged wrong, 1 problem in" in r.output
    matrix = json.loads(traj("suite", "check", str(folder), "--json").stdout)
    assert matrix["ok"] is False and matrix["cases"][0]["outcome"] == "fail"


def test_suite_check_of_a_python_suite_without_cases_is_not_the_device_check(tmp_path) -> None:
    folder = tmp_path / "bare"
    folder.mkdir()
    (folder / "__init__.py").write_text((ROOT / "suites" / "example" / "__init__.py").read_text())
    r = traj("suite", "check", str(folder))
    assert r.exit_code == 1 and "problem: no judge matrix: put runs that must pass in cases/pass/" in r.output
    assert "problems in" in r.output and "9 problems" not in r.output


def test_the_bundled_example_suite_has_a_complete_matrix() -> None:
    r = traj("suite", "check", str(ROOT / "suites" / "example"))
    assert r.exit_code == 0 and "ok: suite example, 2 tasks, 5 cases" in r.output


def test_a_suite_that_does_not_load_is_one_problem(tmp_path) -> None:
    folder = tmp_path / "broken"
    folder.mkdir()
    (folder / "__init__.py").write_text("raise RuntimeError('broken at import')\n")
    r = traj("suite", "check", str(folder))
    assert r.exit_code == 1 and "problem: cannot load the suite: RuntimeError: broken at import" in r.output
