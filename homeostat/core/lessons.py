"""A lesson's fields and the checks every way of writing one shares (`learn`, the MCP tools, imports).

A lesson that would not survive the daily run is refused here with `LessonError`, whose message names
the field to change: as a command-line flag (`cli_flag`, the default) or as the caller names it (the
MCP server names its arguments). Pure: a KB and values in, a `PendingLesson` out.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from homeostat.core.config import Config
from homeostat.core.format.patch import PatchError, PatchOp, SectionPatch, apply_section_patch
from homeostat.core.kb import KB
from homeostat.core.languages import unknown_languages
from homeostat.core.pending import (
    DocPatchRequest,
    LessonSource,
    LessonText,
    PendingLesson,
    secret_fields,
    text_of,
)
from homeostat.core.schema import RULE_WORD_LIMIT, TITLE_CHAR_LIMIT, WHY_WORD_LIMIT, Rule, RuleKind
from homeostat.core.text import count_words
from homeostat.errors import HomeostatError


class LessonError(HomeostatError):
    """A lesson that would not survive the daily run; the message names the flag to change."""

    exit_code = 2


@dataclass(frozen=True)
class Fields(LessonText):
    """What the flags said about a rule; empty strings are "not given"."""

    kind: RuleKind | None = None


def new_lesson(
    kb: KB, fields: Fields, author: str, now: dt.datetime, source: LessonSource, url: str = ""
) -> PendingLesson:
    config = kb.require_config()
    missing = [f"--{name}" for name in ("title", "rule", "why") if not getattr(fields, name)]
    if missing:
        raise LessonError(f"a new lesson needs --title, --rule and --why (missing: {', '.join(missing)})")
    if not fields.area:
        raise LessonError(f"a new lesson needs --area: one of {', '.join(config.area_names())}")
    check_area(config, fields.area, fields.topic)
    check_limits(fields)
    check_languages(config, fields.scope)
    cited = _rule_citing(kb, url) if url else None
    if cited is not None:
        raise LessonError(
            f"the thread is already behind rule {cited.id}: use --update {cited.id} to change it"
        )
    area = config.area(fields.area)
    scope = fields.scope or (area.paths if area is not None else ("**",))
    return PendingLesson(
        kind="new",
        author=author,
        source=source,
        url=url,
        created=now,
        **(text_of(fields) | {"scope": tuple(scope)}),
        lesson_kind=fields.kind,
    )


def update_lesson(
    kb: KB, rule_id: str, fields: Fields, author: str, now: dt.datetime, source: LessonSource, url: str = ""
) -> PendingLesson:
    """The whole rewritten rule: what the flags leave out is kept from the rule as it stands."""
    rule = find_rule(kb, rule_id, "--update")
    for name, current in (("area", rule.area), ("topic", rule.meta.topic or ""), ("scope", rule.meta.scope)):
        given = getattr(fields, name)
        if given and given != current:
            raise LessonError(
                f"--update keeps rule {rule.id}'s {name}: drop --{name} (flag the rule instead if it is wrong)"
            )
    merged = Fields(
        title=fields.title or rule.title,
        rule=fields.rule or rule.rule,
        why=fields.why or rule.why,
        example=fields.example or (rule.example or ""),
        kind=fields.kind or rule.meta.kind,
    )
    if (merged.title, merged.rule, merged.why, merged.example, merged.kind) == (
        rule.title,
        rule.rule,
        rule.why,
        rule.example or "",
        rule.meta.kind,
    ):
        raise LessonError(
            f"--update {rule.id} changes nothing: pass the new --rule, --title, --why or --example"
        )
    check_limits(merged)
    return PendingLesson(
        kind="update",
        author=author,
        source=source,
        url=url,
        created=now,
        title=merged.title,
        rule=merged.rule,
        why=merged.why,
        example=merged.example,
        area=rule.area,
        topic=rule.meta.topic or "",
        scope=rule.meta.scope,
        lesson_kind=merged.kind,
        target=rule.id,
    )


def flag_lesson(
    kb: KB, rule_id: str, reason: str, author: str, now: dt.datetime, source: LessonSource
) -> PendingLesson:
    rule = find_rule(kb, rule_id, "--flag")
    if not reason.strip():
        raise LessonError(f"--flag {rule.id} needs --reason: say what is wrong with the rule")
    if count_words(reason) > WHY_WORD_LIMIT:
        raise LessonError(f"--reason has {count_words(reason)} words (limit {WHY_WORD_LIMIT}): shorten it")
    return PendingLesson(
        kind="flag",
        author=author,
        source=source,
        created=now,
        area=rule.area,
        target=rule.id,
        reason=reason.strip(),
    )


def doc_lesson(
    kb: KB, doc_id: str, section: str, op: PatchOp, body: str, heading: str, author: str, now: dt.datetime
) -> PendingLesson:
    """A one-section patch, tried on the document as it stands so a refused patch is never written."""
    document = kb.document(doc_id.strip().removesuffix(".md"))
    if document is None:
        known = ", ".join(sorted(d.doc_id for d in kb.documents)) or "none yet"
        raise LessonError(f"no document {doc_id!r} in the KB (--doc takes <area>/<name>; documents: {known})")
    if not section:
        raise LessonError(
            f"--doc {document.doc_id} needs --section <id> (the {{#id}} of the section to {op})"
        )
    if not body.strip():
        raise LessonError(f"--doc {document.doc_id} needs --body: the section text to {op}")
    if op == "add" and not heading.strip():
        raise LessonError("--op add needs --heading: the new section's one-line heading")
    patch = SectionPatch(op=op, section_id=section, body=body, source="manual", heading=heading.strip())
    try:
        apply_section_patch(kb.files[document.file], patch, now.date(), document.file)
    except PatchError as exc:
        raise LessonError(f"the patch would be refused: {exc}") from None
    request = DocPatchRequest(
        doc=document.doc_id, section=section, op=op, heading=heading.strip(), body=body.strip()
    )
    return PendingLesson(
        kind="doc", author=author, source="manual", created=now, area=document.meta.area, doc_patch=request
    )


# --- checks ---------------------------------------------------------------------------------------


def cli_flag(name: str) -> str:
    """How a message names a field: `--topic` at the command line (MCP names its arguments instead)."""
    return f"--{name}"


def check_area(config: Config, area: str, topic: str, field: Callable[[str], str] = cli_flag) -> None:
    names = config.area_names()
    if area not in names:
        raise LessonError(f"unknown area {area!r}: use one of {', '.join(names)} ({field('area')})")
    topics = config.topics_for(area)
    if topics and not topic:
        raise LessonError(
            f"area {area} groups rules by topic: pass {field('topic')} with one of {', '.join(topics)}"
        )
    if topics and topic not in topics:
        raise LessonError(
            f"unknown topic {topic!r} for {area}: use one of {', '.join(topics)} ({field('topic')})"
        )
    if not topics and topic:
        raise LessonError(f"area {area} has no topics: drop {field('topic')}")


def check_languages(config: Config, scope: Sequence[str], field: Callable[[str], str] = cli_flag) -> None:
    """A `lang:` selector names a language of the table (the built-in one with `languages` added)."""
    table = config.language_table()
    unknown = unknown_languages(scope, table)
    if unknown:
        raise LessonError(
            f"{field('scope')} {unknown[0]!r} names no language: use one of {', '.join(sorted(table))}, or add it under languages in homeostat.yaml"
        )


def check_limits(fields: Fields, field: Callable[[str], str] = cli_flag) -> None:
    if len(fields.title) > TITLE_CHAR_LIMIT:
        raise LessonError(
            f"{field('title')} has {len(fields.title)} characters (limit {TITLE_CHAR_LIMIT}): shorten it"
        )
    rule_words, why_words = count_words(fields.rule), count_words(fields.why)
    if rule_words > RULE_WORD_LIMIT:
        raise LessonError(
            f"{field('rule')} has {rule_words} words (limit {RULE_WORD_LIMIT}): shorten it or move detail to "
            f"{field('why')}"
        )
    if why_words > WHY_WORD_LIMIT:
        raise LessonError(f"{field('why')} has {why_words} words (limit {WHY_WORD_LIMIT}): shorten it")


# The flag that sets each field of a pending lesson, for the error that names it.
_FLAG_OF = {
    "target": "--update/--flag",
    "lessonKind": "--kind",
    "docPatch.doc": "--doc",
    "docPatch.section": "--section",
    "docPatch.heading": "--heading",
    "docPatch.body": "--body",
    "docPatch.note": "--body",
}


def check_secrets(lesson: PendingLesson) -> None:
    """A pending lesson travels to the team's branch: a credential in any field is refused, never redacted."""
    found = secret_fields(lesson)
    if found:
        name, kind = found[0]
        flag = _FLAG_OF.get(name, f"--{name}")
        raise LessonError(f"{flag} holds what looks like a secret ({kind}): remove it, lessons are shared")


def find_rule(kb: KB, rule_id: str, flag: str) -> Rule:
    rule = kb.rule(rule_id.strip())
    if rule is None:
        broken = kb.unreadable_rule(rule_id.strip())
        if broken is not None:
            raise LessonError(
                f"{flag} {rule_id!r}: its file cannot be read ({broken}); fix the file first (homeostat validate)"
            )
        raise LessonError(f"{flag} {rule_id!r}: no such rule in the KB (find its id with homeostat search)")
    return rule


def _rule_citing(kb: KB, url: str) -> Rule | None:
    return next((r for r in kb.rules if url == r.meta.source.url or url in r.meta.also_from), None)
