"""Comparing two passes: every verdict that flipped, with the checks that changed as evidence."""

from __future__ import annotations

import dataclasses
import json
from collections import Counter, defaultdict
from typing import Any

from trajectory.errors import NotFound
from trajectory.query.sql import Views
from trajectory.store.delta import Store
from trajectory.text import hint, plural
from trajectory.judging.passes import PassResult, current_rows, pass_rows, passes


@dataclasses.dataclass
class CheckChange:
    name: str
    before: dict[str, Any] | None
    after: dict[str, Any] | None


@dataclasses.dataclass
class Flip:
    run_id: str
    suite: str | None
    task: str | None
    before: str
    after: str
    before_score: float
    after_score: float
    before_reason: str
    after_reason: str
    changes: list[CheckChange]

    @property
    def kind(self) -> str:
        return f"{self.before}→{self.after}"


@dataclasses.dataclass
class Diff:
    before_label: str
    after_label: str
    common: int
    flips: list[Flip]
    score_changes: int
    first_judged: int = 0  # runs of the later side that the earlier side has no verdict for
    #: The runs behind the counts (in both; only in the later side; score changed, same
    #: outcome): what a pool's share of the figures is counted from (see shown_split).
    common_runs: tuple[str, ...] = dataclasses.field(default=(), repr=False)
    first_runs: tuple[str, ...] = dataclasses.field(default=(), repr=False)
    score_runs: tuple[str, ...] = dataclasses.field(default=(), repr=False)
    #: The later side's verdicts that disagree with a person's verdict on the run (run id ->
    #: trajectory.query.people.disagreement): flips and unchanged verdicts alike.
    people: dict[str, dict[str, Any]] = dataclasses.field(default_factory=dict)

    def figures(self) -> dict[str, int]:
        """The counts as the viewer's /diff names them (``traj diff --json``: runs_in_both,
        the flips, score_changes_without_flip, first_judged)."""
        return {"common": self.common, "flip_count": len(self.flips), "score_changes": self.score_changes,
                "first_judged": self.first_judged}

    def groups(self) -> list[dict[str, Any]]:
        """The flips counted by suite, task and kind (before, after), in the flips' order."""
        counted = Counter((f.suite, f.task, f.before, f.after) for f in self.flips)
        return [{"suite": s, "task": t, "before": b, "after": a, "n": n}
                for (s, t, b, a), n in sorted(counted.items(), key=lambda kv: (kv[0][0] or "", kv[0][1] or "", *kv[0][2:]))]

    def to_json(self) -> dict[str, Any]:
        return {
            "before": self.before_label,
            "after": self.after_label,
            "runs_in_both": self.common,
            "first_judged": self.first_judged,
            "flips": [
                {
                    "run_id": f.run_id,
                    "suite": f.suite,
                    "task": f.task,
                    "from": f.before,
                    "to": f.after,
                    "score_from": f.before_score,
                    "score_to": f.after_score,
                    "reason_from": f.before_reason,
                    "reason_to": f.after_reason,
                    "checks": [
                        {"name": c.name, "before": c.before, "after": c.after} for c in f.changes
                    ],
                    "disagrees_with_person": person_json(self.people.get(f.run_id)),
                }
                for f in self.flips
            ],
            "score_changes_without_flip": self.score_changes,
            "disagree_with_people": len(self.people),
            "disagreements": [person_json(self.people[r]) for r in sorted(self.people)],
        }


def person_json(d: dict[str, Any] | None) -> dict[str, Any] | None:
    """A disagreement with a person as the JSON outputs carry it (the time as ISO text)."""
    if d is None:
        return None
    return {**d, "at": d["at"].isoformat() if hasattr(d.get("at"), "isoformat") else d.get("at")}


def with_people(store: Store, diff: Diff, after: dict[str, dict[str, Any]]) -> Diff:
    """The diff with its later side's disagreements with people marked (``Diff.people``)."""
    from trajectory.query.people import disagreements, human_verdicts

    humans = human_verdicts(store, after)
    if humans:
        diff.people = {d["run_id"]: d for d in disagreements([after[r] for r in sorted(after)], humans)}
    return diff


