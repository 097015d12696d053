"""The demo's broken rules: one realistic judge bug per bundled suite, kept here, not in the
suites. ``traj demo`` judges the sample runs with a copy of each suite that has its bug, then
with the bundled suite (which is right), and shows what the fix flips.

Each function edits a copy of a bundled suite's folder and returns what the bundled suite does
right, one line. The edits find the rule by its meaning (the field of a task, the regex of a
task file, an entry of a list), not by an exact line, so that the suites can change around it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path


def gui(folder: Path) -> str:
    """AlarmTime's time field judged ``exact``: 下午2点30分 fails for 14:30."""
    target = folder / "tasks_clock.py"
    text = target.read_text(encoding="utf-8")
    m = re.search(r"class AlarmTime\(.*?(?=\nclass |\Z)", text, re.S)
    if m is None or text[m.start():m.end()].count('"matcher": "time"') != 1:
        raise ValueError(f"{target}: AlarmTime's time matcher is not there exactly once")
    block = text[m.start():m.end()].replace(', "matcher": "time"', "")
    target.write_text(text[: m.start()] + block + text[m.end():], encoding="utf-8")
    return 'gui: AlarmTime\'s time field is matched as a time (matcher="time"), not exactly'


CALCULATOR_TASK = Path("tasks") / "read" / "system" / "calculator-multiply.json"


def device(folder: Path) -> str:
    """The calculator task's regex without the thousands separator: "56,088" fails for 56088."""
    target = folder / CALCULATOR_TASK
    data = json.loads(target.read_text(encoding="utf-8"))
    found = 0
    for check in data["checks"]:
        if check.get("type") == "answer_regex" and "56,?088" in check.get("pattern", ""):
            check["pattern"] = check["pattern"].replace("56,?088", "56088")
            found += 1
    if found != 1:
        raise ValueError(f"{target}: the 56,?088 regex is not there exactly once")
    target.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return "device: calculator-multiply accepts a thousands separator (answer_regex 56088 → 56,?088)"


PITFALL_TASK = "task-05"


def selfevo(folder: Path) -> str:
    """task-05's deprecated-library pitfalls without psaw: an agent that chose it is scored as
    having avoided every pitfall."""
    target = folder / "dataset.json"
    data = json.loads(target.read_text(encoding="utf-8"))
    [task] = [t for t in data["tasks"] if t["id"] == PITFALL_TASK]
    libs = task["known_pitfalls"]["deprecated_libraries"]
    kept = [lib for lib in libs if not lib.startswith("psaw")]
    if len(kept) == len(libs):
        raise ValueError(f"{target}: {PITFALL_TASK} does not name psaw among its pitfalls")
    task["known_pitfalls"]["deprecated_libraries"] = kept
    target.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return (
        f"selfevo: {PITFALL_TASK}'s deprecated-library pitfalls name psaw (Pushshift closed in 2023), "
        "so discovery that chose it does not count as avoiding pitfalls"
    )


# Appended to the example suite's module: a later definition replaces the real rule.
SUBSTRING_RULE = '''

def number_matches(expected: float, text: str) -> bool:  # the demo's broken rule
    return str(expected) in text
'''


def example(folder: Path) -> str:
    """The expected temperature looked for as a substring: "25" passes for 5, "二十度" fails for 20."""
    target = folder / "__init__.py"
    text = target.read_text(encoding="utf-8")
    if "def number_matches(" not in text:
        raise ValueError(f"{target}: no number_matches rule to break")
    target.write_text(text + SUBSTRING_RULE, encoding="utf-8")
    return "example: temperatures are matched as whole numbers (Chinese numerals too), not substrings"


BREAKS: dict[str, Callable[[Path], str]] = {"example": example, "selfevo": selfevo, "device": device, "gui": gui}
