"""Content checks: secrets, personal data, risky content, links leaving the KB, conflict markers."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass

from homeostat.core.config import Config
from homeostat.core.findings import Finding, error, warning
from homeostat.core.hosts import UrlError, parse_repo_url
from homeostat.core.kb import KB
from homeostat.core.markdown import CONFLICT_MARKER, split_frontmatter
from homeostat.core.risky import find_risks
from homeostat.core.secrets import find_emails, find_secrets

_LINK = re.compile(r"!?\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


@dataclass(frozen=True, slots=True)
class Span:
    """A piece of a file an agent reads, with the line it starts on and who reviewed its risks.

    It holds its place, not a copy: at 100,000 rules the copies of every section would be 100 MB
    held at once, where cutting `text` when a check reads it keeps one at a time."""

    file: str
    source: str  # the text it is cut from
    start: int
    end: int
    line: int
    label: str
    risk_reviewed_by: str = ""

    @property
    def text(self) -> str:
        return self.source[self.start : self.end]


def readable_spans(kb: KB) -> list[Span]:
    spans: list[Span] = []
    for rule in kb.rules:
        text = kb.files[rule.file]
        reviewer = rule.meta.risk_reviewed_by
        if rule.in_topic_file:
            section = kb.topic_section(rule.file, rule.id)
            if section is not None:
                spans.append(
                    Span(
                        rule.file, text, section.start, section.end, section.line, f"rule {rule.id}", reviewer
                    )
                )
            continue
        front = split_frontmatter(text)
        if front is not None:
            title_line = next(
                (n for n, line in enumerate(text.splitlines(), 1) if line.startswith("title:")), rule.line
            )
            title = rule.meta.title
            spans.append(Span(rule.file, title, 0, len(title), title_line, f"rule {rule.id}", reviewer))
            spans.append(
                Span(
                    rule.file,
                    text,
                    front.body_offset,
                    len(text),
                    front.body_line,
                    f"rule {rule.id}",
                    reviewer,
                )
            )
    for document in kb.documents:
        text = kb.files[document.file]
        front = split_frontmatter(text)
        if front is not None:
            spans.append(
                Span(
                    document.file,
                    text,
                    front.body_offset,
                    len(text),
                    front.body_line,
                    f"document {document.doc_id}",
                    document.meta.risk_reviewed_by,
                )
            )
    return spans


def check_secrets(kb: KB) -> list[Finding]:
    """Every text file in the KB, frontmatter and config included: a secret anywhere is an error."""
    found: list[Finding] = []
    for path, text in kb.files.items():
        if not (path.endswith((".md", ".yaml", ".yml", ".json", ".txt")) or path == "homeostat.yaml"):
            continue
        for hit in find_secrets(text):
            found.append(
                error(
                    "secret",
                    path,
                    hit.line,
                    f"possible {hit.kind} secret; remove it from the KB (and rotate it if it was real)",
                )
            )
    return found


def check_emails(spans: Sequence[Span]) -> list[Finding]:
    found: list[Finding] = []
    for span in spans:
        for hit in find_emails(span.text):
            found.append(
                warning(
                    "email",
                    span.file,
                    span.line + hit.line - 1,
                    f"an email address in {span.label} is personal data; name the team or role instead",
                )
            )
    return found


def allowed_domains(config: Config | None) -> list[str]:
    """`security.allowedDomains` plus the hosts of the KB's own code repos (their PR links are provenance)."""
    if config is None:
        return []
    domains = list(config.security.allowed_domains)
    for url in [repo.url for repo in config.repos] + list(config.sources.repos):
        try:
            ref = parse_repo_url(url)
        except UrlError:
            continue
        host = (ref.base_url or ref.web_url).split("://", 1)[-1].split("/", 1)[0]
        if host not in domains:
            domains.append(host)
    return domains


def check_risky(spans: Sequence[Span], config: Config | None) -> list[Finding]:
    found: list[Finding] = []
    domains = allowed_domains(config)
    for span in spans:
        reviewed = bool(span.risk_reviewed_by) and (
            config is None or config.member(span.risk_reviewed_by) is not None
        )
        if reviewed:
            continue
        for hit in find_risks(span.text, domains):  # it skips Homeostat's own comments itself
            found.append(
                error(
                    "risky",
                    span.file,
                    span.line + hit.line - 1,
                    f"{hit.kind} in {span.label}: {hit.message}; a reviewer who has read it sets riskReviewedBy: <handle>",
                )
            )
    return found


def check_links(spans: Sequence[Span]) -> list[Finding]:
    """Relative links that climb out of the KB, and file:// or absolute paths, point at things we cannot see."""
    found: list[Finding] = []
    for span in spans:
        text = span.text  # Homeostat's comments hold no Markdown links
        if "](" not in text:  # every link has one; most rules have no link at all
            continue
        for match in _LINK.finditer(text):
            target = match.group(1)
            line = span.line + text.count("\n", 0, match.start())
            if target.startswith(("#", "mailto:")):
                continue
            if target.lower().startswith("file:") or target.startswith(("/", "~", "\\")):
                found.append(
                    error(
                        "link",
                        span.file,
                        line,
                        f"link {target!r} points outside the KB; link to a KB file or an allowed URL",
                    )
                )
                continue
            if _SCHEME.match(target):
                continue
            resolved = posixpath.normpath(
                posixpath.join(posixpath.dirname(span.file), target.split("#", 1)[0])
            )
            if resolved == ".." or resolved.startswith("../"):
                found.append(
                    error("link", span.file, line, f"link {target!r} points outside the KB repository")
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
