"""Inspect ``@scorer`` functions as a traj suite.

Registered with ``traj suite add NAME module:function`` (or ``path/to/file.py:function``): the
function is a ``@scorer`` factory (called without arguments), a scorer, or a function or list
giving several. For each run, the replayed state is rebuilt as the scorer's inputs, the way
``inspect score`` rebuilds them from a sample (``task_state_from_sample``): the messages, output,
metadata and store the import put in the world state, the sample's input, target and choices
from ``run_started.params``. The scorers run in order; their scores become checks with the same
rule as the imported pass (``judges/imported.py``), so a suite made from a log's own scorers
gives that log's scores back.

Model-graded scorers never reach a model here. While a judge runs, every ``Model.generate``
call (the active model, a model role, or a model named in the scorer) is answered from the
grader answers recorded in the store, found by prompt (``keys.py``): the ones the imported log
recorded, and the ones ``traj judge --llm`` asks for through :meth:`InspectScorerSuite.llm_requests`.
A prompt with no recorded answer gives the run an ``error`` verdict that says to run
``traj judge --llm``. Scorers that need a sandbox or the network cannot be re-judged offline.

inspect-ai is imported only inside the functions that run scorers, so importing this module
needs nothing beyond traj's core.
"""

from __future__ import annotations

import contextvars
import hashlib
import importlib
import importlib.util
import inspect as _inspect
import sys
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from judges import imported
from judges.base import Suite, Verdict, code_hash
from replay.state import RunState

from . import keys

_BOOK: contextvars.ContextVar[Any] = contextvars.ContextVar("traj_inspect_answer_book", default=None)


class ScorerSpecError(ValueError):
    """``module:function`` does not name something that gives Inspect scorers."""


class JudgementMissing(Exception):
    """A grader prompt has no recorded answer (``traj judge --llm`` asks for it)."""

    def __init__(self, request: LLMRequest):
        super().__init__(f"no recorded answer for a grader prompt (key {request.key[:12]}…)")
        self.request = request


@dataclass(frozen=True)
class LLMRequest:
    """A grader prompt ``traj judge --llm`` can ask and record (see ``trajectory/llm.py``)."""

    judge: str
    key: str
    messages: tuple[dict[str, str], ...]
    response_format: dict[str, Any] | None = None
    label: str = ""


# -- loading the scorers ----------------------------------------------------------------------


def _load_module(target: str, root: str | None) -> ModuleType:
    if target.endswith(".py") or "/" in target or "\\" in target:
        path = Path(target)
        if not path.is_absolute() and root:
            path = Path(root) / path
        if not path.is_file():
            raise ScorerSpecError(f"{target}: no such file")
        name = f"_traj_scorers_{uuid.uuid4().hex[:12]}"
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise ScorerSpecError(f"{target}: not a Python file")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        return module
    if root and root not in sys.path:
        sys.path.insert(0, root)
    return importlib.import_module(target)


def _as_scorers(obj: Any, spec: str) -> list[Any]:
    if isinstance(obj, (list, tuple)):
        return [s for o in obj for s in _as_scorers(o, spec)]
    if not callable(obj):
        raise ScorerSpecError(f"{spec}: not a scorer, a @scorer factory or a list of them")
    if _inspect.iscoroutinefunction(obj) or _inspect.iscoroutinefunction(getattr(obj, "__call__", None)):
        return [obj]  # a scorer: async (state, target) -> Score
    made = obj()  # a @scorer factory, or a function giving scorers
    if isinstance(made, (list, tuple)):
        return [s for o in made for s in _as_scorers(o, spec)]
    if not callable(made):
        raise ScorerSpecError(f"{spec}: calling it gave {type(made).__name__}, not a scorer")
    return [made]


def load_scorers(spec: str, root: str | None = None) -> tuple[list[Any], ModuleType]:
    """The scorers ``spec`` (``module:function`` or ``file.py:function``) names, and its module."""
    target, sep, attr = spec.rpartition(":")
    if not sep or not target or not attr:
        raise ScorerSpecError(f"{spec}: expected module:function or path/to/file.py:function")
    module = _load_module(target, root)
    if not hasattr(module, attr):
        raise ScorerSpecError(f"{spec}: {module.__name__} has no {attr!r}")
    obj = getattr(module, attr)
    return _as_scorers(obj, spec), sys.modules.get(getattr(obj, "__module__", ""), module)


