"""Inspect AI eval logs built offline for the importer tests, with inspect-ai's own classes.

No model is called. The agent's events are constructed the way Inspect records them (state
and store patches computed with Inspect's own ``json_changes``), then the log is scored with
``inspect_ai.score`` itself: real ``match``/``includes``/``model_graded_qa`` scorers and a
scorer from a file, whose grader is a mock model that answers by rule. The scores, score
events and grader calls in the written log are therefore exactly what Inspect writes.

The task "capitals" asks for capitals; answers vary by epoch so that scorers disagree:

| sample | epoch 1 | epoch 2 |
|---|---|---|
| 1 France / Paris | tool call, then "Paris" | "Paris" |
| 2 Japan / Tokyo | "Kyoto" (wrong) | "Tokyo" |
| q-3 Peru / Lima | map image from the tool, "The capital is Lima." | "Lima." |
| 4 Chad / N'Djamena | error: the sandbox died | error |
"""

from __future__ import annotations

import base64
import datetime as dt
import importlib.util
import sys
import uuid as _uuid
import warnings
from pathlib import Path
from typing import Any

from inspect_ai import score as inspect_score
from inspect_ai._util.error import EvalError
from inspect_ai._util.json import json_changes
from inspect_ai.dataset import Sample
from inspect_ai.event import (
    ErrorEvent,
    InfoEvent,
    LoggerEvent,
    ModelEvent,
    SampleInitEvent,
    SpanBeginEvent,
    SpanEndEvent,
    StateEvent,
    StoreEvent,
    ToolEvent,
)
from inspect_ai.event._logger import LoggingMessage
from inspect_ai.log import (
    EvalConfig,
    EvalDataset,
    EvalLog,
    EvalSample,
    EvalSpec,
    condense_sample,
    write_eval_log,
)
from inspect_ai.model import (
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageTool,
    ChatMessageUser,
    ContentImage,
    ContentText,
    GenerateConfig,
    ModelOutput,
    ModelUsage,
    get_model,
)
from inspect_ai.scorer import includes, match, model_graded_qa
from inspect_ai.tool import ToolCall

T0 = dt.datetime(2026, 4, 5, 10, 0, 0, tzinfo=dt.timezone.utc)
TASK = "capitals"
MODEL = "openai/gpt-4o"
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4).decode()
IMAGE = f"data:image/png;base64,{PNG}"

SAMPLES = [
    {"id": 1, "country": "France", "target": "Paris", "answers": ["Paris", "Paris"], "tool": [True, False]},
    {"id": 2, "country": "Japan", "target": "Tokyo", "answers": ["Kyoto", "Tokyo"], "tool": [False, False]},
    {"id": "q-3", "country": "Peru", "target": "Lima", "answers": ["The capital is Lima.", "Lima."],
     "tool": [True, False], "image": True},
    {"id": 4, "country": "Chad", "target": "N'Djamena", "answers": [None, None], "tool": [False, False]},
]

# A scorer in a file of its own, registered with `traj suite add NAME FILE.py:exact_capital`.
# V2 is the fix: a trailing full stop no longer makes an exact answer wrong.
SCORER_V1 = '''
from inspect_ai.scorer import CORRECT, INCORRECT, Score, Target, accuracy, scorer
from inspect_ai.solver import TaskState


@scorer(metrics=[accuracy()])
def exact_capital():
    async def score(state: TaskState, target: Target) -> Score:
        answer = state.output.completion.strip()
        ok = answer.lower() == target.text.lower()
        return Score(value=CORRECT if ok else INCORRECT, answer=answer, explanation=f"store={state.store.get('lookups', 0)}")
    return score
'''
SCORER_V2 = SCORER_V1.replace("answer = state.output.completion.strip()",
                              "answer = state.output.completion.strip().rstrip('.')")


def load_scorer_module(path: Path) -> Any:
    name = f"_fixture_scorers_{_uuid.uuid4().hex[:8]}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _dump(obj: Any) -> Any:
    return obj.model_dump(mode="json", exclude_none=True)


