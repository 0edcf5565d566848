"""The rendered view agents read: lean Markdown, no frontmatter, within a token budget.

Layout: a context header (rules never override the user or safety), the rules grouped by kind under
one guidance line each, the document sections that name a touched path, and the lookup guide (what
was left out, counted by topic and by area, never listed by title; the tools; the moments to look
things up; the credit line). A budget too small for the guide gets its compact form.

Why counts and moments rather than titles: on real sessions, listing titles made agents open only the
listed pages and never search; a count plus "search, then read" and concrete moments brought searches
back (the design's Delivery section).

Token counts never load the tokenizer here: rule and section views carry counts made when the corpus
was built, and every other line is one of a few templates whose counts the corpus also carries (digits
normalised: every 1–3 digit number is one token in cl100k). The sum of the parts is an upper bound on
the whole text's count; the tests hold it to within a few percent.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from operator import attrgetter

from homeostat.core.records import Record
from homeostat.core.selection.audience import Audience
from homeostat.core.selection.budget import Cut, Fitted, Placed, fit_rules, group_of
from homeostat.core.selection.corpus import Corpus
from homeostat.core.selection.documents import covering_documents, fit_sections, select_sections
from homeostat.core.selection.entries import CORE, Budget, Entry, SectionEntry
from homeostat.core.selection.rank import Selection, rank_summary, select_entries
from homeostat.core.text import plural
from homeostat.core.type_hints import TYPE_CHECKING

if TYPE_CHECKING:  # search is imported by the commands that search or match a message
    from homeostat.core.selection.search import Hit, PromptMatch

CREDIT = "> From Homeostat (<id>)"
HEADER = (
    "# Team rules for these files (Homeostat)",
    "Reviewed knowledge from your team's KB. It never overrides the user's instructions or safety; "
    "if a rule conflicts with either, follow them and say so.",
)
GROUPS: dict[str, str] = {
    "convention": "## Conventions: follow these",
    "practice": "## Practices: follow these",
    "review-lesson": "## Review lessons: reviewers asked for these",
    "decision": "## Decisions: follow these",
    "migration": "## Migrations in progress: write new code the new way",
    "anti-pattern": "## Anti-patterns: never write these",
    "legacy": "## Legacy code: keep it working, do not extend it",
    "tech-debt": "## Known tech debt: do not copy it; fix it only when asked",
    "rule": "## Rules: follow these",
    "rejected": "## Rejected decisions: do not propose or do these",
}
DOCS_LINE = "## Documents that name these files"
GUIDE_TITLE = "## Look things up"
REST_LINE = "Not shown here, by topic (search for them):"
DOCS_GUIDE_LINE = "Documents covering these files, by area (`docs`, then `read`):"
TOOLS_LINE = (
    "Tools: `search` (rules and document sections), `docs` then `read` (a document or one section), "
    "`context` (other files), `explain` (a rule's source and owner)."
)
MOMENTS_LINE = (
    "Look things up at these moments: a bug report, writing a test, new code or making parts fit, "
    "a why or what's-left question, before a commit."
)
CREDIT_LINE = f"When a rule or section guides your work, say so: `{CREDIT}`."
COMPACT_LINE = (
    "Homeostat: 0 more rules and 0 documents for these files: `search`, then `read`. Look things up at "
    f"a bug report, a test, new code, a why or what's-left question, a commit. Credit: `{CREDIT}`."
)
PROMPT_TITLE = "## Team knowledge matching this message (Homeostat)"
NEW_TITLE = "## New team rules since this session started (Homeostat)"
REMINDER = (
    "Homeostat: at a bug report, a test, new code, a why or what's-left question or a commit, `search` "
    f"the team KB first; credit what you use with `{CREDIT}`."
)
# The full guide is used while it takes at most this share of the budget.
COMPACT_SHARE = 0.2

_DIGITS = re.compile(r"\d+")


# --- counting lines without the tokenizer ----------------------------------------------------------


def normalise(line: str) -> tuple[str, int]:
    """Digits → "0", plus the tokens the real digits add (a run of n digits is ⌈n/3⌉ tokens)."""
    extra = 0

    def one(match: re.Match[str]) -> str:
        nonlocal extra
        extra += math.ceil(len(match.group(0)) / 3) - 1
        return "0"

    return _DIGITS.sub(one, line), extra


class LineCounter:
    """Counts a line from the corpus's memo; anything else goes to `fallback` (the real tokenizer)."""

    def __init__(self, memo: Mapping[str, int], fallback: Callable[[str], int] | None = None) -> None:
        self.memo = memo
        self.fallback = fallback
        self.misses: list[str] = []
        self._hits: dict[str, int] = {}  # a view counts its guide's lines up to three times

    def __call__(self, line: str) -> int:
        found = self._hits.get(line)
        if found is not None:
            return found
        key, extra = normalise(line)
        known = self.memo.get(key)
        if known is not None:
            found = self._hits[line] = known + extra
            return found
        self.misses.append(line)
        if self.fallback is not None:
            return self.fallback(line)
        return len(line.encode("utf-8"))  # never more tokens than bytes


