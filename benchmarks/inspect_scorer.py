"""The scorer ``inspect score`` runs in the Inspect AI baseline: traj's own verdict, computed per
sample the way a per-sample scorer does it — decode the run's events (from the sample's
metadata), replay them with traj's fold, judge them with traj's bundled suites (with the pair
partner's replayed run for a paired run)."""

from inspect_ai.scorer import Score, Target, mean, scorer
from inspect_ai.solver import TaskState

from replay import replay
from trajectory import events as ev
from trajectory.judging import SuiteResolver, judge_state


def _replayed(text: str):  # noqa: ANN202 - a RunState
    decode = ev.DECODER.decode
    return replay(decode(line) for line in text.splitlines() if line.strip())


@scorer(metrics=[mean()])
def traj_verdict():  # noqa: ANN201 - Inspect's decorator gives the type
    resolver = SuiteResolver(None)

    async def score(state: TaskState, target: Target) -> Score:
        run = _replayed(state.metadata["traj_events"])
        partner_text = state.metadata.get("traj_partner")
        partner = _replayed(partner_text) if partner_text else None
        verdict, _version = judge_state(resolver, run, partner)
        return Score(value=verdict.score, answer=verdict.outcome, explanation=verdict.reason)

    return score
