"""Issue 23, item 11: the docs' steps work for someone who ran only the README's first command.

docs/suites.md's console steps run after `pip install -e .` alone: a program or module the
base install does not bring (pytest) is installed by an earlier step of the page. The README's
cluster example stops only the cluster it started (`ray stop` stops every Ray on the machine).
"""

from __future__ import annotations

import re
import shlex
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def console_steps(text: str) -> list[list[str]]:
    out = []
    for m in re.finditer(r"^```console\n(.*?)^```", text, re.S | re.M):
        for x in m.group(1).splitlines():
            if x.startswith("$ "):
                out.append(shlex.split(x[2:], comments=True))
    return out


def base_packages() -> set[str]:
    """What `pip install -e .` installs by name: traj's own packages and its dependencies."""
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())
    deps = {re.split(r"[\[<>=!~; ]", d, maxsplit=1)[0].lower().replace("-", "_")
            for d in meta["project"]["dependencies"]}
    return deps | {"trajectory", "judges", "replay", "suites", "benchmarks"}


def test_every_module_the_suites_page_runs_is_installed_by_then() -> None:
    installed = base_packages()
    missing = []
    for argv in console_steps((ROOT / "docs" / "suites.md").read_text(encoding="utf-8")):
        if argv[:3] == ["pip", "install", "-q"] or argv[:2] == ["pip", "install"]:
            installed |= {a.lower().replace("-", "_") for a in argv[2:] if not a.startswith("-")}
        elif argv[0] == "python" and argv[1] == "-m":
            if argv[2].split(".")[0].lower() not in installed:
                missing.append(" ".join(argv))
        elif argv[0] not in ("traj", "python"):
            missing.append(" ".join(argv))  # another program: the page must install it first
    assert not missing, f"docs/suites.md runs {missing} after `pip install -e .`, which installs none of it"


def cluster_block() -> list[list[str]]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = [m.group(1) for m in re.finditer(r"^```console\n(.*?)^```", text, re.S | re.M) if "ray start" in m.group(1)]
    assert len(blocks) == 1, "the README has one cluster example"
    return console_steps("```console\n" + blocks[0] + "```\n")


def test_the_readme_cluster_example_stops_only_its_own_cluster() -> None:
    steps = cluster_block()
    assert not any(argv[:2] == ["ray", "stop"] for argv in steps), "`ray stop` stops every Ray cluster on the machine"
    [start] = [argv for argv in steps if "ray" in argv and "start" in argv]
    assert "--block" in start and start[-1].startswith("RAY_HEAD=$!"), start  # the head is this process
    assert steps[-1][:2] == ["kill", "$RAY_HEAD"], steps[-1]
