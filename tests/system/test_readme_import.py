"""The README's "Bringing your runs" commands run as written, on an Inspect log and an OTLP file."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"

MY_SCORERS = '''
import importlib.util
from pathlib import Path

from inspect_ai.scorer import includes, match, model_graded_qa

_spec = importlib.util.spec_from_file_location("capital_scorers", Path(__file__).parent / "logs" / "capital_scorers.py")
_own = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_own)


def capitals_scorers():
    return [match(), includes(), model_graded_qa(), _own.exact_capital()]
'''


def commands() -> list[str]:
    text = README.read_text(encoding="utf-8")
    section = re.search(r"## Bringing your runs(.*?)\n## ", text, re.S)
    assert section, "README has no 'Bringing your runs' section"
    blocks = re.findall(r"```console\n(.*?)```", section.group(1), re.S)
    return [line[2:] for block in blocks for line in block.splitlines() if line.startswith("$ ")]


def test_the_section_names_both_importers() -> None:
    cmds = commands()
    assert any(c.startswith("traj import inspect") for c in cmds)
    assert any(c.startswith("traj import otel") for c in cmds)


@pytest.mark.slow
def test_the_commands_run(tmp_path) -> None:
    pytest.importorskip("inspect_ai")
    from inspect_logs import capitals_log
    from otel_traces import agent_trace, evaluation, jsonl

    (tmp_path / "logs").mkdir()
    capitals_log(tmp_path / "logs")
    (tmp_path / "my_scorers.py").write_text(MY_SCORERS)
    (tmp_path / "traces.jsonl").write_text(jsonl(agent_trace(
        "4bf92f3577b34da6a3ce929d0e0e4736", evals=[evaluation("correctness", 950, score=1.0)])))
    env = {**os.environ, "TRAJ_USER": "readme"}
    env.pop("TRAJ_STORE", None)
    outputs = []
    for line in commands():
        argv = shlex.split(line)
        assert argv[0] == "traj"
        r = subprocess.run([sys.executable, "-m", "trajectory.cli.main", *argv[1:]], cwd=tmp_path, env=env,
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, f"$ {line}\n{r.stdout}\n{r.stderr}"
        outputs.append(r.stdout)
    assert "8 new runs" in outputs[0]
    assert "0 flips" in outputs[3]  # the log's own scorers agree with the log
    assert "pass" in outputs[4] and "error" in outputs[4]
    assert "1 new run (" in outputs[5] and "imported pass" in outputs[5]
