"""The judge: a second model checks a review-drafted rule that would merge with no person.

It reads the redacted thread (and, for an update, the rule being rewritten) and looks for four traps:
invented-detail, wider-scope, overgeneralised, contradicts-thread. A pass costs one call. A failure is
re-asked twice and kept only on a majority of the three answers (adapted from vectorize-io/hindsight's
eval judge, MIT). It fails closed: an error or no usable answer sends the draft to a person. The
rule's paths are not shown: they come from the team's areas, and showing them once failed most drafts.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, Field

from homeostat.core.asker import Asker, SpendingCapError
from homeostat.core.daily.lessons import Lesson
from homeostat.errors import HomeostatError

Trap = Literal["invented-detail", "wider-scope", "overgeneralised", "contradicts-thread"]
JUDGE_CONFIRMATIONS = 2  # a failure is asked this many more times


class Problem(BaseModel):
    trap: Trap
    evidence: str = Field(description="The words in the rule and the thread that show the problem.")


class JudgeAnswer(BaseModel):
    ok: bool
    problems: list[Problem] = Field(default_factory=list)


JUDGE_SYSTEM = """You check a coding rule drafted from a code-review thread before it reaches every \
developer's agent with no person reading it. Compare the rule with the thread only. Report a problem \
for each trap you find:
- invented-detail: the rule states a value, name, path, number or reason that is not in the thread;
- wider-scope: the rule's words claim more than the thread addressed;
- overgeneralised: a one-off remark in the thread became "always" or "never";
- contradicts-thread: the rule says something the thread disagrees with.
Answer ok: true with no problems when the rule is faithful to the thread."""


def judge_prompt(lesson: Lesson, rewritten: str = "") -> str:
    parts = ["Review thread:", lesson.thread or "(no thread)", ""]
    if rewritten:
        parts += ["The rule before this update:", rewritten, ""]
    parts += ["Drafted rule:", f"title: {lesson.title}", f"rule: {lesson.rule}", f"why: {lesson.why}"]
    if lesson.example:
        parts.append(f"example: {lesson.example}")
    return "\n".join(parts)


@dataclass(frozen=True)
class Verdict:
    outcome: Literal["pass", "fail", "contradicts", "unavailable"]
    problems: tuple[Problem, ...] = ()
    calls: int = 0
    detail: str = ""

    @property
    def evidence(self) -> str:
        return "; ".join(f"{p.trap}: {p.evidence}" for p in self.problems)


def _ask(asker: Asker, prompt: str) -> JudgeAnswer | None:
    try:
        return asker.ask(JUDGE_SYSTEM, prompt, JudgeAnswer)
    except SpendingCapError:
        raise
    except HomeostatError:
        return None


def judge(asker: Asker, lesson: Lesson, rewritten: str = "") -> Verdict:
    """Pass, a kept failure (with its evidence), a majority for contradicts-thread, or unavailable."""
    prompt = judge_prompt(lesson, rewritten)
    first = _ask(asker, prompt)
    if first is None:
        return Verdict("unavailable", calls=1, detail="the judge gave no usable answer")
    if first.ok and not first.problems:
        return Verdict("pass", calls=1)
    answers = [first]
    for _ in range(JUDGE_CONFIRMATIONS):
        answer = _ask(asker, prompt)
        if answer is None:
            return Verdict("unavailable", calls=len(answers) + 1, detail="the judge gave no usable answer")
        answers.append(answer)
    failing = [a for a in answers if not (a.ok and not a.problems)]
    calls = len(answers)
    if len(failing) * 2 <= len(answers):
        return Verdict("pass", calls=calls)
    traps = Counter(trap for a in failing for trap in {p.trap for p in a.problems})
    problems = tuple({p.trap: p for a in failing for p in a.problems}.values())
    if traps["contradicts-thread"] * 2 > len(answers):
        return Verdict("contradicts", problems, calls)
    return Verdict("fail", problems, calls)
