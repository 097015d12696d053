"""Named points in a command's life that a test can wait on, instead of guessing a delay.

Inert unless the environment variable ``TRAJ_MARKS`` names the point (a comma-separated list):
then reaching it writes ``traj-mark: <point>`` as one line on stderr, straight to file
descriptor 2 (a worker's stderr is its command's). A test that must Ctrl-C a command while it
commits, or kill it while its query runs, sends the signal when it reads the line.
"""

from __future__ import annotations

import os

ENV = "TRAJ_MARKS"
PREFIX = "traj-mark: "


def mark(point: str) -> None:
    """Say that ``point`` is reached, if a test asked for it (see the module docstring)."""
    wanted = os.environ.get(ENV)
    if wanted and point in wanted.split(","):
        try:
            os.write(2, f"{PREFIX}{point}\n".encode())
        except OSError:
            pass
