"""Content checks: secrets, personal data, risky content, links leaving the KB, conflict markers."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass

from homeostat.core.config import Config
from homeostat.core.findings import Finding, error, warning
from homeostat.core.format.markdown import CONFLICT_MARKER, split_frontmatter
from homeostat.core.format.parse import TopicFile, TopicSection
from homeostat.core.format.yamltext import YamlError, load_yaml
from homeostat.core.hosts import HostKind, UrlError, parse_repo_url
from homeostat.core.kb import KB, decode_files
from homeostat.core.safety.risky import find_risks, quiet_spans
from homeostat.core.safety.secrets import find_emails, find_secrets
from homeostat.core.safety.signoff import document_fingerprint, rule_fingerprint, text_fingerprint
from homeostat.core.scanners.hidden import Fields
from homeostat.core.schema import Document, Rule
from homeostat.core.served import PROSE_FIELDS, rule_fields
from homeostat.core.string_leaves import string_leaves

# A Markdown link or image: `[text](target "title")`. The text may hold no bracket (of `[a [b](x)`,
# `[b](x)` is found, with the same target), so each `[` is read only up to the next bracket.
_LINK_OPEN = re.compile(r"!?\[[^\[\]\n]*\]\(\s*")
_TARGET_STOP = re.compile(r"[)\s>]")
_LINK_CLOSE = re.compile(r'>?(?:\s+"[^"]*")?\s*\)')


def _link_targets(text: str) -> Iterator[tuple[int, str]]:
    """(start, target) of every link, as the regex `!?\\[[^\\]\\n]*\\]\\(\\s*<?([^)\\s>]+)>?(?:\\s+"[^"]*")?\\s*\\)`
    finds them, in one pass. A target ends at the first `)`, blank or `>` after it, which every link
    opened inside it (`[a](![a](![a](…`) shares: so that end, and whether a link closes there, is
    found once, not from each `](` to the line's end; and, as the regex resumes after a whole link,
    no link is read inside one that closed."""
    stop, closes, resume = -1, False, 0
    for opened in _LINK_OPEN.finditer(text):
        if opened.start() < resume:
            continue
        begin = opened.end()
        if begin > stop:
            found = _TARGET_STOP.search(text, begin)
            stop = found.start() if found else len(text)
            close = _LINK_CLOSE.match(text, stop)
            closes, resume_at = close is not None, close.end() if close else stop
        if stop > begin and closes:
            # `<target>`: the `<` is not the target's, unless nothing follows it (`](<)`)
            angled = text[begin] == "<" and stop > begin + 1
            yield opened.start(), text[begin + angled : stop]
            resume = resume_at


def _shown(target: str) -> str:
    return repr(target if len(target) <= 120 else target[:117] + "…")


_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


@dataclass(frozen=True, slots=True)
class Span:
    """A piece of a file an agent reads, with the line it starts on, who signed off its risks and on
    what text (`signed`), and the rule or document it belongs to (for the fingerprint of its text now).

    It holds its place, not a copy: at 100,000 rules the copies of every section would be 100 MB
    held at once, where cutting `text` when a check reads it keeps one at a time."""

    file: str
    source: str  # the text it is cut from
    start: int
    end: int
    line: int
    label: str
    risk_reviewed_by: str = ""
    signed: str = ""
    rule: Rule | None = None
    document: Document | None = None
    quiet: bool = False  # certainly no risky content (`quiet_spans`, told from its whole file)
    body_start: int = -1  # a document field's span: where its document's body starts in `body_source`
    body_source: str = ""
    # where its text may hold Homeostat's fields comments, which are data and not read for risks
    fields: Fields = Fields.UNDER_HEADINGS

    @property
    def text(self) -> str:
        return self.source[self.start : self.end]

    @property
    def fingerprint(self) -> str:
        """Of the rule or document as it reads now; computed only for a span with risky content."""
        if self.rule is not None:
            return rule_fingerprint(self.rule)
        if self.document is None:  # a file the loader could not read: no fields to sign off in
            return text_fingerprint("", self.text)
        if self.body_start >= 0:  # a field: the sign-off covers the document's title and body
            return document_fingerprint(self.document, self.body_source[self.body_start :])
        return document_fingerprint(self.document, self.text)


def _rule_span(
    rule: Rule,
    source: str,
    start: int,
    end: int,
    line: int,
    *,
    quiet: bool = False,
    fields: Fields = Fields.NONE,
) -> Span:
    """A rule's text: a rule file's fields are its frontmatter, so its body holds no fields comment
    (`Fields.NONE`); a topic file's section holds one, under its heading (`Fields.SECTION`)."""
    meta = rule.meta
    return Span(
        rule.file,
        source,
        start,
        end,
        line,
        f"rule {rule.id}",
        meta.risk_reviewer,
        meta.risk_fingerprint,
        rule,
        quiet=quiet,
        fields=fields,
    )


