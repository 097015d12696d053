"""The task model: task classes with templates, typed parameters and answer fields.

A task is a class; a run's task is an instance made from the run's parameters. What a class
declares (as class attributes, or as properties when they depend on parameters):

``templates``          the instruction, with ``{param}`` placeholders (rendered with display labels)
``parameters``         name -> :class:`Enum` / :class:`Text` / :class:`Time`, each with a default
``answer``             (AnswerTask) a path into the initial world state, or ``(path, function)``;
                       or override ``get_answer(obs)``
``answer_fields``      a list of field specs, or ``{"question": ..., "fields": [...]}``; a field spec
                       has ``type`` (text/number/choice), ``label``, and optionally ``hint``,
                       ``options`` (choice), ``matcher`` (exact/number/date/time/duration; default
                       exact for text and choice, number for number), ``repeatable``, ``compare``
                       (sequence/set). Labels, hints, options and the question take ``{param}``.
``answer_hint``        a global hint shown under the AnswerSheet question
``expected_changes``   change rules (see :mod:`.paths`) the task is meant to make
``always_ignore``      change rules that are never side effects (the AnswerSheet always is)
``max_steps``          the interaction budget, without the AnswerSheet's extra steps
``check_goals(obs)``   the task's own goal checks; defining it makes grounded judging take Path B

Everything here is pure data and pure functions of the observation.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any, ClassVar

from judges.base import Check
from judges.subjects import Subject, about
from trajectory.errors import JudgeError, TrajError

from . import paths
from .answers import TEMPERATURE_UNITS, list_check, stated_list, text_matches, value_check  # noqa: F401 - re-exported

FIELD_TYPES = ("text", "number", "choice")
MATCHERS = ("exact", "number", "date", "time", "duration")
COMPARES = ("sequence", "set")
DEFAULT_MATCHER = {"text": "exact", "choice": "exact", "number": "number"}
DEFAULT_HINT = {"text": "请输入", "number": "请输入数字", "choice": None}
# AnswerSheet edits are the answer, never a side effect; the simulated clock ticks on its own.
BASE_IGNORE = ("apps.answer_sheet", "os.time")
# Opening the AnswerSheet, filling it in and submitting costs steps the task budget leaves out.
ANSWER_SHEET_STEPS = 15
SHEET_SUFFIX = "，然后打开答题卡（AnswerSheet）填写答案并提交"


class TaskDefinitionError(TrajError, ValueError):
    """A task class declares something inconsistent (a bad field, parameter or template)."""




# -- parameters ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Enum:
    """A choice among values, each with the label people see (``{"华氏度": "fahrenheit"}``).

    A ``subject`` parameter names what the question is about (a city, an alarm): in the answer, a
    value said of another one of its kind does not count for the asked one (judges.subjects).
    Its names are the label, the value and ``aliases[value]``; ``kin`` names others of the kind
    that are not choices of this parameter (other alarms' labels).
    """

    values: dict[str, Any]
    default: Any
    subject: bool = False
    aliases: dict[Any, tuple[str, ...]] = field(default_factory=dict)
    kin: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.default not in self.values.values():
            raise TaskDefinitionError(f"default {self.default!r} is not one of {list(self.values.values())}")

    def coerce(self, raw: Any) -> Any:
        """A value given as the value itself or as its label (runs record either)."""
        if raw in self.values.values():
            return raw
        if isinstance(raw, str) and raw in self.values:
            return self.values[raw]
        raise ValueError(f"{raw!r} is not one of {', '.join(map(str, self.values))}")

    def label(self, value: Any) -> str:
        return next((k for k, v in self.values.items() if v == value), str(value))

    def names(self, value: Any) -> tuple[str, ...]:
        """The ways an answer names a value: its label, the value itself, its aliases."""
        return tuple(dict.fromkeys((self.label(value), str(value), *self.aliases.get(value, ()))))


@dataclass(frozen=True)
class Text:
    default: str

    def coerce(self, raw: Any) -> str:
        if not isinstance(raw, str) or not raw.strip():
            raise ValueError(f"expected non-empty text, got {raw!r}")
        return raw

    def label(self, value: Any) -> str:
        return str(value)


@dataclass(frozen=True)
class Time:
    """A time of day as zero-padded HH:MM (the world state's own spelling)."""

    default: str

    def coerce(self, raw: Any) -> str:
        m = re.fullmatch(r"(\d{1,2}):(\d{2})", raw) if isinstance(raw, str) else None
        if m is None or int(m.group(1)) > 23 or int(m.group(2)) > 59:
            raise ValueError(f"expected a time HH:MM, got {raw!r}")
        return f"{int(m.group(1)):02d}:{m.group(2)}"

    def label(self, value: Any) -> str:
        return str(value)


Param = Enum | Text | Time


# -- answer fields ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Field:
    """One AnswerSheet field, rendered for a task instance."""

    type: str
    label: str
    hint: str | None = None
    options: tuple[str, ...] | None = None
    matcher: str = "exact"
    repeatable: bool = False
    compare: str = "sequence"

    @classmethod
    def from_spec(cls, spec: Any, render: Callable[[str], str]) -> Field:
        if not isinstance(spec, dict):
            raise TaskDefinitionError(f"a field spec is a dict, got {spec!r}")
        unknown = set(spec) - {"type", "label", "hint", "options", "matcher", "repeatable", "compare"}
        if unknown:
            raise TaskDefinitionError(f"field spec has unknown keys {sorted(unknown)}")
        ftype = spec.get("type")
        if ftype not in FIELD_TYPES:
            raise TaskDefinitionError(f"field type must be one of {FIELD_TYPES}, got {ftype!r}")
        if not spec.get("label"):
            raise TaskDefinitionError("a field needs a label")
        matcher = spec.get("matcher", DEFAULT_MATCHER[ftype])
        if matcher not in MATCHERS:
            raise TaskDefinitionError(f"matcher must be one of {MATCHERS}, got {matcher!r}")
        compare = spec.get("compare", "sequence")
        if compare not in COMPARES:
            raise TaskDefinitionError(f"compare must be one of {COMPARES}, got {compare!r}")
        if "compare" in spec and not spec.get("repeatable"):
            raise TaskDefinitionError("compare only applies to a repeatable field")
        options = spec.get("options")
        if (ftype == "choice") != (options is not None):
            raise TaskDefinitionError("options are required for a choice field and only for one")
        if options is not None and (not isinstance(options, list) or len(options) < 2):
            raise TaskDefinitionError("a choice field needs a list of at least two options")
        hint = spec.get("hint", DEFAULT_HINT[ftype])
        return cls(
            type=ftype,
            label=render(spec["label"]),
            hint=render(hint) if hint else None,
            options=tuple(render(o) for o in options) if options is not None else None,
            matcher=matcher,
            repeatable=bool(spec.get("repeatable", False)),
            compare=compare,
        )

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type, "label": self.label, "matcher": self.matcher}
        if self.hint:
            out["hint"] = self.hint
        if self.options is not None:
            out["options"] = list(self.options)
        if self.repeatable:
            out["repeatable"] = True
            out["compare"] = self.compare
        return out


# -- what a task sees of a run ---------------------------------------------------------------


@dataclass(frozen=True)
class Observation:
    """The run as a task's checks see it: world states, the answer and the AnswerSheet.

    ``answer`` is the agent's text in text mode and, on Path B, the AnswerSheet values joined
    with ", " (None when the sheet was not submitted). ``sheet`` keeps the structured values.
    ``about`` is the answer with what it says of other subjects blanked (``Task.about``); checks
    read :attr:`said` and show ``answer``.
    """

    initial: dict[str, Any]
    final: dict[str, Any]
    answer: str | None = None
    sheet: dict[str, Any] = field(default_factory=dict)
    submitted: bool = False
    mode: str = "grounded"
    about: str | None = None

    @property
    def said(self) -> str | None:
        """What the answer says of the asked subject(s): the text the checks match."""
        return self.about if self.about is not None else self.answer

    @property
    def apps(self) -> dict[str, Any]:
        return self.initial.get("apps") or {}

    @property
    def os(self) -> dict[str, Any] | None:
        return self.initial.get("os")

    def app(self, name: str, *, final: bool = False) -> dict[str, Any]:
        """An app's state, initial by default; KeyError naming the app when it is missing."""
        apps = (self.final if final else self.initial).get("apps") or {}
        if name not in apps:
            raise KeyError(f"the world state has no app {name!r}")
        return apps[name]


# -- task classes ----------------------------------------------------------------------------


class _Formatter(string.Formatter):
    def get_value(self, key: Any, args: Any, kwargs: Any) -> Any:
        if key not in kwargs:
            raise TaskDefinitionError(f"unknown placeholder {{{key}}}")
        return kwargs[key]


_FORMAT = _Formatter()


class Task:
    """Base of every task. Its own ``check_goals`` checks nothing; subclasses say what to check."""

    app: ClassVar[str] = ""
    kind: ClassVar[str] = "query"  # query, operate or hybrid: how the tests build cases
    templates: ClassVar[tuple[str, ...]] = ()
    parameters: ClassVar[dict[str, Param]] = {}
    answer_fields: ClassVar[list[dict[str, Any]] | dict[str, Any] | None] = None
    answer_hint: ClassVar[str | None] = None
    expected_changes: ClassVar[tuple[str, ...]] = ()
    always_ignore: ClassVar[tuple[str, ...]] = ()
    max_steps: ClassVar[int] = 20
    split: ClassVar[str | None] = None

    def __init__(self, **params: Any) -> None:
        unknown = set(params) - set(self.parameters)
        if unknown:
            raise ValueError(f"{self.task_id}: no parameter {', '.join(sorted(unknown))}")
        values: dict[str, Any] = {}
        for name, spec in self.parameters.items():
            raw = params.get(name, spec.default)
            try:
                values[name] = spec.coerce(raw)
            except ValueError as exc:
                raise ValueError(f"{self.task_id}: parameter {name}: {exc}") from None
        self.params = values
        self.p = SimpleNamespace(**values)

    @property
    def task_id(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.params.items())
        return f"{self.task_id}({args})"

    # -- rendering ------------------------------------------------------------------------
    def render(self, text: str) -> str:
        """A template with each ``{param}`` replaced by its display label (for people)."""
        labels = {k: self.parameters[k].label(v) for k, v in self.params.items()}
        return _FORMAT.format(text, **labels)

    def fill(self, path: str) -> str:
        """A path with each ``{param}`` replaced by its value (for the state)."""
        return _FORMAT.format(path, **{k: v for k, v in self.params.items()})

    @property
    def description(self) -> str:
        if not self.templates:
            raise TaskDefinitionError(f"{self.task_id} has no templates")
        return self.render(self.templates[0])

    def _fields_spec(self) -> tuple[str | None, list[Any]]:
        spec = self.answer_fields
        if spec is None:
            return None, []
        if isinstance(spec, dict):
            if set(spec) - {"question", "fields"} or not isinstance(spec.get("fields"), list):
                raise TaskDefinitionError(f"{self.task_id}: answer_fields dict form is {{question, fields}}")
            return spec.get("question"), spec["fields"]
        if not isinstance(spec, list):
            raise TaskDefinitionError(f"{self.task_id}: answer_fields is a list or a dict")
        return None, spec

    def fields(self) -> tuple[Field, ...]:
        return tuple(Field.from_spec(s, self.render) for s in self._fields_spec()[1])

    def question(self) -> str:
        """What the AnswerSheet shows at its top: the dict form's question, else the description."""
        q = self._fields_spec()[0]
        return self.render(q) if q else self.description

    def instruction(self, mode: str) -> str:
        """The instruction the agent is given in a mode."""
        if mode == "grounded" and self.fields():
            return self.description + SHEET_SUFFIX
        return self.description

    def budget(self, mode: str) -> int:
        return self.max_steps + (ANSWER_SHEET_STEPS if mode == "grounded" and self.fields() else 0)

    def change_rules(self, obs: Observation | None = None) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """(expected changes, ignored changes), parameters filled in. Given the run, a task may
        narrow its expected changes to what it asked for (``covered_changes``)."""
        expected = tuple(self.fill(r) for r in self.expected_changes)
        if obs is not None:
            expected = self.covered_changes(obs, expected)
        return expected, tuple(self.fill(r) for r in BASE_IGNORE + tuple(self.always_ignore))

    def covered_changes(self, obs: Observation, rules: tuple[str, ...]) -> tuple[str, ...]:
        """The change rules that cover this run's expected changes; by default the declared ones.
        A task that asks for one new item overrides this so that a second one is a side effect."""
        return rules

    def definition(self) -> dict[str, Any]:
        """The task's definition data (hashed into the judge version)."""
        question, _ = self._fields_spec()
        expected, ignored = self.change_rules()
        return {
            "task": self.task_id,
            "app": self.app,
            "params": self.params,
            "templates": list(self.templates),
            "fields": [f.to_dict() for f in self.fields()],
            "question": question,
            "answer_hint": self.answer_hint,
            "answer": _answer_repr(getattr(self, "answer", None)),
            "expected_changes": list(expected),
            "always_ignore": list(ignored),
            "max_steps": self.max_steps,
        }

    # -- judging --------------------------------------------------------------------------
    def subjects(self) -> tuple[Subject, ...]:
        """What the question is about, one entry per kind: the asked names and the other names
        of that kind (from the ``subject`` parameters)."""
        kinds: dict[tuple[str, ...], tuple[Enum, list[Any]]] = {}
        for name, spec in self.parameters.items():
            if isinstance(spec, Enum) and spec.subject:
                kinds.setdefault(tuple(spec.values), (spec, []))[1].append(self.params[name])
        out = []
        for spec, asked in kinds.values():
            names = [n for v in asked for n in spec.names(v)]
            others = [n for v in spec.values.values() if v not in asked for n in spec.names(v)] + list(spec.kin)
            out.append(Subject(tuple(names), tuple(n for n in others if n not in names)))
        return tuple(out)

    def about(self, answer: str | None) -> str | None:
        """The answer without what it says of other subjects (judges.subjects.about)."""
        return about(answer, self.subjects())

    def check_goals(self, obs: Observation) -> list[Check]:
        return []


def _answer_repr(answer: Any) -> Any:
    if isinstance(answer, tuple):
        return [answer[0], getattr(answer[1], "__name__", repr(answer[1]))]
    return answer


class AnswerTask(Task):
    """A question about the world as the agent found it. Grounded mode judges it on Path A.
    ``unit`` is the unit the question asks its numbers in ("°C"): in free text, a number given in
    a conflicting unit (20华氏度) does not state the value."""

    answer: ClassVar[str | tuple[str, Callable[[Any], Any]] | None] = None
    unit: ClassVar[str | None] = None

    def get_answer(self, obs: Observation) -> Any:
        """The expected answer: the value at ``answer``'s path in the initial state (through
        its function when one is given). A dict means several values, one per field."""
        if self.answer is None:
            raise TaskDefinitionError(f"{self.task_id}: define `answer` or override get_answer")
        path, fn = self.answer if isinstance(self.answer, tuple) else (self.answer, None)
        value = paths.resolve(obs.initial, self.fill(path))
        return fn(value) if fn is not None else value

    def get_expected_response(self, obs: Observation) -> list[Any]:
        """One expected value per AnswerSheet field, in field order.

        A dict answer unpacks its values in order; a pattern cannot be typed into a form, so a
        task whose answer is a pattern must say what the form should hold by overriding this.
        """
        answer = self.get_answer(obs)
        if isinstance(answer, re.Pattern):
            raise JudgeError(
                f"{self.task_id}: the expected answer is a pattern (/{answer.pattern}/); grounded mode "
                "needs an exact expected response: override get_expected_response"
            )
        if isinstance(answer, dict):
            return list(answer.values())
        return [answer]

    def check_goals(self, obs: Observation) -> list[Check]:
        """Text mode: every expected value must be stated in the answer."""
        answer = self.get_answer(obs)
        items = list(answer.items()) if isinstance(answer, dict) else [("answer", answer)]
        fields = self.fields()
        out = []
        for i, (name, value) in enumerate(items):
            field = fields[i] if len(fields) == len(items) else None
            label = name if name == "answer" else f"answer.{name}"
            out.append(self.text_check(label, field, value, obs))
        return out

    def text_check(self, name: str, field: Field | None, value: Any, obs: Observation) -> Check:
        """How the free-text answer is read for one expected value. A list from a repeatable
        field is a list (no extra items; in order when the field compares as a sequence);
        tasks whose answer is a claim (yes/no, a comparison) override this."""
        matcher = field.matcher if field is not None else "exact"
        if field is not None and field.repeatable and isinstance(value, list):
            units = TEMPERATURE_UNITS if matcher == "number" else None
            return list_check(name, matcher, field.compare, value, obs.said, obs.os, units=units, unit=self.unit,
                              shown=obs.answer)
        return value_check(name, matcher, value, obs.said, obs.os, shown=obs.answer, unit=self.unit)


class CriteriaTask(Task):
    """An operation judged by values in the final world state: ``criteria`` maps paths to the
    values they must hold when the run ends. Its ``check_goals`` counts as the task's own."""

    criteria: ClassVar[dict[str, Any]] = {}

    def check_goals(self, obs: Observation) -> list[Check]:
        out = []
        for path, want in self.criteria.items():
            path = self.fill(path)
            want = self.fill(want) if isinstance(want, str) else want
            try:
                got = paths.resolve(obs.final, path)
            except paths.PathError as exc:
                out.append(Check(name=path, passed=False, expected=want, actual=None, reason=str(exc)))
                continue
            ok = got == want and type(got) is type(want)
            out.append(
                Check(name=path, passed=ok, expected=want, actual=got,
                      reason="" if ok else f"is {got!r} at the end, expected {want!r}")
            )
        return out


def has_own_check_goals(task: Task) -> bool:
    """Path B applies when the class (or a base between it and the framework's classes) defines
    ``check_goals``; the framework's own Task and AnswerTask versions do not count."""
    definer = next((c for c in type(task).__mro__ if "check_goals" in c.__dict__), Task)
    return definer not in (Task, AnswerTask)
