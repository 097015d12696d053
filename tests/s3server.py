"""A real S3-compatible server for the tests: moto's server, a process of its own on 127.0.0.1
(writers that the tests SIGKILL must not take the server with them), started and stopped by
the test session. It enforces conditional put (If-None-Match), which Delta's commits rely on.
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
            [sys.executable, "-m", "moto.server", "-H", HOST, "-p", str(self.port)],
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
