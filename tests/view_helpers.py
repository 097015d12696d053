"""Shared by the `traj view` tests: the runs they follow in the demo store (built once per session
by tests/conftest.py), a free port, and a
live `traj view` process on 127.0.0.1 that the tests start and stop."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path



# The failing run the tests follow: its AnswerSheet gets field 0 at seq 5 and field 1 at seq 7.
FAILING_RUN = "gui-sloppy-13"
# A run whose verdict a person overrode (the evidence is quoted from its screen).
OVERRIDDEN_RUN = "gui-sloppy-15"
OVERRIDE_EVIDENCE = "18:45 健身(关)"
# The flip the demo's fix causes whose evidence is AnswerSheet field 0 at seq 5.
FLIP_RUN = "gui-careful-02"
HOLDOUT_RUN = "device-careful-11-weread-book-rating"

def copy_store(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    return dst


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LiveView:
    """`traj view` in a subprocess on 127.0.0.1; ``url`` once it answers; ``stop()`` ends it."""

    def __init__(self, store: Path | str, *args: str, env: dict[str, str] | None = None):
        self.store = store
        self.port = free_port()
        exe = shutil.which("traj", path=os.path.dirname(sys.executable))
        argv = [exe] if exe else [sys.executable, "-m", "trajectory.cli.main"]
        self.proc = subprocess.Popen(
            [*argv, "view", "--store", str(store), "--port", str(self.port), *args],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        )
        self.url = f"http://127.0.0.1:{self.port}"
        self.started_in = self._wait()
        assert self.proc.stdout is not None
        self.banner = self.proc.stdout.readline()

    def _wait(self, timeout: float = 30.0) -> float:
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < timeout:
            if self.proc.poll() is not None:
                raise RuntimeError(f"traj view exited {self.proc.returncode}: {self.proc.stderr.read() if self.proc.stderr else ''}")
            try:
                with urllib.request.urlopen(self.url + "/api/health", timeout=2) as r:
                    if r.status == 200:
                        return time.perf_counter() - t0
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError("traj view did not answer within 30 s")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()


def long_run(run_id: str, events: int, items: int = 50) -> list[str]:
    """One run of ``events`` events (JSON lines) over a world state of ``items`` notes: steps,
    screens, state patches and AnswerSheet values in turn, then run_finished; its last values
    are known: note k holds the seq of its last patch, field 0 the seq of the last set."""
    import json

    def ev(seq: int, kind: str, **fields: object) -> str:
        return json.dumps({"run_id": run_id, "seq": seq, "ts": 1775354400000 + seq, "kind": kind, **fields},
                          ensure_ascii=False)

    state = {"apps": {"notes": {"items": [{"id": k, "text": f"note {k}", "v": -1} for k in range(items)]}}}
    out = [ev(0, "run_started", suite="example", task="current_temp", params={"city": "北京"}, mode="grounded",
              batch="long", state=state, agent={"name": "a", "model": "m"})]
    for seq in range(1, events - 1):
        turn = seq % 4
        if turn == 0:
            out.append(ev(seq, "step_taken", action="tap", args={"x": seq % 1000, "y": 7},
                          usage={"input_tokens": 10, "output_tokens": 1}))
        elif turn == 1:
            out.append(ev(seq, "screen_read", text=f"screen {seq} 北京 20°", app="notes",
                          route={"app": "notes", "path": f"/{seq % 9}"}))
        elif turn == 2:
            out.append(ev(seq, "state_changed", patch=[{"op": "replace", "path": f"/apps/notes/items/{seq % items}/v",
                                                        "value": seq}]))
        else:
            out.append(ev(seq, "sheet_changed", op="set", field=seq % 3, value=f"value at {seq}"))
    out.append(ev(events - 1, "run_finished", outcome="succeeded"))
    return out
