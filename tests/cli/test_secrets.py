"""Issue 14 item 1: a secret is never stored or printed.

The attack: keys and tokens planted wherever a person might type or paste them (the
``--llm-key`` option in both spellings, run ids and SQL that carry a token, a key in a
holdout query), then every output of every command, every row of every table and every byte
of every file of the store searched for them.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from figures import HARDENING
from helpers import example_run, jsonl, traj, traj_proc
from trajectory.cli.common import command_line
from trajectory.redact import MASK, redact_argv, redact_text
from trajectory.store.delta import Store
from trajectory.store.tables import TABLES


LLM_KEY = "sk-proj-Planted7f3KxQ9mZt2LwV8bRn4Yc"
LLM_KEY_EQ = "sk-ant-api03-PlantedEqualsForm-K9x"
AWS_ID = "AKIAZQ3PLANTED7XK2M9"  # AKIA + 16
GH_TOKEN = "ghp_PlantedGitHubToken0123456789abcd"
BEARER = "Bearer PlantedBearer.Token-991xyz"
RANDOM = "Zq8vN3kLp0XwR7tYb2MhC5jD9fG4sA1e"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJwbGFudGVkIn0.c2lnbmF0dXJlUGxhbnRlZA"
PLANTED = {
    "llm key": LLM_KEY, "llm key (=)": LLM_KEY_EQ, "aws key id": AWS_ID, "github token": GH_TOKEN,
    "bearer token": BEARER.split()[1], "random key": RANDOM, "jwt": JWT,
}


class Ran:
    def __init__(self, proc: subprocess.CompletedProcess):
        self.exit_code = proc.returncode
        self.output = proc.stdout + proc.stderr


def traj_process(*args: str) -> Ran:
    """The real command in its own process: its command line is what gets recorded."""
    return Ran(traj_proc(*args, timeout=120))


def everything_in(store_dir: Path) -> dict[str, str]:
    """Each place a secret could rest: every table's rows as text, every file's bytes."""
    store = Store(str(store_dir))
    places = {}
    for name in TABLES:
        if store.has_table(name):
            places[f"table {name}"] = str(store.read(name).to_pylist())
    for path in store_dir.rglob("*"):
        if path.is_file():
            places[f"file {path.relative_to(store_dir)}"] = path.read_bytes().decode("latin-1")
    return places


def test_planted_secrets_are_found_nowhere(tmp_path, monkeypatch) -> None:
    sdir = tmp_path / "store"
    f = tmp_path / "runs.jsonl"
    f.write_bytes(jsonl(example_run("r1") + example_run("h1", task="current_temp")))
    outputs = {"ingest": traj("ingest", str(f), "--store", str(sdir))}
    assert outputs["ingest"].exit_code == 0
    # --llm with no prompt to ask: the pass is written, with its command line.
    outputs["judge --llm-key"] = traj_process(
        "judge", "--llm", "--llm-key", LLM_KEY, "--llm-base-url", "http://127.0.0.1:9/v1", "--llm-model", "m",
        "--store", str(sdir),
    )
    outputs["judge --llm-key="] = traj_process(
        "judge", "--all", "--llm", f"--llm-key={LLM_KEY_EQ}", "--llm-base-url", "http://127.0.0.1:9/v1", "--llm-model", "m",
        "--store", str(sdir),
    )
    assert outputs["judge --llm-key"].exit_code == 0, outputs["judge --llm-key"].output
    # Errors that quote what was typed.
    outputs["show aws"] = traj("show", AWS_ID, "--store", str(sdir))
    outputs["show bearer"] = traj("show", BEARER, "--store", str(sdir))
    outputs["show random"] = traj("show", RANDOM, "--store", str(sdir))
    outputs["runs --where"] = traj("judge", "--where", f"run_id = '{JWT}' AND nosuch", "--store", str(sdir))
    # A look at the holdout pool is recorded with its SQL: the token in it must not be.
    outputs["holdout query"] = traj(
        "query", f"SELECT count(*) AS n FROM runs WHERE run_id <> '{GH_TOKEN}'", "--split", "holdout",
        "--store", str(sdir),
    )
    assert outputs["holdout query"].exit_code == 0, outputs["holdout query"].output
    for name in ("show aws", "show bearer", "show random"):
        assert outputs[name].exit_code == 1 and MASK in outputs[name].output, (name, outputs[name].output)
    outputs["passes --json"] = traj("passes", "--json", "--store", str(sdir))
    # As typed again in a shell: *** is quoted.
    assert "--llm-key '***'" in outputs["passes --json"].output
    assert "'--llm-key=***'" in outputs["passes --json"].output
    places = {f"output of {k}": r.output for k, r in outputs.items()} | everything_in(sdir)
    found = [(what, where) for what, secret in PLANTED.items() for where, text in places.items() if secret in text]
    HARDENING["secrets_planted"] += len(PLANTED)
    HARDENING["secret_places"] += len(places)
    HARDENING["secrets_found"] += len(found)
    assert found == []


@pytest.mark.parametrize(
    ("argv", "shown"),
    [
        (["judge", "--llm-key", "k1"], ["judge", "--llm-key", MASK]),
        (["judge", "--llm-key=k1"], ["judge", f"--llm-key={MASK}"]),
        (["x", "--storage-option", "AWS_SECRET_ACCESS_KEY=s3cr3t", "--storage-option", "AWS_REGION=eu-west-1"],
         ["x", "--storage-option", MASK, "--storage-option", MASK]),  # every value, secret-named or not
        (["x", "--storage-option", "no-equals-sign"], ["x", "--storage-option", MASK]),
        (["x", "--api-token", "t", "--db-password=p", "--my-secret", "s"],
         ["x", "--api-token", MASK, f"--db-password={MASK}", "--my-secret", MASK]),
        (["query", f"SELECT '{LLM_KEY}'"], ["query", f"SELECT '{MASK}'"]),
        (["judge", "--batch", "b1", "--workers", "2"], ["judge", "--batch", "b1", "--workers", "2"]),
    ],
    ids=["option", "option=", "storage-option", "storage-option-malformed", "named", "by-look", "harmless"],
)
def test_command_lines_hide_secret_values(argv, shown) -> None:
    assert redact_argv(argv) == shown
    assert command_line(argv).startswith("traj ")


@pytest.mark.parametrize(
    "text",
    ["run ids r1 and wx-001 in batch b1", "/tmp/pytest-of-root/pytest-3/test_the_recorded0/store",
     "p20261130T200554123456-ab12", "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
     "$.data.key: expected int, got str", 'duplicate key "run_id"', "北京现在20度"],
)
def test_ordinary_text_is_left_alone(text) -> None:
    assert redact_text(text) == text


@given(st.text(alphabet=st.characters(min_codepoint=33, max_codepoint=126), min_size=8, max_size=40))
def test_a_named_secret_never_survives_in_any_form(value) -> None:
    for text in (f"api_key={value}", f'{{"password": "{value}"}}', f"token = {value}"):
        out = redact_text(text)
        assert redact_text(out) == out  # redacting twice changes nothing more
        if not any(c in value for c in "'\"&;, \\"):
            assert value not in out, (text, out)
