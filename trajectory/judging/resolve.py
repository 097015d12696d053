"""Which suite judges a run: a bundled suite, or one registered with the store (a folder, or
Inspect scorers named as ``module:function``) that the person judging has trusted on this machine
(``trajectory/catalog/trust.py``); ``overrides`` (tests, the demo's broken copies) win over both.
A registration nobody here trusted is never imported: its runs are left unjudged, named in
``untrusted``. What reading needs from a registered suite (its tasks' pools) is the data stored
with its registration (``trajectory/catalog/registrations.py``), never its code.

A judging worker in another process gets :class:`suites.registry.SuiteSpec` values (small,
picklable) and resolves them itself with :meth:`SuiteResolver.from_specs`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pyarrow as pa

import suites as suite_pkg
from judges.contract import Reading
from replay.batch import ALL, Reads
from suites.registry import SuiteSpec, registration_spec, spec_of

from trajectory.catalog import pools
from trajectory.catalog import registrations as catalog
from trajectory.catalog import trust as trusts
from trajectory.store.delta import Store, now_utc
from trajectory.text import hint


def error_line(exc: BaseException) -> str:
    """An exception as the first line of its message (a KeyError without its quotes)."""
    text = str(exc).strip()
    if isinstance(exc, KeyError) and len(exc.args) == 1 and isinstance(exc.args[0], str):
        text = exc.args[0]
    return text.splitlines()[0] if text else type(exc).__name__


class SuiteResolver:
    """Suite name -> suite, loaded once per resolver."""

    def __init__(self, store: Store | None = None, overrides: dict[str, Any] | None = None):
        self.store = store
        self.overrides = dict(overrides or {})
        self._specs: dict[str, SuiteSpec | None] | None = None  # set: a worker's fixed mapping
        self._cache: dict[str, Any] = {}
        self._loaded: dict[tuple[str, str], Any] = {}
        self.problems: dict[str, str] = {}  # suite name -> why its folder did not load
        self.untrusted: dict[str, str] = {}  # suite name -> the line that says how to trust it
        self._builtin: dict[str, Any] | None = None
        self._bundled: dict[str, Any] = {}  # by name, before every bundled suite is loaded
        self._registered: dict[str, dict[str, Any]] | None = None

    @classmethod
    def from_specs(cls, specs: dict[str, SuiteSpec | None]) -> SuiteResolver:
        """A resolver that knows exactly these suites (what a worker process builds)."""
        resolver = cls()
        resolver._specs = dict(specs)
        return resolver

    def registered(self) -> dict[str, dict[str, Any]]:
        """Suite name -> its latest registration ({path, at, by, splits, device}; Inspect
        scorers add scorers and root), bundled names left out: data, nothing imported."""
        if self._registered is None:
            self._registered = catalog.registrations(self.store)
        return self._registered

    def trusted(self, name: str) -> bool:
        """Whether the registration of ``name`` may be imported here (else ``untrusted`` says why)."""
        reg = self.registered()[name]
        if trusts.is_trusted(self.store, name, reg):
            return True
        self.untrusted[name] = trusts.untrusted_line(self.store, name, reg)
        return False

    def builtin(self) -> dict[str, Any]:
        """The bundled suites by every name they judge."""
        if self._builtin is None:
            self._builtin = pools.builtin_by_name()
        return self._builtin

    def spec(self, name: str | None) -> SuiteSpec | None:
        """Where the suite for ``name`` loads from (None: no such suite)."""
        if name is None:
            return None
        if self._specs is not None:
            return self._specs.get(name)
        if name in self.overrides:
            return spec_of(self.overrides[name], name)
        reg = self.registered().get(name)
        if reg is not None:
            return registration_spec(name, reg) if self.trusted(name) else None
        if self._builtin is not None:
            suite = self._builtin.get(name)
        else:
            if name not in self._bundled:
                self._bundled[name] = pools.builtin_judging(name)
            suite = self._bundled[name]
        return spec_of(suite, name) if suite is not None else None

    def specs(self, names: Any) -> dict[str, SuiteSpec | None]:
        return {n: self.spec(n) for n in names if n is not None}

    def get(self, name: str | None) -> Any:
        """The suite for runs named ``name``, or None (then ``problems`` may say why)."""
        if name is None:
            return None
        if self._specs is None and name in self.overrides:
            return self.overrides[name]
        if name not in self._cache:
            spec = self.spec(name)
            if spec is None:
                self._cache[name] = None
            elif spec.kind == "builtin" and self._specs is None:
                self._cache[name] = self.builtin().get(name)
            else:
                # One object per place it loads from (the GUI suite judges two names).
                where = (spec.kind, spec.where)
                if where not in self._loaded:
                    try:
                        self._loaded[where] = spec.load()
                    except Exception as exc:  # noqa: BLE001 - a broken suite errs its runs, not the pass
                        self._loaded[where] = None
                        self.problems[name] = (
                            f"suite {name!r} cannot be loaded from {spec.where}: "
                            f"{type(exc).__name__}: {error_line(exc)}"
                        )
                self._cache[name] = self._loaded[where]
        return self._cache[name]

    def reads(self, name: str | None) -> Reads:
        """What the judge of this suite reads (nothing much for an unknown suite: its runs get
        an error verdict without being looked at)."""
        suite = self.get(name)
        if suite is None:
            return Reads(screens=0, steps=False)
        return suite.reads if isinstance(suite, Reading) else ALL

    def split_of(self, suite: str, task: str) -> str | None:
        """The pool task ``task`` of ``suite`` declares (None: none declared, or no such suite).
        A registered suite's comes from its registration's data: reading imports nothing."""
        if self._specs is None and suite not in self.overrides:
            reg = self.registered().get(suite)
            if reg is not None:
                return catalog.task_splits(self.store, suite, reg).get(task)
        s = self.get(suite) if suite in self.overrides or self._specs is not None else self.builtin().get(suite)
        return None if s is None else pools.declared_split(s, task)


def register_suite(
    store: Store, name: str, path: str | os.PathLike[str], by: str | None = None, *, data: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Append a registration of suite ``name`` to the store's meta log (a folder, or ``data``:
    see :func:`add_suite`, :func:`add_scorers`); the data stored. A bundled suite's name is
    refused. Registering trusts nothing: :func:`add_suite` trusts what the person adds."""
    from trajectory.runtime.people import current_user

    catalog.refuse_reserved(name)
    data = data if data is not None else {"path": str(Path(path).absolute())}
    row = {
        "kind": ["suite"],
        "key": [name],
        "at": [now_utc()],
        "by": [by or current_user()],
        "data": [json.dumps(data)],
    }
    store.append("meta", pa.table(row))
    return data


