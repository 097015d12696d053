"""Issue 24, section 5: every importer is bounded like ingest. Attack inputs (a zip bomb, JSON
nested 100k deep, /dev/zero, a FIFO, a key given twice) are refused in one line naming the file,
without a traceback and without reading for ever. Each command runs in its own process with a
3 GiB address-space limit and one generous timeout, so an unbounded reader fails the test
instead of the machine."""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from otel_sdk import OTLPJsonFile, provider, weather_agent
from selfevo_helpers import good_steps
from selfevo_helpers import traj as trajectory

MOBILEGYM = Path(__file__).resolve().parents[1] / "data" / "mobilegym_run"
DEEP = 100_000


def _bounded() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (3 * 1024**3, 3 * 1024**3))


def run(*args: object) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run([sys.executable, "-m", "trajectory.cli.main", *map(str, args)], capture_output=True,
                              text=True, timeout=300, preexec_fn=_bounded, env={**os.environ, "TRAJ_USER": "t"})
    except subprocess.TimeoutExpired:
        pytest.fail(f"traj {' '.join(map(str, args))} still reading after 300 s")


def one_line(r: subprocess.CompletedProcess[str], path: Path | str, *words: str) -> str:
    assert r.returncode == 1, r.stdout + r.stderr
    assert "Traceback" not in r.stderr and "MemoryError" not in r.stderr, r.stderr
    errors = [x for x in (r.stdout + r.stderr).splitlines() if x.startswith("error:")]
    assert len(errors) == 1, r.stdout + r.stderr
    assert errors[0].startswith(f"error: {path}"), errors[0]
    for w in words:
        assert w in errors[0], errors[0]
    return errors[0]


def otlp_line(tmp: Path) -> str:
    path = tmp / "one.jsonl"
    weather_agent(provider(OTLPJsonFile(path)).get_tracer("agents"))
    return path.read_text().splitlines()[0]


def mobilegym_copy(tmp: Path) -> Path:
    folder = tmp / "run"
    shutil.copytree(MOBILEGYM, folder)
    return folder


# -- files that never end or block ----------------------------------------------------------


def test_a_fifo_is_refused_by_every_importer(tmp_path) -> None:
    for name in ("fifo.jsonl", "fifo.eval", "fifo.json"):
        os.mkfifo(tmp_path / name)
    store = tmp_path / "store"
    one_line(run("import", "otel", tmp_path / "fifo.jsonl", "--store", store), tmp_path / "fifo.jsonl", "FIFO")
    one_line(run("import", "selfevo", tmp_path / "fifo.jsonl", "--store", store), tmp_path / "fifo.jsonl", "FIFO")
    pytest.importorskip("inspect_ai")
    for name in ("fifo.eval", "fifo.json"):
        one_line(run("import", "inspect", tmp_path / name, "--store", store), tmp_path / name, "FIFO")
    folder = mobilegym_copy(tmp_path)
    (folder / "results.jsonl").unlink()
    os.mkfifo(folder / "results.jsonl")
    one_line(run("import", "mobilegym", folder, "--store", store), folder / "results.jsonl", "FIFO")


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_dev_zero_is_refused_by_every_importer(tmp_path) -> None:
    store = tmp_path / "store"
    for importer in ("otel", "selfevo", "inspect"):
        one_line(run("import", importer, "/dev/zero", "--store", store), "/dev/zero", "character device")
    folder = mobilegym_copy(tmp_path)
    (folder / "meta.json").unlink()
    (folder / "meta.json").symlink_to("/dev/zero")
    one_line(run("import", "mobilegym", folder, "--store", store), folder / "meta.json", "character device")


# -- a zip bomb and deep nesting --------------------------------------------------------------


def test_a_zip_bomb_eval_is_refused_before_it_unpacks(tmp_path) -> None:
    pytest.importorskip("inspect_ai")
    bomb = tmp_path / "bomb.eval"
    with zipfile.ZipFile(bomb, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        z.writestr("header.json", json.dumps({"version": 2, "status": "success", "eval": {}}))
        z.writestr("samples/1_epoch_1.json", b"[" + b" " * (400 * 1024**2) + b"]")
    assert bomb.stat().st_size < 2 * 1024**2
    one_line(run("import", "inspect", bomb, "--store", tmp_path / "store"), bomb, "samples/1_epoch_1.json",
             "times its size", "over the limit of 200")


def test_nesting_100k_deep_is_refused_by_every_importer(tmp_path) -> None:
    deep = "[" * DEEP + "]" * DEEP
    store = tmp_path / "store"
    otel = tmp_path / "deep.jsonl"
    otel.write_text(json.dumps({"resourceSpans": "X"}).replace('"X"', deep) + "\n")
    one_line(run("import", "otel", otel, "--store", store), otel, "nesting deeper than the limit of 64")
    selfevo = tmp_path / "deep_selfevo.jsonl"
    selfevo.write_text(json.dumps({**trajectory("task-01", good_steps()), "x": "X"}).replace('"X"', deep) + "\n")
    one_line(run("import", "selfevo", selfevo, "--store", store), f"{selfevo}:1", "nesting deeper than the limit of 64")
    folder = mobilegym_copy(tmp_path)
    meta = json.loads((folder / "meta.json").read_text())
    (folder / "meta.json").write_text(json.dumps({**meta, "x": "X"}).replace('"X"', deep))
    one_line(run("import", "mobilegym", folder, "--store", store), folder / "meta.json",
             "nesting deeper than the limit of 64")
    pytest.importorskip("inspect_ai")
    log = tmp_path / "deep.json"
    log.write_text(json.dumps({"version": 2, "status": "success", "eval": {}, "x": "X"}).replace('"X"', deep))
    assert log.stat().st_size < 250_000
    one_line(run("import", "inspect", log, "--store", store), log, "nesting deeper than the limit of 64")


# -- a key given twice ------------------------------------------------------------------------


def test_a_key_given_twice_is_refused_naming_file_line_and_key(tmp_path) -> None:
    store = tmp_path / "store"
    first = json.dumps(trajectory("task-01", good_steps()))
    doubled = first.replace('"task_id": "task-01"', '"task_id": "task-01", "task_id": "task-02"', 1)
    selfevo = tmp_path / "dup.jsonl"
    selfevo.write_text(first.replace("task-01", "task-03") + "\n" + doubled + "\n")
    one_line(run("import", "selfevo", selfevo, "--store", store), f"{selfevo}:2: $: key \"task_id\" given twice")

    line = otlp_line(tmp_path)
    trace = json.loads(line)["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["traceId"]
    otel = tmp_path / "dup_otel.jsonl"
    otel.write_text(line.replace(f'"traceId": "{trace}"', f'"traceId": "{trace}", "traceId": "{"A" * 22}=="', 1) + "\n")
    one_line(run("import", "otel", otel, "--store", store),
             f"{otel}:1: $.resourceSpans[0].scopeSpans[0].spans[0]: key \"traceId\" given twice")

    folder = mobilegym_copy(tmp_path)
    lines = (folder / "results.jsonl").read_text().splitlines()
    lines[1] = lines[1].replace('{"id": ', '{"trial_id": 7, "id": ', 1)
    (folder / "results.jsonl").write_text("\n".join(lines) + "\n")
    one_line(run("import", "mobilegym", folder, "--store", store),
             f"{folder / 'results.jsonl'}:2: $: key \"trial_id\" given twice")
    for r in (run("runs", "--store", store, "--json"),):
        assert "task-02" not in r.stdout and "trial" not in r.stdout  # nothing of the refused files
