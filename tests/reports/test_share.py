"""Issue 14 item 3: a shared report or shared static copy leaks nothing.

The attack: leaks planted wherever free text reaches a report (answers the check reasons
quote, paths of every shape, a device serial written differently from the run's ``device``,
override evidence taken from a sheet field, the holdout log's SQL with a literal answer and
the OS user's name, e-mail addresses, API keys), then every file of ``traj report --share``
and ``traj view --static --share`` searched for each. Share mode is an allow-list, so none may
appear; the same report without --share shows that the plants do reach a report.
"""

from __future__ import annotations

import json


from figures import HARDENING
from helpers import example_run, jsonl, traj


OS_USER = "victim.osuser"
LEAKS = {
    "answer": "北京现在37度",
    "windows path": r"C:\Users\victim\Documents\answers.xlsx",
    "unc path": r"\\fileserver\eval-share\keys.txt",
    "tilde path": "~victim/notes.txt",
    "macos path": "/Users/victim/Desktop/key.txt",
    "path with spaces": "/srv/eval data/my answers.txt",
    "serial as typed": "r5ct-40xyz-1",
    "serial": "R5CT40XYZ1",
    "sheet evidence": "PLANTED sheet value 73",
    "holdout sql literal": "LITERAL-ANSWER-4242",
    "os user": OS_USER,
    "e-mail": "eve.agent@example.com",
    "api key": "sk-live-PlantedShareKey7Qx93LmZ",
}


def planted_runs() -> list[str]:
    text = " ".join(v for k, v in LEAKS.items() if k not in ("holdout sql literal", "os user", "sheet evidence"))
    lines = []
    for run_id, mode, answer in (("leak-text", "text", f"{LEAKS['answer']} {text}"),
                                 ("leak-sheet", "grounded", LEAKS["sheet evidence"]),
                                 ("plain", "text", "北京现在20度")):
        for raw in example_run(run_id, answer, mode=mode):
            e = json.loads(raw)
            if e["kind"] == "run_started":
                e["agent"] = {"name": LEAKS["e-mail"], "model": LEAKS["api key"]}
                e["device"] = LEAKS["serial"]
            if e["kind"] == "screen_read":
                e["text"] = f"{e['text']} device {LEAKS['serial as typed']} log {LEAKS['windows path']}"
            lines.append(json.dumps(e, ensure_ascii=False))
    return lines


def test_shared_outputs_carry_none_of_the_planted_leaks(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("TRAJ_USER", OS_USER)
    sdir = str(tmp_path / "store")
    f = tmp_path / "runs.jsonl"
    f.write_bytes(jsonl(planted_runs()))
    assert traj("ingest", str(f), "--store", sdir).exit_code == 0
    assert traj("judge", "--store", sdir).exit_code == 0
    r = traj("override", "leak-sheet", "--to", "fail", "--evidence", LEAKS["sheet evidence"], "--by", OS_USER,
             "--category", "perception", "--store", sdir)
    assert r.exit_code == 0, r.output
    r = traj("query", f"SELECT count(*) FROM runs WHERE run_id <> '{LEAKS['holdout sql literal']}'", "--split",
             "holdout", "--store", sdir)
    assert r.exit_code == 0, r.output

    plain = tmp_path / "plain"
    assert traj("report", "--batch", "b1", "--out", str(plain), "--store", sdir).exit_code == 0
    shared = tmp_path / "shared"
    r = traj("report", "--batch", "b1", "--out", str(shared), "--share", "--store", sdir)
    assert r.exit_code == 0, r.output
    site = tmp_path / "site"
    r = traj("view", "--static", str(site), "--share", "--store", sdir)
    assert r.exit_code == 0, r.output

    # The plants reach an ordinary report (the attack is real) ...
    plain_text = "\n".join(p.read_text(encoding="utf-8") for p in plain.iterdir())
    reached = [k for k, v in LEAKS.items() if v in plain_text]
    assert {"e-mail", "api key", "sheet evidence", "holdout sql literal", "os user"} <= set(reached), reached
    # ... and no shared file carries any of them.
    files = [p for p in list(shared.iterdir()) + list(site.rglob("*")) if p.is_file()]
    found = [(k, p.name) for p in files for k, v in LEAKS.items() if v in p.read_text(encoding="utf-8")]
    HARDENING["share_leaks"] += len(LEAKS)
    HARDENING["share_files"] += len(files)
    HARDENING["share_found"] += len(found)
    assert found == []
    # What a shared report is for is still there: ids, outcomes, check names.
    scores = [json.loads(x) for x in (shared / "scores.jsonl").read_text(encoding="utf-8").splitlines()]
    assert {s["run_id"] for s in scores} == {"leak-text", "leak-sheet", "plain"}
    assert all(s["verdict"] in ("pass", "fail", "na", "error", "skipped") and s["checks"] for s in scores)
    assert all(set(c) == {"name", "passed"} for s in scores for c in s["checks"])
    summary = (shared / "summary.md").read_text(encoding="utf-8")
    assert "[evidence withheld]" in summary and "- store: [path]" in summary
    assert "holdout viewed 1 time" in summary and "[person]: query" in summary
    runs = json.loads((site / "runs.json").read_text(encoding="utf-8"))
    assert {r["run_id"] for r in runs} == {"leak-text", "leak-sheet", "plain"}


def test_an_id_that_is_not_id_shaped_is_replaced_by_a_stable_stand_in() -> None:
    from trajectory.reports.share import safe_id

    assert safe_id("wx-001") == "wx-001" and safe_id("device-careful-00-calculator-multiply", "run")
    for bad in ("eve@example.com", "C:\\x", "/Users/v/x", "a b", "R5CT40XYZ1", "sk-live-PlantedShareKey7Qx93LmZ"):
        out = safe_id(bad, "run")
        assert out.startswith("run-") and bad not in out and out == safe_id(bad, "run")
