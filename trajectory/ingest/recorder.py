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

import dataclasses
import datetime as _dt
import errno
import fcntl
import os
import stat
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import msgspec

from trajectory import events as ev
from trajectory.errors import ConflictError, SchemaError, StoreError, TrajError
from trajectory.ingest.batchplan import ingest_events
from trajectory.ingest.plain import DEFAULT_LIMITS, IngestReport, Limits, Parsed, existing_runs, parse
from trajectory.ingest.patchcheck import WorldCheck
from trajectory.store.local import fsync_path
from trajectory.store.delta import Store

JOURNAL_DIR = "journal"
REJECTED_DIR = "rejected"  # under JOURNAL_DIR: journals recover could not seal whole, kept for a person

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
    """Record one run live. Use as a context manager, or call :meth:`open` and :meth:`close`.

    A recorder whose store does not exist yet creates it when it opens, and says so: a warning
    ``created a new store at PATH`` of the ``trajectory.store`` logger (on stderr unless logging
    is configured otherwise), and :attr:`created_store` holds the path.
    """

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
        limits: Limits = DEFAULT_LIMITS,
    ):
        self.store = store if isinstance(store, Store) else Store(store)
        self.run_id = run_id
        self.clock = clock or _utc_now
        self.seal_on_exit = seal_on_exit
        self.limits = limits  # what ingest would refuse is refused when it is recorded
        self._seq = 0
        self._fd: int | None = None
        self._size = 0  # bytes of whole, durable events in the journal
        self._broken: str | None = None  # set when a failed write could not be undone
        self._finished = False
        self._sealed: IngestReport | None = None
        #: The store's path when opening this recorder created the store (it is also logged,
        #: "created a new store at PATH", a warning of the "trajectory.store" logger); else None.
        self.created_store: str | None = None
        self._world = WorldCheck(self.store, set())  # a new run: its world is what it records
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
        # run_started is checked before anything is created: a run id ingest would refuse
        # (``../x``, ``/abs``) names no file, and a refused start leaves no journal behind.
        start = self._admit(ev.encode(self._start), self._start)
        if existing_runs(self.store, [self.run_id]):
            raise RecorderError(f"run {self.run_id} is already in the store {self.store.loc}")
        existed = self.store.exists
        self.store.init()
        if not existed and self.store.created:
            self.created_store = str(self.store.loc)
        self.journal.parent.mkdir(parents=True, exist_ok=True)
        self._fd = self._create_journal()
        try:
            fsync_path(self.journal.parent)
            self._write(start)
        except BaseException:
            # Not recorded at all: no empty, locked journal is left for recover to skip or for
            # this id to collide with when it is recorded again.
            os.close(self._fd)
            self._fd = None
            self.journal.unlink(missing_ok=True)
            self._world.worlds.pop(self.run_id, None)
            raise
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
        if self._broken is not None:
            raise RecorderError(self._broken)
        line = ev.encode(event)
        before = self._world.worlds.get(self.run_id)
        event = self._admit(line, event)
        try:
            self._append(line + b"\n", event)
        except BaseException:
            self._world.worlds[self.run_id] = before  # not recorded: the world did not move
            raise
        self._seq = event.seq + 1
        return event

    def _admit(self, line: bytes, event: ev.Event) -> ev.Event:
        """The event as ingest will read it, or a refusal now rather than when it is sealed.

        Ingest's own parser runs on the line (constructors do not check constraints, and a line
        ingest would refuse would make the whole journal unsealable later).
        """
        kind, seq = type(event).__struct_config__.tag, event.seq
        if seq + 1 > self.limits.max_events_per_run:
            raise RecorderError(
                f"run {self.run_id} seq {seq}: {kind} refused: the run would have more than "
                f"{self.limits.max_events_per_run} events (the ingest limit)"
            )
        try:
            parsed = parse(line, "event", self.limits)[0].event
        except SchemaError as exc:
            why = str(exc).removeprefix("event:1: ")
            raise RecorderError(f"run {self.run_id} seq {seq}: {kind} refused, ingest would refuse it: {why}") from None
        # A state patch must apply to the state it follows, as ingest checks (patchcheck.py):
        # acknowledged, it would make the journal unsealable, and the run with it.
        problem = self._world.check(parsed)
        if problem is not None:
            raise RecorderError(
                f"run {self.run_id} seq {seq}: {kind} refused, ingest would refuse it: {problem[0]}: {problem[1]}"
            )
        return parsed

    def _append(self, data: bytes, event: ev.Event) -> None:
        """Write one whole line and make it durable, or leave the journal as it was and raise.

        ``os.write`` may write only part of the line (a full disk): the rest is written in a
        loop, and when that fails the part already written is cut off again, so the journal
        never holds a torn event that a later one would follow.
        """
        assert self._fd is not None
        start = self._size
        view = memoryview(data)
        try:
            while view:
                n = os.write(self._fd, view)
                if n <= 0:
                    raise OSError(errno.EIO, "write made no progress")
                view = view[n:]
            os.fsync(self._fd)
        except OSError as exc:
            what = f"run {self.run_id} seq {event.seq}: {type(event).__struct_config__.tag} was not recorded"
            where = f"{self.journal}: {exc.strerror or exc}"
            try:
                os.ftruncate(self._fd, start)
                os.fsync(self._fd)
            except OSError:
                self._broken = (
                    f"{what} and the journal could not be cut back ({where}); it may end in a torn "
                    "event: stop this recorder, free the space, then `traj recover` keeps every whole event"
                )
                raise RecorderError(self._broken) from None
            raise RecorderError(
                f"{what} ({where}); the journal keeps the {event.seq} events before it; "
                "free the space and record it again"
            ) from None
        self._size = start + len(data)

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


