"""The LLM judge keeps its key (issue 24, section 6): an endpoint that echoes the key, redirects
the request elsewhere, or answers with raw bytes gets none of it onto the terminal or to another
origin. Every server is real, on 127.0.0.1, started and stopped by the test."""

from __future__ import annotations

import socket
import threading

import pytest

from test_llm_hostile import Hostile, chat_bytes
from trajectory.llm.ask import ChatClient, LLMConfig, LLMError

MSGS = [{"role": "user", "content": "hi"}]
# Keys shaped like no known key: nothing but the configured value can find them.
KEYS = ["correct horse battery staple", "ZZ9-plural-z-alpha", "pässwörd/+=42", "k" * 300]


@pytest.fixture
def serve():
    started: list[Hostile] = []

    def start(behave) -> Hostile:  # noqa: ANN001
        h = Hostile(behave)
        started.append(h)
        return h

    yield start
    for h in started:
        h.close()


def reply(status: int, body: bytes, extra: str = ""):  # noqa: ANN201
    def behave(conn: socket.socket, request: dict, stop: threading.Event) -> None:
        conn.sendall(f"HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n"
                     f"{extra}Connection: close\r\n\r\n".encode() + body)
    return behave


def client(h: Hostile, key: str) -> ChatClient:
    return ChatClient(LLMConfig(base_url=h.base_url, model="judge-1", api_key=key, backoff=0.0, retries=0))


@pytest.mark.parametrize("key", KEYS, ids=range(len(KEYS)))
@pytest.mark.parametrize("shape", ["plain", "json", "url", "cut"])
def test_an_error_body_that_echoes_the_key_shows_it_masked(serve, key: str, shape: str) -> None:
    import json
    import urllib.parse

    shown = {"plain": key, "json": json.dumps(key)[1:-1], "url": urllib.parse.quote(key, safe=""),
             "cut": key}[shape]
    # "cut": the key straddles where the excerpt of the body ends.
    pad = "x" * (190 if shape == "cut" else 5)
    body = f'{{"error": "{pad} invalid api key {shown} for this org"}}'.encode()
    h = serve(reply(401, body))
    with pytest.raises(LLMError) as info:
        client(h, key).complete(MSGS)
    message = str(info.value)
    assert "HTTP 401" in message
    for piece in {key, shown, key[:12], key[-12:]}:
        assert piece not in message, message
    if shape != "cut":
        assert "***" in message


def test_an_answer_that_echoes_the_key_is_recorded_masked(serve) -> None:
    key = "ZZ9-plural-z-alpha"
    h = serve(reply(200, chat_bytes(f"the key is {key}")))
    assert client(h, key).complete(MSGS) == "the key is ***"


@pytest.mark.parametrize("code", [301, 302, 303, 307, 308])
def test_a_redirect_to_another_origin_is_not_followed_with_the_key(serve, code: int) -> None:
    key = "correct horse battery staple"
    other = serve(reply(200, chat_bytes('{"score": 12}')))
    h = serve(reply(code, b"", f"Location: {other.base_url}/chat/completions\r\n"))
    with pytest.raises(LLMError) as info:
        client(h, key).complete(MSGS)
    assert f"HTTP {code} redirect to http://127.0.0.1:" in str(info.value) and "not followed" in str(info.value)
    assert other.requests == []  # the other origin heard nothing: no key, no answer recorded
    assert len(h.requests) == 1  # and it is an error, not retried


@pytest.mark.parametrize("body", [b"\x00\x00secret\x00", b"\x1b]0;owned\x07\x1b[2J" + b"A" * 5000,
                                  b"\xff\xfe\x00\x9b31m" * 400, bytes(range(256)) * 20])
def test_an_error_body_of_raw_bytes_is_a_bounded_printable_excerpt(serve, body: bytes) -> None:
    h = serve(reply(403, body))
    with pytest.raises(LLMError) as info:
        client(h, "correct horse battery staple").complete(MSGS)
    message = str(info.value)
    assert "\n" not in message and len(message) < 400, message
    assert not any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in message), repr(message)
