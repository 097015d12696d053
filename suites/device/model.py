"""Real-device task files: the model, reading a folder of them, and the task-set checks.

One JSON file per task at ``<folder>/<category>/…/<id>.json``; the file name is the id. A file
that does not parse, or parses into an invalid task, is left out of the suite with its error
(the valid ones are judged). The task-set checks (``traj suite check``) go further and look at
the set as a whole: counts per folder, the holdout share, markers, confirmation cards, ...

Rules this module decides (the task format leaves them open):

* A *folder* is a task file's directory relative to the suite root (``read/system``). Minimum
  counts apply to a folder and everything below it; the default table is the task format's, and a
  ``suite.json`` at the root replaces it: ``{"minCounts": {"read/system": 10, ...}}``.
* "About 30 % holdout in every folder": every folder with tasks has at least one holdout task,
  at least one tune task when it has two or more, and its holdout count is within
  ``max(1, 10 % of n)`` of ``30 % of n`` (``holdoutShare`` in suite.json changes the 30 %).
* Tasks that share a ``pair`` id (paired tasks) or a ``session`` (memory sessions) must be in
  one pool.
* An absolute local path is a string token that starts with ``/`` + a letter, ``~/``,
  ``file://`` or a drive letter (``C:\\``), where the token starts the string or follows
  whitespace, a quote, a bracket, ``=`` or ``:`` (so ``https://a.b/c`` and ``读/写`` are not
  paths).
* A package in ``apps`` is third-party unless it is a ``{app:<capability>}`` placeholder or an
  Android system package (``android``, ``com.android.*``); a package the capability table lists
  must be written as its capability.
"""

from __future__ import annotations

import functools
import json
import operator
import re
from collections import Counter, defaultdict
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

import msgspec

from . import capabilities as caps
from .kinds import KINDS, AskedUser, CheckKind, CheckSpec, ConfirmationShows, ScreenHas
from .kinds import AnswerContains, AnswerGrounded, AnswerRegex  # noqa: F401 - the kinds, where tasks are
from trajectory.errors import TrajError

CATEGORIES = ("read", "write", "irreversible", "impossible", "barrier")
# The outcome a task of each category is expected to end with (the task format's table).
CATEGORY_EXPECT = {
    "read": "succeeded",
    "write": "succeeded",
    "irreversible": "confirmation",
    "impossible": "failed",
    "barrier": "takeover",
}
DEFAULT_ACCEPT_TAKEOVER = ("login", "captcha", "verification")

# The task format's table: folder -> minimum number of tasks.
DEFAULT_MIN_COUNTS: dict[str, int] = {
    "read/system": 10,
    "read/content": 15,
    "read/shopping": 10,
    "write": 10,
    "irreversible": 8,
    "impossible": 5,
    "barrier": 2,
    "web": 10,
}
DEFAULT_HOLDOUT_SHARE = 0.3
SUITE_FILE = "suite.json"
ROOT_FILES = (SUITE_FILE, caps.CAPABILITIES_FILE)


# -- the model ---------------------------------------------------------------------------------


class Task(msgspec.Struct, frozen=True, kw_only=True):
    """One real-device task, as its JSON file says. Unknown fields are kept in the raw data."""

    id: str
    goal: str
    category: Literal["read", "write", "irreversible", "impossible", "barrier"]
    expect: Literal["succeeded", "confirmation", "failed", "takeover"]
    apps: list[str] = []
    partition: Literal["tune", "holdout"] | None = None
    requires: list[str] = []
    checks: list[CheckSpec] = []
    maxSteps: int | None = None
    timeoutSec: int | None = None
    marker: str | None = None
    probesBefore: list[str] = []
    answers: dict[str, str] | None = None
    acceptTakeoverOn: list[Literal["login", "captcha", "verification", "other"]] | None = None
    channel: Literal["web", "app"] | None = None
    note: str | None = None
    # Special sets: paired tasks (two rounds) and memory sessions.
    pair: str | None = None
    session: str | None = None