def _state(messages: list[Any], output: ModelOutput, store: dict[str, Any], metadata: dict[str, Any]) -> dict[str, Any]:
    # The shape of inspect_ai.solver._task_state.state_jsonable.
    return {"messages": [_dump(m) for m in messages], "tools": [], "tool_choice": "auto", "store": dict(store),
            "output": _dump(output), "completed": False, "metadata": dict(metadata)}


def _usage(i: int, o: int, cached: int = 0) -> ModelUsage:
    return ModelUsage(input_tokens=i, output_tokens=o, total_tokens=i + o, input_tokens_cache_read=cached or None)


def _output(text: str, tool_calls: list[ToolCall] | None = None, usage: ModelUsage | None = None) -> ModelOutput:
    out = ModelOutput.from_message(ChatMessageAssistant(content=text, tool_calls=tool_calls, model="gpt-4o"))
    out.model = MODEL
    out.usage = usage
    return out


def build_sample(spec: dict[str, Any], epoch: int, *, minute: int, with_state: bool = True,
                 uuid: str | None = "auto") -> EvalSample:
    """One sample and epoch, with the events an agent with one tool would record."""
    t = T0 + dt.timedelta(minutes=minute)

    def at(seconds: float) -> dt.datetime:
        return t + dt.timedelta(seconds=seconds)

    sid, answer = spec["id"], spec["answers"][epoch - 1]
    metadata = {"region": "americas" if spec["country"] == "Peru" else "other"}
    system = ChatMessageSystem(content="Answer with the capital only.", id=f"sys-{sid}-{epoch}")
    user = ChatMessageUser(content=f"What is the capital of {spec['country']}?", id=f"user-{sid}-{epoch}")
    messages: list[Any] = [system, user]
    empty = ModelOutput(model=MODEL)
    store: dict[str, Any] = {}
    before = _state(messages, empty, store, metadata)
    sample_def = Sample(id=sid, input=user.text, target=spec["target"], metadata=metadata)
    events: list[Any] = [
        SampleInitEvent(sample=sample_def, state=before, timestamp=at(0), working_start=0),
        SpanBeginEvent(id=f"solver-{sid}-{epoch}", name="react", type="solver", timestamp=at(0.1), working_start=0.1),
        InfoEvent(source="harness", data={"attempt": epoch, "note": "warm cache"}, timestamp=at(0.2), working_start=0.2),
    ]
    span = f"solver-{sid}-{epoch}"
    for e in events[2:]:
        e.span_id = span
    output = empty
    if answer is None:  # the sample errors before any answer
        err = EvalError(message="RuntimeError: sandbox container exited (137)", traceback="Traceback ...",
                        traceback_ansi="Traceback ...")
        events += [
            LoggerEvent(message=LoggingMessage(level="warning", message="container restarting", created=at(1).timestamp()),
                        timestamp=at(1), working_start=1, span_id=span),
            ErrorEvent(error=err, timestamp=at(2), working_start=2, span_id=span),
            SpanEndEvent(id=span, timestamp=at(2.1), working_start=2.1),
        ]
    else:
        if spec["tool"][epoch - 1]:
            call = ToolCall(id=f"call-{sid}-{epoch}", function="lookup", arguments={"country": spec["country"]})
            first = _output("", [call], _usage(120, 15, cached=100))
            events.append(ModelEvent(model=MODEL, input=list(messages), tools=[], tool_choice="auto",
                                     config=GenerateConfig(), output=first, timestamp=at(1), working_start=1,
                                     working_time=0.8, span_id=span))
            messages.append(first.message)
            text = f"The capital of {spec['country']} is {spec['target']}."
            result: Any = text
            if spec.get("image"):
                result = [ContentText(text=text), ContentImage(image=IMAGE)]
            events.append(ToolEvent(id=call.id, function="lookup", arguments=call.arguments, result=result,
                                    timestamp=at(2), working_start=2, working_time=0.25, span_id=span))
            messages.append(ChatMessageTool(content=result if isinstance(result, str) else list(result),
                                            tool_call_id=call.id, function="lookup", id=f"tool-{sid}-{epoch}"))
            events.append(StoreEvent(changes=json_changes({}, {"lookups": 1, "last": spec["country"]}) or [],
                                     timestamp=at(2.5), working_start=2.5, span_id=span))
            store = {"lookups": 1, "last": spec["country"]}
        output = _output(answer, None, _usage(200, 5))
        events.append(ModelEvent(model=MODEL, input=list(messages), tools=[], tool_choice="auto",
                                 config=GenerateConfig(), output=output, timestamp=at(3), working_start=3,
                                 working_time=1.2, span_id=span))
        messages.append(output.message)
        after = _state(messages, output, store, metadata)
        if with_state:
            events.append(StateEvent(changes=json_changes(before, after) or [], timestamp=at(4), working_start=4,
                                     span_id=span))
        events.append(SpanEndEvent(id=span, timestamp=at(4.1), working_start=4.1))
    sample = EvalSample(
        id=sid, epoch=epoch, input=user.text, target=spec["target"], messages=messages, output=output,
        metadata=metadata, store=store, events=events, started_at=t.isoformat(), completed_at=at(5).isoformat(),
        total_time=5.0, working_time=4.5,
        uuid=(f"u{minute:03d}{str(sid).replace('-', '')}e{epoch}" if uuid == "auto" else uuid),
        model_usage={MODEL: _usage(320, 20)} if answer is not None else {},
    )
    if answer is None:
        sample.error = events[-2].error
    return sample


