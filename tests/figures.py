"""Figures the reliability tests collect while they run (kill points survived, writers,
malformed inputs tried, events lost and duplicated); conftest prints them after the run.

``HARDENING`` counts the attacks of issue 14 as the tests make them (secrets planted and then
searched for, holdout reads attempted, share-report leaks planted): conftest prints a line per
kind from it, so the figure is what the tests actually tried, not a number written down."""

from __future__ import annotations

import os
from collections import Counter, defaultdict

RELIABILITY_FIGURES: list[str] = []

HARDENING: Counter[str] = Counter()

#: The crash tests' figures, kind of writer killed -> counts (tests/crash_harness.py fills it).
CRASH: defaultdict[str, Counter[str]] = defaultdict(Counter)

_CRASH_PLAIN = ("kill points", "trials", "events lost", "events duplicated")


def crash_lines() -> list[str]:
    """The total over every kind of writer that was killed, then a line per kind (the kinds
    whose tests ran: the suite's workers each hand theirs to the controller, which adds them)."""
    if not CRASH:
        return []
    total = sum(c["kill points"] for c in CRASH.values())
    lost = sum(c["events lost"] for c in CRASH.values())
    dups = sum(c["events duplicated"] for c in CRASH.values())
    seed = os.environ.get("TRAJ_CRASH_SEED", "20260405")
    out = [f"crash: {total} kill points survived (SIGKILL, seed {seed}); events lost {lost}, duplicated {dups}"]
    for kind in sorted(CRASH):
        c = CRASH[kind]
        extra = ", ".join(f"{k} {v}" for k, v in sorted(c.items()) if k not in _CRASH_PLAIN)
        out.append(f"  {kind}: {c['kill points']} kills in {c['trials']} trials" + (f", {extra}" if extra else ""))
    return out


def hardening_lines() -> list[str]:
    """The hardening figures as lines (only the kinds some test counted)."""
    h = HARDENING
    out = []
    if h["secrets_planted"]:
        out.append(
            f"secrets: {h['secrets_planted']} planted (options, errors, logs, holdout views), "
            f"{h['secret_places']} places searched (stdout, stderr, every table, every file), "
            f"found in {h['secrets_found']}"
        )
    if h["holdout_reads"]:
        out.append(
            f"holdout: {h['holdout_reads']} reads of holdout results attempted, {h['holdout_refused']} refused, "
            f"{h['holdout_recorded']} shown with a recorded view, {h['holdout_leaked']} shown unrecorded"
        )
    if h["share_leaks"]:
        out.append(
            f"share reports: {h['share_leaks']} leak attempts planted, {h['share_files']} output files searched, "
            f"{h['share_found']} found"
        )
    return out