def _rest_line(area: str, topic: str, count: int) -> str:
    label = f"{area} › {topic}" if topic else area
    return f"- {label}: {count} {'rule' if count == 1 else 'rules'}"


def _doc_line(area: str, count: int) -> str:
    return f"- {area}: {count} {'document' if count == 1 else 'documents'}"


def _compact_line(rules: int, documents: int) -> str:
    return COMPACT_LINE.replace("0 more rules", f"{rules} more rules", 1).replace(
        "0 documents", f"{documents} documents", 1
    )


def memo_lines(entries: Iterable[Entry], doc_areas: Iterable[str], area_names: Iterable[str]) -> list[str]:
    """Every line a view can hold besides rule and section views, with digits normalised to "0"."""
    lines = [
        *HEADER,
        *GROUPS.values(),
        DOCS_LINE,
        GUIDE_TITLE,
        REST_LINE,
        DOCS_GUIDE_LINE,
        TOOLS_LINE,
        MOMENTS_LINE,
        CREDIT_LINE,
        COMPACT_LINE,
        PROMPT_TITLE,
        NEW_TITLE,
        REMINDER,
        "",
    ]
    labels = {(e.area, e.topic) for e in entries} | {(a, "") for a in area_names} | {(CORE, "")}
    for area, topic in sorted(labels):
        lines += [_rest_line(area, topic, 0), _rest_line(area, topic, 1)]
    for area in sorted(set(doc_areas) | set(area_names) | {CORE}):
        lines += [_doc_line(area, 0), _doc_line(area, 1)]
    return sorted({normalise(line)[0] for line in lines})


# --- blocks ---------------------------------------------------------------------------------------


class Block(Record):
    text: str
    tokens: int


def lines_block(lines: Sequence[str], count: Callable[[str], int]) -> Block:
    """Lines joined by newlines, each newline one token."""
    if not lines:
        return Block("", 0)
    return Block("\n".join(lines) + "\n", sum(count(line) for line in lines) + len(lines))


BLANK = Block("\n", 1)


def join(blocks: Iterable[Block]) -> Block:
    kept = [b for b in blocks if b.text]
    return Block("".join(b.text for b in kept), sum(b.tokens for b in kept))


# --- the session view -----------------------------------------------------------------------------


class View(Record):
    text: str
    tokens: int
    selection: Selection
    placed: tuple[Placed, ...]
    sections: tuple[SectionEntry, ...]
    cut: tuple[Cut, ...]
    not_applicable: tuple[Entry, ...]
    rest_by_topic: Mapping[tuple[str, str], int]
    documents_by_area: Mapping[str, int]
    compact: bool
    budget: Budget

    @property
    def chars(self) -> int:
        return len(self.text)

    @property
    def served_ids(self) -> tuple[str, ...]:
        return tuple(p.entry.id for p in self.placed)

    def to_data(self) -> dict[str, object]:
        return {
            "text": self.text,
            "tokens": self.tokens,
            "chars": self.chars,
            "rules": [{"id": p.entry.id, "form": p.form, "tier": p.ranked.tier} for p in self.placed],
            "sections": [s.key for s in self.sections],
            "cut": [{"id": c.id, "what": c.what, "reason": c.reason} for c in self.cut],
            "notForTheseFiles": len(self.not_applicable),
            "task": list(self.selection.task),
            "compact": self.compact,
            "budget": {
                "tokens": self.budget.token_budget,
                "docTokens": self.budget.doc_token_budget,
                "chars": self.budget.max_chars,
            },
        }


def _group_blocks(placed: Sequence[Placed], count: Callable[[str], int]) -> list[Block]:
    order: list[str] = []
    members: dict[str, list[Placed]] = {}
    for item in placed:
        group = group_of(item.entry)
        if group not in members:
            order.append(group)
            members[group] = []
        members[group].append(item)
    blocks: list[Block] = []
    for group in order:
        blocks += [BLANK, lines_block([GROUPS[group]], count)]
        blocks += [Block(item.text, item.tokens) for item in members[group]]
    return blocks


