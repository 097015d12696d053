"""The key under which a grader model's answer is recorded and found again.

Pure, and free of inspect-ai: the importer computes keys from the grader calls a log recorded,
and the scorer suite computes them from the calls its scorers make while re-judging. Both see
the messages as Inspect hands them to a model API (``ModelEvent.input``), in JSON form.

The key hashes the prompt, not the model: like the LLM judge's other answers (see
``trajectory/llm/ask.py``), an answer is found by judge and prompt, and the model that gave it is
recorded next to it. ``occurrence`` numbers identical prompts within one run's scoring (a
majority-vote scorer asks the same thing three times and may get three answers).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any

JUDGE = "inspect.model"

# Fields of a message that change between two calls with the same prompt (ids are random,
# the source and metadata are bookkeeping), so they are left out of the key.
_VOLATILE = frozenset({"id", "source", "metadata", "model", "internal"})


def _part(part: Any) -> Any:
    if isinstance(part, Mapping):
        return {k: _part(v) for k, v in part.items() if k not in _VOLATILE and v is not None}
    if isinstance(part, list):
        return [_part(p) for p in part]
    return part


def message_form(message: Mapping[str, Any]) -> dict[str, Any]:
    """A message with only what the model reads: role, content, tool calls and their ids."""
    return _part(message)


def prompt_key(messages: Iterable[Mapping[str, Any]], occurrence: int = 0) -> str:
    """sha256 over the judge name, the prompt's messages and the occurrence number."""
    blob = json.dumps(
        {"judge": JUDGE, "messages": [message_form(m) for m in messages], "n": occurrence},
        sort_keys=True, ensure_ascii=False, separators=(",", ":"),
    )
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def prompt_digest(messages: Iterable[Mapping[str, Any]]) -> str:
    """A key without the occurrence: what counts identical prompts."""
    return prompt_key(messages, -1)


def chat_messages(messages: Iterable[Mapping[str, Any]]) -> tuple[dict[str, str], ...]:
    """The prompt as chat-completions messages (role and text), for ``traj judge --llm``."""
    out = []
    for m in messages:
        role = str(m.get("role") or "user")
        content = m.get("content")
        if isinstance(content, list):
            text = "\n".join(
                str(p.get("text") or p.get("reasoning") or "") for p in content if isinstance(p, Mapping)
            )
        else:
            text = "" if content is None else str(content)
        # The chat-completions API has no 'tool' message without a preceding tool call here.
        out.append({"role": role if role in ("system", "user", "assistant") else "user", "content": text})
    return tuple(out)