def _checks_by_name(row: dict[str, Any]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for c in row.get("checks") or []:
        name = c["name"]
        while name in out:  # repeated names keep their order
            name += "'"
        out[name] = {
            "passed": c["passed"],
            "expected": json.loads(c["expected"]) if c["expected"] is not None else None,
            "actual": json.loads(c["actual"]) if c["actual"] is not None else None,
            "reason": c["reason"],
        }
    return out


def compare(
    before: dict[str, dict[str, Any]],
    after: dict[str, dict[str, Any]],
    before_label: str,
    after_label: str,
) -> Diff:
    common = sorted(set(before) & set(after))
    flips = []
    scored: list[str] = []
    for run_id in common:
        a, b = before[run_id], after[run_id]
        if a["outcome"] == b["outcome"]:
            if abs((a["score"] or 0) - (b["score"] or 0)) > 1e-12:
                scored.append(run_id)
            continue
        ca, cb = _checks_by_name(a), _checks_by_name(b)
        changes = [
            CheckChange(n, ca.get(n), cb.get(n))
            for n in list(ca) + [n for n in cb if n not in ca]
            if ca.get(n) != cb.get(n)
        ]
        flips.append(
            Flip(
                run_id, b["suite"], b["task"], a["outcome"], b["outcome"],
                a["score"] or 0.0, b["score"] or 0.0, a["reason"] or "", b["reason"] or "", changes,
            )
        )
    flips.sort(key=lambda f: (f.suite or "", f.task or "", f.run_id))
    first = sorted(set(after) - set(before))
    return Diff(before_label, after_label, len(common), flips, len(scored), len(first),
                tuple(common), tuple(first), tuple(scored))


#: The before side of the default diff.
PREVIOUS = "each run's previous verdict"


def diff_last_pass(store: Store) -> Diff:
    """What the last pass changed: each run it judged, against that run's latest verdict in
    any earlier pass. Passes may cover different runs (one batch, then everything): every run
    is compared with its own previous verdict, so no flip is missed. Human overrides are not
    verdicts of a pass and are left out."""
    all_passes = passes(store)
    if not all_passes:
        raise NotFound(f"no judging passes yet; run `{hint('traj judge')}`")
    last = all_passes[-1]["pass_id"]
    earlier = [p["pass_id"] for p in all_passes[:-1]]
    after = {r["run_id"]: r for r in pass_rows(store, last)}
    before: dict[str, dict[str, Any]] = {}
    if earlier:
        with Views(store, split=None) as views:
            table = views.arrow(
                "SELECT * FROM _history_all WHERE list_contains(?, pass_id) "
                "AND run_id IN (SELECT run_id FROM _history_all WHERE pass_id = ?) "
                "QUALIFY row_number() OVER (PARTITION BY run_id ORDER BY judged_at DESC, pass_id DESC) = 1",
                [earlier, last],
            )
        before = {r["run_id"]: r for r in table.to_pylist()}
    return with_people(store, compare(before, after, PREVIOUS, last), after)


def diff_passes(store: Store, pass_a: str | None = None, pass_b: str | None = None) -> Diff:
    """Flips between two passes; with none given, what the last pass changed
    (:func:`diff_last_pass`)."""
    ids = [p["pass_id"] for p in passes(store)]
    for p in (pass_a, pass_b):
        if p is not None and p not in ids:
            from trajectory.query.names import near_line

            raise NotFound(near_line("pass", [p], ids) + f" (list them with {hint('traj passes')})")
    if pass_a is None and pass_b is None:
        return diff_last_pass(store)
    if pass_a is None or pass_b is None:
        raise NotFound("give two passes, or none for what the last pass changed")
    rows_a = {r["run_id"]: r for r in pass_rows(store, pass_a)}
    rows_b = {r["run_id"]: r for r in pass_rows(store, pass_b)}
    return with_people(store, compare(rows_a, rows_b, pass_a, pass_b), rows_b)


def dry_run_diff(store: Store, result: PassResult) -> Diff:
    """The flips a dry run would make against the current verdicts."""
    current = current_rows(store, [r.run_id for r in result.rows])
    new = {r.run_id: r.as_dict() for r in result.rows}
    return with_people(store, compare(current, new, "current verdicts", "dry run"), new)


def shown_split(store: Store, diff: Diff, split: str) -> tuple[Diff, int]:
    """The diff of pool ``split``'s runs only, as it may be shown: the other pool's runs count
    in none of the figures (flips, runs in both, first judged, score changes), so that a pool's
    diff counts what the viewer's /diff of that pool counts. A holdout diff with holdout flips
    records the look (as every read of holdout verdicts does). Returns the diff to show and how
    many flips of the other pool were left out."""
    from trajectory.query.sql import record_holdout_view, run_splits

    ids = [f.run_id for f in diff.flips] + list(diff.common_runs) + list(diff.first_runs)
    if not ids:
        return diff, 0
    with Views(store, split=None) as views:
        pools = run_splits(views, sorted(set(ids)))
    keep = {r for r in ids if (pools.get(r) or "tune") == split}
    shown_flips = [f for f in diff.flips if f.run_id in keep]
    if split == "holdout" and shown_flips:
        record_holdout_view(store, "diff", {"flips": len(shown_flips), "after": diff.after_label})
    if len(keep) == len(set(ids)):
        return diff, 0
    pool = lambda runs: tuple(r for r in runs if r in keep)  # noqa: E731
    shown = dataclasses.replace(
        diff, flips=shown_flips, common=len(pool(diff.common_runs)),
        first_judged=len(pool(diff.first_runs)), score_changes=len(pool(diff.score_runs)),
        common_runs=pool(diff.common_runs), first_runs=pool(diff.first_runs), score_runs=pool(diff.score_runs),
        people={r: d for r, d in diff.people.items() if r in keep},
    )
    return shown, len(diff.flips) - len(shown_flips)


def _show(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 70 else text[:67] + "..."


def render_diff(diff: Diff, people: bool = True) -> str:
    """The diff for people. A flip whose new verdict disagrees with a person's is marked under
    it; ``people``: end with every disagreement of the later side (``traj judge`` lists them
    itself, after the diff)."""
    if diff.before_label == PREVIOUS:
        head = f"diff {diff.after_label} against {PREVIOUS}: {plural(diff.common, 'run')} judged before"
        new = f" ({diff.first_judged} judged for the first time)"
    else:
        head = f"diff {diff.before_label} → {diff.after_label}: {plural(diff.common, 'run')} in both"
        new = f" ({diff.first_judged} only in {diff.after_label})"
    lines = [head + f", {plural(len(diff.flips), 'flip')}" + (new if diff.first_judged else "")]
    kinds = Counter(f.kind for f in diff.flips)
    if kinds:
        lines.append("  " + ", ".join(f"{n} {k}" for k, n in sorted(kinds.items())))
    by_suite: dict[str, dict[str, list[Flip]]] = defaultdict(lambda: defaultdict(list))
    for f in diff.flips:
        by_suite[f.suite or "?"][f.task or "?"].append(f)
    for suite_name, tasks in by_suite.items():
        lines.append(f"suite {suite_name}")
        for task, flips in tasks.items():
            lines.append(f"  task {task}")
            for f in flips:
                lines.append(
                    f"    {f.run_id}: {f.before} → {f.after} (score {f.before_score:.3g} → {f.after_score:.3g})"
                )
                for c in f.changes:
                    b, a = c.before or {}, c.after or {}
                    state = lambda d: "—" if not d else ("passed" if d["passed"] else "failed")  # noqa: E731
                    lines.append(f"      check {c.name}: {state(b)} → {state(a)}")
                    exp = a.get("expected", b.get("expected"))
                    act = a.get("actual", b.get("actual"))
                    lines.append(f"        expected {_show(exp)}, actual {_show(act)}")
                    if b.get("expected") != a.get("expected") and b and a:
                        lines.append(f"        (expected was {_show(b.get('expected'))})")
                    if b.get("reason"):
                        lines.append(f"        before: {b['reason']}")
                    if a.get("reason"):
                        lines.append(f"        after: {a['reason']}")
                if not f.changes and (f.before_reason or f.after_reason):
                    lines.append(f"      reason: {f.before_reason!r} → {f.after_reason!r}")
                d = diff.people.get(f.run_id)
                if d is not None:
                    lines.append(f"      ≠ disagrees with a person's: {d['by']} said {d['person']}: “{d['evidence']}”")
    if diff.score_changes:
        lines.append(f"({plural(diff.score_changes, 'run')} changed score without changing outcome)")
    if people and diff.people:
        lines += people_lines(list(diff.people.values()), f"of {diff.after_label} ")
    return "\n".join(lines)


def people_lines(found: list[dict[str, Any]], of: str = "") -> list[str]:
    """"N verdicts disagree with a person's:" and one entry per run (run order)."""
    from trajectory.query.people import disagreement_line

    n = len(found)
    lines = [f"{plural(n, 'verdict')} {of}{'disagrees' if n == 1 else 'disagree'} with a person's"
             + (":" if n else "")]
    lines += [disagreement_line(d) for d in sorted(found, key=lambda d: d["run_id"])]
    return lines

