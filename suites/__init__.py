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

_REGISTRY_NAMES = frozenset({
    "SuiteSpec", "aliases", "builtin_folder", "builtin_module", "builtin_names", "import_package",
    "load_builtin", "load_folder", "resolve", "spec_of",
})


def __getattr__(name: str) -> Any:
    if name in _REGISTRY_NAMES:
        import importlib

        return getattr(importlib.import_module("suites.registry"), name)
    raise AttributeError(f"module 'suites' has no attribute {name!r}")
