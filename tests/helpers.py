"""Small builders shared by the platform tests."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any


def line(run_id: str, seq: int, kind: str, ts: int | str = 1775354400000, **fields: Any) -> str:
    return json.dumps({"run_id": run_id, "seq": seq, "ts": ts, "kind": kind, **fields}, ensure_ascii=False)


def example_run(run_id: str, answer: str = "北京现在20度", *, city: str = "北京", finished: bool = True,
                mode: str = "text", batch: str = "b1", task: str = "current_temp") -> list[str]:
    state = {"apps": {"weather": {"cities": {"北京": {"temp": 20, "humidity": 40}, "上海": {"temp": 25, "humidity": 70}}}}}
    out = [
        line(run_id, 0, "run_started", suite="example", task=task, params={"city": city}, mode=mode,
             batch=batch, state=state, agent={"name": "a", "model": "m"}),
        line(run_id, 1, "step_taken", action="open_app", args={"app": "weather"},
             usage={"input_tokens": 100, "output_tokens": 10}, timing={"model_ms": 500, "act_ms": 100}),
        line(run_id, 2, "screen_read", text=f"{city} 20° 多云", app="weather", route={"app": "weather", "path": "/"}),
    ]
    if mode == "text":
        out.append(line(run_id, 3, "answer_given", text=answer))
    else:
        out.append(line(run_id, 3, "sheet_changed", op="set", field=0, value=answer))
        out.append(line(run_id, 4, "sheet_changed", op="submit"))
    if finished:
        out.append(line(run_id, len(out), "run_finished", outcome="succeeded"))
    return out


def jsonl(lines: list[str]) -> bytes:
    return ("\n".join(lines) + "\n").encode()


# -- the command ---------------------------------------------------------------------------------

TRAJ = [sys.executable, "-m", "trajectory.cli.main"]


def traj(*args: Any, input: bytes | str | None = None, strict: bool = True):  # noqa: ANN201 - click's Result
    """``traj ARGS`` in this process (typer's runner): ``.exit_code``, ``.stdout`` and ``.stderr``
    apart, ``.output`` both. With ``strict``, an exception other than the command's own exit
    fails the test with the command and what it printed (a crash is never an exit code to
    compare). Imported when called: tests/core never loads the CLI."""
    from typer.testing import CliRunner

    from trajectory.cli.main import app

    r = CliRunner().invoke(app, [str(a) for a in args], input=input)
    if strict:
        assert r.exception is None or isinstance(r.exception, SystemExit), (args, r.output, r.exception)
    return r


def traj_proc(*args: Any, cwd: Path | str | None = None, input: bytes | str | None = None, prefix: list[str] | None = None,
              timeout: float = 300) -> subprocess.CompletedProcess:
    """``traj ARGS`` as a person runs it: its own process (after ``prefix``, e.g. a wrapper that
    fails its writes), its exit status; text unless ``input`` is bytes. For tests about the
    process itself (its command line, exit status, signals); the rest call :func:`traj`."""
    env = {**os.environ, "TRAJ_USER": "tester"}
    env.pop("TRAJ_STORE", None)
    return subprocess.run([*(prefix or []), *TRAJ, *map(str, args)], cwd=cwd, env=env, capture_output=True,
                          timeout=timeout, input=input, text=not isinstance(input, bytes))