def _field_spans(rule: Rule) -> Iterator[Span]:
    """The prose fields a surface shows beside the view (`served.rule_fields`) other than the title,
    which has a span of its own: a flag's reason, shown by explain and the dispute PR."""
    for label, text in rule_fields(rule.meta):
        if label in PROSE_FIELDS and label != "title":
            meta = rule.meta
            yield Span(
                rule.file, text, 0, len(text), rule.line, f"rule {rule.id}'s {label}", meta.risk_reviewer,
                meta.risk_fingerprint, rule, fields=Fields.NONE,
            )  # fmt: skip


def readable_spans(kb: KB) -> Iterator[Span]:
    """Every piece of the KB an agent reads, one at a time: each is checked and let go (a list of
    them all was 40 MB at 100,000 rules, held through three checks). What is read is what
    `served` lists: the text of each rule and document section, and each field shown beside it."""
    yield from _rule_spans(kb)
    yield from _unreadable_spans(kb)
    for document in kb.documents:
        yield from _document_spans(document, kb.files[document.file])


def _rule_spans(kb: KB) -> Iterator[Span]:
    """Each rule's text, title, scope globs and flag reasons; a rule in a topic file is its section of the file,
    read once however many rules share its id."""
    sections: set[tuple[str, int]] = set()
    topic_files: dict[str, TopicFile] = {}
    for topic_file in kb.topic_files:
        topic_files.setdefault(topic_file.file, topic_file)
    by_id: dict[str, TopicSection] = {}  # the current file's first section per id: a file's rules come
    by_id_file = ""  # together, so this map is one file's, not `kb.topic_section`'s KB-wide one
    quiet: set[int] = set()  # the starts of its sections with no risky content
    for rule in kb.rules:
        text = kb.files[rule.file]
        if rule.meta.flags or rule.meta.scope:
            yield from _field_spans(rule)
        if rule.in_topic_file:
            if rule.file != by_id_file:
                by_id, by_id_file = _first_sections(topic_files.get(rule.file)), rule.file
                quiet = _quiet_starts(text, by_id.values())
            section = by_id.get(rule.id)
            # a duplicate id finds the first section again: read it once, as its own rule's
            if section is not None and (rule.file, section.start) not in sections:
                sections.add((rule.file, section.start))
                yield _rule_span(
                    rule,
                    text,
                    section.start,
                    section.end,
                    section.line,
                    quiet=section.start in quiet,
                    fields=Fields.SECTION,
                )
            continue
        front = split_frontmatter(text)
        if front is not None:
            title = rule.meta.title
            yield _rule_span(rule, title, 0, len(title), _title_line(text, rule.line))
            yield _rule_span(rule, text, front.body_offset, len(text), front.body_line)


def _title_line(text: str, default: int) -> int:
    """The line of the frontmatter's `title:`, where a finding about the title points."""
    return next((n for n, line in enumerate(text.splitlines(), 1) if line.startswith("title:")), default)


def _document_spans(document: Document, text: str) -> Iterator[Span]:
    """A document's title and body, each with its risk sign-off, and any text in a section's
    provenance comment beside its fields (hidden from a reviewer like any comment, so read like the
    body); nothing for a file with no frontmatter (its own finding says so)."""
    front = split_frontmatter(text)
    if front is None:
        return
    meta = document.meta
    yield Span(
        document.file,
        meta.title,
        0,
        len(meta.title),
        _title_line(text, 1),
        f"document {document.doc_id}'s title",
        meta.risk_reviewer,
        meta.risk_fingerprint,
        document=document,
        body_start=front.body_offset,
        body_source=text,
    )
    yield Span(
        document.file,
        text,
        front.body_offset,
        len(text),
        front.body_line,
        f"document {document.doc_id}",
        meta.risk_reviewer,
        meta.risk_fingerprint,
        document=document,
    )
    for section in document.sections:
        if section.provenance is not None and section.provenance.stray:
            stray = section.provenance.stray
            yield Span(
                document.file, stray, 0, len(stray), section.line + 1,
                f"document {document.doc_id}'s provenance comment of section {{#{section.id}}}",
                meta.risk_reviewer, meta.risk_fingerprint, document=document,
                body_start=front.body_offset, body_source=text,
            )  # fmt: skip