def trust_suite(store: Store, name: str) -> dict[str, Any]:
    """Trust, on this machine, the registration of ``name`` someone made in ``store`` (nothing
    is imported); the registration."""
    from trajectory.errors import NotFound

    reg = catalog.registrations(store).get(name)
    if reg is None:
        if name in catalog.reserved_names():
            raise NotFound(f"{name!r} is a bundled suite: it needs no trust, and no registration can take its name")
        raise NotFound(f"no suite {name!r} is registered in {store.loc} ({hint('traj suite list')} shows them)")
    trusts.trust(store, name, reg, now_utc().isoformat())
    return reg


def is_scorer_spec(path: str | os.PathLike[str]) -> bool:
    """Whether ``traj suite add`` was given Inspect scorers (``module:function`` or
    ``file.py:function``) rather than a folder."""
    text = str(path)
    return ":" in text and not Path(text).is_dir()


def add_suite(store: Store, name: str, path: str | os.PathLike[str], by: str | None = None) -> tuple[Any, list[str]]:
    """Load a suite folder (refused if its code fails), register it under ``name`` with what
    reading needs from it (its tasks' pools), and trust it on this machine; the suite and the
    problems it found in its own folder (left-out task files, ...). Inspect scorers named as
    ``module:function`` go to :func:`add_scorers`."""
    from trajectory.errors import JudgeError, NotFound

    catalog.refuse_reserved(name)
    if is_scorer_spec(path):
        return add_scorers(store, name, str(path), by=by), []
    folder = Path(path)
    if not folder.is_dir():
        raise NotFound(f"{folder}: no such folder")
    try:
        suite = suite_pkg.load_folder(folder)
    except Exception as exc:  # noqa: BLE001 - the folder's own code failed: say so in one line
        raise JudgeError(f"{folder}: cannot load the suite: {type(exc).__name__}: {exc}") from exc
    data = register_suite(store, name, folder, by, data={"path": str(folder.absolute()), **catalog.describe(suite)})
    trusts.trust(store, name, data, now_utc().isoformat())
    return suite, catalog.problems_of(suite)


def add_scorers(store: Store, name: str, spec: str, *, root: str | None = None, by: str | None = None) -> Any:
    """Load Inspect scorers (``module:function`` or ``file.py:function``; refused if they do not
    load), register them as the suite ``name`` and trust them on this machine. Module names and
    relative files resolve from ``root`` (the current folder by default), also when judging
    later runs elsewhere."""
    from trajectory.errors import JudgeError

    catalog.refuse_reserved(name)
    data = {"path": spec, "scorers": spec, "root": root or os.getcwd()}
    try:
        suite = registration_spec(name, data).load()
    except Exception as exc:  # noqa: BLE001 - the scorers' own code failed: say so in one line
        raise JudgeError(f"{spec}: cannot load the scorers: {type(exc).__name__}: {error_line(exc)}") from exc
    data = register_suite(store, name, spec, by, data={**data, **catalog.describe(suite)})
    trusts.trust(store, name, data, now_utc().isoformat())
    return suite


def list_suites(store: Store) -> list[dict[str, Any]]:
    """Suites known to a store: registered ones first (a folder, or Inspect scorers as
    ``module:function``, and whether this machine trusts them), then the bundled ones."""
    resolver = SuiteResolver(store)
    rows = [{"name": n, "source": reg["path"], "registered_at": reg["at"], "by": reg["by"],
             "trusted": trusts.is_trusted(store, n, reg)} for n, reg in resolver.registered().items()]
    for name, suite in resolver.builtin().items():
        rows.append({"name": name, "source": f"bundled ({type(suite).__module__})", "registered_at": None,
                     "by": None, "trusted": True})
    return rows
