"""Judging commands: judge, diff, passes.

Judging, the store and SQL are imported by the commands that run, not here: ``traj judge
--help`` (and every command of another module, see main.py) loads none of them.
"""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING, Annotated, Any

import typer

from trajectory.errors import QueryError
from trajectory.records import VerdictRow
from trajectory.text import hint, plural
from trajectory.termsafe import term_safe

from trajectory.cli.common import (
    EngineOpt, JsonOpt, RayAddressOpt, StoreOpt, command, command_line, echo_json, engine_cluster, handle_errors,
    open_store, progress, show_progress,
)

if TYPE_CHECKING:
    from trajectory.judging import SuiteResolver
    from trajectory.judging.passes import PassResult


def verdict_json(row: VerdictRow) -> dict[str, Any]:
    """One verdict of a pass as ``traj judge --json`` prints it (docs/cli.md)."""
    from trajectory.query.verdicts import decode_row

    v = decode_row(row.as_dict())
    return {k: v[k] for k in ("run_id", "suite", "task", "batch", "outcome", "score", "reason", "judge_version",
                              "checks")}


def judge_json(result: PassResult, flips: Any = None, people: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    from judges.base import OUTCOMES
    from trajectory.judging.diff import person_json

    out = {
        "pass_id": result.pass_id if result.rows else None,
        "written": result.written,
        "dry_run": result.dry_run,
        "runs": len(result.rows),
        "open_runs": result.open_runs,
        "counts": {k: result.counts.get(k, 0) for k in OUTCOMES},
        "top_reasons": result.top_reasons(),
        "verdicts": [verdict_json(r) for r in result.rows],
    }
    out["unjudged"] = {"runs": len(result.unresolved), "groups": result.unresolved_groups()}
    if flips is not None:
        out["flips"] = flips.to_json()
    out["disagree_with_people"] = len(people or [])
    out["disagreements"] = [person_json(d) for d in people or []]
    return out


def task_sample(resolver: SuiteResolver) -> Any:
    """``known(suite)``: a few of the suite's task ids, for the line about an unknown task."""

    def known(name: str | None) -> str | None:
        suite = resolver.get(name)
        try:
            ids = sorted(suite.task_ids()) if suite is not None else []
        except Exception:  # noqa: BLE001 - a suite that cannot list its tasks: just say nothing
            return None
        if not ids:
            return None
        return ", ".join(ids[:5]) + (f" and {len(ids) - 5} more" if len(ids) > 5 else "")

    return known


def reason_lines(result: PassResult) -> list[str]:
    """What to look at after a pass: the most common error and fail reasons."""
    top = result.top_reasons()
    if not top:
        return []
    lines = ["most common reasons:"]
    for t in top:
        lines.append(f"  {t['count']:>4} {t['outcome']:<5}  {t['reason']}  (e.g. {hint('traj show ' + shlex.quote(t['example_run']))})")
    return lines


@handle_errors
def judge(
    suite: Annotated[str | None, typer.Option(help="Only runs of this suite.", metavar="SUITE")] = None,
    run: Annotated[list[str] | None, typer.Option("--run", help="Only this run.", metavar="RUN")] = None,
    where: Annotated[str | None, typer.Option(help="SQL condition on the runs view of the --split pool (holdout: the look is recorded).",
                                                 metavar="SQL")] = None,
    batch: Annotated[str | None, typer.Option(help="Only runs of this batch.", metavar="BATCH")] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Judge and show the diff; write nothing.")] = False,
    all_: Annotated[
        bool,
        typer.Option(
            "--all",
            help="Judge every selected finished run, not only those whose verdict is missing or out of date.",
        ),
    ] = False,
    llm: Annotated[
        bool, typer.Option("--llm", help="First ask the LLM judge the prompts not yet answered, and record them.")
    ] = False,
    llm_base_url: Annotated[
        str | None,
        typer.Option(help="Chat-completions base URL (else $TRAJ_LLM_BASE_URL, $OPENAI_BASE_URL).", metavar="URL"),
    ] = None,
    llm_key: Annotated[
        str | None,
        typer.Option(help="API key; prefer $TRAJ_LLM_API_KEY (or $OPENAI_API_KEY): a key typed here stays in the shell history. Never stored or printed (shown as ***).", show_default=False, metavar="KEY"),
    ] = None,
    llm_model: Annotated[str | None, typer.Option(help="Judge model (else $TRAJ_LLM_MODEL).", metavar="MODEL")] = None,
    llm_deadline: Annotated[
        float | None, typer.Option(help="Seconds one prompt may take, all tries included [default: 180].", metavar="SECONDS")
    ] = None,
    llm_pass_deadline: Annotated[
        float | None, typer.Option(help="Seconds all prompts of this pass may take [default: 1800].", metavar="SECONDS")
    ] = None,
    llm_max_reply: Annotated[int | None, typer.Option(help="Largest reply accepted, in bytes [default: 1048576].", metavar="BYTES")] = None,
    llm_retries: Annotated[int | None, typer.Option(help="Retries per prompt [default: 3].", metavar="N")] = None,
    llm_retry_budget: Annotated[
        int | None, typer.Option(help="Retries all prompts of this pass may spend [default: 20].", metavar="N")
    ] = None,
    workers: Annotated[int, typer.Option(help="Judge on this many processes (same verdicts either way).", metavar="N")] = 1,
    timeout: Annotated[
        float,
        typer.Option(help="Per-run time budget in seconds; a judge past it gives an error verdict (0: none).",
                     metavar="SECONDS"),
    ] = 60.0,
    split: Annotated[
        str, typer.Option("--split", help="Show the verdicts of this pool's runs (holdout: the look is recorded).")
    ] = "tune",
    engine: EngineOpt = "local",
    ray_address: RayAddressOpt = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Judge finished runs with the current judge code; each call is one pass.

    By default only the runs whose current verdict no longer stands are judged: no verdict yet,
    another judge version for their task, events added since, another pair partner or more
    recorded LLM judgements. The others keep their verdicts (judging them again gives the same).
    """
    from trajectory.judging import SuiteResolver, dry_run_diff, judge_runs, render_diff
    from trajectory.judging.diff import people_lines
    from trajectory.judging.passes import shown_pool
    from trajectory.query.sql import SPLITS

    if split not in SPLITS:
        raise QueryError(f"--split must be one of {', '.join(SPLITS)}, got {split!r}")
    s = open_store(store)
    resolver = SuiteResolver(s)
    limits = {
        "deadline": llm_deadline,
        "pass_deadline": llm_pass_deadline,
        "max_reply_bytes": llm_max_reply,
        "retries": llm_retries,
        "retry_budget": llm_retry_budget,
    }
    limits = {k: v for k, v in limits.items() if v is not None}
    if llm or llm_base_url or llm_key or llm_model or limits:
        from trajectory.llm.ask import LLMError, ask_and_record, resolve_config

        if not llm:
            raise LLMError("--llm-base-url, --llm-key, --llm-model and the other --llm-* options go with --llm")
        if dry_run:
            raise LLMError("--llm records the model's answers; it cannot be combined with --dry-run")
        config = resolve_config(llm_base_url, llm_key, llm_model, **limits)
        report = ask_and_record(s, resolver, config, suite=suite, run_ids=run, where=where, batch=batch,
                                where_split=split)
        typer.echo(report.line(), err=json_)
    with engine_cluster(engine, ray_address) as cluster, progress(
        "judging", enabled=show_progress(json_), unit="runs"
    ) as update:
        from_engine = None
        if cluster is not None:
            from trajectory.engines.ray_engine import RayEngine

            from_engine = RayEngine(cluster)
        result = judge_runs(
            s,
            resolver,
            suite=suite,
            run_ids=run,
            where=where,
            where_split=split,
            batch=batch,
            dry_run=dry_run,
            command=command_line(),
            workers=max(1, workers),
            timeout=timeout or None,
            progress=update,
            engine=from_engine,
            incremental=not all_,
        )
    result, hidden = shown_pool(s, result, split)
    flips = dry_run_diff(s, result) if dry_run else None
    # The new verdicts against what people decided (the shown pool's only: a holdout run's
    # verdict is not shown without --split holdout). The person's verdict stays current.
    from trajectory.query.people import disagreements, human_verdicts

    humans = human_verdicts(s, [r.run_id for r in result.rows])
    people = disagreements([r.as_dict() for r in result.rows], humans)
    # Nothing it was asked to judge could be judged: exit 1 (it judged something: 0).
    failed = bool(result.unresolved) and not result.rows and not hidden
    if json_:
        echo_json({**judge_json(result, flips, people), "holdout_hidden": hidden,
                   "untrusted": [{"suite": n, "line": line} for n, line in result.untrusted.items()]})
        untrusted_exit(result)
        if failed:
            raise typer.Exit(1)
        return
    typer.echo(result.summary())
    if hidden:
        typer.echo(f"(and {plural(hidden, 'holdout run')}: verdicts shown with --split holdout, and the look is recorded)")
    for line in result.unresolved_lines(task_sample(resolver)):
        typer.echo(term_safe(line), err=failed)  # names from the store: shown, not obeyed
    for line in reason_lines(result):
        typer.echo(term_safe(line))  # stored reasons: control sequences shown, not obeyed
    if result.counts.get("review") and result.written:
        typer.echo(f"{plural(result.counts['review'], 'verdict')} the judge cannot tell: a person decides "
                   f"({hint('traj review')} lists them with their evidence)")
    if flips is not None:
        typer.echo(term_safe(render_diff(flips, people=False)))
    if humans:  # some run of the pass was re-judged by a person: say how the judge compares
        for line in people_lines(people):
            typer.echo(term_safe(line))  # the person's evidence is the run's text: shown, not obeyed
    untrusted_exit(result)
    if failed:
        raise typer.Exit(1)


def untrusted_exit(result: PassResult) -> None:
    """Name each untrusted suite whose runs were left unjudged, and how to trust it; exit 1."""
    if not result.untrusted:
        return
    for line in result.untrusted.values():
        typer.echo(term_safe(f"not judged: {line}"), err=True)
    typer.echo(f"{plural(result.untrusted_runs, 'run')} of untrusted suites left unjudged", err=True)
    raise typer.Exit(1)


@handle_errors
def diff(
    pass_a: Annotated[str | None, typer.Argument(help="Earlier pass (default: see above).", metavar="PASS_A")] = None,
    pass_b: Annotated[str | None, typer.Argument(help="Later pass.", metavar="PASS_B")] = None,
    split: Annotated[
        str, typer.Option("--split", help="Show the flips of this pool's runs (holdout: the look is recorded).")
    ] = "tune",
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Verdict flips with their evidence. With no passes given: what the last pass changed,
    against each run's verdict before it (so passes may cover different runs)."""
    from trajectory.judging import diff_passes, render_diff
    from trajectory.judging.diff import shown_split
    from trajectory.query.sql import SPLITS

    if split not in SPLITS:
        raise QueryError(f"--split must be one of {', '.join(SPLITS)}, got {split!r}")
    s = open_store(store)
    # The figures of this pool's runs only (the other pool's flips are counted apart), as the
    # viewer's /diff of the same pool counts them.
    d, hidden = shown_split(s, diff_passes(s, pass_a, pass_b), split)
    if json_:
        echo_json({**d.to_json(), "split": split, "holdout_hidden": hidden if split == "tune" else 0,
                   "tune_hidden": hidden if split == "holdout" else 0})
    else:
        typer.echo(term_safe(render_diff(d)))
        if hidden and split == "tune":
            typer.echo(f"(and {plural(hidden, 'flip')} of holdout runs: shown with --split holdout, "
                       "and the look is recorded)")
        elif hidden:
            typer.echo(f"(and {plural(hidden, 'flip')} of tune runs: shown with {hint('traj diff')})")


@handle_errors
def passes_cmd(json_: JsonOpt = False, store: StoreOpt = None) -> None:
    """List judging passes, oldest first."""
    import pyarrow as pa

    from trajectory.judging import passes
    from trajectory.query.sql import format_table

    rows = passes(open_store(store))
    cols = ["pass_id", "kind", "started_at", "runs", "by", "command"]
    table = pa.Table.from_pylist([{c: r[c] for c in cols} for r in rows]) if rows else pa.table({c: [] for c in cols})
    if json_:
        for r in rows:
            echo_json({c: r[c] for c in cols + ["finished_at", "note"]})
        if not rows:
            typer.echo("(0 passes)", err=True)
        return
    typer.echo(format_table(table).rsplit("\n", 1)[0])
    typer.echo(f"({plural(len(rows), 'pass', 'passes')})")


def register(app: typer.Typer) -> None:
    command(app, judge)
    command(app, diff)
    command(app, passes_cmd, "passes")
