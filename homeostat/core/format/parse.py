"""Parsing KB files into located rules and documents, turning every problem into a finding.

Parsing never raises on bad content: a broken file becomes findings naming the file, line, key path
and what was expected, and the rest of the KB still loads, so one bad rule cannot hide the others.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, get_args

from pydantic import BaseModel, ValidationError

from homeostat.core.findings import Finding, error
from homeostat.core.format.fast_meta import rule_meta
from homeostat.core.format.markdown import Frontmatter, Heading, headings, split_frontmatter
from homeostat.core.format.yamltext import YamlDoc, YamlError, line_of, load_yaml
from homeostat.core.records import Record
from homeostat.core.schema import (
    RULE_WORD_LIMIT,
    WHY_WORD_LIMIT,
    BodySection,
    DocMeta,
    DocSection,
    Document,
    Provenance,
    Rule,
    RuleMeta,
)
from homeostat.core.text import count_words

SCHEMA = "schema"
_BODY_PARTS = {"rule": "Rule", "why": "Why", "example": "Example"}
_COMMENT_OPEN = "<!-- homeostat"
_PROVENANCE = re.compile(r"^<!--\s*homeostat:\s*(?P<fields>.*?)\s*-->\s*$")
_PAIR = re.compile(r'(?P<key>[A-Za-z][\w-]*)=(?:"(?P<quoted>(?:[^"\\]|\\.)*)"|(?P<plain>\S+))')


def pydantic_findings(
    exc: ValidationError, file: str, doc: YamlDoc | None, line_offset: int, *, check: str = SCHEMA
) -> list[Finding]:
    """One finding per validation error, with the key path and the line it sits on."""
    found: list[Finding] = []
    for item in exc.errors():
        loc = tuple(item["loc"])
        path = ".".join(str(part) for part in loc) or "(top level)"
        if item["type"] == "extra_forbidden":
            message = f"unknown key {path!r}; remove it or check its spelling"
        elif item["type"] == "missing":
            message = f"{path}: missing required key"
        else:
            detail = str(item["msg"]).removeprefix("Value error, ")
            message = f"{path}: {detail}"
        line = line_of(doc, loc, 1) if doc is not None else 1
        found.append(error(check, file, line_offset + line - 1, message))
    return found


def load_mapping(
    yaml_text: str, file: str, line_offset: int, what: str = ""
) -> tuple[YamlDoc | None, list[Finding]]:
    """`what` names the YAML inside a file (frontmatter, section fields); a whole-file YAML such as
    homeostat.yaml leaves it empty, so a message never names its file twice."""
    try:
        doc = load_yaml(yaml_text)
    except YamlError as exc:
        said = f"{what}: {exc}" if what else str(exc)
        return None, [error(SCHEMA, file, line_offset + exc.line - 1, said)]
    if not isinstance(doc.data, dict):
        return None, [
            error(SCHEMA, file, line_offset, f"{what or file} must be a YAML mapping of keys to values")
        ]
    return doc, []


def validate_model(
    model: type[BaseModel], data: Mapping[str, Any], file: str, doc: YamlDoc, line_offset: int
) -> tuple[Any, list[Finding]]:
    if doc.folded and model in (RuleMeta, DocMeta):
        folded = _folded_findings(doc, file, line_offset)
        if folded:
            return None, folded
    fast = rule_meta(data) if model is RuleMeta else None  # None: pydantic decides, and words any error
    if fast is not None:
        return fast, []
    try:
        value = model.model_validate(dict(data))
    except ValidationError as exc:
        return None, pydantic_findings(exc, file, doc, line_offset)
    _share_fields_sets(value)
    return value, []


def _folded_findings(doc: YamlDoc, file: str, line_offset: int) -> list[Finding]:
    """A rule's or document's one-line field (a title, a glob, an id, a handle, a date…) that YAML
    joined from several lines of the file, or from a line break it reads and an editor may not show
    (NEL, a lone carriage return): exporters write it on one line, and what a reviewer saw is not
    what is served. A flag's reason is prose and may wrap."""
    found = []
    for path in doc.folded:
        if path[-1:] == ("reason",) or (len(path) >= 2 and path[-2] == "reason"):
            continue
        name = ".".join(str(part) for part in path) or "(top level)"
        found.append(
            error(
                SCHEMA,
                file,
                line_offset + line_of(doc, path, 1) - 1,
                f"{name}: a one-line field is written over several lines, or holds a line break YAML "
                "reads but an editor may not show (NEL U+0085, a lone carriage return); write it on "
                "one line",
            )
        )
    return found


