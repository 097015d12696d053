"""Where a store lives: every path the store touches goes through :class:`Location`.

Today the only backend is a local folder. An object-storage backend (S3-compatible) needs a
different lock and different small-file reads, and nothing else: callers never build paths
themselves, they ask the location.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

from .errors import StoreError


def fsync_path(path: str | os.PathLike[str]) -> None:
    """Flush one file or directory to disk (a directory fsync makes a rename or create durable)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class Location:
    """A store's root. ``uri`` is what table libraries get; helpers cover the few small files."""

    def __init__(self, root: str | os.PathLike[str]):
        text = os.fspath(root)
        if "://" in text and not text.startswith("file://"):
            raise StoreError(
                f"{text}: only local folders are supported as stores so far "
                "(object storage needs a commit lock that this build does not have)"
            )
        self.root = Path(text.removeprefix("file://")).absolute()

    def __repr__(self) -> str:
        return f"Location({str(self.root)!r})"

    def __str__(self) -> str:
        return str(self.root)

    @property
    def storage_options(self) -> dict[str, str] | None:
        """Options for delta-rs / object_store; None for a local folder."""
        return None

    def uri(self, *parts: str) -> str:
        return str(self.root.joinpath(*parts))

    def path(self, *parts: str) -> Path:
        return self.root.joinpath(*parts)

    def exists(self, *parts: str) -> bool:
        return self.root.joinpath(*parts).exists()

    def ensure(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)

    def read_bytes(self, *parts: str) -> bytes:
        return self.root.joinpath(*parts).read_bytes()

    def write_atomic(self, data: bytes, *parts: str) -> None:
        """Write a small file so that readers see the old or the new content, never a torn one."""
        target = self.root.joinpath(*parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
        fsync_path(target.parent)

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