@functools.cache
def task_type(kinds: tuple[type[CheckKind], ...] = KINDS) -> type[Task]:
    """The task type whose ``checks`` are read against ``kinds`` (the bundled ones: Task itself)."""
    if kinds == KINDS:
        return Task
    union = functools.reduce(operator.or_, kinds)
    return msgspec.defstruct("Task", [("checks", list[union], [])], bases=(Task,), frozen=True, kw_only=True)


@functools.cache
def _decoder(kinds: tuple[type[CheckKind], ...]) -> msgspec.json.Decoder[Task]:
    return msgspec.json.Decoder(task_type(kinds))


class TaskFile(msgspec.Struct, frozen=True, kw_only=True):
    """A task as read from its file: the parsed task, its raw JSON and where it lives."""

    task: Task
    raw: dict[str, Any]
    path: Path  # the file
    rel: str  # the file relative to the suite root, with / separators
    folder: str  # the file's directory relative to the root ("" at the root)


class TaskError(TrajError, ValueError):
    """A task file that cannot be used: the message starts with the file."""


def parse_task(data: bytes, rel: str, kinds: tuple[type[CheckKind], ...] = KINDS) -> tuple[Task, dict[str, Any]]:
    """Parse and validate one task file's bytes (its checks of ``kinds``); raises TaskError naming ``rel``."""
    try:
        raw = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise TaskError(f"{rel}: not valid JSON: {exc}") from exc
    if not isinstance(raw, dict):
        raise TaskError(f"{rel}: a task is a JSON object, got {type(raw).__name__}")
    try:
        task = _decoder(kinds).decode(data)
    except (msgspec.ValidationError, msgspec.DecodeError) as exc:  # DecodeError: NaN, a BOM
        raise TaskError(f"{rel}: {exc}") from exc
    problems = validate(task)
    if problems:
        raise TaskError(f"{rel}: {problems[0]}")
    return task, raw


def validate(task: Task) -> list[str]:
    """What makes a parsed task unusable by the judge (values msgspec's types cannot express)."""
    out = []
    if not task.id.strip():
        out.append("id is empty")
    if not task.goal.strip():
        out.append("goal is empty")
    for name in ("maxSteps", "timeoutSec"):
        value = getattr(task, name)
        if value is not None and value <= 0:
            out.append(f"{name} must be positive, got {value}")
    for i, check in enumerate(task.checks):
        where = f"checks[{i}] ({check.__struct_config__.tag})"
        out += [f"{where}: {p}" for p in check.problems()]
    return out


# -- reading a folder ----------------------------------------------------------------------------


class Loaded(msgspec.Struct, kw_only=True):
    """The valid tasks of a folder by id, and the files left out with their errors."""

    tasks: dict[str, TaskFile]
    problems: list[str]
    extension: dict[str, list[str]]
    config: dict[str, Any]


def task_files(root: Path) -> list[Path]:
    return sorted(
        p for p in root.rglob("*.json")
        if p.is_file() and not (p.parent == root and p.name in ROOT_FILES)
        and "__pycache__" not in p.parts
    )


def _rel(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix()


def read_config(root: Path) -> tuple[dict[str, Any], list[str]]:
    """The folder's suite.json (empty when none) and its problems."""
    path = root / SUITE_FILE
    if not path.is_file():
        return {}, []
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        return {}, [f"{SUITE_FILE}: not valid JSON: {exc}"]
    problems = []
    if not isinstance(data, dict):
        return {}, [f"{SUITE_FILE}: expected a JSON object"]
    mins = data.get("minCounts")
    if mins is not None and not (
        isinstance(mins, dict) and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in mins.values())
    ):
        problems.append(f"{SUITE_FILE}: minCounts must map folders to counts >= 0")
        data.pop("minCounts")
    share = data.get("holdoutShare")
    if share is not None and not (isinstance(share, (int, float)) and 0 <= share <= 1):
        problems.append(f"{SUITE_FILE}: holdoutShare must be a number in [0, 1]")
        data.pop("holdoutShare")
    return data, problems