_FIELDS_SETS: dict[frozenset[str], set[str]] = {}
_NESTED: dict[type[BaseModel], tuple[str, ...]] = {}


def _share_fields_sets(value: BaseModel) -> None:
    """pydantic keeps, per instance, the set of the fields its input gave (about 700 bytes), and a KB's
    rules give a handful of combinations between them. A frozen model's set is never changed in place
    (model_copy copies it), so instances share one set per combination: 90 MB at 100,000 rules."""
    if not value.model_config.get("frozen"):
        return
    fields = value.__pydantic_fields_set__
    key = frozenset(fields)
    shared = _FIELDS_SETS.get(key)
    if shared is None and len(_FIELDS_SETS) < 1000:
        shared = _FIELDS_SETS[key] = fields
    if shared is not None:
        object.__setattr__(value, "__pydantic_fields_set__", shared)
    kind = type(value)
    if kind not in _NESTED:
        _NESTED[kind] = tuple(
            name for name, info in kind.model_fields.items() if _holds_models(info.annotation)
        )
    for name in _NESTED[kind]:
        item = getattr(value, name)
        for nested in item if isinstance(item, tuple) else (item,):
            if isinstance(nested, BaseModel):
                _share_fields_sets(nested)


def _holds_models(annotation: object) -> bool:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return True
    return any(_holds_models(arg) for arg in get_args(annotation))


# --- rule bodies ---------------------------------------------------------------------------------


class ParsedBody(Record):
    parts: dict[str, BodySection]
    findings: list[Finding]


def parse_rule_body(
    body: str,
    file: str,
    body_line: int,
    level: int,
    found_headings: Sequence[Heading] | None = None,
    offset: int = 0,
    lines: int = 0,
) -> ParsedBody:
    """`## Rule`, `## Why`, optional `## Example` (### inside a topic file), with word limits.

    `found_headings` are `body`'s headings when the caller has already found them, read from a
    text in which `body` starts `offset` characters and `lines` lines in."""
    found: list[Finding] = []
    parts: dict[str, BodySection] = {}
    marks = [h for h in (headings(body) if found_headings is None else found_headings) if h.level == level]
    if marks and body[: marks[0].start - offset].strip():
        found.append(
            error(SCHEMA, file, body_line, f"text before {'#' * level} Rule; move it into a section")
        )
    if not marks and body.strip():
        found.append(
            error(SCHEMA, file, body_line, f"the body needs {'#' * level} Rule and {'#' * level} Why")
        )
    for index, mark in enumerate(marks):
        end = marks[index + 1].start - offset if index + 1 < len(marks) else len(body)
        name = mark.title.strip().lower()
        line = body_line + mark.line - lines - 1
        if name not in _BODY_PARTS:
            found.append(
                error(
                    SCHEMA,
                    file,
                    line,
                    f"unexpected section {'#' * level} {mark.title}; a rule has Rule, Why and optional Example",
                )
            )
            continue
        if name in parts:
            found.append(error(SCHEMA, file, line, f"section {'#' * level} {mark.title} appears twice"))
            continue
        parts[name] = BodySection(_BODY_PARTS[name], body[mark.end - offset : end].strip(), line)
    found += _part_findings(parts, file, body_line, level)
    return ParsedBody(parts, found)


def _part_findings(parts: Mapping[str, BodySection], file: str, body_line: int, level: int) -> list[Finding]:
    """Rule and Why are there and not empty, and within their word limits: an agent is served them
    whole, so a long one costs every session that gets it."""
    found: list[Finding] = []
    for name, label in (("rule", "Rule"), ("why", "Why")):
        if name not in parts:
            found.append(error(SCHEMA, file, body_line, f"missing section {'#' * level} {label}"))
        elif not parts[name].text:
            found.append(error(SCHEMA, file, parts[name].line, f"section {'#' * level} {label} is empty"))
    for name, limit in (("rule", RULE_WORD_LIMIT), ("why", WHY_WORD_LIMIT)):
        part = parts.get(name)
        if part is not None:
            n = count_words(part.text)
            if n > limit:
                found.append(
                    error(
                        SCHEMA,
                        file,
                        part.line,
                        f"{part.name} has {n} words (limit {limit}); shorten it or move detail to Why or a document",
                    )
                )
    return found


