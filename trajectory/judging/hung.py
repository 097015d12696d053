"""The verdict of a run whose judge a watchdog had to kill (its worker died with it): an error
naming the time budget, written into the run's partition in run order, by whichever engine
judged the partition (a local pool or a Ray cluster)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from judges.base import Verdict
from replay.batch import Reads

from replay.state import RunState

from trajectory.query.sql import Views, run_splits
from trajectory.judging.context import PassContext
from trajectory.judging.partitions import Partition
from trajectory.judging.passes import Unjudged, verdict_row
from trajectory.records import VerdictRow
from trajectory.judging.resolve import SuiteResolver
from trajectory.judging.selection import batch_states, load_partners


def add_hung_verdicts(
    done: dict[str, tuple[list[VerdictRow | Unjudged], dict[str, str]]],
    parts: list[Partition],
    hung: Sequence[str] | dict[str, str] | set[str],
    ctx: PassContext,
    resolver: SuiteResolver,
    version_of: Callable[[RunState], str],
) -> None:
    """Each run a watchdog killed gets its error verdict in its partition, in run order."""
    for run_id in hung:
        part = next(p for p in parts if run_id in p.runs)
        part_rows, versions = done[part.runs[0]]
        state = batch_states(ctx.store, [run_id], Reads(screens=0, steps=False), errors={}).get(run_id)
        assert state is not None
        verdict = Verdict.error(
            f"judge did not stop at its time budget of {ctx.timeout:g}s; its worker was killed"
        )
        with Views(ctx.store, split=None) as views:
            split = run_splits(views, [run_id]).get(run_id)
        # The partner as the killed worker had it: what an incremental pass compares.
        partner = load_partners(ctx.store, resolver, {run_id: state}).get(run_id)
        row = verdict_row(
            ctx.pass_id, state, verdict, version_of(state), ctx.at, split,
            partner=None if partner is None else partner.run_id, judgements=len(ctx.judgements),
        )
        order = {r: i for i, r in enumerate(part.runs)}
        done[part.runs[0]] = (sorted(part_rows + [row], key=lambda r: order[r.run_id]), versions)
