"""Retractions: when a rule is retired, the document sections grounded on it lose the retired claims.

`find_citations` finds the sections that rest on the rule: its id in the text as a whole token (a
one-word id only as `(id)`, `` `id` `` or `[id]`), or its review thread (`source.url`, `alsoFrom`) as
the section's provenance url. No text similarity: a section on the same subject may rest on evidence
the run cannot see, and a wrong deletion is worse than a stale sentence. One model call per citing
section returns it with only the retired claims removed, or `change: false`. A rewrite is kept only
when it drops the citation, adds no words (beyond a few joining ones) and is not empty; everything
else is listed for a person. Adapted from vectorize-io/hindsight's retractions.py (MIT).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import BaseModel, Field

from homeostat.core.kb import KB
from homeostat.core.model import Rule
from homeostat.core.text import words

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
