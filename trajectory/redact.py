"""Secrets are never stored or printed: the one place that blanks them out.

Two nets, because a secret reaches us in two ways. By name: the value of an option or an
assignment whose name says it is a secret (``--llm-key``, ``--storage-option
AWS_SECRET_ACCESS_KEY=...``, ``api_token=...``, anything named *key*, *token*, *secret*,
*password*). By look: text that has the shape of a key whatever surrounds it (``sk-...``,
``Bearer ...``, AWS access key ids, GitHub and Slack tokens, JWTs, long high-entropy words).
Everything traj records or prints from a command line, an error or a log goes through
:func:`redact_text` (or :func:`redact_argv` for a command line); a blanked value reads ``***``.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

MASK = "***"

# Options whose values are secrets whatever they look like.
SECRET_OPTIONS = frozenset({"--llm-key"})
# Options whose value is KEY=VALUE: the VALUE is blanked when KEY names a secret.
KEYED_OPTIONS = frozenset({"--storage-option"})
# A name that says its value is a secret (option, variable, JSON member, assignment).
_SECRET_NAME = re.compile(r"key|token|secret|passw|pwd|credential|auth|signature|\bsas\b", re.I)

# Shapes of keys and tokens, wherever they appear.
_SHAPES = (
    re.compile(r"\bsk-[A-Za-z0-9_\-]{8,}"),  # OpenAI, Anthropic (sk-ant-...), most LLM gateways
    re.compile(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}\b"),  # AWS access key ids
    re.compile(r"\bgh[pousr]_[A-Za-z0-9]{20,}|\bgithub_pat_[A-Za-z0-9_]{20,}"),  # GitHub
    re.compile(r"\bxox[abposr]-[A-Za-z0-9\-]{10,}"),  # Slack
    re.compile(r"\bAIza[0-9A-Za-z_\-]{30,}"),  # Google API keys
    re.compile(r"\beyJ[A-Za-z0-9_\-]{6,}\.[A-Za-z0-9_\-]{6,}\.[A-Za-z0-9_\-]{6,}"),  # JWTs
)
# "Bearer <token>" / "Basic <token>" in a header someone pasted into a message.
_AUTH_HEADER = re.compile(r"\b(Bearer|Basic|Token)\s+([A-Za-z0-9._~+/=\-]{8,})", re.I)
# name=value, name: value in JSON ("name": "value"), and URL user:password@host.
_ASSIGN = re.compile(r"(?P<name>[A-Za-z_][\w.\-]*)(?P<sep>\s*=\s*)(?P<q>['\"]?)(?P<value>[^\s'\"&;,]+)")
_JSON_MEMBER = re.compile(r"(?P<name>\"[^\"\\]{1,80}\")(?P<sep>\s*:\s*)\"(?P<value>(?:[^\"\\]|\\.)*)\"")
_URL_PASSWORD = re.compile(r"(?P<pre>[a-z][a-z0-9+.\-]*://[^/\s:@]+:)(?P<value>[^@\s/]+)(?=@)", re.I)
# Long words that could be a key: checked for entropy one by one.
_WORD = re.compile(r"[A-Za-z0-9+/=_\-]{32,}")


# The last word of a name that says its value describes a secret rather than being one:
# ``RAY_AUTH_MODE=token``, ``token_type: bearer``, ``AWS_SHARED_CREDENTIALS_FILE=~/.aws/x``.
_QUALIFIERS = frozenset({
    "mode", "type", "method", "kind", "scheme", "enabled", "required", "provider", "file", "path", "dir",
    "url", "uri", "endpoint", "region", "name", "names", "id_type", "format", "source", "ttl", "expiry",
    "expires", "timeout", "length", "len", "version",
})


def secret_name(name: str) -> bool:
    """Whether an option, variable or field of this name holds a secret: its name says key,
    token, secret, password, ..., and its last word is not one that names a setting about the
    secret (``RAY_AUTH_MODE``, ``token_type``, ``api_key_file``: their values are modes, kinds
    and paths, which a hint has to show)."""
    if not _SECRET_NAME.search(name):
        return False
    words = [w for w in re.split(r"[_.\-\s]+|(?<=[a-z])(?=[A-Z])", name.strip("-\"'")) if w]
    return not (len(words) > 1 and words[-1].lower() in _QUALIFIERS)


def credential_like(word: str) -> bool:
    """Whether the word after ``Bearer``/``Basic``/``Token`` can be a credential: it has a
    digit, mixed case or a token's punctuation, or is long. A word of prose ("token
    authentication", "token based") is not one: masking it hides what a hint says."""
    if len(word) >= 24 or re.search(r"\d|[._~+/=\-]", word):
        return True
    return bool(re.search(r"[a-z]", word) and re.search(r"[A-Z]", word[1:]))


def looks_random(word: str) -> bool:
    """A long word with upper and lower case letters and digits whose characters are spread
    like a key's (about 4 bits each or more): paths, ids and hashes are not."""
    if len(word) < 32:
        return False
    if not (re.search(r"[a-z]", word) and re.search(r"[A-Z]", word) and re.search(r"\d", word)):
        return False
    counts = Counter(word)
    entropy = -sum(n / len(word) * math.log2(n / len(word)) for n in counts.values())
    return entropy >= 4.0


def redact_text(text: str) -> str:
    """``text`` with every value that is a secret by name or by look replaced by ``***``."""
    if not text:
        return text
    out = text
    for shape in _SHAPES:
        out = shape.sub(MASK, out)
    out = _AUTH_HEADER.sub(lambda m: f"{m.group(1)} {MASK}" if credential_like(m.group(2)) else m.group(0), out)
    out = _URL_PASSWORD.sub(lambda m: m.group("pre") + MASK, out)

    def assign(m: re.Match[str]) -> str:
        if not secret_name(m.group("name")) or m.group("value") == MASK:
            return m.group(0)
        return f"{m.group('name')}{m.group('sep')}{m.group('q')}{MASK}"

    out = _ASSIGN.sub(assign, out)

    def member(m: re.Match[str]) -> str:
        if not secret_name(m.group("name")) or not m.group("value"):
            return m.group(0)
        return f'{m.group("name")}{m.group("sep")}"{MASK}"'

    out = _JSON_MEMBER.sub(member, out)
    return _WORD.sub(lambda m: MASK if looks_random(m.group(0)) else m.group(0), out)


def redact_argv(argv: Sequence[str]) -> list[str]:
    """A command line's words with secret option values blanked (``--llm-key X`` and
    ``--llm-key=X``; every ``--storage-option`` value; any ``--*key*``,
    ``--*token*``, ``--*secret*``, ``--*password*`` option), then every word by look."""
    out: list[str] = []
    pending: str | None = None  # the option whose value is the next word
    for word in argv:
        if pending is not None:
            out.append(_option_value(pending, word))
            pending = None
            continue
        if word.startswith("--") and len(word) > 2:
            name, eq, value = word.partition("=")
            if _option_hides(name):
                if eq:
                    out.append(f"{name}={_option_value(name, value)}")
                else:
                    out.append(word)
                    pending = name
                continue
        out.append(redact_text(word))
    return out


def _option_hides(name: str) -> bool:
    return name in SECRET_OPTIONS or name in KEYED_OPTIONS or secret_name(name.lstrip("-"))


def _option_value(option: str, value: str) -> str:
    # A --storage-option's whole KEY=VALUE is blanked: endpoints and bucket settings say where
    # a team's data lives, and a secret given under an unexpected name must not slip through.
    return MASK
