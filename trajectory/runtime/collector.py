"""Pausing Python's cyclic garbage collector around work that makes many small acyclic objects.

Decoding a batch of events, or replaying and judging a partition of runs, makes millions of
small objects with no cycles; every generation-0 collection would walk the ones still alive
again (measured: 990,000 events parse in 17 s with it, 7 s without; a partition of runs is
replayed and judged in about 20 % less CPU). Reference counting frees them all the same: only
cycles wait for the collector, which runs again when the block ends.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def paused() -> Iterator[None]:
    """The collector off inside the block (back on after it, if it was on)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
