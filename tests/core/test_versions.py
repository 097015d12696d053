"""How judges.versions reads a module's imports: from its compiled code (a valid .pyc, or the
source compiled in memory), held equal to the reading of the source's syntax tree it replaced
(kept here as the oracle), with the one difference pinned: imports in code the compiler drops."""

from __future__ import annotations

import ast
import compileall
import dis
import os
import py_compile
import shutil
import sys
from importlib.util import cache_from_source
from pathlib import Path

import pytest

from judges import versions
from judges.versions import UnreadableImport, _code_imports, _imports

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("judges", "replay", "suites", "trajectory", "benchmarks", "tests")


# The reader judges.versions had before (ast), as it was: the oracle.
def _statements(tree: ast.AST):  # noqa: ANN202 - an iterator of ast.stmt
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


def ast_imports(name: str, path: str) -> frozenset[str]:
    tree = ast.parse(Path(path).read_bytes(), filename=path)
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
            out.update(f"{target}.{alias.name}" for alias in node.names if alias.name != "*")
    return frozenset(out)


def _name(root: Path, path: Path) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _sources(root: Path, packages: tuple[str, ...]) -> list[Path]:
    return sorted(p for package in packages for p in (root / package).rglob("*.py") if "__pycache__" not in p.parts)


def test_the_code_reader_finds_what_the_syntax_tree_reader_found_in_every_module_of_the_project() -> None:
    paths = _sources(ROOT, PACKAGES)
    assert {p.relative_to(ROOT).parts[0] for p in paths} == set(PACKAGES)
    differ = {}
    for path in paths:
        name = _name(ROOT, path)
        new, old = _imports(name, str(path)), ast_imports(name, str(path))
        if new != old:
            differ[str(path.relative_to(ROOT))] = {"only new": sorted(new - old), "only old": sorted(old - new)}
    assert not differ, f"{len(differ)} of the {len(paths)} files read differ: {differ}"
    print(f"{len(paths)} files read alike")


def _write(root: Path, rel: str, text: str) -> str:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return str(path)


RELATIVE = """\
from . import x
from .y import z
from .. import w
from ..v import (u, t)
"""


def test_relative_imports_resolve_against_the_package_of_a_module_or_of_an_init(tmp_path: Path) -> None:
    # The same text as pkg/sub.py (in package pkg) and as pkg/sub/__init__.py (package pkg.sub itself).
    module = _write(tmp_path / "m", "pkg/sub.py", RELATIVE)
    init = _write(tmp_path / "i", "pkg/sub/__init__.py", RELATIVE)
    deep = _write(tmp_path / "d", "pkg/sub/mod.py", RELATIVE)
    assert _imports("pkg.sub", module) == ast_imports("pkg.sub", module) == {
        "pkg", "pkg.x", "pkg.y", "pkg.y.z", "", ".w", ".v", ".v.u", ".v.t"}  # level 2 above pkg: as before
    assert _imports("pkg.sub", init) == ast_imports("pkg.sub", init) == {
        "pkg.sub", "pkg.sub.x", "pkg.sub.y", "pkg.sub.y.z", "pkg", "pkg.w", "pkg.v", "pkg.v.u", "pkg.v.t"}
    assert _imports("pkg.sub.mod", deep) == ast_imports("pkg.sub.mod", deep) == _imports("pkg.sub", init)


EVERYWHERE = """\
from __future__ import annotations
import a.b.c
import a.b as c
import d, e.f
from g import (h, i)
from j import *
try:
    import t1
except ImportError:
    import t2
else:
    import t3
finally:
    import t4
with open(__file__) as fh:
    import w1
while fh is None:
    import l1
for _ in ():
    import l2
match fh:
    case 1:
        import m1
    case _:
        from m2 import n2
def outer():
    import f1
    squares = [lambda: k * k for k in range(3)]
    def inner():
        from f2 import g2
        return {k: k for k in squares}
    class Local:
        import f3
    return inner, Local, (k for k in squares)
class K:
    import k1
    def method(self):
        from k2 import k3
    class Nested:
        import k4
async def coro():
    import a1
    async with coro() as x:
        import a2
lam = lambda: __import__("not_a_statement")
"""


def test_imports_are_found_at_every_depth_and_in_every_statement(tmp_path: Path) -> None:
    path = _write(tmp_path, "everywhere.py", EVERYWHERE)
    expected = {"__future__", "__future__.annotations", "a.b.c", "a.b", "d", "e.f", "g", "g.h", "g.i", "j",
                "t1", "t2", "t3", "t4", "w1", "l1", "l2", "m1", "m2", "m2.n2", "f1", "f2", "f2.g2", "f3",
                "k1", "k2", "k2.k3", "k4", "a1", "a2"}
    assert _imports("everywhere", path) == ast_imports("everywhere", path) == expected


DEAD = """\
import live
if False:
    import dead_if
def f():
    return 1
    import dead_after_return
"""


def test_imports_in_code_the_compiler_drops_are_no_longer_counted(tmp_path: Path) -> None:
    # The accepted difference from the syntax tree: such an import can never run.
    path = _write(tmp_path, "dead.py", DEAD)
    assert ast_imports("dead", path) == {"live", "dead_if", "dead_after_return"}
    assert _imports("dead", path) == {"live"}


