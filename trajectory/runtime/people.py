"""Who does something: the name recorded with a pass, an override, a look at the holdout pool."""

from __future__ import annotations

import getpass
import os


def current_user() -> str:
    """Who is recorded as doing something: ``$TRAJ_USER``, else the login name."""
    if os.environ.get("TRAJ_USER"):
        return os.environ["TRAJ_USER"]
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "unknown"
