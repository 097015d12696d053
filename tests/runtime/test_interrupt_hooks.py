"""What Python reports on stderr around a Ctrl-C: the CLI's hook drops only the reports that a
Ctrl-C itself causes (it has recorded the interrupt, which the command answers in one line),
and passes every other report on."""

from __future__ import annotations

import signal
import types

import pytest

from trajectory.runtime import interrupts


@pytest.fixture
def cli_state():
    state = interrupts.Interrupts()
    state.answered = True
    return state


def _report(exc: BaseException) -> types.SimpleNamespace:
    return types.SimpleNamespace(exc_type=type(exc), exc_value=exc, exc_traceback=None, err_msg=None, object=None)


def test_keyboard_interrupt_after_ctrl_c_is_dropped(cli_state) -> None:
    passed = []
    hook = cli_state.quiet_unraisable(passed.append)
    cli_state.signalled = True
    hook(_report(KeyboardInterrupt()))
    assert passed == []


def test_keyboard_interrupt_without_ctrl_c_is_reported(cli_state) -> None:
    passed = []
    hook = cli_state.quiet_unraisable(passed.append)
    hook(_report(KeyboardInterrupt()))
    assert len(passed) == 1


def test_other_reports_pass_through(cli_state) -> None:
    passed = []
    hook = cli_state.quiet_unraisable(passed.append)
    cli_state.signalled = True
    for exc in (ValueError("x"), OSError("disk"), OSError("Signal 15 ignored due to race condition")):
        hook(_report(exc))
    assert [str(r.exc_value) for r in passed] == ["x", "disk", "Signal 15 ignored due to race condition"]


def test_sigint_found_ignored_is_recorded_not_reported(cli_state, monkeypatch) -> None:
    monkeypatch.setattr(interrupts.threading, "Thread", lambda **kw: types.SimpleNamespace(start=lambda: None))
    passed = []
    hook = cli_state.quiet_unraisable(passed.append)
    hook(_report(OSError(f"Signal {int(signal.SIGINT)} ignored due to race condition")))
    assert passed == [] and cli_state.signalled


@pytest.mark.parametrize("module", ["trajectory.runtime.interrupts", "trajectory.runtime.pools",
                                    "trajectory.query.worker", "trajectory.cli.main"])
def test_the_process_handling_modules_keep_no_mutable_state(module) -> None:
    # The process's Ctrl-C state is one Interrupts object that main() makes; what is done once
    # per process (the resource tracker's start, the query workers' start method, the full
    # application) is a cached function, not a module-level dict or list that code mutates.
    import importlib

    kept = {name: type(value).__name__ for name, value in vars(importlib.import_module(module)).items()
            if not name.startswith("__") and isinstance(value, (dict, list, set, bytearray))}
    assert kept == {}


def test_a_deferred_section_holds_ctrl_c_until_it_ends() -> None:
    # Python's own handler, as in a command's process (a test worker may start with SIGINT
    # ignored); the section must put back whatever it found.
    found = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        reached = []
        with pytest.raises(KeyboardInterrupt):
            with interrupts.deferred():
                with interrupts.deferred():  # nested: still held by the outer section
                    signal.raise_signal(signal.SIGINT)
                    reached.append("inner")
                reached.append("outer")
        assert reached == ["inner", "outer"]
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, found)


@pytest.mark.parametrize("when", ["made", "inside", "removing"])
def test_a_scratch_folder_is_gone_whenever_ctrl_c_comes(when, tmp_path, monkeypatch) -> None:
    # The demo left its scratch folder behind when the Ctrl-C landed in TemporaryDirectory's
    # cleanup. Here the signal comes as the folder is made, inside the section, and halfway
    # through its removal (after one of its files is gone).
    import shutil
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    real_mkdtemp, real_rmtree = tempfile.mkdtemp, shutil.rmtree

    def mkdtemp(**kw):
        made = real_mkdtemp(**kw)
        if when == "made":
            signal.raise_signal(signal.SIGINT)
        return made

    def rmtree(path, **kw):
        if when == "removing":
            first = sorted(p for p in tmp_path.rglob("*") if p.is_file())[0]
            first.unlink()
            signal.raise_signal(signal.SIGINT)
        real_rmtree(path, **kw)

    monkeypatch.setattr(tempfile, "mkdtemp", mkdtemp)
    monkeypatch.setattr(shutil, "rmtree", rmtree)
    found = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        entered = []
        with pytest.raises(KeyboardInterrupt):
            with interrupts.scratch_folder("traj-test-") as folder:
                entered.append(folder)
                for i in range(3):
                    (tmp_path / folder / f"f{i}").write_text("x")
                if when == "inside":
                    signal.raise_signal(signal.SIGINT)
        assert len(entered) == (0 if when == "made" else 1)
        assert list(tmp_path.iterdir()) == []
    finally:
        signal.signal(signal.SIGINT, found)
