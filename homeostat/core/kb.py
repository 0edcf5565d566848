"""Loading a whole KB from a map of path → text (pure; the filesystem and git loaders feed it).

Layout: `homeostat.yaml` at the root; rules under `knowledge/<area>/` (one file per rule, or topic
files holding several); documents under `knowledge/<area>/docs/<name>.md`. With repo folders, an area
folder is `knowledge/<repo>/<area>/` and its name `<repo>/<area>`; shared rules sit in `knowledge/core/`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache

from homeostat.core.config import Config
from homeostat.core.findings import Finding, error
from homeostat.core.format.markdown import headings, split_frontmatter
from homeostat.core.format.parse import (
    TopicFile,
    TopicParse,
    TopicSection,
    is_topic_file,
    is_topic_front,
    load_mapping,
    parse_document,
    parse_topic,
    read_rule_file,
    reparse_topic,
    validate_model,
)

# The KB's layout is named in `readable` (a session hook reads files by it without this loader), and
# re-exported here, where the rest of Homeostat has always imported it from.
from homeostat.core.format.readable import CASES_FILE as CASES_FILE
from homeostat.core.format.readable import CONFIG_FILE as CONFIG_FILE
from homeostat.core.format.readable import DOCS_DIR as DOCS_DIR
from homeostat.core.format.readable import KNOWLEDGE as KNOWLEDGE
from homeostat.core.format.readable import classify as classify
from homeostat.core.format.readable import refusal
from homeostat.core.format.yamltext import YamlDoc
from homeostat.core.schema import Document, Rule
from homeostat.errors import KBReadError


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


def unserved(rows: Iterable[tuple[str, int, str, tuple[str, ...]]]) -> set[tuple[str, str]]:
    """The (file, rule id) of every rule no reader serves, from the unreadable parts' rows
    (`Unreadable.row`): a rule in a file, or topic section, that fails the schema."""
    return {(file, rule_id) for file, _, _, ids in rows for rule_id in ids}


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
    binaries: Mapping[str, bytes] = field(default_factory=dict)  # files that are not text (images…)
    _by_id: dict[str, Rule] = field(default_factory=dict, compare=False, repr=False)
    # how it was read, file by file, so `with_files` re-reads only what changed
    _parsed: Mapping[str, FileParse] = field(default_factory=dict, compare=False, repr=False)
    _undecoded: tuple[Finding, ...] = field(default=(), compare=False, repr=False)
    _config_problems: tuple[Finding, ...] = field(default=(), compare=False, repr=False)
    _ids: dict[str, tuple[Rule, ...]] | None = field(default=None, compare=False, repr=False)
    _edited_from: tuple[KB, frozenset[str]] | None = field(default=None, compare=False, repr=False)
    _sections: dict[tuple[str, str], TopicSection] = field(default_factory=dict, compare=False, repr=False)

    def rule(self, rule_id: str) -> Rule | None:
        if not self._by_id and self.rules:
            for rule in self.rules:
                self._by_id.setdefault(rule.id, rule)
        return self._by_id.get(rule_id)

    def rules_by_id(self) -> Mapping[str, tuple[Rule, ...]]:
        """Every id's rules, in KB order (more than one is a conflict). `with_files` keeps it up to
        date from the files it re-reads."""
        if self._ids is None and self._edited_from is not None:
            before, changed = self._edited_from
            if before._ids is not None:
                object.__setattr__(self, "_ids", before._ids_after(self, changed))
            object.__setattr__(self, "_edited_from", None)  # not held once used
        if self._ids is None:
            ids: dict[str, list[Rule]] = defaultdict(list)
            for rule in self.rules:
                ids[rule.id].append(rule)
            object.__setattr__(self, "_ids", {rule_id: tuple(rules) for rule_id, rules in ids.items()})
        assert self._ids is not None
        return self._ids

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
        broken = unserved(u.row() for u in self.unreadable)
        return tuple(r for r in self.rules if (r.file, r.id) not in broken)

    def unreadable_rule(self, rule_id: str) -> Unreadable | None:
        """The unreadable file that would hold rule `rule_id`, if one does."""
        return next((u for u in self.unreadable if rule_id in u.ids), None)

    def document(self, doc_id: str) -> Document | None:
        return next((d for d in self.documents if d.doc_id == doc_id), None)

    def unreadable_bytes(self) -> bool:
        """Whether a file was left out for not being UTF-8."""
        return bool(self._undecoded)

    def rules_in(self, path: str) -> tuple[Rule, ...]:
        """The rules read from one file, in file order."""
        parsed = self._parsed.get(path)
        return parsed.rules if parsed is not None else tuple(r for r in self.rules if r.file == path)

    def topic_parse(self, path: str) -> TopicParse | None:
        """How a topic file was read, part by part (None for any other file)."""
        parsed = self._parsed.get(path)
        return parsed.topic if parsed is not None else None

    def only(self, paths: Collection[str]) -> KB:
        """homeostat.yaml and these files alone, as `load_kb` would read them (none is read again)."""
        files = {p: self.files[p] for p in (CONFIG_FILE, *paths) if p in self.files}
        parsed = {p: self._parsed[p] for p in paths if p in self._parsed}
        undecoded = [f for f in self._undecoded if f.file == CONFIG_FILE or f.file in paths]
        binaries = {p: data for p, data in self.binaries.items() if p in paths}
        config_problems = list(self._config_problems)
        return _assemble(files, self.config, self.config_doc, undecoded, config_problems, parsed, binaries)

    def with_files(self, changes: Mapping[str, str | bytes | None]) -> KB:
        """This KB with some files replaced (None: removed): the KB `load_kb` would read from the new
        files, reading again only the files that changed, and of an edited topic file only the
        sections that changed."""
        texts, changed_binaries, undecoded = decode_files({p: c for p, c in changes.items() if c is not None})
        files = {p: t for p, t in self.files.items() if p not in changes}
        files.update(texts)
        binaries = {p: data for p, data in self.binaries.items() if p not in changes}
        binaries.update(changed_binaries)
        undecoded = [f for f in self._undecoded if f.file not in changes] + undecoded
        present = {*files, *(f.file for f in undecoded), *(p for p, c in changes.items() if c is not None)}
        if CONFIG_FILE not in present:
            raise KBReadError(
                f"no {CONFIG_FILE} found; is this a Homeostat KB? (run homeostat init to make one)"
            )
        if not any(path.startswith(KNOWLEDGE) for path in present):
            raise KBReadError("no knowledge/ folder; rules live under knowledge/<area>/")
        parsed = {p: part for p, part in self._parsed.items() if p not in changes}
        for path, text in texts.items():
            if classify(path) is not None:
                parsed[path] = parse_file(path, text, self._parsed.get(path), self.files.get(path))
        config, config_doc, config_problems = self.config, self.config_doc, list(self._config_problems)
        if CONFIG_FILE in changes:
            config, config_doc, config_problems = None, None, []
            if CONFIG_FILE in texts:
                config, config_doc, config_problems = load_config(texts[CONFIG_FILE])
        kb = _assemble(files, config, config_doc, undecoded, config_problems, parsed, binaries)
        if self._ids is not None or self._edited_from is not None:
            self.rules_by_id()
            object.__setattr__(kb, "_edited_from", (self, frozenset(changes)))
        return kb

    def _ids_after(self, kb: KB, changes: frozenset[str]) -> dict[str, tuple[Rule, ...]]:
        """This KB's id index with the changed files' rules taken out and `kb`'s put in, in KB order."""
        assert self._ids is not None
        ids = dict(self._ids)
        added: dict[str, list[Rule]] = defaultdict(list)
        for path in sorted(changes):
            for rule in kb.rules_in(path):
                added[rule.id].append(rule)
        touched = {rule.id for path in changes for rule in self.rules_in(path)} | set(added)
        for rule_id in touched:
            rules = [r for r in ids.get(rule_id, ()) if r.file not in changes] + added.get(rule_id, [])
            if len(rules) > 1:
                rules.sort(key=lambda r: (r.file, r.line))
            if rules:
                ids[rule_id] = tuple(rules)
            else:
                ids.pop(rule_id, None)
        return ids

    def require_config(self) -> Config:
        """For commands that cannot go on without a valid config (everything but validate)."""
        if self.config is None:
            first = next((f for f in self.problems if f.file == CONFIG_FILE), None)
            detail = f"{first.file}:{first.line}: {first.message}" if first else f"{CONFIG_FILE} is invalid"
            raise KBReadError(f"{detail} (run homeostat validate for every problem)")
        return self.config


