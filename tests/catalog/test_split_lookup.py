"""The bundled suite a run's name finds, with no more suites imported than it needs."""

from __future__ import annotations

import subprocess
import sys

import suites as suite_pkg
from trajectory.catalog.pools import builtin_by_name, builtin_judging


def test_no_bundled_suite_judges_another_bundled_suites_name() -> None:
    # What lets builtin_judging load a suite of that very name alone.
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