def group_cost(count: Callable[[str], int]) -> Callable[[str], tuple[int, int]]:
    """What opening a kind group costs: a blank line and its guidance line."""

    def cost(group: str) -> tuple[int, int]:
        line = GROUPS[group]
        return count(line) + 2, len(line) + 2

    return cost


def _guide(
    rest: Mapping[tuple[str, str], int], docs: Mapping[str, int], compact: bool, count: Callable[[str], int]
) -> Block:
    if compact:
        return join([BLANK, lines_block([_compact_line(sum(rest.values()), sum(docs.values()))], count)])
    lines = [GUIDE_TITLE]
    if rest:
        lines.append(REST_LINE)
        lines += [_rest_line(area, topic, n) for (area, topic), n in sorted(rest.items())]
    if docs:
        lines.append(DOCS_GUIDE_LINE)
        lines += [_doc_line(area, n) for area, n in sorted(docs.items())]
    lines += [TOOLS_LINE, MOMENTS_LINE, CREDIT_LINE]
    return join([BLANK, lines_block(lines, count)])


_AREA_TOPIC, _ADOPTED = attrgetter("area", "topic"), attrgetter("adopted")


def _by_topic(
    entries: Iterable[Entry], then: Mapping[tuple[str, str], int] | None = None
) -> dict[tuple[str, str], int]:
    """Adopted rules per (area, topic), in first-seen order, followed by the counts `then` (of rules
    that come after them): the rules no tier took are counted once for both of a view's guides."""
    counts = dict(Counter(map(_AREA_TOPIC, filter(_ADOPTED, entries))))  # iterated in C: thousands of rules
    for key, n in (then or {}).items():
        counts[key] = counts.get(key, 0) + n
    return counts


def build_view(
    corpus: Corpus,
    touched: Sequence[str],
    audience: Audience,
    count: Callable[[str], int],
    *,
    budget: Budget | None = None,
    task: Sequence[str] = (),
) -> View:
    """Select, fit and render the session-start view; `task` is what the developer is doing, as words."""
    limits = budget or corpus.budget
    selection = select_entries(corpus, touched, audience, task)
    header = lines_block(HEADER, count)
    covering = {
        area: len(ids) for area, ids in covering_documents(corpus, selection.touched, audience).items()
    }
    untiered = _by_topic(selection.rest)
    worst_rest = _by_topic([r.entry for r in selection.ranked], untiered)
    full_guide = _guide(worst_rest, covering, False, count)
    compact = full_guide.tokens > COMPACT_SHARE * limits.token_budget
    reserved = _guide(worst_rest, covering, compact, count)
    free_tokens = max(0, limits.token_budget - header.tokens - reserved.tokens)
    free_chars = max(0, limits.max_chars - len(header.text) - len(reserved.text))
    fitted: Fitted = fit_rules(
        selection.ranked,
        math.floor(limits.rule_share * free_tokens),
        math.floor(limits.rule_share * free_chars),
        group_cost(count),
    )
    docs_line = lines_block([DOCS_LINE], count)
    doc_tokens = min(limits.doc_token_budget, free_tokens - fitted.tokens) - docs_line.tokens - 1
    doc_chars = free_chars - fitted.chars - len(docs_line.text) - 1
    sections, section_cuts = fit_sections(
        select_sections(corpus, selection.touched, audience), doc_tokens, doc_chars
    )
    served = {p.entry.id for p in fitted.placed}
    rest = _by_topic([r.entry for r in selection.ranked if r.entry.id not in served], untiered)
    guide = _guide(rest, covering, compact, count)
    doc_blocks = [BLANK, docs_line, *[Block(s.view, s.tokens) for s in sections]] if sections else []
    body = join([header, *_group_blocks(fitted.placed, count), *doc_blocks, guide])
    return View(
        text=body.text,
        tokens=body.tokens,
        selection=selection,
        placed=fitted.placed,
        sections=tuple(sections),
        cut=fitted.cut + tuple(section_cuts),
        not_applicable=selection.rest,
        rest_by_topic=rest,
        documents_by_area=covering,
        compact=compact,
        budget=limits,
    )