def _rule_from(
    meta: RuleMeta, body: ParsedBody, file: str, line: int, virtual_path: str, in_topic_file: bool
) -> Rule | None:
    if "rule" not in body.parts or "why" not in body.parts:
        return None
    example = body.parts.get("example")
    return Rule(  # meta, rule, why, example, file, line, virtual_path, in_topic_file
        meta,
        body.parts["rule"].text,
        body.parts["why"].text,
        example.text if example else None,
        file,
        line,
        virtual_path,
        in_topic_file,
    )


# --- rule files ----------------------------------------------------------------------------------


def _frontmatter(
    file: str, front: Frontmatter | None, model: type[BaseModel], missing: str
) -> tuple[Any, Frontmatter | None, YamlDoc | None, list[Finding]]:
    """Parse and validate a file's frontmatter (`split_frontmatter`'s); every problem is a finding."""
    if front is None:
        return None, None, None, [error(SCHEMA, file, 1, f"missing YAML frontmatter ({missing})")]
    doc, found = load_mapping(front.yaml_text, file, front.yaml_line, "frontmatter")
    if doc is None:
        return None, front, None, found
    meta, problems = validate_model(model, doc.data, file, doc, front.yaml_line)
    return meta, front, doc, found + problems


def parse_rule_file(file: str, text: str, area_dir: str) -> tuple[Rule | None, list[Finding]]:
    """A one-rule file `knowledge/<area>/<id>.md`: YAML frontmatter, then the body."""
    return read_rule_file(file, split_frontmatter(text), area_dir)


def read_rule_file(file: str, front: Frontmatter | None, area_dir: str) -> tuple[Rule | None, list[Finding]]:
    """`parse_rule_file` of a text already split (`split_frontmatter`)."""
    meta, front, doc, found = _frontmatter(file, front, RuleMeta, "the file must start with ---")
    if front is None or doc is None:
        return None, found
    body = parse_rule_body(front.body, file, front.body_line, level=2)
    found += body.findings
    if meta is None:
        return None, found
    stem = file.rsplit("/", 1)[-1].removesuffix(".md")
    if stem != meta.id:
        found.append(
            error(
                SCHEMA,
                file,
                front.yaml_line - 1 + line_of(doc, ("id",)),
                f"id {meta.id!r} does not match the file name {stem!r}.md",
            )
        )
    if meta.area != area_dir:
        found.append(
            error(
                SCHEMA,
                file,
                front.yaml_line - 1 + line_of(doc, ("area",)),
                f"area {meta.area!r} does not match its folder {area_dir!r}",
            )
        )
    rule = _rule_from(meta, body, file, 1, f"{area_dir}/{meta.id}.md", False)
    return rule, found


# --- topic files ---------------------------------------------------------------------------------


class TopicSection(Record):
    """A tuple, as `TopicPart` (one per rule: a frozen dataclass takes 2.5x as long to make)."""

    id: str
    title: str
    line: int
    start: int
    end: int


@dataclass(frozen=True)
class TopicFile:
    file: str
    area: str
    topic: str
    sections: tuple[TopicSection, ...]
    preamble_end: int  # offset where the first section starts


def is_topic_file(text: str) -> bool:
    """A topic file's frontmatter names `topic:` and has no `id:`."""
    return is_topic_front(split_frontmatter(text))


def is_topic_front(front: Frontmatter | None) -> bool:
    """`is_topic_file` of a text already split (`split_frontmatter`)."""
    if front is None or "topic" not in front.yaml_text:  # no key can be `topic`: a rule file's case
        return False
    keys = {
        line.split(":", 1)[0].strip()
        for line in front.yaml_text.splitlines()
        if ":" in line and not line.startswith((" ", "\t", "-"))
    }
    return "topic" in keys and "id" not in keys


def parse_topic_file(
    file: str, text: str, area_dir: str
) -> tuple[TopicFile | None, list[Rule], list[Finding]]:
    """`<area>/<topic>.md`: `## Title {#id}` sections, fields in a `<!-- homeostat … -->` YAML comment."""
    parsed = parse_topic(file, text, area_dir)
    return parsed.topic_file, list(parsed.rules), list(parsed.findings)


