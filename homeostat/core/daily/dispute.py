"""Dispute PRs: a fix drafted from a rule's flags, or the rule retired when none can be drafted."""

from __future__ import annotations

from pydantic import BaseModel, Field

from homeostat.core.daily.consolidate import fits_a_rule
from homeostat.core.schema import Rule


class DisputeFix(BaseModel):
    fixable: bool = Field(description="False when the flags show the rule is wrong and should be retired.")
    title: str = ""
    rule: str = Field(default="", description="The whole fixed rule, at most 60 words.")
    why: str = Field(default="", description="The whole fixed why, at most 100 words.")
    reason: str = Field(default="", description="What the flags said and what the fix changes.")


DISPUTE_SYSTEM = """A coding rule in a team's knowledge base was flagged by developers. Using only the \
rule and the flags, either rewrite the rule so the flags no longer apply (fixable: true, with the whole \
new title, rule of at most 60 words and why of at most 100 words) or answer fixable: false when the \
rule should be retired. Never invent facts that are in neither."""


def dispute_prompt(rule: Rule) -> str:
    lines = [f"Rule {rule.id}: {rule.title}", f"rule: {rule.rule}", f"why: {rule.why}", "", "Flags:"]
    lines += [f"- {flag.by} ({flag.at}): {flag.reason}" for flag in rule.meta.open_flags]
    return "\n".join(lines)


def usable_fix(answer: DisputeFix | None) -> DisputeFix | None:
    if answer is None or not answer.fixable:
        return None
    return answer if fits_a_rule(answer.title, answer.rule, answer.why) else None
