"""traj's shell: the event types, the store, ingest, the recorder, judging passes and the CLI."""

from .errors import ConflictError, SchemaError, StoreError, TrajError
from .recorder import Recorder, recover
from .store import Store

__all__ = ["ConflictError", "Recorder", "SchemaError", "Store", "StoreError", "TrajError", "recover"]