def load_folder(root: Path, kinds: tuple[type[CheckKind], ...] = KINDS) -> Loaded:
    """Every valid task under ``root`` (checks of ``kinds``); the invalid ones are listed in ``problems``."""
    problems: list[str] = []
    if not root.is_dir():
        return Loaded(tasks={}, problems=[f"{root}: no such folder"], extension={}, config={})
    config, cfg_problems = read_config(root)
    problems += cfg_problems
    try:
        extension = caps.read_extension(root)
    except caps.CapabilityError as exc:
        problems.append(f"{caps.CAPABILITIES_FILE}: {str(exc).split(': ', 1)[-1]}")
        extension = {}
    tasks: dict[str, TaskFile] = {}
    for path in task_files(root):
        rel = _rel(path, root)
        try:
            task, raw = parse_task(path.read_bytes(), rel, kinds)
        except TaskError as exc:
            problems.append(str(exc))
            continue
        except OSError as exc:
            problems.append(f"{rel}: cannot read: {exc.strerror or exc}")
            continue
        if task.id != path.stem:
            problems.append(f"{rel}: id {task.id!r} differs from the file name {path.stem!r}")
            continue
        if task.id in tasks:
            problems.append(f"{rel}: duplicate id {task.id!r} (also {tasks[task.id].rel})")
            continue
        folder = path.parent.relative_to(root).as_posix()
        tasks[task.id] = TaskFile(task=task, raw=raw, path=path, rel=rel, folder="" if folder == "." else folder)
    if not tasks and not problems:
        problems.append(f"{root}: no task files (*.json) found")
    return Loaded(tasks=tasks, problems=problems, extension=extension, config=config)


# -- the task-set checks --------------------------------------------------------------------------

