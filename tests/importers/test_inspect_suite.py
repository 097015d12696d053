"""Inspect scorers as a traj suite: a suite made from a log's own scorers gives the log's scores
back; a fixed scorer flips exactly the runs it should; model-graded scorers replay recorded
grader answers and ask `traj judge --llm` for missing ones, once."""

from __future__ import annotations

import json
import pickle
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai")

from helpers import traj  # noqa: E402
from inspect_logs import SAMPLES, SCORER_V2, capitals_log  # noqa: E402

from trajectory.judging import SuiteResolver, current_rows, judge_runs, pass_rows, passes  # noqa: E402
from trajectory.store.delta import Store  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]

OWN_SCORERS = '''
import importlib.util
from pathlib import Path

from inspect_ai.scorer import includes, match, model_graded_qa

_spec = importlib.util.spec_from_file_location("capital_scorers", Path(__file__).with_name("capital_scorers.py"))
capital_scorers = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(capital_scorers)


def log_scorers():
    """The scorers the capitals log was scored with, in its order."""
    return [match(), includes(), model_graded_qa(), capital_scorers.exact_capital()]


def named_grader():
    """The log's grader scorer, but naming a model whose provider is not even installed here."""
    return [model_graded_qa(model="openai/gpt-4o")]


def two_graders():
    """Two independent grader prompts in one scorer: both are asked in one `traj judge --llm`."""
    from inspect_ai.model import get_model
    from inspect_ai.scorer import Score, scorer, accuracy

    @scorer(metrics=[accuracy()])
    def two_votes():
        async def score(state, target):
            votes = []
            for question in ("Is this the capital", "Is this a city"):
                out = await get_model("anthropic/claude-x").generate(f"{question}: {state.output.completion}?")
                votes.append("yes" in out.completion.lower())
            return Score(value="C" if all(votes) else "I", answer=state.output.completion)
        return score

    return [two_votes()]


def stricter_grader():
    return [model_graded_qa(template=
        "Question: {question}\\nAnswer: {answer}\\nExpected: {criterion}\\n{instructions}")]
'''


@pytest.fixture
def project(tmp_path, monkeypatch) -> Path:
    """A folder with the capitals log, its scorers, and a store holding the imported log."""
    capitals_log(tmp_path)
    (tmp_path / "own_scorers.py").write_text(OWN_SCORERS)
    monkeypatch.chdir(tmp_path)
    r = traj("import", "inspect", "capitals.eval", "--store", "store")
    assert r.exit_code == 0, r.output
    return tmp_path


def _by_run(rows: list[dict]) -> dict[str, tuple]:
    return {r["run_id"]: (r["outcome"], round(r["score"], 9), r["reason"],
                          [(c["name"], c["passed"], c["expected"], c["actual"], c["reason"]) for c in r["checks"]])
            for r in rows}


def test_a_suite_made_from_the_logs_scorers_gives_the_logs_scores(project) -> None:
    r = traj("suite", "add", "capitals", "own_scorers.py:log_scorers", "--store", "store")
    assert r.exit_code == 0, r.output
    assert "match, includes, model_graded_qa, exact_capital" in r.output
    r = traj("judge", "--store", "store")
    assert r.exit_code == 0, r.output
    imported, judged = passes(Store("store"))
    assert imported["kind"] == "imported" and judged["kind"] == "judge"
    before = _by_run(pass_rows(Store("store"), imported["pass_id"]))
    after = _by_run(pass_rows(Store("store"), judged["pass_id"]))
    assert after == before  # every check, value, answer and explanation; the grader was replayed
    d = traj("diff", "--store", "store")
    assert "8 runs judged before, 0 flips" in d.output  # each run against its imported verdict


def test_a_fixed_scorer_flips_exactly_the_runs_it_should(project) -> None:
    assert traj("suite", "add", "capitals", "own_scorers.py:log_scorers", "--store", "store").exit_code == 0
    assert traj("judge", "--store", "store").exit_code == 0
    # the fix: a trailing full stop no longer makes an exact answer wrong
    (project / "capital_scorers.py").write_text(SCORER_V2)
    r = traj("judge", "--store", "store")
    assert r.exit_code == 0, r.output
    d = traj("diff", "--store", "store", "--json")
    flips = json.loads(d.output)["flips"]
    # only Peru epoch 2 answered "Lima.": epoch 1 said "The capital is Lima.", still not exact
    assert [f["run_id"] for f in flips] == ["inspect:capitals:q-3:2:u006q3e2"]
    (flip,) = flips
    assert (flip["from"], flip["to"]) == ("fail", "pass")
    (check,) = flip["checks"]
    assert check["name"] == "exact_capital"
    # actual is the answer each version of the scorer read; the letter is the reason's rule
    assert (check["before"]["actual"], check["after"]["actual"]) == ("Lima.", "Lima")
    assert check["before"]["reason"].startswith("I (incorrect)") and check["after"]["reason"].startswith("C (correct)")
    text = traj("diff", "--store", "store").output
    assert "check exact_capital: failed → passed" in text and "Lima" in text
    # the fixed scorer's code is a new judge version (code part; the task part hashes the target)
    _, first, second = passes(Store("store"))
    code = [{r["judge_version"].split(".")[0] for r in pass_rows(Store("store"), p["pass_id"])} for p in (first, second)]
    assert len(code[0]) == len(code[1]) == 1 and code[0] != code[1]


