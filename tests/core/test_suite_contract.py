"""The suite contract: bundled suites follow the protocol, declare their capabilities, and
load again in another process from a small picklable spec."""

from __future__ import annotations

import pickle
import shutil

import pytest

import suites as suite_pkg
from judges.contract import Aliased, LLMJudged, Pairing, Reading, ReportRendering, SuiteProtocol
from suites.registry import SuiteSpec, spec_of

CAPABILITIES = {
    "example": set(),
    "selfevo": {Pairing, LLMJudged, ReportRendering},
    "device": {Aliased},
    "gui": {Aliased},
}


@pytest.mark.parametrize("name", suite_pkg.builtin_names())
def test_bundled_suites_follow_the_contract(name: str) -> None:
    suite = suite_pkg.load_builtin(name)
    assert isinstance(suite, SuiteProtocol) and isinstance(suite, Reading)
    have = {p for p in (Pairing, LLMJudged, ReportRendering, Aliased) if isinstance(suite, p)}
    assert have == CAPABILITIES[name]


@pytest.mark.parametrize("name", suite_pkg.builtin_names())
def test_a_spec_is_small_picklable_and_loads_the_same_judge(name: str, tmp_path) -> None:
    suite = suite_pkg.load_builtin(name)
    spec = pickle.loads(pickle.dumps(spec_of(suite)))
    assert spec == SuiteSpec(suite.name, "builtin", name)
    assert spec.load().code_version() == suite.code_version()
    copy = tmp_path / name
    shutil.copytree(suite_pkg.builtin_folder(name), copy, ignore=shutil.ignore_patterns("__pycache__"))
    folder_suite = suite_pkg.load_folder(copy)
    folder_spec = spec_of(folder_suite, "x")
    assert folder_spec == SuiteSpec("x", "folder", str(copy))
    assert folder_spec.load().code_version() == folder_suite.code_version()


class Mine(suite_pkg.load_builtin("example").__class__):
    name = "mine"


def test_a_suite_class_outside_the_bundle_travels_by_its_import_path() -> None:
    spec = spec_of(Mine())
    assert spec.kind == "class" and spec.where.endswith(":Mine")
    assert type(spec.load()).__name__ == "Mine"
