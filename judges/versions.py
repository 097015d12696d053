"""What a judge version covers: every module a suite's verdicts depend on, found from imports.

A verdict is a function of the suite's code and task data, of ``judges`` (where outcome, score
and reason are computed, and the matchers), of ``replay`` (which builds the state the judge
reads) and of the event types. Listing those modules by hand would go stale, so they are found
by walking the imports of the suite's own modules, transitively: every module of the packages
:data:`PACKAGES` (and of the suite's own package, which may be a copy loaded from a folder under a
made-up name) that is reached counts. Importing ``a.b`` runs ``a/__init__.py`` too, so a package's
``__init__`` counts with its submodules.

A module's imports are read from its compiled code, the way Python itself would get it: the valid
``.pyc`` in ``__pycache__`` when there is one, the source compiled in memory otherwise (nothing is
executed, and no ``.pyc`` is written). There each module an import statement names, at any depth
(in functions, classes, ``try`` blocks), is one IMPORT_NAME instruction. An import in code the
compiler drops because it can never run (under ``if False:``, after a ``return``) does not count.
A compiler whose import instructions the reader does not know (a newer Python) gets the
source's import statements read instead (``ast``), where every import counts.

A suite may declare more code in ``code_modules``: a module, a module's name, or the path of a
source file that was loaded by hand (not importable by name). Each counts wherever it lives and
brings its own code along: its whole top-level package when it is in one, the modules beside it
when it is not (a scorer file's helper modules in the user's folder). Code installed in
site-packages (or the standard library) counts only as the declared file itself: a third party's
package is not walked.
"""

from __future__ import annotations

import ast
import dis
import hashlib
import importlib.machinery
import importlib.util
import sys
import sysconfig
import threading
from collections.abc import Iterable, Iterator
from functools import lru_cache
from pathlib import Path
from types import CodeType, ModuleType

#: Whose modules can decide a verdict. ``trajectory.events`` is the leaf module of event types and
#: ``trajectory.columns`` what replay derives from them (the figures of a state); nothing else of
#: the shell is reachable from the pure core.
PACKAGES = ("judges", "replay", "suites", "trajectory.events", "trajectory.columns")


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


class _ReadingLoader(importlib.machinery.SourceFileLoader):
    """importlib's own loader of a source file, whose ``get_code`` returns the code of a valid
    ``.pyc`` (in ``__pycache__``, checked against the source's modification time and size, or its
    hash) and compiles the source otherwise, but which never writes a ``.pyc``: importlib's source
    loaders write bytecode only through ``set_data`` (``importlib.abc.SourceLoader``), which does
    nothing here. (``sys.dont_write_bytecode`` would stop the write too, but it is the user's.)"""

    def set_data(self, path: str, data: bytes, *args: object, **kwargs: object) -> None:
        pass


_IMPORT_NAME = dis.opmap["IMPORT_NAME"]
_LOAD_CONST = dis.opmap["LOAD_CONST"]
_EXTENDED_ARG = dis.EXTENDED_ARG
_IMPORT_NAME_BYTE = bytes([_IMPORT_NAME])


class UnreadableImport(ValueError):
    """An IMPORT_NAME instruction not in the shape this reader knows: raised, so that an import is
    never dropped without a word (a new Python's compiler may need this reader taught)."""


def _instruction(raw: bytes, at: int, op: int, where: CodeType) -> tuple[int, int]:
    """The argument of the instruction ``op`` whose code unit is at offset ``at`` of ``raw``
    (with the EXTENDED_ARG units before it folded in) and the offset its first unit starts at.
    Code units are two bytes, opcode and argument; the cache entries in ``co_code`` are units of
    opcode 0, so a unit of opcode EXTENDED_ARG is always the prefix of the unit after it."""
    if at < 0 or raw[at] != op:
        found = dis.opname[raw[at]] if at >= 0 else "the start of the code"
        raise UnreadableImport(f"{where.co_filename}:{where.co_name}: {found} (at offset {at}) where an "
                               f"import needs {dis.opname[op]}")
    arg, shift = raw[at + 1], 8
    while at >= 2 and raw[at - 2] == _EXTENDED_ARG:
        at -= 2
        arg |= raw[at + 1] << shift
        shift += 8
    return arg, at


