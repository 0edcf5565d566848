"""Loading a whole KB from a map of path → text (pure; the filesystem and git loaders feed it).

Layout: `homeostat.yaml` at the root; rules under `knowledge/<area>/` (one file per rule, or topic
files holding several); documents under `knowledge/<area>/docs/<name>.md`. With repo folders, an area
folder is `knowledge/<repo>/<area>/` and its name `<repo>/<area>`; shared rules sit in `knowledge/core/`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from homeostat.core.config import Config
from homeostat.core.findings import Finding, error
from homeostat.core.markdown import headings, split_frontmatter
from homeostat.core.model import Document, Rule
from homeostat.core.parse import (
    TopicFile,
    TopicSection,
    is_topic_file,
    load_mapping,
    parse_document,
    parse_rule_file,
    parse_topic_file,
    validate_model,
)
from homeostat.core.yamltext import YamlDoc
from homeostat.errors import KBReadError

CONFIG_FILE = "homeostat.yaml"
KNOWLEDGE = "knowledge/"
DOCS_DIR = "docs"


@dataclass(frozen=True)
class Unreadable:
    """A KB file (or one topic-file section) the loader could not read as a rule or document.

    Readers leave it out and say so; `ids` are the rule ids it would hold (the file name, or the
    sections' `{#id}`s), so `learn --update` and `export` can tell a broken rule from a missing one.
    """

    file: str
    line: int
    message: str
    ids: tuple[str, ...] = ()

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.message}"

    def row(self) -> tuple[str, int, str, tuple[str, ...]]:
        return (self.file, self.line, self.message, self.ids)


@dataclass(frozen=True)
class KB:
    files: Mapping[str, str]
    config: Config | None
    config_doc: YamlDoc | None
    rules: tuple[Rule, ...]
    documents: tuple[Document, ...]
    topic_files: tuple[TopicFile, ...]
    problems: tuple[Finding, ...]
    unreadable: tuple[Unreadable, ...] = ()
    _by_id: dict[str, Rule] = field(default_factory=dict, compare=False, repr=False)
    _sections: dict[tuple[str, str], TopicSection] = field(default_factory=dict, compare=False, repr=False)

    def rule(self, rule_id: str) -> Rule | None:
        if not self._by_id and self.rules:
            for rule in self.rules:
                self._by_id.setdefault(rule.id, rule)
        return self._by_id.get(rule_id)

    def topic_section(self, file: str, rule_id: str) -> TopicSection | None:
        """The first section `{#rule_id}` of topic file `file`; one map for the KB, so looking up
        every rule's section costs the number of rules, not rules times the sections of their file."""
        if not self._sections and self.topic_files:
            for topic_file in self.topic_files:
                for section in topic_file.sections:
                    self._sections.setdefault((topic_file.file, section.id), section)
        return self._sections.get((file, rule_id))

    def served_rules(self) -> tuple[Rule, ...]:
        """The rules a reader serves: none from a file, or topic section, that fails the schema."""
        if not self.unreadable:
            return self.rules
        broken = {(u.file, rule_id) for u in self.unreadable for rule_id in u.ids}
        return tuple(r for r in self.rules if (r.file, r.id) not in broken)

    def unreadable_rule(self, rule_id: str) -> Unreadable | None:
        """The unreadable file that would hold rule `rule_id`, if one does."""
        return next((u for u in self.unreadable if rule_id in u.ids), None)

    def document(self, doc_id: str) -> Document | None:
        return next((d for d in self.documents if d.doc_id == doc_id), None)

    def require_config(self) -> Config:
        """For commands that cannot go on without a valid config (everything but validate)."""
        if self.config is None:
            first = next((f for f in self.problems if f.file == CONFIG_FILE), None)
            detail = f"{first.file}:{first.line}: {first.message}" if first else f"{CONFIG_FILE} is invalid"
            raise KBReadError(f"{detail} (run homeostat validate for every problem)")
        return self.config


def load_config(text: str, file: str = CONFIG_FILE) -> tuple[Config | None, YamlDoc | None, list[Finding]]:
    doc, found = load_mapping(text, file, 1)
    if doc is None:
        return None, None, [f.__class__(f.file, f.line, f.severity, "config", f.message) for f in found]
    config, problems = validate_model(Config, doc.data, file, doc, 1)
    return config, doc, [f.__class__(f.file, f.line, f.severity, "config", f.message) for f in problems]


def decode_files(files: Mapping[str, str | bytes]) -> tuple[dict[str, str], list[Finding]]:
    """Bytes become text; a KB file that is not UTF-8 is a finding, never a crash.

    Only Markdown and homeostat.yaml must be text: an image beside a document is no KB file, so one
    that does not decode is simply not read.
    """
    texts: dict[str, str] = {}
    found: list[Finding] = []
    for path, content in files.items():
        if isinstance(content, str):
            texts[path] = content
            continue
        try:
            texts[path] = content.decode("utf-8")
        except UnicodeDecodeError as exc:
            if path != CONFIG_FILE and not path.endswith(".md"):
                continue
            line = content[: exc.start].count(b"\n") + 1
            found.append(error("schema", path, line, f"not UTF-8 (byte {exc.start}); save the file as UTF-8"))
    return texts, found


def classify(path: str) -> tuple[str, str] | None:
    """('rule'|'document', area_dir) for a Markdown file under knowledge/, else None."""
    if not path.startswith(KNOWLEDGE) or not path.endswith(".md"):
        return None
    parts = path[len(KNOWLEDGE) :].split("/")
    if parts[-1].lower() == "readme.md":
        return None
    if len(parts) >= 3 and parts[-2] == DOCS_DIR:
        return "document", "/".join(parts[:-2])
    return "rule", "/".join(parts[:-1])


def load_kb(
    files: Mapping[str, str | bytes], *, root: str = ".", on_file: Callable[[int, int], None] | None = None
) -> KB:
    """Load everything; problems become findings. Raise KBReadError only when there is no KB at all.

    `on_file(done, total)` is told as each KB file is parsed, for a caller that shows progress.
    """
    if CONFIG_FILE not in files:
        raise KBReadError(
            f"{root}: no {CONFIG_FILE} found; is this a Homeostat KB? (run homeostat init to make one)"
        )
    if not any(path.startswith(KNOWLEDGE) for path in files):
        raise KBReadError(f"{root}: no knowledge/ folder; rules live under knowledge/<area>/")
    texts, problems = decode_files(files)
    config: Config | None = None
    config_doc: YamlDoc | None = None
    if CONFIG_FILE in texts:
        config, config_doc, found = load_config(texts[CONFIG_FILE])
        problems += found
    rules: list[Rule] = []
    documents: list[Document] = []
    topic_files: list[TopicFile] = []
    unreadable = [  # not UTF-8
        Unreadable(f.file, f.line, f.message, _rule_ids(f.file, b"") if kind[0] == "rule" else ())
        for f in problems
        if (kind := classify(f.file)) is not None
    ]
    paths = [path for path in sorted(texts) if classify(path) is not None]
    for done, path in enumerate(paths, 1):
        if on_file is not None:
            on_file(done, len(paths))
        kind = classify(path)
        if kind is None:
            continue
        what, area_dir = kind
        text = texts[path]
        if not area_dir:
            problems.append(
                error("schema", path, 1, "a rule must sit in an area folder: knowledge/<area>/<id>.md")
            )
            continue
        if what == "document":
            document, found = parse_document(path, text, area_dir)
            problems += found
            if document is not None:
                documents.append(document)
            elif found:
                unreadable.append(Unreadable(path, found[0].line, found[0].message))
        elif is_topic_file(text):
            topic_file, topic_rules, found = parse_topic_file(path, text, area_dir)
            problems += found
            rules += topic_rules
            if topic_file is not None:
                topic_files.append(topic_file)
            unreadable += _unreadable_sections(path, text, topic_file, found)
        else:
            rule, found = parse_rule_file(path, text, area_dir)
            problems += found
            if rule is not None:
                rules.append(rule)
            failed = [f for f in found if f.severity == "error"]
            if failed:
                unreadable.append(Unreadable(path, failed[0].line, failed[0].message, _rule_ids(path, text)))
    return KB(
        files=texts,
        config=config,
        config_doc=config_doc,
        rules=tuple(rules),
        documents=tuple(documents),
        topic_files=tuple(topic_files),
        problems=tuple(problems),
        unreadable=tuple(unreadable),
    )


def _rule_ids(path: str, text: str | bytes) -> tuple[str, ...]:
    """The ids a rule file holds by its layout: its name, or (a topic file) its sections' anchors."""
    front = split_frontmatter(text) if isinstance(text, str) else None
    if front is not None and isinstance(text, str) and is_topic_file(text):
        return tuple(h.anchor for h in headings(front.body) if h.level == 2 and h.anchor)
    return (path.rsplit("/", 1)[-1].removesuffix(".md"),)


def _unreadable_sections(
    path: str, text: str, topic_file: TopicFile | None, found: list[Finding]
) -> list[Unreadable]:
    """A topic file's errors, each charged to the section it sits in (before the first: the whole file)."""
    failed = [f for f in found if f.severity == "error"]
    if not failed:
        return []
    sections = topic_file.sections if topic_file is not None else ()
    front = split_frontmatter(text)
    body, offset = (front.body, front.body_line - 1) if front is not None else (text, 0)
    starts = [offset + h.line for h in headings(body) if h.level == 2]
    head = [f for f in failed if not starts or f.line < starts[0]]
    if head:
        return [Unreadable(path, head[0].line, head[0].message, _rule_ids(path, text))]
    out: list[Unreadable] = []
    for section in sections:
        end = next((line for line in starts if line > section.line), None)
        mine = [f for f in failed if f.line >= section.line and (end is None or f.line < end)]
        if mine:
            out.append(Unreadable(path, mine[0].line, mine[0].message, (section.id,)))
    return out