class TopicPart(Record):
    """One `## ` heading of a topic file and the text up to the next: its section (None when the
    heading has no `{#id}`), its rule (None when it does not parse) and the findings of its text.
    A tuple: a topic file makes one per rule, and a frozen dataclass takes 2.5x as long to make."""

    start: int  # offsets in the file
    end: int
    line: int  # of the heading
    section: TopicSection | None
    rule: Rule | None
    findings: tuple[Finding, ...]

    def shifted(self, by: int, lines: int) -> TopicPart:
        """The same part `by` characters and `lines` lines further down its file."""
        if not by and not lines:
            return self
        section = self.section
        if section is not None:
            section = TopicSection(
                section.id, section.title, section.line + lines, section.start + by, section.end + by
            )
        rule = replace(self.rule, line=self.rule.line + lines) if self.rule is not None else None
        return TopicPart(
            self.start + by,
            self.end + by,
            self.line + lines,
            section,
            rule,
            tuple(replace(f, line=f.line + lines) for f in self.findings),
        )


@dataclass(frozen=True)
class TopicParse:
    """A topic file parsed part by part, so an edit to a few sections re-reads only those
    (`reparse_topic`); `parse_topic_file` is its flat form."""

    file: str
    area_dir: str
    head: tuple[Finding, ...]  # the frontmatter's findings and text before the first section
    parts: tuple[TopicPart, ...]
    topic_file: TopicFile | None  # None when the frontmatter does not parse
    body_line: int = 1
    area: str = ""
    topic: str = ""

    @property
    def rules(self) -> tuple[Rule, ...]:
        return tuple(part.rule for part in self.parts if part.rule is not None)

    @property
    def findings(self) -> tuple[Finding, ...]:
        return self.head + tuple(f for part in self.parts for f in part.findings)


def parse_topic(file: str, text: str, area_dir: str, front: Frontmatter | None = None) -> TopicParse:
    """`front`: the text's frontmatter, when the caller has split it already."""
    front = front or split_frontmatter(text)
    assert front is not None  # is_topic_file checked it
    doc, found = load_mapping(front.yaml_text, file, front.yaml_line, "frontmatter")
    if doc is None:
        return TopicParse(file, area_dir, tuple(found), (), None)
    header = dict(doc.data)
    area = str(header.get("area", ""))
    topic = str(header.get("topic", ""))
    stem = file.rsplit("/", 1)[-1].removesuffix(".md")
    found += _topic_header_findings(doc, file, front.yaml_line, area_dir, stem)
    body = front.body
    every = headings(body)  # the file's one heading pass; each section takes its own from it
    marks = [h for h in every if h.level == 2]
    if marks and body[: marks[0].start].strip():
        found.append(
            error(
                "topic-file",
                file,
                front.body_line,
                "text before the first ## section; a topic file holds only rule sections",
            )
        )
    parts = _topic_parts(file, body, every, front.body_offset, front.body_line, area, topic or stem)
    preamble_end = front.body_offset + (marks[0].start if marks else len(body))
    sections = tuple(part.section for part in parts if part.section is not None)
    return TopicParse(
        file,
        area_dir,
        tuple(found),
        parts,
        TopicFile(file, area, topic, sections, preamble_end),
        front.body_line,
        area,
        topic or stem,
    )


def _topic_header_findings(
    doc: YamlDoc, file: str, yaml_line: int, area_dir: str, stem: str
) -> list[Finding]:
    """A topic file's frontmatter holds its area and topic only, and they match its folder and file
    name: a moved or renamed file would otherwise serve its rules under the old names."""
    header = doc.data
    found: list[Finding] = []
    for key in sorted(set(header) - {"area", "topic"}):
        found.append(
            error(
                SCHEMA,
                file,
                yaml_line - 1 + line_of(doc, (key,)),
                f"unknown key {key!r} in a topic file's frontmatter (it holds area and topic)",
            )
        )
    area = str(header.get("area", ""))
    topic = str(header.get("topic", ""))
    if area != area_dir:
        found.append(
            error(
                SCHEMA,
                file,
                yaml_line - 1 + line_of(doc, ("area",)),
                f"area {area!r} does not match its folder {area_dir!r}",
            )
        )
    if topic != stem:
        found.append(
            error(
                "topic-file",
                file,
                yaml_line - 1 + line_of(doc, ("topic",)),
                f"topic {topic!r} does not match the file name {stem!r}.md",
            )
        )
    return found


