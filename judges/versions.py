"""What a judge version covers: every module a suite's verdicts depend on, found from imports.

A verdict is a function of the suite's code and task data, of ``judges`` (where outcome, score
and reason are computed, and the matchers), of ``replay`` (which builds the state the judge
reads) and of the event types. Listing those modules by hand would go stale, so they are found
by walking the imports of the suite's own modules, transitively, through the source (``ast``,
nothing is executed): every module of the packages :data:`PACKAGES` (and of the suite's own
package, which may be a copy loaded from a folder under a made-up name) that is reached counts.
Importing ``a.b`` runs ``a/__init__.py`` too, so a package's ``__init__`` counts with its
submodules.

A suite may declare more code in ``code_modules``: a module, a module's name, or the path of a
source file that was loaded by hand (not importable by name). Each counts wherever it lives and
brings its own code along: its whole top-level package when it is in one, the modules beside it
when it is not (a scorer file's helper modules in the user's folder). Code installed in
site-packages (or the standard library) counts only as the declared file itself: a third party's
package is not walked.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import sys
import sysconfig
import threading
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from types import ModuleType

#: Whose modules can decide a verdict. ``trajectory.events`` is the leaf module of event types and
#: ``trajectory.columns`` what replay derives from them (the figures of a state); nothing else of
#: the shell is reachable from the pure core.
PACKAGES = ("judges", "replay", "suites", "trajectory.events", "trajectory.columns")


# CPython's ast module (3.11 here) keeps its constructor's recursion counter in state that threads
# share, so two threads parsing at once can fail with "AST constructor recursion depth mismatch"
# (python/cpython#106905, pytest-dev/pytest#10763). Two passes judged at once in one process each
# compute versions, so parsing is done one file at a time.
_PARSING = threading.Lock()


def _within(name: str, roots: tuple[str, ...]) -> bool:
    return any(name == r or name.startswith(r + ".") for r in roots)


@lru_cache(maxsize=4096)
def _origin(name: str) -> str | None:
    """The source file of module ``name``, or None when it is not a Python source module."""
    module = sys.modules.get(name)
    path = getattr(module, "__file__", None) if module is not None else None
    if path is None:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError, AttributeError):
            return None
        path = spec.origin if spec is not None else None
    return path if path and path.endswith(".py") else None


def _statements(tree: ast.AST):  # noqa: ANN202 - an iterator of ast.stmt
    """Every statement of a module, at any depth (an import is a statement: expressions are
    not looked into, which is most of a module's nodes)."""
    todo = [tree]
    while todo:
        node = todo.pop()
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            children = getattr(node, field, None)
            if isinstance(children, list):
                for child in children:
                    if isinstance(child, (ast.stmt, ast.excepthandler, ast.match_case)):
                        todo.append(child)
                        if isinstance(child, ast.stmt):
                            yield child


def _imports(name: str, path: str) -> frozenset[str]:
    """Module names the source of ``name`` imports (wherever the import statement is).

    Memoised per process and per version of the file (its size and modification time): the
    suites of one pass share most modules (judges, replay, events).
    """
    stat = Path(path).stat()
    return _imports_of(name, path, stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=4096)
def _imports_of(name: str, path: str, mtime_ns: int, size: int) -> frozenset[str]:
    source = Path(path).read_bytes()
    with _PARSING:
        tree = ast.parse(source, filename=path)
    package = name if Path(path).name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in _statements(tree):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1])
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module or ""
            out.add(target)
            # ``from pkg import name``: name may be a submodule.
            out.update(f"{target}.{alias.name}" for alias in node.names if alias.name != "*")
    return frozenset(out)


def _with_parents(name: str) -> list[str]:
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts) + 1)]


Code = ModuleType | str | Path
"""What a suite declares in ``code_modules``: a module, a module name, or a source file's path."""


def dependencies(modules: Iterable[Code], extra_roots: Iterable[str] = ()) -> dict[str, str]:
    """Module name -> source file, for ``modules`` and everything they import within
    :data:`PACKAGES` and ``extra_roots`` (transitively). A module given as an object or a path
    counts wherever it lives (a path is listed under its own text)."""
    roots = PACKAGES + tuple(extra_roots)
    todo: list[str] = []
    found: dict[str, str] = {}
    for m in modules:
        if isinstance(m, str):
            todo.append(m)
            continue
        name, path = (m.__name__, getattr(m, "__file__", None)) if isinstance(m, ModuleType) else (str(m), str(m))
        if path is None or not path.endswith(".py") or name in found:
            continue
        found[name] = path
        todo.extend(_with_parents(name)[:-1] if isinstance(m, ModuleType) else [])
        todo.extend(i for i in _imports(name if isinstance(m, ModuleType) else "", path) if _within(i, roots))
    while todo:
        name = todo.pop()
        for candidate in _with_parents(name):
            if candidate in found or not _within(candidate, roots):
                continue
            path = _origin(candidate)
            if path is None:
                continue
            found[candidate] = path
            todo.extend(i for i in _imports(candidate, path) if _within(i, roots))
    return found


@lru_cache(maxsize=1)
def _installed_folders() -> tuple[Path, ...]:
    paths = sysconfig.get_paths()
    return tuple({Path(paths[k]).resolve() for k in ("stdlib", "platstdlib", "purelib", "platlib") if k in paths})


def _installed(path: Path) -> bool:
    """Whether a source file is the interpreter's or an installed distribution's."""
    path = path.resolve()
    return any(part in ("site-packages", "dist-packages") for part in path.parts) or any(
        path.is_relative_to(folder) for folder in _installed_folders()
    )


def _roots_of(code: Code) -> tuple[str, ...]:
    """The module names whose code a declared module brings along (see the module docstring)."""
    if isinstance(code, str):
        return (code.split(".")[0],)
    name, file = (code.__name__, getattr(code, "__file__", None)) if isinstance(code, ModuleType) else ("", str(code))
    if file is None or _installed(Path(file)):
        return ()
    if "." in name or Path(file).name == "__init__.py":
        return (name.split(".")[0],)
    folder = Path(file).parent  # a module outside any package: the modules beside it
    return tuple(sorted(
        {p.stem for p in folder.glob("*.py")} | {p.parent.name for p in folder.glob("*/__init__.py")}
    ))


def files_hash(paths: Iterable[str]) -> str:
    """A content hash of source files, independent of their names and order (a copy of a suite
    loaded from a folder under a made-up package name hashes like the original)."""
    digests = sorted(hashlib.blake2b(Path(p).read_bytes(), digest_size=16).digest() for p in set(paths))
    h = hashlib.blake2b(digest_size=8)
    for d in digests:
        h.update(d)
    return h.hexdigest()


def suite_modules(suite: object) -> dict[str, str]:
    """Every module the verdicts of ``suite`` depend on (see the module docstring)."""
    own = type(suite).__module__
    declared: list[Code] = list(getattr(suite, "code_modules", ()) or ())
    roots = {own.split(".")[0]}.union(*(_roots_of(m) for m in declared))
    return dependencies([own, *declared], extra_roots=sorted(roots))