class NotAJournal(TrajError, OSError):
    """A file in journal/ that is not a regular file (a FIFO, a link): never read."""


@dataclasses.dataclass
class JournalReport(IngestReport):
    """A sealed journal; ``rejected`` says why it could not be sealed whole, and ``kept_at``
    where it was moved (never deleted) for a person to look at."""

    rejected: str | None = None
    kept_at: Path | None = None


def _whole_lines(data: bytes) -> bytes:
    """Without a last line that has no newline: the writer died inside that write."""
    return data[: data.rfind(b"\n") + 1] if data and not data.endswith(b"\n") else data


def _journal_events(path: Path) -> tuple[list[Parsed], str | None]:
    """The whole events of a journal up to the first torn or refused line, and what stopped it.

    A last line without its newline is the event a crash interrupted: it is dropped quietly,
    as a crash may lose the event it was writing. A bad line anywhere else is reported.
    """
    data = _whole_lines(path.read_bytes())
    try:
        return parse(data, str(path)), None
    except SchemaError:
        pass
    kept: list[Parsed] = []
    for lineno, raw in enumerate(data.split(b"\n"), start=1):
        try:
            one = parse(raw, str(path))
        except SchemaError as exc:
            first = str(exc).splitlines()[0].replace(f"{path}:1:", f"{path}:{lineno}:", 1)
            return kept, f"{first}; {len(kept)} whole events before it kept"
        kept += [dataclasses.replace(p, line=lineno) for p in one]
    return kept, None  # unreachable: the whole parse failed, so one line does


def seal_journal(store: Store, path: Path, *, owned: bool = False) -> JournalReport | None:
    """Ingest a journal into the events table and remove it. Idempotent.

    ``owned``: the caller holds the journal's writer lock (and a journal that cannot be sealed
    whole raises); otherwise the journal is sealed only when no live writer holds it (None for
    a live one), and one that cannot be sealed whole gives up its whole events before the bad
    line and is moved to ``journal/rejected/``.
    """
    # Never blocks on what is not a journal (a FIFO would hang the open), nor follows a link.
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotAJournal(f"{path}: not a regular file; left where it is")
        if not owned:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                return None  # a live recorder still writes it
            if not os.path.samestat(os.fstat(fd), os.stat(path)):
                return None  # sealed and removed meanwhile, and the path names a new journal
        if owned:
            parsed, problem = parse(_whole_lines(path.read_bytes()), str(path)), None
        else:
            parsed, problem = _journal_events(path)
        report = JournalReport(str(path))
        try:
            done = ingest_events(store, parsed, str(path))
        except (SchemaError, ConflictError) as exc:
            if owned:
                raise
            problem = f"{str(exc).splitlines()[0]}; nothing of it sealed"
        else:
            report = JournalReport(**dataclasses.asdict(done))
        if problem is not None:
            report.rejected, report.kept_at = problem, _set_aside(path)
            return report
        path.unlink()
        fsync_path(path.parent)
        return report
    finally:
        os.close(fd)


def _set_aside(path: Path) -> Path:
    """Move a journal that cannot be sealed whole to journal/rejected/, never over another."""
    folder = path.parent / REJECTED_DIR
    folder.mkdir(exist_ok=True)
    target = folder / path.name
    n = 1
    while target.exists():
        n += 1
        target = folder / f"{path.stem}.{n}{path.suffix}"
    os.rename(path, target)
    fsync_path(folder)
    fsync_path(path.parent)
    return target


def recover(store: Store) -> list[tuple[Path, JournalReport | None]]:
    """Seal the journals of dead writers; journals of live ones are left alone (None).

    A journal with a torn or refused line does not stop the others: its whole events before
    that line are sealed, and it is moved to journal/rejected/ (``report.rejected`` says why).
    """
    folder = store.journal_dir()
    if not folder.exists():
        return []
    out = []
    for path in sorted(folder.glob("*.jsonl")):
        try:
            out.append((path, seal_journal(store, path)))
        except FileNotFoundError:
            continue  # sealed by its writer meanwhile
        except (NotAJournal, OSError) as exc:  # a FIFO, a link, a folder: said, never waited on
            why = str(exc) if isinstance(exc, NotAJournal) else f"{path}: {exc.strerror or exc}; left where it is"
            out.append((path, JournalReport(str(path), rejected=why)))
    return out


def open_journals(store: Store) -> list[Path]:
    folder = store.journal_dir()
    return sorted(folder.glob("*.jsonl")) if folder.exists() else []


__all__ = ["Recorder", "RecorderError", "JournalReport", "recover", "seal_journal", "open_journals", "StoreError"]