def _topic_parts(
    file: str, body: str, every: Sequence[Heading], offset: int, body_line: int, area: str, topic: str
) -> tuple[TopicPart, ...]:
    """The parts of `body` (which starts `offset` characters and `body_line` lines into the file),
    given its headings `every`."""
    starts = [h.start for h in every]
    marks = [h for h in every if h.level == 2]
    parts: list[TopicPart] = []
    for index, mark in enumerate(marks):
        end = marks[index + 1].start if index + 1 < len(marks) else len(body)
        line = body_line + mark.line - 1
        if mark.anchor is None:
            problem = error(
                "topic-file",
                file,
                line,
                f"section '## {mark.title}' has no {{#id}}; write '## {mark.title} {{#<id>}}'",
            )
            parts.append(TopicPart(offset + mark.start, offset + end, line, None, None, (problem,)))
            continue
        start, stop = offset + mark.start, offset + end  # one int each for the section and its part
        section = TopicSection(mark.anchor, mark.title, line, start, stop)
        inner = every[bisect_left(starts, mark.end) : bisect_left(starts, end)]
        rule, problems = _parse_topic_section(file, body[mark.end : end], mark, line, area, topic, inner)
        parts.append(TopicPart(start, stop, line, section, rule, tuple(problems)))
    return tuple(parts)


# --- re-reading an edited topic file -------------------------------------------------------------

_ATX2 = re.compile(r"##[ \t]")
_CHUNK = 4096


def common_prefix(a: str, b: str) -> int:
    """How many leading characters `a` and `b` share (compared a block at a time, in C)."""
    n = min(len(a), len(b))
    at = 0
    while at < n and a[at : at + _CHUNK] == b[at : at + _CHUNK]:
        at += _CHUNK
    if at >= n:
        return n
    lo, hi = at, min(at + _CHUNK, n)  # the first difference is in [lo, hi)
    while lo < hi:
        mid = (lo + hi) // 2
        if a[at : mid + 1] == b[at : mid + 1]:
            lo = mid + 1
        else:
            hi = mid
    return lo


def common_suffix(a: str, b: str, limit: int) -> int:
    """How many trailing characters `a` and `b` share, at most `limit`."""
    n = min(len(a), len(b), limit)
    at = 0
    while at + _CHUNK <= n and a[len(a) - at - _CHUNK : len(a) - at] == b[len(b) - at - _CHUNK : len(b) - at]:
        at += _CHUNK
    lo, hi = at, min(at + _CHUNK, n)  # the suffix is at least `lo` long and at most `hi`
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[len(a) - mid : len(a) - at] == b[len(b) - mid : len(b) - at]:
            lo = mid
        else:
            hi = mid - 1
    return lo


@dataclass(frozen=True)
class TopicWindow:
    """Where an edit changed a topic file: old parts `first` to `last` (inclusive) became the
    parts read from `text` (`new[start:start + len(text)]`); parts after moved by `delta`
    characters and `lines` lines."""

    first: int
    last: int
    start: int
    text: str
    delta: int
    lines: int
    headings: tuple[Heading, ...]  # of `text`, as the whole file's heading pass reads them


def topic_window(old: TopicParse, old_text: str, new_text: str) -> TopicWindow | None:
    """The smallest run of whole sections holding every change, when reading just those gives what
    reading the whole file would: the change lies past the first section's heading, the run starts
    with a `## ` line, and the section after it (if any) is still read as its own (no fence or HTML
    block left open). None otherwise, or when nothing changed."""
    parts = old.parts
    if old.topic_file is None or not parts or old_text == new_text:
        return None
    p = common_prefix(old_text, new_text)
    if p <= parts[0].start:
        return None
    s = common_suffix(old_text, new_text, min(len(old_text), len(new_text)) - p)
    starts = [part.start for part in parts]
    first = bisect_left(starts, p) - 1
    last = max(first, bisect_right(starts, max(len(old_text) - s - 1, p)) - 1)
    start, old_end = parts[first].start, parts[last].end
    delta = len(new_text) - len(old_text)
    text = new_text[start : old_end + delta]
    if not _ATX2.match(text):
        return None
    tail = ""
    if last + 1 < len(parts):
        following = parts[last + 1].start
        line_end = old_text.find("\n", following)
        tail = old_text[following : len(old_text) if line_end == -1 else line_end + 1]
        if not _ATX2.match(tail):
            return None
    found = headings(text + tail)
    if not found or found[0].start != 0 or found[0].level != 2:
        return None
    if tail:
        if found[-1].start != len(text) or found[-1].level != 2:
            return None
        found.pop()
    lines = text.count("\n") - old_text.count("\n", start, old_end)
    return TopicWindow(first, last, start, text, delta, lines, tuple(found))


