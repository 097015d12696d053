"""Figures the reliability tests collect while they run (kill points survived, writers,
malformed inputs tried, events lost and duplicated); conftest prints them after the run.

``HARDENING`` counts the attacks of issue 14 as the tests make them (secrets planted and then
searched for, holdout reads attempted, share-report leaks planted): conftest prints a line per
kind from it, so the figure is what the tests actually tried, not a number written down."""

from __future__ import annotations

from collections import Counter

RELIABILITY_FIGURES: list[str] = []

HARDENING: Counter[str] = Counter()


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
