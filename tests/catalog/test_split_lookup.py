"""The bundled suite a run's name finds, with no more suites imported than it needs."""

from __future__ import annotations

import subprocess
import sys

import suites as suite_pkg
from trajectory.catalog.pools import builtin_by_name, builtin_judging, bundled_declares_no_pool


def test_no_bundled_suite_judges_another_bundled_suites_name() -> None:
    # A bundled suite's own name is never taken by another: a run's suite field names one suite.
    for name in suite_pkg.builtin_names():
        claims = [other for other in suite_pkg.builtin_names()
                  if name in suite_pkg.aliases(suite_pkg.load_builtin(other))]
        assert claims in ([], [name]), (name, claims)


def test_each_name_finds_the_suite_the_full_table_finds() -> None:
    table = builtin_by_name()
    for name, suite in table.items():
        found = builtin_judging(name)
        assert type(found) is type(suite) and found.name == suite.name, name
        assert suite_pkg.aliases(found) == suite_pkg.aliases(suite), name
    assert builtin_judging("no-such-suite") is None
    assert "no-such-suite" not in table


def test_a_bundled_suites_own_name_imports_no_other_suite() -> None:
    code = ("import sys; from trajectory.catalog.pools import builtin_judging; "
            "assert builtin_judging('example').name == 'example'; "
            "print(sorted(m for m in sys.modules if m.startswith('suites.') and m.count('.') == 1))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['suites.example', 'suites.registry']", out


def test_the_declared_names_and_pools_are_what_the_loaded_suites_say() -> None:
    # suites.JUDGED_NAMES and suites.POOLED let a lookup skip loading a suite: a wrong entry
    # would hide a holdout run in the tune pool (or look up the wrong suite), so they are held
    # to the suites themselves.
    assert list(suite_pkg.JUDGED_NAMES) == suite_pkg.builtin_names()
    pooled = set()
    for name in suite_pkg.builtin_names():
        suite = suite_pkg.load_builtin(name)
        assert suite_pkg.JUDGED_NAMES[name] == tuple(suite_pkg.aliases(suite)), name
        if any(suite.task_split(t) is not None for t in suite.task_ids()):
            pooled.add(name)
    assert suite_pkg.POOLED == pooled
    assert pooled, "a bundled suite declares pools (device): the check above would be vacuous"
    assert bundled_declares_no_pool("clock") and bundled_declares_no_pool("example")
    assert not bundled_declares_no_pool("device") and not bundled_declares_no_pool("no-such-suite")


def test_a_gui_app_name_imports_the_gui_suite_alone() -> None:
    code = ("import sys; from trajectory.catalog.pools import builtin_judging, bundled_declares_no_pool; "
            "assert bundled_declares_no_pool('weather'); "
            "print(sorted(m for m in sys.modules if m.startswith('suites.') and m.count('.') == 1)); "
            "assert builtin_judging('clock').name == 'gui'; "
            "print(sorted(m for m in sys.modules if m.startswith('suites.') and m.count('.') == 1))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split("\n")[:2] == ["[]", "['suites.gui', 'suites.registry']"], out