def test_scorers_see_the_store_and_metadata(project) -> None:
    assert traj("suite", "add", "capitals", "own_scorers.py:log_scorers", "--store", "store").exit_code == 0
    assert traj("judge", "--store", "store").exit_code == 0
    rows = current_rows(Store("store"))
    france = rows["inspect:capitals:1:1:u0011e1"]
    exact = next(c for c in france["checks"] if c["name"] == "exact_capital")
    assert exact["reason"].endswith("store=1")  # the agent's store, as Inspect hands it to scorers


def test_missing_grader_answers_are_asked_once_by_judge_llm(project, monkeypatch) -> None:
    from llm.test_selfevo_llm import FakeLLM, chat

    assert traj("suite", "add", "capitals", "own_scorers.py:stricter_grader", "--store", "store").exit_code == 0
    r = traj("judge", "--store", "store")
    rows = current_rows(Store("store"))
    unanswered = rows["inspect:capitals:1:1:u0011e1"]
    assert unanswered["outcome"] == "error" and "run `traj judge --llm`" in unanswered["reason"]
    fake = FakeLLM()
    fake.default = chat("Looks right.\nGRADE: C")
    try:
        monkeypatch.setenv("TRAJ_LLM_BASE_URL", fake.base_url)
        r = traj("judge", "--llm", "--llm-model", "judge-1", "--store", "store")
        assert r.exit_code == 0, r.output
        asked = len(fake.requests)
        assert asked == 6  # one per distinct prompt (France and Chad are asked the same in both epochs)
        prompt = fake.requests[0]["body"]["messages"][0]["content"]
        assert prompt.startswith("Question: ") and "Expected: " in prompt
        rows = current_rows(Store("store"))
        assert rows["inspect:capitals:1:1:u0011e1"]["outcome"] == "pass"
        assert rows["inspect:capitals:4:1:u0074e1"]["outcome"] == "error"  # the sample itself errored
        # a second pass (and a second --llm) asks the model nothing
        assert traj("judge", "--store", "store").exit_code == 0
        r = traj("judge", "--llm", "--llm-model", "judge-1", "--store", "store")
        assert r.exit_code == 0 and "6 already answered, 0 asked" in r.output
        assert len(fake.requests) == asked
    finally:
        fake.close()


def test_a_named_grader_model_replays_without_its_provider(project) -> None:
    assert traj("suite", "add", "capitals", "own_scorers.py:named_grader", "--store", "store").exit_code == 0
    r = traj("judge", "--store", "store")
    assert r.exit_code == 0, r.output
    imported, judged = passes(Store("store"))
    before = {r["run_id"]: [c for c in r["checks"] if c["name"] == "model_graded_qa"]
              for r in pass_rows(Store("store"), imported["pass_id"])}
    after = {r["run_id"]: r["checks"] for r in pass_rows(Store("store"), judged["pass_id"])}
    assert after == before  # the same prompt: the log's recorded answers, whatever the grader is called


def test_independent_grader_prompts_are_asked_together(project, monkeypatch) -> None:
    from llm.test_selfevo_llm import FakeLLM, chat

    assert traj("suite", "add", "capitals", "own_scorers.py:two_graders", "--store", "store").exit_code == 0
    fake = FakeLLM()
    fake.default = chat("Yes.")
    try:
        monkeypatch.setenv("TRAJ_LLM_BASE_URL", fake.base_url)
        r = traj("judge", "--llm", "--llm-model", "judge-1", "--store", "store")
        assert r.exit_code == 0, r.output
        questions = {m["body"]["messages"][0]["content"].split(":")[0] for m in fake.requests}
        assert questions == {"Is this the capital", "Is this a city"}
        rows = current_rows(Store("store"))
        assert rows["inspect:capitals:1:1:u0011e1"]["outcome"] == "pass"
        asked = len(fake.requests)
        r = traj("judge", "--llm", "--llm-model", "judge-1", "--store", "store")
        assert r.exit_code == 0 and len(fake.requests) == asked
    finally:
        fake.close()