def scorer_names(scorers: Sequence[Any]) -> list[str]:
    """The names Inspect gives these scorers' scores (its registry name, made unique)."""
    from inspect_ai._util.registry import registry_unqualified_name

    names: list[str] = []
    for s in scorers:
        try:
            base = registry_unqualified_name(s)
        except Exception:  # noqa: BLE001 - a plain function is not registered: use its name
            base = getattr(s, "__name__", "scorer")
        name, n = base, 1
        while name in names:  # inspect_ai.scorer._scorer.unique_scorer_name
            name, n = f"{base}{n}", n + 1
        names.append(name)
    return names


# -- the scorers' inputs ------------------------------------------------------------------------


def _params(state: RunState) -> dict[str, Any]:
    return dict(state.params or {})


def _world(state: RunState) -> tuple[dict[str, Any], dict[str, Any]]:
    world = state.state if isinstance(state.state, dict) else {}
    task_state = world.get("state") if isinstance(world.get("state"), dict) else {}
    store = world.get("store") if isinstance(world.get("store"), dict) else task_state.get("store")
    return task_state, store if isinstance(store, dict) else {}


def task_state(state: RunState) -> tuple[Any, Any]:
    """(TaskState, Target) as Inspect would give them to a scorer for this run.

    Runs imported from Inspect carry the sample's messages, output, metadata and store in their
    world state. Other runs get the goal as the user's message and the answer as the output.
    """
    from inspect_ai.model import ChatMessageAssistant, ChatMessageUser, ModelOutput
    from inspect_ai.model._chat_message import ChatMessage
    from inspect_ai.model._model import ModelName
    from inspect_ai.scorer import Target
    from inspect_ai.solver import TaskState
    from pydantic import TypeAdapter

    p = _params(state)
    ts, store = _world(state)
    model = state.agent_model or "none/none"
    if "/" not in model:
        model = f"unknown/{model}"
    input_value = p.get("input", state.goal or "")
    if isinstance(input_value, list):
        input_value = TypeAdapter(list[ChatMessage]).validate_python(input_value)
    if ts.get("messages") is not None:
        messages = TypeAdapter(list[ChatMessage]).validate_python(ts["messages"])
    else:
        messages = [ChatMessageUser(content=state.goal or "")]
        if state.answer is not None:
            messages.append(ChatMessageAssistant(content=state.answer))
    if ts.get("output"):
        output = ModelOutput.model_validate(ts["output"])
    else:
        output = ModelOutput.from_content(model=model, content=state.answer or "")
    target = Target(p.get("target") if p.get("target") is not None else "")
    metadata = ts.get("metadata") if isinstance(ts.get("metadata"), dict) else p.get("metadata") or {}
    sample_id = p.get("sample_id", state.task or state.run_id)
    task_state_ = TaskState(
        model=ModelName(model), sample_id=sample_id, epoch=int(p.get("epoch") or 1), input=input_value,
        messages=messages, target=target, choices=p.get("choices"), output=output, completed=True,
        metadata=dict(metadata), store=dict(store), scores={}, sample_uuid=p.get("uuid"),
    )
    return task_state_, target


# -- grader answers -----------------------------------------------------------------------------


class AnswerBook:
    """Answers a judge's model calls from the judgements recorded for its run."""

    def __init__(self, state: RunState, scorer: str = "", *, collect: bool = False):
        self.state = state
        self.scorer = scorer
        self.asked: dict[str, int] = {}
        # Collecting (for `traj judge --llm`): a prompt without an answer is noted and gets an
        # empty answer, so that the scorer goes on and shows its other prompts too.
        self.collect = collect
        self.missing: list[LLMRequest] = []

    def answer(self, model: str, messages: list[dict[str, Any]]) -> Any:
        from inspect_ai.model import ModelOutput

        digest = keys.prompt_digest(messages)
        n = self.asked.get(digest, 0)
        self.asked[digest] = n + 1
        key = keys.prompt_key(messages, n)
        found = self.state.judgement(keys.JUDGE, key)
        if found is None:
            request = LLMRequest(keys.JUDGE, key, keys.chat_messages(messages), label=self.scorer)
            if self.collect:
                self.missing.append(request)
                return ModelOutput.from_content(model=model, content="")
            raise JudgementMissing(request)
        out = found.output
        if isinstance(out.get("output"), dict):
            return ModelOutput.model_validate(out["output"])
        return ModelOutput.from_content(model=found.model, content=str(out.get("raw", "")))


_PATCHED = False
_REPLAY: dict[str, Any] = {}  # the registered replay provider: "class" and "factory"


