"""Asking LLM judges, and recording their answers so that judging replays them.

The shell side of the LLM-judged layers. A suite's pure judge never calls a model: it exposes
``llm_requests(task, state)`` (objects with ``judge``, ``key``, ``messages`` and optionally
``response_format`` and ``label``), and reads answers from ``RunState.judgements``. This module,
run only when a person asks (``traj judge --llm``), collects the requests of the selected runs,
leaves out those already answered by the same model, asks an OpenAI-compatible
chat-completions endpoint for the rest, and records every answer as a ``judgement_recorded``
event in a judgement run of its own (suite ``traj.judgements``): a judged run is finished, and
nothing may follow ``run_finished``. Every later judging finds the answer by judge and key.

Plain ``urllib``: no client library. A server cannot hold a pass hostage: every socket read has
a timeout, each prompt an overall deadline (a watchdog shuts the socket when it passes, so a
reply trickled a byte at a time is cut off too), the pass a deadline of its own, a reply a size
limit, and retries a budget shared by the whole pass. 429 and 5xx (and connection failures)
are retried with backoff, honouring ``Retry-After``; other failures are one clear line.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import http.client
import ipaddress
import json
import os
import secrets
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from judges.contract import LLMJudged
from replay import replay

from trajectory.errors import TrajError
from trajectory.judging import JUDGEMENT_SUITE, SuiteResolver, load_events, recorded_judgements, select_runs
from trajectory.store.delta import Store
from trajectory.judging.trust import trust_runs

DEFAULT_BASE_URL = "https://api.openai.com/v1"
MAX_RETRY_WAIT = 30.0  # seconds; a longer Retry-After is capped, not obeyed


class LLMError(TrajError, RuntimeError):
    """The LLM endpoint could not be asked, or did not answer in the chat-completions format."""


class _TooLarge(Exception):
    """A reply over the size limit (reported as one line, not retried)."""


@dataclasses.dataclass(frozen=True)
class LLMConfig:
    base_url: str
    model: str
    api_key: str | None = dataclasses.field(default=None, repr=False)  # never printed
    timeout: float = 60.0  # seconds one socket operation (connect, one read) may wait
    retries: int = 3  # retries after the first try, for 429, 5xx and connection failures
    backoff: float = 1.0  # seconds; doubled after each retry
    deadline: float = 180.0  # seconds for one prompt, all tries and waits included
    pass_deadline: float = 1800.0  # seconds for every prompt of one `traj judge --llm`
    max_reply_bytes: int = 1024 * 1024  # a longer HTTP body is refused, not read
    retry_budget: int = 20  # retries the whole pass may spend, over all prompts

    @property
    def endpoint(self) -> str:
        return self.base_url.rstrip("/") + "/chat/completions"


def resolve_config(
    base_url: str | None = None,
    api_key: str | None = None,
    model: str | None = None,
    env: Mapping[str, str] | None = None,
    **kw: Any,
) -> LLMConfig:
    """Flags first, then TRAJ_LLM_BASE_URL / TRAJ_LLM_API_KEY / TRAJ_LLM_MODEL, then
    OPENAI_BASE_URL / OPENAI_API_KEY; the base URL defaults to OpenAI's."""
    env = os.environ if env is None else env
    base_url = base_url or env.get("TRAJ_LLM_BASE_URL") or env.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL
    api_key = api_key or env.get("TRAJ_LLM_API_KEY") or env.get("OPENAI_API_KEY") or None
    model = model or env.get("TRAJ_LLM_MODEL")
    if not model:
        raise LLMError("no judge model: give --llm-model or set TRAJ_LLM_MODEL")
    parsed = urllib.parse.urlsplit(base_url)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise LLMError(f"LLM base URL must be http(s)://host/..., got {base_url!r}")
    for name, (low, high) in LIMIT_BOUNDS.items():
        value = kw.get(name)
        if value is not None and not low <= value <= high:
            option = "--llm-max-reply" if name == "max_reply_bytes" else "--llm-" + name.replace("_", "-")
            raise LLMError(f"{option} must be between {low:g} and {high:g}, got {value:g}")
    return LLMConfig(base_url=base_url, model=model, api_key=api_key, **kw)


