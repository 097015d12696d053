"""A verdict's judge version covers every module its result depends on, found from imports:
editing any of them changes the version; editing a module no verdict depends on does not."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import suites as suite_pkg
from judges.versions import suite_modules

ROOT = Path(__file__).resolve().parents[2]

SHARED = {"judges", "judges.base", "replay", "replay.fold", "replay.state", "replay.batch", "replay.patch",
          "trajectory.events", "trajectory.columns"}


@pytest.mark.parametrize("name", suite_pkg.builtin_names())
def test_the_modules_of_a_version_are_found_from_imports(name: str) -> None:
    suite = suite_pkg.load_builtin(name)
    found = set(suite_modules(suite))
    assert SHARED <= found, SHARED - found
    assert type(suite).__module__ in found
    if name in ("gui", "device", "example"):
        assert {"judges.matchers", "judges.tokens", "judges.numerals", "judges.times", "judges.dates",
                "judges.lexicon", "judges.units"} <= found
    if name in ("gui", "device"):
        assert "judges.claims" in found
    if name in ("gui", "example"):
        assert "judges.subjects" in found
    # Only what verdicts depend on: not the loader, the importers, or the shell.
    assert not {"suites.registry", "suites.gui.mobilegym", "suites.selfevo.trajectories"} & found
    # Of the shell only the declaration: the event types and what replay derives from them.
    assert not [m for m in found if m.startswith("trajectory.") and m not in ("trajectory.events", "trajectory.columns")]
    others = {f"suites.{n}" for n in suite_pkg.builtin_names() if n != name}
    assert not [m for m in found if ".".join(m.split(".")[:2]) in others]


PROBE = """
import json, sys
from pathlib import Path
import suites

def versions():
    # Each suite loaded afresh, as a new traj process loads it: nothing kept from before the edit.
    return {n: suites.load_builtin(n).code_version() for n in suites.builtin_names()}

out = {"": versions()}
for rel in json.loads(sys.argv[1]):
    path = Path(rel)
    original = path.read_bytes()
    path.write_bytes(original + b"\\n# edited\\n")
    try:
        out[rel] = versions()
    finally:
        path.write_bytes(original)
print(json.dumps(out))
"""


def _versions(tree: Path, edits: list[str]) -> dict[str, dict[str, str]]:
    """The versions of every bundled suite in the copied ``tree`` (under ``""``), then with each
    of ``edits`` appended a comment in turn (the file restored after): one interpreter for all,
    started in the tree, so only the copy's code is read."""
    out = subprocess.run([sys.executable, "-c", PROBE, json.dumps(edits)], cwd=tree, capture_output=True, text=True,
                         check=True, env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(tree)})
    return json.loads(out.stdout)


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("tree")
    for package in ("judges", "replay", "suites", "trajectory"):
        shutil.copytree(ROOT / package, root / package, ignore=shutil.ignore_patterns("__pycache__"))
    return root


EDITS = {
    # module file -> the suites whose versions must change
    "judges/base.py": {"example", "selfevo", "device", "gui"},
    "judges/matchers.py": {"example", "device", "gui"},
    # The tokenizer: every suite that reads answers through the matchers.
    "judges/tokens.py": {"example", "device", "gui"},
    "judges/numerals.py": {"example", "device", "gui"},
    "judges/times.py": {"example", "device", "gui"},
    "judges/dates.py": {"example", "device", "gui"},
    "judges/lexicon.py": {"example", "device", "gui"},
    "judges/units.py": {"example", "device", "gui"},
    # Claims (yes/no, comparisons, lists; the claim among rival values) are read by the GUI's
    # tasks and the device checks; subjects by the suites whose tasks ask about a subject.
    "judges/claims.py": {"gui", "device"},
    "judges/subjects.py": {"example", "gui"},
    "replay/fold.py": {"example", "selfevo", "device", "gui"},
    "replay/state.py": {"example", "selfevo", "device", "gui"},
    "replay/batch.py": {"example", "selfevo", "device", "gui"},
    "replay/patch.py": {"example", "selfevo", "device", "gui"},
    "trajectory/events.py": {"example", "selfevo", "device", "gui"},
    "suites/example/__init__.py": {"example"},
    "suites/selfevo/layers.py": {"selfevo"},
    "suites/device/checks.py": {"device"},
    "suites/device/kinds.py": {"device"},
    "suites/gui/task.py": {"gui"},
    "suites/gui/answers.py": {"gui"},
    # No verdict depends on these.
    "trajectory/query/sql.py": set(),
    "suites/registry.py": set(),
    "suites/gui/mobilegym.py": set(),
}


@pytest.mark.slow
def test_editing_a_module_changes_exactly_the_versions_that_depend_on_it(tree: Path) -> None:
    got = _versions(tree, list(EDITS))
    base = got[""]
    for rel, expected in EDITS.items():
        changed = {n for n in base if base[n] != got[rel][n]}
        assert changed == expected, rel
    assert _versions(tree, [])[""] == base  # every file was restored


def _suite_declaring(*code: object):
    from judges.base import Suite

    class Declaring(Suite):
        name = "declaring"
        code_modules = code

    return Declaring()


def test_declared_code_brings_its_own_package_or_the_modules_beside_it(tmp_path, monkeypatch) -> None:
    import importlib

    (tmp_path / "userpkg").mkdir()
    (tmp_path / "userpkg" / "__init__.py").write_text("")
    (tmp_path / "userpkg" / "scorers.py").write_text("from . import helpers\nimport json\n")
    (tmp_path / "userpkg" / "helpers.py").write_text("from userpkg.deep import rule\n")
    (tmp_path / "userpkg" / "deep.py").write_text("rule = 1\n")
    (tmp_path / "userpkg" / "unused.py").write_text("")
    (tmp_path / "lone.py").write_text("import aid\n")
    (tmp_path / "aid.py").write_text("X = 1\n")
    (tmp_path / "bystander.py").write_text("")
    (tmp_path / "byhand.py").write_text("import aid\n")  # loaded by hand: given by its path
    monkeypatch.syspath_prepend(str(tmp_path))
    scorers, lone = importlib.import_module("userpkg.scorers"), importlib.import_module("lone")

    found = suite_modules(_suite_declaring(scorers))
    assert {"userpkg", "userpkg.scorers", "userpkg.helpers", "userpkg.deep"} <= set(found)
    assert "userpkg.unused" not in found and "json" not in found  # only what is imported; no stdlib
    found = suite_modules(_suite_declaring(lone, tmp_path / "byhand.py"))
    assert {"lone", "aid", str(tmp_path / "byhand.py")} <= set(found) and "bystander" not in found

    before = _suite_declaring(scorers).code_version()
    (tmp_path / "userpkg" / "deep.py").write_text("rule = 2\n")
    assert _suite_declaring(scorers).code_version() != before


@pytest.mark.parametrize("name", ["hypothesis.strategies", "email.mime.text"])
def test_installed_code_counts_as_the_declared_file_only(name: str) -> None:
    import importlib

    module = importlib.import_module(name)  # a distribution's package, the standard library's
    found = suite_modules(_suite_declaring(module))
    assert found[name] == module.__file__
    top = name.split(".")[0]
    assert [m for m in found if m == top or m.startswith(top + ".")] == [name]
