"""Every code block of the README runs as written: the set-up commands, the tour (in an empty
folder), and the Recorder example (whose run is judged `pass`). Its links lead somewhere."""

from __future__ import annotations

from hang import HANG
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
TRAJ = [sys.executable, "-m", "trajectory.cli.main"]


def blocks() -> list[tuple[str, str, str]]:
    """(the section's heading, the block's language, its text) for every fenced block."""
    text = README.read_text(encoding="utf-8")
    out = []
    for m in re.finditer(r"^```(\w*)\n(.*?)^```", text, re.S | re.M):
        heading = re.findall(r"^## (.+)$", text[: m.start()], re.M)[-1]
        out.append((heading, m.group(1), m.group(2)))
    return out


def commands(body: str) -> list[str]:
    return [x[2:] for x in body.splitlines() if x.startswith("$ ")]


def tour() -> list[str]:
    return [c for h, lang, body in blocks() if h == "A tour" for c in commands(body)]


def env() -> dict[str, str]:
    e = {**os.environ, "TRAJ_USER": "tour"}
    e.pop("TRAJ_STORE", None)
    return e


#: Tour lines that exit 1 as the README says they do (the suite disagrees with a person).
EXITS_1 = ("traj suite check weather --store tour",)


def run(line: str, cwd: Path, code: int = 0) -> subprocess.CompletedProcess[str]:
    argv = shlex.split(line)
    argv = (TRAJ + argv[1:]) if argv[0] == "traj" else ([sys.executable] + argv[1:]) if argv[0] == "python" else argv
    result = subprocess.run(argv, cwd=cwd, env=env(), capture_output=True, text=True, timeout=300)
    assert result.returncode == code, f"$ {line}\n{result.stdout}\n{result.stderr}"
    return result


def test_every_code_block_is_fenced_and_run_by_a_test_here() -> None:
    text = README.read_text(encoding="utf-8")
    outside = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    # An indented block (after a blank line) would be a code block no test knows of.
    assert not re.search(r"\n\n(    |\t)\S", outside), "indented code block in README.md: fence it and run it here"
    kinds = [(h, lang) for h, lang, _ in blocks()]
    assert kinds == [("Set up", "console"), ("Set up", "console"), ("A tour", "console"),
                     ("Bringing your runs", "console"), ("Bringing your runs", "console"),  # test_readme_import.py
                     ("Bringing your runs", "python"),  # importers/test_import_formats.py: the SDK lines
                     ("Looking at runs: `traj view`", "console"),
                     ("Recording live", "python"), ("Recording live", "console"),
                     # test_the_scale_out_commands_run; the cluster by address: tests/system/test_ray.py
                     ("When one machine is not enough", "console"), ("When one machine is not enough", "console")], kinds


def test_the_links_lead_somewhere() -> None:
    text = README.read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text)
    assert "docs/events.md" in links and "docs/suites.md" in links and "docs/cli.md" in links
    for link in links:
        assert "://" in link or (ROOT / link).exists(), link
    # The event format the README cites is in the repository.
    assert "## The kinds" in (ROOT / "docs" / "events.md").read_text(encoding="utf-8")


def test_the_tour_has_about_thirty_lines() -> None:
    assert 12 <= len(tour()) <= 30


@pytest.mark.slow
@pytest.mark.parametrize("where", ["local", "s3"])
def test_the_tour_runs(tmp_path, where, request) -> None:
    """As written on a local folder; and with every store on S3 (a local S3 server), the same
    commands with ``--store s3://BUCKET/NAME``."""
    prefix = ""
    if where == "s3":
        request.getfixturevalue("s3_env")
        prefix = f"s3://{request.getfixturevalue('s3_server').bucket()}/"
    outputs: list[tuple[str, str]] = []
    for line in tour():
        assert line.startswith("traj ")
        argv = shlex.split(line)
        if prefix:
            argv = [prefix + a if i and argv[i - 1] == "--store" else a for i, a in enumerate(argv)]
        outputs.append((line, run(shlex.join(argv), tmp_path, 1 if line in EXITS_1 else 0).stdout))
    out = dict(outputs)
    ingests = [o for cmd, o in outputs if cmd.startswith("traj ingest")]
    assert re.search(r": [1-9][0-9]* new", ingests[0]) and ": 0 new" in ingests[1]
    assert (tmp_path / "report" / "summary.md").exists()
    assert (tmp_path / "shared" / "scores.jsonl").exists()
    show = next(o for cmd, o in outputs if "--json" in cmd and cmd.startswith("traj show"))
    assert '"run_id": "gui-careful-02"' in show
    # It reads as the README says: every verdict still stands, so judge finds nothing to judge,
    # and diff shows what the demo's last pass (its fix) changed; the run shows its verdict.
    assert "nothing to judge" in out["traj judge --store tour"]
    assert re.search(r"^diff p\S+ against each run's previous verdict: \d+ runs judged before, [1-9]\d* flips?",
                     out["traj diff --store tour"], re.M)
    assert "verdict: pass" in out["traj show gui-careful-02 --store tour --at 4"]
    # The person's pass of a run the judge fails: the pass and the suite check both name it.
    assert "1 verdict disagrees with a person's:\n  gui-sloppy-16" in out["traj judge --all --suite weather --store tour"]
    assert "gui-sloppy-16 (weather/IsRainyTomorrow): judge fail, ana said pass" in out[EXITS_1[0]]


