"""The import graph: rooms in one declared order, arrows only downward, no circle at all.

Every import counts, wherever it is written: at the top of a module, inside a function (an
import deferred to when it is used is still an arrow), or under ``TYPE_CHECKING``. A module
imports the rooms below its own and its own room's modules; a circle of modules is refused
even inside one room. docs/architecture.md draws the same order.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: The rooms, bottom to top. A module belongs to the longest room name it starts with.
ORDER: list[tuple[str, ...]] = [
    # the declaration and the shell's text helpers: leaves that the pure core may import
    ("trajectory.errors", "trajectory.events", "trajectory.columns", "trajectory.records", "trajectory.text",
     "trajectory.termsafe", "trajectory.redact"),
    ("replay",),
    ("judges",),
    ("suites",),
    ("trajectory.runtime",),
    ("trajectory.store",),
    ("trajectory.catalog",),
    ("trajectory.ingest",),
    ("trajectory.query",),
    ("trajectory.judging",),
    ("trajectory.llm",),
    ("trajectory.reports",),
    ("trajectory.engines",),
    ("trajectory.importers",),
    ("trajectory.demo",),
    ("trajectory.view",),
    ("trajectory.cli",),
    ("trajectory",),
    ("benchmarks",),
]

#: Arrows that still run upward, each to be removed by moving what both sides need below them.
#: The test fails on any arrow not listed here, and on a listed one that is gone (delete it).
KNOWN_UPWARD: set[tuple[str, str]] = set()


def _modules() -> dict[str, Path]:
    mods = {}
    for package in ("trajectory", "judges", "replay", "suites", "benchmarks"):
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            mods[".".join(parts)] = path
    return mods


def _graph() -> dict[str, set[str]]:
    mods = _modules()

    def known(name: str) -> str | None:
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for name, path in mods.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        out: set[str | None] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                out.update(known(a.name) for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    base = ".".join(up) + (f".{node.module}" if node.module else "")
                subs = [f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in mods]
                out.update(subs or [known(base)])
        graph[name] = {m for m in out if m and m != name}
    return graph


def _room(module: str) -> tuple[int, str]:
    best = (-1, "")
    for level, rooms in enumerate(ORDER):
        for room in rooms:
            if (module == room or module.startswith(room + ".")) and len(room) > len(best[1]):
                best = (level, room)
    assert best[0] >= 0, f"{module} is in no declared room: add it to ORDER"
    return best


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = 0
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in graph:
                    continue
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    m = stack.pop()
                    on.discard(m)
                    comp.append(m)
                    if m == node:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def test_there_is_no_import_circle() -> None:
    circles = _circles(_graph())
    assert not circles, "import circles (move what both sides need below them): " + "; ".join(
        " <-> ".join(c) for c in circles)


def test_every_arrow_runs_down_the_declared_order() -> None:
    graph = _graph()
    upward = {(a, b) for a, outs in graph.items() for b in outs if b in graph and _room(b)[0] > _room(a)[0]}
    new = sorted(upward - KNOWN_UPWARD)
    assert not new, "arrows up the order of rooms: " + ", ".join(f"{a} -> {b}" for a, b in new)
    gone = sorted(KNOWN_UPWARD - upward)
    assert not gone, f"no longer upward, delete from KNOWN_UPWARD: {gone}"


def test_the_graph_sees_imports_inside_functions() -> None:
    # The graph must not be blind to deferred imports: a known one is in it.
    assert "trajectory.judging.trust" in _graph()["trajectory.cli.store_cmds"]


def test_at_most_ten_modules_sit_directly_in_the_shell() -> None:
    top = sorted(p.name for p in (ROOT / "trajectory").glob("*.py") if p.name != "__init__.py")
    assert len(top) <= 10, top
