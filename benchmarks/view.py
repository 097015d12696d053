"""``python -m benchmarks.view (--store PATH | --runs N --workdir DIR) [--repeat K]``: how fast
``traj view`` answers on a large store.

Starts ``traj view`` as a person would (a fresh process on 127.0.0.1), times its start-up (the
process start to the first answered request), then the time to first byte of each page and of
its JSON twin: the first request (cold) and the median of ``repeat`` more. The pages are the
ones a person opens: the overview, the run list (first page, a filtered page, a deep page), a
failing run, that run at a middle step, the passes, the diff of the two latest passes, a query.

``--long-run EVENTS`` measures one long run instead: its page and JSON twin at the end and in
the middle and the slider's panel (cold and warm), and the static copy of a ``--static-events``
run (seconds, and bytes of its page).

With ``--runs N`` it first builds a store the way the main benchmark does (the same corpus,
ingested in chunks), then judges it twice as ``traj demo`` does: with the demo's broken rules,
then with the bundled suites, so that the diff page has flips to show.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path
from typing import Any

from trajectory.store.delta import Store

QUERY = "SELECT suite, task, count(*) AS runs FROM verdicts GROUP BY ALL ORDER BY ALL"


def _log(msg: str) -> None:
    print(f"[bench view {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def build_store(root: Path, runs: int, events_per_run: int = 100, workers: int = 2) -> Store:
    """The benchmark's corpus in a store under ``root``, judged as ``traj demo`` judges: with
    copies of the bundled suites that carry the demo's broken rules, then with the bundled
    suites (the fix is the latest pass, so the diff page has flips to show)."""
    from trajectory.demo import broken_suites
    from trajectory.judging import SuiteResolver, judge_runs

    from . import harness

    cfg = harness.Config(runs=runs, events_per_run=events_per_run, per_run_runs=0, chunk_runs=10_000)
    c = harness.build_corpus(cfg, root)
    store = Store(root / "store")
    harness.ingest(store, c.chunks)
    for path in c.chunks:
        path.unlink()
    with tempfile.TemporaryDirectory(prefix="traj-bench-broken-") as tmp:
        broken, _ = broken_suites(["gui", "device", "selfevo"], Path(tmp), out=lambda *_: None)
        _log("judge: the demo's broken rules")
        judge_runs(store, SuiteResolver(store, overrides=broken), workers=workers,
                   command="benchmarks.view (broken rules)")
    _log("judge: bundled suites")
    judge_runs(store, SuiteResolver(store), workers=workers, command="benchmarks.view (bundled suites)")
    return store


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def first_byte(port: int, path: str, timeout: float = 60.0) -> tuple[float, float, int, int]:
    """(seconds to the first byte of the answer, seconds to its end, status, bytes) of one GET."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        request = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode()
        t = time.perf_counter()
        sock.sendall(request)
        chunk = sock.recv(65536)
        ttfb = time.perf_counter() - t
        data = bytearray(chunk)
        while chunk:
            chunk = sock.recv(65536)
            data += chunk
        total = time.perf_counter() - t
    status = int(data.split(b" ", 2)[1]) if data.startswith(b"HTTP/") else 0
    return ttfb, total, status, len(data)


def _get_json(port: int, path: str) -> Any:
    with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
        data = bytearray()
        while chunk := sock.recv(65536):
            data += chunk
    head, _, body = bytes(data).partition(b"\r\n\r\n")
    if b"chunked" in head.lower():
        out, rest = bytearray(), body
        while rest:
            size, _, rest = rest.partition(b"\r\n")
            n = int(size, 16)
            if n == 0:
                break
            out += rest[:n]
            rest = rest[n + 2:]
        body = bytes(out)
    return json.loads(body)


