"""The object-storage backend: a store under ``s3://bucket/prefix`` (or any URI delta-rs
accepts: ``gs://``, ``az://``, ``abfss://`` ...), see trajectory/store/backend.py for the contract.

Credentials and the endpoint come from the standard variables (``AWS_ACCESS_KEY_ID``,
``AWS_SECRET_ACCESS_KEY``, ``AWS_REGION``, ``AWS_ENDPOINT_URL``, ``AWS_ALLOW_HTTP`` ...) or from
storage options given by the caller (``--storage-option KEY=VALUE``). They are handed to
delta-rs and nothing else: ``str()`` and ``repr()`` name the URI only, and an error from the
storage layer is rewritten with every secret-looking option value blanked out.

What needs no lock here:

- table commits: Delta's next log entry is created with a conditional put (If-None-Match), so
  of two writers exactly one gets each version; a conditional append (``after``) is refused
  when it lost, and the store reads again and decides again (trajectory/store/delta.py);
- traj's own small files (the format marker): rows of a small Delta table of their own,
  ``traj-files``, replaced whole by a conditional overwrite on top of the version read, so a
  reader sees the old or the new content and two writers never interleave;
- the journals of live recorders: a harness fsyncs each event to a local file before going
  on, which object storage cannot do. They live in a local spool folder keyed by the store's
  URI (``$TRAJ_SPOOL``, else ``~/.cache/traj/spool``, then the first 16 hex digits of the
  URI's SHA-256); ``Recorder.finish`` seals a journal into the store, and ``traj recover
  --store URI`` on the same machine seals those of dead harnesses.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa

from trajectory.store.backend import COMMIT_ATTEMPTS, Backend, CommitConflict, backoff, delta_append
from trajectory.errors import StoreError

FILES_TABLE = "traj-files"
FILES_SCHEMA = pa.schema([("name", pa.string()), ("data", pa.binary())])

#: The standard variables read for each kind of URI (delta-rs's object_store reads the same).
ENV_OPTIONS: dict[str, tuple[str, ...]] = {
    "s3": (
        "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_REGION", "AWS_DEFAULT_REGION",
        "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3", "AWS_ALLOW_HTTP", "AWS_VIRTUAL_HOSTED_STYLE_REQUEST",
    ),
    "gs": ("GOOGLE_SERVICE_ACCOUNT", "GOOGLE_SERVICE_ACCOUNT_KEY", "GOOGLE_APPLICATION_CREDENTIALS"),
    "az": (
        "AZURE_STORAGE_ACCOUNT_NAME", "AZURE_STORAGE_ACCOUNT_KEY", "AZURE_STORAGE_SAS_TOKEN",
        "AZURE_STORAGE_CLIENT_ID", "AZURE_STORAGE_CLIENT_SECRET", "AZURE_STORAGE_TENANT_ID",
        "AZURE_STORAGE_USE_EMULATOR",
    ),
}
_FAMILY = {"s3": "s3", "s3a": "s3", "gs": "gs", "gcs": "gs", "az": "az", "abfs": "az", "abfss": "az",
           "adl": "az", "azure": "az"}
# Option names whose values are secrets: never shown, whatever the storage layer says.
_SECRET = re.compile(r"KEY|SECRET|TOKEN|PASSWORD|SAS|CREDENTIAL|SIGNATURE", re.I)


_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def describe(exc: BaseException) -> str:
    """One line for an error of the storage layer: the service's own code and message when it
    sent one (``NoSuchBucket: The specified bucket does not exist``), else the first and the
    innermost line of delta-rs's chain."""
    text = _ANSI.sub("", str(exc))
    code = re.search(r"<Code>([^<]*)</Code>", text)
    message = re.search(r"<Message>([^<]*)</Message>", text)
    if code or message:
        return ": ".join(m.group(1) for m in (code, message) if m)
    lines = [line.strip().lstrip("↳").strip() for line in text.splitlines() if line.strip()]
    if not lines:
        return type(exc).__name__
    return lines[0] if len(lines) == 1 else f"{lines[0]} ({lines[-1]})"


def is_object_uri(text: str) -> bool:
    """Whether a ``--store`` value names object storage (a scheme other than ``file://``)."""
    scheme, sep, _ = text.partition("://")
    return bool(sep) and scheme.lower() != "file" and re.fullmatch(r"[A-Za-z][A-Za-z0-9+.-]*", scheme) is not None


def env_options(uri: str) -> dict[str, str]:
    """The standard variables set in the environment for this URI's kind of storage."""
    family = _FAMILY.get(uri.partition("://")[0].lower(), "")
    return {k: os.environ[k] for k in ENV_OPTIONS.get(family, ()) if os.environ.get(k)}


def spool_root() -> Path:
    if os.environ.get("TRAJ_SPOOL"):
        return Path(os.environ["TRAJ_SPOOL"])
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(cache) / "traj" / "spool"


def spool_dir(uri: str) -> Path:
    """The local journal folder of a store on object storage (see the module docstring)."""
    return spool_root() / hashlib.sha256(uri.encode()).hexdigest()[:16]