def reparse_topic(old: TopicParse, old_text: str, new_text: str) -> TopicParse:
    """`parse_topic(old.file, new_text, old.area_dir)`, re-reading only the sections an edit changed
    (see `topic_window`); the whole file where that would not give the same answer."""
    window = topic_window(old, old_text, new_text)
    if window is None or old.topic_file is None:
        return parse_topic(old.file, new_text, old.area_dir)
    first = old.parts[window.first]
    middle = _topic_parts(
        old.file, window.text, window.headings, window.start, first.line, old.area, old.topic
    )
    after = tuple(part.shifted(window.delta, window.lines) for part in old.parts[window.last + 1 :])
    parts = old.parts[: window.first] + middle + after
    sections = tuple(part.section for part in parts if part.section is not None)
    topic_file = old.topic_file
    return TopicParse(
        old.file,
        old.area_dir,
        old.head,
        parts,
        TopicFile(topic_file.file, topic_file.area, topic_file.topic, sections, topic_file.preamble_end),
        old.body_line,
        old.area,
        old.topic,
    )


def _inner_headings(
    text: str, at: int, mark: Heading, inner: Sequence[Heading]
) -> tuple[Sequence[Heading], int, int] | None:
    """What `headings(text[at:])` finds, for a section's `text` (`body[mark.end:end]`, under heading
    `mark`), taken from the file's one heading pass (`inner`: its headings inside the section): those
    headings, and how many characters and lines into the file `text[at:]` starts. None where the two
    could differ: text after the field comment's `-->` on its line, or a fence before `at`."""
    line_end = text.find("\n", at)
    if text[at : len(text) if line_end == -1 else line_end].strip():
        return None
    head = text[:at]
    if "```" in head or "~~~" in head:
        return None
    offset = mark.end + at
    if inner and inner[0].start < offset:
        inner = [h for h in inner if h.start >= offset]
    return inner, offset, mark.line + head.count("\n")


def _parse_topic_section(
    file: str,
    text: str,
    mark: Heading,
    heading_line: int,
    area: str,
    topic: str,
    inner: Sequence[Heading] | None = None,
) -> tuple[Rule | None, list[Finding]]:
    """`inner`: the file's headings inside this section, from its one heading pass; None reads the
    section's body on its own."""
    comment = _section_comment(file, text, mark, heading_line)
    if not isinstance(comment, _SectionComment):
        return None, comment
    doc, problems = load_mapping(comment.yaml_text, file, comment.line + 1, "section fields")
    if doc is None:
        return None, problems
    found = _heading_fields(doc, file, comment.line, mark, area, topic)
    meta, problems = validate_model(RuleMeta, doc.data, file, doc, comment.line + 1)
    found += problems
    after = text[comment.end :]
    known = None if inner is None else _inner_headings(text, comment.end, mark, inner)
    if known is None:
        body = parse_rule_body(after, file, comment.body_line, 3)
    else:
        body = parse_rule_body(after, file, comment.body_line, 3, *known)
    found += body.findings
    if meta is None:
        return None, found
    return _rule_from(meta, body, file, heading_line, f"{area}/{meta.id}.md", True), found


class _SectionComment(Record):
    """Where a topic section's `<!-- homeostat` comment is: its first line, the YAML inside it, the
    offset in the section's text just past `-->` and the line the body starts on."""

    line: int
    yaml_text: str
    end: int
    body_line: int


