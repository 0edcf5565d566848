"""The lean Markdown an agent reads for one rule. Cached `tokens` counts exactly this text.

Measured in the design: a lean render costs 1.0×, the stored files with frontmatter 2.9×, with the same
accuracy. So agents never see frontmatter, and budgets are counted on this form.
"""

from __future__ import annotations

from homeostat.core.model import Rule


def rule_view(rule: Rule, *, with_why: bool = True) -> str:
    """`**Title** (id)`, the rule, then Why and Example; `with_why=False` gives the rule-only form."""
    lines = [f"**{rule.title}** ({rule.id})", rule.rule.strip()]
    if with_why:
        lines.append(f"Why: {rule.why.strip()}")
        if rule.example:
            lines.append(f"Example: {rule.example.strip()}")
    return "\n".join(lines) + "\n"
