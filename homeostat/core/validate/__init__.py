"""`validate`: a pure function from a map of files to findings.

The CLI, the daily run (validating a draft against the whole KB), the MCP server and the dashboard all
call this; nothing here reads a file or the clock (today is passed in).
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from homeostat.core.findings import Finding
from homeostat.core.kb import CONFIG_FILE, KB, load_kb
from homeostat.core.token_counts import TokenCounts
from homeostat.core.validate.config_checks import check_config, check_endpoints, check_names
from homeostat.core.validate.content_checks import check_conflict_markers, check_secrets, check_spans
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
    rule_views,
)

# Starts counting the rules' views (`rule_views`) elsewhere, each with `TokenCounts.count` in order,
# and gives the function that waits for their counts: how validate counts beside its checks.
ViewCounter = Callable[[list[str]], Callable[[], list[int]]]
# Starts a check elsewhere (`adapters.check_worker`: in a second process) and gives the function
# that waits for its findings: how validate runs its secret and span checks beside the others.
CheckRunner = Callable[[Callable[[], list[Finding]]], Callable[[], list[Finding]]]

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
    counter: ViewCounter | None = None,
    beside: CheckRunner | None = None,
) -> ValidationResult:
    """`tokens`: counts from earlier runs, so unchanged rules are not counted again (and it learns
    this run's). `errors_only`: leave out the checks that only warn (emails, near-duplicates, cached
    fields, catch-all topics, section order), for a caller that acts on errors alone; no cache.
    `counter`: counts the rules' tokens while the checks run (in a second process: the counts and
    what `tokens` holds after are the ones counting here gives). `beside`: runs the secret and span
    checks while this process runs the others (where each ran changes nothing: every finding is
    sorted and de-duplicated at the end)."""
    rule_tokens = None if errors_only else _start_counting(kb, tokens, counter)
    config = kb.config

    def scanned() -> list[Finding]:
        return check_secrets(kb) + check_spans(kb, config, emails=not errors_only)

    scans = scanned if beside is None else beside(scanned)
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
        findings += check_provenance(kb, config)
        if not errors_only:
            findings += check_health(kb, config)
    findings += scans()
    cache = {} if rule_tokens is None else computed_cache(kb, rule_tokens())
    if not errors_only and config_readable(
        findings
    ):  # scores depend on members' roles: judged against a broken config, wrong
        findings += check_cache(kb, cache)
    unique = sorted(set(findings), key=lambda f: (f.file, f.line, f.severity, f.check, f.message))
    return ValidationResult(kb, tuple(unique), cache)


def _start_counting(
    kb: KB, tokens: TokenCounts | None, counter: ViewCounter | None
) -> Callable[[], list[int]]:
    """The rules' counts when asked for: begun now by `counter`, so they come in beside the checks;
    without one, counted here when asked (each view made as it is counted, none held meanwhile)."""
    if counter is not None:
        return counter(rule_views(kb))
    return lambda: count_rule_views(kb, tokens)


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