def _replay_provider() -> tuple[type, Any]:
    """A model provider that never answers (the answer book does), registered once."""
    if not _REPLAY:
        from inspect_ai._util.registry import registry_find, registry_unqualified_name
        from inspect_ai.model import GenerateConfig, modelapi
        from inspect_ai.model._model import ModelAPI

        class ReplayAPI(ModelAPI):
            def __init__(self, model_name: str, base_url: str | None = None, api_key: str | None = None,
                         config: GenerateConfig = GenerateConfig(), **model_args: Any) -> None:
                super().__init__(model_name, base_url, api_key, [], config)

            async def generate(self, input, tools, tool_choice, config):  # type: ignore[no-untyped-def] # noqa: ANN001, ANN201
                raise RuntimeError("a traj judge's model calls are answered from recorded judgements")

        @modelapi(name="traj_replay")
        def _replay() -> type[ModelAPI]:
            return ReplayAPI

        _REPLAY["class"] = ReplayAPI
        found = registry_find(lambda i: i.type == "modelapi" and registry_unqualified_name(i) == "traj_replay")
        _REPLAY["factory"] = found[0] if found else None
    return _REPLAY["class"], _REPLAY["factory"]


def _route_model_calls() -> None:
    """While a judge runs (a context variable gates it, so nothing changes for Inspect code
    outside a traj judge), every model a scorer makes is the replay provider, and every
    ``Model.generate`` is answered by the answer book: a grader named in the scorer
    (``model_graded_qa(model="openai/gpt-4o")``) needs neither its provider package nor a key,
    and no call leaves the machine. This reaches into two names inside ``inspect_ai.model._model``
    (``Model.generate`` and the provider lookup ``registry_find``); without the second, a named
    grader needs its provider installed, and its calls are still answered by the book."""
    global _PATCHED
    if _PATCHED:
        return
    import inspect_ai.model._model as mm
    from inspect_ai.model import ChatMessageUser

    replay_class, factory = _replay_provider()
    original = mm.Model.generate

    async def generate(self: Any, input: Any, *args: Any, **kwargs: Any) -> Any:
        book = _BOOK.get()
        if book is None:
            return await original(self, input, *args, **kwargs)
        msgs = [ChatMessageUser(content=input)] if isinstance(input, str) else list(input)
        return book.answer(str(getattr(self, "name", "")), [m.model_dump(mode="json", exclude_none=True) for m in msgs])

    generate.__doc__ = original.__doc__
    mm.Model.generate = generate  # type: ignore[method-assign]
    find = getattr(mm, "registry_find", None)
    if find is not None and factory is not None:

        def registry_find(predicate: Any) -> Any:
            found = find(predicate)
            if _BOOK.get() is not None and found and factory not in found and all(_is_modelapi(f) for f in found):
                return [factory]
            return found

        mm.registry_find = registry_find  # type: ignore[attr-defined]
    _PATCHED = True


def _is_modelapi(obj: Any) -> bool:
    from inspect_ai._util.registry import registry_info

    try:
        return registry_info(obj).type == "modelapi"
    except Exception:  # noqa: BLE001 - not a registered object
        return False


def _forget_replay_models() -> None:
    """get_model() memoizes what it made; a replay model must not outlive the judge."""
    import inspect_ai.model._model as mm

    cache = getattr(mm, "_models", None)
    replay_class = _REPLAY.get("class")
    if isinstance(cache, dict) and replay_class is not None:
        for key in [k for k, m in cache.items() if isinstance(getattr(m, "api", None), replay_class)]:
            del cache[key]


def _replay_model(name: str) -> Any:
    from inspect_ai.model import get_model

    _replay_provider()
    return get_model(f"traj_replay/{name}", memoize=False)


async def _run_scorers(
    scorers: Sequence[Any], names: Sequence[str], state: RunState, roles: Sequence[str], book: AnswerBook
) -> list[tuple[str, Any]]:
    from inspect_ai._eval.context import init_task_context
    from inspect_ai.log._transcript import Transcript, init_transcript
    from inspect_ai.util._store import init_subtask_store

    ts, target = task_state(state)
    model = _replay_model(state.agent_model or "unknown")
    init_task_context(model, {r: model for r in roles})
    init_subtask_store(ts.store)
    init_transcript(Transcript())
    _BOOK.set(book)
    out: list[tuple[str, Any]] = []
    for scorer, name in zip(scorers, names):
        book.scorer = name
        try:
            out.append((name, await scorer(ts, target)))
        except JudgementMissing as exc:
            out.append((name, exc))
        except Exception:  # noqa: BLE001 - with empty answers a scorer may fail; its prompts are noted
            if not book.collect:
                raise
            out.append((name, None))
    return out


