"""``traj view --static OUT [--share]``: the viewer's pages written to a folder a person can zip
and send, readable from the file system without a server.

The same templates render with flat relative links: ``index.html``, ``runs.html`` (and
``runs-2.html`` …), one ``run-<id>.html`` per run with the state at every seq inside it (the
slider swaps them in; ``#at=N`` opens one), ``passes.html``, ``diff.html`` (the latest two
passes), ``query.html`` and one ``query-<i>.html`` per example query with its CSV and JSON.
Filters and free SQL need the live app, so the static pages leave them out.

``--share`` writes a different, allow-listed copy instead (share_site.py): ids, outcomes,
scores, figures and check names only.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

from markupsafe import Markup

from trajectory.store.delta import Store
from trajectory.view import pages
from trajectory.view.changes import world_patch
from trajectory.view.data import NotFound, StoreData
from trajectory.view.render import STATIC, StaticLinks, render, run_file

OMITTED = "[answer omitted]"


class Redactor:
    """What ``--share`` removes from one page's content (a no-op without ``--share``)."""

    def __init__(self, data: StoreData, share: bool, events: list[dict[str, Any]] | None = None):
        self.share = share
        answers, devices, images = [], [], []
        for e in events or []:
            kind = e.get("kind")
            if kind == "answer_given":
                answers.append(str(e.get("text") or ""))
            elif kind == "sheet_changed" and e.get("op") == "set":
                values = e["value"] if isinstance(e.get("value"), list) else [e.get("value")]
                # Short numbers ("20") are masked where they are a value, not inside every text.
                answers += [str(v) for v in values if v is not None and (isinstance(v, str) or len(str(v)) >= 4)]
            elif kind == "run_started" and e.get("device"):
                devices.append(str(e["device"]))
            elif kind == "screen_read" and e.get("image"):
                images.append(str(e["image"]))
        self.answers = [a for a in answers if len(a.strip()) >= 2]
        self.scrub = data.scrubber(self.answers, devices, images) if share else None

    def __call__(self, value: Any) -> Any:
        return value if self.scrub is None else self.scrub(value)

    def event(self, e: dict[str, Any]) -> dict[str, Any]:
        if not self.share:
            return e
        e = dict(e)
        if e.get("kind") == "answer_given":
            e["text"] = OMITTED
        if e.get("kind") == "sheet_changed" and "value" in e:
            e["value"] = OMITTED
        if e.get("image"):
            e["image"] = "[image]"
        return e

    def check(self, c: dict[str, Any] | None) -> dict[str, Any] | None:
        if not self.share or c is None:
            return c
        return {**c, "actual": "[omitted]"}

    def state(self, tt: dict[str, Any]) -> dict[str, Any]:
        if not self.share:
            return tt
        tt = dict(tt, event=self.event(tt["event"]), sheet=[{**r, "value": OMITTED} for r in tt["sheet"]])
        tt["state"] = dict(tt["state"], answer=None if tt["state"].get("answer") is None else OMITTED,
                           sheet={**tt["state"]["sheet"], "answers": {k: OMITTED for k in tt["state"]["sheet"]["answers"]}})
        if tt.get("screen") and tt["screen"].get("image"):
            tt["screen"] = dict(tt["screen"], image="[image]", image_found=False)
        tt["changes"] = [dict(c, before=OMITTED, after=OMITTED) if c["path"].startswith(("sheet.answers", "answer"))
                         else c for c in tt["changes"]]
        return tt

    def evidence(self, text: str) -> str:
        if self.share and any(text in a or a in text for a in self.answers):
            return "[quoted from the final answer: omitted]"
        return text


