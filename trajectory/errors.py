"""One root error for everything traj refuses, so the CLI can turn any of them into one line.

Each subclass also inherits the builtin it means, so callers that only know Python's own
exceptions still catch them sensibly.
"""

from __future__ import annotations


class TrajError(Exception):
    """Root of every error traj raises on purpose (user mistakes, bad input, conflicts)."""


class SchemaError(TrajError, ValueError):
    """An input line is not a valid event: the message names file, line and JSON path."""


class ConflictError(TrajError, ValueError):
    """An event with the same (run_id, seq) but different content is already stored."""


class StoreError(TrajError, RuntimeError):
    """The store is missing, of an unknown format, or cannot be written."""


class QueryError(TrajError, ValueError):
    """A SQL query was refused by the sandbox or failed."""


class NotFound(TrajError, LookupError):
    """A run, pass, suite or task that was asked for does not exist."""


class JudgeError(TrajError, ValueError):
    """A task definition is inconsistent in a way that only shows when judging, or a suite
    cannot be loaded."""


class LimitError(SchemaError):
    """An input exceeds a configured limit (line length, nesting depth, events per run)."""
