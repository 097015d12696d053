"""The deterministic scorer ``inspect score`` runs in the Inspect AI baseline: the sample's final
answer must equal its target after trimming (what a traj judge's exact-answer check does)."""

from inspect_ai.scorer import CORRECT, INCORRECT, Score, Target, accuracy, scorer
from inspect_ai.solver import TaskState


@scorer(metrics=[accuracy()])
def bench_match():  # noqa: ANN201 - Inspect's decorator gives the type
    async def score(state: TaskState, target: Target) -> Score:
        answer = state.output.completion.strip()
        return Score(value=CORRECT if answer == target.text.strip() else INCORRECT, answer=answer)

    return score
