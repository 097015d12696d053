"""traj's shell: the event types, the store, ingest, the recorder, judging passes and the CLI.

Importing this package loads nothing heavy: ``trajectory.events`` and ``trajectory.errors`` are
leaf modules the pure core imports, and the names below are loaded when first used.
"""

from __future__ import annotations

from typing import Any

_LAZY = {
    "ConflictError": ("errors", "ConflictError"),
    "SchemaError": ("errors", "SchemaError"),
    "StoreError": ("errors", "StoreError"),
    "TrajError": ("errors", "TrajError"),
    "Recorder": ("ingest.recorder", "Recorder"),
    "recover": ("ingest.recorder", "recover"),
    "Store": ("store.delta", "Store"),
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        module, attr = _LAZY[name]
        return getattr(importlib.import_module(f"{__name__}.{module}"), attr)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def state_at(store: Any, run_id: str, seq: int | None = None):  # noqa: ANN201 - replay.RunState
    """The replayed state of a stored run after events 0..seq (the whole run without seq)."""
    from trajectory.judging import load_state
    from trajectory.store.delta import Store

    return load_state(store if isinstance(store, Store) else Store(store), run_id, seq)


__all__ = [
    "ConflictError", "Recorder", "SchemaError", "Store", "StoreError", "TrajError", "recover", "state_at",
]