# What the limit options may be set to: a deadline of zero or a budget of millions is a mistake.
LIMIT_BOUNDS: dict[str, tuple[float, float]] = {
    "deadline": (0.1, 3600.0),
    "pass_deadline": (0.1, 86400.0),
    "max_reply_bytes": (1024, 64 * 1024 * 1024),
    "retries": (0, 10),
    "retry_budget": (0, 1000),
}


def _is_loopback(host: str | None) -> bool:
    if host is None:
        return False
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class _Watchdog:
    """Shuts down the sockets of one request when its deadline passes.

    A socket timeout bounds one read, not a reply: a server that sends one byte every two
    seconds never trips it. Shutting the socket down from a timer ends any read in progress.
    """

    def __init__(self, seconds: float):
        self.expired = False
        self._socks: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(max(0.0, seconds), self._fire)
        self._timer.daemon = True
        self._timer.start()

    def watch(self, sock: socket.socket) -> None:
        with self._lock:
            self._socks.append(sock)
            if self.expired:
                _shutdown(sock)

    def _fire(self) -> None:
        with self._lock:
            self.expired = True
            for sock in self._socks:
                _shutdown(sock)

    def stop(self) -> None:
        self._timer.cancel()


def _shutdown(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass


def _watched_handlers(dog: _Watchdog) -> list[urllib.request.BaseHandler]:
    """urllib's HTTP(S) handlers, with every connection's socket handed to ``dog``."""

    class HTTPConnection(http.client.HTTPConnection):
        def connect(self) -> None:
            super().connect()
            dog.watch(self.sock)

    class HTTPSConnection(http.client.HTTPSConnection):
        def connect(self) -> None:
            super().connect()
            dog.watch(self.sock)

    class HTTPHandler(urllib.request.HTTPHandler):
        def http_open(self, req):  # noqa: ANN001, ANN202 - urllib's signature
            return self.do_open(HTTPConnection, req)

    class HTTPSHandler(urllib.request.HTTPSHandler):
        def https_open(self, req):  # noqa: ANN001, ANN202 - urllib's signature
            return self.do_open(HTTPSConnection, req, context=self._context)

    return [HTTPHandler(), HTTPSHandler(), _NoRedirect()]


class _Redirected(Exception):
    """An answer that redirects elsewhere: not followed, the request carries credentials."""


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """A redirect is never followed: the request's Authorization header would go with it to
    whatever origin it names, and that origin's answer would be recorded as the judgement."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # noqa: ANN001, ANN201, PLR0913
        raise _Redirected(f"HTTP {code} redirect to {_origin(newurl)} (not followed: the request carries the "
                          "API key; set --llm-base-url to the endpoint itself)")


def _origin(url: str) -> str:
    parts = urllib.parse.urlsplit(url)
    if not parts.scheme or not parts.netloc:
        return "another address"
    host = parts.hostname or "?"
    return _printable(f"{parts.scheme}://{host}" + (f":{parts.port}" if parts.port else ""), 100)


class ChatClient:
    """A minimal chat-completions client. ``requests`` counts the HTTP requests it made;
    ``retries_left`` is what is left of the retry budget, shared by every prompt it asks."""

    def __init__(self, config: LLMConfig, sleep: Callable[[float], None] = time.sleep):
        self.config = config
        self.sleep = sleep
        self.requests = 0
        self.retries_left = config.retry_budget
        host = urllib.parse.urlsplit(config.endpoint).hostname
        # A proxy from the environment must not swallow a judge on this machine.
        self._proxies = [urllib.request.ProxyHandler({})] if _is_loopback(host) else []

    def complete(self, messages: Sequence[Mapping[str, str]], response_format: Mapping[str, Any] | None = None,
                 until: float | None = None) -> str:
        """The text of the first choice. Raises :class:`LLMError` with a one-line reason. The
        configured API key is masked in both, whatever its shape (an error body, or an answer,
        that echoes it shows ``***``).

        ``until``: a ``time.monotonic()`` by which the answer must be in (the pass deadline);
        the prompt's own deadline applies as well, whichever comes first.
        """
        try:
            return mask_key(self._complete(messages, response_format, until), self.config.api_key)
        except LLMError as exc:
            raise LLMError(mask_key(str(exc), self.config.api_key)) from None

    def _complete(
        self,
        messages: Sequence[Mapping[str, str]],
        response_format: Mapping[str, Any] | None = None,
        until: float | None = None,
    ) -> str:
        """The text of the first choice. Raises :class:`LLMError` with a one-line reason.

        ``until``: a ``time.monotonic()`` by which the answer must be in (the pass deadline);
        the prompt's own deadline applies as well, whichever comes first.
        """
        body: dict[str, Any] = {"model": self.config.model, "messages": [dict(m) for m in messages], "temperature": 0}
        if response_format:
            body["response_format"] = dict(response_format)
        url = self.config.endpoint
        own = time.monotonic() + self.config.deadline
        end = own if until is None else min(own, until)
        which = "prompt deadline" if end == own else "pass deadline"
        limit = self.config.deadline if end == own else self.config.pass_deadline
        wait = self.config.backoff
        last = ""
        tries = 0
        for attempt in range(self.config.retries + 1):
            tries += 1
            status, headers, payload, failure = self._post(body, end)
            if failure is None and status == 200:
                return self._content(payload, url)
            if failure is None and status == 400 and "response_format" in body:
                # Some models refuse JSON mode; ask again without it (not counted as a retry).
                del body["response_format"]
                status, headers, payload, failure = self._post(body, end)
                if failure is None and status == 200:
                    return self._content(payload, url)
            if failure is not None:
                last = failure
            elif status == 429 or status >= 500:
                last = f"HTTP {status}: {_snippet(payload)}"
            else:
                raise LLMError(f"{url}: HTTP {status}: {_snippet(payload)}")
            if failure is not None and failure.startswith(("HTTP 3",)):
                raise LLMError(f"{url}: {failure}")
            if failure is not None and failure.startswith(("reply larger", "no answer within")):
                break  # asking again would cost as much again
            if attempt < self.config.retries:
                if self.retries_left <= 0:
                    last += f" (the retry budget of {self.config.retry_budget} for this pass is spent)"
                    break
                after = _retry_after(headers) if headers else None
                pause = min(after, MAX_RETRY_WAIT) if after is not None else wait
                if time.monotonic() + pause >= end:
                    last += f" (no time left for another try within the {which} of {limit:g} s)"
                    break
                self.retries_left -= 1
                self.sleep(pause)
                wait *= 2
        raise LLMError(f"{url}: no answer after {tries} tries; last: {last}")

    def _post(self, body: dict[str, Any], end: float) -> tuple[int, Mapping[str, str] | None, bytes, str | None]:
        """(status, headers, body, None), or (0, None, b"", why) when no whole HTTP answer came
        by ``end`` (a ``time.monotonic()``)."""
        left = end - time.monotonic()
        if left <= 0:
            return 0, None, b"", "no answer within the deadline (none left for this try)"
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.config.api_key:
            headers["Authorization"] = f"Bearer {self.config.api_key}"
        req = urllib.request.Request(
            self.config.endpoint, data=json.dumps(body, ensure_ascii=False).encode("utf-8"), headers=headers, method="POST"
        )
        self.requests += 1
        dog = _Watchdog(left)
        opener = urllib.request.build_opener(*self._proxies, *_watched_handlers(dog))
        try:
            try:
                with opener.open(req, timeout=min(self.config.timeout, left)) as resp:
                    data = self._read(resp, resp.headers)
                if dog.expired:  # the watchdog's shutdown reads as an early end of the body
                    raise TimeoutError("deadline")
                return resp.status, dict(resp.headers), self._masked(data), None
            except urllib.error.HTTPError as exc:
                try:
                    data = self._read(exc, exc.headers or {})
                except OSError:
                    data = b""
                return exc.code, dict(exc.headers or {}), self._masked(data), None
        except (_TooLarge, _Redirected) as exc:
            return 0, None, b"", str(exc)
        except (urllib.error.URLError, TimeoutError, socket.timeout, ConnectionError, OSError,
                http.client.HTTPException) as exc:
            if dog.expired:
                return 0, None, b"", f"no answer within the deadline of {left:.3g} s"
            reason = getattr(exc, "reason", exc)
            return 0, None, b"", f"cannot reach the endpoint: {reason}"
        finally:
            dog.stop()

    def _masked(self, data: bytes) -> bytes:
        """A body with the API key masked before any of it is cut to an excerpt (a key cut in
        two by the excerpt's end would not be found after)."""
        key = self.config.api_key
        if not key or len(key) < 4:
            return data
        text = data.decode("utf-8", "surrogateescape")
        return mask_key(text, key).encode("utf-8", "surrogateescape")

    def _read(self, resp: Any, headers: Mapping[str, str]) -> bytes:
        """The body, refused past ``max_reply_bytes`` (by its Content-Length, or as it comes)."""
        limit = self.config.max_reply_bytes
        declared = next((v for k, v in headers.items() if k.lower() == "content-length"), None)
        if declared is not None and declared.strip().isdigit() and int(declared) > limit:
            raise _TooLarge(f"reply larger than the limit of {limit:,} bytes (Content-Length {int(declared):,})")
        chunks, size = [], 0
        while True:
            chunk = resp.read(min(65536, limit + 1 - size))
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:
                raise _TooLarge(f"reply larger than the limit of {limit:,} bytes")

    @staticmethod
    def _content(payload: bytes, url: str) -> str:
        try:
            data = json.loads(payload)
            content = data["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise LLMError(f"{url}: not a chat-completions answer: {_snippet(payload)}") from None
        if content is None:
            return ""
        if not isinstance(content, str):
            raise LLMError(f"{url}: choices[0].message.content is not text: {_snippet(payload)}")
        return content


def _retry_after(headers: Mapping[str, str]) -> float | None:
    for k, v in headers.items():
        if k.lower() == "retry-after":
            try:
                return max(0.0, float(v))
            except ValueError:
                return None
    return None


def _snippet(payload: bytes, limit: int = 200) -> str:
    """A bounded, printable excerpt of a body: at most ``limit`` characters (read from its first
    bytes only), control characters (NUL, escapes, ...) written as escapes, not passed on."""
    text = payload[: limit * 4].decode("utf-8", "replace").strip()
    return _printable(text, limit) or "(empty body)"


def _printable(text: str, limit: int) -> str:
    from trajectory.termsafe import term_safe

    cut = len(text) > limit
    shown = term_safe(" ".join(text[:limit].split()))
    return shown + "..." if cut else shown


def mask_key(text: str, key: str | None) -> str:
    """``text`` with the API key ``key`` shown as ``***`` wherever it appears, as it is or as a
    URL, JSON or base64 text would carry it (a key of fewer than 4 characters is not looked for:
    it would mask ordinary words)."""
    if not key or len(key) < 4:
        return text
    import base64

    forms = {key, urllib.parse.quote(key, safe=""), urllib.parse.quote_plus(key), json.dumps(key)[1:-1],
             base64.b64encode(key.encode()).decode().rstrip("="), ascii(key)[1:-1]}
    for form in sorted((f for f in forms if len(f) >= 4), key=len, reverse=True):
        text = text.replace(form, "***")
    return text


def parsed_output(text: str) -> dict[str, Any]:
    """What a judgement records: the raw text, plus the fields when the text is a JSON object.
    The judge re-reads ``raw`` itself, so an answer that is not JSON is kept, not lost."""
    out: dict[str, Any] = {}
    try:
        value = json.loads(text)
    except ValueError:
        value = None
    if isinstance(value, dict):
        out.update({k: v for k, v in value.items() if k != "raw"})
    out["raw"] = text
    return out


# -- collecting and recording -----------------------------------------------------------------------


@dataclasses.dataclass
class Pending:
    request: Any
    run_id: str


@dataclasses.dataclass
class LLMReport:
    model: str
    needed: int = 0  # prompts the selected runs need
    already: int = 0  # of those, answered before by this model
    recorded: int = 0
    failed: list[str] = dataclasses.field(default_factory=list)
    run_id: str | None = None  # the judgement run written, if any

    def line(self) -> str:
        text = (
            f"llm {self.model}: {self.needed} prompt{'s' if self.needed != 1 else ''} needed, "
            f"{self.already} already answered, {self.recorded} asked and recorded"
        )
        if self.run_id:
            text += f" (run {self.run_id})"
        if self.failed:
            text += f", {len(self.failed)} failed"
        return text


def pending_requests(
    store: Store,
    resolver: SuiteResolver,
    model: str,
    *,
    suite: str | None = None,
    run_ids: Sequence[str] | None = None,
    where: str | None = None,
    batch: str | None = None,
    where_split: str | None = None,
) -> tuple[list[Pending], int]:
    """The prompts the selected finished runs need that ``model`` has not answered yet, one per
    (judge, key), and how many were answered already."""
    sel = select_runs(store, suite=suite, run_ids=run_ids, where=where, batch=batch, where_split=where_split)
    events = load_events(store, sel.finished)
    answered = {(j.judge, j.key, j.model) for j in recorded_judgements(store)}
    todo: dict[tuple[str, str], Pending] = {}
    already: set[tuple[str, str]] = set()
    for run_id in sel.finished:
        state = replay(events[run_id])
        s = resolver.get(state.suite)
        if not isinstance(s, LLMJudged):
            continue
        try:
            task = s.get_task(state.task or "", state.params)
        except Exception:  # noqa: BLE001 - an unknown task is reported by judging itself
            continue
        for req in s.llm_requests(task, state):
            ident = (req.judge, req.key)
            if (req.judge, req.key, model) in answered:
                already.add(ident)
            elif ident not in todo:
                todo[ident] = Pending(req, run_id)
    return list(todo.values()), len(already)


def ask_and_record(
    store: Store,
    resolver: SuiteResolver,
    config: LLMConfig,
    *,
    client: ChatClient | None = None,
    suite: str | None = None,
    run_ids: Sequence[str] | None = None,
    where: str | None = None,
    batch: str | None = None,
    by: str | None = None,
    where_split: str | None = None,
) -> LLMReport:
    """Ask the model the prompts not yet answered and record the answers in one judgement run.

    Answers that came back are recorded even when others failed; then :class:`LLMError` says
    how many failed, and running again asks only those.
    """
    from trajectory.ingest.recorder import Recorder

    todo, already = pending_requests(
        store, resolver, config.model, suite=suite, run_ids=run_ids, where=where, batch=batch,
        where_split=where_split,
    )
    report = LLMReport(model=config.model, needed=len(todo) + already, already=already)
    if not todo:
        return report
    client = client or ChatClient(config)
    answers = []
    until = time.monotonic() + config.pass_deadline
    for p in todo:
        if time.monotonic() >= until:
            report.failed.append(
                f"run {p.run_id} ({p.request.judge}): not asked, the pass deadline of {config.pass_deadline:g} s passed"
            )
            continue
        try:
            text = client.complete(p.request.messages, getattr(p.request, "response_format", None), until)
        except LLMError as exc:
            report.failed.append(f"run {p.run_id} ({p.request.judge}): {exc}")
            continue
        answers.append((p.request, text))
    if answers:
        now = _dt.datetime.now(_dt.timezone.utc)
        report.run_id = f"llm-{now.strftime('%Y%m%dT%H%M%S%f')}-{secrets.token_hex(3)}"
        with Recorder(
            store,
            run_id=report.run_id,
            suite=JUDGEMENT_SUITE,
            task="llm",
            agent={"name": by or "traj judge --llm", "model": config.model},
            mode="text",
        ) as rec:
            for req, text in answers:
                rec.judgement(req.judge, config.model, req.key, parsed_output(text))
            rec.finish("succeeded")
        # Only now do these answers count (a judgement run ingested from a file does not).
        trust_runs(store, [report.run_id], by=by or "traj judge --llm", via="traj judge --llm")
        report.recorded = len(answers)
    if report.failed:
        raise LLMError(
            f"{len(report.failed)} of {len(todo)} LLM prompts failed ({report.recorded} answers recorded; "
            f"run again to ask only the rest); first: {report.failed[0]}"
        )
    return report
