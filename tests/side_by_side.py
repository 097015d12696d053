"""Long chains of commands that a test module starts together and its tests collect one by one.

A chain that mostly waits on the processes it starts (a tour of two dozen commands, an install,
a local S3 server and two Ray clusters) runs in a thread; its test waits for it and makes its
assertions on what it returned. A few chains run at once (``lanes``: as the suite runs more
workers than cores, since much of a chain is waiting), the others wait their turn in the order
given; inside a chain the commands still run one after the other. A chain must be independent
of the others: its own folder, store, bucket and port.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Any


class Chains:
    """Chains by name: those named in ``start`` begin now, ``lanes`` at a time, in the order of
    ``chains``; any other runs when its test asks for it, in the test's own thread."""

    def __init__(self, chains: dict[str, Callable[[], Any]], start: Iterable[str], lanes: int) -> None:
        self._chains = chains
        chosen = set(start)
        self._queue = [name for name in chains if name in chosen]  # in the order of ``chains``
        self._done = {name: threading.Event() for name in self._queue}
        self._results: dict[str, tuple[Any, BaseException | None]] = {}
        self._lock = threading.Lock()
        self._lanes = [threading.Thread(target=self._lane, name=f"chain-lane-{i}", daemon=True)
                       for i in range(min(lanes, len(self._queue)))]
        for lane in self._lanes:
            lane.start()

    def _lane(self) -> None:
        while True:
            with self._lock:
                if not self._queue:
                    return
                name = self._queue.pop(0)
            self._results[name] = _call(self._chains[name])
            self._done[name].set()

    def result(self, name: str) -> Any:
        """What the chain returned, once it has; what it raised is raised here, with its
        traceback. Every command of a chain has a timeout of its own, so the wait ends."""
        if name in self._done:
            self._done[name].wait()
            value, error = self._results[name]
        else:
            value, error = _call(self._chains[name])
        if error is not None:
            raise error
        return value

    def wait(self) -> None:
        """At the module's end: the chains not yet begun never will (their tests are over, run
        or not), and those begun have ended (what they raised is their tests' to report):
        nothing a chain started outlives the module."""
        with self._lock:
            self._queue.clear()
        for lane in self._lanes:
            lane.join()


def _call(fn: Callable[[], Any]) -> tuple[Any, BaseException | None]:
    try:
        return fn(), None
    except BaseException as e:  # noqa: BLE001 - handed to the test that collects it
        return None, e