def test_the_recorder_example_records_a_run_that_judges_pass(tmp_path) -> None:
    (python, console) = [body for h, lang, body in blocks() if h == "Recording live"]
    (tmp_path / "example.py").write_text(python, encoding="utf-8")
    run("python example.py", tmp_path)
    results = [run(line, tmp_path).stdout for line in commands(console)]
    assert "judged 1 run (1 pass)" in results[0]
    assert "verdict: pass" in results[1] and "actual \"20\"" in results[1]


@pytest.mark.slow
def test_the_set_up_commands_run_as_written(tmp_path) -> None:
    """The first set-up line runs in a copy of the repository (a fresh venv, an install, the
    demo). The second is the test suite itself: it must be exactly what .ci/run runs."""
    install, test = [commands(body)[0] for h, lang, body in blocks() if h == "Set up"]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()[-1]
    assert test == ci
    copy = tmp_path / "traj"
    shutil.copytree(ROOT, copy, ignore=shutil.ignore_patterns(
        ".git", ".venv", "*.egg-info", "__pycache__", "traj-store", ".pytest_cache", "eval"))
    e = env()
    venv = e.pop("VIRTUAL_ENV", None)
    if venv:
        e["PATH"] = os.pathsep.join(p for p in e["PATH"].split(os.pathsep) if not p.startswith(venv))
    p = subprocess.run(["bash", "-c", install], cwd=copy, env=e, capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    assert "== 3. what the fix changed" in p.stdout and (copy / "traj-store").is_dir()


def test_the_view_line_runs(tmp_path) -> None:
    """`traj demo && traj view` as written, but for the port: the test asks the system for a free
    one (the line's 8000 may be taken on a shared machine) and appends `--port N`."""
    import signal
    import socket
    import time
    import urllib.error
    import urllib.request

    (body,) = [body for h, lang, body in blocks() if h.startswith("Looking at runs")]
    (line,) = commands(body)
    line = line.split("#")[0].strip()
    assert line == "traj demo && traj view"
    demo, view = (shlex.split(x) for x in line.split("&&"))
    run(" ".join(demo), tmp_path)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    p = subprocess.Popen(TRAJ + view[1:] + ["--port", str(port)], cwd=tmp_path, env=env(),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        said = p.stdout.readline()
        assert f"at http://127.0.0.1:{port}/" in said, said
        for _ in range(300):  # the line comes as the server starts listening
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/diff", timeout=HANG) as page:
                    assert page.status == 200 and "flip" in page.read().decode()
                break
            except urllib.error.URLError:
                time.sleep(0.1)
        else:
            raise AssertionError("traj view never answered")
    finally:
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=HANG)
    assert "Traceback" not in err, err  # Ctrl-C is how a person stops it


def scale_out_block() -> list[str]:
    """The commands of "When one machine is not enough" (its first block)."""
    bodies = [body for h, lang, body in blocks() if h == "When one machine is not enough"]
    assert bodies, "README has no 'When one machine is not enough' section"
    return commands(bodies[0])


@pytest.mark.slow
def test_the_scale_out_commands_run(tmp_path) -> None:
    """As written, in bash, in an empty folder (the pip line aside: the test's environment has
    the extras), on a free port instead of 5000; the S3 server is stopped with the README's
    `kill %1`; nothing started here (moto, the two local Ray clusters) is left running."""
    import socket
    import tempfile
    import time
    import uuid

    lines = scale_out_block()
    assert lines[0].startswith("pip install -e '.[test,ray]'") and lines[1].startswith("moto_server -H 127.0.0.1")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    script = "\n".join(["set -euo pipefail", "trap 'kill %1' EXIT",
                        *(line.replace("5000", str(port)) for line in lines[1:])])
    mark = uuid.uuid4().hex
    ray_tmp = tempfile.mkdtemp(prefix="trajray-", dir="/tmp")  # short: Ray's socket paths are limited
    env = {**os.environ, "TRAJ_USER": "readme", "TRAJ_README_TEST": mark, "RAY_TMPDIR": ray_tmp,
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    for k in ("TRAJ_STORE", "RAY_ADDRESS", "AWS_ENDPOINT_URL", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        env.pop(k, None)
    try:
        r = subprocess.run(["bash", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=1200)
        assert r.returncode == 0, f"{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
        assert "weather" in r.stdout and "judged" in r.stdout and "0 flips" in r.stdout, r.stdout[-3000:]
        assert (tmp_path / "more" / "weather.jsonl").stat().st_size > 0
        deadline = time.monotonic() + HANG
        while (left := _marked(mark)) and time.monotonic() < deadline:
            time.sleep(0.5)
        assert not left, f"processes left running: {left}"
    finally:
        import shutil

        shutil.rmtree(ray_tmp, ignore_errors=True)


def _marked(mark: str) -> list[int]:
    """Processes whose environment carries TRAJ_README_TEST=mark."""
    found = []
    needle = f"TRAJ_README_TEST={mark}".encode()
    for d in Path("/proc").iterdir():
        try:
            if d.name.isdigit() and needle in (d / "environ").read_bytes().split(b"\0"):
                found.append(int(d.name))
        except OSError:
            continue
    return found