def start(store: Path, port: int) -> tuple[subprocess.Popen[bytes], float]:
    """``traj view`` on ``store`` and the seconds until it answered its first request."""
    exe = shutil.which("traj", path=os.path.dirname(sys.executable)) or "traj"
    t = time.perf_counter()
    proc = subprocess.Popen([exe, "view", "--store", str(store), "--port", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = t + 60
    while time.perf_counter() < deadline:
        if proc.poll() is not None:
            why = proc.stderr.read().decode()[-500:] if proc.stderr else ""
            stop(proc)
            raise RuntimeError(f"traj view exited: {why}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                pass
        except OSError:
            time.sleep(0.01)
            continue
        first_byte(port, "/api/health")
        return proc, time.perf_counter() - t
    stop(proc)
    raise RuntimeError("traj view did not answer within 60 s")


def pages(port: int) -> dict[str, str]:
    """The pages to time, with real ids from the store (asked through the app's own JSON)."""
    q = urllib.parse.quote
    home = _get_json(port, "/api/")
    listing = _get_json(port, "/api/runs?outcome=fail&per_page=1")
    failing = listing["runs"][0] if listing["runs"] else _get_json(port, "/api/runs?per_page=1")["runs"][0]
    run_id, last = failing["run_id"], int(failing.get("last_seq") or 0)
    suite = (home.get("suites") or [{}])[0].get("suite") or ""
    total = int(_get_json(port, "/api/runs?per_page=1")["total"])
    deep = max(1, total // 50 // 2)
    out = {
        "runs": "/runs",
        "runs_filtered": f"/runs?suite={q(suite)}&outcome=fail&q=bench-00",
        "runs_deep_page": f"/runs?page={deep}&sort=tokens&order=desc",
        "run": f"/runs/{q(run_id)}",
        "run_at_step": f"/runs/{q(run_id)}?at={last // 2}",
        "passes": "/passes",
        "diff": "/diff",
        "query": f"/query?sql={q(QUERY)}",
    }
    return out


def measure(store: Path, repeat: int = 3) -> dict[str, Any]:
    """Start-up and time to first byte of every page and its JSON twin on ``store``."""
    port = _free_port()
    proc, startup = start(store, port)
    try:
        out: dict[str, Any] = {"startup_s": round(startup, 3), "repeat": repeat, "pages": {}}
        # The overview is asked first: its cold time is that of the first page a person opens
        # (the views are opened then), before anything has warmed the connection or the memo.
        first = first_byte(port, "/")
        todo = {"overview": "/", **pages(port)}
        for name, path in todo.items():
            for twin, url in (("html", path), ("json", "/api" + path)):
                cold, cold_total, status, size = first if url == "/" else first_byte(port, url)
                warm = [first_byte(port, url) for _ in range(repeat)]
                out["pages"][f"{name} ({twin})"] = {
                    "path": url, "status": status, "bytes": size,
                    "cold_ttfb_s": round(cold, 4), "cold_total_s": round(cold_total, 4),
                    "ttfb_s": round(statistics.median(w[0] for w in warm), 4) if warm else None,
                }
        worst = max(max(p["cold_ttfb_s"], p["ttfb_s"] or 0) for p in out["pages"].values())
        out["worst_ttfb_s"] = round(worst, 4)
        out["all_ok"] = all(p["status"] == 200 for p in out["pages"].values())
        return out
    finally:
        stop(proc)


def long_run_lines(run_id: str, events: int, items: int = 50) -> list[str]:
    """One run of ``events`` events over a world state of ``items`` notes: steps, screens,
    state patches and AnswerSheet values in turn, then run_finished."""
    def ev(seq: int, kind: str, **fields: Any) -> str:
        return json.dumps({"run_id": run_id, "seq": seq, "ts": 1775354400000 + seq, "kind": kind, **fields},
                          ensure_ascii=False)

    state = {"apps": {"notes": {"items": [{"id": k, "text": f"note {k} " + "文" * 100, "v": -1} for k in range(items)]}}}
    out = [ev(0, "run_started", suite="example", task="current_temp", mode="grounded", batch="long", state=state)]
    for seq in range(1, events - 1):
        turn = seq % 4
        out.append(ev(seq, "step_taken", action="tap", args={"x": seq % 1000}) if turn == 0 else
                   ev(seq, "screen_read", text=f"screen {seq}", app="notes") if turn == 1 else
                   ev(seq, "state_changed", patch=[{"op": "replace", "path": f"/apps/notes/items/{seq % items}/v",
                                                    "value": seq}]) if turn == 2 else
                   ev(seq, "sheet_changed", op="set", field=seq % 3, value=f"value at {seq}"))
    out.append(ev(events - 1, "run_finished", outcome="succeeded"))
    return out


def _ingest(store: Store, src: Path) -> None:
    from trajectory.ingest.files import ingest_files

    for _, got in ingest_files(store, [str(src)]):
        if isinstance(got, Exception):
            raise got


def measure_long(root: Path, events: int, static_events: int, repeat: int = 3) -> dict[str, Any]:
    """One run of ``events`` events: start-up, then its page and JSON twin (at the end, in the
    middle, the slider's panel), cold and warm; and the static copy of a ``static_events`` run
    (seconds and bytes of its page)."""
    store = Store(root / "long-store")
    src = root / "long.jsonl"
    src.write_text("\n".join(long_run_lines("long-1", events)) + "\n", encoding="utf-8")
    _ingest(store, src)
    port = _free_port()
    proc, startup = start(root / "long-store", port)
    out: dict[str, Any] = {"events": events, "startup_s": round(startup, 3), "repeat": repeat, "pages": {}}
    try:
        for name, path in (("run", "/runs/long-1"), ("run at middle", f"/runs/long-1?at={events // 2}"),
                           ("slider panel", f"/runs/long-1/state?at={events // 3}")):
            for twin, url in (("html", path), ("json", "/api" + path)):
                if twin == "json" and name == "slider panel":
                    continue
                cold, cold_total, status, size = first_byte(port, url, timeout=600)
                warm = [first_byte(port, url, timeout=600) for _ in range(repeat)]
                out["pages"][f"{name} ({twin})"] = {
                    "path": url, "status": status, "bytes": size, "cold_total_s": round(cold_total, 3),
                    "total_s": round(statistics.median(w[1] for w in warm), 3)}
    finally:
        stop(proc)
    from trajectory.view.static_site import write_static

    small = Store(root / "static-store")
    src.write_text("\n".join(long_run_lines("static-1", static_events)) + "\n", encoding="utf-8")
    _ingest(small, src)
    t = time.perf_counter()
    write_static(small, root / "site")
    out["static"] = {"events": static_events, "seconds": round(time.perf_counter() - t, 2),
                     "run_page_bytes": (root / "site" / "run-static-1.html").stat().st_size}
    return out


def render_long(r: dict[str, Any]) -> str:
    lines = [f"traj view on one run of {r['events']:,} events: start-up {r['startup_s']:.2f} s; "
             f"whole answer, cold / median of {r['repeat']} warm:"]
    for name, p in r["pages"].items():
        flag = "" if p["status"] == 200 else f"  (status {p['status']})"
        lines.append(f"  {name:<22} {p['cold_total_s']:.2f} / {p['total_s']:.2f} s  {p['bytes']:,} bytes  {p['path']}{flag}")
    s = r["static"]
    lines.append(f"  static copy of a {s['events']:,}-event run: {s['seconds']:.1f} s, its page {s['run_page_bytes']:,} bytes")
    return "\n".join(lines)


def stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    if proc.stderr is not None:
        proc.stderr.close()


def render(r: dict[str, Any]) -> str:
    lines = [f"traj view: start-up {r['startup_s']:.2f} s (process start to first answer); "
             f"time to first byte, cold / median of {r['repeat']} warm:"]
    for name, p in r["pages"].items():
        flag = "" if p["status"] == 200 else f"  (status {p['status']})"
        warm = "-" if p["ttfb_s"] is None else f"{p['ttfb_s']:.3f}"
        lines.append(f"  {name:<26} {p['cold_ttfb_s']:.3f} / {warm} s  {p['path']}{flag}")
    lines.append(f"  worst {r['worst_ttfb_s']:.3f} s (target <= 1 s: {'PASS' if r['worst_ttfb_s'] <= 1 else 'MISS'})")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.view", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--store", help="an existing store to measure")
    p.add_argument("--runs", type=int, help="build a store of this many runs first")
    p.add_argument("--events-per-run", type=int, default=100)
    p.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    p.add_argument("--workdir", help="where to build (kept); default a temporary folder, removed")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--out", help="write the results as JSON here")
    p.add_argument("--long-run", type=int, metavar="EVENTS",
                   help="instead: one run of this many events (e.g. 100000): its page, its twin, a static copy")
    p.add_argument("--static-events", type=int, default=4000, help="with --long-run: events of the static copy's run")
    a = p.parse_args(argv)
    if a.long_run:
        with tempfile.TemporaryDirectory(prefix="traj-bench-view-long-") as tmp_long:
            result = measure_long(Path(a.workdir or tmp_long), a.long_run, a.static_events, a.repeat)
        print(render_long(result))
        if a.out:
            Path(a.out).write_text(json.dumps(result, indent=1) + "\n")
        return 0
    if not a.store and not a.runs:
        p.error("give --store PATH, --runs N or --long-run EVENTS")
    tmp = None
    if a.store:
        store = Path(a.store)
    else:
        root = Path(a.workdir) if a.workdir else Path(tmp := tempfile.mkdtemp(prefix="traj-bench-view-"))
        root.mkdir(parents=True, exist_ok=True)
        _log(f"building a store of {a.runs} runs in {root}")
        store = Path(build_store(root, a.runs, a.events_per_run, a.workers).loc.root)
    try:
        result = {"store": str(store), **measure(store, a.repeat)}
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
    print(render(result))
    if a.out:
        Path(a.out).write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())


def view_pages(store: Path) -> dict[str, Any]:
    """``traj view`` on the benchmark's store; a failure to start is reported, not raised, so
    that the other figures survive it."""
    try:
        return {"status": "ok", **measure(store)}
    except (OSError, RuntimeError, LookupError, ValueError) as exc:
        return {"status": f"failed: {type(exc).__name__}: {exc}"}
