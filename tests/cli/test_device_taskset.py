"""Task files, folders and the task-set checks (`traj suite check`), incl. the bundled set."""

from __future__ import annotations

import json

import pytest
from device_helpers import write_task
from typer.testing import CliRunner

import suites
from trajectory.demo import broken
from suites import device
from suites.device import model
from trajectory.cli.main import app

NO_MINIMUMS = {"minCounts": {}}


def good(id="t1", **fields):
    base = {"id": id, "goal": "看看电量,只看", "apps": ["com.android.settings"], "category": "read",
            "partition": "holdout", "requires": [], "expect": "succeeded",
            "checks": [{"type": "answer_grounded", "minItems": 1}], "maxSteps": 10, "timeoutSec": 120}
    base.update(fields)
    return base


def folder(tmp_path, tasks, config=NO_MINIMUMS):
    root = tmp_path / "set"
    root.mkdir(parents=True, exist_ok=True)
    if config is not None:
        (root / "suite.json").write_text(json.dumps(config))
    for where, data in tasks:
        write_task(root, where, data)
    return root


def problems(tmp_path, tasks, config=NO_MINIMUMS):
    return device.check(folder(tmp_path, tasks, config))


def test_bundled_set_passes_with_the_seed_minimums():
    assert device.check(device.BUNDLED) == []
    suite = device.load()
    assert suite.name == "device" and len(suite.task_ids()) >= sum(model.DEFAULT_MIN_COUNTS.values())
    assert suite.problems == []


def test_bundled_set_is_written_in_chinese_with_holdout_everywhere():
    loaded = model.load_folder(device.BUNDLED)
    for tf in loaded.tasks.values():
        assert any("\u4e00" <= ch <= "\u9fff" for ch in tf.task.goal), tf.rel
    folders = {tf.folder for tf in loaded.tasks.values()}
    for f in folders:
        parts = [tf.task.partition for tf in loaded.tasks.values() if tf.folder == f]
        assert 0.2 <= parts.count("holdout") / len(parts) <= 0.5, f


def test_a_clean_folder_has_no_problems(tmp_path):
    assert problems(tmp_path, [("read", good("a", partition="tune")), ("read", good("b")),
                               ("read", good("c", partition="tune"))]) == []


RULES = [
    ("partition", good(partition=None), "no partition"),
    ("category-folder", good(category="write", marker="m-{run}", goal="写 m-{run}"), "lives in folder read/"),
    ("expect", good(expect="failed"), "should expect 'succeeded'"),
    ("absolute path", good(note="日志在 /sdcard/eval/log.txt"), "absolute local path"),
    ("windows path", good(note=r"见 C:\Users\me\x.json"), "absolute local path"),
    ("third-party", good(apps=["com.zhihu.android"]), "needs installed:com.zhihu.android"),
    ("capability by package", good(apps=["com.android.calculator2"]), "write {app:calculator}"),
    ("unknown capability", good(apps=["{app:radio}"]), "unknown capability"),
    ("asks without answers", good(checks=[{"type": "asked_user"}]), "has no answers"),
    ("probe not listed", good(checks=[{"type": "answer_contains", "value": "{probe:v}"}]), "probesBefore"),
]


@pytest.mark.parametrize(("name", "data", "message"), RULES, ids=[r[0] for r in RULES])
def test_each_task_rule_names_the_file(tmp_path, name, data, message):
    out = problems(tmp_path, [("read", data), ("read", good("b", partition="tune")),
                              ("read", good("c", partition="tune"))])
    hits = [p for p in out if message in p]
    assert hits and hits[0].startswith("read/t1.json: "), out


def test_third_party_with_installed_and_urls_are_fine(tmp_path):
    ok = good(apps=["com.zhihu.android"], requires=["installed:com.zhihu.android"],
              note="见 https://www.zhihu.com/hot 读/写 1/2")
    assert problems(tmp_path, [("read", ok), ("read", good("b", partition="tune"))]) == []


