"""Step 1 of seed and bootstrap: decide what each topic reads, read it, and build its prompt.

Nothing leaves the machine here: this is the dry run. The reader opens only what the pickers chose and
what they had to look inside to choose; the never-read list is applied to paths before any open.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from homeostat.adapters.source_reader import SourceReader
from homeostat.core.bootstrap.drafting import (
    GENERATOR_VERSION,
    SEED_SYSTEM,
    TOPIC_TITLES,
    TopicInput,
    estimate,
    seed_prompt,
    source_hash,
)
from homeostat.core.bootstrap.markdown_docs import MAX_DOCS, document_name, import_markdown, is_repo_doc
from homeostat.core.bootstrap.merge import DocumentDraft
from homeostat.core.bootstrap.pickers import TOPICS, pick, scan_targets, tree_outline, uses_tree
from homeostat.core.bootstrap.placement import area_for_paths, document_path, file_url, folder_scope
from homeostat.core.bootstrap.plan import DocPlan, RepoPlan, TopicPlan
from homeostat.core.bootstrap.sources import excerpt, never_read, readable, refuse_content
from homeostat.core.config import Config
from homeostat.core.format.markdown import split_frontmatter
from homeostat.core.format.parse import parse_document
from homeostat.core.text import content_hash

WHOLE_REPO_TOPICS = ("architecture", "conventions", "cross-repo")


@dataclass(frozen=True)
class SeedTarget:
    """One code repo to seed: its name in homeostat.yaml (None without repo folders) and its checkout."""

    name: str
    repo: str | None
    checkout: Path
    url: str
    topics: tuple[str, ...] = TOPICS
    docs: bool = False  # also import its Markdown docs (bootstrap)


@dataclass
class _Files:
    """What has been read from one checkout, each file at most once."""

    reader: SourceReader
    texts: dict[str, str] = field(default_factory=dict)
    refused: dict[str, str] = field(default_factory=dict)
    unreadable: dict[str, str] = field(default_factory=dict)

    def read(self, path: str) -> str | None:
        if path in self.texts:
            return self.texts[path]
        if path in self.refused or path in self.unreadable:
            return None
        got = self.reader.read(path)
        if got.text is None:
            self.unreadable[path] = got.skipped
            return None
        why = refuse_content(path, got.text)
        if why is not None:
            self.refused[path] = why
            return None
        self.texts[path] = got.text
        return got.text


def stored_hash(text: str | None) -> str:
    """A document's `sourceHash`; '' when there is none or it cannot be read (then: do the work)."""
    if text is None:
        return ""
    front = split_frontmatter(text)
    if front is None:
        return ""
    for line in front.yaml_text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "sourceHash":
            return value.strip().strip("\"'")
    return ""


def _existing_sections(text: str | None, path: str, area: str) -> tuple[tuple[str, str], ...]:
    if text is None:
        return ()
    document, _ = parse_document(path, text, area)
    return tuple((s.id, s.heading) for s in document.sections) if document is not None else ()


def _topic(
    config: Config,
    target: SeedTarget,
    topic: str,
    files: _Files,
    visible: list[str],
    existing: Mapping[str, str],
    model: str,
) -> TopicPlan:
    picked = pick(topic, visible, files.texts)
    if any(files.read(path) is None for path in picked):  # one was refused: choose again without it
        visible = [p for p in visible if p not in files.refused and p not in files.unreadable]
        picked = pick(topic, visible, files.texts)
    picked = [
        p for p in picked if (text := files.read(p)) is not None and text.strip()
    ]  # an empty file says nothing
    area = area_for_paths(config, target.repo, picked) if picked else area_for_paths(config, target.repo, [])
    document = document_path(area, topic)
    if not picked:
        return TopicPlan(topic, document, area, ("**",), ())
    excerpts = tuple(excerpt(path, files.texts[path]) for path in picked)
    on_disk = existing.get(document)
    given = TopicInput(
        repo=target.name,
        topic=topic,
        excerpts=excerpts,
        tree=tree_outline(visible) if uses_tree(topic) else "",
        other_repos=tuple(f"{r.name} ({r.url})" for r in config.repos if r.name != target.repo)
        if topic == "cross-repo"
        else (),
        existing=_existing_sections(on_disk, document, area),
    )
    digest = source_hash(given)
    prompt = seed_prompt(given)
    return TopicPlan(
        topic=topic,
        document=document,
        area=area,
        scope=("**",) if topic in WHOLE_REPO_TOPICS else folder_scope(picked),
        files=tuple(picked),
        cut=tuple(e.path for e in excerpts if e.cut),
        redactions=sum(e.redactions for e in excerpts),
        prompt=prompt,
        source_hash=digest,
        estimate=estimate(model, SEED_SYSTEM, prompt),
        skipped=stored_hash(on_disk) == digest,
    )


def _docs(
    config: Config, target: SeedTarget, files: _Files, visible: Sequence[str], existing: Mapping[str, str]
) -> list[DocPlan]:
    """The repo's own Markdown docs as document drafts, with no model."""
    plans: list[DocPlan] = []
    names: set[str] = set(TOPICS)
    blob_base = file_url(target.url, "", config.sources.host).rstrip("/")
    for path in [p for p in visible if is_repo_doc(p)][:MAX_DOCS]:
        text = files.read(path)
        if text is None:
            continue
        imported = import_markdown(path, text, blob_base)
        if not imported.sections:
            continue
        name, n = document_name(path), 2
        while name in names:
            name, n = f"{document_name(path)}-{n}", n + 1
        names.add(name)
        area = area_for_paths(config, target.repo, [path])
        owner = config.area(area)
        whole = "/" not in path or path.split("/", 1)[0].lower() in ("docs", "doc", "documentation")
        draft = DocumentDraft(
            path=document_path(area, name),
            title=imported.title,
            area=area,
            owner=owner.owner if owner is not None else "",
            scope=("**",) if whole else folder_scope([path]),
            source="import",
            sections=imported.sections,
            source_hash=content_hash("markdown-doc", GENERATOR_VERSION, path, text),
            url=file_url(target.url, path, config.sources.host),
        )
        plans.append(DocPlan(path, draft, stored_hash(existing.get(draft.path)) == draft.source_hash))
    return plans


def plan_repo(config: Config, target: SeedTarget, existing: Mapping[str, str], model: str) -> RepoPlan:
    """What seeding `target` reads and would send; `existing` is the KB it merges into."""
    excludes = config.sources.exclude_paths
    reader = SourceReader(target.checkout, refuse=lambda path: never_read(path, excludes))
    allowed, never = readable(reader.tracked(), excludes)
    files = _Files(reader)
    scanned = scan_targets(allowed)
    for path in scanned:
        files.read(path)
    visible = [p for p in allowed if p not in files.refused and p not in files.unreadable]
    plan = RepoPlan(target.name, target.repo, str(target.checkout), target.url, never_read=never)
    plan.topics = [_topic(config, target, t, files, visible, existing, model) for t in target.topics]
    if target.docs:
        plan.docs = _docs(config, target, files, visible, existing)
    plan.refused, plan.unreadable = files.refused, files.unreadable
    plan.scanned = len(scanned)
    return plan


def document_title(name: str, topic: str) -> str:
    return f"{name}: {TOPIC_TITLES[topic]}"
