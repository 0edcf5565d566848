"""The deep dive's memory: last week's verdicts, so unchanged pairs are not asked again.

Every answer the deep dive pays for (a merge check, a contradiction check, a retraction) is kept on
the state branch in `checkpoints/deep-dive/all.json`, by the content hash of its question: the two
rules' ids, areas, scopes, titles, rules and whys, the model and the prompt. Next week a question
asked again with the same hash is answered from memory at no cost; one whose rules changed hashes
differently and is asked. A finished run keeps only what it asked or recalled (a pair whose rule was
retired or rewritten is forgotten); a run the cap or an error stopped keeps everything.
"""

from __future__ import annotations

from homeostat.core.state.branch import StateSnapshot
from homeostat.core.state.checkpoints import (
    AnswerMemory,
    CheckpointFile,
    checkpoint_bytes,
    checkpoint_path,
    read_checkpoints,
)
from homeostat.runs.deep_dive.run_state import DeepDiveContext


def recall(ctx: DeepDiveContext, snapshot: StateSnapshot) -> AnswerMemory:
    """The memory the run's calls consult (none under --show-prompts, which sends nothing)."""
    memory = AnswerMemory(
        (answer for file in read_checkpoints(snapshot.other, "deep-dive") for answer in file.answers),
        seal=ctx.deps.stats.seal,
    )
    if not ctx.options.show_prompts:
        ctx.deps.stats.memory = memory
    return memory


def memory_files(memory: AnswerMemory, run_id: str, *, complete: bool) -> dict[str, bytes]:
    answers = memory.used() if complete else memory.answers()
    file = CheckpointFile(kind="deep-dive", slot="all", run_id=run_id, answers=tuple(answers))
    return {checkpoint_path("deep-dive"): checkpoint_bytes(file)}
