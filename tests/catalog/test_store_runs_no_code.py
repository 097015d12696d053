"""Issue 24 item 1: a store is data; opening one runs no code.

The attack: someone who can write a shared store appends suite registrations naming their own
Python code: a suite package, Inspect scorers, and a package under a bundled suite's name
(``example``). Each writes a marker file when it is imported. Every command that reads the
store must leave no marker; ``traj judge`` (and ``--dry-run``, ``traj suite check``) must name
the untrusted suite and how to trust it, and judge nothing of it, until the person judging
trusts it on their own machine.
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pytest

from helpers import example_run, jsonl, line, traj
from judging.test_poisoned_runs import plant
from trajectory.store.delta import Store, now_utc


def hostile_code(tmp_path: Path, tag: str) -> tuple[Path, Path, str, Path]:
    """A suite package and a scorer module that each leave a marker when imported: the
    package's folder, the scorers' root, their module name, and the marker."""
    marker = tmp_path / f"imported-{tag}"
    pkg = tmp_path / f"pkg_{tag}"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(
        f"from pathlib import Path\nPath({str(marker)!r}).write_text('package ran')\n"
        "def load(path=None):\n    from suites.example import load\n    return load()\n", encoding="utf-8")
    root = tmp_path / f"scorers_{tag}"
    root.mkdir()
    module = f"hostile_scorers_{tag}"
    (root / f"{module}.py").write_text(
        f"from pathlib import Path\nPath({str(marker)!r}).write_text('scorers ran')\n"
        "def scorers():\n    return []\n", encoding="utf-8")
    return pkg, root, module, marker


def raw_registration(store: Store, name: str, data: dict, by: str = "mallory") -> None:
    """A registration row as anyone with write access appends it (no traj command refuses it)."""
    row = {"kind": ["suite"], "key": [name], "at": [now_utc()], "by": [by], "data": [json.dumps(data)]}
    store.append("meta", pa.table(row))


def evil_run(run_id: str, suite: str) -> list[str]:
    return [line(run_id, 0, "run_started", suite=suite, task="t1", batch="b1", agent={"name": "a", "model": "m"}),
            line(run_id, 1, "answer_given", text="x"),
            line(run_id, 2, "run_finished", outcome="succeeded")]


@pytest.fixture
def attacked(tmp_path):
    sdir = str(tmp_path / "store")
    f = tmp_path / "runs.jsonl"
    f.write_bytes(jsonl(example_run("r1") + evil_run("e1", "team")))
    assert traj("ingest", str(f), "--store", sdir).exit_code == 0
    store = Store(sdir)
    # Runs stored without a pool (as an older traj wrote them): reading asks the suites for
    # their tasks' pools, which is where a registered suite used to be imported.
    plant(store, evil_run("e2", "team") + evil_run("s1", "graders"))
    pkg, root, module, marker = hostile_code(tmp_path, "a")
    raw_registration(store, "team", {"path": str(pkg)})
    raw_registration(store, "graders", {"path": f"{module}:scorers", "scorers": f"{module}:scorers",
                                        "root": str(root)})
    raw_registration(store, "example", {"path": str(pkg)})  # over a bundled suite's name
    raw_registration(store, "weather", {"path": str(pkg)})  # over a name the bundled gui suite judges
    return sdir, store, marker, pkg, tmp_path


def test_reading_a_store_imports_no_registered_code(attacked) -> None:
    sdir, store, marker, _, tmp_path = attacked
    reads = [
        ("runs", "--store", sdir),
        ("runs", "--json", "--store", sdir),
        ("show", "e2", "--store", sdir),
        ("show", "r1", "--store", sdir),
        ("query", "SELECT run_id, split FROM events", "--store", sdir),
        ("query", "SELECT * FROM runs", "--split", "holdout", "--store", sdir),
        ("export", "events", "--out", str(tmp_path / "out.jsonl"), "--store", sdir),
        ("report", "--batch", "b1", "--out", str(tmp_path / "rep"), "--store", sdir),
        ("diff", "--store", sdir),
        ("passes", "--store", sdir),
        ("status", "--store", sdir),
        ("suite", "list", "--store", sdir),
        ("view", "--static", str(tmp_path / "site"), "--store", sdir),
    ]
    for args in reads:
        r = traj(*args)
        assert not marker.exists(), (args, marker.read_text())
        assert r.exit_code in (0, 1) and "Traceback" not in r.output, (args, r.output)
    f = tmp_path / "more.jsonl"
    f.write_bytes(jsonl(evil_run("e3", "team")))
    assert traj("ingest", str(f), "--store", sdir).exit_code == 0  # its pool: data, not code
    assert not marker.exists()
    r = traj("suite", "list", "--store", sdir)
    assert "team" in r.output and "not trusted" in r.output, r.output
    r = traj("report", "--suite", "team", "--store", sdir)
    assert r.exit_code != 0 and "traj suite trust team --store" in r.output and not marker.exists(), r.output


def test_a_registration_over_a_bundled_name_is_ignored_with_a_warning(attacked) -> None:
    sdir, store, marker, pkg, _ = attacked
    r = traj("judge", "--run", "r1", "--store", sdir)
    assert r.exit_code == 0 and "1 pass" in r.output, r.output  # the bundled example judged it
    warnings = [x for x in r.output.splitlines() if x.startswith("warning:") and "bundled" in x]
    assert len(warnings) == 2 and any("'example'" in w for w in warnings) and any("'weather'" in w for w in warnings)
    assert not marker.exists()
    r = traj("suite", "add", "example", str(pkg), "--store", sdir)
    assert r.exit_code != 0 and "bundled" in r.output and not marker.exists(), r.output
    r = traj("suite", "add", "clock", str(pkg), "--store", sdir)
    assert r.exit_code != 0 and "bundled" in r.output and not marker.exists(), r.output


@pytest.mark.parametrize("dry_run", [False, True])
def test_judging_refuses_an_untrusted_suite_until_it_is_trusted(attacked, dry_run) -> None:
    sdir, store, marker, pkg, tmp_path = attacked
    extra = ("--dry-run",) if dry_run else ()
    r = traj("judge", *extra, "--store", sdir)
    assert r.exit_code == 1, r.output
    assert not marker.exists()
    for name in ("team", "graders"):
        assert f"traj suite trust {name} --store {store.loc}" in r.output, r.output
    assert "3 runs of untrusted suites left unjudged" in r.output
    judged = {v["run_id"] for v in store.read("verdicts").to_pylist()} if store.has_table("verdicts") else set()
    assert judged == (set() if dry_run else {"r1"})  # nothing of theirs: no error verdict either
    r = traj("suite", "check", "team", "--store", sdir)
    assert r.exit_code != 0 and "traj suite trust team" in r.output and not marker.exists(), r.output

    r = traj("suite", "trust", "team", "--store", sdir)
    assert r.exit_code == 0 and str(pkg) in r.output and "mallory" in r.output, r.output
    assert not marker.exists()  # trusting reads the registration, it runs nothing
    r = traj("judge", *extra, "--suite", "team", "--store", sdir)
    # Trusted, its code is imported (the marker); the planted package has no task t1, so its runs
    # are left unjudged with that said, and a pass that judged nothing exits 1.
    assert marker.read_text() == "package ran", r.output
    assert r.exit_code == 1 and "suite 'team' has no such task" in r.output, r.output

    # Trust is per folder: the same name registered to other code is not trusted by it.
    pkg2, _, _, marker2 = hostile_code(tmp_path, "b")
    raw_registration(store, "team", {"path": str(pkg2)})
    r = traj("judge", *extra, "--suite", "team", "--all", "--store", sdir)
    assert r.exit_code == 1 and f"traj suite trust team --store {store.loc}" in r.output and not marker2.exists()


def test_trust_is_per_store_and_kept_in_the_users_configuration(attacked, tmp_path, monkeypatch) -> None:
    sdir, store, marker, pkg, _ = attacked
    assert traj("suite", "trust", "team", "--store", sdir).exit_code == 0
    import os

    trust_file = Path(os.environ["XDG_CONFIG_HOME"]) / "traj" / "trust.json"
    entries = json.loads(trust_file.read_text(encoding="utf-8"))["trusted"]
    mine = [(e["suite"], e["where"], e["kind"]) for e in entries if e["store"] == str(store.loc)]
    assert mine == [("team", str(pkg), "folder")]
    # Another store naming the same folder under the same name is not trusted by it.
    other = tmp_path / "other"
    f = tmp_path / "o.jsonl"
    f.write_bytes(jsonl(evil_run("e9", "team")))
    assert traj("ingest", str(f), "--store", str(other)).exit_code == 0
    raw_registration(Store(str(other)), "team", {"path": str(pkg)})
    r = traj("judge", "--store", str(other))
    assert r.exit_code == 1 and "traj suite trust team" in r.output and not marker.exists(), r.output
    # Another user (another configuration) trusts nothing of it.
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "someone-else"))
    r = traj("judge", "--store", sdir)
    assert r.exit_code == 1 and not marker.exists(), r.output


def test_suite_add_trusts_what_it_adds_and_stores_what_reading_needs(tmp_path) -> None:
    """A task set with a holdout task: its pool is stored with the registration, so a run
    stored without one is read as holdout without the suite being loaded again."""
    sdir = str(tmp_path / "store")
    f = tmp_path / "runs.jsonl"
    f.write_bytes(jsonl(example_run("r1")))
    assert traj("ingest", str(f), "--store", sdir).exit_code == 0
    pkg, _, _, marker = hostile_code(tmp_path, "mine")
    (pkg / "__init__.py").write_text(
        (pkg / "__init__.py").read_text(encoding="utf-8").replace(
            "    return load()",
            "    s = load()\n    s.task_split = lambda t: 'holdout' if t == 'current_temp' else None\n    return s"),
        encoding="utf-8")
    r = traj("suite", "add", "mine", str(pkg), "--store", sdir)
    assert r.exit_code == 0 and marker.exists(), r.output  # adding it is running it, by its owner
    marker.unlink()
    data = [json.loads(m["data"]) for m in Store(sdir).read("meta").to_pylist() if m["kind"] == "suite"]
    assert data[0]["splits"] == {"current_temp": "holdout"}
    plant(Store(sdir), [x.replace('"suite": "example"', '"suite": "mine"').replace('"r1"', '"m1"')
                        for x in example_run("r1")])
    r = traj("query", "SELECT run_id, split FROM events WHERE seq = 0 ORDER BY run_id", "--format", "csv",
             "--split", "holdout", "--store", sdir)
    assert "m1,holdout" in r.output and not marker.exists(), r.output
    r = traj("judge", "--store", sdir)
    assert r.exit_code == 0 and marker.exists(), r.output  # trusted when added: judged


def test_no_registration_takes_the_judgement_runs_name() -> None:
    from trajectory.catalog.registrations import reserved_names
    from trajectory.judging.selection import JUDGEMENT_SUITE

    assert {JUDGEMENT_SUITE, "example", "selfevo", "device", "gui", "weather", "clock"} <= reserved_names()
