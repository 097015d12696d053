"""The Recorder: the API a harness calls while a run happens.

Every event is appended to a per-run journal file and fsync'd before the call returns, so a
harness that crashes loses at most the event it was writing. ``finish`` seals the journal into
the events table; a journal left behind by a dead harness is sealed by ``traj recover``, and its
run stays open (no ``run_finished``) so that it can be told apart from a finished one.

    with Recorder(store, run_id="wx-001", suite="weather", task="CheckCurrentTemp") as rec:
        rec.step("open_app", {"app": "weather"})
        rec.screen("北京 20° 多云", app="weather")
        rec.sheet_set(0, "20")
        rec.sheet_submit()
        rec.finish("succeeded")
"""

from __future__ import annotations

import datetime as _dt
import fcntl
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import msgspec

from . import events as ev
from .errors import StoreError, TrajError
from .ingest import IngestReport, Parsed, existing_runs, ingest_events, parse
from .location import fsync_path
from .store import Store

JOURNAL_DIR = "journal"

Clock = Callable[[], "_dt.datetime | int"]


class RecorderError(TrajError, RuntimeError):
    """The recorder was used out of order (after finish, twice for one run, ...)."""


def _utc_now() -> _dt.datetime:
    return _dt.datetime.now(_dt.timezone.utc)


def _obj(kind: type, value: Any) -> Any:
    if value is None or isinstance(value, kind):
        return value
    return msgspec.convert(value, kind)


class Recorder:
    """Record one run live. Use as a context manager, or call :meth:`open` and :meth:`close`."""

    def __init__(
        self,
        store: Store | str | os.PathLike[str],
        *,
        run_id: str,
        suite: str,
        task: str,
        params: dict[str, Any] | None = None,
        goal: str | None = None,
        batch: str | None = None,
        agent: ev.Agent | dict[str, Any] | None = None,
        device: str | None = None,
        mode: str | None = None,
        split: str | None = None,
        pair: ev.Pair | dict[str, Any] | None = None,
        state: dict[str, Any] | None = None,
        route: ev.Route | dict[str, Any] | None = None,
        extra: dict[str, Any] | None = None,
        clock: Clock | None = None,
        seal_on_exit: bool = True,
    ):
        self.store = store if isinstance(store, Store) else Store(store)
        self.run_id = run_id
        self.clock = clock or _utc_now
        self.seal_on_exit = seal_on_exit
        self._seq = 0
        self._fd: int | None = None
        self._finished = False
        self._sealed: IngestReport | None = None
        self._start = ev.RunStarted(
            run_id=run_id,
            seq=0,
            ts=self.clock(),
            suite=suite,
            task=task,
            params=params,
            goal=goal,
            batch=batch,
            agent=_obj(ev.Agent, agent),
            device=device,
            mode=mode if mode is not None else msgspec.UNSET,  # type: ignore[arg-type] - absent: grounded
            split=split,  # type: ignore[arg-type]
            pair=_obj(ev.Pair, pair),
            state=state,
            route=_obj(ev.Route, route),
            extra=extra,
        )

    # -- lifecycle ------------------------------------------------------------------------
    @property
    def journal(self) -> Path:
        return self.store.journal_dir() / f"{self.run_id}.jsonl"

    def open(self) -> Recorder:
        if self._fd is not None:
            raise RecorderError(f"recorder for run {self.run_id} is already open")
        if existing_runs(self.store, [self.run_id]):
            raise RecorderError(f"run {self.run_id} is already in the store {self.store.loc}")
        self.store.init()
        self.journal.parent.mkdir(parents=True, exist_ok=True)
        self._fd = self._create_journal()
        fsync_path(self.journal.parent)
        self._write(self._start)
        return self

    def _create_journal(self) -> int:
        """Create this run's journal and take its lock, held for the life of the recorder:
        `traj recover` knows a live writer by it.

        Between the create and the lock, a concurrent `traj recover` may take the empty journal
        for a dead writer's, seal it (nothing) and remove it; the recorder would then write into
        a removed file and lose the run. So the lock is checked to be on the file the path still
        names, and the journal is created again when it is not.
        """
        for _ in range(100):
            try:
                fd = os.open(self.journal, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_EXCL, 0o644)
            except FileExistsError:
                raise RecorderError(
                    f"run {self.run_id} is being recorded by another writer (journal {self.journal}); "
                    "if that writer is dead, `traj recover` seals its journal"
                ) from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)  # only a recover pass can hold it, briefly
                if os.path.samestat(os.fstat(fd), os.stat(self.journal)):
                    return fd
            except FileNotFoundError:
                pass
            except BaseException:
                os.close(fd)
                raise
            os.close(fd)
        raise RecorderError(f"run {self.run_id}: cannot create its journal {self.journal}")

    def __enter__(self) -> Recorder:
        return self.open()

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        self.close()

    def close(self) -> IngestReport | None:
        """Seal what was recorded (the run stays open without :meth:`finish`) and release."""
        if self._fd is None:
            return self._sealed
        try:
            if self.seal_on_exit:
                self._sealed = seal_journal(self.store, self.journal, owned=True)
        finally:
            os.close(self._fd)
            self._fd = None
        return self._sealed

    # -- events ---------------------------------------------------------------------------
    def _write(self, event: ev.Event) -> ev.Event:
        if self._fd is None:
            raise RecorderError(f"recorder for run {self.run_id} is not open")
        if self._finished:
            raise RecorderError(f"run {self.run_id} is finished; nothing may follow run_finished")
        line = ev.encode(event)
        event = ev.decode(line)  # constructors do not check constraints; the decoder does
        os.write(self._fd, line + b"\n")
        os.fsync(self._fd)
        self._seq = event.seq + 1
        return event

    def _make(self, kind: type[ev.Event], **fields: Any) -> ev.Event:
        extra = fields.pop("extra", None)
        return self._write(kind(run_id=self.run_id, seq=self._seq, ts=self.clock(), extra=extra, **fields))

    def step(
        self,
        action: str,
        args: dict[str, Any] | None = None,
        *,
        thought: str | None = None,
        usage: ev.Usage | dict[str, Any] | None = None,
        timing: ev.Timing | dict[str, Any] | None = None,
        extra: dict[str, Any] | None = None,
    ) -> ev.Event:
        return self._make(
            ev.StepTaken,
            action=action,
            args=args,
            thought=thought,
            usage=_obj(ev.Usage, usage),
            timing=_obj(ev.Timing, timing),
            extra=extra,
        )

    def screen(
        self,
        text: str,
        *,
        app: str | None = None,
        route: ev.Route | dict[str, Any] | None = None,
        image: str | None = None,
        extra: dict[str, Any] | None = None,
    ) -> ev.Event:
        return self._make(ev.ScreenRead, text=text, app=app, route=_obj(ev.Route, route), image=image, extra=extra)

    def snapshot(self, state: dict[str, Any], *, extra: dict[str, Any] | None = None) -> ev.Event:
        return self._make(ev.StateChanged, snapshot=state, extra=extra)

    def patch(self, ops: Sequence[dict[str, Any] | ev.PatchOp], *, extra: dict[str, Any] | None = None) -> ev.Event:
        return self._make(ev.StateChanged, patch=[_obj(ev.PatchOp, op) for op in ops], extra=extra)

    def sheet_set(self, field: int, value: Any, *, extra: dict[str, Any] | None = None) -> ev.Event:
        return self._make(ev.SheetChanged, op="set", field=field, value=value, extra=extra)

    def sheet_submit(self, *, extra: dict[str, Any] | None = None) -> ev.Event:
        return self._make(ev.SheetChanged, op="submit", extra=extra)

    def sheet_unsubmit(self, *, extra: dict[str, Any] | None = None) -> ev.Event:
        return self._make(ev.SheetChanged, op="unsubmit", extra=extra)

    def answer(self, text: str, *, extra: dict[str, Any] | None = None) -> ev.Event:
        return self._make(ev.AnswerGiven, text=text, extra=extra)

    def ask(self, question: str, reply: str | None = None, *, extra: dict[str, Any] | None = None) -> ev.Event:
        return self._make(ev.UserAsked, question=question, reply=reply, extra=extra)

    def confirmation(
        self,
        *,
        action: str | None = None,
        target: str | None = None,
        content: str | None = None,
        amount: str | None = None,
        extra: dict[str, Any] | None = None,
    ) -> ev.Event:
        return self._make(
            ev.ConfirmationShown, action=action, target=target, content=content, amount=amount, extra=extra
        )

    def takeover(self, reason: str, text: str | None = None, *, extra: dict[str, Any] | None = None) -> ev.Event:
        return self._make(ev.TakeoverRequested, reason=reason, text=text, extra=extra)

    def probe(self, name: str, value: str, *, extra: dict[str, Any] | None = None) -> ev.Event:
        return self._make(ev.ProbeRead, name=name, value=value, extra=extra)

    def judgement(
        self, judge: str, model: str, key: str, output: dict[str, Any], *, extra: dict[str, Any] | None = None
    ) -> ev.Event:
        return self._make(ev.JudgementRecorded, judge=judge, model=model, key=key, output=output, extra=extra)

    def finish(
        self,
        outcome: str,
        *,
        error: str | None = None,
        skip_reason: str | None = None,
        metrics: dict[str, Any] | None = None,
        extra: dict[str, Any] | None = None,
    ) -> IngestReport | None:
        """Write run_finished and seal the journal into the store."""
        self._make(
            ev.RunFinished, outcome=outcome, error=error, skip_reason=skip_reason, metrics=metrics, extra=extra
        )
        self._finished = True
        return self.close()


