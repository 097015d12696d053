"""Everything ``traj view`` reads from a store, and the only part of the viewer that touches
traj's internals (the store, the query views and their sandbox, the event declaration, the
replay, the diff's check comparison, the report's override rule and share redaction, the
holdout log). The pages and templates get plain dicts and lists. Two neighbours belong to it:
:mod:`.runs_sql` (the run list's SQL, derived from the event declaration) and
:mod:`.values` (plain values).

Why one layer: when the shell is reorganised, re-pointing the viewer is a change here and
nowhere else.

Why not simply ``SELECT ... FROM runs``: that view aggregates every event of the pool, a few
seconds on 100,000 runs. A page must answer in well under a second there, so each query below
reads only the rows it shows: the run list reads a run index (the ``runs`` view joined with the
current verdicts, built once per store state) or, until it is built, the ``run_started`` and
``run_finished`` events and the ``runs`` row of the page's runs only; a run's events are read by
its id; a diff is counted in SQL and only the flips on the page are compared check by check.

One DuckDB connection (the sandboxed ``Views`` of ``traj query``) serves every page, under a
lock; it is reopened when a table of the store gets a new commit, so a judging pass made while
the viewer runs shows on the next page load. A person's SQL never runs on it: it goes through
``traj query``'s own entry point and limits, on a connection of its own.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from trajectory.errors import NotFound, QueryError, TrajError
from trajectory.query.names import near_line
from trajectory.query.limits import QueryLimits
from trajectory.store.delta import Store, default_store_path
from trajectory.text import HINT_OPTIONS, hint
from trajectory.view.fold import Folded, fold, step
from trajectory.view.runs_sql import MORE_EXAMPLES, OVERVIEW_FIGURES, PAGE, RUN_INDEX, SORTS, list_sql, page_figures
from trajectory.view.values import json_or_text as _json
from trajectory.view.values import plain

__all__ = ["Busy", "NotFound", "QueryError", "StoreData", "TrajError", "default_store_path"]

SPLITS = ("tune", "holdout")
VERDICT_OUTCOMES = ("pass", "fail", "error", "skipped", "na", "unjudged")
RUN_OUTCOMES = ("succeeded", "failed", "confirmation", "takeover", "error", "timeout", "cancelled", "open")
# Tables whose new commits make the viewer reopen its views (meta holds only the holdout log).
WATCHED = ("events", "verdicts", "passes", "overrides")
# A run is read CHUNK events at a time; its folded state is kept every CHECKPOINT events
# (a multiple of CHUNK), for the FOLDED_RUNS runs shown last.
CHUNK = 1000
CHECKPOINT = 5000
FOLDED_RUNS = 4
# What a static copy's step panel does not show of a state (see replay_steps).
STEP_UNSHOWN = ("initial_state", "screens", "actions")
# A person's queries that may run at once (each within the memory limit); one more is refused.
QUERIES_AT_ONCE = 2
IMAGE_TYPES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".webp": "image/webp",
               ".gif": "image/gif"}


class Busy(QueryError):
    """As many queries as may run at once are running (a 503: try again)."""


class StoreData:
    """A store as the viewer sees it: one pool (tune or holdout), read through sandboxed views."""

    def __init__(self, path: str | Store, split: str = "tune", *, background_index: bool = True,
                 limits: QueryLimits | None = None):
        if split not in SPLITS:
            raise QueryError(f"--split must be one of {', '.join(SPLITS)}, got {split!r}")
        # A Store as the CLI opened it (with its --storage-option values), or a path.
        self.store = path if isinstance(path, Store) else Store(path)
        self.hint_options = HINT_OPTIONS.get()  # its hints' store: pages are answered in other threads
        # A person's queries run within the limits of `traj query` (its defaults unless given).
        self.limits = limits or QueryLimits()
        self._looked = False
        self._running = threading.BoundedSemaphore(QUERIES_AT_ONCE)
        if not self.store.exists:
            raise NotFound(f"{self.store.loc}: no store here (run `{self.hint('traj demo')}` first)")
        self.split = split
        self.path = str(self.store.loc)
        self._lock = threading.RLock()
        self._views: Any = None
        self._mark: tuple[int, ...] | None = None
        self._indexed: tuple[int, ...] | None = None  # the store state the run index is of
        self._depth = 0
        self._sync = False
        self.background_index = background_index
        self.memo: dict[str, Any] = {}

    def hint(self, command: str) -> str:  # carrying the store this viewer reads
        return hint(command, options=self.hint_options)

    # -- the connection ---------------------------------------------------------------------
    def _fingerprint(self) -> tuple[int, ...]:
        """What changes when a watched table gets a commit: on a local store the time of its
        commit log folder (a stat per table, cheap enough for every page), elsewhere its
        version (the backend contract's way, one log read per table)."""
        from trajectory.store.local import LocalBackend

        backend = self.store.backend
        out = []
        for name in WATCHED:
            if isinstance(backend, LocalBackend):
                try:
                    out.append(backend.path(name, "_delta_log").stat().st_mtime_ns)
                except OSError:
                    out.append(0)
            else:
                version = self.store.version(name)
                out.append(-1 if version is None else version)
        return tuple(out)

    @contextlib.contextmanager
    def con(self) -> Iterator[Any]:
        """The views' DuckDB connection, fresh as of the store's latest commits, held alone."""
        from trajectory.query.sql import Views

        with self._lock:
            # Only the outermost holder looks for new commits: a page's queries all see one state.
            mark = self._fingerprint() if self._depth == 0 else self._mark
            if self._views is None or mark != self._mark:
                if self._views is not None:
                    self._views.close()
                self._views = Views(self.store, split=self.split, threads=2)
                self._mark = mark
                self.memo = {}
                if self.background_index and not self._sync:
                    threading.Thread(target=self.build_index, args=(mark,), daemon=True, name="traj-view-index").start()
            self._depth += 1
            try:
                yield self._views.con
            finally:
                self._depth -= 1

    def build_index(self, mark: tuple[int, ...] | None = None) -> bool:
        """Build the run index for the store state ``mark`` (the current one by default) and
        hand it to the views; False when the store changed meanwhile or it could not be built
        (the pages then keep reading the events directly)."""
        from trajectory.query.sql import Views

        if mark is None:
            self._sync = True  # built here, not on a thread as well
            try:
                with self.con():
                    mark = self._mark
            finally:
                self._sync = False
        # On a thread of its own, one DuckDB thread: the pages keep the other core.
        threads = 2 if threading.current_thread() is threading.main_thread() else 1
        try:
            with Views(self.store, split=self.split, threads=threads) as views:
                table = views.con.sql(RUN_INDEX).to_arrow_table()
        except Exception:  # noqa: BLE001 - e.g. files compacted away meanwhile; the index is only a shortcut
            return False
        with self._lock:
            if mark != self._mark or self._views is None:
                return False
            self._views.con.register("_view_runs", table)
            self._indexed = mark
            return True

    def index_ready(self) -> bool:
        """Whether the run index is of the store state the views show."""
        with self._lock:
            return self._views is not None and self._indexed == self._mark

    def close(self) -> None:
        with self._lock:
            if self._views is not None:
                self._views.close()
                self._views = None

    def rows(self, sql: str, params: Any = None) -> list[dict[str, Any]]:
        """Trusted SQL (the viewer's own) on the views; rows as dicts of plain values."""
        with self.con() as con:
            table = con.sql(sql, params=params or None).to_arrow_table()
        return [{k: plain(v) for k, v in r.items()} for r in table.to_pylist()]

    def cached(self, key: str, fn: Any) -> Any:
        """``fn()`` once per state of the store (the memo is dropped when the views reopen)."""
        with self.con():
            if key not in self.memo:
                self.memo[key] = fn()
            return self.memo[key]

    # -- the overview --------------------------------------------------------------------------
    def overview(self) -> dict[str, Any]:
        def build() -> dict[str, Any]:
            # Runs per suite, cost per batch and the event count, from the runs view: through the
            # run index when it is there (else the view aggregates the pool's events once).
            source = "_view_runs" if self.index_ready() else "runs"
            sums = ", ".join(f"sum({k}) AS {k}" for k in OVERVIEW_FIGURES)
            groups = self.rows(f"SELECT suite, batch, sum(events) AS events, count(*) AS runs, {sums} FROM {source} "
                               "GROUP BY suite, batch")
            suites: dict[str, int] = {}
            batches: dict[str | None, dict[str, Any]] = {}
            for g in groups:
                suites[g["suite"]] = suites.get(g["suite"], 0) + g["runs"]
                b = batches.setdefault(g["batch"], {"batch": g["batch"]})
                for k in ("runs", *OVERVIEW_FIGURES):
                    b[k] = b.get(k, 0) + g[k]
            tasks = self.rows(
                "SELECT suite, task, count(*) AS judged, count(*) FILTER (WHERE outcome = 'pass') AS pass, "
                "count(*) FILTER (WHERE outcome = 'fail') AS fail, "
                "count(*) FILTER (WHERE outcome NOT IN ('pass', 'fail')) AS other "
                "FROM verdicts GROUP BY ALL ORDER BY ALL")
            series = self.rows(
                "SELECT p.pass_id, p.kind, p.started_at, count(h.run_id) AS runs, "
                "count(*) FILTER (WHERE h.outcome = 'pass') AS pass, count(*) FILTER (WHERE h.outcome = 'fail') AS fail "
                "FROM passes p JOIN verdict_history h USING (pass_id) GROUP BY ALL ORDER BY p.started_at, p.pass_id")
            counts = self.rows("SELECT (SELECT count(*) FROM passes) AS passes, "
                               "(SELECT count(*) FROM overrides) AS overrides")[0]
            counts["events"] = sum(g["events"] for g in groups)
            return {"suites": [{"suite": k, "runs": suites[k]} for k in sorted(suites, key=lambda k: k or "")],
                    "tasks": tasks, "pass_series": series, "counts": counts,
                    "batches": [batches[k] for k in sorted(batches, key=lambda k: (k is not None, k or ""))],
                    "holdout_views": len(self.holdout_log())}

        return self.cached("overview", build)

    def holdout_log(self) -> list[dict[str, Any]]:
        from trajectory.query.sql import holdout_views

        return [{k: plain(v) for k, v in r.items()} for r in holdout_views(self.store)]

    def record_look(self, command: str, detail: dict[str, Any]) -> None:
        """A look at the holdout pool is recorded, as ``traj query --split holdout`` records
        it, once for this viewer: at its start (``traj view``), else at its first query.

        Not at every request: any web page the person visits can make their browser send GETs
        to 127.0.0.1, and a write per GET would let it fill the audit log."""
        if self.split != "holdout":
            return
        with self._lock:
            if self._looked:
                return
            from trajectory.query.sql import record_holdout_view

            record_holdout_view(self.store, command, detail)
            self._looked = True

    # -- the run list --------------------------------------------------------------------------
    def filter_options(self) -> dict[str, list[str]]:
        def build() -> dict[str, list[str]]:
            rows = self.rows("SELECT DISTINCT suite, task, batch FROM events WHERE kind = 'run_started' "
                             "AND coalesce(split, 'tune') = $split", {"split": self.split})
            return {k: sorted({r[k] for r in rows if r[k] is not None}) for k in ("suite", "task", "batch")}

        return self.cached("filters", build)

    def run_list(self, filters: dict[str, str], sort: str, desc: bool, page: int, per_page: int,
                 use_index: bool = True) -> dict[str, Any]:
        if sort not in SORTS:
            raise QueryError(f"sort must be one of {', '.join(SORTS)}, got {sort!r}")
        params: dict[str, Any] = {"limit": per_page, "offset": (page - 1) * per_page}
        where = ["TRUE"]
        for key in ("suite", "task", "batch", "agent", "outcome", "ran"):
            if filters.get(key):
                column = {"outcome": "verdict", "ran": "run_outcome"}.get(key, key)
                where.append(f"r.{column} = ${key}")
                params[key] = filters[key]
        if filters.get("q"):
            where.append("(contains(lower(r.run_id), $q) OR contains(lower(coalesce(r.task, '')), $q) "
                         "OR contains(lower(coalesce(r.batch, '')), $q) OR contains(lower(coalesce(r.agent, '')), $q))")
            params["q"] = filters["q"].lower()
        direction = "DESC" if desc else "ASC"
        order = f"{SORTS[sort]} {direction} NULLS LAST, r.run_id {direction}"
        with self.con():  # one store state for the whole page
            return self._run_page(sort, order, " AND ".join(where), params, use_index and self.index_ready())

    def _run_page(self, sort: str, order: str, where: str, params: dict[str, Any], indexed: bool) -> dict[str, Any]:
        if indexed:
            source = "SELECT * FROM _view_runs"
        else:
            params["split"] = self.split
            source = list_sql(sort)
        sql = PAGE.format(rows=source, where=where, order=order)
        rows = self.rows(sql, params)
        total = rows[0]["total"] if rows else self._count(sql, params)
        if rows and not indexed:
            # The runs view's row of the page's runs only: the figures, under the index's names.
            figures = {r["run_id"]: r for r in self.rows(page_figures(), {"ids": [r["run_id"] for r in rows]})}
            for r in rows:
                r.update({k: v for k, v in figures.get(r["run_id"], {}).items() if k not in r})
        for r in rows:
            r.pop("total", None)
        return {"runs": rows, "total": total, "indexed": indexed}

    def _count(self, sql: str, params: dict[str, Any]) -> int:
        """The number of rows a filtered list has (asked only when the page is past its end)."""
        inner = sql.rsplit(" ORDER BY ", 1)[0]
        got = self.rows(f"SELECT count(*) AS n FROM ({inner})", {k: v for k, v in params.items()
                                                                  if k not in ("limit", "offset")})
        return int(got[0]["n"])

    # -- one run -------------------------------------------------------------------------------
    def _run_head(self, run_id: str) -> dict[str, Any]:
        rows = self.rows("SELECT max(seq) AS last_seq, count(*) AS events FROM events WHERE run_id = $run_id "
                         "HAVING count(*) > 0", {"run_id": run_id})
        mine = [{"split": self.split, **r} for r in rows]
        if not mine:
            # ``events`` holds this pool's runs only; the viewer's own SQL may say which pool has it.
            other = self.rows("SELECT split FROM _run_split WHERE run_id = $run_id", {"run_id": run_id})
            if other:
                other = other[0]["split"]
                raise NotFound(f"run {run_id} is in the {other} pool; this viewer shows the {self.split} pool "
                               f"(start it with --split {other} to see it)")
            raise NotFound(near_line("run", [run_id], [r["run_id"] for r in self.rows("SELECT DISTINCT run_id FROM events")]))
        return mine[0]

    def run_events(self, run_id: str, lo: int, hi: int) -> list[dict[str, Any]]:
        """The run's events with lo <= seq <= hi, as the spec's JSON objects."""
        return [json.loads(text) for text in self._event_texts(run_id, lo, hi)]

    def _event_texts(self, run_id: str, lo: int, hi: int) -> list[str]:
        """The run's events lo..hi as stored (JSON text). Read from all pools, without the
        pool's filter (a scan per read): every caller has checked the run is in this pool
        (``_run_head``) or took its id from the pool."""
        with self.con() as con:
            got = con.execute("SELECT data FROM _events_pooled WHERE run_id = $run_id AND seq BETWEEN $lo AND $hi "
                              "ORDER BY seq", {"run_id": run_id, "lo": lo, "hi": hi}).fetchall()
        return [r[0] for r in got]

    def _chunks(self, run_id: str, lo: int, hi: int, newest_first: bool = False) -> Iterator[list[dict[str, Any]]]:
        """The run's events lo..hi as JSON objects, CHUNK at a time (seq order within a chunk)."""
        starts = range(lo - lo % CHUNK, hi + 1, CHUNK)
        for a in reversed(starts) if newest_first else starts:
            yield self.run_events(run_id, max(a, lo), min(hi, a + CHUNK - 1))

    def _decoded(self, run_id: str, lo: int, hi: int) -> Iterator[list[Any]]:
        from trajectory import events as ev

        starts = range(lo - lo % CHUNK, hi + 1, CHUNK)
        for a in starts:
            yield [ev.DECODER.decode(text) for text in self._event_texts(run_id, max(a, lo), min(hi, a + CHUNK - 1))]

    def folded(self, run_id: str, upto: int) -> Folded | None:
        """The state after events 0..upto (None before seq 0), folded in chunks from the latest
        checkpoint kept for the run (one every CHECKPOINT events, for the last few runs)."""
        if upto < 0:
            return None
        with self.con():
            folds = self.memo.setdefault("folds", {})
            marks = folds.pop(run_id, {})
            folds[run_id] = marks  # the latest run last
            while len(folds) > FOLDED_RUNS:
                folds.pop(next(iter(folds)))
        base = max((s for s in marks if s <= upto), default=-1)
        got = marks.get(base)
        lo = base + 1
        while lo <= upto:
            hi = min(upto, lo + CHUNK - 1 - lo % CHUNK)
            got = fold(self._decoded(run_id, lo, hi), got)
            if got is None:
                raise NotFound(f"no such run: {run_id}")
            if (hi + 1) % CHECKPOINT == 0:
                marks[hi] = got
            lo = hi + 1
        return got

    def replayed(self, run_id: str, at: int) -> tuple[dict[str, Any], dict[str, Any] | None, list[dict[str, Any]]]:
        """The replayed state after events 0..at and after 0..at-1 (None at seq 0), in the shape
        ``traj show --json`` prints (a long run's lists shortened to their latest items, see
        fold.py), and the latest screens seen up to ``at`` (seq, text, image)."""
        from trajectory import events as ev

        got = self._event_texts(run_id, at, at)
        if not got:
            raise NotFound(f"no such run: {run_id}")
        before = self.folded(run_id, at - 1)
        event = ev.DECODER.decode(got[0])
        after = step(before, event) if before is not None else fold([[event]])
        assert after is not None
        screens = [{"seq": s.seq, "text": s.text, "app": s.app, "image": s.image} for s in after.state.screens]
        return plain(after.view()), None if before is None else plain(before.view()), screens

    def replay_steps(self, run_id: str) -> Iterator[tuple[dict[str, Any], dict[str, Any] | None, list[dict[str, Any]]]]:
        """:meth:`replayed` at every seq of the run, in one fold (for a static copy: its states
        leave out what a step's panel does not show, the initial state and the lists of screens
        and actions, which would be copied at every step)."""
        head = self._run_head(run_id)
        before: Folded | None = None
        before_view = None
        for chunk in self._decoded(run_id, 0, head["last_seq"]):
            for e in chunk:
                now = step(before, e) if before is not None else fold([[e]])
                assert now is not None
                screens = [{"seq": s.seq, "text": s.text, "app": s.app, "image": s.image} for s in now.state.screens]
                now_view = plain({k: v for k, v in now.view().items() if k not in STEP_UNSHOWN})
                yield now_view, before_view, screens
                before, before_view = now, now_view
            if before is not None:
                before = before.trimmed()

    def evidence(self, run_id: str, last_seq: int, checks: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Each check's evidence event (changes.evidence), the run read from its end in chunks."""
        from trajectory.view.changes import find_evidence

        newest_first = (e for chunk in self._chunks(run_id, 0, last_seq, newest_first=True) for e in reversed(chunk))
        return find_evidence(newest_first, checks)

    def run_verdicts(self, run_id: str) -> dict[str, Any]:
        """The run's verdict history (oldest first), its current verdict with its checks, its
        overrides, and the verdict a person sees once overrides are applied."""
        from trajectory.reports.report import effective

        history = self.rows(
            "SELECT pass_id, pass_kind, outcome, score, reason, judge_version, judged_at, checks, details "
            "FROM verdict_history WHERE run_id = $run_id ORDER BY judged_at, pass_id", {"run_id": run_id})
        for h in history:
            h["checks"] = [{**c, "expected": _json(c["expected"]), "actual": _json(c["actual"])}
                           for c in h["checks"] or []]
            h["details"] = _json(h["details"])
        overrides = self.rows("SELECT * FROM overrides WHERE run_id = $run_id ORDER BY \"at\"", {"run_id": run_id})
        current = history[-1] if history else None
        shown = None
        if current is not None:
            outcome, override, settled = effective({**current, "run_id": run_id}, overrides)
            shown = {"outcome": outcome, "overridden": override is not None, "settled": settled}
        return {"history": history, "current": current, "overrides": overrides, "shown": shown}

    def run(self, run_id: str) -> dict[str, Any]:
        from trajectory import events as ev

        head = self._run_head(run_id)
        start = self.run_events(run_id, 0, 0)[0]
        # The mode a run_started leaves out reads as the declaration's default.
        start["mode"] = ev.value(ev.DECODER.decode(json.dumps(start)), "mode")
        finish = self.run_events(run_id, head["last_seq"], head["last_seq"])[0]
        return {"run_id": run_id, "split": head["split"], "last_seq": head["last_seq"], "events": head["events"],
                "start": start, "finish": finish if finish.get("kind") == "run_finished" else None,
                **self.run_verdicts(run_id)}

    def events_of(self, run_ids: list[str]) -> dict[str, list[dict[str, Any]]]:
        """The events of a few runs (a page of flips), as JSON objects in seq order."""
        out: dict[str, list[dict[str, Any]]] = {r: [] for r in run_ids}
        if not run_ids:
            return out
        for r in self.rows("SELECT run_id, data FROM events WHERE run_id IN (SELECT unnest($ids)) "
                           "ORDER BY run_id, seq", {"ids": run_ids}):
            out[r["run_id"]].append(json.loads(r["data"]))
        return out

    # -- images ------------------------------------------------------------------------------
    def image_roots(self, run_id: str) -> list[Path]:
        """Where a run's image references are looked up: the folder it was imported from (the
        imported pass records it), then the store's own folder and its images/ folder."""
        roots = []
        for r in self.rows("SELECT DISTINCT p.filters FROM verdict_history h JOIN passes p USING (pass_id) "
                           "WHERE h.run_id = $run_id AND p.kind = 'imported'", {"run_id": run_id}):
            folder = (_json(r["filters"]) or {}).get("folder") if isinstance(_json(r["filters"]), dict) else None
            if folder:
                roots.append(Path(folder))
        root = Path(self.path)
        return roots + [root, root / "images"]

    def image_file(self, run_id: str, seq: int) -> tuple[str | None, Path | None]:
        """(the image reference of the screen read at ``seq``, its file or None when missing).

        Only files inside one of the run's image folders, with an image suffix, are served."""
        self._run_head(run_id)
        events = self.run_events(run_id, seq, seq)
        if not events or events[0].get("kind") != "screen_read":
            raise NotFound(f"run {run_id} has no screen read at seq {seq}")
        ref = events[0].get("image")
        if not ref:
            return None, None
        for root in self.image_roots(run_id):
            try:
                base = root.resolve()
                path = (base / ref).resolve()
            except (OSError, ValueError):
                continue
            if path.suffix.lower() in IMAGE_TYPES and path.is_relative_to(base) and path.is_file():
                return ref, path
        return ref, None

    # -- passes and diffs ----------------------------------------------------------------------
    def passes(self, page: int, per_page: int) -> dict[str, Any]:
        total = self.rows("SELECT count(*) AS n FROM passes")[0]["n"]
        rows = self.rows(
            "SELECT *, lag(pass_id) OVER (ORDER BY started_at, pass_id) AS previous FROM passes "
            "ORDER BY started_at DESC, pass_id DESC LIMIT $limit OFFSET $offset",
            {"limit": per_page, "offset": (page - 1) * per_page})
        ids = [r["pass_id"] for r in rows]
        counts = self.rows("SELECT pass_id, suite, outcome, count(*) AS n FROM verdict_history "
                           "WHERE pass_id IN (SELECT unnest($ids)) GROUP BY ALL", {"ids": ids})
        for r in rows:
            mine = [c for c in counts if c["pass_id"] == r["pass_id"]]
            r["outcomes"] = {o: sum(c["n"] for c in mine if c["outcome"] == o) for o in sorted({c["outcome"] for c in mine})}
            r["suites"] = sorted({c["suite"] for c in mine if c["suite"]})
            r["in_pool"] = sum(c["n"] for c in mine)
            r["versions"] = _json(r["versions"])
            r["filters"] = _json(r["filters"])
        return {"passes": rows, "total": total}

    def pass_ids(self) -> list[str]:
        return [r["pass_id"] for r in self.rows("SELECT pass_id FROM passes ORDER BY started_at, pass_id")]

    def default_pair(self) -> tuple[str, str]:
        """The latest pass with verdicts in this pool and the latest earlier pass that judged
        some of the same runs (what ``traj diff`` compares without arguments)."""
        latest = self.rows("SELECT p.pass_id, p.started_at FROM passes p WHERE EXISTS (SELECT 1 FROM "
                           "verdict_history h WHERE h.pass_id = p.pass_id) ORDER BY started_at DESC, pass_id DESC LIMIT 1")
        if not latest:
            raise NotFound(f"need two judging passes to diff; run `{self.hint('traj judge')}` again after a change")
        b = latest[0]["pass_id"]
        earlier = self.rows(
            "SELECT p.pass_id FROM passes p WHERE p.pass_id <> $b AND (p.started_at, p.pass_id) < "
            "(SELECT (started_at, pass_id) FROM passes WHERE pass_id = $b) AND EXISTS (SELECT 1 FROM "
            "verdict_history h JOIN verdict_history hb ON hb.run_id = h.run_id AND hb.pass_id = $b "
            "WHERE h.pass_id = p.pass_id) ORDER BY p.started_at DESC, p.pass_id DESC LIMIT 1", {"b": b})
        if not earlier:
            raise NotFound(f"need two judging passes over the same runs to diff; no earlier pass judged a run of {b}")
        return earlier[0]["pass_id"], b

    def diff(self, a: str, b: str, page: int, per_page: int) -> dict[str, Any]:
        """Counts of the flips between passes a and b, and the flips of one page compared check
        by check (the comparison ``traj diff`` makes)."""
        from trajectory.judging.diff import compare

        known = set(self.pass_ids())
        for p in (a, b):
            if p not in known:
                raise NotFound(near_line("pass", [p], known))
        pair = {"a": a, "b": b}
        # The figures as `traj diff A B --split POOL` counts them: the same compare(), this pool.
        light = self.rows("SELECT pass_id, run_id, suite, task, outcome, score, reason FROM verdict_history "
                          "WHERE pass_id IN ($a, $b)", pair)
        whole = compare({r["run_id"]: r for r in light if r["pass_id"] == a},
                        {r["run_id"]: r for r in light if r["pass_id"] == b}, a, b)
        head, groups = whole.figures(), whole.groups()
        ids = [f.run_id for f in whole.flips][(page - 1) * per_page:page * per_page]
        full = self.rows("SELECT * FROM verdict_history WHERE pass_id IN ($a, $b) AND run_id IN (SELECT unnest($ids))",
                         {**pair, "ids": ids})
        # What each side was (the demo's first pass is its broken rules; its note says so).
        about = {r["pass_id"]: r for r in self.rows(
            "SELECT pass_id, kind, started_at, command, note FROM passes WHERE pass_id IN ($a, $b)", pair)}
        rows_a = {r["run_id"]: r for r in full if r["pass_id"] == a}
        rows_b = {r["run_id"]: r for r in full if r["pass_id"] == b}
        flips = compare(rows_a, rows_b, a, b).flips
        return {
            "a": a, "b": b, "about_a": about[a], "about_b": about[b], **head, "groups": groups,
            "flips": [{"run_id": f.run_id, "suite": f.suite, "task": f.task, "before": f.before, "after": f.after,
                       "score_before": f.before_score, "score_after": f.after_score,
                       "reason_before": f.before_reason, "reason_after": f.after_reason,
                       "checks": [{"name": c.name, "before": plain(c.before), "after": plain(c.after)}
                                  for c in f.changes]} for f in flips],
        }

    # -- queries -------------------------------------------------------------------------------
    def query(self, sql: str, limit: int) -> dict[str, Any]:
        """A person's SQL, refused or answered exactly as ``traj query`` answers it, within the
        same limits; at most ``limit`` rows come back (``more`` says there were others)."""
        table = self.query_table(sql, "traj view")
        rows = table.slice(0, limit + 1).to_pylist()
        return {"columns": table.column_names, "rows": [[plain(r[c]) for c in table.column_names] for r in rows[:limit]],
                "more": len(rows) > limit}

    def query_table(self, sql: str, via: str) -> Any:
        """The whole result of a person's SQL through ``traj query``'s own entry point (its
        sandbox, its pool walls and its time, row and memory limits), on a connection of its
        own: the pages keep answering meanwhile, and a query a limit stops leaves nothing held.
        At most QUERIES_AT_ONCE run at once; another is refused, not queued."""
        from trajectory.reports.show import run_query

        if not self._running.acquire(blocking=False):
            raise Busy(f"busy: {QUERIES_AT_ONCE} queries are running in this viewer; try again when one ends")
        try:
            # A holdout look is this viewer's one look (see record_look), recorded before the
            # query runs: its error messages may show holdout values too.
            self.record_look("query", {"sql": sql, "via": via})
            return run_query(self.store, sql, split=self.split, limits=self.limits, record=False)
        finally:
            self._running.release()

    def examples(self) -> list[tuple[str, str]]:
        """The demo's example queries, and a few more a person asks first."""
        from trajectory.demo import QUERIES

        return list(QUERIES) + list(MORE_EXAMPLES)

    # -- static export -----------------------------------------------------------------------
    def run_ids(self) -> list[str]:
        return [r["run_id"] for r in self.rows(
            "SELECT run_id FROM events WHERE kind = 'run_started' AND coalesce(split, 'tune') = $split "
            "ORDER BY ts, run_id", {"split": self.split})]

    def scrubber(self, answers: list[str], devices: list[str], images: list[str]) -> Any:
        """The report's --share masking (answer texts, device serials, image references and
        absolute paths in any text) for the given secrets."""
        from trajectory.reports.report import Scrubber

        rows = [{"answer": a} for a in answers] + [{"device": d} for d in devices] + [{"images": images}]
        return Scrubber(rows, True)

