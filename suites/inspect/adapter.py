"""Inspect ``@scorer`` functions as a traj suite.

Registered with ``traj suite add NAME module:function`` (or ``path/to/file.py:function``): the
function is a ``@scorer`` factory (called without arguments), a scorer, or a function or list
giving several. For each run, the replayed state is rebuilt as the scorer's inputs, the way
``inspect score`` rebuilds them from a sample (``task_state_from_sample``): the messages, output,
metadata and store the import put in the world state, the sample's input, target and choices
from ``run_started.params``. The scorers run in order; their scores become checks with the same
rule as the imported pass (``judges/imported.py``), so a suite made from a log's own scorers
gives that log's scores back.

Model-graded scorers never reach a model here. The active model and the ``grader`` role are a
model of the provider ``traj_replay``, registered with inspect-ai's public ``@modelapi``, whose
``generate`` answers from the grader answers recorded in the store, found by prompt
(``keys.py``): the ones the imported log recorded, and the ones ``traj judge --llm`` asks for
through :meth:`InspectScorerSuite.llm_requests`. Inspect hands that provider the prompt exactly
as its log records a model event's input, so the keys of the log's answers match. A prompt with
no recorded answer gives the run an ``error`` verdict that says to run ``traj judge --llm``.

One thing has no public hook: a model the scorer names itself (``model_graded_qa(model=
"openai/gpt-4o")``, ``get_model("anthropic/claude-x")``) is resolved by inspect-ai through its
provider registry, and neither ``@modelapi``, model roles (an explicit model wins over the
role), ``get_model`` arguments nor inspect-ai's hooks (they observe and may edit a call, not
answer it) can make it the replay provider. So the one lookup ``get_model`` uses,
``registry_find`` as imported into ``inspect_ai.model._model``, is wrapped: while a traj judge
runs in the current context (a context variable), a provider lookup finds ``traj_replay``;
outside one it behaves as before. Without it such a scorer would need its provider package and
key, and its calls would leave the machine. The scoring context itself (task context, store,
transcript) is set up with the initialisers inspect-ai's own ``score`` uses, as there is no
public call that scores a TaskState outside a log. Scorers that need a sandbox or the network
cannot be re-judged offline.

The judge version covers the module named, the modules that define the scorers and their
helper modules (``judges/versions.py``), and the inspect-ai release.

inspect-ai is imported only inside the functions that run scorers, so importing this module
needs nothing beyond traj's core.
"""

from __future__ import annotations

import contextvars
import functools
import hashlib
import importlib
import importlib.util
import inspect as _inspect
import sys
import uuid
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from judges import imported
from judges.base import Suite, Verdict
from judges.contract import LLMRequest
from replay.state import RunState
from trajectory.errors import TrajError

from . import keys

_BOOK: contextvars.ContextVar[Any] = contextvars.ContextVar("traj_inspect_answer_book", default=None)

#: Model roles bound to the replay model while scorers run: Inspect's model-graded scorers ask
#: for ``grader``; a scorer asking for another role, not required, gets the active model, which
#: is the replay model too.
ROLES = ("grader",)


class ScorerSpecError(TrajError, ValueError):
    """``module:function`` does not name something that gives Inspect scorers."""


class JudgementMissing(Exception):
    """A grader prompt has no recorded answer (``traj judge --llm`` asks for it)."""

    def __init__(self, request: LLMRequest):
        super().__init__(f"no recorded answer for a grader prompt (key {request.key[:12]}…)")
        self.request = request


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


class ReplayAPIBase:
    """Marker for the replay provider's class (made when inspect-ai is first needed)."""


@functools.cache
def _replay_provider() -> tuple[type, Any]:
    """The model provider ``traj_replay`` (registered once with inspect-ai's public ``@modelapi``)
    and its registry entry: every call it gets is answered by the answer book of the judge that
    is running (a context variable), never by a model."""
    from inspect_ai._util.registry import registry_find, registry_unqualified_name
    from inspect_ai.model import GenerateConfig, ModelAPI, modelapi

    class ReplayAPI(ModelAPI, ReplayAPIBase):
        def __init__(self, model_name: str, base_url: str | None = None, api_key: str | None = None,
                     config: GenerateConfig = GenerateConfig(), **model_args: Any) -> None:
            super().__init__(model_name, base_url, api_key, [], config)

        async def generate(self, input, tools, tool_choice, config):  # type: ignore[no-untyped-def] # noqa: ANN001, ANN201
            # ``input`` is the prompt exactly as Inspect hands it to a provider: what its log
            # records as a model event's input, from which the importer keyed the answers.
            book = _BOOK.get()
            if book is None:
                raise RuntimeError("the traj_replay model answers only while a traj judge runs")
            return book.answer(self.model_name, [m.model_dump(mode="json", exclude_none=True) for m in input])

    @modelapi(name="traj_replay")
    def _replay() -> type[ModelAPI]:
        return ReplayAPI

    found = registry_find(lambda i: i.type == "modelapi" and registry_unqualified_name(i) == "traj_replay")
    return ReplayAPI, found[0]