def _write(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")


def _run_page(data: StoreData, run_id: str, links: StaticLinks, out: Path, share: bool) -> None:
    """A run's page with the state at every seq in it, in a size that grows with the events,
    not with events x world state: each step's panel is stored without the world state and the
    screen; each screen read once; the world state as its first value and each step's changes
    (changes.world_patch), which the page's script applies as the slider moves."""
    ctx = pages.run(data, run_id, {})
    last = ctx["last_seq"]
    events = [e for chunk in data._chunks(run_id, 0, last) for e in chunk]
    red = Redactor(data, share, events if share else None)
    steps: list[Markup] = []
    screens: dict[str, Markup] = {}
    world: Any = None
    first: Any = None
    patches: list[list[Any]] = []
    tt: dict[str, Any] = {}
    for seq, (state, before, shown) in enumerate(data.replay_steps(run_id)):
        tt = red.state(pages.time_travel(data, run_id, seq, last, events[seq], state, before, shown))
        screen = tt.get("screen")
        if screen and screen.get("image_found") and not share:
            _copy_image(data, run_id, screen["seq"], links, out)
        ref = "none" if not screen else str(screen["seq"])
        if ref not in screens:
            html = render("_screen.html", links, tt=tt, run_id=run_id)
            screens[ref] = Markup(f'<template data-screen-seq="{ref}">') + Markup(html) + Markup("</template>")
        now = red(tt["state"]["state"])
        if seq == 0:
            first = now
        else:
            ops = world_patch(world, now)
            if ops:
                patches.append([seq, ops])
        world = now
        step_tt = dict(tt, screen_ref=ref, world_ref=True)
        html = render("_state.html", links, tt=step_tt, run_id=run_id)
        steps.append(Markup(f'<template data-seq="{seq}">') + Markup(html) + Markup("</template>"))
    ctx["timeline"] = {"events": [red.event(e) for e in events], "page": 1, "pages": 1, "per_page": len(events)}
    ctx["time_travel"] = tt
    if ctx["verdict"] is not None:
        ctx["verdict"] = dict(ctx["verdict"], checks=[red.check(c) for c in ctx["verdict"]["checks"]])
    ctx["overrides"] = [dict(o, evidence=red.evidence(o["evidence"])) for o in ctx["overrides"]]
    if share:
        ctx["start"] = dict(ctx["start"], device="[device]" if ctx["start"].get("device") else None)
    # JSON inside <script>: no "<" at all, so that no text of the run can close the element.
    world_steps = json.dumps({"initial": first, "patches": patches}, ensure_ascii=False, default=str)
    world_steps = world_steps.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    _write(out / run_file(run_id), render("run.html", links, **red(ctx), static_states=steps,
                                          static_screens=list(screens.values()), world_steps=Markup(world_steps),
                                          store=None if share else data.path))


def _copy_image(data: StoreData, run_id: str, seq: int, links: StaticLinks, out: Path) -> None:
    if (run_id, seq) in links.images:
        return
    _, path = data.image_file(run_id, seq)
    if path is None:
        return
    name = hashlib.sha1(str(path).encode()).hexdigest()[:16] + path.suffix.lower()
    (out / "images").mkdir(exist_ok=True)
    if not (out / "images" / name).exists():
        shutil.copyfile(path, out / "images" / name)
    links.images[(run_id, seq)] = f"images/{name}"


def _table_files(result: dict[str, Any], base: Path) -> None:
    from trajectory.query.sql import csv_cell

    from trajectory.text import csv_line

    text = "".join(csv_line(list(r)) + "\n" for r in [result["columns"], *([csv_cell(v) for v in row] for row in result["rows"])])
    _write(base.with_suffix(".csv"), text)
    rows = [dict(zip(result["columns"], row)) for row in result["rows"]]
    _write(base.with_suffix(".json"), json.dumps(rows, ensure_ascii=False) + "\n")


def write_static(store: str | Store, out: str | Path, *, split: str = "tune", share: bool = False) -> str:
    """Write every page of the store's ``split`` pool to ``out``; returns a one-line summary.
    ``share``: the allow-listed shared copy instead (see share_site.py)."""
    if share:
        from trajectory.view.share_site import write_shared

        return write_shared(store, out, split)
    data = StoreData(store, split, background_index=False)
    data.build_index()  # every run-list page reads it
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "static").mkdir(exist_ok=True)
    for asset in STATIC.iterdir():
        shutil.copyfile(asset, out / "static" / asset.name)
    examples = data.examples()
    links = StaticLinks(queries={sql: i for i, (_, sql) in enumerate(examples, start=1)})
    scrub = Redactor(data, share)
    where = None if share else data.path
    common = {"split": split, "store": where, "judge_hint": "traj judge" if share else data.hint("traj judge")}
    try:
        data.record_look("view --static", {"out": str(out), "share": share})
        _write(out / "index.html", render("overview.html", links, **{**scrub(pages.overview(data)), **common}))
        first = pages.runs(data, {})
        for n in range(1, first["pages"] + 1):
            ctx = first if n == 1 else pages.runs(data, {"page": str(n)})
            name = "runs.html" if n == 1 else f"runs-{n}.html"
            _write(out / name, render("runs.html", links, **{**scrub(ctx), **common}))
        run_ids = data.run_ids()
        for run_id in run_ids:
            _run_page(data, run_id, links, out, share)
        first = pages.passes(data, {})
        for n in range(1, first["pages"] + 1):
            ctx = first if n == 1 else pages.passes(data, {"page": str(n)})
            _write(out / links.passes(page=n), render("passes.html", links, **{**scrub(ctx), **common}))
        _diff_pages(data, links, out, share, common)
        _write(out / "query.html", render("query.html", links, **{**pages.query(data, {}), **common}))
        for i, (title, sql) in enumerate(examples, start=1):
            ctx = scrub(pages.query(data, {"sql": sql}))
            _write(out / f"query-{i}.html", render("query.html", links, **{**ctx, **common}))
            if ctx["result"] is not None:
                _table_files(ctx["result"], out / f"query-{i}")
    finally:
        data.close()
    what = "shared copy (answers, images, devices and paths left out)" if share else "static copy"
    return f"wrote a {what} of {len(run_ids)} runs ({split} pool) to {out}; open {out / 'index.html'}"


def _diff_pages(data: StoreData, links: StaticLinks, out: Path, share: bool, common: dict[str, Any]) -> None:
    try:
        first = pages.diff(data, {})
    except NotFound as exc:
        _write(out / "diff.html", render("error.html", links, title="No diff yet", message=str(exc), status=404,
                                         **common))
        return
    for n in range(1, first["pages"] + 1):
        ctx = first if n == 1 else pages.diff(data, {"a": first["a"], "b": first["b"], "page": str(n)})
        if share:
            events = data.events_of([f["run_id"] for f in ctx["flips"]])
            flips = []
            for f in ctx["flips"]:
                red = Redactor(data, True, events[f["run_id"]])
                f = dict(f, checks=[dict(c, before=red.check(c["before"]), after=red.check(c["after"]))
                                    for c in f["checks"]])
                flips.append(red(f))
            ctx = dict(ctx, flips=flips)
        _write(out / links.diff(page=n), render("diff.html", links, **{**Redactor(data, share)(ctx), **common}))
