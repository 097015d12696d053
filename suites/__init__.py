"""The bundled suites, and loading a suite from a folder.

A suite package exposes ``load(path=None) -> judges.base.Suite``. It may also expose, for
``traj demo``: ``record_samples(store)`` (deterministic sample runs, recorded like a harness
would) and ``apply_fix(folder) -> str`` (edit a copy of the suite's own folder to fix a rule,
returning a one-line description of the fix).
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import uuid
from pathlib import Path
from types import ModuleType

from judges.base import Suite

# Bundled suites: name -> package. Order is the order `traj demo` shows them in.
BUILTIN: dict[str, str] = {
    "example": "suites.example",
    "selfevo": "suites.selfevo",
    "device": "suites.device",
    "gui": "suites.gui",
}


def builtin_names() -> list[str]:
    return list(BUILTIN)


def builtin_module(name: str) -> ModuleType:
    return importlib.import_module(BUILTIN[name])


def builtin_folder(name: str) -> Path:
    module = builtin_module(name)
    assert module.__file__ is not None
    return Path(module.__file__).parent


def load_builtin(name: str) -> Suite:
    return builtin_module(name).load()


def import_package(folder: Path) -> ModuleType:
    """Import a suite package from any folder under a fresh module name.

    A copy of a bundled suite (the demo's rule fix, a user's edited suite) must not replace the
    bundled modules in ``sys.modules``, so each folder gets its own package name.
    """
    name = f"_traj_suite_{uuid.uuid4().hex[:12]}"
    spec = importlib.util.spec_from_file_location(
        name, folder / "__init__.py", submodule_search_locations=[str(folder)]
    )
    if spec is None or spec.loader is None:
        raise ImportError(f"{folder}: not a Python package")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def load_folder(folder: str | Path) -> Suite:
    """A suite from a folder: a Python suite package (``__init__.py`` with ``load``), or a
    folder of task JSON files (the real-device format)."""
    folder = Path(folder)
    if (folder / "__init__.py").exists():
        module = import_package(folder)
        suite = module.load(folder)
        suite.__dict__["_folder"] = str(folder)
        return suite
    from suites import device  # a folder of task JSON files

    return device.load(folder)


def load_registered(name: str, registration: dict) -> Suite:
    """The suite a store registration names: Inspect scorers (``traj suite add NAME
    module:function``) or a suite folder."""
    if registration.get("scorers"):
        from suites.inspect import adapter  # imports inspect-ai

        return adapter.load(registration["scorers"], name, registration.get("root"))
    return load_folder(Path(registration["path"]))
