"""L3, tool quality: the prompt an LLM judge is asked, and reading its recorded answer.

Pure. The judge never calls a model: it builds the prompt, hashes it into a key, and looks the
key up among the judgements recorded in the store (``traj judge --llm`` asks the model and
records the answers; see trajectory/llm/ask.py). The same prompt always gives the same key, so a
recorded answer is found again by every later judging.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping
from typing import Any

from judges.contract import LLMRequest

JUDGE = "selfevo.L3"
DIMENSIONS = ("error_handling", "input_validation", "documentation", "robustness")
MAX_PER_DIMENSION = 3

SYSTEM = (
    "You review Python tool functions that a self-evolving agent wrote for itself. Judge only "
    "the code you are given. Give each of four dimensions an integer from 0 to 3 "
    "(0 = absent, 1 = weak, 2 = adequate, 3 = excellent):\n"
    "- error_handling: network, I/O and parsing failures are caught and reported usefully.\n"
    "- input_validation: argument types, values and bounds are checked; bad input raises.\n"
    "- documentation: a docstring states purpose, arguments, return value and exceptions.\n"
    "- robustness: the code fits the task's goal and handles edge cases and failures.\n"
    "Answer with one JSON object and nothing else: "
    '{"error_handling": 0-3, "input_validation": 0-3, "documentation": 0-3, '
    '"robustness": 0-3, "comment": "one or two sentences"}'
)


_BACKTICKS = re.compile(r"`+")
_PLAIN_NAME = re.compile(r"[\w.\-]+")


def fence_for(code: str) -> str:
    """A Markdown fence the code cannot close: longer than any run of backticks in it (three
    when it has none, so the prompt, and its key, stay as they were for ordinary code)."""
    longest = max((len(m) for m in _BACKTICKS.findall(code)), default=0)
    return "`" * max(3, longest + 1)


def messages(goal: str, tool_name: str, code: str) -> tuple[dict[str, str], ...]:
    fence = fence_for(code)
    # A name with backticks or line breaks could end its quoting and speak to the judge: such
    # a name is shown as a JSON string instead.
    name = tool_name if _PLAIN_NAME.fullmatch(tool_name) else json.dumps(tool_name, ensure_ascii=False)
    user = (
        f"Task goal: {goal}\n\n"
        f"The agent created the tool `{name}`:\n{fence}python\n{code}\n{fence}"
    )
    return ({"role": "system", "content": SYSTEM}, {"role": "user", "content": user})


def prompt_key(judge: str, msgs: tuple[Mapping[str, str], ...]) -> str:
    """sha256 over the judge name and the exact messages (canonical JSON)."""
    blob = json.dumps({"judge": judge, "messages": list(msgs)}, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def request_for(goal: str, tool: Mapping[str, Any], label: str = "") -> LLMRequest | None:
    """The L3 request for a created tool, or None when the tool has no code to judge."""
    name, code = tool.get("name"), tool.get("code")
    if not isinstance(code, str) or not code.strip():
        return None
    msgs = messages(goal, str(name), code)
    return LLMRequest(
        judge=JUDGE,
        key=prompt_key(JUDGE, msgs),
        messages=msgs,
        response_format={"type": "json_object"},
        label=label,
    )


# One fence around the whole reply, at most: ```json, then the object, then ```.
_FENCED = re.compile(r"\A\s*```(?:json)?[ \t]*\r?\n(?P<body>.*)\r?\n[ \t]*```\s*\Z", re.S | re.I)


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj: dict[str, Any] = {}
    for key, value in pairs:
        if key in obj:
            raise ValueError(f"key {key!r} given twice")
        obj[key] = value
    return obj


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _json_object(text: str) -> dict[str, Any] | None:
    """The reply as one JSON object, or None.

    Strict on purpose: the whole reply is the object (one surrounding ```json fence allowed).
    Searching prose for the outermost {...} let a reply that quotes a rubric injected into the
    tool's code, then scores 0 in words, be read as the quoted marks. A key given twice (the
    later would win silently), NaN and Infinity are refused too.
    """
    m = _FENCED.match(text)
    body = m.group("body") if m else text
    try:
        value = json.loads(body, object_pairs_hook=_no_duplicates, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _mark(value: Any) -> int | None:
    """A rubric mark 0..3: an int, an integral float, or a string of digits; else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        mark = value
    elif isinstance(value, float) and value.is_integer():
        mark = int(value)
    elif isinstance(value, str) and value.strip().isdigit():
        mark = int(value.strip())
    else:
        return None
    return mark if 0 <= mark <= MAX_PER_DIMENSION else None


def parse_rubric(raw: str) -> tuple[dict[str, Any] | None, str]:
    """The rubric in a judge's answer, or (None, why it cannot be read).

    Stricter than the seed on purpose: the seed scores an unreadable answer 0 and a missing
    dimension 0; here both are "cannot read" (L3 n/a with the raw text kept), because a zero
    would claim the tool is bad when only the judge's answer was.
    """
    obj = _json_object(raw)
    if obj is None:
        return None, "the judge's answer is not one JSON object (and nothing else)"
    marks = {}
    for dim in DIMENSIONS:
        mark = _mark(obj.get(dim))
        if mark is None:
            return None, f"the judge's answer has no mark 0-3 for {dim} (got {obj.get(dim)!r})"
        marks[dim] = mark
    comment = obj.get("comment")
    return {**marks, "comment": comment if isinstance(comment, str) else ""}, ""


# lookup(judge, key) -> (model, recorded output), or None when nothing is recorded.
Lookup = Callable[[str, str], "tuple[str, Mapping[str, Any]] | None"]


def layer3(goal: str, tools: list[dict[str, Any]], lookup: Lookup) -> tuple[dict[str, Any], LLMRequest | None]:
    """L3 from a recorded judgement found by ``lookup``.

    Returns the layer result and the request it needs (None when L3 does not apply).
    """
    if not tools:
        return {"score": None, "detail": "no tool created in this attempt: L3 does not apply"}, None
    tool = tools[0]  # the harness judges the first created tool
    request = request_for(goal, tool)
    if request is None:
        return {
            "score": None,
            "tool_name": tool.get("name"),
            "detail": f"the created tool {tool.get('name')!r} has no code recorded: L3 cannot be judged",
        }, None
    found = lookup(request.judge, request.key)
    if found is None:
        return {
            "score": None,
            "tool_name": tool.get("name"),
            "key": request.key,
            "detail": "no recorded LLM judgement for this tool's prompt: run `traj judge --llm` to ask one",
        }, request
    model, output = found
    raw = output.get("raw")
    if isinstance(raw, str):
        rubric, why = parse_rubric(raw)
    else:
        # A judgement recorded without its raw text: read the fields it has.
        raw = json.dumps(dict(output), ensure_ascii=False, sort_keys=True)
        rubric, why = parse_rubric(raw)
    if rubric is None:
        return {
            "score": None,
            "tool_name": tool.get("name"),
            "key": request.key,
            "model": model,
            "judge_text": raw,
            "detail": f"unreadable LLM judgement: {why}; L3 left n/a (raw text kept)",
        }, request
    total = sum(rubric[d] for d in DIMENSIONS)
    score = round(total / (MAX_PER_DIMENSION * len(DIMENSIONS)), 3)
    return {
        "score": score,
        "rubric": rubric,
        "judge_text": raw,
        "tool_name": tool.get("name"),
        "key": request.key,
        "model": model,
        "detail": f"rubric total {total}/12 -> {score}" + (f"; {rubric['comment']}" if rubric["comment"] else ""),
    }, request
