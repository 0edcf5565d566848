"""Items of a rule file as candidate rules: titled, placed, checked and deduplicated.

A candidate keeps its file's scope exactly (`export` writes it back in the same form), goes to the
repo area that scope names (the repo's first area when it names none), and to the topic its words
name. Duplicates are found with the daily run's own consolidation code (`merge_candidates` for
the closest rules, then the `same_lesson` check with its number and look-alike-name guards), against
the KB's rules and against the candidates before it, so the same instruction in `AGENTS.md` and
`CLAUDE.md` is proposed once. Each candidate is then validated alone, as it would be written: a
secret or risky content blocks it, with the finding.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

from homeostat.core.bootstrap.drafting import Drafted
from homeostat.core.bootstrap.markdown_docs import split_long
from homeostat.core.bootstrap.placement import area_for_scope
from homeostat.core.config import CORE_AREA, Config
from homeostat.core.daily.apply import ApplyError, KbEdit
from homeostat.core.daily.consolidate import Candidate as Pool
from homeostat.core.daily.consolidate import candidate_from_rule, fallback, merge_candidates
from homeostat.core.daily.lessons import Lesson
from homeostat.core.imports.rulefiles import RuleFile
from homeostat.core.imports.split import Item, Prose
from homeostat.core.kb import CONFIG_FILE, KB, load_kb
from homeostat.core.pending import LessonText, text_of
from homeostat.core.safety.secrets import redact_secrets
from homeostat.core.schema import RULE_WORD_LIMIT, TITLE_CHAR_LIMIT, WHY_WORD_LIMIT, Rule
from homeostat.core.text import content_hash, count_words, slugify, words
from homeostat.core.validate import validate_files

# Shorter items are labels, not instructions ("Project Structure"); under a lead-in ("ALWAYS:") two
# words can instruct ("Pin dependencies").
MIN_WORDS, MIN_WORDS_LED = 3, 2
_BOLD_LEAD = re.compile(r"^\*\*(.+?)\*\*[:\s—–-]*")
_EMPHASIS = re.compile(r"(\*\*|__)(.+?)\1")
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s|\s[—–]\s")


@dataclass(frozen=True, kw_only=True)
class Candidate(LessonText):
    key: str  # what it is recorded under: its file and text
    file: str
    line: int
    url: str  # the file on the code host

    def lesson(self, created: dt.datetime) -> Lesson:
        return Lesson(
            key=self.key,
            origin="pending",
            kind="new",
            member="",
            originator="",
            source="manual",
            created=created,
            **text_of(self),
            url=self.url,
        )


def _clip(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    return (cut[: cut.rfind(" ")] if " " in cut else cut).rstrip(" ,;:") + "…"


def title_of(item: Item) -> str:
    """A bold lead (`**Use uv**: …`), else the first sentence; the lead-in named when it is short."""
    text = item.text[len(item.lead_in) :].strip() if item.lead_in else item.text
    bold = _BOLD_LEAD.match(text)
    if bold:
        text = bold.group(1)
    else:
        text = _SENTENCE_END.split(text, 1)[0]
    text = _EMPHASIS.sub(r"\2", text).strip().rstrip(".:;")
    lead = item.lead_in.rstrip(":").strip()
    if lead and count_words(lead) <= 4:
        text = f"{lead}: {text}"
    return _clip(" ".join(text.split()), TITLE_CHAR_LIMIT) or "Imported rule"


def why_of(path: str, headings: Sequence[str]) -> str:
    where = f" under “{' › '.join(headings)}”" if headings else ""
    text = f"The team's `{path}` says so{where}; imported so it is reviewed, scored and kept current like every rule."
    return text if count_words(text) <= WHY_WORD_LIMIT else f"The team's `{path}` says so."


def topic_for(config: Config, area: str, hints: Iterable[str]) -> str:
    """The area's topic the file or its headings name, else its first topic ('' without topics)."""
    topics = config.topics_for(area)
    if not topics:
        return ""
    seen = set(words(" ".join(hints)))
    return next((t for t in topics if set(words(t)) <= seen), topics[0])


@dataclass(frozen=True)
class Split:
    """A rule file's candidates, and its prose as document sections, all in one area."""

    area: str
    candidates: tuple[Candidate, ...]
    sections: tuple[Drafted, ...]


def _sections(prose: Sequence[Prose], title: str) -> list[Drafted]:
    grouped: list[tuple[tuple[str, ...], list[str]]] = []
    for piece in prose:
        if grouped and grouped[-1][0] == piece.headings:
            grouped[-1][1].append(piece.text)
        else:
            grouped.append((piece.headings, [piece.text]))
    out: list[Drafted] = []
    ids: set[str] = set()
    for headings, texts in grouped:
        heading = _clip(" › ".join(headings[-2:]) if headings else title, TITLE_CHAR_LIMIT) or "Overview"
        base = slugify(heading, prefix="section")
        section_id, n = base, 2
        while section_id in ids:
            section_id, n = f"{base}-{n}", n + 1
        for part in split_long(
            heading if section_id == base else f"{heading} ({n - 1})", section_id, "\n\n".join(texts)
        ):
            ids.add(part.id)
            out.append(part)
    return out


