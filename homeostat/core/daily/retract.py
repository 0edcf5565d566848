"""Retractions: when a rule is retired, the document sections grounded on it lose the retired claims.

`find_citations` finds the sections that rest on the rule: its id in the text as a whole token (a
one-word id only as `(id)`, `` `id` `` or `[id]`), or its review thread (`source.url`, `alsoFrom`) as
the section's provenance url. No text similarity: a section on the same subject may rest on evidence
the run cannot see, and a wrong deletion is worse than a stale sentence. One model call per citing
section returns it with only the retired claims removed, or `change: false`. A rewrite is kept only
when it validates, drops the citation, adds no words (beyond a few joining ones) and is not empty;
everything else is listed for a person. Adapted from vectorize-io/hindsight's retractions.py (MIT).

Every run that retires a rule retracts through `retract` here: the daily run for a closed dispute
(its patches go in the member's review PR), the deep dive for a stale rule (in its own PR). A rule
merged into another as a duplicate is not retracted: `listed_citations` lists its citations.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from pydantic import BaseModel, Field

from homeostat.core.asker import Answered, Asker, Question, SpendingCapError, ask_each
from homeostat.core.format.patch import PatchError, SectionPatch, apply_section_patch
from homeostat.core.kb import KB
from homeostat.core.schema import Rule
from homeostat.core.text import words
from homeostat.core.validate import new_errors
from homeostat.errors import HomeostatError

JOINING_WORDS = 3


@dataclass(frozen=True)
class Citation:
    doc_id: str
    section_id: str
    heading: str
    body: str
    by_url: bool  # cited through its provenance url (the rule's thread), not its text


def _cites_id(text: str, rule_id: str) -> bool:
    if "-" in rule_id:
        return re.search(rf"(?<![\w-]){re.escape(rule_id)}(?![\w-])", text) is not None
    return (
        re.search(rf"\({re.escape(rule_id)}\)|`{re.escape(rule_id)}`|\[{re.escape(rule_id)}\]", text)
        is not None
    )


def find_citations(kb: KB, rule: Rule) -> list[Citation]:
    threads = {url for url in (rule.meta.source.url, *rule.meta.also_from) if url}
    found: list[Citation] = []
    for document in kb.documents:
        for section in document.sections:
            url = section.provenance.url if section.provenance is not None else ""
            by_url = bool(url) and url in threads
            if by_url or _cites_id(section.body, rule.id):
                found.append(Citation(document.doc_id, section.id, section.heading, section.body, by_url))
    return found


class RetractAnswer(BaseModel):
    change: bool = Field(description="False when the section does not depend on the retired rule.")
    body: str = Field(default="", description="The whole section with only the retired claims removed.")


RETRACT_SYSTEM = """A rule in a team's knowledge base was retired. A document section cites it. Return the \
section with only the claims that rested on the retired rule removed, and the citation of it dropped. \
Keep every other sentence word for word; add nothing. The rules still in force that the section also \
cites remain supported. Answer change: false when the section does not depend on the retired rule."""


def retract_prompt(rule: Rule, citation: Citation, still_supported: Sequence[Rule]) -> str:
    lines = [
        f"Retired rule {rule.id}: {rule.title}",
        rule.rule,
        "",
        f"Section {citation.doc_id}#{citation.section_id} ({citation.heading}):",
        citation.body,
    ]
    if still_supported:
        lines += ["", "Rules still in force that the section also cites:"]
        lines += [f"- {r.id}: {r.rule}" for r in still_supported]
    return "\n".join(lines)


def still_supported(kb: KB, citation: Citation, retired: str) -> list[Rule]:
    return [
        r
        for r in kb.rules
        if r.id != retired and r.meta.status == "accepted" and _cites_id(citation.body, r.id)
    ]


def acceptable_rewrite(answer: RetractAnswer | None, rule: Rule, citation: Citation) -> str | None:
    """The rewritten body, or None when it must go to a person instead."""
    if answer is None or not answer.change:
        return None
    body = answer.body.strip()
    if not body or _cites_id(body, rule.id):
        return None
    before = words(citation.body)
    added = [w for w in words(body) if w not in set(before)]
    if len(added) > JOINING_WORDS or len(words(body)) > len(before):
        return None
    return body


# --- one retraction run: every citing section of the rules a run retired --------------------------


@dataclass(frozen=True)
class Rewrite:
    """A citing section with the retired claims removed, checked: `patch` applies to `path` cleanly,
    the document still validates, and the patch's provenance says `retracted <id>`."""

    rule_id: str
    citation: Citation
    path: str  # the document's file
    patch: SectionPatch


@dataclass(frozen=True)
class ForAPerson:
    """A citing section the run leaves for a person, and why."""

    doc: str
    section: str
    rule_id: str
    note: str