def _code_imports(code: CodeType) -> Iterator[tuple[int, tuple[str, ...] | None, str]]:
    """(level, fromlist, module name) of every import of ``code`` and of the code nested in it
    (functions, classes, lambdas, comprehensions are code objects among ``co_consts``).

    The compiler makes each import statement ``LOAD_CONST level; LOAD_CONST fromlist;
    IMPORT_NAME module``: ``import a.b`` is (0, None, "a.b"), ``from ..a import b, c`` is
    (2, ("b", "c"), "a"), ``from . import x`` is (1, ("x",), ""). Any other shape raises."""
    todo = [code]
    while todo:
        co = todo.pop()
        todo.extend(c for c in co.co_consts if isinstance(c, CodeType))
        raw = co.co_code
        at = raw.find(_IMPORT_NAME_BYTE)
        while at != -1:
            if at % 2 == 0:  # an opcode, not an argument byte
                name, start = _instruction(raw, at, _IMPORT_NAME, co)
                fromlist, start = _instruction(raw, start - 2, _LOAD_CONST, co)
                level, _ = _instruction(raw, start - 2, _LOAD_CONST, co)
                level, fromlist, module = co.co_consts[level], co.co_consts[fromlist], co.co_names[name]
                if not (type(level) is int and level >= 0 and (
                        (fromlist is None and level == 0)
                        or (type(fromlist) is tuple and all(type(n) is str for n in fromlist)))):
                    raise UnreadableImport(f"{co.co_filename}:{co.co_name}: an import of {module!r} "
                                           f"with level {level!r} and fromlist {fromlist!r}")
                yield level, fromlist, module
            at = raw.find(_IMPORT_NAME_BYTE, at + 1)


def _imports(name: str, path: str) -> frozenset[str]:
    """Module names the code of ``name`` imports (wherever the import statement is).

    Memoised per process and per version of the file (its size and modification time): the
    suites of one pass share most modules (judges, replay, events).
    """
    stat = Path(path).stat()
    return _imports_of(name, path, stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=4096)
def _imports_of(name: str, path: str, mtime_ns: int, size: int) -> frozenset[str]:
    package = name if Path(path).name == "__init__.py" else name.rpartition(".")[0]
    try:
        found = list(_code_imports(_ReadingLoader(name, path).get_code(name)))
    except UnreadableImport:
        # A compiler whose import instructions this reader does not know (a newer Python than
        # it was taught): the source's own statements say the same, more slowly.
        found = list(_source_imports(Path(path).read_bytes(), path))
    out: set[str] = set()
    for level, fromlist, module in found:
        if fromlist is None:  # ``import a.b`` (``as c`` or not)
            out.add(module)
            continue
        if level:
            parts = package.split(".")
            base = ".".join(parts[: len(parts) - level + 1])
            target = f"{base}.{module}" if module else base
        else:
            target = module
        out.add(target)
        # ``from pkg import name``: name may be a submodule.
        out.update(f"{target}.{n}" for n in fromlist if n != "*")
    return frozenset(out)


# CPython's ast module (3.11 here) keeps its constructor's recursion counter in state that threads
# share, so two threads parsing at once can fail with "AST constructor recursion depth mismatch"
# (python/cpython#106905): parsing, the fallback only, is done one file at a time. Compiling and
# loading a .pyc share no such state.
_PARSING = threading.Lock()


def _source_imports(source: bytes, path: str) -> Iterator[tuple[int, tuple[str, ...] | None, str]]:
    """(level, fromlist, module) of every import statement of ``source``, as
    :func:`_code_imports` reads them from code (imports in dead code included)."""
    with _PARSING:
        tree = ast.parse(source, filename=path)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield 0, None, alias.name
        elif isinstance(node, ast.ImportFrom):
            yield node.level, tuple(alias.name for alias in node.names), node.module or ""


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
