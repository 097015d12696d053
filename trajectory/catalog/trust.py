"""Which suites registered in a store this machine's user has trusted to run (issue 24, item 1).

A suite registration is a row in the store's own tables: anyone who can write the store can
write one, naming any folder or module. A store is data, so reading it never imports a
registered suite; judging imports one only after the person judging has trusted it here, on
their own machine, as direnv and editors' workspace trust do. Trust lives in the user's own
configuration (``$XDG_CONFIG_HOME/traj/trust.json``, else ``~/.config/traj/trust.json``), one
entry per store, suite name and where the suite loads from (its folder, or its Inspect scorers
and the folder they resolve from). A registration that points somewhere else, or the same one
in another store, is not trusted by it.

Trust covers where the code is, not what it contains: a person edits their own suite between
passes without trusting it again. A folder others can write is code they can run; the README
says so.
"""

from __future__ import annotations

import json
import os
import shlex
import tempfile
from pathlib import Path
from typing import Any

from trajectory.errors import StoreError
from trajectory.text import hint

TRUST_FILE = "trust.json"


def config_dir() -> Path:
    """traj's folder in the user's configuration (XDG base directories)."""
    base = os.environ.get("XDG_CONFIG_HOME") or ""
    root = Path(base) if base and Path(base).is_absolute() else Path.home() / ".config"
    return root / "traj"


def trust_path() -> Path:
    return config_dir() / TRUST_FILE


def store_key(store: Any) -> str:
    """The store as trust names it: its folder's absolute path, or its object-storage URI."""
    return str(store.loc)


def _where(data: dict[str, Any]) -> dict[str, Any]:
    """What a registration loads from, as trust compares it."""
    if data.get("scorers"):
        return {"kind": "scorers", "where": str(data["scorers"]), "root": data.get("root")}
    return {"kind": "folder", "where": str(data.get("path")), "root": None}


def _read(strict: bool) -> list[dict[str, Any]]:
    path = trust_path()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    except OSError as exc:
        if strict:
            raise StoreError(f"{path}: cannot read the suites you trust: {exc.strerror or exc}") from exc
        return []
    try:
        doc = json.loads(text)
        entries = doc["trusted"]
        if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
            raise TypeError("trusted is not a list of objects")
    except (ValueError, KeyError, TypeError) as exc:
        if strict:  # writing over it would lose what it trusts: say so instead
            raise StoreError(f"{path}: not a trust file traj wrote ({exc}); fix or remove it") from exc
        return []  # unreadable trust trusts nothing
    return entries


def is_trusted(store: Any, name: str, data: dict[str, Any]) -> bool:
    """Whether this user trusted the registration ``data`` of suite ``name`` in ``store``."""
    want = {"store": store_key(store), "suite": name, **_where(data)}
    return any(all(e.get(k) == v for k, v in want.items()) for e in _read(strict=False))


def trust(store: Any, name: str, data: dict[str, Any], at: str) -> Path:
    """Trust the registration ``data`` of suite ``name`` in ``store`` (kept in the user's
    configuration, written whole or not at all); the trust file."""
    entry = {"store": store_key(store), "suite": name, **_where(data)}
    entries = [e for e in _read(strict=True)
               if not (e.get("store") == entry["store"] and e.get("suite") == name)]
    entries.append({**entry, "at": at})
    path = trust_path()
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".trust.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump({"trusted": entries}, f, indent=1, ensure_ascii=False)
            f.write("\n")
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return path


def trust_command(store: Any, name: str) -> str:
    return hint(f"traj suite trust {shlex.quote(name)}", store_key(store))


def untrusted_line(store: Any, name: str, data: dict[str, Any]) -> str:
    """The one line that names an untrusted registration and how to trust it."""
    where = _where(data)
    loads = f"Inspect scorers {where['where']}" if where["kind"] == "scorers" else where["where"]
    by = f" by {data['by']}" if data.get("by") else ""
    return (f"suite {name!r} is registered in this store{by} to run code from {loads}, which you have not "
            f"trusted on this machine; if you trust that code: {trust_command(store, name)}")