def explain_view(view: View) -> str:
    """What was served, what was cut and why, and what did not apply: `--explain`."""
    lines = [
        f"Served {plural(len(view.placed), 'rule')} and {plural(len(view.sections), 'document section')} in {view.tokens} tokens "
        f"(budget {view.budget.token_budget}), {view.chars} characters (cap {view.budget.max_chars})"
        + (", compact guide" if view.compact else "")
        + ".",
    ]
    task = view.selection.task
    lines.append(
        f"Task words: {', '.join(task)}." if task else "Task words: none (ranked by the touched paths alone)."
    )
    for item in view.placed:
        r = item.ranked
        lines.append(
            f"  served  {item.entry.id}  tier {r.tier}, {item.form}, rrf {r.rrf:.4f} ({rank_summary(r)})"
        )
    for section in view.sections:
        lines.append(f"  served  {section.key}  section naming a touched path")
    for cut in view.cut:
        lines.append(f"  cut     {cut.id}  {cut.what}: {cut.reason}")
    if view.not_applicable:
        lines.append(
            f"  {plural(len(view.not_applicable), 'rule')} do not apply to these files (counted in the lookup guide)."
        )
    return "\n".join(lines) + "\n"


# --- the per-message block ------------------------------------------------------------------------


def render_prompt(match: PromptMatch, count: Callable[[str], int]) -> Block:
    """The matched rules and sections in full, under one title, then the one-line reminder."""
    reminder = lines_block([REMINDER], count)
    if not match.rules and not match.sections:
        return reminder
    parts = [lines_block([PROMPT_TITLE], count)]
    parts += [Block(e.view, e.tokens) for e in match.rules]
    parts += [Block(s.view, s.tokens) for s in match.sections]
    return join([*parts, BLANK, reminder])


def render_new_rules(entries: Sequence[Entry], count: Callable[[str], int]) -> Block:
    """Rules merged since the session started that apply to its files (a long session gets only these)."""
    if not entries:
        return Block("", 0)
    return join([lines_block([NEW_TITLE], count), *[Block(e.view, e.tokens) for e in entries], BLANK])


# --- search, docs and read ---------------------------------------------------------------------------


def render_hits(hits: Sequence[Hit], query: str) -> str:
    if not hits:
        return (
            f"No rules or document sections match {query!r}. Try other words, or `docs` to list documents.\n"
        )
    lines = []
    for hit in hits:
        label = (
            "section"
            if hit.kind == "section"
            else ("rejected decision (do not do this)" if hit.rejected else "rule")
        )
        if hit.status == "pending":
            label += ", pending review"
        lines.append(f"- **{hit.title}** ({hit.id}) [{label}, {hit.area}]")
        if hit.snippet:
            lines.append(f"  {hit.snippet}")
    lines.append(f"Read one in full with `read <id>`; credit what you use with `{CREDIT}`.")
    return "\n".join(lines) + "\n"


def render_docs(corpus: Corpus, audience: Audience) -> str:
    """Documents this session may read, by area, with their section ids."""
    by_doc: dict[str, list[SectionEntry]] = {}
    for section in corpus.sections:
        if audience.sees(section.area, corpus):
            by_doc.setdefault(section.doc_id, []).append(section)
    if not by_doc:
        return "No documents in this KB for this repo.\n"
    lines = []
    for doc_id, sections in sorted(by_doc.items()):
        lines.append(f"- {doc_id}: {sections[0].doc_title} ({plural(len(sections), 'section')})")
        lines += [f"  - #{s.id} {s.heading}" for s in sections]
    lines.append("Read one with `read <doc>#<section>` (or the whole document with `read <doc>`).")
    return "\n".join(lines) + "\n"


def source_line(section: SectionEntry) -> str:
    parts = [f"source: {section.source or 'unknown'}"]
    if section.updated:
        parts.append(f"updated {section.updated}")
    if section.url:
        parts.append(section.url)
    return f"({', '.join(parts)})"


def render_sections(sections: Sequence[SectionEntry]) -> str:
    """Each section once, with its source."""
    seen: set[str] = set()
    out = []
    for section in sections:
        if section.key in seen:
            continue
        seen.add(section.key)
        out.append(f"{section.view}{source_line(section)}\n")
    return "\n".join(out)


def render_rule(entry: Entry) -> str:
    status = "" if entry.status == "accepted" else f" [{entry.status}]"
    rejected = " [rejected decision: do not do this]" if entry.rejected else ""
    return f"{entry.view}(area {entry.area}, scope {', '.join(entry.scope)}){status}{rejected}\n"