def load_config(text: str, file: str = CONFIG_FILE) -> tuple[Config | None, YamlDoc | None, list[Finding]]:
    config, doc, found = _parsed_config(text, file)
    return config, doc, list(found)


@lru_cache(maxsize=8)
def _parsed_config(text: str, file: str) -> tuple[Config | None, YamlDoc | None, tuple[Finding, ...]]:
    """Parsed once per text: a daily run validates each draft beside homeostat.yaml alone
    (core.validate.files), and parsing a large team's config for every one of 500 drafts was a
    third of a merge job's own time. The config is frozen; the document is only read."""
    doc, found = load_mapping(text, file, 1)
    if doc is None:
        return None, None, tuple(f.__class__(f.file, f.line, f.severity, "config", f.message) for f in found)
    config, problems = validate_model(Config, doc.data, file, doc, 1)
    return config, doc, tuple(f.__class__(f.file, f.line, f.severity, "config", f.message) for f in problems)


def decode_files(
    files: Mapping[str, str | bytes],
) -> tuple[dict[str, str], dict[str, bytes], list[Finding]]:
    """Bytes become text; a KB file that is not UTF-8 is a finding, never a crash, and so is an entry
    the reader refused to open or a file over its size limit (`core.format.readable`): each is left out.

    Only Markdown and homeostat.yaml must be text: an image beside a document is no KB file, so one
    that does not decode is kept as bytes (validate scans its printable strings for secrets).
    """
    texts: dict[str, str] = {}
    binaries: dict[str, bytes] = {}
    found: list[Finding] = []
    for path, content in files.items():
        refused = refusal(path, content)
        if refused is not None:  # a link, a FIFO, a device, or over its size limit: never parsed
            found.append(refused)
            continue
        if isinstance(content, str):
            texts[path] = content
            continue
        try:
            texts[path] = content.decode("utf-8")
        except UnicodeDecodeError as exc:
            if path != CONFIG_FILE and not path.endswith(".md"):
                binaries[path] = content
                continue
            line = content[: exc.start].count(b"\n") + 1
            found.append(error("schema", path, line, f"not UTF-8 (byte {exc.start}); save the file as UTF-8"))
    return texts, binaries, found


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
    texts, binaries, undecoded = decode_files(files)
    config: Config | None = None
    config_doc: YamlDoc | None = None
    config_problems: list[Finding] = []
    if CONFIG_FILE in texts:
        config, config_doc, config_problems = load_config(texts[CONFIG_FILE])
    paths = [path for path in sorted(texts) if classify(path) is not None]
    parsed: dict[str, FileParse] = {}
    for done, path in enumerate(paths, 1):
        if on_file is not None:
            on_file(done, len(paths))
        parsed[path] = parse_file(path, texts[path])
    return _assemble(texts, config, config_doc, undecoded, config_problems, parsed, binaries)


