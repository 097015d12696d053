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

ROOT = Path(__file__).resolve().parent.parent

SHARED = {"judges", "judges.base", "replay", "replay.fold", "replay.state", "replay.batch", "replay.patch",
          "trajectory.events"}


@pytest.mark.parametrize("name", suite_pkg.builtin_names())
def test_the_modules_of_a_version_are_found_from_imports(name: str) -> None:
    suite = suite_pkg.load_builtin(name)
    found = set(suite_modules(suite))
    assert SHARED <= found, SHARED - found
    assert type(suite).__module__ in found
    if name in ("gui", "device", "example"):
        assert {"judges.matchers", "judges.tokens", "judges.numerals", "judges.times", "judges.dates",
                "judges.lexicon"} <= found
    if name == "gui":
        assert "judges.claims" in found
    # Only what verdicts depend on: not the loader, the importers, or the shell.
    assert not {"suites.registry", "suites.gui.mobilegym", "suites.selfevo.trajectories"} & found
    assert not [m for m in found if m.startswith("trajectory.") and m != "trajectory.events"]
    others = {f"suites.{n}" for n in suite_pkg.builtin_names() if n != name}
    assert not [m for m in found if ".".join(m.split(".")[:2]) in others]


PROBE = """
import json, suites
print(json.dumps({n: suites.load_builtin(n).code_version() for n in suites.builtin_names()}))
"""


def _versions(tree: Path) -> dict[str, str]:
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=tree, capture_output=True, text=True, check=True,
                         env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(tree)})
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
    # Claims (yes/no, comparisons, lists) are read only by the GUI's tasks.
    "judges/claims.py": {"gui"},
    "replay/fold.py": {"example", "selfevo", "device", "gui"},
    "replay/state.py": {"example", "selfevo", "device", "gui"},
    "replay/batch.py": {"example", "selfevo", "device", "gui"},
    "replay/patch.py": {"example", "selfevo", "device", "gui"},
    "trajectory/events.py": {"example", "selfevo", "device", "gui"},
    "suites/example/__init__.py": {"example"},
    "suites/selfevo/layers.py": {"selfevo"},
    "suites/device/checks.py": {"device"},
    "suites/gui/task.py": {"gui"},
    # No verdict depends on these.
    "trajectory/query.py": set(),
    "suites/registry.py": set(),
    "suites/gui/mobilegym.py": set(),
}


@pytest.mark.slow
def test_editing_a_module_changes_exactly_the_versions_that_depend_on_it(tree: Path) -> None:
    base = _versions(tree)
    for rel, expected in EDITS.items():
        path = tree / rel
        original = path.read_bytes()
        path.write_bytes(original + b"\n# edited\n")
        try:
            now = _versions(tree)
        finally:
            path.write_bytes(original)
        changed = {n for n in base if base[n] != now[n]}
        assert changed == expected, rel
