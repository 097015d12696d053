"""Named points in a command's life that a test can wait on, instead of guessing a delay.

Inert unless the environment variable ``TRAJ_MARKS`` names the point (a comma-separated list):
then reaching it writes ``traj-mark: <point>`` as one line on stderr, straight to file
descriptor 2 (a worker's stderr is its command's). A test that must Ctrl-C a command while it
commits, or kill it while its query runs, sends the signal when it reads the line.

With ``TRAJ_MARKS_HOLD=1`` as well, a point that the caller gives a condition to (``until``)
also waits there until the condition holds (the test's Ctrl-C has come), for at most
:data:`HOLD_AT_MOST` seconds: the signal then lands at that very point, however busy the
machine is, and the command cannot run past it before the test has sent it.

The points: ``working`` (a command's body starts: nothing written yet), ``committing`` (a
commit's indivisible section starts), ``committed`` (a commit and its note are done),
``query-running`` (a user query runs in its worker).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

ENV = "TRAJ_MARKS"
HOLD_ENV = "TRAJ_MARKS_HOLD"
PREFIX = "traj-mark: "
HOLD_AT_MOST = 120.0  # seconds: only a test that never sends its signal waits this long


def mark(point: str, until: Callable[[], bool] | None = None) -> None:
    """Say that ``point`` is reached, if a test asked for it; and hold there until ``until()``
    if the test asked for that too (see the module docstring)."""
    wanted = os.environ.get(ENV)
    if not wanted or point not in wanted.split(","):
        return
    try:
        os.write(2, f"{PREFIX}{point}\n".encode())
    except OSError:
        pass
    if until is None or os.environ.get(HOLD_ENV) != "1":
        return
    deadline = time.monotonic() + HOLD_AT_MOST
    while not until() and time.monotonic() < deadline:
        time.sleep(0.005)  # a Ctrl-C outside an indivisible section raises out of the sleep