@dataclass(frozen=True)
class FileParse:
    """What one KB file adds to the KB."""

    rules: tuple[Rule, ...] = ()
    document: Document | None = None
    topic: TopicParse | None = None
    problems: tuple[Finding, ...] = ()
    unreadable: tuple[Unreadable, ...] = ()


def parse_file(
    path: str, text: str, before: FileParse | None = None, before_text: str | None = None
) -> FileParse:
    """One rule file, topic file or document; an edited topic file (`before`, read from
    `before_text`) is read again only where it changed."""
    kind = classify(path)
    assert kind is not None
    what, area_dir = kind
    if not area_dir:
        return FileParse(
            problems=(
                error("schema", path, 1, "a rule must sit in an area folder: knowledge/<area>/<id>.md"),
            )
        )
    if what == "document":
        document, found = parse_document(path, text, area_dir)
        missing = (Unreadable(path, found[0].line, found[0].message),) if document is None and found else ()
        return FileParse(document=document, problems=tuple(found), unreadable=missing)
    front = split_frontmatter(text)
    if is_topic_front(front):
        old = before.topic if before is not None else None
        if old is not None and before_text is not None:
            topic = reparse_topic(old, before_text, text)
        else:
            topic = parse_topic(path, text, area_dir, front)
        found = list(topic.findings)
        return FileParse(
            rules=topic.rules,
            topic=topic,
            problems=tuple(found),
            unreadable=tuple(_unreadable_sections(path, text, topic, found)),
        )
    rule, found = read_rule_file(path, front, area_dir)
    failed = [f for f in found if f.severity == "error"]
    return FileParse(
        rules=(rule,) if rule is not None else (),
        problems=tuple(found),
        unreadable=(Unreadable(path, failed[0].line, failed[0].message, _rule_ids(path, text)),)
        if failed
        else (),
    )


