"""Deciding a lesson: merge, send to a reviewer, or decline — people only for the middle band.

Merge at `accept` (70) or more, `coreAccept` (80) for core or a `**` scope; decline below `decline`
(35), on a validation error, or as a duplicate (which reconfirms the original); otherwise review, and
always review risky content, words no team member vouched for (copied from untrusted text, or a
comment edited after the code changed), conflicts, documents, suggested new topics and areas outside
`scoring.autoMerge`; and always review a lesson about a sensitive subject (`core.safety.subjects`:
the agent itself, its permissions, Homeostat, fetched code, credentials, security controls, checks,
network, hidden text) that `scoring.autoMerge.subjects` does not accept unread; and always review a
lesson with a sentence in a language other than the KB's usual one, English and those
`scoring.autoMerge.languages` accepts (`core.safety.language`), where the word tables are thinnest;
and always review a lesson from a comment on its writer's own pull request (self-review: no second
person read it), and a review lesson whose change after the comment no second person is seen to have
made with the rule's code (`core.daily.enactment`: provenance, not words); and a lesson taught on
a developer's machine (`learn`, a handoff note, an import), which no second person has read, unless
`scoring.autoMerge.pending` is `judged` (then the judge's safety trap reads it first).
A flag merges at once: its rule becomes disputed and a reviewer settles it; but a flag whose reason
fails validation or holds risky content is declined, since its reason would land in the rule with
no person reading it; and a flag on a rule about a sensitive subject (the gate read over the rule's
own reviewed text, `Checks.target_subjects`) that `scoring.autoMerge.subjects` does not accept unread
goes to a person first, since a disputed rule reaches no agent: one member's agent under a prompt
injection could otherwise take the team's safety rules out of every agent's context. This function
sees one lesson; how many of one member's flags a day's runs merge (`scoring.autoMerge.flags`) is counted
over the run's decisions by `core.daily.flag_cap`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from homeostat.core.config import CORE_AREA, Config
from homeostat.core.daily.confidence import Confidence
from homeostat.core.daily.enactment import CodeTerms, code_terms, enactment_reason
from homeostat.core.daily.lessons import Lesson
from homeostat.core.daily.trust import quote_inline
from homeostat.core.safety.language import Foreign
from homeostat.core.safety.subject_hits import SubjectHit

Verdict = Literal["merge", "review", "decline", "duplicate"]


@dataclass(frozen=True)
class Checks:
    """What the run found out about a lesson before deciding it."""

    validation_errors: tuple[str, ...] = ()
    risky: tuple[str, ...] = ()
    duplicate_of: str = ""
    contradicts: str = ""
    waits_with: str = ""  # the lesson updates or repeats one still waiting in review
    untrusted: tuple[str, ...] = ()  # words the members did not vouch for (see core.daily.trust)
    subjects: tuple[SubjectHit, ...] = ()  # sensitive subjects the lesson's text is about
    foreign: tuple[Foreign, ...] = ()  # sentences in a language the team does not accept unread
    target_subjects: tuple[SubjectHit, ...] = ()  # sensitive subjects of the rule a flag disputes
    # The code a review lesson's change must show, when not its own text's: for a lesson consolidation
    # folded into a rule, its draft's (the rule it rewrites names code any change may use)
    enactment_terms: CodeTerms | None = None


@dataclass(frozen=True)
class Decision:
    verdict: Verdict
    reason: str
    needs_judge: bool = False


def gated_subjects(hits: tuple[SubjectHit, ...], config: Config) -> list[SubjectHit]:
    """The hits on subjects and topics the team does not accept unread (`scoring.autoMerge.subjects`)."""
    return [hit for hit in hits if hit.subject not in config.scoring.auto_merge.subjects]


def merge_threshold(lesson: Lesson, config: Config) -> int:
    confidence = config.scoring.confidence
    if lesson.area == CORE_AREA or any(glob.strip() in ("**", "**/*") for glob in lesson.scope):
        return confidence.core_accept
    return confidence.accept


def decide(lesson: Lesson, confidence: Confidence, checks: Checks, config: Config) -> Decision:
    weights = config.scoring.confidence
    if checks.validation_errors:
        return Decision("decline", f"fails validation: {checks.validation_errors[0]}")
    if lesson.kind == "flag":
        if checks.risky:
            return Decision("decline", f"the flag's reason holds risky content: {checks.risky[0]}")
        if guarded := gated_subjects(checks.target_subjects, config):
            return Decision("review", flag_reason(lesson.target, guarded))
        return Decision("merge", f"flag on {lesson.target}: the rule is disputed until a reviewer settles it")
    if checks.duplicate_of:
        return Decision("duplicate", f"repeats {checks.duplicate_of}, which is reconfirmed")
    if checks.waits_with:
        return Decision("review", f"waits with {checks.waits_with}, still in review")
    if confidence.total < weights.decline:
        return Decision("decline", f"confidence {confidence.total} is below {weights.decline}")
    if checks.risky:
        return Decision("review", f"risky content: {checks.risky[0]}")
    if checks.untrusted:
        return Decision("review", "; ".join(checks.untrusted))
    if gated := gated_subjects(checks.subjects, config):
        return Decision("review", subject_reason(gated))
    if checks.foreign:
        return Decision("review", language_reason(checks.foreign))
    if lesson.from_review and lesson.originator == lesson.member:
        return Decision("review", self_review_reason(lesson))
    if checks.contradicts:
        return Decision("review", f"contradicts {checks.contradicts}; a reviewer decides which stands")
    if lesson.kind == "doc":
        return Decision("review", "document changes always go to a reviewer")
    if lesson.suggested_topic:
        return Decision("review", f"suggests a new topic {lesson.suggested_topic!r}; filed under general")
    if lesson.area not in config.scoring.auto_merge.areas:
        return Decision("review", f"area {lesson.area or '(none)'} is not in scoring.autoMerge")
    threshold = merge_threshold(lesson, config)
    if confidence.total >= threshold:
        if not lesson.from_review and config.scoring.auto_merge.pending == "review":
            return Decision("review", taught_reason(lesson))
        if lesson.from_review and (unenacted := unenacted_reason(lesson, config, checks.enactment_terms)):
            return Decision("review", f"not enacted by a second person: {unenacted}")
        return Decision("merge", f"confidence {confidence.total} ≥ {threshold}", needs_judge=True)
    return Decision("review", f"confidence {confidence.total} is between {weights.decline} and {threshold}")


def unenacted_reason(lesson: Lesson, config: Config, terms: CodeTerms | None = None) -> str | None:
    """Why a review lesson's change after its comment does not show a second person enacted it (the
    provenance check, `core.daily.enactment`), or None when it does. `terms`: the code the change must
    show, when not the lesson's own rule's and example's (an update's: its draft's, `Checks`)."""
    return enactment_reason(
        lesson.originator,
        lesson.follow_up,
        code_terms(lesson.rule, lesson.example) if terms is None else terms,
        need_code=config.scoring.auto_merge.enactment != "author",
        need_signed=config.scoring.auto_merge.enactment == "signed",
    )