class ObjectBackend(Backend):
    """A store under an object-storage URI."""

    local = False
    serialised = False

    def __init__(self, uri: str, storage_options: dict[str, str] | None = None):
        self.uri = uri.rstrip("/")
        if not self.uri.partition("://")[2]:
            raise StoreError(f"{uri}: no bucket or container in the store URI")
        self.storage_options = {**env_options(self.uri), **(storage_options or {})}

    def __repr__(self) -> str:
        return f"ObjectBackend({self.uri!r})"

    def __str__(self) -> str:
        return self.uri

    def scrub(self, text: str) -> str:
        """``text`` with the value of every secret option blanked (for error messages)."""
        for key, value in (self.storage_options or {}).items():
            if value and len(value) >= 4 and _SECRET.search(key):
                text = text.replace(value, "***")
        return text

    @contextlib.contextmanager
    def _errors(self, what: str) -> Iterator[None]:
        """Errors of the storage layer as one scrubbed line naming the store (no chained
        original: its text is the storage layer's own)."""
        from deltalake.exceptions import DeltaError, TableNotFoundError

        try:
            yield
        except (CommitConflict, StoreError, TableNotFoundError):
            raise
        except (DeltaError, OSError) as exc:
            raise StoreError(self.scrub(f"{self.uri}: {what}: {describe(exc)}")) from None

    # -- reading -------------------------------------------------------------------------------
    def _s3_filesystem(self) -> Any:
        """Arrow's own S3 client, configured from the same options as delta-rs.

        Why not delta-rs's filesystem (``DeltaTable.to_pyarrow_dataset()``): it is a Python
        filesystem, and Arrow's I/O threads can still hold its Python buffers when the
        interpreter exits, which aborts the process ("terminate called without an active
        exception") in about one exit of four. Arrow's native client has no Python in its I/O.
        """
        import pyarrow.fs as pafs

        opts = {k.lower().removeprefix("aws_"): v for k, v in (self.storage_options or {}).items()}
        kwargs: dict[str, Any] = {}
        for ours, theirs in (("access_key_id", "access_key"), ("secret_access_key", "secret_key"),
                             ("session_token", "session_token"), ("token", "session_token"),
                             ("default_region", "region"), ("region", "region"),
                             ("endpoint", "endpoint_override"), ("endpoint_url", "endpoint_override"),
                             ("endpoint_url_s3", "endpoint_override")):
            if opts.get(ours):
                kwargs[theirs] = opts[ours]
        if opts.get("allow_http", "").lower() in ("1", "true", "yes"):
            kwargs["scheme"] = "http"
        return pafs.S3FileSystem(**kwargs)

    def dataset(self, name: str, schema: pa.Schema, version: int | None = None) -> Any:
        import pyarrow.dataset as pads

        dt = self.open_table(name, version)
        if dt is None:
            return pads.dataset([], schema=schema, format="parquet")
        scheme = self.uri.partition("://")[0].lower()
        with self._errors(f"cannot read table {name}"):
            if _FAMILY.get(scheme) == "s3":
                files = [u.partition("://")[2] for u in dt.file_uris()]
                return pads.dataset(files, schema=schema, format="parquet", filesystem=self._s3_filesystem())
            return super().dataset(name, schema, version)

    # -- small files ---------------------------------------------------------------------------
    def _files(self) -> tuple[Any, dict[str, bytes]]:
        dt = self.open_table(FILES_TABLE)
        if dt is None:
            return None, {}
        with self._errors("cannot read traj's files"):
            rows = self.dataset(FILES_TABLE, FILES_SCHEMA, dt.version()).to_table().to_pylist()
        return dt, {r["name"]: r["data"] for r in rows}

    def read_file(self, name: str) -> bytes | None:
        return self._files()[1].get(name)

    def write_file(self, name: str, data: bytes) -> None:
        """Replace the files table whole, on top of the version read (see the module docstring)."""
        for attempt in range(COMMIT_ATTEMPTS):
            dt, files = self._files()
            files[name] = data
            table = pa.table({"name": list(files), "data": list(files.values())}, schema=FILES_SCHEMA)
            try:
                with self._errors(f"cannot write {name}"):
                    delta_append(self, FILES_TABLE, table, -1 if dt is None else dt.version(),
                                 mode="append" if dt is None else "overwrite")
                return
            except CommitConflict:
                backoff(attempt)
        raise StoreError(f"{self.uri}: cannot write {name}: other writers kept replacing it")

    # -- tables --------------------------------------------------------------------------------
    def table_uri(self, name: str) -> str:
        return f"{self.uri}/{name}"

    def open_table(self, name: str, version: int | None = None) -> Any:
        from deltalake import DeltaTable
        from deltalake.exceptions import TableNotFoundError

        try:
            with self._errors(f"cannot open table {name}"):
                return DeltaTable(self.table_uri(name), version=version, storage_options=self.storage_options)
        except TableNotFoundError:
            return None

    def has_table(self, name: str) -> bool:
        return self.open_table(name) is not None

    def append(self, name: str, data: pa.Table | pa.RecordBatchReader, *, after: int | None = None) -> int:
        with self._errors(f"cannot append to {name}"):
            delta_append(self, name, data, after)
        if after is not None:
            return after + 1
        dt = self.open_table(name)
        assert dt is not None
        return dt.version()

    def compact(self, name: str) -> dict[str, Any]:
        with self._errors(f"cannot compact {name}"):
            return super().compact(name)

    # -- writers -------------------------------------------------------------------------------
    def lock(self) -> contextlib.AbstractContextManager[None]:
        """No lock on object storage: conditional appends decide (see the module docstring)."""
        return contextlib.nullcontext()

    def journal_dir(self) -> Path:
        return spool_dir(self.uri)

    def exists_any(self) -> bool:
        return self.has_table("events")