def _assemble(
    texts: dict[str, str],
    config: Config | None,
    config_doc: YamlDoc | None,
    undecoded: list[Finding],
    config_problems: list[Finding],
    parsed: Mapping[str, FileParse],
    binaries: Mapping[str, bytes],
) -> KB:
    """The KB from its files' parts, in path order (as `load_kb` reads them)."""
    rules: list[Rule] = []
    documents: list[Document] = []
    topic_files: list[TopicFile] = []
    problems: list[Finding] = [*undecoded, *config_problems]
    unreadable = [  # not UTF-8, refused by the reader (a link, a FIFO…), or over its size limit
        Unreadable(f.file, f.line, f.message, _rule_ids(f.file, b"") if kind and kind[0] == "rule" else ())
        for f in undecoded
        if (kind := classify(f.file)) is not None or f.file.startswith(KNOWLEDGE)
    ]
    for path in sorted(parsed):
        part = parsed[path]
        rules += part.rules
        if part.document is not None:
            documents.append(part.document)
        if part.topic is not None and part.topic.topic_file is not None:
            topic_files.append(part.topic.topic_file)
        problems += part.problems
        unreadable += part.unreadable
    return KB(
        files=texts,
        config=config,
        config_doc=config_doc,
        rules=tuple(rules),
        documents=tuple(documents),
        topic_files=tuple(topic_files),
        problems=tuple(problems),
        unreadable=tuple(unreadable),
        binaries=binaries,
        _parsed=parsed,
        _undecoded=tuple(undecoded),
        _config_problems=tuple(config_problems),
    )


def _rule_ids(path: str, text: str | bytes) -> tuple[str, ...]:
    """The ids a rule file holds by its layout: its name, or (a topic file) its sections' anchors."""
    front = split_frontmatter(text) if isinstance(text, str) else None
    if front is not None and isinstance(text, str) and is_topic_file(text):
        return tuple(h.anchor for h in headings(front.body) if h.level == 2 and h.anchor)
    return (path.rsplit("/", 1)[-1].removesuffix(".md"),)


def _unreadable_sections(path: str, text: str, topic: TopicParse, found: list[Finding]) -> list[Unreadable]:
    """A topic file's errors, each charged to the section it sits in (before the first: the whole file)."""
    failed = [f for f in found if f.severity == "error"]
    if not failed:
        return []
    starts = [part.line for part in topic.parts]
    head = [f for f in failed if not starts or f.line < starts[0]]
    if head:
        return [Unreadable(path, head[0].line, head[0].message, _rule_ids(path, text))]
    out: list[Unreadable] = []
    for index, part in enumerate(topic.parts):
        if part.section is None:
            continue
        end = starts[index + 1] if index + 1 < len(starts) else None
        mine = [f for f in failed if f.line >= part.line and (end is None or f.line < end)]
        if mine:
            out.append(Unreadable(path, mine[0].line, mine[0].message, (part.section.id,)))
    return out
