"""The bundled suites: data plus the small task classes that say what to check.

Each suite package exposes ``load(path=None)`` returning an object that follows the suite
contract (``judges/contract.py``; most subclass ``judges.base.Suite``). Finding and loading
suites — bundled by name, from a folder, or from a :class:`SuiteSpec` in a judging worker —
is :mod:`suites.registry`; its functions are also reachable from here. The registry is not
imported by this package's ``__init__``: a suite's judge version covers the modules its
verdicts depend on (found from imports), and the loader is not one of them.
"""

from __future__ import annotations

from typing import Any

# Bundled suites: name -> package. Order is the order `traj demo` shows them in.
BUILTIN: dict[str, str] = {
    "example": "suites.example",
    "selfevo": "suites.selfevo",
    "device": "suites.device",
    "gui": "suites.gui",
}

#: The names each bundled suite judges runs under (``run_started.suite``; the GUI suite judges
#: its apps' names), and the bundled suites whose tasks declare a pool (tune or holdout): every
#: other one declares none. Both are read as data where a run's suite or pool is looked up
#: (trajectory/catalog/pools.py: every query view, every ingest), so that a store of example or
#: GUI runs does not import a suite's judge code to learn that its tasks have no pool.
#: tests/catalog holds both equal to what the loaded suites say.
JUDGED_NAMES: dict[str, tuple[str, ...]] = {
    "example": ("example",),
    "selfevo": ("selfevo",),
    "device": ("device",),
    "gui": ("weather", "clock"),
}
POOLED: frozenset[str] = frozenset({"device"})

_REGISTRY_NAMES = frozenset({
    "SuiteSpec", "aliases", "builtin_folder", "builtin_module", "builtin_names", "import_package",
    "load_builtin", "load_folder", "resolve", "spec_of",
})


def __getattr__(name: str) -> Any:
    if name in _REGISTRY_NAMES:
        import importlib

        return getattr(importlib.import_module("suites.registry"), name)
    raise AttributeError(f"module 'suites' has no attribute {name!r}")
