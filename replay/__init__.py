"""Replay: a pure fold of a run's events into the state judges read."""

from .fold import ReplayError, apply, replay, state_at, view
from .state import RunState, Screen, Sheet, Step

__all__ = ["ReplayError", "RunState", "Screen", "Sheet", "Step", "apply", "replay", "state_at", "view"]
