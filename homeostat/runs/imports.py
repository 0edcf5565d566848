"""`homeostat import`: read a code repo's rule files, propose their instructions as rules in one review PR.

Steps: find the rule files git tracks (`core.imports.rulefiles`), read each through the source reader,
split it into one-instruction items and prose (`core.imports.split`), make candidates and drop the
duplicates (of the KB and of each other) with the daily run's consolidation guards, validate each
candidate alone (a secret or risky content blocks it, with the finding), then write the survivors
where the KB keeps rules and the prose as document sections. No model is needed; nothing reaches the
base branch but through the PR.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field

from homeostat.adapters.source_reader import SourceReader
from homeostat.core.bootstrap.merge import Blocked, DocumentDraft, MergeReport, merge_validated
from homeostat.core.bootstrap.placement import document_path, file_url
from homeostat.core.bootstrap.sources import is_noise
from homeostat.core.config import Config
from homeostat.core.daily.apply import ApplyError, KbEdit
from homeostat.core.imports.candidates import Split, Verdict, candidate_findings, dedupe, split_file
from homeostat.core.imports.rulefiles import RuleFile, parse_rule_file, rule_file_format
from homeostat.core.imports.split import split_body
from homeostat.core.kb import KB
from homeostat.core.safety.secrets import redact_secrets
from homeostat.core.text import content_hash, plural, slugify
from homeostat.core.validate import new_errors
from homeostat.runs.bootstrap.plan import SeedTarget
from homeostat.runs.publish import body

BRANCH_PREFIX = "homeostat/import-"


@dataclass
class ImportResult:
    repo: str
    files: list[RuleFile] = field(default_factory=list)  # the rule files read
    skipped: dict[str, str] = field(default_factory=dict)  # path → why it was not read
    own: list[str] = field(default_factory=list)  # Homeostat's own exports, never imported back
    verdicts: list[Verdict] = field(default_factory=list)
    rule_ids: dict[str, str] = field(default_factory=dict)  # candidate key → the rule id written
    reports: dict[str, MergeReport] = field(default_factory=dict)  # document → its sections
    blocked_sections: list[Blocked] = field(default_factory=list)
    changed: dict[str, str] = field(default_factory=dict)  # KB path → new text

    def outcome(self, name: str) -> list[Verdict]:
        return [v for v in self.verdicts if v.outcome == name]


def document_for(path: str) -> str:
    """`.cursor/rules/python.mdc` → `cursor-rules-python`, `apps/api/AGENTS.md` → `apps-api-agents`."""
    stem = re.sub(r"\.(?:mdc|md)$", "", path).replace(".", "")
    return slugify(stem.replace("/", "-"), prefix="rules")


def _read(reader: SourceReader, result: ImportResult) -> list[tuple[RuleFile, str]]:
    found: list[tuple[RuleFile, str]] = []
    for path in reader.tracked():
        if rule_file_format(path) is None or is_noise(path):
            continue
        got = reader.read(path)
        if got.text is None:
            result.skipped[path] = got.skipped
            continue
        rule_file = parse_rule_file(path, got.text)
        if rule_file is None:
            result.own.append(path)
            continue
        result.files.append(rule_file)
        found.append((rule_file, got.text))
    return found


def _document(config: Config, rule_file: RuleFile, split: Split, text: str, url: str) -> DocumentDraft:
    area = split.area
    owner = config.area(area)
    return DocumentDraft(
        path=document_path(area, document_for(rule_file.path)),
        title=f"{rule_file.path} (imported instructions)",
        area=area,
        owner=owner.owner if owner is not None else "",
        scope=rule_file.scope,
        source="import",
        sections=split.sections,
        source_hash=content_hash("rule-file", rule_file.path, text),
        url=url,
    )


def plan_import(
    config: Config, config_text: str, kb: KB, target: SeedTarget, reader: SourceReader, now: dt.datetime
) -> ImportResult:
    """Everything the import would propose, against `kb` (the KB the PR builds on)."""
    today = now.date()
    result = ImportResult(target.name)
    splits: list[tuple[RuleFile, str, str, Split]] = []
    for rule_file, text in _read(reader, result):
        items, prose = split_body(rule_file.body, rule_file.body_line)
        url = file_url(target.url, rule_file.path, config.sources.host)
        splits.append((rule_file, text, url, split_file(config, target.repo, rule_file, items, prose, url)))
    result.verdicts = dedupe(kb, target.repo, [c for *_, s in splits for c in s.candidates], now)
    edit = KbEdit.of(kb, today)
    for index, verdict in enumerate(result.verdicts):
        if verdict.outcome != "new":
            continue
        findings = candidate_findings(config_text, verdict.candidate, today, now)
        if not findings:
            try:
                result.rule_ids[verdict.candidate.key] = edit.add_new(verdict.candidate.lesson(now))
                continue
            except (ApplyError, ValueError) as exc:
                findings = [f"schema: {str(exc).splitlines()[0]}"]
        result.verdicts[index] = Verdict(verdict.candidate, "blocked", "; ".join(findings))
    changed = edit.diff(kb.files)
    for rule_file, text, url, split in splits:
        if not split.sections:
            continue
        draft = _document(config, rule_file, split, text, url)
        merged, report, blocked = merge_validated(
            changed.get(draft.path, kb.files.get(draft.path)), draft, today, config_text
        )
        result.reports[draft.path] = report
        result.blocked_sections += blocked
        if merged is not None and merged != kb.files.get(draft.path):
            changed[draft.path] = merged
    broken = {f.file for f in new_errors(kb.files, changed, today)}
    result.changed = {path: text for path, text in changed.items() if path not in broken}
    for path in sorted(broken):
        result.blocked_sections.append(
            Blocked(path, "", "validate found errors in the file as written; left out")
        )
    return result


# --- what it says ---------------------------------------------------------------------------------


def _row(result: ImportResult, verdict: Verdict) -> dict[str, object]:
    candidate = verdict.candidate
    return {
        "id": result.rule_ids.get(candidate.key, ""),
        "title": redact_secrets(candidate.title)[0],
        "file": candidate.file,
        "line": candidate.line,
        "scope": list(candidate.scope),
        "area": candidate.area,
        "detail": verdict.detail,
    }


def rows(result: ImportResult, outcome: str) -> list[dict[str, object]]:
    return [_row(result, v) for v in result.verdicts if v.outcome == outcome]


def _document_lines(result: ImportResult) -> list[tuple[str, str]]:
    lines: list[tuple[str, str]] = []
    for path, report in sorted(result.reports.items()):
        if path not in result.changed:
            continue
        parts = [
            f"{label} {len(ids)}"
            for label, ids in (("added", report.added), ("refreshed", report.refreshed))
            if ids
        ]
        lines.append((path, ", ".join(parts) or "unchanged sections"))
    return lines


def scope_notes(result: ImportResult) -> list[str]:
    return [f"`{f.path}`: {f.note}" for f in result.files if f.note]


def summary(result: ImportResult, pull_url: str = "") -> str:
    new, duplicates, blocked = rows(result, "new"), rows(result, "duplicate"), rows(result, "blocked")
    lines = [
        f"import {result.repo}: {plural(len(result.files), 'rule file')} read; {len(new)} new, "
        f"{len(duplicates)} already covered, {len(blocked)} blocked"
    ]
    lines += [f"  + {r['file']}:{r['line']} {r['title']} → {r['id']} ({r['area']})" for r in new]
    lines += [f"  = {r['file']}:{r['line']} {r['title']}: {r['detail']}" for r in duplicates]
    lines += [f"  ! blocked {r['file']}:{r['line']} {r['title']}: {r['detail']}" for r in blocked]
    lines += [f"  document {path}: {line}" for path, line in _document_lines(result)]
    for b in result.blocked_sections:
        lines.append(f"  ! left out {b.document}{'#' + b.section if b.section else ''}: {b.finding}")
    lines += [f"  note: {line}" for line in scope_notes(result)]
    lines += [f"  skipped {path}: Homeostat's own export" for path in result.own]
    lines += [f"  not read {path}: {why}" for path, why in sorted(result.skipped.items())]
    if pull_url:
        lines.append(f"  PR: {pull_url}")
    elif not result.changed:
        lines.append("  nothing new to propose")
    return "\n".join(lines) + "\n"


def pr_body(result: ImportResult, today: dt.date) -> str:
    return body(
        "import_pr.md.j2",
        repo=result.repo,
        date=today.isoformat(),
        new=rows(result, "new"),
        blocked=rows(result, "blocked"),
        duplicates=rows(result, "duplicate"),
        documents=_document_lines(result),
        notes=scope_notes(result),
        files=[f.path for f in result.files],
        own=result.own,
        skipped=sorted(result.skipped.items()),
    )
