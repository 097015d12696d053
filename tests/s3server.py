"""A real S3-compatible server for the tests: moto's server, a process of its own on 127.0.0.1
(writers that the tests SIGKILL must not take the server with them), started and stopped by
the test session. It enforces conditional put (If-None-Match), which Delta's commits rely on.

The server is moto's own (``python -m moto.server``) run through :func:`serve`, which makes its
conditional writes atomic, as S3's are (moto checks and stores in two steps), and cuts two
costs moto pays on every request that serve no test: a listing of its own package folder (a
directory listing and a stat per service, to find the backend) and a log line per request (to
DEVNULL here). A Delta table open is six requests; an S3 test makes thousands.
"""

from __future__ import annotations

from hang import HANG
import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from collections.abc import Iterator

HOST = "127.0.0.1"


def die_with_parent() -> None:
    """In the child before exec: end with the process that started it (a test session killed
    before its teardown must not leave a server behind)."""
    import ctypes
    import signal

    ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


class S3Server:
    """``moto_server -H 127.0.0.1 -p PORT`` as a child process."""

    def __init__(self) -> None:
        self.port = free_port()
        self.endpoint = f"http://{HOST}:{self.port}"
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "-H", HOST, "-p", str(self.port)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=die_with_parent,
        )
        deadline = time.monotonic() + HANG
        while True:
            try:
                with socket.create_connection((HOST, self.port), timeout=1):
                    break
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(f"moto server did not start on {self.endpoint}") from None
                time.sleep(0.1)

    def env(self, key: str = "testing-key", secret: str = "testing-secret") -> dict[str, str]:
        """The standard variables that point delta-rs (and traj) at this server."""
        return {
            "AWS_ENDPOINT_URL": self.endpoint,
            "AWS_ACCESS_KEY_ID": key,
            "AWS_SECRET_ACCESS_KEY": secret,
            "AWS_REGION": "us-east-1",
            "AWS_ALLOW_HTTP": "true",
        }

    def bucket(self) -> str:
        """A new, empty bucket (names must be at least three characters)."""
        name = f"t{uuid.uuid4().hex[:16]}"
        req = urllib.request.Request(f"{self.endpoint}/{name}", method="PUT")
        with urllib.request.urlopen(req, timeout=30) as resp:
            assert resp.status == 200, resp.status
        return name

    def objects(self, bucket: str) -> dict[str, bytes]:
        """Every object of a bucket, key -> bytes (for tests that look inside the files)."""
        import boto3

        client = boto3.client("s3", endpoint_url=self.endpoint, aws_access_key_id="k",
                              aws_secret_access_key="s", region_name="us-east-1")
        out = {}
        for page in client.get_paginator("list_objects_v2").paginate(Bucket=bucket):
            for obj in page.get("Contents", []):
                out[obj["Key"]] = client.get_object(Bucket=bucket, Key=obj["Key"])["Body"].read()
        return out

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(20)


@contextlib.contextmanager
def environment(values: dict[str, str]) -> Iterator[None]:
    """Set environment variables for the duration (session fixtures have no monkeypatch)."""
    old = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def serve(argv: list[str]) -> None:
    """``moto.server``'s main, with S3's own guarantee for conditional writes and less work per
    request; what it stores and answers is moto's."""
    import functools
    import logging
    import threading

    from moto import backends
    from moto.s3.responses import S3Response
    from moto.server import main

    # moto checks If-None-Match (is the key there?) and then stores the object, with the threads
    # of other requests running in between: two writers of the same Delta log entry could both
    # be told they won it, and one commit would be lost though its writer reported it (S3 never
    # does that; it happened to 8 writers on a loaded machine). Writes go one at a time.
    writing = threading.RLock()

    def one_at_a_time(method):  # noqa: ANN001, ANN202 - moto's own signatures
        @functools.wraps(method)
        def locked(self, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
            with writing:
                return method(self, *args, **kwargs)

        return locked

    for name in ("put_object", "copy_object", "_key_response_post"):  # the POST completes multipart uploads
        setattr(S3Response, name, one_at_a_time(getattr(S3Response, name)))
    # The folder does not change while the server runs: listed once, not at every request.
    modules = tuple(backends.list_of_moto_modules())
    backends.list_of_moto_modules = lambda: modules
    # The request log line (werkzeug's, at INFO) is formatted and written under a lock per request.
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    main(argv)


if __name__ == "__main__":
    serve(sys.argv[1:])
