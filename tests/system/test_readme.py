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


def env(base: dict[str, str] | None = None) -> dict[str, str]:
    e = {**(os.environ if base is None else base), "TRAJ_USER": "tour"}
    e.pop("TRAJ_STORE", None)
    return e


#: Tour lines that exit 1 as the README says they do (the suite disagrees with a person).
EXITS_1 = ("traj suite check weather --store tour",)


def run(line: str, cwd: Path, code: int = 0, base: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    argv = shlex.split(line)
    argv = (TRAJ + argv[1:]) if argv[0] == "traj" else ([sys.executable] + argv[1:]) if argv[0] == "python" else argv
    result = subprocess.run(argv, cwd=cwd, env=env(base), capture_output=True, text=True, timeout=300)
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


# -- the long chains, side by side ---------------------------------------------------------------
# Five tests below each run a chain of commands that takes minutes: the tour (twice), the set-up
# line, the view line and the scale-out block. The chains are independent (each has its own
# folder, store, bucket, port and Ray folder) and wait much of the time (on pip, on the S3
# server, on Ray starting), so the module starts the selected ones when the first of them
# begins, LANES at a time, the longest first (tests/side_by_side.py); each test waits for its
# own and makes its assertions on what it printed. Within a chain the commands run as before:
# one after the other, as written, each in a process of its own.

#: Chains at once: as the suite runs three workers on two cores (pyproject.toml), no more, so
#: that a command takes at most about as long as it would in the suite's other workers.
LANES = 3


@pytest.fixture(scope="module")
def chains(request, tmp_path_factory):
    """The five chains by their tests' names; each test collects its own with ``.result(name)``."""
    from side_by_side import Chains

    # Taken once: the chains run while other tests change os.environ (monkeypatch). The store
    # and spool settings are those tests/conftest.py gives every test (_no_env_store).
    base = {**os.environ, "TRAJ_SPOOL": str(tmp_path_factory.getbasetemp() / "spool"), "TRAJ_USER": "tester"}
    for k in ("TRAJ_STORE", "TRAJ_LLM_BASE_URL"):
        base.pop(k, None)
    mine = [item.name for item in request.session.items if getattr(item, "module", None) is request.module]
    # The session's S3 server (a fixture: taken here, not in a chain's thread), if the S3 tour runs.
    s3 = request.getfixturevalue("s3_server") if "test_the_tour_runs[s3]" in mine else None
    folder = {name: tmp_path_factory.mktemp(name) for name in ("tour-local", "tour-s3", "set-up", "view", "scale-out")}
    found = Chains({  # the longest first
        "test_the_tour_runs[s3]": lambda: run_tour(folder["tour-s3"], {**base, **s3.env()}, f"s3://{s3.bucket()}/"),
        "test_the_tour_runs[local]": lambda: run_tour(folder["tour-local"], base),
        "test_the_set_up_commands_run_as_written": lambda: run_set_up(folder["set-up"], base),
        "test_the_scale_out_commands_run": lambda: run_scale_out(folder["scale-out"], base),
        "test_the_view_line_runs": lambda: run_view_line(folder["view"], base),
    }, start=mine if together(request) else (), lanes=LANES)
    try:
        yield found
    finally:
        found.wait()


def together(request) -> bool:
    """Whether this process runs every test of the module, so that it may start all their chains
    at once: one process, or pytest-xdist handing out whole files or modules (otherwise each
    chain starts when its test does)."""
    return request.config.getoption("dist", "no") in ("no", "loadfile", "loadscope")


def run_tour(folder: Path, base: dict[str, str], prefix: str = "") -> tuple[Path, list[tuple[str, str]]]:
    """The tour's lines in order, in ``folder`` (empty), with ``prefix`` before every store: what
    each printed. A line that exits otherwise than the README says ends the tour there."""
    outputs: list[tuple[str, str]] = []
    for line in tour():
        assert line.startswith("traj ")
        argv = shlex.split(line)
        if prefix:
            argv = [prefix + a if i and argv[i - 1] == "--store" else a for i, a in enumerate(argv)]
        outputs.append((line, run(shlex.join(argv), folder, 1 if line in EXITS_1 else 0, base).stdout))
    return folder, outputs


@pytest.mark.slow
@pytest.mark.parametrize("where", ["local", "s3"])
def test_the_tour_runs(chains, where, request) -> None:
    """As written on a local folder; and with every store on S3 (a local S3 server), the same
    commands with ``--store s3://BUCKET/NAME``."""
    folder, outputs = chains.result(request.node.name)
    out = dict(outputs)
    ingests = [o for cmd, o in outputs if cmd.startswith("traj ingest")]
    assert re.search(r": [1-9][0-9]* new", ingests[0]) and ": 0 new" in ingests[1]
    assert (folder / "report" / "summary.md").exists()
    assert (folder / "shared" / "scores.jsonl").exists()
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


def set_up_lines() -> list[str]:
    """The first command of each "Set up" block: the install line and the test line."""
    return [commands(body)[0] for h, lang, body in blocks() if h == "Set up"]


def run_set_up(tmp_path: Path, base: dict[str, str]) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """The install line, in bash, in a copy of the repository, outside this test's venv."""
    install, _ = set_up_lines()
    copy = tmp_path / "traj"
    shutil.copytree(ROOT, copy, ignore=shutil.ignore_patterns(
        ".git", ".venv", "*.egg-info", "__pycache__", "traj-store", ".pytest_cache", "eval"))
    e = env(base)
    venv = e.pop("VIRTUAL_ENV", None)
    if venv:
        e["PATH"] = os.pathsep.join(p for p in e["PATH"].split(os.pathsep) if not p.startswith(venv))
    return copy, subprocess.run(["bash", "-c", install], cwd=copy, env=e, capture_output=True, text=True, timeout=900)


@pytest.mark.slow
def test_the_set_up_commands_run_as_written(chains, request) -> None:
    """The first set-up line runs in a copy of the repository (a fresh venv, an install, the
    demo). The second is the test suite itself: it must be exactly what .ci/run runs."""
    install, test = set_up_lines()
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()[-1]
    assert test == ci
    copy, p = chains.result(request.node.name)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    assert "== 3. what the fix changed" in p.stdout and (copy / "traj-store").is_dir()


def view_line() -> str:
    (body,) = [body for h, lang, body in blocks() if h.startswith("Looking at runs")]
    (line,) = commands(body)
    return line.split("#")[0].strip()


def run_view_line(tmp_path: Path, base: dict[str, str]) -> str:
    """The view line in ``tmp_path``: the demo, then `traj view` until its diff page answers with
    the flips; then Ctrl-C. What the viewer wrote to stderr."""
    import signal
    import socket
    import time
    import urllib.error
    import urllib.request

    demo, view = (shlex.split(x) for x in view_line().split("&&"))
    run(" ".join(demo), tmp_path, base=base)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    p = subprocess.Popen(TRAJ + view[1:] + ["--port", str(port)], cwd=tmp_path, env=env(base),
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
    return err


def test_the_view_line_runs(chains, request) -> None:
    """`traj demo && traj view` as written, but for the port: the test asks the system for a free
    one (the line's 8000 may be taken on a shared machine) and appends `--port N`."""
    assert view_line() == "traj demo && traj view"
    err = chains.result(request.node.name)
    assert "Traceback" not in err, err  # Ctrl-C is how a person stops it


def scale_out_block() -> list[str]:
    """The commands of "When one machine is not enough" (its first block)."""
    bodies = [body for h, lang, body in blocks() if h == "When one machine is not enough"]
    assert bodies, "README has no 'When one machine is not enough' section"
    return commands(bodies[0])


def run_scale_out(tmp_path: Path, base: dict[str, str]) -> tuple[Path, subprocess.CompletedProcess[str], list[int]]:
    """The block but its pip line, in bash, in ``tmp_path`` (empty), on a free port instead of
    5000; then, once every process it started has ended (or the hang timeout), those left."""
    import socket
    import tempfile
    import time
    import uuid

    lines = scale_out_block()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    script = "\n".join(["set -euo pipefail", "trap 'kill %1' EXIT",
                        *(line.replace("5000", str(port)) for line in lines[1:])])
    mark = uuid.uuid4().hex
    ray_tmp = tempfile.mkdtemp(prefix="trajray-", dir="/tmp")  # short: Ray's socket paths are limited
    env = {**base, "TRAJ_USER": "readme", "TRAJ_README_TEST": mark, "RAY_TMPDIR": ray_tmp,
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{base['PATH']}"}
    for k in ("TRAJ_STORE", "RAY_ADDRESS", "AWS_ENDPOINT_URL", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        env.pop(k, None)
    try:
        r = subprocess.run(["bash", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=1200)
        deadline = time.monotonic() + HANG
        while (left := _marked(mark)) and time.monotonic() < deadline:
            time.sleep(0.5)
        return tmp_path, r, left
    finally:
        shutil.rmtree(ray_tmp, ignore_errors=True)


@pytest.mark.slow
def test_the_scale_out_commands_run(chains, request) -> None:
    """As written, in bash, in an empty folder (the pip line aside: the test's environment has
    the extras), on a free port instead of 5000; the S3 server is stopped with the README's
    `kill %1`; nothing started here (moto, the two local Ray clusters) is left running."""
    lines = scale_out_block()
    assert lines[0].startswith("pip install -e '.[test,ray]'") and lines[1].startswith("moto_server -H 127.0.0.1")
    tmp_path, r, left = chains.result(request.node.name)
    assert r.returncode == 0, f"{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    assert "weather" in r.stdout and "judged" in r.stdout and "0 flips" in r.stdout, r.stdout[-3000:]
    assert (tmp_path / "more" / "weather.jsonl").stat().st_size > 0
    assert not left, f"processes left running: {left}"


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