def test_judging_on_workers_gives_the_same_verdicts(project) -> None:
    from suites.inspect.adapter import InspectScorerSuite

    store = Store("store")
    suite = InspectScorerSuite("capitals", "own_scorers.py:log_scorers", str(project))
    one = judge_runs(store, SuiteResolver(store, {"capitals": suite}), dry_run=True, partition=3)
    two = judge_runs(store, SuiteResolver(store, {"capitals": suite}), dry_run=True, partition=3, workers=2)
    assert _by_run([r.as_dict() for r in one.rows]) == _by_run([r.as_dict() for r in two.rows])
    assert len(one.rows) == 8


def test_scorer_specs(project) -> None:
    r = traj("suite", "add", "x", "own_scorers.py:nothing", "--store", "store")
    assert r.exit_code == 1 and "has no 'nothing'" in r.output
    r = traj("suite", "add", "x", "missing.py:f", "--store", "store")
    assert r.exit_code == 1 and "missing.py: no such file" in r.output
    r = traj("suite", "add", "x", "inspect_ai.scorer:match", "--store", "store")
    assert r.exit_code == 0 and "(match)" in r.output
    listing = traj("suite", "list", "--store", "store").output
    assert "inspect_ai.scorer:match" in listing


def test_any_run_can_be_judged_by_inspect_scorers(tmp_path, monkeypatch) -> None:
    """Runs not imported from Inspect (here an OTel trace) give their goal and answer."""
    from otel_traces import agent_trace, jsonl

    monkeypatch.chdir(tmp_path)
    (tmp_path / "t.jsonl").write_text(jsonl(agent_trace("4bf92f3577b34da6a3ce929d0e0e4736")))
    assert traj("import", "otel", "t.jsonl", "--store", "store").exit_code == 0
    (tmp_path / "sc.py").write_text(textwrap.dedent('''
        from inspect_ai.scorer import Score, Target, scorer, accuracy
        @scorer(metrics=[accuracy()])
        def mentions_beijing():
            async def score(state, target: Target) -> Score:
                said = state.output.completion
                return Score(value="C" if "Beijing" in said and "weather" in state.input_text else "I", answer=said)
            return score
    '''))
    assert traj("suite", "add", "weather-service", "sc.py:mentions_beijing", "--store", "store").exit_code == 0
    assert traj("judge", "--store", "store").exit_code == 0
    (row,) = current_rows(Store("store")).values()
    assert row["outcome"] == "pass" and row["checks"][0]["name"] == "mentions_beijing"
    assert SAMPLES  # the fixture module is importable alongside


def test_the_suite_travels_to_workers_as_its_registration(project) -> None:
    from judges.contract import LLMJudged, Registered, SuiteProtocol
    from suites.inspect.adapter import InspectScorerSuite
    from suites.registry import SuiteSpec, spec_of
    from trajectory.judging.resolve import SuiteResolver

    suite = InspectScorerSuite("capitals", "own_scorers.py:log_scorers", str(project))
    assert isinstance(suite, SuiteProtocol) and isinstance(suite, Registered) and isinstance(suite, LLMJudged)
    spec = pickle.loads(pickle.dumps(spec_of(suite)))
    assert spec == SuiteSpec("capitals", "scorers", "own_scorers.py:log_scorers", str(project))
    assert spec.load().code_version() == suite.code_version()
    assert traj("suite", "add", "capitals", "own_scorers.py:log_scorers", "--store", "store").exit_code == 0
    assert SuiteResolver(Store("store")).spec("capitals") == spec


GRADERS = {
    "__init__.py": "",
    "scoring.py": textwrap.dedent('''
        from inspect_ai.scorer import Score, accuracy, scorer
        from graders.rules import normalise

        @scorer(metrics=[accuracy()])
        def exact():
            async def score(state, target):
                said = normalise(state.output.completion)
                return Score(value="C" if said == normalise(target.text) else "I", answer=said)
            return score
    '''),
    "rules.py": "def normalise(text):\n    return text.strip()\n",
}


def test_the_version_covers_the_scorers_helper_modules(project) -> None:
    from suites.registry import SuiteSpec

    (project / "graders").mkdir()
    for name, text in GRADERS.items():
        (project / "graders" / name).write_text(text)
    spec = SuiteSpec("capitals", "scorers", "graders.scoring:exact", str(project))
    suite = spec.load()
    assert suite.scorer_names == ["exact"]
    before = suite.code_version()
    (project / "graders" / "rules.py").write_text("def normalise(text):\n    return text.strip().rstrip('.')\n")
    assert spec.load().code_version() != before  # the helper changed the judge
    # a file nothing imports does not
    (project / "graders" / "notes.py").write_text("# unrelated\n")
    edited = spec.load().code_version()
    assert spec.load().code_version() == edited
