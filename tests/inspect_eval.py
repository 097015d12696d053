"""A log written by ``inspect_ai.eval`` itself, offline: a small task run on Inspect's mock
model with custom outputs.

Every custom output carries its usage: without one, mockllm counts tokens with tiktoken, which
downloads its encoding (the README says so). Two samples:

- ``qa``: one model call answers "Paris" (target Paris);
- ``agent``: the model calls ``lookup(country=...)``, then ``clock()`` (a tool without
  arguments), then answers "Lima." (target Lima).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any


def _usage(out: Any) -> Any:
    from inspect_ai.model import ModelUsage

    out.usage = ModelUsage(input_tokens=10, output_tokens=2, total_tokens=12)
    return out


def write_logs(folder: Path, fmt: str = "eval") -> Path:
    """Run the tasks in a process of their own (inspect_ai leaves streams for the garbage
    collector to close, which the tests' warning filters would turn into errors) and return the
    folder of the logs."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(__file__).parent), *sys.path])}
    code = f"from pathlib import Path; from inspect_eval import write_log; write_log(Path({str(folder)!r}), {fmt!r})"
    r = subprocess.run([sys.executable, "-W", "ignore", "-c", code], env=env, capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    return folder


def write_log(folder: Path, fmt: str = "eval") -> Path:
    """Run the tasks here and return the folder of the logs inspect_ai wrote."""
    from inspect_ai import Task, eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput, get_model
    from inspect_ai.scorer import includes, match
    from inspect_ai.solver import generate, use_tools
    from inspect_ai.tool import tool

    @tool
    def lookup() -> Any:
        async def execute(country: str) -> str:
            """Look up the capital of a country.

            Args:
              country: The country.
            """
            return "Lima" if country == "Peru" else "Paris"

        return execute

    @tool
    def clock() -> Any:
        async def execute() -> str:
            """The time now."""
            return "noon"

        return execute

    qa = Task(name="qa", dataset=[Sample(id="qa", input="What is the capital of France?", target="Paris")],
              solver=[generate()], scorer=[match(), includes()])
    agent = Task(name="agent", dataset=[Sample(id="agent", input="What is the capital of Peru?", target="Lima")],
                 solver=[use_tools(lookup(), clock()), generate()], scorer=[match(), includes()])
    m = "mockllm/model"
    qa_model = get_model(m, custom_outputs=[_usage(ModelOutput.from_content(m, "Paris"))])
    agent_model = get_model(m, custom_outputs=[
        _usage(ModelOutput.for_tool_call(m, "lookup", {"country": "Peru"})),
        _usage(ModelOutput.for_tool_call(m, "clock", {})),
        _usage(ModelOutput.from_content(m, "Lima.")),
    ])
    paths = []
    for task, model in ((qa, qa_model), (agent, agent_model)):
        (log,) = eval(task, model=model, log_dir=str(folder), log_format=fmt, display="none")
        assert log.status == "success", log.error
        paths.append(Path(log.location.removeprefix("file://")))
    return folder
