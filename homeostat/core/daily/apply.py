"""Turning decided lessons into KB file changes (pure: a map of files in, a map of files out).

New rules go to their topic file (sections sorted by id) or their own file; an update rewrites the rule
keeping its id, area, scope, owner, first source and example; a duplicate reconfirms; a flag makes the
rule disputed; a retirement retires it; a document lesson is one section patch. Each edit re-reads the
current text, so several edits to one topic file compose, and untouched bytes stay as they were.

Sign-offs belong to the text they were given for: a rewrite of a rule's words drops its
`riskReviewedBy` (its risky content is an error again until a member reads the new text), and an update
replaces `approvedBy` with who approved the new text.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from homeostat.core.config import Config
from homeostat.core.cost.tiktoken_count import count_tokens
from homeostat.core.daily.lessons import Lesson
from homeostat.core.format.parse import TopicFile, parse_topic_file
from homeostat.core.format.patch import PatchError, SectionPatch, apply_section_patch
from homeostat.core.format.write import (
    render_rule_file,
    render_topic_file,
    render_topic_section,
    upsert_topic_section,
)
from homeostat.core.kb import KB, load_kb
from homeostat.core.pending import IMPORTED_SOURCES
from homeostat.core.render.rule import rule_view
from homeostat.core.schema import Flag, Rule, RuleMeta, Source
from homeostat.core.scoring import conflict_counts, score_rule
from homeostat.core.text import slugify

KNOWLEDGE = "knowledge"


class ApplyError(ValueError):
    """A lesson that cannot be applied to the KB as it stands (its rule is gone, a patch refused)."""


@dataclass
class KbEdit:
    """A working copy of the KB's files that decided lessons are applied to, one at a time."""

    files: dict[str, str]
    config: Config
    today: dt.date
    changed: set[str] = field(default_factory=set)
    base: KB | None = None  # the KB as loaded before any edit, so lookups need no reload
    taken: set[str] = field(default_factory=set)
    _current: KB | None = None  # the KB as the edits so far left it, up to `_stale`
    _stale: set[str] = field(default_factory=set)

    @classmethod
    def of(cls, kb: KB, today: dt.date) -> KbEdit:
        return cls(dict(kb.files), kb.require_config(), today, base=kb, taken=set(kb.rules_by_id()))

    def kb(self) -> KB:
        """The KB with the edits so far: the base with the edited files read again (of a topic file,
        only its edited sections)."""
        if self.base is None:
            return load_kb(self.files)
        if self._current is None or self._stale:
            current = self._current or self.base
            self._current = current.with_files({path: self.files[path] for path in sorted(self._stale)})
            self._stale.clear()
        return self._current

    def _set(self, path: str, text: str) -> None:
        if self.files.get(path) != text:
            self.files[path] = text
            self.changed.add(path)
            self._stale.add(path)

    def _in_file(self, path: str, rule_id: str) -> Rule | None:
        """The first rule `rule_id` in one file as edited."""
        if self.base is None:
            kb = load_kb({"homeostat.yaml": self.files["homeostat.yaml"], path: self.files[path]})
            return kb.rule(rule_id)
        return next((rule for rule in self.kb().rules_in(path) if rule.id == rule_id), None)

    def _topic_file(self, path: str, area: str) -> TopicFile | None:
        """The sections of topic file `path` as edited (None when its frontmatter does not parse)."""
        parsed = self.kb().topic_parse(path) if self.base is not None else None
        if parsed is not None:
            return parsed.topic_file
        return parse_topic_file(path, self.files[path], area)[0]

    def diff(self, base: Mapping[str, str]) -> dict[str, str]:
        return {path: self.files[path] for path in sorted(self.changed) if base.get(path) != self.files[path]}

    # --- rules ---------------------------------------------------------------------------------

    def new_id(self, lesson: Lesson) -> str:
        if self.base is None:
            self.taken |= {rule.id for rule in self.kb().rules}
        base = slugify(" ".join(lesson.title.split()[:8]))
        candidate, n = base, 2
        while candidate in self.taken:
            candidate, n = f"{base}-{n}", n + 1
        return candidate

    def _cached(
        self, meta: RuleMeta, rule: str, why: str, example: str | None, conflicts: int = 0
    ) -> RuleMeta:
        probe = Rule(meta, rule, why, example, "", 0, "")
        score = score_rule(meta, self.config, conflicts).total
        return meta.model_copy(update={"score": score, "tokens": count_tokens(rule_view(probe))})

    def write_rule(self, meta: RuleMeta, rule: str, why: str, example: str | None) -> str:
        """Write one rule where it belongs: its topic file, or its own file. Returns the path."""
        meta = self._cached(meta, rule, why, example)
        topics = self.config.topics_for(meta.area)
        if topics:
            topic = meta.topic if meta.topic in topics else topics[0]
            meta = meta.model_copy(update={"topic": topic})
            path = f"{KNOWLEDGE}/{meta.area}/{topic}.md"
            section = render_topic_section(meta, rule, why, example)
            current = self.files.get(path)
            if current is None:
                self._set(path, render_topic_file(meta.area, topic, [(meta.id, section)]))
                return path
            topic_file = self._topic_file(path, meta.area)
            if topic_file is None:
                raise ApplyError(f"{path} does not parse; fix it before the run can add to it")
            self._set(path, upsert_topic_section(current, topic_file, meta.id, section))
            return path
        path = f"{KNOWLEDGE}/{meta.area}/{meta.id}.md"
        self._set(path, render_rule_file(meta.model_copy(update={"topic": None}), rule, why, example))
        return path

    def _rewrite(
        self, rule: Rule, meta: RuleMeta, text: str, why: str, example: str | None, conflicts: int = 0
    ) -> str:
        if (meta.title, text.strip(), why.strip(), example) != (
            rule.meta.title,
            rule.rule.strip(),
            rule.why.strip(),
            rule.example,
        ):
            meta = meta.model_copy(update={"risk_reviewed_by": ""})  # nobody has read the new words yet
        if rule.in_topic_file:
            current = self.files[rule.file]
            topic_file = self._topic_file(rule.file, rule.area)
            if topic_file is None:
                raise ApplyError(f"{rule.file} does not parse")
            self._set(
                rule.file,
                upsert_topic_section(
                    current,
                    topic_file,
                    rule.id,
                    render_topic_section(
                        self._cached(meta, text, why, example, conflicts), text, why, example
                    ),
                ),
            )
            return rule.file
        cached = self._cached(meta, text, why, example, conflicts)
        self._set(rule.file, render_rule_file(cached, text, why, example))
        return rule.file

    def rule(self, rule_id: str) -> Rule:
        found = self.base.rule(rule_id) if self.base is not None else self.kb().rule(rule_id)
        if found is not None and found.file in self.changed:
            found = self._in_file(found.file, rule_id)
        if found is None and self.base is not None:  # a rule this edit added
            for path in sorted(self.changed):
                found = self._in_file(path, rule_id)
                if found is not None:
                    break
        if found is None:
            raise ApplyError(f"rule {rule_id} is no longer in the KB")
        return found

    def add_new(self, lesson: Lesson, *, status: str = "accepted", approved_by: tuple[str, ...] = ()) -> str:
        changed_code = lesson.source == "pr-feedback"
        source_type = "pr-feedback" if lesson.source.startswith("pr-feedback") else lesson.source
        if source_type in IMPORTED_SOURCES:
            source_type = "agent-handoff"
        new_id = self.new_id(lesson)
        self.taken.add(new_id)
        meta = RuleMeta(
            id=new_id,
            title=lesson.title,
            area=lesson.area,
            topic=lesson.topic or None,
            scope=lesson.scope or ("**",),
            status=status,  # type: ignore[arg-type]
            approved_by=approved_by,
            source=Source(
                type=source_type,  # type: ignore[arg-type]
                url=lesson.url,
                author=lesson.originator,
                changed_code=changed_code if source_type == "pr-feedback" else None,
            ),
            created=lesson.created.date(),
            last_confirmed=self.today,
        )
        self.write_rule(meta, lesson.rule, lesson.why, lesson.example or None)
        return meta.id

    def update(
        self,
        rule_id: str,
        lesson: Lesson,
        title: str,
        text: str,
        why: str,
        *,
        approved_by: tuple[str, ...] = (),
    ) -> str:
        """Rewrite the rule; the old approvals were for the old text, so `approved_by` replaces them."""
        rule = self.rule(rule_id)
        also = rule.meta.also_from + (
            (lesson.url,) if lesson.url and lesson.url not in rule.meta.also_from else ()
        )
        meta = rule.meta.model_copy(
            update={
                "title": title,
                "last_confirmed": self.today,
                "also_from": also,
                "approved_by": approved_by,
            }
        )
        return self._rewrite(rule, meta, text, why, rule.example)

    def reconfirm(self, rule_id: str, url: str = "") -> str:
        rule = self.rule(rule_id)
        also = rule.meta.also_from
        if url and url != rule.meta.source.url and url not in also:
            also = (*also, url)
        meta = rule.meta.model_copy(
            update={"last_confirmed": max(self.today, rule.meta.created), "also_from": also}
        )
        return self._rewrite(rule, meta, rule.rule, rule.why, rule.example)

    def flag(self, rule_id: str, by: str, reason: str) -> str:
        rule = self.rule(rule_id)
        flags = (*rule.meta.flags, Flag(by=by, at=self.today, reason=reason))
        meta = rule.meta.model_copy(update={"status": "disputed", "flags": flags})
        return self._rewrite(rule, meta, rule.rule, rule.why, rule.example)

    def approve(self, rule_id: str, handle: str) -> str:
        """Record who merged the rule (merging is approval); nothing changes when already listed."""
        rule = self.rule(rule_id)
        if handle in rule.meta.approved_by:
            return rule.file
        meta = rule.meta.model_copy(update={"approved_by": (*rule.meta.approved_by, handle)})
        return self._rewrite(rule, meta, rule.rule, rule.why, rule.example)

    def retire(self, rule_id: str) -> str:
        rule = self.rule(rule_id)
        meta = rule.meta.model_copy(update={"status": "retired"})
        return self._rewrite(rule, meta, rule.rule, rule.why, rule.example)

    def restore(self, rule_id: str, title: str, text: str, why: str) -> str:
        """A dispute's fix: the rule back in force with its flags resolved."""
        rule = self.rule(rule_id)
        flags = tuple(f.model_copy(update={"resolved": True}) for f in rule.meta.flags)
        meta = rule.meta.model_copy(
            update={"status": "accepted", "title": title, "flags": flags, "last_confirmed": self.today}
        )
        return self._rewrite(rule, meta, text, why, rule.example)

    def absorb(self, rule_id: str, duplicate: Rule) -> str:
        """A near-duplicate merged into this rule: its review threads join `alsoFrom`, and the rule
        counts as confirmed when either was. The duplicate itself is retired apart (`retire`)."""
        rule = self.rule(rule_id)
        known = {rule.meta.source.url, *rule.meta.also_from}
        threads = dict.fromkeys((duplicate.meta.source.url, *duplicate.meta.also_from))
        extra = tuple(url for url in threads if url and url not in known)
        confirmed = max(rule.meta.last_confirmed, duplicate.meta.last_confirmed)
        meta = rule.meta.model_copy(
            update={"also_from": rule.meta.also_from + extra, "last_confirmed": confirmed}
        )
        return self._rewrite(rule, meta, rule.rule, rule.why, rule.example)

    def declare_contradiction(self, rule_id: str, other: str) -> str:
        rule = self.rule(rule_id)
        if other in rule.meta.contradicts:
            return rule.file
        meta = rule.meta.model_copy(update={"contradicts": (*rule.meta.contradicts, other)})
        return self._rewrite(rule, meta, rule.rule, rule.why, rule.example)

    def recache(self, rule_ids: Iterable[str]) -> None:
        """Cached scores again, counting the contradictions other rules declare against each one
        (after `declare_contradiction`, the other side's score drops too)."""
        counts = conflict_counts(self.kb().rules)
        for rule_id in sorted(set(rule_ids)):
            rule = self.rule(rule_id)
            conflicts = counts.get(rule_id, 0)
            if score_rule(rule.meta, self.config, conflicts).total != rule.meta.score:
                self._rewrite(rule, rule.meta, rule.rule, rule.why, rule.example, conflicts)

    # --- documents -----------------------------------------------------------------------------

    def patch_document(self, lesson: Lesson) -> str:
        request = lesson.doc_patch
        if request is None:
            raise ApplyError("not a document lesson")
        path = f"{KNOWLEDGE}/{request.doc.rsplit('/', 1)[0]}/docs/{request.doc.rsplit('/', 1)[1]}.md"
        if path not in self.files:
            raise ApplyError(f"document {request.doc} is not in the KB")
        patch = SectionPatch(
            op=request.op,
            section_id=request.section,
            body=request.body,
            source="curator" if lesson.from_review else "manual",
            url=lesson.url,
            heading=request.heading,
            note=request.note,
        )
        return self.apply_patch(path, patch)

    def apply_patch(self, path: str, patch: SectionPatch) -> str:
        """One section patch on a document file, as `apply_section_patch` checks it."""
        current = self.files.get(path)
        if current is None:
            raise ApplyError(f"document {path} is not in the KB")
        try:
            self._set(path, apply_section_patch(current, patch, self.today, path))
        except PatchError as exc:
            raise ApplyError(str(exc)) from None
        return path