@functools.cache
def _route_named_models() -> None:
    """While a judge runs, a model a scorer names itself (``model_graded_qa(model="openai/gpt-4o")``)
    is made by the replay provider, so that it needs neither its provider package nor a key and
    no call leaves the machine. inspect-ai resolves such a name through the provider registry
    (``registry_find``, as imported into ``inspect_ai.model._model``) and has no public hook for
    it (``@modelapi`` adds providers under their own names, model roles do not bind a named
    model, hooks observe calls but cannot answer them), so this one lookup is wrapped; the
    wrapper changes nothing unless a traj judge is running in the current context."""
    import inspect_ai.model._model as mm

    _, factory = _replay_provider()
    find = getattr(mm, "registry_find", None)
    if find is None:  # fail closed: a named grader would otherwise call its provider for real
        raise RuntimeError("this inspect-ai release resolves models in a way traj does not know; "
                           "Inspect scorers cannot be judged offline with it")

    def registry_find(predicate: Any) -> Any:
        found = find(predicate)
        if _BOOK.get() is not None and found and factory not in found and all(_is_modelapi(f) for f in found):
            return [factory]
        return found

    mm.registry_find = registry_find  # type: ignore[attr-defined]


def _is_modelapi(obj: Any) -> bool:
    from inspect_ai._util.registry import registry_info

    try:
        return registry_info(obj).type == "modelapi"
    except Exception:  # noqa: BLE001 - not a registered object
        return False


def _forget_replay_models() -> None:
    """get_model() memoizes what it made (also under a provider's name): a replay model must
    not outlive the judge."""
    import inspect_ai.model._model as mm

    cache = getattr(mm, "_models", None)
    if isinstance(cache, dict):
        for key in [k for k, m in cache.items() if isinstance(getattr(m, "api", None), ReplayAPIBase)]:
            del cache[key]


def _replay_model(name: str) -> Any:
    from inspect_ai.model import get_model

    _replay_provider()
    return get_model(f"traj_replay/{name}", memoize=False)


async def _run_scorers(
    scorers: Sequence[Any], names: Sequence[str], state: RunState, book: AnswerBook
) -> list[tuple[str, Any]]:
    # The scoring context as inspect-ai's own ``score`` sets it up for a sample read from a log
    # (``task_state_from_sample``): inspect-ai has no public call that scores a TaskState
    # outside a log, so its context initialisers are called as that function calls them.
    from inspect_ai._eval.context import init_task_context
    from inspect_ai.log._transcript import Transcript, init_transcript
    from inspect_ai.util._store import init_subtask_store

    ts, target = task_state(state)
    model = _replay_model(state.agent_model or "unknown")
    init_task_context(model, {r: model for r in ROLES})
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
    """A suite whose judge is a list of Inspect scorers (see the module docstring)."""

    def __init__(self, name: str, spec: str, root: str | None = None):
        self.name = name
        self.spec = spec
        self.root = root
        #: What ``traj suite add`` keeps for this suite, and what a judging worker loads it from
        #: again (``judges.contract.Registered``).
        self.registration = {"scorers": spec, "root": root}
        self.scorers, module = load_scorers(spec, root)
        self.scorer_names = scorer_names(self.scorers)
        # The module named and the modules that define the scorers count in the judge version
        # (judges/versions.py walks their imports and brings their helper modules along):
        # editing a scorer changes it, moving the folder does not.
        code = [module, *(_code_of(s) for s in self.scorers)]
        self.code_modules = tuple(dict.fromkeys(c for c in code if c is not None))

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

        _route_named_models()
        ctx = contextvars.copy_context()
        book = book or AnswerBook(state)
        try:
            return ctx.run(asyncio.run, _run_scorers(self.scorers, self.scorer_names, state, book))
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
        """The code found from imports (``judges/versions.py``, with the scorers' own modules)
        and the inspect-ai release: built-in scorers, templates and the scoring machinery are
        inspect-ai's code, which the import walk leaves out as installed third-party code."""
        cached = self.__dict__.get("_scorers_version")
        if cached is None:
            from importlib.metadata import version

            text = f"{Suite.code_version(self)} inspect_ai {version('inspect_ai')}"
            cached = self.__dict__["_scorers_version"] = hashlib.blake2b(text.encode(), digest_size=8).hexdigest()
        return cached


def _code_of(fn: Any) -> ModuleType | Path | None:
    """The module a scorer's code is in (through Inspect's and functools' wrappers), or the
    path of its file when that module was loaded by hand and is not importable by name."""
    seen = 0
    while hasattr(fn, "__wrapped__") and seen < 20:
        fn, seen = fn.__wrapped__, seen + 1
    code = getattr(fn, "__code__", None) or getattr(getattr(fn, "__call__", None), "__code__", None)
    if code is None or not Path(code.co_filename).is_file():
        return None
    name = (getattr(fn, "__globals__", None) or {}).get("__name__")
    module = sys.modules.get(name) if isinstance(name, str) else None
    if module is not None and getattr(module, "__file__", None) == code.co_filename:
        return module
    return Path(code.co_filename)


def load(spec: str, name: str, root: str | None = None) -> InspectScorerSuite:
    """The suite ``name`` judged by the scorers ``spec`` names (imports inspect-ai)."""
    try:
        import inspect_ai  # noqa: F401
    except ImportError:
        raise ScorerSpecError("Inspect scorers need inspect-ai: pip install 'traj[inspect]'") from None
    return InspectScorerSuite(name, spec, root)
