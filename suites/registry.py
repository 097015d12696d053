"""Finding and loading suites: bundled ones by name, a folder, Inspect scorers, or a :class:`SuiteSpec`.

A suite package exposes ``load(path=None)`` returning a suite (``judges/contract.py``). A
judging worker in another process does not receive suite objects: it receives a
:class:`SuiteSpec` (a name and where the suite loads from) and loads the suite itself.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import uuid
from pathlib import Path
from types import ModuleType

from dataclasses import dataclass
from typing import Any, Literal

from . import BUILTIN


@dataclass(frozen=True)
class SuiteSpec:
    """Where a suite loads from, small and picklable: what a judging worker receives.

    ``kind``: ``builtin`` (``where`` is a bundled suite's name), ``folder`` (a path: a suite
    package or a folder of task files), ``class`` (``module:QualName`` of a suite class built
    without arguments) or ``scorers`` (Inspect scorers, ``where`` as ``traj suite add NAME
    module:function`` named them; module names resolve from ``root``, the folder the command
    ran in, also when judging runs elsewhere).
    """

    name: str
    kind: Literal["builtin", "folder", "class", "scorers"]
    where: str
    root: str | None = None

    def load(self) -> Any:
        if self.kind == "builtin":
            return load_builtin(self.where)
        if self.kind == "folder":
            return load_folder(self.where)
        if self.kind == "scorers":
            from suites.inspect import adapter  # imports inspect-ai

            return adapter.load(self.where, self.name, self.root)
        module, _, qualname = self.where.partition(":")
        obj: Any = importlib.import_module(module)
        for part in qualname.split("."):
            obj = getattr(obj, part)
        return obj()


def registration_spec(name: str, data: dict[str, Any]) -> SuiteSpec:
    """The spec of a suite registered with a store (``data`` as ``traj suite add`` stored it:
    ``{"path": folder}``, or ``{"scorers": "module:function", "root": folder}``)."""
    if data.get("scorers"):
        return SuiteSpec(name, "scorers", data["scorers"], data.get("root"))
    return SuiteSpec(name, "folder", data["path"])


def spec_of(suite: Any, name: str | None = None) -> SuiteSpec:
    """The spec that loads ``suite`` again in another process."""
    from judges.contract import Registered

    name = name or suite.name
    if isinstance(suite, Registered):
        return registration_spec(name, dict(suite.registration))
    folder = suite.__dict__.get("_folder") if hasattr(suite, "__dict__") else None
    if folder is not None:
        return SuiteSpec(name, "folder", folder)
    cls = type(suite)
    for builtin, package in BUILTIN.items():
        if cls.__module__ == package or cls.__module__.startswith(package + "."):
            return SuiteSpec(name, "builtin", builtin)
    if "<locals>" in cls.__qualname__:
        raise TypeError(f"suite {name!r}: a class defined in a function cannot be loaded by a worker")
    return SuiteSpec(name, "class", f"{cls.__module__}:{cls.__qualname__}")


def resolve(spec: SuiteSpec) -> Any:
    """The suite a spec names (loaded anew: callers keep what they load)."""
    return spec.load()


def builtin_names() -> list[str]:
    return list(BUILTIN)


def builtin_module(name: str) -> ModuleType:
    return importlib.import_module(BUILTIN[name])


def builtin_folder(name: str) -> Path:
    module = builtin_module(name)
    assert module.__file__ is not None
    return Path(module.__file__).parent


def load_builtin(name: str) -> Any:
    return builtin_module(name).load()


def aliases(suite: Any) -> list[str]:
    """Every ``run_started.suite`` name a suite judges (the GUI suite judges weather and clock)."""
    from judges.contract import Aliased

    return list(suite.names) if isinstance(suite, Aliased) and suite.names else [suite.name]


def import_package(folder: Path) -> ModuleType:
    """Import a suite package from any folder under a fresh module name.

    A copy of a bundled suite (the demo's broken copies, a user's edited suite) must not replace the
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


def load_folder(folder: str | Path) -> Any:
    """A suite from a folder: a Python suite package (``__init__.py`` with ``load``), or a
    folder of task JSON files (the real-device format)."""
    folder = Path(folder)
    if (folder / "__init__.py").exists():
        suite = import_package(folder).load(folder)
    else:
        from suites import device  # a folder of task JSON files

        suite = device.load(folder)
    suite.__dict__["_folder"] = str(folder)
    return suite