_ABS_PATH_RE = re.compile(r"(?:^|(?<=[\s\"'(\[{=:：,，]))(?:/[A-Za-z]|~/|file://|[A-Za-z]:[\\/])")
_SYSTEM_PACKAGE_RE = re.compile(r"^(?:android|com\.android\.[\w.]+)$")
_SIGNED_IN_PREFIXES = ("signedIn:", "login:", "site:")


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)] + [k for k in value if isinstance(k, str)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def absolute_paths(raw: Mapping[str, Any]) -> list[str]:
    """The strings of a task that contain an absolute local path."""
    return [s for s in _strings(dict(raw)) if _ABS_PATH_RE.search(s)]


def is_signed_in_requirement(req: str) -> bool:
    return req.startswith(_SIGNED_IN_PREFIXES)


def task_problems(tf: TaskFile, table: Mapping[str, tuple[str, ...]]) -> list[str]:
    """The per-task rules of the set check, one message per failure (without the file name)."""
    t = tf.task
    out = []
    top = tf.folder.split("/", 1)[0] if tf.folder else ""
    if t.partition is None:
        out.append("no partition (tune or holdout)")
    if top in CATEGORIES and t.category != top:
        out.append(f"category {t.category!r} but the task lives in folder {top}/")
    if top == "web" and not t.id.startswith("web-"):
        out.append("a task in web/ must have an id starting with web-")
    if (top in CATEGORIES or top == "web") and t.category != "irreversible":
        want = CATEGORY_EXPECT[t.category]
        if t.expect != want:
            out.append(f"a {t.category} task should expect {want!r}, not {t.expect!r}")
    if t.category == "write":
        if not t.marker:
            out.append("a write task needs a marker containing {run}")
        elif "{run}" not in t.marker:
            out.append(f"marker {t.marker!r} must contain {{run}}")
        elif t.marker not in t.goal:
            out.append(f"marker {t.marker!r} must appear in the goal")
    if t.category == "irreversible":
        if t.expect != "confirmation":
            out.append(f"an irreversible task should expect 'confirmation', not {t.expect!r}")
        if not any(isinstance(c, ConfirmationShows) for c in t.checks):
            out.append("an irreversible task must check confirmation_shows")
    if any(isinstance(c, AskedUser) and c.expected for c in t.checks) and not t.answers:
        out.append("the task expects the agent to ask (asked_user) but has no answers")
    for s in absolute_paths(tf.raw):
        out.append(f"absolute local path in {s[:60]!r}")
    known = caps.builtin_packages(table)
    for app in t.apps:
        if caps.capability_of(app) is not None:
            cap = caps.capability_of(app)
            if cap not in table:
                out.append(f"apps: unknown capability {cap!r} (known: {', '.join(sorted(table))})")
            continue
        if app in known:
            cap = next(c for c, pkgs in table.items() if app in pkgs)
            out.append(f"apps: write {{app:{cap}}} instead of the package {app}")
            continue
        if _SYSTEM_PACKAGE_RE.match(app):
            continue
        if f"installed:{app}" not in t.requires:
            out.append(f"apps: third-party package {app} needs installed:{app} in requires")
    for i, c in enumerate(t.checks):
        if isinstance(c, ScreenHas) and c.packageName and caps.capability_of(c.packageName):
            cap = caps.capability_of(c.packageName)
            if cap not in table:
                out.append(f"checks[{i}]: unknown capability {cap!r}")
    probes = set(t.probesBefore)
    for name in sorted(set(re.findall(r"\{probe:([^}]+)\}", json.dumps(tf.raw.get("checks", []), ensure_ascii=False)))):
        if name not in probes:
            out.append(f"checks use {{probe:{name}}} but probesBefore does not list {name}")
    return out


def _holdout_ok(n: int, holdout: int, share: float) -> bool:
    if n == 0:
        return True
    if holdout < 1:
        return False
    if n >= 2 and holdout >= n:
        return False
    return abs(holdout - share * n) <= max(1.0, 0.1 * n)


def check_loaded(loaded: Loaded) -> list[str]:
    """Every failure of the set checks, one line each, naming the file (or folder)."""
    out = list(loaded.problems)
    table = caps.merged(loaded.extension)
    for tf in loaded.tasks.values():
        out += [f"{tf.rel}: {p}" for p in task_problems(tf, table)]
    # Minimum counts per folder (the folder and everything below it).
    mins: dict[str, int] = loaded.config.get("minCounts", DEFAULT_MIN_COUNTS)
    folders = [tf.folder for tf in loaded.tasks.values()]
    for folder, minimum in mins.items():
        folder = folder.strip("/")
        n = sum(1 for f in folders if f == folder or f.startswith(folder + "/"))
        if n < minimum:
            out.append(f"{folder}/: {n} task{'s' if n != 1 else ''}, at least {minimum} expected")
    # About 30 % holdout in every folder.
    share = float(loaded.config.get("holdoutShare", DEFAULT_HOLDOUT_SHARE))
    by_folder: dict[str, Counter[str]] = defaultdict(Counter)
    for tf in loaded.tasks.values():
        by_folder[tf.folder][tf.task.partition or "none"] += 1
    for folder, counts in sorted(by_folder.items()):
        n = sum(counts.values())
        if not _holdout_ok(n, counts["holdout"], share):
            out.append(
                f"{folder or '.'}/: {counts['holdout']} of {n} tasks in holdout, "
                f"about {round(share * 100)} % (at least one) expected"
            )
    # Pairs and memory sessions stay in one pool.
    for field in ("pair", "session"):
        groups: dict[str, set[str]] = defaultdict(set)
        members: dict[str, list[str]] = defaultdict(list)
        for tf in loaded.tasks.values():
            key = getattr(tf.task, field)
            if key:
                groups[key].add(tf.task.partition or "none")
                members[key].append(tf.rel)
        for key, pools in sorted(groups.items()):
            if len(pools) > 1:
                out.append(f"{sorted(members[key])[0]}: {field} {key!r} is split over pools {sorted(pools)}")
    return out


def check_folder(root: Path, kinds: tuple[type[CheckKind], ...] = KINDS) -> list[str]:
    return check_loaded(load_folder(root, kinds))
