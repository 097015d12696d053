"""Which pool (tune or holdout) a task declares, read without running anyone's code.

A registered suite's pools are the data stored with its registration (registrations.py); a
bundled suite's come from the bundled code, which ships with traj. Ingest stamps a new run with
its task's pool, and the query views find the pool of runs stored without one, through this
module: both sit below judging, which resolves suites to run them.
"""

from __future__ import annotations

from typing import Any

import suites as suite_pkg

from trajectory.catalog import registrations


def builtin_by_name() -> dict[str, Any]:
    """The bundled suites by every name they judge (the GUI suite judges several)."""
    out: dict[str, Any] = {}
    for name in suite_pkg.builtin_names():
        suite = suite_pkg.load_builtin(name)
        for alias in suite_pkg.aliases(suite):
            out.setdefault(alias, suite)
    return out


def builtin_judging(name: str) -> Any | None:
    """The bundled suite that judges runs named ``name`` (None: none does), as
    :func:`builtin_by_name` finds it. Only the suite that judges that name is loaded
    (``suites.JUDGED_NAMES``, held equal to the loaded suites' own names by tests/catalog); a
    store of one suite's runs so pays for importing that suite only."""
    for builtin, names in suite_pkg.JUDGED_NAMES.items():
        if name in names:
            suite = suite_pkg.load_builtin(builtin)
            if name in suite_pkg.aliases(suite):
                return suite
    return builtin_by_name().get(name)


def bundled_declares_no_pool(name: str) -> bool:
    """Runs named ``name`` are judged by a bundled suite none of whose tasks declares a pool
    (``suites.POOLED``): their pool is known without loading the suite."""
    return any(name in names and builtin not in suite_pkg.POOLED for builtin, names in suite_pkg.JUDGED_NAMES.items())


def declared_split(suite: Any, task: str) -> str | None:
    """The pool a loaded suite declares for ``task`` (None: none, or no such task)."""
    try:
        return suite.task_split(task)
    except Exception:  # noqa: BLE001 - an unknown task simply has no own split
        return None


class Pools:
    """``split_of(suite, task)`` over one store: registrations and bundled suites, each read once."""

    def __init__(self, store: Any):
        self.store = store
        self._registered: dict[str, dict[str, Any]] | None = None
        self._builtin: dict[str, Any] = {}

    def split_of(self, suite: str, task: str) -> str | None:
        if self._registered is None:
            self._registered = registrations.registrations(self.store)
        reg = self._registered.get(suite)
        if reg is not None:
            return registrations.task_splits(self.store, suite, reg).get(task)
        if bundled_declares_no_pool(suite):
            return None
        if suite not in self._builtin:
            self._builtin[suite] = builtin_judging(suite)
        bundled = self._builtin[suite]
        return None if bundled is None else declared_split(bundled, task)