def split_file(
    config: Config,
    repo: str | None,
    rule_file: RuleFile,
    items: Sequence[Item],
    prose: Sequence[Prose],
    url: str,
) -> Split:
    """Candidates for the items that read as one instruction; the rest with the prose."""
    area = area_for_scope(config, repo, rule_file.scope)
    candidates: list[Candidate] = []
    leftover = list(prose)
    for item in items:
        own = item.text[len(item.lead_in) :] if item.lead_in else item.text
        if count_words(own) < (MIN_WORDS_LED if item.lead_in else MIN_WORDS):
            continue
        if count_words(item.text) > RULE_WORD_LIMIT:
            leftover.append(Prose(item.headings, f"- {item.written}", item.line))
            continue
        topic = topic_for(config, area, [rule_file.path, *item.headings, item.text])
        candidates.append(
            Candidate(
                key=content_hash("import", rule_file.path, item.text),
                file=rule_file.path,
                line=item.line,
                title=title_of(item),
                rule=item.written,
                why=why_of(rule_file.path, item.headings),
                example=item.example,
                scope=rule_file.scope,
                area=area,
                topic=topic,
                url=url,
            )
        )
    leftover.sort(key=lambda p: p.line)
    return Split(area, tuple(candidates), tuple(_sections(leftover, rule_file.path)))


# --- duplicates -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    candidate: Candidate
    outcome: str  # new | duplicate | blocked
    detail: str = ""  # the rule it repeats, or the findings that block it


def _pool_of(kb: KB, repo: str | None) -> list[Pool]:
    def mine(rule: Rule) -> bool:
        return rule.area == CORE_AREA or repo is None or rule.area.startswith(f"{repo}/")

    return [candidate_from_rule(r) for r in kb.rules if r.meta.status != "retired" and mine(r)]


def dedupe(kb: KB, repo: str | None, candidates: Sequence[Candidate], now: dt.datetime) -> list[Verdict]:
    """Each candidate: new, or a duplicate of a KB rule or of an earlier candidate."""
    pool = _pool_of(kb, repo)
    kb_ids = {c.id for c in pool}
    waiting: dict[str, Candidate] = {}
    verdicts: list[Verdict] = []
    for candidate in candidates:
        # The why is ours, not the file's: it would only dilute the word overlap.
        lesson = candidate.lesson(now).with_changes(why="")
        choices = merge_candidates(lesson, [*pool, *(_waiting(c) for c in waiting.values())])
        decided = fallback(lesson, choices)
        if decided.action == "duplicate":
            if decided.target in kb_ids:
                detail = f"already in the KB as `{decided.target}`"
            else:
                first = waiting[decided.target]
                detail = f"repeats `{first.file}` line {first.line}"
            verdicts.append(Verdict(candidate, "duplicate", detail))
            continue
        waiting[candidate.key] = candidate
        verdicts.append(Verdict(candidate, "new"))
    return verdicts


def _waiting(candidate: Candidate) -> Pool:
    return Pool(
        candidate.key,
        candidate.title,
        candidate.rule,
        candidate.why,
        candidate.area,
        candidate.scope,
        None,
        waiting=True,
    )


# --- validation -----------------------------------------------------------------------------------


def candidate_findings(
    config_text: str,
    candidate: Candidate,
    today: dt.date,
    now: dt.datetime,
    *,
    blocking: Collection[str] = (),
) -> list[str]:
    """The errors `validate` finds in the candidate written alone, as `check: message` lines with
    secrets redacted (a finding is shown to people; the secret it found must not be). The warnings
    of the checks named in `blocking` count too (`learn --from` blocks personal data: `email`)."""
    files = {CONFIG_FILE: config_text, "knowledge/": ""}
    edit = KbEdit.of(load_kb(files), today)
    try:
        edit.add_new(candidate.lesson(now))
    except (ApplyError, ValueError) as exc:
        return [f"schema: {str(exc).splitlines()[0]}"]
    result = validate_files({**files, **edit.diff(files)}, today)
    found = [
        f
        for f in result.findings
        if f.file in edit.changed
        and f.check not in ("cache", "conflict")
        and (f.severity == "error" or f.check in blocking)
    ]
    return list(
        dict.fromkeys(redact_secrets(f"{f.check}: {f.message}")[0] for f in found)
    )  # title and rule: once
