"""The Ray engine: a judging pass's partitions and ingest's validation on a Ray cluster.

What stays with the driver (this process): selecting the runs, and every commit. A pass is
written by the driver exactly as the local engine writes it (its verdicts, then the pass row
that makes them visible), so a pass killed anywhere leaves nothing visible; ingest commits file
by file in the order given, with the same rules (one file = one all-or-nothing batch,
idempotent, conflicts refused with ``FILE:LINE``). What goes to the workers: the pure,
CPU-bound part — replaying and judging a partition of runs (read by each worker from the store
by run-id range), and decoding and validating a file's lines.

Workers resolve suites from the pass's ``SuiteSpec`` values, so a suite folder registered with
the store must be at the same path on every worker (a shared path, or shipped with the job's
runtime environment), and a store that is a local folder must be reachable by the workers at
the same path: on a cluster of several machines, keep the store on object storage.

A local cluster (no address) is started on this machine's cores with its node address set to
127.0.0.1 and no dashboard, so that every listener Ray starts is on loopback, and is shut
down (every process it started ends) when the work is done.
"""

from __future__ import annotations

import dataclasses

import os
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trajectory.errors import SchemaError, StoreError, TrajError

if TYPE_CHECKING:
    from trajectory.judging.execution import Rows

#: Ray resolves 127.0.0.1 to the host's interface address unless this is 0 before it is
#: imported (inherited by the processes it starts); usage statistics are never sent.
RAY_ENV = {"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "RAY_USAGE_STATS_ENABLED": "0"}


def import_ray() -> Any:
    for key, value in RAY_ENV.items():
        os.environ[key] = value
    # Ray's own processes' warnings (retries while connecting ...) stay in its log files.
    os.environ.setdefault("RAY_BACKEND_LOG_LEVEL", "error")
    try:
        import ray
        from ray._private import ray_constants
    except ImportError:
        raise TrajError("--engine ray needs Ray: pip install 'traj[ray]'") from None
    # Read from the variable when Ray is first imported: if that happened before (a notebook,
    # a test session), the value it read is corrected here, in the driver; the processes Ray
    # starts read the variable themselves.
    ray_constants.ENABLE_RAY_CLUSTER = False
    return ray


def reachable(address: str, timeout: float = 10.0) -> None:
    """Refuse at once an address nothing listens on (Ray itself would wait for minutes)."""
    import socket

    if address in ("auto", "local"):
        return
    host, _, port = address.split("://")[-1].rpartition(":")
    try:
        socket.create_connection((host.strip("[]") or "127.0.0.1", int(port)), timeout=timeout).close()
    except (OSError, ValueError) as exc:
        raise TrajError(f"--ray-address {address}: no Ray cluster answers there ({exc})") from None


class RayCluster:
    """Connected to a Ray cluster for the duration of a ``with``.

    ``address``: an existing cluster (``ray://...`` or ``HOST:PORT``; left running after);
    None: a local cluster on this machine (``num_cpus``: all its cores by default), shut down
    after. When this process is already connected (a test session's cluster), that connection
    is used and left as it was.
    """

    def __init__(self, address: str | None = None, num_cpus: int | None = None, runtime_env: dict[str, Any] | None = None):
        self.address = address
        self.num_cpus = num_cpus
        self.runtime_env = runtime_env
        self.owned = False

    def __enter__(self) -> RayCluster:
        ray = import_ray()
        if ray.is_initialized():
            return self
        common: dict[str, Any] = {"log_to_driver": False, "logging_level": "ERROR", "configure_logging": True}
        if self.runtime_env:
            common["runtime_env"] = self.runtime_env
        if self.address:
            reachable(self.address)
            try:
                ray.init(address=self.address, **common)
            except (ConnectionError, RuntimeError) as exc:
                cause = exc.__cause__ or exc
                hint = ""
                if "auth" in type(cause).__name__.lower() or "token" in str(cause).lower():
                    hint = ("; a cluster started by `ray start` uses token authentication: "
                            "export RAY_AUTH_MODE=token (the token is read from ~/.ray/auth_token or RAY_AUTH_TOKEN)")
                first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
                raise TrajError(f"--ray-address {self.address}: {first}{hint}") from None
        else:
            ray.init(
                address="local",
                _node_ip_address="127.0.0.1",
                include_dashboard=False,
                num_cpus=self.num_cpus,
                **common,
            )
        self.owned = True
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.owned:
            import_ray().shutdown()
            self.owned = False

    @staticmethod
    def cpus() -> int:
        return int(import_ray().cluster_resources().get("CPU", 1))


# -- judging -----------------------------------------------------------------------------------

# In a Ray worker process: the Judging of the pass it last served (partitions of one pass
# reuse its loaded suites and DuckDB connection; a new pass replaces it).
_WORKER: dict[str, Any] = {}


def _judge_partition(ctx: Any, part: Any, tracker: Any) -> tuple[Rows, dict[str, str], dict[str, float]]:
    """A partition on a Ray worker: the local engine's code, with a watchdog that tells the
    driver (through ``tracker``) which run it killed its process for."""
    from trajectory.judging.execution import Judging, Watchdog

    class TrackedWatchdog(Watchdog):
        def __init__(self) -> None:
            super().__init__(folder="")

        def record(self, run_id: str) -> None:
            ray = import_ray()
            ray.get(tracker.add.remote(run_id), timeout=30)

    judging = _WORKER.get(ctx.pass_id)
    if judging is None:
        for old in _WORKER.values():
            old.close()
        _WORKER.clear()
        judging = _WORKER[ctx.pass_id] = Judging(ctx, watchdog=TrackedWatchdog())
    judging.spent = {}
    rows, versions = judging.partition(part)  # a judging.partitions.Partition
    return rows, versions, dict(judging.spent)


class _Tracker:
    """The runs whose judges a watchdog had to kill (an actor: workers tell it, the driver asks)."""

    def __init__(self) -> None:
        self.hung: list[str] = []

    def add(self, run_id: str) -> None:
        self.hung.append(run_id)

    def get(self) -> list[str]:
        return list(self.hung)


class RayEngine:
    """``judge_runs(..., engine=RayEngine(cluster))``: partitions judged as Ray tasks."""

    def __init__(self, cluster: RayCluster):
        self.cluster = cluster

    def judge(
        self,
        parts: list[Any],
        ctx: Any,
        parent: Any,
        progress: Callable[[int, int], None] | None = None,
    ) -> dict[str, tuple[Rows, dict[str, str]]]:
        """Rows and versions per partition (keyed by its first run), as judge_on_workers gives.

        A worker killed by its watchdog fails its task: the run it was on gets an error verdict,
        and the partitions not yet done are judged again without that run.
        """
        from trajectory.judging.hung import add_hung_verdicts

        ray = import_ray()
        remote = ray.remote(max_retries=0)(_judge_partition)
        tracker = ray.remote(num_cpus=0)(_Tracker).remote()
        ctx_ref = ray.put(ctx)
        total = sum(len(p.runs) for p in parts)
        done: dict[str, tuple[Rows, dict[str, str]]] = {}
        hung: set[str] = set()
        pending = {p.runs[0]: p for p in parts}
        judged = 0
        try:
            while pending:
                refs = {}
                for key, part in pending.items():
                    todo = dataclasses.replace(part, runs=tuple(r for r in part.runs if r not in hung))
                    if todo.runs:
                        refs[remote.remote(ctx_ref, todo, tracker)] = key
                    else:
                        done[key] = ([], {})
                for key in [k for k in pending if k in done]:
                    pending.pop(key)
                crashed = False
                waiting = list(refs)
                while waiting:
                    ready, waiting = ray.wait(waiting, num_returns=1)
                    key = refs[ready[0]]
                    try:
                        rows, versions, spent = ray.get(ready[0])
                    except ray.exceptions.WorkerCrashedError:
                        crashed = True
                        continue
                    except ray.exceptions.RayTaskError as exc:
                        cause = exc.cause if hasattr(exc, "cause") else None
                        if isinstance(cause, TrajError):
                            raise cause from None
                        raise
                    done[key] = (rows, versions)
                    pending.pop(key)
                    judged += len(rows)
                    if progress is not None:
                        progress(judged, total)
                    for stage, seconds in spent.items():
                        if parent.hook is not None:
                            parent.hook(stage, seconds)
                if crashed:
                    new = set(ray.get(tracker.get.remote())) - hung
                    if not new:
                        raise StoreError("a Ray worker died without its watchdog saying why")
                    hung |= new
        finally:
            ray.kill(tracker)
        add_hung_verdicts(done, parts, hung, ctx, parent.resolver, parent.version_of)
        return done


# -- ingest ------------------------------------------------------------------------------------


def _validate(data: bytes, source: str, limits: Any) -> Any:
    """A file's lines decoded and validated on a worker: its parsed events (packed, see
    :func:`_unpack`), or the refusal."""
    import msgspec

    from trajectory.ingest.plain import parse
    from trajectory.runtime.collector import paused

    try:
        with paused():
            parsed = parse(data, source, limits)
    except TrajError as exc:
        return exc
    # MessagePack of the decoded events, not a pickle of them: pickling a million small
    # structs costs twice what decoding their JSON did; MessagePack is read back typed, in C.
    events = msgspec.msgpack.encode([p.event for p in parsed])
    return [p.line for p in parsed], events, [p.data for p in parsed], [p.hash for p in parsed]


def _unpack(packed: Any) -> Any:
    """The worker's parsed events, as :func:`trajectory.ingest.plain.parse` would have returned them."""
    import msgspec

    from trajectory import events as ev
    from trajectory.ingest.plain import Parsed
    from trajectory.runtime.collector import paused

    lines, events, datas, hashes = packed
    with paused():
        decoded = msgspec.msgpack.Decoder(list[ev.DECODER.type]).decode(events)  # type: ignore[name-defined]
        return [Parsed(n, e, d, h) for n, e, d, h in zip(lines, decoded, datas, hashes)]


def ingest_files_ray(
    store: Any,
    names: Sequence[str],
    limits: Any,
    split_of: Any = None,
    in_flight: int | None = None,
    trust_judgements: bool = False,
) -> Iterator[tuple[str, Any]]:
    """:func:`trajectory.ingest.files.ingest_files` with each file's lines validated on the cluster
    (the line rules) and its batch decided and committed here (the batch rules, the one pipeline).

    Files are read here (the workers need not see this machine's disk) and sent a few at a
    time; batches are committed here, in the order given, as they come back validated
    (``trust_judgements`` as there, also here).
    """
    from trajectory.ingest.batchplan import ingest_events

    ray = import_ray()
    remote = ray.remote(max_retries=0)(_validate)
    window = in_flight or 2 * RayCluster.cpus()
    queue: list[tuple[str, str, Any, bytes]] = []  # (name, source, ref or error, the file's bytes)
    names = list(names)
    i = 0
    while i < len(names) or queue:
        while i < len(names) and len(queue) < window:
            name = names[i]
            i += 1
            path = Path(name)
            if name != "-" and not path.is_file():
                queue.append((name, name, SchemaError(f"{name}: no such file"), b""))
                continue
            data, source = (sys.stdin.buffer.read(), "<stdin>") if name == "-" else (path.read_bytes(), name)
            queue.append((name, source, remote.remote(data, source, limits), data if trust_judgements else b""))
        name, source, ref, data = queue.pop(0)
        if isinstance(ref, TrajError):
            yield name, ref
            continue
        packed = ray.get(ref)
        if isinstance(packed, TrajError):
            yield name, packed
            continue
        parsed = _unpack(packed)
        try:
            report = ingest_events(store, parsed, source, limits, split_of)
            if trust_judgements:
                from trajectory.judging.trust import trust_file_judgements

                report.trusted = trust_file_judgements(store, data, source, limits)
            yield name, report
        except TrajError as exc:
            yield name, exc