def test_arguments_past_one_byte_are_read_whole(tmp_path: Path) -> None:
    # 300 names and constants first: the import's constants and name need EXTENDED_ARG.
    text = "".join(f"x{k} = {k}\n" for k in range(300)) + "from .deep import thing\nimport far.away\n"
    path = _write(tmp_path, "pkg/big.py", text)
    code = compile(text, path, "exec", dont_inherit=True)
    assert "EXTENDED_ARG" in {i.opname for i in dis.get_instructions(code)}
    assert _imports("pkg.big", path) == ast_imports("pkg.big", path) == {"pkg.deep", "pkg.deep.thing", "far.away"}


def _level_not_loaded(code):  # noqa: ANN001, ANN202 - a code object
    """``code`` with the LOAD_CONST of its import's level made a NOP."""
    raw = bytearray(code.co_code)
    at = next(i.offset for i in dis.get_instructions(code) if i.opname == "IMPORT_NAME")
    assert raw[at - 4] == dis.opmap["LOAD_CONST"]
    raw[at - 4 : at - 2] = bytes([dis.opmap["NOP"], 0])
    return code.replace(co_code=bytes(raw))


def test_an_import_of_a_shape_the_reader_does_not_know_raises() -> None:
    code = compile("import a", "<case>", "exec", dont_inherit=True)
    assert list(_code_imports(code)) == [(0, None, "a")]
    with pytest.raises(UnreadableImport, match="NOP"):
        list(_code_imports(_level_not_loaded(code)))
    outer = compile("def f():\n    import a\n", "<case>", "exec", dont_inherit=True)
    consts = tuple(_level_not_loaded(c) if hasattr(c, "co_code") else c for c in outer.co_consts)
    with pytest.raises(UnreadableImport, match="NOP"):  # in nested code too
        list(_code_imports(outer.replace(co_consts=consts)))
    level, fromlist = (code.co_consts.index(v) for v in (0, None))
    for values in (("0", None), (1, None), (0, (1,)), (-1, ("b",)), (True, None)):
        consts = [None] * len(code.co_consts)
        consts[level], consts[fromlist] = values
        with pytest.raises(UnreadableImport):
            list(_code_imports(code.replace(co_consts=tuple(consts))))


def _copy(root: Path) -> Path:
    for package in ("judges", "replay", "suites", "trajectory"):
        shutil.copytree(ROOT / package, root / package, ignore=shutil.ignore_patterns("__pycache__"))
    return root


def test_reading_a_valid_pyc_and_compiling_the_source_agree_and_nothing_is_written(tmp_path: Path, monkeypatch) -> None:
    with_pyc, without = _copy(tmp_path / "with"), _copy(tmp_path / "without")
    assert compileall.compile_dir(str(with_pyc), quiet=1, invalidation_mode=py_compile.PycInvalidationMode.TIMESTAMP)
    monkeypatch.setattr(sys, "dont_write_bytecode", False)  # what importlib would need to be told not to write

    def no_compiling(*args: object, **kwargs: object) -> None:
        raise AssertionError("compiled the source though a valid .pyc is there")

    paths = _sources(with_pyc, ("judges", "replay", "suites", "trajectory"))
    with monkeypatch.context() as m:
        m.setattr(versions._ReadingLoader, "source_to_code", no_compiling)
        from_pyc = {_name(with_pyc, p): _imports(_name(with_pyc, p), str(p)) for p in paths}
    from_source = {_name(without, p): _imports(_name(without, p), str(p))
                   for p in _sources(without, ("judges", "replay", "suites", "trajectory"))}
    assert from_pyc == from_source and len(from_pyc) == len(paths) > 100
    assert not list(without.rglob("__pycache__")), "a .pyc was written"


def test_a_valid_pyc_is_what_is_read_and_a_stale_one_is_not(tmp_path: Path) -> None:
    path = Path(_write(tmp_path, "mod.py", "import alpha\n"))
    py_compile.compile(str(path), cfile=cache_from_source(str(path)), doraise=True,
                       invalidation_mode=py_compile.PycInvalidationMode.TIMESTAMP)
    st = path.stat()
    path.write_text("import gamma\n", encoding="utf-8")  # same size, same time: the .pyc stays valid
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert _imports("mod", str(path)) == {"alpha"}  # so the .pyc was read, as an import would
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 10**10))
    assert _imports("mod", str(path)) == {"gamma"}  # source newer than the .pyc: compiled from the source


def test_code_this_reader_cannot_read_falls_back_to_the_source(tmp_path, monkeypatch) -> None:
    # A newer Python's import instructions: the imports still count, read from the statements.
    from judges import versions

    source = tmp_path / "mod.py"
    source.write_text("import judges.tokens\ndef f():\n    from replay import fold\n")

    def unreadable(code):
        raise UnreadableImport("a shape this reader was not taught")
        yield  # pragma: no cover

    monkeypatch.setattr(versions, "_code_imports", unreadable)
    versions._imports_of.cache_clear()
    try:
        assert _imports("", str(source)) == {"judges.tokens", "replay", "replay.fold"}
    finally:
        versions._imports_of.cache_clear()