def _unreadable_spans(kb: KB) -> Iterator[Span]:
    """A Markdown file the loader could not read at all, whole: no reader serves it now, but an
    unclosed comment or fence that broke it may hide what a fix would serve."""
    read = {rule.file for rule in kb.rules} | {document.file for document in kb.documents}
    for file in dict.fromkeys(u.file for u in kb.unreadable):
        text = kb.files.get(file)
        if text is not None and file not in read and file.endswith(".md"):
            yield Span(file, text, 0, len(text), 1, f"unreadable file {file}")
            values = _frontmatter_values(text)
            if values:
                yield Span(file, values, 0, len(values), 2, f"unreadable file {file}'s frontmatter")


def _frontmatter_values(text: str) -> str:
    """The frontmatter's string values as YAML reads them, a blank line between each: the file as
    written spells an escape (`"Decimal\\nIgnore previous…"`) that a fixed file would serve decoded."""
    front = split_frontmatter(text)
    if front is None:
        return ""
    try:
        data = load_yaml(front.yaml_text).data
    except YamlError:
        return ""
    return "\n\n".join(text for _path, text in string_leaves(data))


def _quiet_starts(text: str, sections: Collection[TopicSection]) -> set[int]:
    spans = [(section.start, section.end) for section in sections]
    quiet = quiet_spans(text, spans, Fields.SECTION)
    return {start for (start, _), is_quiet in zip(spans, quiet, strict=True) if is_quiet}


def _first_sections(topic_file: TopicFile | None) -> dict[str, TopicSection]:
    """A topic file's first section per id, as `KB.topic_section` finds it."""
    first: dict[str, TopicSection] = {}
    for section in topic_file.sections if topic_file is not None else ():
        first.setdefault(section.id, section)
    return first


_PRINTABLE_RUN = re.compile(rb"[\x20-\x7e\t]{8,}")


def printable_strings(data: bytes) -> str:
    """The runs of printable ASCII in a binary file, one a line (what `strings` shows)."""
    return "\n".join(m.group(0).decode("ascii") for m in _PRINTABLE_RUN.finditer(data))


def check_secrets(kb: KB) -> list[Finding]:
    """Every file in the KB, whatever its name, binaries by their printable strings: a secret anywhere
    is an error."""
    return secret_findings(kb.files, kb.binaries)


def check_file_secrets(files: Mapping[str, str | bytes]) -> list[Finding]:
    """`check_secrets` of the KB loaded from `files`, found without loading it (the scan reads only
    the files as `load_kb` decodes them): so it can run while they are loaded."""
    texts, binaries, _ = decode_files(files)
    return secret_findings(texts, binaries)


def secret_findings(texts: Mapping[str, str], binaries: Mapping[str, bytes]) -> list[Finding]:
    found: list[Finding] = []
    for path, text in texts.items():
        for hit in find_secrets(text):
            found.append(
                error(
                    "secret",
                    path,
                    hit.line,
                    f"possible {hit.kind} secret; remove it from the KB (and rotate it if it was real)",
                )
            )
    for path, data in binaries.items():
        for hit in find_secrets(printable_strings(data))[:1]:
            found.append(
                error(
                    "secret",
                    path,
                    1,
                    f"possible {hit.kind} secret in this binary file's text; remove the file from the KB "
                    "(and rotate the secret if it was real)",
                )
            )
    return found


def check_spans(kb: KB, config: Config | None, *, emails: bool = True) -> list[Finding]:
    """Personal data (unless `emails` is off), risky content and links in every readable span, in one
    walk over them."""
    found: list[Finding] = []
    domains = allowed_domains(config)
    for span in readable_spans(kb):
        text = span.text
        if emails:
            found += span_emails(span, text)
        found += span_risks(span, text, config, domains)
        found += span_links(span, text)
    return found


def span_emails(span: Span, text: str) -> list[Finding]:
    """`text` is the span's own, cut once for every check."""
    return [
        warning(
            "email",
            span.file,
            span.line + hit.line - 1,
            f"an email address in {span.label} is personal data; name the team or role instead",
        )
        for hit in find_emails(text)
    ]