def _section_comment(
    file: str, text: str, mark: Heading, heading_line: int
) -> _SectionComment | list[Finding]:
    """The section's fields comment, which must open the section (after blank lines), be closed, and
    hold its YAML on the lines after `<!-- homeostat`; else the one finding saying which."""
    stripped = text.lstrip("\n")
    skipped = len(text) - len(stripped)  # blank lines: lstrip took only newlines
    comment_line = heading_line + 1 + skipped
    if not stripped.startswith(_COMMENT_OPEN):
        return [
            error(
                "topic-file",
                file,
                heading_line,
                f"section {{#{mark.anchor}}} must start with a <!-- homeostat … --> comment holding its fields",
            )
        ]
    close = stripped.find("-->")
    if close == -1:
        return [
            error("topic-file", file, comment_line, "the <!-- homeostat comment is never closed with -->")
        ]
    first_break = stripped.find("\n")
    if first_break == -1 or first_break > close:
        return [
            error(
                "topic-file",
                file,
                comment_line,
                "put the section's YAML fields on the lines after <!-- homeostat",
            )
        ]
    return _SectionComment(
        line=comment_line,
        yaml_text=stripped[first_break + 1 : close],
        end=skipped + close + 3,
        body_line=comment_line + stripped[: close + 3].count("\n"),
    )


def _heading_fields(
    doc: YamlDoc, file: str, comment_line: int, mark: Heading, area: str, topic: str
) -> list[Finding]:
    """A section's id and title come from its heading, its area and topic from the file: the same
    keys in its fields are reported and replaced, completing the reading's own dict in place."""
    found: list[Finding] = []
    data = doc.data  # nothing else holds it
    for key in ("id", "title", "area", "topic"):
        if key in data:
            found.append(
                error(
                    SCHEMA,
                    file,
                    comment_line + line_of(doc, (key,)),
                    f"{key} comes from the heading and the file; remove {key!r} from the section's fields",
                )
            )
            data.pop(key)
    data["id"], data["title"], data["area"], data["topic"] = mark.anchor, mark.title, area, topic
    return found


# --- documents -----------------------------------------------------------------------------------


def parse_provenance(line: str) -> Provenance | None:
    match = _PROVENANCE.match(line.strip())
    if not match:
        return None
    values: dict[str, str] = {}
    extra: list[tuple[str, str]] = []
    for pair in _PAIR.finditer(match.group("fields")):
        key = pair.group("key")
        value = pair.group("quoted") if pair.group("quoted") is not None else pair.group("plain")
        value = value.replace('\\"', '"')
        if key in ("source", "url", "updated", "confidence", "note"):
            values.setdefault(key, value)
        else:
            extra.append((key, value))
    return Provenance(
        source=values.get("source", ""),
        url=values.get("url", ""),
        updated=values.get("updated", ""),
        confidence=values.get("confidence", ""),
        note=values.get("note", ""),
        extra=tuple(extra),
        stray=" ".join(_PAIR.sub(" ", match.group("fields")).split()),
    )


def parse_document(file: str, text: str, area_dir: str) -> tuple[Document | None, list[Finding]]:
    """`knowledge/<area>/docs/<name>.md`: frontmatter, then `## Heading {#id}` sections."""
    meta, front, doc, found = _frontmatter(
        file, split_frontmatter(text), DocMeta, "title, area, owner, scope, updated"
    )
    if meta is None or front is None or doc is None:
        return None, found
    if meta.area != area_dir:
        found.append(
            error(
                SCHEMA,
                file,
                front.yaml_line - 1 + line_of(doc, ("area",)),
                f"area {meta.area!r} does not match its folder {area_dir!r}",
            )
        )
    body = front.body
    marks = [h for h in headings(body) if h.level == 2]
    sections: list[DocSection] = []
    for index, mark in enumerate(marks):
        end = marks[index + 1].start if index + 1 < len(marks) else len(body)
        line = front.body_line + mark.line - 1
        if mark.anchor is None:
            found.append(
                error(
                    "document",
                    file,
                    line,
                    f"section '## {mark.title}' has no {{#id}}; write '## {mark.title} {{#<id>}}'",
                )
            )
            continue
        content = body[mark.end : end]
        first, _, rest = content.lstrip("\n").partition("\n")
        provenance = parse_provenance(first)
        section_body = rest if provenance is not None else content
        sections.append(
            DocSection(
                id=mark.anchor,
                heading=mark.title,
                provenance=provenance,
                body=section_body.strip("\n"),
                line=line,
                start=front.body_offset + mark.start,
                end=front.body_offset + end,
            )
        )
    name = file.rsplit("/", 1)[-1].removesuffix(".md")
    return Document(meta, tuple(sections), file, f"{area_dir}/{name}"), found