# -- the suite ----------------------------------------------------------------------------------


class InspectScorerSuite(Suite):
    """A suite whose judge is a list of Inspect scorers."""

    def __init__(self, name: str, spec: str, root: str | None = None, roles: Sequence[str] = ("grader",)):
        self.name = name
        self.spec = spec
        self.root = root
        self.roles = tuple(roles)
        self.scorers, module = load_scorers(spec, root)
        self.scorer_names = scorer_names(self.scorers)
        self.code_modules = (sys.modules[__name__], keys, imported)
        # The files that define the scorers (and the module named), hashed into the judge
        # version: editing a scorer changes it, moving the folder does not.
        files = {_code_file(s) for s in self.scorers} | {getattr(module, "__file__", None)}
        self.source_files = tuple(sorted(f for f in files if f and Path(f).is_file()))

    def __reduce__(self) -> Any:
        # Judging workers load the scorers again from the same place.
        return (InspectScorerSuite, (self.name, self.spec, self.root, self.roles))

    def task_ids(self) -> list[str]:
        return []  # any sample id: the tasks are the runs' samples

    def get_task(self, task_id: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        p = params or {}
        return {"id": task_id, "target": p.get("target"), "choices": p.get("choices")}

    def task_data(self, task: dict[str, Any]) -> Any:
        return {"target": task.get("target"), "choices": task.get("choices"), "scorers": self.scorer_names}

    def scores(self, state: RunState, book: AnswerBook | None = None) -> list[tuple[str, Any]]:
        """(scorer name, Score | None | JudgementMissing) for each scorer, in order."""
        import asyncio

        _route_model_calls()
        ctx = contextvars.copy_context()
        book = book or AnswerBook(state)
        try:
            return ctx.run(asyncio.run, _run_scorers(self.scorers, self.scorer_names, state, self.roles, book))
        finally:
            _forget_replay_models()

    def judge(self, task: dict[str, Any], state: RunState) -> Verdict:
        results = self.scores(state)
        missing = [n for n, s in results if isinstance(s, JudgementMissing)]
        scored = []
        for name, score in results:
            if score is None or isinstance(score, JudgementMissing):
                continue
            value = score.value
            scored += imported.inspect_checks(name, value, answer=score.answer, explanation=score.explanation,
                                              expected=task.get("target"))
        error = state.error or "the run ended in error" if state.outcome == "error" else None
        if missing and error is None:
            error = (f"{', '.join(missing)}: a grader prompt has no recorded answer; run `traj judge --llm` "
                     "to ask the model once and record it")
        return imported.verdict_of(scored, error=error)

    def llm_requests(self, task: dict[str, Any], state: RunState) -> list[LLMRequest]:
        """The grader prompts of this run that have no answer in ``state``. A prompt that
        depends on an earlier answer is found once that answer is recorded."""
        book = AnswerBook(state, collect=True)
        self.scores(state, book)
        return book.missing

    def code_version(self) -> str:
        cached = self.__dict__.get("_code_version")
        if cached is None:
            h = hashlib.blake2b(code_hash(self.code_modules).encode(), digest_size=8)
            for path in self.source_files:
                data = Path(path).read_bytes()
                h.update(len(data).to_bytes(8, "little"))
                h.update(data)
            cached = self.__dict__["_code_version"] = h.hexdigest()
        return cached


def _code_file(fn: Any) -> str | None:
    """The file a scorer's code is in (through Inspect's and functools' wrappers)."""
    seen = 0
    while hasattr(fn, "__wrapped__") and seen < 20:
        fn, seen = fn.__wrapped__, seen + 1
    code = getattr(fn, "__code__", None) or getattr(getattr(fn, "__call__", None), "__code__", None)
    return code.co_filename if code is not None else None


def load(spec: str, name: str, root: str | None = None) -> InspectScorerSuite:
    """The suite ``name`` judged by the scorers ``spec`` names (imports inspect-ai)."""
    try:
        import inspect_ai  # noqa: F401
    except ImportError:
        raise ScorerSpecError("Inspect scorers need inspect-ai: pip install 'traj[inspect]'") from None
    return InspectScorerSuite(name, spec, root)
