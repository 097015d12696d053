"""The reference agent, offline: deterministic sample runs for the self-evolution suite.

A controllable stand-in for a self-evolving agent, with behaviour set by a profile:

- ``strong``: searches with the task's own vocabulary, reads the recommended library's page,
  picks the recommended library, writes a careful tool (docstring, argument checks, errors
  wrapped), registers it, and on the second, similar task retrieves it from its registry.
- ``weak``: searches vaguely, picks the task's first deprecated (else paid) option, writes a
  bare stub, and redoes everything on the second task.
- ``hasty`` (not in the seed): like strong, but on task-05 it picks psaw, an outdated wrapper
  the dataset's pitfall list does not name -- the case the demo's broken rule is about -- and on
  task-17 it makes no second attempt (so L4 is n/a there).

Every profile answers with the task's ``mock_answer``, as the harness's reference agent does offline: that
is why a weak agent can still score on L1. Pure: the demo records these runs through the
Recorder (trajectory/demo/samples/selfevo.py); tests judge them without a store.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from suites.selfevo.trajectories import trajectory_from_steps

@dataclass(frozen=True)
class Profile:
    name: str
    good_discovery: bool
    careful_tools: bool
    reuses: bool
    # task id -> library chosen instead of the recommended one
    picks: dict[str, str] = field(default_factory=dict)
    # task ids attempted (None: all), and those with no second attempt
    only: tuple[str, ...] | None = None
    no_second: tuple[str, ...] = ()


STRONG = Profile("strong", good_discovery=True, careful_tools=True, reuses=True)
WEAK = Profile("weak", good_discovery=False, careful_tools=False, reuses=False)
HASTY = Profile(
    "hasty",
    good_discovery=True,
    careful_tools=True,
    reuses=True,
    picks={"task-05": "psaw"},
    only=("task-05", "task-17"),
    no_second=("task-17",),
)
PROFILES = (STRONG, WEAK, HASTY)


def module_name(library: str) -> str:
    """The importable name a library string suggests ("youtube-transcript-api" ->
    "youtube_transcript_api"); prose such as "Dark Sky API（…）" falls back to requests."""
    m = re.match(r"[A-Za-z][A-Za-z0-9_.-]*", library.strip())
    name = m.group(0).replace("-", "_").rstrip(".") if m else ""
    return name or "requests"


def stub_tool(tool: str, library: str) -> str:
    mod = module_name(library)
    return f"def {tool}(x):\n    import {mod}\n    return {mod}.run(x)\n"


def careful_tool(task: dict[str, Any], library: str) -> str:
    mod = module_name(library)
    tool = task["tool_name"]
    goal = task["goal"].replace('"', "'")
    return (
        f"import {mod}\n\n\n"
        f"def {tool}(query: str, timeout: int = 30):\n"
        f'    """{goal}\n\n'
        "    Args:\n"
        "        query: what to act on (a URL, an id or a search string); must not be empty.\n"
        "        timeout: seconds to wait for the network; a positive integer.\n"
        "    Returns:\n"
        "        The tool's result.\n"
        "    Raises:\n"
        "        ValueError: an argument is invalid.\n"
        "        RuntimeError: the underlying call failed.\n"
        '    """\n'
        "    if not isinstance(query, str) or not query.strip():\n"
        "        raise ValueError('query must be a non-empty string')\n"
        "    if not isinstance(timeout, int) or timeout <= 0:\n"
        "        raise ValueError('timeout must be a positive integer')\n"
        "    try:\n"
        f"        return {mod}.run(query, timeout=timeout)\n"
        "    except Exception as exc:\n"
        f"        raise RuntimeError(f'{tool} failed: {{exc}}') from exc\n"
    )


class ReferenceAgent:
    """One profile with its own tool registry, shared across its tasks (that is what reuse is)."""

    def __init__(self, profile: Profile):
        self.profile = profile
        self.registry: dict[str, str] = {}

    def discover(self, task: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
        if self.profile.good_discovery:
            words = task.get("discovery_keywords", [])[:3]
            query = " ".join(words) if words else task["goal"]
            library = self.profile.picks.get(task["id"], task["reference_solution"]["libraries"][0])
            page = library.split("(")[0].strip()
            return [
                {"action": "search", "query": f"{query} python library"},
                {"action": "read_web", "url": f"https://pypi.org/project/{page}/"},
                {"action": "select_library", "library": library},
            ], library
        pit = task.get("known_pitfalls", {})
        # The reference agent knows the harness's original dataset, whose lists did not name
        # psaw (traj's does; see trajectory/demo/broken.py), so psaw is never its pick.
        deprecated = [lib for lib in pit.get("deprecated_libraries") or [] if not lib.startswith("psaw")]
        library = (deprecated or pit.get("paid_or_registration_apis") or ["requests"])[0]
        return [
            {"action": "search", "query": "how to do this quickly easy python"},
            {"action": "select_library", "library": library},
        ], library

    def attempt(self, task: dict[str, Any], second: bool) -> dict[str, Any]:
        """One attempt, as a trajectory in the self-evolution harness's schema."""
        goal = task["variant_goal"] if second else task["goal"]
        tool = task["tool_name"]
        answer = task["mock_answer"]
        finish = [
            {"action": "call_tool", "name": tool, "args": {"goal": goal}, "result": "(tool ran)"},
            {"action": "final_answer", "text": answer},
        ]
        if self.profile.reuses and tool in self.registry:
            steps = [{"action": "retrieve_tool", "name": tool, "source": "registry"}, *finish]
            return trajectory_from_steps(task["id"], self.profile.name, second, steps, goal, answer)
        steps, library = self.discover(task)
        code = careful_tool(task, library) if self.profile.careful_tools else stub_tool(tool, library)
        self.registry[tool] = code
        steps += [
            {"action": "create_tool", "name": tool, "code": code},
            {"action": "register_tool", "name": tool},
            *finish,
        ]
        return trajectory_from_steps(task["id"], self.profile.name, second, steps, goal, answer)


def trajectories(dataset: dict[str, Any], profiles: tuple[Profile, ...] = PROFILES) -> list[dict[str, Any]]:
    """Every profile's attempts, in order: per task, the first attempt then the second."""
    out = []
    for profile in profiles:
        agent = ReferenceAgent(profile)
        for task in dataset["tasks"]:
            if profile.only is not None and task["id"] not in profile.only:
                continue
            out.append(agent.attempt(task, second=False))
            if task["id"] not in profile.no_second:
                out.append(agent.attempt(task, second=True))
    return out
