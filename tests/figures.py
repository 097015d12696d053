"""Figures the reliability tests collect while they run (kill points survived, writers,
malformed inputs tried, events lost and duplicated); conftest prints them after the run."""

from __future__ import annotations

RELIABILITY_FIGURES: list[str] = []
