"""The local backend: a store in a folder on this machine (see trajectory/store/backend.py).

What delta-rs does not give on a local disk, this backend adds: an inter-process writer lock
(an advisory ``flock`` that the kernel releases when its holder dies), and fsync of the new data
files, the log entry and their folders before a write returns, because the object_store layer
under delta-rs does not flush a local disk.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pyarrow as pa
import pyarrow.dataset as pads

from trajectory.store.backend import Backend, delta_append
from trajectory.runtime.diskfault import held_native_stderr
from trajectory.errors import StoreError

JOURNAL_DIR = "journal"
#: What delta-rs (1.x) cannot have in a local path: "%41" it reads as the escaped "A", wherever
#: it stands (given as a path or as a file:// URI alike), "\\" as "/", and "[", "]", "|", "^" it
#: refuses in the middle of a write (a panic); it would leave a table it cannot open again.
_UNUSABLE = re.compile(r"%[0-9A-Fa-f]{2}|[\[\]\\|^]")


def fsync_path(path: str | os.PathLike[str]) -> None:
    """Flush one file or directory to disk (a directory fsync makes a rename or create durable)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class LocalBackend(Backend):
    """A store root folder. ``path`` and ``uri`` name what is inside it."""

    def __init__(self, root: str | os.PathLike[str]):
        text = os.fspath(root)
        if "://" in text and not text.startswith("file://"):
            raise StoreError(
                f"{text}: only local folders are supported as stores so far "
                "(object storage needs a backend of its own, see trajectory/store/backend.py)"
            )
        self.root = Path(text.removeprefix("file://")).absolute()
        unusable = _UNUSABLE.search(str(self.root))
        if unusable:
            raise StoreError(
                f"{self.root}: a store's path cannot have {unusable.group()!r} in it (the Delta Lake "
                "library misreads % followed by two hex digits, and \\ [ ] | ^); rename the folder"
            )

    def __repr__(self) -> str:
        return f"LocalBackend({str(self.root)!r})"

    def __str__(self) -> str:
        return str(self.root)

    # -- paths (this backend only) -------------------------------------------------------------
    def uri(self, *parts: str) -> str:
        return str(self.root.joinpath(*parts))

    def path(self, *parts: str) -> Path:
        return self.root.joinpath(*parts)

    def exists(self, *parts: str) -> bool:
        return self.root.joinpath(*parts).exists()

    def ensure(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)

    # -- small files ---------------------------------------------------------------------------
    def read_file(self, name: str) -> bytes | None:
        try:
            return self.root.joinpath(name).read_bytes()
        except FileNotFoundError:
            return None

    def write_file(self, name: str, data: bytes) -> None:
        """Write a small file so that readers see the old or the new content, never a torn one."""
        target = self.root.joinpath(name)
        target.parent.mkdir(parents=True, exist_ok=True)
        # One temporary name per writer (threads of one process included).
        tmp = target.with_name(f".{target.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
        fsync_path(target.parent)

    # -- tables --------------------------------------------------------------------------------
    def table_uri(self, name: str) -> str:
        return self.uri(name)

    def table_files(self, dt: Any) -> list[str]:
        # delta-rs gives local files as percent-escaped paths ("my%20store/events/part-0.parquet")
        # that no file system has: the paths themselves, for DuckDB and Arrow.
        return [unquote(u.removeprefix("file://")) for u in dt.file_uris()]

    def has_table(self, name: str) -> bool:
        # A log folder without its first commit is a first append killed before that commit:
        # no table yet (the next append creates it), not a table that cannot be opened.
        return self.exists(name, "_delta_log", f"{0:020d}.json") or self.exists(
            name, "_delta_log", "_last_checkpoint"
        )

    def dataset(self, name: str, schema: pa.Schema, version: int | None = None) -> pads.Dataset:
        dt = self.open_table(name, version)
        return pads.dataset([] if dt is None else self.table_files(dt), schema=schema, format="parquet")

    def append(self, name: str, data: pa.Table | pa.RecordBatchReader, *, after: int | None = None) -> int:
        self.ensure()
        with held_native_stderr():  # a panic report on a full disk: the CLI says it in one line
            delta_append(self, name, data, after)
        if after is not None:
            version = after + 1
        else:
            dt = self.open_table(name)
            assert dt is not None
            version = dt.version()
        self.committed(name, version)
        return version

    def committed(self, name: str, version: int) -> None:
        log = self.path(name, "_delta_log", f"{version:020d}.json")
        added: list[Path] = []
        # Split on "\n" only: str.splitlines() also splits on U+0085 and U+2028, which can occur
        # raw inside the column statistics of a log entry.
        for line in log.read_text(encoding="utf-8").split("\n"):
            if '"add"' in line:
                action = json.loads(line).get("add")
                if action:
                    added.append(self.path(name, *action["path"].split("/")))
        for path in added:
            fsync_path(path)
        for folder in {p.parent for p in added}:
            fsync_path(folder)
        fsync_path(log)
        fsync_path(log.parent)

    # -- writers -------------------------------------------------------------------------------
    @contextlib.contextmanager
    def lock(self, name: str = "write.lock", shared: bool = False) -> Iterator[None]:
        """Serialise writers across processes (an exclusive advisory lock on a file).

        The lock is released by the kernel when its holder dies, so a killed writer never
        leaves the store locked.
        """
        self.ensure()
        fd = os.open(self.root / name, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_SH if shared else fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    def journal_dir(self) -> Path:
        return self.path(JOURNAL_DIR)

    def exists_any(self) -> bool:
        return self.exists("events", "_delta_log")


#: The name this backend had before there was a contract: a store's location.
Location = LocalBackend