def owner_paths(url: str) -> list[str]:
    """What a code repo's URL allows rules to name: its owner's paths on the web host and the API host
    (`github.com/acme`, `api.github.com/repos/acme`), never the whole shared host."""
    try:
        ref = parse_repo_url(url)
    except UrlError:
        return []
    host = ref.web_url.split("://", 1)[-1].split("/", 1)[0].lower()
    owner = ref.owner.lower()
    paths = [f"{host}/{owner}"]
    if host == "github.com":
        paths.append(f"api.github.com/repos/{owner}")
    elif host == "bitbucket.org":
        paths.append(f"api.bitbucket.org/2.0/repositories/{owner}")
    elif ref.host is HostKind.GITHUB:
        paths.append(f"{host}/api/v3/repos/{owner}")
    else:
        paths += [f"{host}/projects/{owner}", f"{host}/rest/api/1.0/projects/{owner}"]
    return paths


def allowed_domains(config: Config | None) -> list[str]:
    """`security.allowedDomains` plus the KB's own code repos' owner paths (their PR links are provenance)."""
    if config is None:
        return []
    domains = list(config.security.allowed_domains)
    for url in [repo.url for repo in config.repos] + list(config.sources.repos):
        domains += [path for path in owner_paths(url) if path not in domains]
    return domains


def _sign_off_advice(span: Span, config: Config | None) -> str | None:
    """None when a member signed off this very text; else what a reviewer should do."""
    wanted = f"riskReviewedBy: {{by: <handle>, fingerprint: {span.fingerprint}}}"
    who = span.risk_reviewed_by
    if not who:
        return f"a member who has read it sets {wanted}"
    if config is not None and config.member(who) is None:
        return f"riskReviewedBy names {who!r}, who is not a member; a member who has read it sets {wanted}"
    if not span.signed:
        return f"riskReviewedBy: {who} does not say which text they read; after reading it set {wanted}"
    if span.signed != span.fingerprint:
        return f"the text changed since {who} signed it off; a member who has read it sets {wanted}"
    return None


def span_risks(span: Span, text: str, config: Config | None, domains: Sequence[str]) -> list[Finding]:
    # it skips Homeostat's own fields comments itself, where the span's kind may hold them
    hits = [] if span.quiet else find_risks(text, domains, fields=span.fields)
    advice = _sign_off_advice(span, config) if hits else None
    if advice is None:
        return []
    return [
        error(
            "risky",
            span.file,
            span.line + hit.line - 1,
            f"{hit.kind} in {span.label}: {hit.message}; {advice}",
        )
        for hit in hits
    ]


def span_links(span: Span, text: str) -> list[Finding]:
    """Relative links that climb out of the KB, and file:// or absolute paths, point at things we cannot see."""
    found: list[Finding] = []
    if "](" not in text:  # every link has one; most rules have no link at all (Homeostat's comments none)
        return found
    line, counted = span.line, 0
    for start, target in _link_targets(text):
        line += text.count("\n", counted, start)  # from the last link on: a line count per text, not per link
        counted = start
        if target.startswith(("#", "mailto:")):
            continue
        if target.lower().startswith("file:") or target.startswith(("/", "~", "\\")):
            found.append(
                error(
                    "link",
                    span.file,
                    line,
                    f"link {_shown(target)} points outside the KB; link to a KB file or an allowed URL",
                )
            )
            continue
        if _SCHEME.match(target):
            continue
        resolved = posixpath.normpath(posixpath.join(posixpath.dirname(span.file), target.split("#", 1)[0]))
        if resolved == ".." or resolved.startswith("../"):
            found.append(
                error("link", span.file, line, f"link {_shown(target)} points outside the KB repository")
            )
    return found


def check_conflict_markers(kb: KB) -> list[Finding]:
    found: list[Finding] = []
    for path, text in kb.files.items():
        if not path.endswith((".md", ".yaml", ".yml")) or ("<<<<<<<" not in text and ">>>>>>>" not in text):
            continue  # without a `<<<<<<<` or `>>>>>>>` line there is no conflict to report
        markers = [
            (m.group(1)[0], text.count("\n", 0, m.start()) + 1) for m in CONFLICT_MARKER.finditer(text)
        ]
        if not any(kind == "<" for kind, _ in markers) and not any(kind == ">" for kind, _ in markers):
            continue
        for _, line in markers:
            found.append(error("document", path, line, "git conflict marker; resolve the merge conflict"))
    return found
