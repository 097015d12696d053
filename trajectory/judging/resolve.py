"""Which suite judges a run: a suite registered with the store first (a folder, or Inspect
scorers named as ``module:function``), then the bundled suites; ``overrides`` (tests, the demo's
broken copies) win over both.

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

from trajectory.store.delta import Store, now_utc


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
        self._builtin: dict[str, Any] | None = None
        self._registered: dict[str, dict[str, Any]] | None = None

    @classmethod
    def from_specs(cls, specs: dict[str, SuiteSpec | None]) -> SuiteResolver:
        """A resolver that knows exactly these suites (what a worker process builds)."""
        resolver = cls()
        resolver._specs = dict(specs)
        return resolver

    def registered(self) -> dict[str, dict[str, Any]]:
        """Suite name -> its latest registration ({path, at, by}; Inspect scorers add scorers
        and root)."""
        if self._registered is None:
            out: dict[str, dict[str, Any]] = {}
            if self.store is not None and self.store.has_table("meta"):
                for row in sorted(self.store.read("meta").to_pylist(), key=lambda r: r["at"]):
                    if row["kind"] == "suite":
                        out[row["key"]] = {**json.loads(row["data"]), "at": row["at"], "by": row["by"]}
            self._registered = out
        return self._registered

    def builtin(self) -> dict[str, Any]:
        """The bundled suites by every name they judge."""
        if self._builtin is None:
            self._builtin = {}
            for name in suite_pkg.builtin_names():
                suite = suite_pkg.load_builtin(name)
                for alias in suite_pkg.aliases(suite):
                    self._builtin.setdefault(alias, suite)
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
            return registration_spec(name, reg)
        suite = self.builtin().get(name)
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
        s = self.get(suite)
        if s is None:
            return None
        try:
            return s.task_split(task)
        except Exception:  # noqa: BLE001 - an unknown task simply has no own split
            return None


def register_suite(
    store: Store, name: str, path: str | os.PathLike[str], by: str | None = None, *, data: dict[str, Any] | None = None
) -> None:
    """Register a suite folder under ``name`` (appended to the store's meta log); ``data``
    replaces the folder's registration (Inspect scorers: see :func:`add_scorers`)."""
    from trajectory.runtime.people import current_user

    row = {
        "kind": ["suite"],
        "key": [name],
        "at": [now_utc()],
        "by": [by or current_user()],
        "data": [json.dumps(data if data is not None else {"path": str(Path(path).absolute())})],
    }
    store.append("meta", pa.table(row))


def is_scorer_spec(path: str | os.PathLike[str]) -> bool:
    """Whether ``traj suite add`` was given Inspect scorers (``module:function`` or
    ``file.py:function``) rather than a folder."""
    text = str(path)
    return ":" in text and not Path(text).is_dir()


def add_suite(store: Store, name: str, path: str | os.PathLike[str], by: str | None = None) -> tuple[Any, list[str]]:
    """Load a suite folder (refused if its code fails) and register it under ``name``; the
    suite and the problems it found in its own folder (left-out task files, ...). Inspect
    scorers named as ``module:function`` go to :func:`add_scorers`."""
    from judges.contract import Checked

    from trajectory.errors import JudgeError, NotFound

    if is_scorer_spec(path):
        return add_scorers(store, name, str(path), by=by), []
    folder = Path(path)
    if not folder.is_dir():
        raise NotFound(f"{folder}: no such folder")
    try:
        suite = suite_pkg.load_folder(folder)
    except Exception as exc:  # noqa: BLE001 - the folder's own code failed: say so in one line
        raise JudgeError(f"{folder}: cannot load the suite: {type(exc).__name__}: {exc}") from exc
    register_suite(store, name, folder, by)
    return suite, list(suite.problems) if isinstance(suite, Checked) else []


def add_scorers(store: Store, name: str, spec: str, *, root: str | None = None, by: str | None = None) -> Any:
    """Load Inspect scorers (``module:function`` or ``file.py:function``; refused if they do not
    load) and register them as the suite ``name``. Module names and relative files resolve from
    ``root`` (the current folder by default), also when judging later runs elsewhere."""
    from trajectory.errors import JudgeError

    data = {"path": spec, "scorers": spec, "root": root or os.getcwd()}
    try:
        suite = registration_spec(name, data).load()
    except Exception as exc:  # noqa: BLE001 - the scorers' own code failed: say so in one line
        raise JudgeError(f"{spec}: cannot load the scorers: {type(exc).__name__}: {error_line(exc)}") from exc
    register_suite(store, name, spec, by, data=data)
    return suite


def list_suites(store: Store) -> list[dict[str, Any]]:
    """Suites known to a store: registered ones first (a folder, or Inspect scorers as
    ``module:function``), then the bundled ones."""
    resolver = SuiteResolver(store)
    rows = [{"name": n, "source": reg["path"], "registered_at": reg["at"]} for n, reg in resolver.registered().items()]
    for name, suite in resolver.builtin().items():
        if name not in resolver.registered():
            rows.append({"name": name, "source": f"bundled ({type(suite).__module__})", "registered_at": None})
    return rows
