"""The layout holds: a pure core that loads nothing heavy, judges that never import suites,
and no module over 600 lines."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# What the pure core must never load (the store, SQL, Arrow, the CLI, the network, our clock).
FORBIDDEN = (
    "deltalake", "duckdb", "pyarrow", "polars", "typer", "click", "urllib.request", "http.client",
    "socket", "ssl", "trajectory.store", "trajectory.ingest", "trajectory.query", "trajectory.judging",
    "trajectory.llm", "trajectory.cli", "trajectory.reports", "trajectory.runtime", "trajectory.catalog",
    "trajectory.importers", "trajectory.engines", "trajectory.view", "trajectory.demo",
)

CORE = ["replay", "judges", "suites", "suites.example", "suites.selfevo", "suites.device", "suites.gui",
        "suites.inspect", "suites.inspect.adapter", "suites.inspect.keys", "judges.imported",
        "replay.batch", "judges.matchers", "judges.contract", "trajectory.events", "trajectory.columns",
        "trajectory.records"]


def _loaded_after(module: str) -> set[str]:
    code = f"import sys, json, importlib; importlib.import_module({module!r}); print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    return set(json.loads(out.stdout))


@pytest.mark.parametrize("module", CORE)
def test_the_pure_core_loads_nothing_heavy(module: str) -> None:
    loaded = _loaded_after(module)
    bad = sorted(m for m in loaded if any(m == f or m.startswith(f + ".") for f in FORBIDDEN))
    assert not bad, f"import {module} loads {bad}"


@pytest.mark.parametrize("module", ["suites.inspect.adapter", "suites.inspect.keys"])
def test_the_inspect_adapter_loads_inspect_ai_only_when_scorers_run(module: str) -> None:
    # `traj` works without the `inspect` extra; the importers use keys.py without inspect-ai too.
    assert not [m for m in _loaded_after(module) if m == "inspect_ai" or m.startswith("inspect_ai.")]


def _imports(path: Path) -> set[str]:
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            out.add(node.module)
    return out


def test_judges_never_import_suites() -> None:
    for path in (ROOT / "judges").rglob("*.py"):
        assert not [m for m in _imports(path) if m == "suites" or m.startswith("suites.")], path


def test_the_pure_core_imports_only_the_leaf_modules_of_the_shell() -> None:
    leaves = {"trajectory", "trajectory.events", "trajectory.errors", "trajectory.columns"}
    for package in ("judges", "replay", "suites"):
        for path in (ROOT / package).rglob("*.py"):
            shell = {m for m in _imports(path) if m.startswith("trajectory")}
            assert shell <= leaves, (path, shell - leaves)


def test_no_module_is_over_600_lines() -> None:
    for package in ("trajectory", "judges", "replay", "suites", "benchmarks", "tests"):
        for path in (ROOT / package).rglob("*.py"):
            n = len(path.read_text(encoding="utf-8").splitlines())
            assert n <= 600, f"{path.relative_to(ROOT)} has {n} lines"


def test_every_test_file_name_is_unique_across_the_parts() -> None:
    # The test folders are not packages, so pytest imports each file by its bare name: two parts
    # holding the same name make the second one an error at collection.
    seen: dict[str, Path] = {}
    for path in sorted((ROOT / "tests").rglob("test_*.py")):
        assert path.name not in seen, f"{path.relative_to(ROOT)} and {seen[path.name].relative_to(ROOT)} share a name"
        seen[path.name] = path


def test_judging_is_no_longer_one_module() -> None:
    assert not (ROOT / "trajectory" / "judging.py").exists()
    for path in (ROOT / "trajectory" / "judging").glob("*.py"):
        assert len(path.read_text(encoding="utf-8").splitlines()) <= 400, path


# The one exception: the query worker is forked from a fork server, itself a spawned process
# that only imports (it runs no DuckDB or delta-rs before it forks), so that each query costs a
# fork rather than an interpreter start (trajectory/query/worker.py says why).
FORKSERVER = ("trajectory/query/worker.py",)


def test_every_process_pool_spawns() -> None:
    """deltalake refuses to run in a forked child, and forking a process that runs DuckDB or
    delta-rs threads can deadlock it: every pool or process the shell starts uses spawn."""
    import ast

    starters = {"ProcessPoolExecutor", "Pool", "Process"}
    found = 0
    for package in ("trajectory", "benchmarks"):
        for path in (ROOT / package).rglob("*.py"):
            if str(path.relative_to(ROOT)) in FORKSERVER:
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.Call):
                    fn = node.func
                    name = fn.attr if isinstance(fn, ast.Attribute) else getattr(fn, "id", "")
                    if name in starters:
                        found += 1
                        keywords = {k.arg for k in node.keywords}
                        owner = ast.unparse(fn)
                        assert "mp_context" in keywords or owner.startswith("mp.") or "spawn" in owner, (
                            f"{path.relative_to(ROOT)}:{node.lineno}: {owner}() without a spawn context")
                if isinstance(node, ast.Call) and ast.unparse(node.func).endswith("get_context"):
                    assert [ast.literal_eval(a) for a in node.args] == ["spawn"], f"{path}:{node.lineno}"
    assert found >= 1

