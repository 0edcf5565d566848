"""A sign-off on risky content is for the text it signed: `riskReviewedBy: {by: ana, fingerprint: …}`.

The fingerprint hashes what an agent reads (a rule's title, rule, why and example; a document's title
and visible body), blanks collapsed, so re-wrapping a line keeps the sign-off but any change of words
makes the content risky again until a member reads it. Homeostat's own comments are left out: the
daily run rewrites their dates without changing what the rule says.
"""

from __future__ import annotations

import hashlib

from homeostat.core.scanners.hidden import blank_homeostat_comments
from homeostat.core.schema import Document, Rule

FINGERPRINT_LENGTH = 12


def text_fingerprint(*parts: str) -> str:
    canonical = "\n".join(" ".join(part.split()) for part in parts)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:FINGERPRINT_LENGTH]


def rule_fingerprint(rule: Rule) -> str:
    return text_fingerprint(rule.meta.title, rule.rule, rule.why, rule.example or "")


def document_fingerprint(document: Document, body: str) -> str:
    return text_fingerprint(document.meta.title, blank_homeostat_comments(body))
