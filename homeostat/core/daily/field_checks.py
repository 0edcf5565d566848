"""Checks on a lesson's own fields, before anything is written: a secret in any of them, and risky
content in the ones no KB file check reads (scope globs, the lesson's URL, a flag's reason).

A rule that would merge with no person must have no open finding in any field of what merges, and a
flag's reason lands in the rule it disputes, so these run on every lesson, flags included.
"""

from __future__ import annotations

from homeostat.core.config import Config
from homeostat.core.daily.lessons import Lesson
from homeostat.core.safety.risky import find_risks
from homeostat.core.safety.secrets import find_secrets
from homeostat.core.scanners.hidden import Fields
from homeostat.core.validate.content_checks import allowed_domains


def _fields(lesson: Lesson) -> dict[str, str]:
    fields = {
        "title": lesson.title,
        "rule": lesson.rule,
        "why": lesson.why,
        "example": lesson.example,
        "area": lesson.area,
        "topic": lesson.topic,
        "scope": "\n".join(lesson.scope),
        "url": lesson.url,
        "target": lesson.target,
        "reason": lesson.reason,
    }
    if lesson.doc_patch is not None:
        patch = lesson.doc_patch
        fields.update(
            {"document": patch.doc, "section": patch.section, "heading": patch.heading, "body": patch.body}
        )
    return fields


# The fields the KB's file checks do not read as text an agent gets.
_RISK_FIELDS = ("scope", "url", "reason")


def field_problems(lesson: Lesson, config: Config) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(secret findings, risky findings) in the lesson's fields, one line each, no value quoted."""
    fields = _fields(lesson)
    secrets = tuple(
        f"the lesson's {name} holds what looks like a {hits[0].kind} secret; remove it"
        for name, text in fields.items()
        if text and (hits := find_secrets(text))
    )
    domains = allowed_domains(config)
    risky = tuple(
        f"{hit.kind} in the lesson's {name}: {hit.message}"
        for name in _RISK_FIELDS
        if fields[name]
        for hit in find_risks(fields[name], domains, fields=Fields.NONE)  # a field holds no fields comment
    )
    return secrets, risky
