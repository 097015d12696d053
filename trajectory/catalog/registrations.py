"""Suite registrations as data: what a store's ``meta`` rows say, read without importing anything.

``traj suite add`` loads the suite once, on the machine of the person adding it, and stores
with the registration what reading the store needs from it later: the pool each task declares
(``splits``: a run that does not say is in its task's pool) and whether it is a real-device task
set (``device``: reports add their device columns). Reading (runs, show, query, export, report,
diff, view) uses these, and never the suite's code.

A bundled suite's name (and every name a bundled suite judges) cannot be registered over: such a
row is refused when written, and an existing one (written by hand, or by an older traj) is
ignored with a one-line warning.
"""

from __future__ import annotations

import json
import shlex
import sys
from typing import Any

from judges.contract import Checked
from trajectory.text import hint

#: The suite name of the runs that record LLM judgements (trajectory.judging.selection's
#: JUDGEMENT_SUITE, which this room is below): no registration may take it either.
JUDGEMENTS_SUITE = "traj.judgements"

_warned: set[tuple[str, str]] = set()
_reserved: frozenset[str] | None = None


def reserved_names() -> frozenset[str]:
    """Names no registration may take: the bundled suites, every name they judge, and the
    suite name recorded LLM judgements use."""
    global _reserved
    if _reserved is None:
        import suites as suite_pkg

        names = {JUDGEMENTS_SUITE, *suite_pkg.BUILTIN}
        for name in suite_pkg.BUILTIN:
            names.update(suite_pkg.aliases(suite_pkg.load_builtin(name)))
        _reserved = frozenset(names)
    return _reserved


def warn_once(store: Any, name: str, line: str) -> None:
    key = (str(store.loc), name)
    if key not in _warned:
        _warned.add(key)
        print(f"warning: {line}", file=sys.stderr)


def registrations(store: Any) -> dict[str, dict[str, Any]]:
    """Suite name -> its latest registration in ``store`` (the stored data, plus ``at`` and
    ``by``); rows naming a bundled suite are left out, each with a one-line warning."""
    out: dict[str, dict[str, Any]] = {}
    if store is None or not store.has_table("meta"):
        return out
    rows = store.meta_rows(["suite"])
    for row in sorted(rows, key=lambda r: r["at"]):
        try:
            data = json.loads(row["data"])
        except ValueError:
            data = None
        if not isinstance(data, dict) or not isinstance(data.get("path"), str):
            warn_once(store, str(row["key"]), f"suite registration {row['key']!r} is not one traj wrote; ignored")
            continue
        out[row["key"]] = {**data, "at": row["at"], "by": row["by"]}
    for name in sorted(set(out) & reserved_names()):
        reg = out.pop(name)
        warn_once(store, name, f"the store registers {reg['path']} as suite {name!r}, the name of a bundled "
                               f"suite (registered by {reg['by']}); ignored: {name!r} is always the bundled one")
    return out


def refuse_reserved(name: str) -> None:
    from trajectory.errors import JudgeError

    if name in reserved_names():
        raise JudgeError(f"suite name {name!r} is a bundled suite's; register yours under another name")


def describe(suite: Any) -> dict[str, Any]:
    """What reading a store needs from a suite, stored with its registration: each task's
    declared pool (only the tasks that declare one) and whether it is a device task set."""
    splits: dict[str, str] = {}
    for task in suite.task_ids():
        try:
            split = suite.task_split(task)
        except Exception:  # noqa: BLE001 - a task without a pool of its own
            split = None
        if split is not None:
            splits[str(task)] = str(split)
    device = type(suite).__module__.startswith("suites.device")
    return {"splits": splits, "device": device}


def problems_of(suite: Any) -> list[str]:
    return list(suite.problems) if isinstance(suite, Checked) else []


def _task_folder(reg: dict[str, Any]) -> Any:
    """The folder of task JSON files a registration names (read by the bundled device code, so
    reading it runs nothing of the registrant's), or None for Python code or scorers."""
    from pathlib import Path

    if reg.get("scorers"):
        return None
    folder = Path(reg["path"])
    return folder if folder.is_dir() and not (folder / "__init__.py").exists() else None


def task_splits(store: Any, name: str, reg: dict[str, Any]) -> dict[str, str]:
    """Task -> declared pool of a registered suite, from its registration. One registered
    before traj stored them is read from its task files when it is a task set; a Python suite's
    cannot be known without running it: its runs are read as tune, with a one-line warning."""
    if isinstance(reg.get("splits"), dict):
        return reg["splits"]
    if reg.get("scorers"):
        return {}  # Inspect scorers judge any sample: no task of theirs declares a pool
    folder = _task_folder(reg)
    if folder is not None:
        from suites import device

        try:
            reg["splits"] = describe(device.load(folder))["splits"]
            return reg["splits"]
        except Exception as exc:  # noqa: BLE001 - task files that no longer load: as below
            warn_once(store, f"{name}:folder", f"suite {name!r}: its task files in {folder} do not load "
                                               f"({type(exc).__name__}); its tasks' pools are unknown")
            return {}
    warn_once(store, f"{name}:splits", f"suite {name!r} was registered before traj stored its tasks' pools; runs "
                                       f"of it that name no split are read as tune ({hint(f'traj suite add {shlex.quote(name)} PATH')} "
                                       "again stores them)")
    return {}


def is_device(reg: dict[str, Any]) -> bool:
    """Whether a registration is a real-device task set (an older one: a folder without code)."""
    if "device" in reg:
        return bool(reg["device"])
    return _task_folder(reg) is not None