def grader_output(input: list[Any], tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
    """The mock grader: C when the criterion appears in the submission, else I."""
    prompt = input[-1].text
    submission = prompt.split("[Submission]:", 1)[1].split("***", 1)[0]
    criterion = prompt.split("[Criterion]:", 1)[1].split("***", 1)[0].strip()
    grade = "C" if criterion.lower() in submission.lower() else "I"
    out = ModelOutput.from_content("mockllm/grader", f"The submission says {submission.strip()!r}.\nGRADE: {grade}")
    out.usage = ModelUsage(input_tokens=50, output_tokens=9, total_tokens=59)
    return out


def build_log(samples: list[EvalSample], *, eval_id: str = "E-caps-1", run_id: str = "R-2026-04-05",
              epochs: int = 2, status: str = "success") -> EvalLog:
    ids = list(dict.fromkeys(s.id for s in samples))
    spec = EvalSpec(created=T0.isoformat(), task=TASK, task_id="T-caps", run_id=run_id, eval_id=eval_id,
                    dataset=EvalDataset(name="capitals", samples=len(ids), sample_ids=ids), model=MODEL,
                    config=EvalConfig(epochs=epochs), packages={"inspect_ai": "0.3.test"})
    return EvalLog(eval=spec, status=status, samples=samples)  # type: ignore[arg-type]


def scored(log: EvalLog, scorer_file: Path | None = None, *, graded: bool = True) -> EvalLog:
    """The log scored by Inspect itself: match, includes, a model-graded scorer (mock grader)
    and, with ``scorer_file``, its ``exact_capital``."""
    scorers: list[Any] = [match(), includes()]
    if graded:
        scorers.append(model_graded_qa())
    if scorer_file is not None:
        scorers.append(load_scorer_module(scorer_file).exact_capital())
    grader = get_model("mockllm/grader", custom_outputs=grader_output)
    with warnings.catch_warnings():
        # inspect-ai's model retry passes tenacity a deprecated argument: not ours to fix.
        warnings.filterwarnings("ignore", message="The .initial. parameter is deprecated", category=DeprecationWarning)
        return inspect_score(log, scorers, model=grader, display="none")


def capitals_log(tmp: Path, *, name: str = "capitals.eval", samples: list[EvalSample] | None = None,
                 condense: bool = True, scorer: bool = True, graded: bool = True, **kw: Any) -> Path:
    """Write the capitals log (all samples, two epochs) and return its path."""
    scorer_file = tmp / "capital_scorers.py"
    if scorer and not scorer_file.exists():
        scorer_file.write_text(SCORER_V1)
    if samples is None:
        samples = [build_sample(s, e, minute=i * 2 + e) for i, s in enumerate(SAMPLES) for e in (1, 2)]
    log = scored(build_log(samples, **kw), scorer_file if scorer else None, graded=graded)
    if condense:
        log.samples = [condense_sample(s) for s in log.samples or []]
    path = tmp / name
    write_eval_log(log, path)
    return path
