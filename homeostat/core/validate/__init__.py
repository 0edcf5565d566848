"""`validate`: a pure function from a map of files to findings.

The CLI, the daily run (validating a draft against the whole KB), the MCP server and the dashboard all
call this; nothing here reads a file or the clock (today is passed in).
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

from homeostat.core.config import Config
from homeostat.core.cost.token_counts import TokenCounts
from homeostat.core.findings import Finding, Severity
from homeostat.core.kb import CONFIG_FILE, KB, load_kb
from homeostat.core.validate.codeowners_checks import check_codeowners
from homeostat.core.validate.config_checks import check_config, check_endpoints, check_names
from homeostat.core.validate.content_checks import check_conflict_markers, check_secrets, check_spans
from homeostat.core.validate.scope_checks import check_languages
from homeostat.core.validate.structure_checks import (
    check_cache,
    check_citation_loops,
    check_conflicts,
    check_documents,
    check_health,
    check_provenance,
    check_rule_fields,
    check_rule_ids,
    check_topic_files,
    computed_cache,
    count_rule_views,
)

T = TypeVar("T")
FindingRow = tuple[str, int, Severity, str, str]  # a Finding's fields, as a task run elsewhere sends it
TokenState = tuple[list[int], dict[str, int], dict[str, int], int]  # counts, and TokenCounts after


class Runner(Protocol):
    """Starts a task elsewhere (`adapters.forked.tasks`: in a forked child, which has what this
    process has) and gives the function that waits for its value, plain data (tuples, lists, dicts,
    strings, numbers): how validate scans and counts beside its other checks."""

    def __call__(self, task: Callable[[], T], /) -> Callable[[], T]: ...


CHECKS = (
    "schema",
    "config",
    "secret",
    "email",
    "risky",
    "provenance",
    "topic-file",
    "document",
    "conflict",
    "link",
    "health",
    "cache",
    "codeowners",
)


@dataclass(frozen=True)
class ValidationResult:
    kb: KB
    findings: tuple[Finding, ...]
    cache: dict[str, tuple[int, int]]  # rule id -> (score, tokens) as --fix writes them

    @property
    def errors(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.severity == "error")

    @property
    def warnings(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.severity == "warning")


def validate_kb(
    kb: KB,
    today: dt.date,
    tokens: TokenCounts | None = None,
    *,
    errors_only: bool = False,
    beside: Runner | None = None,
    secrets: Callable[[], list[FindingRow]] | None = None,
) -> ValidationResult:
    """`tokens`: counts from earlier runs, so unchanged rules are not counted again (and it learns
    this run's). `errors_only`: leave out the checks that only warn (emails, near-duplicates, cached
    fields, catch-all topics, section order), for a caller that acts on errors alone; no cache.
    `beside`: runs the span checks, the secret scan and the token counting while this process runs
    the other checks (where each ran changes nothing: every finding is sorted and de-duplicated at
    the end, and the counts come back with what `tokens` holds after). `secrets`: gives the secret
    scan's findings, begun by the caller on the files `kb` was loaded from (`check_file_secrets`),
    so it ran while they loaded."""
    run = beside or _here
    config = kb.config
    counts = tokens if tokens is not None else TokenCounts()
    counting = None if errors_only else run(lambda: _counted(kb, counts))
    scans = run(lambda: finding_rows(_scanned(kb, config, emails=not errors_only, secrets=secrets is None)))
    findings: list[Finding] = list(kb.problems)
    findings += check_rule_fields(kb, today)
    findings += check_conflict_markers(kb)
    if not errors_only:
        findings += check_topic_files(kb)
    findings += check_documents(kb)
    findings += check_citation_loops(kb)
    findings += check_rule_ids(kb) if errors_only else check_conflicts(kb)
    if config is not None:
        findings += check_config(config, kb.config_doc)
        findings += check_endpoints(config, kb.config_doc)
        findings += check_names(kb, config)
        findings += check_languages(kb, config)
        findings += check_codeowners(kb.files, config)
        findings += check_provenance(kb, config)
        if not errors_only:
            findings += check_health(kb, config)
    findings += [Finding(*row) for row in scans()]
    if secrets is not None:
        findings += [Finding(*row) for row in secrets()]
    cache = {} if counting is None else computed_cache(kb, _counts_into(counts, counting()))
    if not errors_only and config_readable(
        findings
    ):  # scores depend on members' roles: judged against a broken config, wrong
        findings += check_cache(kb, cache)
    unique = sorted(set(findings), key=lambda f: (f.file, f.line, f.severity, f.check, f.message))
    return ValidationResult(kb, tuple(unique), cache)


def _here(task: Callable[[], T]) -> Callable[[], T]:
    """No runner: each task runs here when its value is asked for."""
    return task


def _scanned(kb: KB, config: Config | None, *, emails: bool, secrets: bool) -> list[Finding]:
    found = check_secrets(kb) if secrets else []
    return found + check_spans(kb, config, emails=emails)


def _counted(kb: KB, counts: TokenCounts) -> TokenState:
    """Each rule's tokens, and what `counts` holds after: run in a child, its copy of `counts` is
    what learns the counts, and this process takes them over (`_counts_into`)."""
    return count_rule_views(kb, counts), counts.used, counts.known, counts.counted


def _counts_into(counts: TokenCounts, state: TokenState) -> list[int]:
    counted, counts.used, counts.known, counts.counted = state
    return counted


def finding_rows(findings: Iterable[Finding]) -> list[FindingRow]:
    return [(f.file, f.line, f.severity, f.check, f.message) for f in findings]


def config_readable(findings: list[Finding] | tuple[Finding, ...]) -> bool:
    """homeostat.yaml loaded and has no error: what cached scores may be checked (or fixed) against."""
    return not any(f.file == CONFIG_FILE and f.severity == "error" for f in findings)


def validate_files(files: Mapping[str, str | bytes], today: dt.date, *, root: str = ".") -> ValidationResult:
    """Load and validate; raises KBReadError only when there is no KB to read at all."""
    return validate_kb(load_kb(files, root=root), today)


# Findings a change that merges with no person must never carry, even where the file had them before.
NEVER_FORGIVEN = ("risky", "secret")


def new_errors(
    files: Mapping[str, str],
    changed: Mapping[str, str],
    today: dt.date,
    *,
    never_forgiven: Sequence[str] = (),
) -> list[Finding]:
    """Errors a change brings into the files it touches, checked on those files alone (fast on a
    large KB; whole-KB checks run once on each PR). Shared by the daily run's drafts and retractions.
    A check in `never_forgiven` counts in a touched file even when the file had it before."""
    config = {CONFIG_FILE: files[CONFIG_FILE], "knowledge/": ""}
    before = validate_files({**config, **{p: files[p] for p in changed if p in files}}, today)
    after = validate_files({**config, **changed}, today)
    seen = Counter((f.file, f.check, f.message) for f in before.errors)
    new: list[Finding] = []
    for finding in after.errors:
        key = (finding.file, finding.check, finding.message)
        if finding.file not in changed or finding.check in ("conflict", "cache"):
            continue
        if seen[key] and finding.check not in never_forgiven:
            seen[key] -= 1
            continue
        new.append(finding)
    return new