def taught_reason(lesson: Lesson) -> str:
    """Why a confident lesson taught on a developer's machine waits for a person: a review lesson
    merges unread on a second person's review and change, and a taught one has neither: it is its
    author's word alone, and an agent under a prompt injection can run `homeostat learn` (or write a
    handoff note) as that author, which no word check tells from the author's own lesson."""
    return (
        f"taught by {lesson.originator} on their own machine ({lesson.source}): no second person has read"
        " it (scoring.autoMerge.pending: review)"
    )


def self_review_reason(lesson: Lesson) -> str:
    """Why a lesson from a comment on its writer's own pull request waits for a person: a review lesson
    merges unread on the strength of a second person's review, and here one account wrote the comment
    and the pull request (and the change that followed), so one stolen account could teach every agent
    anything the word checks do not read."""
    return (
        f"self-review: {lesson.originator} commented on their own pull request, so no second person has"
        " read this lesson"
    )


def subject_reason(hits: list[SubjectHit]) -> str:
    """Why a lesson on a sensitive subject waits for a person, with the words that matched shown as
    inline code (an attacker's words, rendered inert in a PR body)."""
    named = "; ".join(f"{hit.subject} ({hit.about}): {quote_inline(hit.evidence)}" for hit in hits)
    return f"about a subject a person reads before every agent does: {named}"


def flag_reason(rule_id: str, hits: list[SubjectHit]) -> str:
    """Why a flag on a rule about a sensitive subject waits for a person: a disputed rule is served to
    no agent, so the flag would take the team's reviewed rule (never log card numbers, always verify
    TLS) out of every agent's context with no person reading it. The words of the rule that matched
    are shown as inline code."""
    named = "; ".join(f"{hit.subject} ({hit.about}): {quote_inline(hit.evidence)}" for hit in hits)
    return f"a flag on {rule_id} would take a rule about {named} out of every agent's context: a person confirms it first"


def language_reason(foreign: tuple[Foreign, ...]) -> str:
    """Why a lesson with a sentence in another language waits for a person: the language and the
    sentence, as inline code (the word tables that read for harm are thinnest outside English)."""
    named = "; ".join(f"{hit.name}: {quote_inline(hit.sentence)}" for hit in foreign)
    return f"a sentence in another language than the KB's rules, which a person reads first: {named}"
