"""docs/suites.md as a new user follows it: every block, in order, in an empty folder — write a
suite, record runs with the Recorder, judge, fix the rule, see the flips, test the suite with
its judge matrix, start another from the skeleton."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "suites.md"
TRAJ = [sys.executable, "-m", "trajectory.cli.main"]


def steps() -> list[tuple[str, str]]:
    """("file", path + text) or ("run", command line), in the order of the page."""
    out = []
    for m in re.finditer(r"^```(\w*)\n(.*?)^```", DOC.read_text(encoding="utf-8"), re.S | re.M):
        lang, body = m.group(1), m.group(2)
        if lang == "python":
            first = body.splitlines()[0]
            assert first.startswith("# file: "), f"a python block on the page must say its file: {first}"
            out.append(("file", body))
        elif lang == "console":
            out += [("run", x[2:]) for x in body.splitlines() if x.startswith("$ ")]
        else:
            raise AssertionError(f"a {lang or 'plain'} block on the page that no test runs")
    return out


def run(line: str, cwd: Path, check: bool = True) -> subprocess.CompletedProcess[str]:
    argv = shlex.split(line)
    argv = (TRAJ + argv[1:] if argv[0] == "traj" else [sys.executable] + argv[1:] if argv[0] == "python"
            else [sys.executable, "-m", "pip"] + argv[1:] if argv[0] == "pip" else argv)
    env = {**os.environ, "TRAJ_USER": "newcomer", "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("TRAJ_STORE", None)
    p = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    if check:
        assert p.returncode == 0, f"$ {line}\n{p.stdout}\n{p.stderr}"
    return p


@pytest.mark.slow
def test_the_page_runs_as_written_and_shows_what_it_says(tmp_path) -> None:
    said: dict[str, list[str]] = {}
    rules: list[str] = []
    for kind, what in steps():
        if kind == "file":
            path = tmp_path / what.splitlines()[0].removeprefix("# file: ")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(what, encoding="utf-8")
            if path.name == "rules.py":
                rules.append(what)
        else:
            said.setdefault(what, []).append(run(what, tmp_path).stdout)
    first, second = said["traj judge"]
    assert "judged 4 runs (2 pass, 2 fail)" in first and "judged 4 runs (2 pass, 2 fail)" in second
    assert 'FAIL  answer: expected 20, actual "北京现在二十度"' in said["traj show wq-001"][0]
    diff = said["traj diff"][0]
    assert "4 runs judged before, 2 flips" in diff
    assert "wq-001: fail → pass" in diff and "wq-004: pass → fail" in diff
    assert "ok: suite weatherq, 2 tasks, 4 cases" in said["traj suite check weatherq"][0]
    assert "5 passed" in said["python -m pytest -q weatherq"][0]  # completeness + 4 cases
    assert "ok: suite mysuite, 1 task, 2 cases" in said["traj suite check mysuite"][0]
    agreed = said["traj suite check weatherq --store traj-store"][0]
    assert "ok: suite weatherq" in agreed and "1 run a person re-judged, 0 disagree" in agreed
    # "Put the old rule back ... and both fail, naming wq-001 and wq-004."
    (tmp_path / "weatherq" / "rules.py").write_text(rules[0], encoding="utf-8")
    check = run("traj suite check weatherq", tmp_path, check=False)
    assert check.returncode == 1 and "run wq-001" in check.stdout and "run wq-004" in check.stdout
    # ... and the check against people exits 1, naming the run the grader re-judged.
    people = run("traj suite check weatherq --store traj-store", tmp_path, check=False)
    assert people.returncode == 1
    assert "wq-004 (weatherq/condition): judge pass, ana said fail: “上海现在没有小雨”" in people.stdout
    assert "wq-004 (weatherq/condition): judge pass, ana said fail" in run("traj judge --dry-run --all", tmp_path).stdout
    tests = run("python -m pytest -q weatherq", tmp_path, check=False)
    assert tests.returncode == 1 and "wq-001" in tests.stdout and "wq-004" in tests.stdout
