"""Ctrl-C that leaves nothing half-written, and says what it left.

Two pieces, both inert unless a caller opts in:

* :func:`deferred` makes a short section — a commit and the bookkeeping that goes with it —
  indivisible for SIGINT: a Ctrl-C that arrives inside is held and raised as KeyboardInterrupt
  when the section ends. A commit therefore either happened and is noted, or did not happen.
  Sections nest; only the outermost one holds the signal. Outside the main thread (where
  Python delivers no signals) it does nothing.
* :func:`note` records, in the ledger of the current command (see :func:`ledger`), one thing
  that was committed ("weather.jsonl: 120 new events"). The CLI opens a ledger per command and,
  on Ctrl-C, prints :func:`interrupted_line`. Library callers that open no ledger record
  nothing.

The CLI (and only it) also calls :func:`install`: its SIGINT handler remembers that Ctrl-C came
before raising KeyboardInterrupt. DuckDB turns a KeyboardInterrupt that arrives during a query
into ``RuntimeError: Query interrupted``, which code that catches errors broadly may swallow; so
the CLI asks :func:`signalled` rather than trusting the exception's type, and a Ctrl-C that has
not reached the command's handler within half a second is delivered again.
"""

from __future__ import annotations

import _thread
import contextlib
import contextvars
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

_LEDGER: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar("traj_ledger", default=None)

# The outermost deferred section of the main thread: how deep, and whether SIGINT came.
_held = {"depth": 0, "signalled": False}
# The CLI's Ctrl-C (see install): whether one came, whether the command has answered it, and
# the ledger of the last command (for a Ctrl-C that comes after its handler is done).
_cli: dict[str, Any] = {"installed": False, "signalled": False, "answered": False, "last": []}
REDELIVER_AFTER = 0.5  # seconds


def install() -> None:
    """Handle SIGINT for the CLI: remember it, raise KeyboardInterrupt, deliver it again until
    the command answers it (:func:`answered`)."""
    _cli["installed"] = True
    signal.signal(signal.SIGINT, _on_sigint)
    sys.unraisablehook = _quiet_unraisable(sys.unraisablehook)
    # After Ctrl-C, an event loop that a library runs (inspect-ai reads logs in asyncio.run)
    # logs its tasks' KeyboardInterrupt as it shuts down: a traceback on the way out, though
    # the command answers the interrupt in its one line. Those records go, and only those.
    import logging

    logging.getLogger("asyncio").addFilter(lambda record: not _cli["signalled"])


def _came() -> None:
    if _cli["installed"] and not _cli["signalled"]:
        _cli["signalled"] = True
        # Likewise a coroutine the interrupt stopped before it was awaited (inspect-ai's
        # read_eval_log_async) is reported as it is collected: not a fault of the command.
        import warnings

        warnings.filterwarnings("ignore", message=r"coroutine .* was never awaited", category=RuntimeWarning)
        threading.Thread(target=_redeliver, daemon=True).start()


def _quiet_unraisable(hook: Callable[[Any], None]) -> Callable[[Any], None]:
    """Python reports an exception it cannot raise (in a weakref callback, a ``__del__``) on
    stderr. A Ctrl-C can land there: its KeyboardInterrupt is then such an exception, though
    the handler has recorded the interrupt, which is delivered again until the command answers
    it. Likewise a Ctrl-C that finds SIGINT ignored by the time Python runs its handler (the
    command is tearing down or leaving) is reported as ignored "due to race condition"; it is
    recorded instead. Every other report goes to ``hook``."""

    def quiet(unraisable: Any) -> None:
        exc = unraisable.exc_value
        if isinstance(exc, KeyboardInterrupt) and _cli["signalled"]:
            return
        if isinstance(exc, OSError) and f"Signal {int(signal.SIGINT)} ignored" in str(exc):
            _came()
            return
        hook(unraisable)

    return quiet


def _on_sigint(signum: int, frame: Any) -> None:
    _came()
    raise KeyboardInterrupt


_ANSWER_LOCK = threading.Lock()


def _redeliver() -> None:
    while True:
        time.sleep(REDELIVER_AFTER)
        with _ANSWER_LOCK:
            if _cli["answered"]:
                return
            _thread.interrupt_main()  # a no-op while SIGINT is ignored (tearing down)


def settle() -> None:
    """From now on a Ctrl-C is only recorded, never raised: the command is leaving, and the CLI
    decides at the very end whether it answers one. A Ctrl-C that comes while this is being put
    in place raises here once, and is recorded like any other."""
    while True:
        try:
            signal.signal(signal.SIGINT, _record_sigint)
            return
        except KeyboardInterrupt:
            continue


def _record_sigint(signum: int, frame: Any) -> None:
    # No redelivery: nothing is left to interrupt (and the interpreter may be past starting
    # threads).
    if _cli["installed"]:
        _cli["signalled"] = True


def signalled() -> bool:
    """Whether Ctrl-C came (CLI only; see the module docstring)."""
    return bool(_cli["signalled"])


def answer(entries: list[str]) -> str:
    """Mark the Ctrl-C answered (no more redelivery, further ones ignored); the line to print."""
    with _ANSWER_LOCK:
        _cli["answered"] = True
    if threading.current_thread() is threading.main_thread():
        # A handler that does nothing rather than SIG_IGN: a redelivery already on its way is
        # then swallowed quietly (Python reports one that finds SIGINT ignored).
        signal.signal(signal.SIGINT, lambda signum, frame: None)
    return interrupted_line(entries)


def answered() -> bool:
    return bool(_cli["answered"])


def remember(entries: list[str]) -> None:
    """Keep a finished command's ledger, for a Ctrl-C that arrives after it returned."""
    _cli["last"] = list(entries)


def last() -> list[str]:
    return list(_cli["last"])


def note(what: str) -> None:
    """Record that ``what`` was committed (in the current command's ledger, if any)."""
    entries = _LEDGER.get()
    if entries is not None:
        entries.append(what)


@contextlib.contextmanager
def ledger() -> Iterator[list[str]]:
    """A fresh ledger for one command; yields its list of committed things."""
    entries: list[str] = []
    token = _LEDGER.set(entries)
    try:
        yield entries
    finally:
        _LEDGER.reset(token)


def interrupted_line(entries: list[str]) -> str:
    """The one line a command prints when Ctrl-C stops it."""
    if not entries:
        return "interrupted: nothing written"
    return "interrupted: committed " + "; ".join(entries) + "; nothing else written"


@contextlib.contextmanager
def deferred() -> Iterator[None]:
    """Hold SIGINT until the end of the section (see the module docstring)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    if _held["depth"]:
        _held["depth"] += 1
        try:
            yield
        finally:
            _held["depth"] -= 1
        return

    def hold(signum: int, frame: Any) -> None:
        _held["signalled"] = True
        _came()

    previous = signal.signal(signal.SIGINT, hold)
    _held["depth"], _held["signalled"] = 1, False
    try:
        yield
    finally:
        _held["depth"] = 0
        signal.signal(signal.SIGINT, previous)
        came, _held["signalled"] = _held["signalled"], False
    # Only when the section ended normally: an exception already on its way wins.
    if came:
        raise KeyboardInterrupt


@contextlib.contextmanager
def ignored() -> Iterator[None]:
    """Ignore SIGINT for a section (tearing down after a Ctrl-C: a second one must not leave
    worker processes behind). Main thread only, like :func:`deferred`."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
