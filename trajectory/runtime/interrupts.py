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

The CLI (and only it) also calls :func:`install`, which makes the process's one
:class:`Interrupts` (held in a context variable, no module state): its SIGINT handler remembers that Ctrl-C came
before raising KeyboardInterrupt. DuckDB turns a KeyboardInterrupt that arrives during a query
into ``RuntimeError: Query interrupted``, which code that catches errors broadly may swallow; so
the CLI asks :func:`signalled` rather than trusting the exception's type, and a Ctrl-C that has
not reached the command's handler within half a second is delivered again.
"""

from __future__ import annotations

import _thread
import contextlib
import contextvars
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from trajectory.runtime.marks import mark

_LEDGER: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar("traj_ledger", default=None)
# The CLI's Ctrl-C (see install); None for library callers, who get only deferred and note.
_CLI: contextvars.ContextVar[Interrupts | None] = contextvars.ContextVar("traj_interrupts", default=None)
REDELIVER_AFTER = 0.5  # seconds


class Interrupts:
    """The CLI's Ctrl-C in one process: whether one came, whether the command has answered it,
    whether the process is leaving, and the ledger of the last command (for a Ctrl-C that
    comes after its handler is done). Made by :func:`install`, from main()."""

    def __init__(self) -> None:
        self.signalled = False
        self.answered = False
        self.leaving = False
        self.last: list[str] = []
        self.lock = threading.Lock()

    def came(self) -> None:
        if self.signalled:
            return
        self.signalled = True
        if self.leaving:  # nothing left to interrupt; the interpreter may be past starting threads
            return
        # Likewise a coroutine the interrupt stopped before it was awaited (inspect-ai's
        # read_eval_log_async) is reported as it is collected: not a fault of the command.
        import warnings

        warnings.filterwarnings("ignore", message=r"coroutine .* was never awaited", category=RuntimeWarning)
        threading.Thread(target=self.redeliver, daemon=True).start()

    def quiet_unraisable(self, hook: Callable[[Any], None]) -> Callable[[Any], None]:
        """Python reports an exception it cannot raise (in a weakref callback, a ``__del__``)
        on stderr. A Ctrl-C can land there: its KeyboardInterrupt is then such an exception,
        though the handler has recorded the interrupt, which is delivered again until the
        command answers it. Likewise a Ctrl-C that finds SIGINT ignored by the time Python runs
        its handler (the command is leaving) is reported as ignored "due to race condition";
        it is recorded instead. Every other report goes to ``hook``."""

        def quiet(unraisable: Any) -> None:
            exc = unraisable.exc_value
            if isinstance(exc, KeyboardInterrupt) and self.signalled:
                return
            if isinstance(exc, OSError) and f"Signal {int(signal.SIGINT)} ignored" in str(exc):
                self.came()
                return
            hook(unraisable)

        return quiet

    def on_sigint(self, signum: int, frame: Any) -> None:
        self.came()
        raise KeyboardInterrupt

    def record(self, signum: int, frame: Any) -> None:
        # No redelivery: nothing is left to interrupt.
        self.signalled = True

    def redeliver(self) -> None:
        while True:
            time.sleep(REDELIVER_AFTER)
            with self.lock:
                if self.answered:
                    return
                _thread.interrupt_main()  # a no-op while SIGINT is ignored (tearing down)


def install() -> Interrupts:
    """Handle SIGINT for the CLI: remember it, raise KeyboardInterrupt, deliver it again until
    the command answers it (:func:`answer`)."""
    state = Interrupts()
    _CLI.set(state)
    signal.signal(signal.SIGINT, state.on_sigint)
    sys.unraisablehook = state.quiet_unraisable(sys.unraisablehook)
    # After Ctrl-C, an event loop that a library runs (inspect-ai reads logs in asyncio.run)
    # logs its tasks' KeyboardInterrupt as it shuts down: a traceback on the way out, though
    # the command answers the interrupt in its one line. Those records go, and only those.
    import logging

    logging.getLogger("asyncio").addFilter(lambda record: not state.signalled)
    return state


def settle() -> None:
    """From now on a Ctrl-C is only recorded, never raised: the command is leaving, and the CLI
    decides at the very end whether it answers one. A Ctrl-C that comes while this is being put
    in place raises here once, and is recorded like any other."""
    state = _CLI.get()
    if state is None:
        return
    state.leaving = True
    while True:
        try:
            signal.signal(signal.SIGINT, state.record)
            return
        except KeyboardInterrupt:
            continue


def leave() -> None:
    """Ignore SIGINT for good: the command's answer is decided and printed, and the process
    leaves through the interpreter's ordinary exit, which keeps an ignored SIGINT ignored (one
    still on its way when this is put in place is reported as ignored "due to race condition";
    the CLI's hook records it instead, see Interrupts.quiet_unraisable).

    One more thing decides the exit status. CPython remembers a KeyboardInterrupt that ended
    any code run from a string (``eval``/``exec`` of text: typing's annotations, dataclasses,
    a library's generated code), even one that was caught afterwards; under ``python -m`` the
    interpreter then leaves by killing itself with SIGINT, whatever status ``sys.exit`` gave
    (-2 instead of 130). Running an empty string clears that memory, and with SIGINT ignored
    no KeyboardInterrupt can set it again."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        exec("")  # noqa: S102 - clears the remembered KeyboardInterrupt (see above)


def signalled() -> bool:
    """Whether Ctrl-C came (CLI only; see the module docstring)."""
    state = _CLI.get()
    return state is not None and state.signalled


def answer(entries: list[str]) -> str:
    """Mark the Ctrl-C answered (no more redelivery, further ones ignored); the line to print."""
    state = _CLI.get()
    if state is not None:
        with state.lock:
            state.answered = True
    if threading.current_thread() is threading.main_thread():
        # A handler that does nothing rather than SIG_IGN: a redelivery already on its way is
        # then swallowed quietly (Python reports one that finds SIGINT ignored).
        signal.signal(signal.SIGINT, lambda signum, frame: None)
    return interrupted_line(entries)


def answered() -> bool:
    state = _CLI.get()
    return state is not None and state.answered


def remember(entries: list[str]) -> None:
    """Keep a finished command's ledger, for a Ctrl-C that arrives after it returned."""
    state = _CLI.get()
    if state is not None:
        state.last = list(entries)


def last() -> list[str]:
    state = _CLI.get()
    return [] if state is None else list(state.last)


def note(what: str) -> None:
    """Record that ``what`` was committed (in the current command's ledger, if any)."""
    entries = _LEDGER.get()
    if entries is not None:
        entries.append(what)
    mark("committed", until=signalled)  # a test's Ctrl-C sent now comes after a whole commit


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


class _Hold:
    """The SIGINT handler of a deferred section: it notes the Ctrl-C for the section's end."""

    def __init__(self) -> None:
        self.came = False

    def __call__(self, signum: int, frame: Any) -> None:
        self.came = True
        state = _CLI.get()
        if state is not None:
            state.came()


@contextlib.contextmanager
def deferred() -> Iterator[None]:
    """Hold SIGINT until the end of the section (see the module docstring)."""
    if threading.current_thread() is not threading.main_thread() or isinstance(signal.getsignal(signal.SIGINT), _Hold):
        yield  # no signals here, or inside a section already holding them
        return
    hold = _Hold()
    previous = signal.signal(signal.SIGINT, hold)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    # Only when the section ended normally: an exception already on its way wins.
    if hold.came:
        raise KeyboardInterrupt


@contextlib.contextmanager
def committing() -> Iterator[None]:
    """A commit and its note: a :func:`deferred` section that tests can stop at when it starts
    (the mark ``committing``, see trajectory/runtime/marks.py)."""
    with deferred():
        mark("committing", until=signalled)
        yield


def working() -> None:
    """A command's body starts (the mark ``working``): it has loaded and written nothing yet."""
    mark("working", until=signalled)


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



@contextlib.contextmanager
def scratch_folder(prefix: str) -> Iterator[str]:
    """A temporary folder for a section, removed on the way out whatever the way. It is made
    and removed inside :func:`deferred` sections, so a Ctrl-C that comes as it is made or while
    it is being removed waits until that is done and leaves no folder behind
    (``tempfile.TemporaryDirectory`` leaves one when the signal lands in its cleanup)."""
    folder = None
    try:
        with deferred():
            folder = tempfile.mkdtemp(prefix=prefix)
        yield folder
    finally:
        if folder is not None:
            with deferred():
                shutil.rmtree(folder, ignore_errors=True)
