"""The lean Markdown an agent reads for one rule. Cached `tokens` counts exactly this text.

Measured in the design: a lean render costs 1.0×, the stored files with frontmatter 2.9×, with the same
accuracy. So agents never see frontmatter, and budgets are counted on this form.
"""

from __future__ import annotations

from homeostat.core.schema import Rule
from homeostat.core.served import served_line, served_text


def rule_view(rule: Rule, *, with_why: bool = True) -> str:
    """`**Title** (id)`, the rule, then Why and Example; `with_why=False` gives the rule-only form."""
    short, rest = rule_view_parts(rule)
    return short + rest if with_why else short


def rule_view_parts(rule: Rule) -> tuple[str, str]:
    """The rule-only form, and what the whole form adds after it (`Why: …`, then any example): the
    whole form is the two joined, so its tokens are the two parts' (`TokenCounts.count_joined`).
    Homeostat's own comments are never served (`served_text`)."""
    short = f"**{served_line(rule.title)}** ({rule.id})\n{served_text(rule.rule).strip()}\n"
    rest = f"Why: {served_text(rule.why).strip()}\n"
    example = served_text(rule.example or "").strip()
    if example:
        rest += f"Example: {example}\n"
    return short, rest
