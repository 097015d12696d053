"""traj's shell: the event types, the store, ingest, the recorder, judging passes and the CLI."""

from .errors import ConflictError, SchemaError, StoreError, TrajError
from .recorder import Recorder, recover
from .store import Store


def state_at(store: Store | str, run_id: str, seq: int | None = None):  # noqa: ANN201
    """The replayed state of a stored run after events 0..seq (the whole run without seq)."""
    from .judging import load_state

    return load_state(store if isinstance(store, Store) else Store(store), run_id, seq)


__all__ = [
    "ConflictError", "Recorder", "SchemaError", "Store", "StoreError", "TrajError", "recover", "state_at",
]