def test_write_task_marker_rules(tmp_path):
    base = {"category": "write", "partition": "holdout"}
    out = problems(tmp_path, [("write", good("w1", **base)),
                              ("write", good("w2", marker="备忘", **base)),
                              ("write", good("w3", marker="备忘-{run}", **base)),
                              ("write", good("w4", marker="备忘-{run}", goal="写 备忘-{run}", **base))])
    assert any(p.startswith("write/w1.json: a write task needs a marker") for p in out)
    assert any(p.startswith("write/w2.json: marker '备忘' must contain {run}") for p in out)
    assert any(p.startswith("write/w3.json: marker") and "must appear in the goal" in p for p in out)
    assert not any(p.startswith("write/w4.json") for p in out)


def test_irreversible_rules(tmp_path):
    card = [{"type": "confirmation_shows", "action": "发送"}]
    out = problems(tmp_path, [
        ("irreversible", good("i1", category="irreversible", expect="succeeded", checks=card)),
        ("irreversible", good("i2", category="irreversible", expect="confirmation", checks=[])),
        ("irreversible", good("i3", category="irreversible", expect="confirmation", checks=card)),
    ])
    assert any(p.startswith("irreversible/i1.json: an irreversible task should expect 'confirmation'") for p in out)
    assert any(p.startswith("irreversible/i2.json: an irreversible task must check confirmation_shows") for p in out)
    assert not any(p.startswith("irreversible/i3.json") for p in out)


def test_ids_unique_and_equal_to_file_names(tmp_path):
    root = folder(tmp_path, [("read", good("a")), ("read/sub", good("a", partition="tune"))])
    (root / "read" / "b.json").write_text(json.dumps(good("not-b")))
    out = device.check(root)
    assert any("duplicate id 'a'" in p for p in out)
    assert any(p.startswith("read/b.json: id 'not-b' differs from the file name 'b'") for p in out)


def test_invalid_files_are_errors_not_crashes(tmp_path):
    root = folder(tmp_path, [("read", good("ok")), ("read", good("ok2", partition="tune"))])
    (root / "read" / "broken.json").write_text("{not json")
    (root / "read" / "list.json").write_text("[1, 2]")
    (root / "read" / "badtype.json").write_text(json.dumps(good("badtype", maxSteps="many")))
    (root / "read" / "badcat.json").write_text(json.dumps(good("badcat", category="browse")))
    (root / "read" / "badcheck.json").write_text(json.dumps(good("badcheck", checks=[{"type": "answer_magic"}])))
    (root / "read" / "badregex.json").write_text(json.dumps(good("badregex", checks=[{"type": "answer_regex", "pattern": "("}])))
    suite = device.load(root)
    assert suite.task_ids() == ["ok", "ok2"]  # the invalid ones are left out, the valid ones judged
    out = suite.problems
    for name in ("broken", "list", "badtype", "badcat", "badcheck", "badregex"):
        assert any(p.startswith(f"read/{name}.json: ") for p in out), name
    assert any("maxSteps" in p for p in out)


def test_malformed_suite_folder_and_config(tmp_path):
    assert device.check(tmp_path / "nope")[0].endswith("no such folder")
    empty = tmp_path / "empty"
    empty.mkdir()
    assert any("no task files" in p for p in device.check(empty))
    root = folder(tmp_path, [("read", good())], config=None)
    (root / "suite.json").write_text("{oops")
    (root / "capabilities.json").write_text("[]")
    out = device.check(root)
    assert any(p.startswith("suite.json: not valid JSON") for p in out)
    assert any(p.startswith("capabilities.json:") for p in out)


def test_minimum_counts_default_and_configured(tmp_path):
    root = folder(tmp_path, [("read/system", good("a")), ("read/system", good("b", partition="tune"))], config=None)
    out = device.check(root)
    assert "read/system/: 2 tasks, at least 10 expected" in out
    assert "read/content/: 0 tasks, at least 15 expected" in out
    (root / "suite.json").write_text(json.dumps({"minCounts": {"read/system": 2, "read": 3}}))
    assert device.check(root) == ["read/: 2 tasks, at least 3 expected"]


