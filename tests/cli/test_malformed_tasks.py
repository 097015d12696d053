"""Garbage task folders for `traj suite check`: every problem is one line naming the file,
never a traceback (split from test_malformed.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from trajectory.cli.main import app

runner = CliRunner()


# -- task files and suite folders ----------------------------------------------------------------------------


def good_task(id: str, **fields: Any) -> dict[str, Any]:
    base = {"id": id, "goal": "看看电量,只看", "apps": ["com.android.settings"], "category": "read",
            "partition": "tune", "requires": [], "expect": "succeeded",
            "checks": [{"type": "answer_grounded", "minItems": 1}], "maxSteps": 10, "timeoutSec": 120}
    return {**base, **fields}


def task_folder(tmp_path: Path) -> Path:
    root = tmp_path / "set"
    (root / "read").mkdir(parents=True)
    (root / "suite.json").write_text(json.dumps({"minCounts": {}, "holdoutShare": 0}))
    for i, part in enumerate(["tune", "tune", "holdout"]):
        (root / "read" / f"ok{i}.json").write_text(json.dumps(good_task(f"ok{i}", partition=part)))
    return root


def _deep_dirs(root: Path) -> None:
    p = root / "read"
    for _ in range(40):
        p = p / ("d" * 60)
    p.mkdir(parents=True)
    (p / "deep.json").write_text(json.dumps(good_task("deep", goal="")))


GARBAGE = [
    ("binary", lambda r: (r / "read" / "x.json").write_bytes(bytes(range(256)) * 3), "read/x.json: not valid JSON"),
    ("array", lambda r: (r / "read" / "x.json").write_text("[1, 2, 3]"), "read/x.json: a task is a JSON object"),
    ("string", lambda r: (r / "read" / "x.json").write_text('"task"'), "read/x.json: a task is a JSON object"),
    ("empty", lambda r: (r / "read" / "x.json").write_text(""), "read/x.json: not valid JSON"),
    ("missing-fields", lambda r: (r / "read" / "x.json").write_text('{"id": "x"}'), "read/x.json: Object missing required field"),
    ("wrong-types", lambda r: (r / "read" / "x.json").write_text(json.dumps(good_task("x", maxSteps="ten", apps="settings"))),
     "read/x.json: Expected"),
    ("checks-not-a-list", lambda r: (r / "read" / "x.json").write_text(json.dumps(good_task("x", checks={"type": "x"}))),
     "read/x.json: Expected `array`"),
    ("nan", lambda r: (r / "read" / "x.json").write_text(json.dumps(good_task("x", maxSteps=float("nan")))), "read/x.json: "),
    ("infinity", lambda r: (r / "read" / "x.json").write_text(json.dumps(good_task("x", timeoutSec=float("inf")))), "read/x.json: "),
    ("bom", lambda r: (r / "read" / "x.json").write_bytes(b"\xef\xbb\xbf" + json.dumps(good_task("x")).encode()), "read/x.json: "),
    ("lone-surrogate", lambda r: (r / "read" / "x.json").write_text('{"id": "\\ud800", "goal": "g"}'), "read/x.json: "),
    ("deep-nesting", lambda r: (r / "read" / "x.json").write_text("[" * 50_000 + "]" * 50_000), "read/x.json: not valid JSON"),
    ("deep-suite-json", lambda r: (r / "suite.json").write_text("{\"a\":" * 50_000 + "1" + "}" * 50_000), "suite.json: not valid JSON"),
    ("deep-capabilities", lambda r: (r / "capabilities.json").write_text("[" * 50_000 + "]" * 50_000), "capabilities.json:"),
    ("binary-capabilities", lambda r: (r / "capabilities.json").write_bytes(b"\xff\xfe\x00"), "capabilities.json:"),
    ("deep-folders", _deep_dirs, "deep.json: goal is empty"),
    ("dir-named-json", lambda r: (r / "read" / "x.json").mkdir(), None),
    ("suite-json-is-a-dir", lambda r: ((r / "suite.json").unlink(), (r / "suite.json").mkdir()), None),
    ("odd-file-name", lambda r: (Path(os.fsdecode(os.path.join(os.fsencode(r / "read"), b"\xff\xfe.json")))).write_text(
        json.dumps(good_task("x"))), "differs from the file name"),
    ("broken-symlink", lambda r: (r / "read" / "x.json").symlink_to(r / "nowhere.json"), None),
    ("symlink-loop", lambda r: (r / "read" / "loop").symlink_to(r / "read"), None),
    ("huge-goal", lambda r: (r / "read" / "x.json").write_text(json.dumps(good_task("x", goal="目" * 1_000_000))), None),
]


@pytest.mark.parametrize(("name", "make", "message"), GARBAGE, ids=[g[0] for g in GARBAGE])
def test_traj_suite_check_reports_garbage_without_crashing(tmp_path, name, make, message) -> None:
    root = task_folder(tmp_path)
    make(root)
    if name == "odd-file-name":
        # A process of its own: how a name that is not UTF-8 gets printed is what a person sees.
        p = subprocess.run([sys.executable, "-m", "trajectory.cli.main", "suite", "check", str(root)],
                           capture_output=True, text=True, errors="replace", timeout=120)
        code, out, crashed = p.returncode, p.stdout, "Traceback" in p.stderr
    else:
        r = runner.invoke(app, ["suite", "check", str(root)])
        code, out, crashed = r.exit_code, r.stdout, not isinstance(r.exception, (SystemExit, type(None)))
    assert not crashed and code in (0, 1), out
    if message is None:
        assert code == 0 or out.strip()
    else:
        assert code == 1 and message in out, out


def test_traj_suite_check_on_a_file_or_missing_folder(tmp_path) -> None:
    f = tmp_path / "tasks.json"
    f.write_text("{}")
    for target in (f, tmp_path / "missing"):
        r = runner.invoke(app, ["suite", "check", str(target)])
        assert r.exit_code == 1 and "no such folder" in r.output and isinstance(r.exception, SystemExit)