@dataclass
class RetractCalls:
    """The run's retractor calls: at most `left` more (`setting` names the cap), none once capped."""

    left: int
    setting: str
    capped: bool = False
    asked: int = 0


@dataclass
class Retractions:
    rewrites: list[Rewrite] = field(default_factory=list)
    listed: list[ForAPerson] = field(default_factory=list)


def retract(
    asker: Asker | None,
    kb: KB,
    rule: Rule,
    calls: RetractCalls,
    *,
    source: str,
    today: dt.date,
) -> Retractions:
    """One retractor call per section citing `rule`; a kept rewrite is a `Rewrite`, the rest listed."""
    return retract_all(asker, kb, [rule], calls, source=source, today=today)[0]


def retract_all(
    asker: Asker | None,
    kb: KB,
    rules: Sequence[Rule],
    calls: RetractCalls,
    *,
    source: str,
    today: dt.date,
) -> list[Retractions]:
    """`retract` for each rule: the calls within `calls` chosen in order, asked at once (on a pooled
    asker), the answers applied in order."""
    planned: list[tuple[Rule, Citation, str]] = []  # a note means no call: listed for a person
    questions: list[Question[RetractAnswer]] = []
    for rule in rules:
        for citation in find_citations(kb, rule):
            note = _no_call(asker, calls)
            planned.append((rule, citation, note))
            if not note:
                prompt = retract_prompt(rule, citation, still_supported(kb, citation, rule.id))
                questions.append(Question(RETRACT_SYSTEM, prompt, RetractAnswer))
    answers = iter(ask_each(asker, questions) if asker is not None and questions else [])
    found = {rule.id: Retractions() for rule in rules}
    for rule, citation, note in planned:
        rewrite: Rewrite | None = None
        if not note:
            rewrite, note = _rewrite(next(answers), kb, rule, citation, calls, source, today)
        if rewrite is None:
            found[rule.id].listed.append(ForAPerson(citation.doc_id, citation.section_id, rule.id, note))
        else:
            found[rule.id].rewrites.append(rewrite)
    return [found[rule.id] for rule in rules]


def listed_citations(kb: KB, rule: Rule, note: str) -> list[ForAPerson]:
    """The sections citing a rule that is not retracted (merged into another as a duplicate)."""
    return [ForAPerson(c.doc_id, c.section_id, rule.id, note) for c in find_citations(kb, rule)]


def _no_call(asker: Asker | None, calls: RetractCalls) -> str:
    """Why a citing section gets no call (listed for a person instead), or "" when it gets one."""
    if asker is None:
        return "no model to ask"
    if calls.capped:
        return "the spending cap was reached"
    if calls.left <= 0:
        return f"no model call left this run ({calls.setting})"
    calls.left -= 1
    calls.asked += 1
    return ""


def _rewrite(
    answered: Answered[RetractAnswer],
    kb: KB,
    rule: Rule,
    citation: Citation,
    calls: RetractCalls,
    source: str,
    today: dt.date,
) -> tuple[Rewrite | None, str]:
    """The checked rewrite, or None and why a person must do it."""
    try:
        answer = answered.get()
    except SpendingCapError:
        calls.capped = True
        return None, "the spending cap was reached"
    except HomeostatError as exc:
        return None, f"the retractor failed: {exc}"
    body = acceptable_rewrite(answer, rule, citation)
    if body is None:
        return None, "the model's rewrite was not safe to keep"
    return checked_rewrite(kb, rule, citation, body, source=source, today=today)


def checked_rewrite(
    kb: KB, rule: Rule, citation: Citation, body: str, *, source: str, today: dt.date
) -> tuple[Rewrite | None, str]:
    """The rewrite as a section patch, kept only when it applies and the document still validates.

    The patch's provenance is `source` with `note="retracted <id>"`; a url that was the retired
    rule's thread is dropped, any other is kept."""
    document = kb.document(citation.doc_id)
    section = document.section(citation.section_id) if document is not None else None
    if document is None or section is None:
        return None, "the section is no longer in the KB"
    url = section.provenance.url if section.provenance is not None and not citation.by_url else ""
    patch = SectionPatch(
        op="replace", section_id=section.id, body=body, source=source, url=url, note=f"retracted {rule.id}"
    )
    try:
        patched = apply_section_patch(kb.files[document.file], patch, today, document.file)
    except PatchError as exc:
        return None, f"the rewrite was refused: {exc}"
    broken = new_errors(kb.files, {document.file: patched}, today)
    if broken:
        return None, f"the rewrite would not validate: {broken[0].message}"
    return Rewrite(rule.id, citation, document.file, patch), ""
