"""What Python reports on stderr around a Ctrl-C: the CLI's hook drops only the reports that a
Ctrl-C itself causes (it has recorded the interrupt, which the command answers in one line),
and passes every other report on."""

from __future__ import annotations

import signal
import types

import pytest

from trajectory.runtime import interrupts


@pytest.fixture
def cli_state(monkeypatch):
    state = {"installed": True, "signalled": False, "answered": True, "last": []}
    monkeypatch.setattr(interrupts, "_cli", state)
    return state


def _report(exc: BaseException) -> types.SimpleNamespace:
    return types.SimpleNamespace(exc_type=type(exc), exc_value=exc, exc_traceback=None, err_msg=None, object=None)


def test_keyboard_interrupt_after_ctrl_c_is_dropped(cli_state) -> None:
    passed = []
    hook = interrupts._quiet_unraisable(passed.append)
    cli_state["signalled"] = True
    hook(_report(KeyboardInterrupt()))
    assert passed == []


def test_keyboard_interrupt_without_ctrl_c_is_reported(cli_state) -> None:
    passed = []
    hook = interrupts._quiet_unraisable(passed.append)
    hook(_report(KeyboardInterrupt()))
    assert len(passed) == 1


def test_other_reports_pass_through(cli_state) -> None:
    passed = []
    hook = interrupts._quiet_unraisable(passed.append)
    cli_state["signalled"] = True
    for exc in (ValueError("x"), OSError("disk"), OSError("Signal 15 ignored due to race condition")):
        hook(_report(exc))
    assert [str(r.exc_value) for r in passed] == ["x", "disk", "Signal 15 ignored due to race condition"]


def test_sigint_found_ignored_is_recorded_not_reported(cli_state, monkeypatch) -> None:
    monkeypatch.setattr(interrupts.threading, "Thread", lambda **kw: types.SimpleNamespace(start=lambda: None))
    passed = []
    hook = interrupts._quiet_unraisable(passed.append)
    hook(_report(OSError(f"Signal {int(signal.SIGINT)} ignored due to race condition")))
    assert passed == [] and interrupts.signalled()