def _journal_events(path: Path) -> list[Parsed]:
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        # The writer died inside its last write: that event is the one a crash may lose.
        data = data[: data.rfind(b"\n") + 1]
    return parse(data, str(path))


def seal_journal(store: Store, path: Path, *, owned: bool = False) -> IngestReport | None:
    """Ingest a journal into the events table and remove it. Idempotent.

    ``owned``: the caller holds the journal's writer lock; otherwise the journal is sealed only
    when no live writer holds it, and None is returned for a live one.
    """
    fd = os.open(path, os.O_RDONLY)
    try:
        if not owned:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                return None  # a live recorder still writes it
            if not os.path.samestat(os.fstat(fd), os.stat(path)):
                return None  # sealed and removed meanwhile, and the path names a new journal
        parsed = _journal_events(path)
        report = ingest_events(store, parsed, str(path))
        path.unlink()
        fsync_path(path.parent)
        return report
    finally:
        os.close(fd)


def recover(store: Store) -> list[tuple[Path, IngestReport | None]]:
    """Seal the journals of dead writers; journals of live ones are left alone (None)."""
    folder = store.journal_dir()
    if not folder.exists():
        return []
    out = []
    for path in sorted(folder.glob("*.jsonl")):
        try:
            out.append((path, seal_journal(store, path)))
        except FileNotFoundError:
            continue  # sealed by its writer meanwhile
    return out


def open_journals(store: Store) -> list[Path]:
    folder = store.journal_dir()
    return sorted(folder.glob("*.jsonl")) if folder.exists() else []


__all__ = ["Recorder", "RecorderError", "recover", "seal_journal", "open_journals", "StoreError"]