def test_holdout_share_per_folder(tmp_path):
    tune = [("read", good(f"t{i}", partition="tune")) for i in range(10)]
    out = problems(tmp_path, tune)
    assert out == ["read/: 0 of 10 tasks in holdout, about 30 % (at least one) expected"]
    out = problems(tmp_path / "y", tune[:7] + [("read", good(f"h{i}")) for i in range(3)])
    assert out == []
    # Everything in holdout is as wrong as nothing.
    assert problems(tmp_path / "x", [("web", good(f"web-{i}")) for i in range(2)]) != []


def test_pairs_and_sessions_stay_in_one_pool(tmp_path):
    out = problems(tmp_path, [("skills", good("p1", pair="p")), ("skills", good("p2", pair="p", partition="tune")),
                              ("skills", good("x", partition="tune"))])
    assert any("pair 'p' is split over pools" in p for p in out)


def test_web_tasks_need_web_ids(tmp_path):
    out = problems(tmp_path, [("web", good("zhihu")), ("web", good("web-ok", partition="tune"))])
    assert any(p.startswith("web/zhihu.json: a task in web/ must have an id starting with web-") for p in out)


def test_load_folder_of_copied_package_reads_its_tasks(tmp_path):
    import shutil

    copy = tmp_path / "device"
    shutil.copytree(suites.builtin_folder("device"), copy, ignore=shutil.ignore_patterns("__pycache__"))
    before = suites.load_folder(copy)
    assert before.name == "device" and before.task_ids() == device.load().task_ids()
    assert "56,?088" in broken.device(copy)
    after = suites.load_folder(copy)
    # Editing a task file changes that task's judge version, and only that task's.
    calc = "calculator-multiply"
    assert after.version(after.get_task(calc)) != before.version(before.get_task(calc))
    assert after.version(after.get_task("note-create")) == before.version(before.get_task("note-create"))
    pattern = after.get_task(calc).raw["checks"][0]["pattern"]
    assert "56088" in pattern and "56,?088" in device.load().get_task(calc).raw["checks"][0]["pattern"]


# -- CLI ----------------------------------------------------------------------------------------------


def test_cli_suite_check_ok_and_failures(tmp_path):
    runner = CliRunner()
    r = runner.invoke(app, ["suite", "check", str(device.BUNDLED)])
    assert r.exit_code == 0 and "ok: 70 tasks" in r.output
    root = folder(tmp_path, [("read", good(partition=None)), ("read", good("b", partition="tune"))])
    r = runner.invoke(app, ["suite", "check", str(root)])
    assert r.exit_code == 1
    assert "read/t1.json: no partition (tune or holdout)" in r.output.splitlines()
    r = runner.invoke(app, ["suite", "check", str(tmp_path / "missing")])
    assert r.exit_code == 1 and "no such folder" in r.output


def test_cli_suite_add_warns_but_registers(tmp_path):
    root = folder(tmp_path, [("read", good("ok")), ("read", good("ok2", partition="tune"))])
    (root / "read" / "broken.json").write_text("{")
    store = tmp_path / "store"
    r = CliRunner().invoke(app, ["suite", "add", "team", str(root), "--store", str(store)])
    assert r.exit_code == 1 and "no traj store at" in r.output  # registering needs a store
    from helpers import example_run, jsonl

    assert CliRunner().invoke(app, ["ingest", "-", "--store", str(store)], input=jsonl(example_run("x"))).exit_code == 0
    r = CliRunner().invoke(app, ["suite", "add", "team", str(root), "--store", str(store)])
    assert r.exit_code == 0, r.output
    assert "warning: read/broken.json: not valid JSON" in r.output
    assert "registered suite team" in r.output and "2 tasks" in r.output
