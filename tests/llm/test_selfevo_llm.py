"""The LLM judge client against a chat-completions server on loopback, recording answers as
judgement runs, and replaying them without asking the server again."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from selfevo_helpers import good_steps, reuse_steps, traj
from typer.testing import CliRunner

from trajectory.cli.main import app
from trajectory.judging import JUDGEMENT_SUITE, SuiteResolver, current_rows, recorded_judgements
from trajectory.llm.ask import ChatClient, LLMConfig, LLMError, ask_and_record, parsed_output, resolve_config
from trajectory.query.sql import Views
from trajectory.store.delta import Store

runner = CliRunner()
FULL = {"error_handling": 3, "input_validation": 3, "documentation": 2, "robustness": 3, "comment": "solid"}


def chat(content: Any) -> tuple[int, dict[str, str], bytes]:
    body = {"id": "x", "object": "chat.completion", "choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]}
    return 200, {"Content-Type": "application/json"}, json.dumps(body).encode()


class FakeLLM:
    """A chat-completions endpoint: answers scripted responses in order, then ``default``."""

    def __init__(self) -> None:
        self.script: list[tuple[int, dict[str, str], bytes]] = []
        self.default = chat(json.dumps(FULL))
        self.requests: list[dict[str, Any]] = []
        self.delay = 0.0
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                if fake.delay:
                    time.sleep(fake.delay)
                length = int(self.headers.get("Content-Length", "0"))
                fake.requests.append(
                    {"path": self.path, "headers": dict(self.headers), "body": json.loads(self.rfile.read(length))}
                )
                status, headers, body = fake.script.pop(0) if fake.script else fake.default
                try:
                    self.send_response(status)
                    for k, v in headers.items():
                        self.send_header(k, v)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up waiting (the timeout test)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()


@pytest.fixture(autouse=True)
def _no_llm_env(monkeypatch) -> None:
    for name in ("TRAJ_LLM_BASE_URL", "TRAJ_LLM_API_KEY", "TRAJ_LLM_MODEL", "OPENAI_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def llm():
    fake = FakeLLM()
    yield fake
    fake.close()


def config(fake: FakeLLM, **kw: Any) -> LLMConfig:
    return LLMConfig(**{"base_url": fake.base_url, "model": "judge-1", "api_key": "sk-test", "backoff": 0.0, **kw})


MSGS = [{"role": "user", "content": "hi"}]

# -- the client ------------------------------------------------------------------------------------


def test_client_speaks_chat_completions(llm) -> None:
    client = ChatClient(config(llm))
    assert client.complete(MSGS, {"type": "json_object"}) == json.dumps(FULL)
    req = llm.requests[0]
    assert req["path"] == "/v1/chat/completions"
    assert req["headers"]["Authorization"] == "Bearer sk-test"
    assert req["body"] == {"model": "judge-1", "messages": MSGS, "temperature": 0, "response_format": {"type": "json_object"}}
    assert client.requests == 1


def test_429_then_200_is_retried_after_the_servers_wait(llm) -> None:
    llm.script = [(429, {"Retry-After": "0"}, b'{"error": "slow down"}'), chat("fine")]
    waits: list[float] = []
    client = ChatClient(config(llm, retries=2, backoff=5.0), sleep=waits.append)
    assert client.complete(MSGS) == "fine"
    assert len(llm.requests) == 2
    assert waits == [0.0]  # Retry-After wins over the backoff


def test_5xx_is_retried_with_backoff_then_gives_a_clear_error(llm) -> None:
    llm.script = [(503, {}, b"overloaded")] * 3
    waits: list[float] = []
    client = ChatClient(config(llm, retries=2, backoff=0.5), sleep=waits.append)
    with pytest.raises(LLMError, match=r"no answer after 3 tries; last: HTTP 503: overloaded"):
        client.complete(MSGS)
    assert len(llm.requests) == 3
    assert waits == [0.5, 1.0]


def test_4xx_is_not_retried_and_the_key_is_never_shown(llm) -> None:
    llm.script = [(401, {}, b'{"error": "bad key"}')]
    with pytest.raises(LLMError) as info:
        ChatClient(config(llm)).complete(MSGS)
    assert "HTTP 401" in str(info.value) and "bad key" in str(info.value)
    assert "sk-test" not in str(info.value) and "sk-test" not in repr(config(llm))
    assert len(llm.requests) == 1


def test_json_mode_refused_is_asked_again_without_it(llm) -> None:
    llm.script = [(400, {}, b'{"error": "response_format not supported"}'), chat("plain")]
    assert ChatClient(config(llm)).complete(MSGS, {"type": "json_object"}) == "plain"
    assert "response_format" in llm.requests[0]["body"] and "response_format" not in llm.requests[1]["body"]


@pytest.mark.parametrize(
    "body",
    [b"<html>not json</html>", b'{"choices": []}', b'{"choices": [{"message": {"content": 3}}]}'],
    ids=["html", "no-choices", "content-not-text"],
)
def test_answers_not_in_the_format_are_clear_errors(llm, body) -> None:
    llm.script = [(200, {}, body)]
    with pytest.raises(LLMError, match="chat-completions|not text"):
        ChatClient(config(llm)).complete(MSGS)


def test_unreachable_endpoint(llm) -> None:
    cfg = config(llm, retries=1, timeout=2.0)
    llm.close()
    llm.server = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)  # for the fixture's close
    llm.thread = threading.Thread(target=llm.server.serve_forever, args=(0.05,), daemon=True)
    llm.thread.start()
    with pytest.raises(LLMError, match="cannot reach the endpoint"):
        ChatClient(cfg, sleep=lambda s: None).complete(MSGS)


def test_a_slow_endpoint_times_out(llm) -> None:
    llm.delay = 0.5
    with pytest.raises(LLMError, match="no answer after 1 tries; last: cannot reach the endpoint: timed out"):
        ChatClient(config(llm, retries=0, timeout=0.1)).complete(MSGS)


def test_config_from_flags_then_environment() -> None:
    env = {"OPENAI_BASE_URL": "http://o/v1", "OPENAI_API_KEY": "ok", "TRAJ_LLM_MODEL": "m"}
    c = resolve_config(env=env)
    assert (c.base_url, c.api_key, c.model) == ("http://o/v1", "ok", "m")
    env |= {"TRAJ_LLM_BASE_URL": "http://t/v1", "TRAJ_LLM_API_KEY": "tk"}
    c = resolve_config(env=env)
    assert (c.base_url, c.api_key) == ("http://t/v1", "tk")
    c = resolve_config("http://f/v1", "fk", "fm", env=env)
    assert (c.base_url, c.api_key, c.model, c.endpoint) == ("http://f/v1", "fk", "fm", "http://f/v1/chat/completions")
    assert resolve_config(env={"TRAJ_LLM_MODEL": "m"}).base_url == "https://api.openai.com/v1"
    with pytest.raises(LLMError, match="--llm-model"):
        resolve_config(env={})
    with pytest.raises(LLMError, match="base URL"):
        resolve_config("ftp://x", env={"TRAJ_LLM_MODEL": "m"})


def test_parsed_output_keeps_the_raw_text() -> None:
    assert parsed_output('{"a": 1, "raw": "x"}') == {"a": 1, "raw": '{"a": 1, "raw": "x"}'}
    assert parsed_output("no json") == {"raw": "no json"}


# -- recording and replaying ---------------------------------------------------------------------------


def cli(*args: str):
    return runner.invoke(app, list(args))


@pytest.fixture
def paired(tmp_path) -> tuple[str, Path]:
    """A store with two pairs (strong, weak) of task-01 and one pure-reuse first attempt."""
    sdir = str(tmp_path / "store")
    f = tmp_path / "t.jsonl"
    weak_code = "def fetch_youtube_transcript(x):\n    import pytube\n    return pytube.run(x)\n"
    objs = [
        traj("task-01", good_steps(code="def fetch_youtube_transcript(url: str):\n    '''doc'''\n"), profile="strong"),
        traj("task-01", reuse_steps(), profile="strong", variant=True),
        traj("task-01", good_steps(code=weak_code), profile="weak"),
        traj("task-01", good_steps(code=weak_code), profile="weak", variant=True),
        traj("task-02", reuse_steps("task-02"), profile="reuser"),
    ]
    f.write_text("\n".join(json.dumps(o, ensure_ascii=False) for o in objs), encoding="utf-8")
    assert cli("import", "selfevo", str(f), "--store", sdir).exit_code == 0
    return sdir, f


def l3_by_profile(sdir: str) -> dict[str, dict[str, Any]]:
    out = {}
    for row in current_rows(Store(sdir)).values():
        d = json.loads(row["details"]) if row["details"] else {}
        if d.get("round") == 1:
            out[d["profile"]] = d["layers"]["L3"]
    return out


def test_judge_llm_records_once_and_replays_without_asking_again(llm, paired, monkeypatch) -> None:
    sdir, _ = paired
    monkeypatch.setenv("TRAJ_LLM_API_KEY", "sk-env")
    args = ("judge", "--llm", "--llm-base-url", llm.base_url, "--llm-model", "judge-1", "--store", sdir)
    r = cli(*args)
    assert r.exit_code == 0, r.output
    assert "2 prompts needed, 0 already answered, 2 asked and recorded" in r.output
    assert len(llm.requests) == 2  # strong's and weak's tools; the reuse created none
    assert llm.requests[0]["headers"]["Authorization"] == "Bearer sk-env"
    l3 = l3_by_profile(sdir)
    assert l3["strong"]["score"] == 0.917 and l3["weak"]["score"] == 0.917  # 11/12 from the fake judge
    assert l3["reuser"]["score"] is None

    # The answers live in a judgement run of their own, finished.
    with Views(Store(sdir), split=None) as v:
        jr = v.arrow("SELECT run_id, task, outcome, events FROM runs WHERE suite = ?", [JUDGEMENT_SUITE]).to_pylist()
    assert len(jr) == 1 and jr[0]["task"] == "llm" and jr[0]["outcome"] == "succeeded" and jr[0]["events"] == 4
    js = recorded_judgements(Store(sdir))
    assert {j.model for j in js} == {"judge-1"}
    assert all(j.output["raw"] == json.dumps(FULL) and j.output["robustness"] == 3 for j in js)

    # Again with --llm: nothing new is asked. Without --llm: replayed all the same.
    r = cli(*args)
    assert r.exit_code == 0 and "2 already answered, 0 asked" in r.output
    assert len(llm.requests) == 2
    assert cli("judge", "--store", sdir).exit_code == 0
    assert len(llm.requests) == 2
    assert l3_by_profile(sdir)["strong"]["score"] == 0.917

    # Another model is another judge: it is asked, and its (later) answers are used.
    llm.default = chat(json.dumps({**FULL, "documentation": 0}))
    r = cli("judge", "--llm", "--llm-base-url", llm.base_url, "--llm-model", "judge-2", "--store", sdir)
    assert r.exit_code == 0 and len(llm.requests) == 4
    assert l3_by_profile(sdir)["strong"]["score"] == 0.75
    assert l3_by_profile(sdir)["strong"]["model"] == "judge-2"


def test_garbage_answer_is_recorded_and_l3_is_na_with_the_text(llm, paired) -> None:
    sdir, _ = paired
    llm.default = chat("I would rather not grade this.")
    r = cli("judge", "--llm", "--llm-base-url", llm.base_url, "--llm-model", "m", "--store", sdir)
    assert r.exit_code == 0, r.output
    l3 = l3_by_profile(sdir)["strong"]
    assert l3["score"] is None and l3["judge_text"] == "I would rather not grade this."
    reason = next(row["reason"] for row in current_rows(Store(sdir)).values() if "unreadable" in (row["reason"] or ""))
    assert "L3 n/a: unreadable LLM judgement" in reason


def test_failed_prompts_are_reported_and_only_they_are_asked_again(llm, paired) -> None:
    sdir, _ = paired
    llm.script = [chat(json.dumps(FULL)), (400, {}, b'{"error": "context too long"}')] + [
        (400, {}, b'{"error": "context too long"}')
    ]
    r = cli("judge", "--llm", "--llm-base-url", llm.base_url, "--llm-model", "m", "--store", sdir)
    assert r.exit_code == 1
    assert "1 of 2 LLM prompts failed (1 answers recorded" in r.output and "context too long" in r.output
    assert len(recorded_judgements(Store(sdir))) == 1
    r = cli("judge", "--llm", "--llm-base-url", llm.base_url, "--llm-model", "m", "--store", sdir)
    assert r.exit_code == 0, r.output
    assert "1 already answered, 1 asked and recorded" in r.output
    assert len(recorded_judgements(Store(sdir))) == 2


def test_ask_and_record_honours_the_selection(llm, paired) -> None:
    sdir, _ = paired
    s = Store(sdir)
    with Views(s, split=None) as v:
        weak = v.arrow("SELECT run_id FROM runs WHERE agent = 'weak' AND pair_round = 1").column("run_id").to_pylist()
    report = ask_and_record(s, SuiteResolver(s), config(llm), run_ids=weak)
    assert (report.needed, report.recorded) == (1, 1)
    assert len(llm.requests) == 1 and "pytube" in llm.requests[0]["body"]["messages"][1]["content"]


def test_llm_options_misuse_is_one_line(paired) -> None:
    sdir, _ = paired
    r = cli("judge", "--llm-model", "m", "--store", sdir)
    assert r.exit_code == 1 and "go with --llm" in r.output
    r = cli("judge", "--llm", "--dry-run", "--llm-model", "m", "--store", sdir)
    assert r.exit_code == 1 and "--dry-run" in r.output
    r = cli("judge", "--llm", "--store", sdir)
    assert r.exit_code == 1 and "no judge model" in r.output
    assert "Traceback" not in r.output
