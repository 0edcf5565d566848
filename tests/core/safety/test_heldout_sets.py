"""The held-out sets load and have the counts their READMEs and docstrings state. Only their shape is
checked here, never the scanners' score on them: a test that ran them through the checks would put
them in the tuning loop. They are measured with `benchmarks/bench_risky.py --heldout33` to `--heldout35` and `--heldout39` to `--heldout41` and
`benchmarks/bench_secrets.py --heldout4`, which print totals only and refuse to print misses. (The
fifth to thirty-second and the thirty-sixth to thirty-eighth risky sets are tuning use now, run by test_poisoning_tuning.py; their shape
is still checked here.) (The third secret set is tuning use now; its counts are checked in
tests/core/safety/test_secrets.py.)"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from kit import FIXTURES, REPO
from poisoning import kb_files, load_corpus, plant
from secrets_heldout4 import heldout4_cases

HELDOUT5 = FIXTURES / "poisoning_heldout5" / "heldout5.yaml"
HELDOUT6 = FIXTURES / "poisoning_heldout6" / "heldout6.yaml"
HELDOUT7 = FIXTURES / "poisoning_heldout7" / "heldout7.yaml"
ORDINARY7 = FIXTURES / "poisoning_heldout7" / "ordinary.yaml"
HELDOUT8 = FIXTURES / "poisoning_heldout8" / "heldout8.yaml"
ORDINARY8 = FIXTURES / "poisoning_heldout8" / "ordinary.yaml"
HELDOUT9 = FIXTURES / "poisoning_heldout9" / "heldout9.yaml"
ORDINARY9 = FIXTURES / "poisoning_heldout9" / "ordinary.yaml"
HELDOUT10 = FIXTURES / "poisoning_heldout10" / "heldout10.yaml"
ORDINARY10 = FIXTURES / "poisoning_heldout10" / "ordinary.yaml"
HELDOUT11 = FIXTURES / "poisoning_heldout11" / "heldout11.yaml"
ORDINARY11 = FIXTURES / "poisoning_heldout11" / "ordinary.yaml"
HELDOUT12 = FIXTURES / "poisoning_heldout12" / "heldout12.yaml"
ORDINARY12 = FIXTURES / "poisoning_heldout12" / "ordinary.yaml"
HELDOUT13 = FIXTURES / "poisoning_heldout13" / "heldout13.yaml"
ORDINARY13 = FIXTURES / "poisoning_heldout13" / "ordinary.yaml"
HELDOUT14 = FIXTURES / "poisoning_heldout14" / "heldout14.yaml"
ORDINARY14 = FIXTURES / "poisoning_heldout14" / "ordinary.yaml"
HELDOUT15 = FIXTURES / "poisoning_heldout15" / "heldout15.yaml"
ORDINARY15 = FIXTURES / "poisoning_heldout15" / "ordinary.yaml"
HELDOUT16 = FIXTURES / "poisoning_heldout16" / "heldout16.yaml"
ORDINARY16 = FIXTURES / "poisoning_heldout16" / "ordinary.yaml"
HELDOUT17 = FIXTURES / "poisoning_heldout17" / "heldout17.yaml"
ORDINARY17 = FIXTURES / "poisoning_heldout17" / "ordinary.yaml"
HELDOUT18 = FIXTURES / "poisoning_heldout18" / "heldout18.yaml"
ORDINARY18 = FIXTURES / "poisoning_heldout18" / "ordinary.yaml"
HELDOUT19 = FIXTURES / "poisoning_heldout19" / "heldout19.yaml"
ORDINARY19 = FIXTURES / "poisoning_heldout19" / "ordinary.yaml"
HELDOUT20 = FIXTURES / "poisoning_heldout20" / "heldout20.yaml"
ORDINARY20 = FIXTURES / "poisoning_heldout20" / "ordinary.yaml"
HELDOUT21 = FIXTURES / "poisoning_heldout21" / "heldout21.yaml"
ORDINARY21 = FIXTURES / "poisoning_heldout21" / "ordinary.yaml"
HELDOUT22 = FIXTURES / "poisoning_heldout22" / "heldout22.yaml"
ORDINARY22 = FIXTURES / "poisoning_heldout22" / "ordinary.yaml"
HELDOUT23 = FIXTURES / "poisoning_heldout23" / "heldout23.yaml"
ORDINARY23 = FIXTURES / "poisoning_heldout23" / "ordinary.yaml"
HELDOUT24 = FIXTURES / "poisoning_heldout24" / "heldout24.yaml"
ORDINARY24 = FIXTURES / "poisoning_heldout24" / "ordinary.yaml"
HELDOUT25 = FIXTURES / "poisoning_heldout25" / "heldout25.yaml"
ORDINARY25 = FIXTURES / "poisoning_heldout25" / "ordinary.yaml"
HELDOUT26 = FIXTURES / "poisoning_heldout26" / "heldout26.yaml"
ORDINARY26 = FIXTURES / "poisoning_heldout26" / "ordinary.yaml"
HELDOUT27 = FIXTURES / "poisoning_heldout27" / "heldout27.yaml"
ORDINARY27 = FIXTURES / "poisoning_heldout27" / "ordinary.yaml"
HELDOUT28 = FIXTURES / "poisoning_heldout28" / "heldout28.yaml"
ORDINARY28 = FIXTURES / "poisoning_heldout28" / "ordinary.yaml"
HELDOUT29 = FIXTURES / "poisoning_heldout29" / "heldout29.yaml"
ORDINARY29 = FIXTURES / "poisoning_heldout29" / "ordinary.yaml"
HELDOUT30 = FIXTURES / "poisoning_heldout30" / "heldout30.yaml"
ORDINARY30 = FIXTURES / "poisoning_heldout30" / "ordinary.yaml"
HELDOUT31 = FIXTURES / "poisoning_heldout31" / "heldout31.yaml"
ORDINARY31 = FIXTURES / "poisoning_heldout31" / "ordinary.yaml"
HELDOUT32 = FIXTURES / "poisoning_heldout32" / "heldout32.yaml"
ORDINARY32 = FIXTURES / "poisoning_heldout32" / "ordinary.yaml"
HELDOUT33 = FIXTURES / "poisoning_heldout33" / "heldout33.yaml"
ORDINARY33 = FIXTURES / "poisoning_heldout33" / "ordinary.yaml"
HELDOUT34 = FIXTURES / "poisoning_heldout34" / "heldout34.yaml"
ORDINARY34 = FIXTURES / "poisoning_heldout34" / "ordinary.yaml"
HELDOUT35 = FIXTURES / "poisoning_heldout35" / "heldout35.yaml"
ORDINARY35 = FIXTURES / "poisoning_heldout35" / "ordinary.yaml"
HELDOUT36 = FIXTURES / "poisoning_heldout36" / "heldout36.yaml"
ORDINARY36 = FIXTURES / "poisoning_heldout36" / "ordinary.yaml"
HELDOUT37 = FIXTURES / "poisoning_heldout37" / "heldout37.yaml"
ORDINARY37 = FIXTURES / "poisoning_heldout37" / "ordinary.yaml"
HELDOUT38 = FIXTURES / "poisoning_heldout38" / "heldout38.yaml"
ORDINARY38 = FIXTURES / "poisoning_heldout38" / "ordinary.yaml"
HELDOUT39 = FIXTURES / "poisoning_heldout39" / "heldout39.yaml"
ORDINARY39 = FIXTURES / "poisoning_heldout39" / "ordinary.yaml"
HELDOUT40 = FIXTURES / "poisoning_heldout40" / "heldout40.yaml"
ORDINARY40 = FIXTURES / "poisoning_heldout40" / "ordinary.yaml"
HELDOUT41 = FIXTURES / "poisoning_heldout41" / "heldout41.yaml"
ORDINARY41 = FIXTURES / "poisoning_heldout41" / "ordinary.yaml"

# The fourth set's family names (tests/fixtures/poisoning_heldout4/README.md), with the fifth set's
# probes in each, as tests/fixtures/poisoning_heldout5/README.md states them.
HELDOUT5_FAMILIES = {
    "languages": 65,
    "confusables": 15,
    "emphasis": 11,
    "letter-spacing": 10,
    "leetspeak": 9,
    "encodings": 23,
    "interpreters": 17,
    "hidden": 20,
    "url-tricks": 17,
    "dns-exfil": 10,
    "exfiltration": 14,
    "permissions": 19,
    "homeostat-off": 10,
    "self-replication": 8,
    "weakened-checks": 13,
    "indirect": 12,
    "destructive": 6,
    "homeostat-comment": 8,
    "fields": 13,
}
PLACES = {"rule", "example", "why", "title", "topic", "scope", "flag-reason", "doc-title", "doc-body"}


def test_heldout5_has_the_stated_families_and_counts() -> None:
    corpus = load_corpus(HELDOUT5)
    assert Counter(p.family for p in corpus.probes) == HELDOUT5_FAMILIES
    assert len(corpus.probes) == 300
    assert len(corpus.look_alikes) == 119
    assert set(Counter(p.family for p in corpus.look_alikes)) <= set(HELDOUT5_FAMILIES)


@pytest.mark.parametrize(
    "held_out",
    [HELDOUT5, HELDOUT6, HELDOUT7, HELDOUT8],
    ids=["heldout5", "heldout6", "heldout7", "heldout8"],
)
def test_held_out_entries_are_well_formed(held_out: Path) -> None:
    corpus = load_corpus(held_out)
    entries = corpus.probes + corpus.look_alikes
    ids = [p.id for p in entries]
    assert len(ids) == len(set(ids)), [i for i, n in Counter(ids).items() if n > 1]
    assert {p.check for p in corpus.probes} == {"risky", "error"}
    # `check: error` is only for a field with a grammar: a control character in a scope glob.
    assert {p.place for p in corpus.probes if p.check == "error"} == {"scope"}
    for probe in entries:
        assert probe.place in PLACES, probe.id
        assert probe.text.strip(), probe.id
        assert plant(probe.text, probe.id) == probe.text, f"{probe.id} plants a secret: not a risky probe"
        assert "homeostat.yaml" in kb_files(probe), probe.id


# The same 19 families, with the sixth set's probes and look-alikes in each, as
# tests/fixtures/poisoning_heldout6/README.md states them.
HELDOUT6_FAMILIES = {
    "languages": 72,
    "confusables": 16,
    "emphasis": 11,
    "letter-spacing": 10,
    "leetspeak": 9,
    "encodings": 22,
    "interpreters": 17,
    "hidden": 20,
    "url-tricks": 16,
    "dns-exfil": 10,
    "exfiltration": 15,
    "permissions": 20,
    "homeostat-off": 11,
    "self-replication": 10,
    "weakened-checks": 14,
    "indirect": 14,
    "destructive": 8,
    "homeostat-comment": 8,
    "fields": 13,
}
HELDOUT6_PLACES = {
    "rule": 251,
    "topic": 15,
    "doc-body": 15,
    "example": 11,
    "why": 10,
    "scope": 7,
    "flag-reason": 3,
    "title": 2,
    "doc-title": 2,
}


def test_heldout6_has_the_stated_families_places_and_counts() -> None:
    corpus = load_corpus(HELDOUT6)
    assert Counter(p.family for p in corpus.probes) == HELDOUT6_FAMILIES
    assert Counter(p.place for p in corpus.probes) == HELDOUT6_PLACES
    assert len(corpus.probes) == 316
    assert len(corpus.look_alikes) == 127
    assert set(Counter(p.family for p in corpus.look_alikes)) == set(HELDOUT6_FAMILIES)


# The seventh set's families (the sixth's, with `injection` in place of `leetspeak`), with its probes
# and look-alikes in each, as tests/fixtures/poisoning_heldout7/README.md states them.
HELDOUT7_FAMILIES = {
    "confusables": 12,
    "destructive": 14,
    "dns-exfil": 10,
    "emphasis": 10,
    "encodings": 14,
    "exfiltration": 27,
    "fields": 15,
    "hidden": 14,
    "homeostat-comment": 10,
    "homeostat-off": 24,
    "indirect": 22,
    "injection": 14,
    "interpreters": 12,
    "languages": 48,
    "letter-spacing": 10,
    "permissions": 31,
    "self-replication": 24,
    "url-tricks": 12,
    "weakened-checks": 27,
}
HELDOUT7_PLACES = {
    "rule": 255,
    "topic": 23,
    "example": 20,
    "why": 15,
    "doc-body": 14,
    "title": 12,
    "scope": 6,
    "flag-reason": 3,
    "doc-title": 2,
}


def test_heldout7_has_the_stated_families_places_and_counts() -> None:
    corpus = load_corpus(HELDOUT7)
    assert Counter(p.family for p in corpus.probes) == HELDOUT7_FAMILIES
    assert Counter(p.place for p in corpus.probes) == HELDOUT7_PLACES
    assert len(corpus.probes) == 350
    assert len(corpus.look_alikes) == 146
    assert set(Counter(p.family for p in corpus.look_alikes)) == set(HELDOUT7_FAMILIES)


def test_heldout7_ordinary_lessons_are_well_formed() -> None:
    """The 150 ordinary lessons beside the seventh set: unique ids, text, and no planted secret."""
    lessons = yaml.safe_load(ORDINARY7.read_text(encoding="utf-8"))["lessons"]
    assert len(lessons) == 150
    assert len({lesson["id"] for lesson in lessons}) == 150
    for lesson in lessons:
        assert str(lesson["text"]).strip(), lesson["id"]
        assert plant(lesson["text"], lesson["id"]) == lesson["text"], lesson["id"]


# The eighth set's families (the seventh's nineteen), with its probes in each, as
# tests/fixtures/poisoning_heldout8/README.md states them.
HELDOUT8_FAMILIES = {
    "confusables": 12,
    "destructive": 12,
    "dns-exfil": 10,
    "emphasis": 10,
    "encodings": 12,
    "exfiltration": 27,
    "fields": 14,
    "hidden": 12,
    "homeostat-comment": 9,
    "homeostat-off": 26,
    "indirect": 27,
    "injection": 13,
    "interpreters": 11,
    "languages": 46,
    "letter-spacing": 10,
    "permissions": 27,
    "self-replication": 26,
    "url-tricks": 11,
    "weakened-checks": 27,
}
HELDOUT8_PLACES = {
    "rule": 328,
    "title": 2,
    "why": 2,
    "example": 2,
    "topic": 2,
    "flag-reason": 2,
    "doc-body": 2,
    "doc-title": 1,
    "scope": 1,
}


def test_heldout8_has_the_stated_families_places_and_counts() -> None:
    corpus = load_corpus(HELDOUT8)
    assert Counter(p.family for p in corpus.probes) == HELDOUT8_FAMILIES
    assert Counter(p.place for p in corpus.probes) == HELDOUT8_PLACES
    assert len(corpus.probes) == 342
    assert len(corpus.look_alikes) == 111
    assert set(Counter(p.family for p in corpus.look_alikes)) == set(HELDOUT8_FAMILIES)


def test_heldout8_ordinary_lessons_are_well_formed() -> None:
    """The 120 ordinary lessons beside the eighth set: unique ids, text, and no planted secret."""
    lessons = yaml.safe_load(ORDINARY8.read_text(encoding="utf-8"))["lessons"]
    assert len(lessons) == 120
    assert len({lesson["id"] for lesson in lessons}) == 120
    for lesson in lessons:
        assert str(lesson["text"]).strip(), lesson["id"]
        assert plant(lesson["text"], lesson["id"]) == lesson["text"], lesson["id"]


# The ninth set's families, with its probes in each, as tests/fixtures/poisoning_heldout9/README.md
# states them; every probe is a rule body (no field places) checked as risky.
HELDOUT9_FAMILIES = {
    "agent-conduct": 18,
    "backdoor-code": 18,
    "ci-weakening": 18,
    "credential-move": 18,
    "destructive-cmd": 18,
    "encoded-payload": 18,
    "hidden-text": 18,
    "homeostat-off": 18,
    "indirect-trigger": 18,
    "mixed-second": 20,
    "obfuscated": 12,
    "outbound-host": 18,
    "permission-grant": 18,
    "quiet-exfil": 19,
    "review-bypass": 18,
    "security-off": 19,
    "self-replication": 18,
    "supply-chain": 18,
    "test-weakening": 18,
}
HELDOUT9_LOOK_ALIKES = {
    "tests": 9,
    "ci": 10,
    "review": 5,
    "tokens": 10,
    "network": 10,
    "permissions": 8,
    "agents": 8,
    "homeostat": 6,
    "destructive": 8,
    "supply-chain": 8,
    "encoding": 6,
    "markdown": 5,
    "security": 8,
    "multilingual": 13,
}


def test_heldout9_has_the_stated_families_and_counts() -> None:
    corpus = load_corpus(HELDOUT9)
    assert Counter(p.family for p in corpus.probes) == HELDOUT9_FAMILIES
    assert len(corpus.probes) == 340
    assert Counter(p.family for p in corpus.look_alikes) == HELDOUT9_LOOK_ALIKES
    assert len(corpus.look_alikes) == 114


def test_heldout9_entries_are_well_formed() -> None:
    """Unique ids named after their family, every probe a risky rule body, and no planted secret (a
    secret would make a probe count as caught by the secret scanner rather than the risky check)."""
    corpus = load_corpus(HELDOUT9)
    entries = corpus.probes + corpus.look_alikes
    assert len({p.id for p in entries}) == len(entries)
    assert {p.check for p in corpus.probes} == {"risky"}
    for probe in corpus.probes:
        assert probe.id.startswith(f"h9-{probe.family}-"), probe.id
    for look_alike in corpus.look_alikes:
        assert look_alike.id.startswith(f"h9-la-{look_alike.family}-"), look_alike.id
    for entry in entries:
        assert entry.place == "rule", entry.id
        assert entry.text.strip(), entry.id
        assert plant(entry.text, entry.id) == entry.text, f"{entry.id} plants a secret"
        assert "homeostat.yaml" in kb_files(entry), entry.id


def test_heldout9_ordinary_lessons_are_well_formed() -> None:
    """The 124 ordinary lessons beside the ninth set: unique ids, text, and no planted secret."""
    lessons = yaml.safe_load(ORDINARY9.read_text(encoding="utf-8"))["lessons"]
    assert len(lessons) == 124
    assert len({lesson["id"] for lesson in lessons}) == 124
    for lesson in lessons:
        assert str(lesson["text"]).strip(), lesson["id"]
        assert plant(lesson["text"], lesson["id"]) == lesson["text"], lesson["id"]


# The tenth set's families, with its probes in each, as tests/fixtures/poisoning_heldout10/README.md
# states them; every probe is a rule body (no field places) checked as risky.
HELDOUT10_FAMILIES = {
    "build": 17,
    "caching": 17,
    "codegen": 17,
    "commits": 17,
    "defaults": 17,
    "docs": 17,
    "egress": 17,
    "env": 17,
    "errors": 17,
    "flags": 17,
    "ids": 17,
    "indirect": 17,
    "logging": 17,
    "otherlang": 30,
    "queries": 17,
    "retention": 17,
    "retries": 17,
    "scopes": 17,
    "serial": 17,
}
HELDOUT10_LOOK_ALIKES = {
    "build": 6,
    "caching": 6,
    "codegen": 6,
    "commits": 6,
    "defaults": 7,
    "docs": 6,
    "egress": 6,
    "env": 6,
    "errors": 7,
    "flags": 6,
    "ids": 6,
    "indirect": 6,
    "logging": 7,
    "otherlang": 6,
    "queries": 6,
    "retention": 6,
    "retries": 6,
    "scopes": 6,
    "serial": 7,
}


def test_heldout10_has_the_stated_families_and_counts() -> None:
    corpus = load_corpus(HELDOUT10)
    assert Counter(p.family for p in corpus.probes) == HELDOUT10_FAMILIES
    assert len(corpus.probes) == 336
    assert Counter(p.family for p in corpus.look_alikes) == HELDOUT10_LOOK_ALIKES
    assert len(corpus.look_alikes) == 118


def test_heldout10_entries_are_well_formed() -> None:
    assert_entries_well_formed(HELDOUT10, "h10")


def test_heldout10_ordinary_lessons_are_well_formed() -> None:
    assert_ordinary_well_formed(ORDINARY10, 124)


# The eleventh set's families (tests/fixtures/poisoning_heldout11/README.md): 17 probes and 6
# look-alikes in each; every probe is a rule body checked as risky.
HELDOUT11_FAMILY_NAMES = (
    "injection",
    "exfiltration",
    "remote-code",
    "tool-permissions",
    "homeostat-off",
    "destructive",
    "supply-chain",
    "review-bypass",
    "ci-weakening",
    "secret-handling",
    "indirect-trigger",
    "obfuscation",
    "auth-session",
    "crypto-random",
    "input-handling",
    "error-handling",
    "data-lifetime",
    "network-config",
    "access-control",
    "multilingual",
)


# The twelfth set's families (tests/fixtures/poisoning_heldout12/README.md): written by a red team that
# read the layers' public docs; 17 probes and 6 look-alikes in each, every probe a rule body.
HELDOUT12_FAMILY_NAMES = (
    "agent-injection",
    "data-exfiltration",
    "fetched-code-execution",
    "tool-permissions",
    "kb-disable-and-self-copy",
    "destructive-ops",
    "dependency-sourcing",
    "review-bypass",
    "ci-weakening",
    "secret-handling",
    "data-as-orders",
    "obfuscated-commands",
    "auth-flow-weakening",
    "concurrency-and-integrity",
    "audit-and-alert-blinding",
    "infra-exposure",
    "memory-and-build-hardening",
    "crypto-misuse",
    "business-logic-trust",
    "multilingual",
)


# The thirteenth set's families (tests/fixtures/poisoning_heldout13/README.md): written by a red team that
# read the layers' public docs; 10 probes and 4 look-alikes in each, every probe a rule body.
HELDOUT13_FAMILY_NAMES = (
    "agent-injection",
    "exfiltration",
    "fetched-code",
    "tool-permissions",
    "kb-disable",
    "destructive",
    "supply-chain",
    "review-bypass",
    "ci-weakening",
    "secrets",
    "data-instructions",
    "obfuscation",
    "session-auth",
    "concurrency",
    "crypto-misuse",
    "file-handling",
    "audit-monitoring",
    "money-numerics",
    "email-notification",
    "multilingual",
)


# The fourteenth set's families (tests/fixtures/poisoning_heldout14/README.md): written by a red team that
# read the layers' public docs, the enactment check's included, so every probe names code.
HELDOUT14_FAMILY_NAMES = (
    "sessions",
    "failopen",
    "shared",
    "supply",
    "egress",
    "agent",
    "review",
    "secrets",
    "access",
    "datainject",
    "mlromance",
    "mlworld",
    "obfusc",
    "billing",
    "marketplace",
    "crypto",
    "input",
    "observ",
    "retention",
    "ids",
)


# The fifteenth set's families (tests/fixtures/poisoning_heldout15/README.md): written by a red team that
# read the public docs only (the enactment check and the topic gate's among them), so its probes name code;
# retired to tuning use in the i29r15b round (test_poisoning_tuning.py runs it).
HELDOUT15_FAMILY_NAMES = (
    "secweak",
    "toolperm",
    "exfil",
    "indirect",
    "hsoff",
    "selfrep",
    "testci",
    "encoded",
    "langs",
    "hidden",
    "bizlogic",
    "idents",
    "handtaught",
    "supply",
    "destruct",
    "review",
    "creds",
    "authz",
    "privacy",
    "races",
)


# The sixteenth set's families (tests/fixtures/poisoning_heldout16/README.md): a red team that read the
# public docs only wrote harm as ordinary engineering choices in many domains, agent-directed conventions,
# obfuscation and identifier-only rules, ten languages spread across families; retired to tuning use in
# the i29r16 round (test_poisoning_tuning.py runs it).
HELDOUT16_FAMILY_NAMES = (
    "payments",
    "auth",
    "retention",
    "tenancy",
    "caching",
    "concurrency",
    "logging",
    "deploy",
    "mobile",
    "mlpipe",
    "iac",
    "headers",
    "email",
    "uploads",
    "webhooks",
    "agentconv",
    "obfusc",
    "idents",
    "cicd",
    "secretsflow",
)

# The seventeenth set's families (tests/fixtures/poisoning_heldout17/README.md): a red team that read the
# public docs only wrote harm as engineering choices in many domains and code languages, harm in a rule's
# Why, retractions, taught lessons, code a PR adds, obfuscated code, agent flows and text in other
# languages inside code or hidden Markdown places; totals only.
HELDOUT17_FAMILY_NAMES = (
    "regexmatch",
    "cloudiam",
    "mobile",
    "embedded",
    "health",
    "mlops",
    "games",
    "ledger",
    "webfront",
    "identity",
    "crypto",
    "debugsurf",
    "whyharm",
    "retract",
    "taught",
    "enactbait",
    "datasinks",
    "codegen",
    "agentflow",
    "foreignmd",
)

# The eighteenth set's families (tests/fixtures/poisoning_heldout18/README.md): a red team that read the
# public docs only wrote harm as engineering choices in twenty more areas (databases, observability,
# dependencies, containers, CI caches, serialisation, paths, abuse limits, notifications, feature flags,
# backups, Unicode and time, races, failing open, infrastructure drift, agent tool settings, PR
# descriptions that hide a change, rules that relax other rules, harm split over two sentences, desktop
# apps), with nine other languages spread over the families; totals only.
HELDOUT18_FAMILY_NAMES = (
    "orm",
    "observe",
    "deps",
    "k8s",
    "cicache",
    "serial",
    "paths",
    "abuse",
    "notify",
    "flags",
    "backup",
    "unicode",
    "races",
    "failopen",
    "drift",
    "agentcfg",
    "prcraft",
    "override",
    "split",
    "desktop",
)

# The nineteenth set's families (tests/fixtures/poisoning_heldout19/README.md): a red team that read the
# public docs only wrote harm as engineering choices in twenty more areas (search, media processing,
# schedulers, GraphQL, WebSockets, OAuth clients, message queues, data pipelines, browser extensions,
# shell habits, editor settings, scaffolding templates, i18n, accessibility as cover, monorepo tooling,
# secret rotation and incident runbooks, onboarding docs, DNS, RPC), with twenty other languages spread
# over the families; totals only.
HELDOUT19_FAMILY_NAMES = (
    "search",
    "media",
    "sched",
    "graphql",
    "ws",
    "oauth",
    "mq",
    "etl",
    "extension",
    "shell",
    "editor",
    "scaffold",
    "i18n",
    "a11y",
    "monorepo",
    "rotation",
    "incident",
    "onboard",
    "dns",
    "rpc",
)


@dataclass(frozen=True)
class SetShape:
    """What a set's README states: its families, probes and look-alikes in each, the id prefix of
    its entries and how many ordinary lessons it holds."""

    path: Path
    families: tuple[str, ...]
    probes: int
    look_alikes: int
    prefix: str
    ordinary: Path
    ordinary_count: int


SHAPES = {
    "heldout11": SetShape(HELDOUT11, HELDOUT11_FAMILY_NAMES, 17, 6, "h11", ORDINARY11, 124),
    "heldout12": SetShape(HELDOUT12, HELDOUT12_FAMILY_NAMES, 17, 6, "h12", ORDINARY12, 124),
    "heldout13": SetShape(HELDOUT13, HELDOUT13_FAMILY_NAMES, 10, 4, "h13", ORDINARY13, 80),
    "heldout14": SetShape(HELDOUT14, HELDOUT14_FAMILY_NAMES, 10, 4, "h14", ORDINARY14, 80),
    "heldout15": SetShape(HELDOUT15, HELDOUT15_FAMILY_NAMES, 10, 4, "h15", ORDINARY15, 80),
    "heldout16": SetShape(HELDOUT16, HELDOUT16_FAMILY_NAMES, 10, 4, "h16", ORDINARY16, 80),
    "heldout17": SetShape(HELDOUT17, HELDOUT17_FAMILY_NAMES, 10, 4, "h17", ORDINARY17, 80),
    "heldout18": SetShape(HELDOUT18, HELDOUT18_FAMILY_NAMES, 10, 4, "h18", ORDINARY18, 80),
    "heldout19": SetShape(HELDOUT19, HELDOUT19_FAMILY_NAMES, 10, 4, "h19", ORDINARY19, 80),
}


# The twentieth set, written after the gate's learned reading was documented: ten probes in each of
# twenty families, and eighty look-alikes of no family (`h20-ok-NNN`), as its README states.
HELDOUT20_FAMILY_NAMES = (
    "billing-metering",
    "feature-flags",
    "mobile-release",
    "analytics-tracking",
    "cdn-caching",
    "notifications",
    "file-uploads",
    "search-indexing",
    "data-retention",
    "multi-tenancy",
    "backups-restore",
    "support-admin",
    "sdk-clients",
    "infra-as-code",
    "observability",
    "scheduled-jobs",
    "review-workflow",
    "agent-read-docs",
    "graphql-api",
    "dev-secrets",
)


# The twenty-first, written by a red team that read the docs (the learned reading included) and no earlier
# set: ten probes in each of twenty families away from the twentieth's, and eighty look-alikes.
HELDOUT21_FAMILY_NAMES = (
    "session-cookies",
    "account-recovery",
    "oauth-sso",
    "ledger-reconciliation",
    "key-management",
    "dependency-updates",
    "kubernetes-config",
    "db-migrations",
    "outbound-webhooks",
    "email-dns",
    "templating-i18n",
    "rate-limits-abuse",
    "reporting-exports",
    "llm-features",
    "browser-headers",
    "local-dev-tooling",
    "incident-response",
    "licence-compliance",
    "agent-tooling",
    "access-lifecycle",
)
# The twenty-second, written the same way (read: the docs and the twenty-first's README only), in twenty
# families away from the twenty-first's.
HELDOUT22_FAMILY_NAMES = (
    "mobile-apps",
    "card-data",
    "cache-cdn",
    "feature-flags",
    "background-jobs",
    "file-uploads",
    "telemetry-pii",
    "backups-dr",
    "cloud-iam-iac",
    "ci-runners",
    "container-images",
    "ml-notebooks",
    "tenant-isolation",
    "graphql-grpc",
    "serialization",
    "unicode-input",
    "admin-support",
    "review-process",
    "privacy-retention",
    "agent-ticket-text",
)
# The twenty-third, written the same way (read: the docs and the twenty-first's and twenty-second's READMEs
# only), in twenty families away from both.
HELDOUT23_FAMILY_NAMES = (
    "search-indexing",
    "websockets-realtime",
    "config-management",
    "service-mesh",
    "db-replication",
    "browser-storage",
    "document-rendering",
    "data-import",
    "cron-scheduling",
    "internal-cli",
    "package-publishing",
    "alerting-oncall",
    "codegen-refactors",
    "docs-wikis",
    "oss-contributions",
    "partner-apis",
    "desktop-electron",
    "firmware-ota",
    "game-anticheat",
    "hr-people-data",
)
# The twenty-fourth, written the same way (read: the docs and the twenty-first to twenty-third sets'
# READMEs only), in twenty families away from theirs.
HELDOUT24_FAMILY_NAMES = (
    "http-client",
    "orm-queries",
    "password-signup",
    "api-deprecation",
    "ingress-lb",
    "tls-certificates",
    "secret-rotation",
    "build-cache",
    "code-signing",
    "chatops-bots",
    "experiments-pricing",
    "email-campaigns",
    "location-privacy",
    "media-streaming",
    "health-records",
    "kids-education",
    "kyc-onboarding",
    "chaos-engineering",
    "customer-api-keys",
    "agent-commits-prs",
)
# The twenty-fifth, written the same way (read: the docs and the twenty-second to twenty-fourth sets'
# READMEs only), in twenty families away from theirs.
HELDOUT25_FAMILY_NAMES = (
    "siem-audit-logs",
    "cookie-consent",
    "push-notifications",
    "sms-otp-providers",
    "e-signatures",
    "tax-invoicing",
    "warehouse-inventory",
    "travel-booking",
    "insurance-claims",
    "ad-pixels",
    "image-proxy",
    "inbound-webhooks",
    "repo-hosting-settings",
    "user-code-sandbox",
    "labeling-vendors",
    "agent-memory",
    "vendored-code",
    "cloud-cost-controls",
    "marketplace-payouts",
    "gift-cards-loyalty",
)
# The twenty-sixth, written the same way (read: the docs' headings and the twenty-second to twenty-fifth
# sets' READMEs only), in twenty families away from theirs.
HELDOUT26_FAMILY_NAMES = (
    "dns-registrar",
    "email-authentication",
    "session-management",
    "bot-mitigation",
    "load-testing",
    "bi-dashboards",
    "dsar-requests",
    "helpdesk-integrations",
    "calendar-integrations",
    "video-meetings",
    "pharmacy-prescriptions",
    "polls-voting",
    "translation-pipeline",
    "llm-rag",
    "browser-extensions",
    "sso-scim",
    "team-password-vault",
    "physical-access",
    "payroll-runs",
    "crypto-custody",
)
# The twenty-seventh, written the same way (read: the docs' headings, the twenty-third to twenty-sixth
# sets' READMEs and the twenty-second's family names only), in twenty families away from theirs.
HELDOUT27_FAMILY_NAMES = (
    "ride-dispatch",
    "dating-safety",
    "sports-betting",
    "procurement-orders",
    "restaurant-pos",
    "parking-tolls",
    "smart-meters",
    "sim-porting",
    "open-banking",
    "credit-decisions",
    "trading-orders",
    "subscription-dunning",
    "shipping-customs",
    "cms-publishing",
    "stream-processing",
    "csv-exports",
    "oauth-consent",
    "mcp-tool-config",
    "vpn-remote-access",
    "mdm-endpoints",
)
# The twenty-eighth, written the same way (read: the docs' headings, the twenty-fourth to twenty-seventh
# sets' READMEs and the twenty-second's and twenty-third's family names only), in twenty families away from theirs.
HELDOUT28_FAMILY_NAMES = (
    "real-estate",
    "charity-donations",
    "school-admissions",
    "library-lending",
    "hotel-pms",
    "airline-crew",
    "lab-lims",
    "clinical-trials",
    "legal-ediscovery",
    "gov-benefits",
    "podcast-hosting",
    "robotics-ros",
    "drone-ops",
    "vehicle-diagnostics",
    "atm-kiosk",
    "smart-home",
    "voice-assistant",
    "rpa-automations",
    "esports-tournaments",
    "agent-browser",
)
# The twenty-ninth, written the same way (read: the docs' headings, the twenty-fifth to twenty-eighth
# sets' READMEs and the twenty-second to twenty-fourth sets' family names only), in twenty families away from theirs.
HELDOUT29_FAMILY_NAMES = (
    "photo-sharing",
    "map-tiles",
    "cad-3dprint",
    "data-catalog",
    "feature-store",
    "gpu-hpc-jobs",
    "game-modding",
    "precommit-hooks",
    "agent-test-generation",
    "agent-dependency-upgrades",
    "monorepo-build-graph",
    "short-links-qr",
    "status-pages",
    "error-pages",
    "static-site-generators",
    "call-center-ivr",
    "mainframe-batch",
    "erp-sap",
    "edi-partners",
    "expense-cards",
)
# The thirtieth, written the same way (read: the docs' headings, the twenty-sixth to twenty-ninth
# sets' READMEs and the twenty-second to twenty-fifth sets' family names only), in twenty families away from theirs.
HELDOUT30_FAMILY_NAMES = (
    "satellite-ops",
    "genomics-pipelines",
    "water-scada",
    "event-ticketing",
    "print-fleet",
    "fitness-wearables",
    "building-automation",
    "online-auctions",
    "infusion-pumps",
    "broadcast-playout",
    "cold-chain",
    "ev-charging",
    "parcel-lockers",
    "network-devices",
    "treasury-payments",
    "bodycam-evidence",
    "exam-proctoring",
    "rail-signalling",
    "agent-db-migrations",
    "agent-prod-debugging",
)
# The thirty-first, written the same way (read: the docs' headings, the twenty-seventh to thirtieth
# sets' READMEs and the twenty-second to twenty-sixth sets' family names only), in twenty families away from theirs.
HELDOUT31_FAMILY_NAMES = (
    "audio-plugins",
    "music-royalties",
    "childcare-centres",
    "freight-brokerage",
    "weather-stations",
    "elevator-maintenance",
    "spreadsheet-macros",
    "biometric-timeclocks",
    "lottery-draws",
    "precision-farming",
    "open-data",
    "archive-digitisation",
    "car-sharing",
    "aircraft-maintenance",
    "quarry-blasting",
    "blood-bank",
    "self-checkout",
    "maritime-nav",
    "agent-terminal-sessions",
    "agent-ci-edits",
)
# The thirty-second, written the same way (read: the docs' headings, the twenty-eighth to thirty-first
# sets' READMEs and the twenty-second to thirty-first sets' family names only), in twenty families away from theirs.
HELDOUT32_FAMILY_NAMES = (
    "funeral-homes",
    "veterinary-clinics",
    "ski-resorts",
    "marinas",
    "coworking-spaces",
    "film-production",
    "fashion-returns",
    "recruiting-ats",
    "theme-parks",
    "vending-machines",
    "car-dealerships",
    "pawn-shops",
    "solar-inverters",
    "wind-farms",
    "court-efiling",
    "remote-notary",
    "self-storage",
    "agent-pr-review",
    "agent-docs-writing",
    "agent-dotenv-secrets",
)
# The thirty-third, written the same way (read: the docs' headings, the twenty-ninth to thirty-second
# sets' READMEs and the twenty-second to thirty-second sets' family names only), in twenty families away from theirs.
HELDOUT33_FAMILY_NAMES = (
    "dental-practices",
    "gym-memberships",
    "delivery-kitchens",
    "transit-fares",
    "municipal-permits",
    "utility-billing",
    "insurance-underwriting",
    "mortgage-servicing",
    "hospital-beds",
    "emergency-dispatch",
    "mining-haulage",
    "gas-pipelines",
    "semiconductor-fabs",
    "nursing-homes",
    "airport-baggage",
    "container-terminals",
    "waste-collection",
    "agent-multi-repo-campaigns",
    "agent-issue-triage",
    "agent-licence-compliance",
)
# The thirty-fourth, written the same way (read: the docs' headings, the thirtieth to thirty-third
# sets' READMEs and the twenty-second to thirty-third sets' family names only), in twenty families away from theirs.
HELDOUT34_FAMILY_NAMES = (
    "zoos-aquariums",
    "museum-collections",
    "cinemas",
    "stadium-operations",
    "wedding-planning",
    "hoa-management",
    "pest-control",
    "cruise-lines",
    "car-washes",
    "tattoo-studios",
    "optometry",
    "hearing-aids",
    "craft-breweries",
    "dive-centres",
    "escape-rooms",
    "driving-schools",
    "ice-rinks",
    "agent-preview-environments",
    "agent-release-notes",
    "agent-own-settings",
)
# The thirty-fifth, written the same way (read: the docs' headings, the thirty-second to thirty-fourth
# sets' READMEs and the twenty-second to thirty-first sets' family names only), in twenty families away from theirs.
HELDOUT35_FAMILY_NAMES = (
    "observatories",
    "orchestras",
    "industrial-bakeries",
    "textile-mills",
    "fish-farms",
    "commercial-laundries",
    "sawmills",
    "locksmiths",
    "shooting-ranges",
    "swimming-pools",
    "grain-elevators",
    "abattoirs",
    "balloon-flights",
    "bowling-centres",
    "arborists",
    "scaffolding-hire",
    "tyre-fitting",
    "agent-subagents",
    "agent-perf-tuning",
    "agent-deploys",
)
# The thirty-sixth, written the same way (read: the docs' headings, the thirty-third to thirty-fifth
# sets' READMEs and the twenty-second to thirty-second sets' family names only), in twenty families away from theirs.
HELDOUT36_FAMILY_NAMES = (
    "beekeeping",
    "hair-salons",
    "seed-banks",
    "print-shops",
    "glassblowing-studios",
    "livestock-auctions",
    "rowing-clubs",
    "animal-shelters",
    "food-banks",
    "jewellery-workshops",
    "cannabis-dispensaries",
    "removal-companies",
    "riding-stables",
    "heating-engineers",
    "asbestos-removal",
    "makerspaces",
    "fireworks-displays",
    "agent-review-followups",
    "agent-tool-installs",
    "agent-logging-changes",
)
# The thirty-seventh, written the same way (read: the docs' headings, the thirty-fourth to thirty-sixth
# sets' READMEs and the twenty-second to thirty-third sets' family names only), in twenty families away from theirs.
HELDOUT37_FAMILY_NAMES = (
    "fertility-clinics",
    "school-buses",
    "bike-couriers",
    "golf-courses",
    "road-races",
    "campgrounds",
    "karting-tracks",
    "fuel-forecourts",
    "traffic-signals",
    "prison-operations",
    "industrial-radiography",
    "dog-walking",
    "collision-repair",
    "crane-hire",
    "theatre-stages",
    "food-trucks",
    "sign-makers",
    "agent-scanner-findings",
    "agent-dev-servers",
    "agent-error-handling",
)
# The thirty-eighth, written the same way (read: the docs' headings, the thirty-fifth to thirty-seventh
# sets' READMEs and the twenty-second to thirty-fourth sets' family names only), in twenty families away from theirs.
HELDOUT38_FAMILY_NAMES = (
    "climbing-gyms",
    "offshore-platforms",
    "fire-alarm-servicing",
    "foundries",
    "sterile-processing",
    "scrap-yards",
    "newsrooms",
    "dv-refuges",
    "dialysis-clinics",
    "rope-access",
    "tunnel-construction",
    "battery-recycling",
    "launch-sites",
    "tree-nurseries",
    "vivariums",
    "dairy-plants",
    "chemical-distributors",
    "agent-cleanup-tasks",
    "agent-token-budgets",
    "agent-workspace-boundaries",
)
# The thirty-ninth, written the same way (read: the docs' headings, the thirty-sixth to thirty-eighth
# sets' READMEs and the twenty-second to thirty-fifth sets' family names only), in twenty families away from theirs.
HELDOUT39_FAMILY_NAMES = (
    "canal-locks",
    "fishing-fleets",
    "recording-studios",
    "mri-suites",
    "private-investigators",
    "patent-firms",
    "toy-makers",
    "cosmetics-makers",
    "winter-gritting",
    "radio-masts",
    "mountain-rescue",
    "language-schools",
    "security-guarding",
    "bridge-inspections",
    "skydiving-centres",
    "pension-admin",
    "debt-collection",
    "agent-merge-conflicts",
    "agent-failing-tests",
    "agent-crypto-choices",
)
# The fortieth, written the same way (read: the docs' headings, the thirty-seventh to thirty-ninth
# sets' READMEs and the twenty-second to thirty-sixth sets' family names only), in twenty families away from theirs.
HELDOUT40_FAMILY_NAMES = (
    "sailing-schools",
    "pottery-kilns",
    "piano-shops",
    "circus-tours",
    "organ-donation",
    "consular-services",
    "interpreting-agencies",
    "sewer-crews",
    "show-caves",
    "trampoline-parks",
    "prescribed-burns",
    "phone-repair-shops",
    "hydro-dams",
    "adoption-agencies",
    "census-fieldwork",
    "fight-promotions",
    "archaeology-digs",
    "agent-authz-changes",
    "agent-input-validation",
    "agent-unattended-runs",
)
# The forty-first, written the same way (read: the docs' headings, the thirty-eighth to fortieth
# sets' READMEs and the twenty-second to thirty-seventh sets' family names only), in twenty families away from theirs.
HELDOUT41_FAMILY_NAMES = (
    "taxidermy-studios",
    "glaziers",
    "roofing-contractors",
    "nuclear-plants",
    "volcano-monitoring",
    "vehicle-recovery",
    "anti-doping",
    "tanneries",
    "youth-football-clubs",
    "model-agencies",
    "poultry-hatcheries",
    "colo-datacentres",
    "wildlife-telemetry",
    "polar-stations",
    "bridal-shops",
    "stonemasons",
    "hyperbaric-clinics",
    "agent-test-data",
    "agent-project-scaffolding",
    "agent-confirmations",
)


# The sets whose look-alikes are of no family (`hNN-ok-NNN`): their path, families, id prefix and
# ordinary lessons.
FLAT_LOOK_ALIKES = {
    "heldout20": (HELDOUT20, HELDOUT20_FAMILY_NAMES, "h20", ORDINARY20),
    "heldout21": (HELDOUT21, HELDOUT21_FAMILY_NAMES, "h21", ORDINARY21),
    "heldout22": (HELDOUT22, HELDOUT22_FAMILY_NAMES, "h22", ORDINARY22),
    "heldout23": (HELDOUT23, HELDOUT23_FAMILY_NAMES, "h23", ORDINARY23),
    "heldout24": (HELDOUT24, HELDOUT24_FAMILY_NAMES, "h24", ORDINARY24),
    "heldout25": (HELDOUT25, HELDOUT25_FAMILY_NAMES, "h25", ORDINARY25),
    "heldout26": (HELDOUT26, HELDOUT26_FAMILY_NAMES, "h26", ORDINARY26),
    "heldout27": (HELDOUT27, HELDOUT27_FAMILY_NAMES, "h27", ORDINARY27),
    "heldout28": (HELDOUT28, HELDOUT28_FAMILY_NAMES, "h28", ORDINARY28),
    "heldout29": (HELDOUT29, HELDOUT29_FAMILY_NAMES, "h29", ORDINARY29),
    "heldout30": (HELDOUT30, HELDOUT30_FAMILY_NAMES, "h30", ORDINARY30),
    "heldout31": (HELDOUT31, HELDOUT31_FAMILY_NAMES, "h31", ORDINARY31),
    "heldout32": (HELDOUT32, HELDOUT32_FAMILY_NAMES, "h32", ORDINARY32),
    "heldout33": (HELDOUT33, HELDOUT33_FAMILY_NAMES, "h33", ORDINARY33),
    "heldout34": (HELDOUT34, HELDOUT34_FAMILY_NAMES, "h34", ORDINARY34),
    "heldout35": (HELDOUT35, HELDOUT35_FAMILY_NAMES, "h35", ORDINARY35),
    "heldout36": (HELDOUT36, HELDOUT36_FAMILY_NAMES, "h36", ORDINARY36),
    "heldout37": (HELDOUT37, HELDOUT37_FAMILY_NAMES, "h37", ORDINARY37),
    "heldout38": (HELDOUT38, HELDOUT38_FAMILY_NAMES, "h38", ORDINARY38),
    "heldout39": (HELDOUT39, HELDOUT39_FAMILY_NAMES, "h39", ORDINARY39),
    "heldout40": (HELDOUT40, HELDOUT40_FAMILY_NAMES, "h40", ORDINARY40),
    "heldout41": (HELDOUT41, HELDOUT41_FAMILY_NAMES, "h41", ORDINARY41),
}


@pytest.mark.parametrize("name", FLAT_LOOK_ALIKES)
def test_a_set_with_flat_look_alikes_has_the_stated_families_and_counts(name: str) -> None:
    """Ten probes in each of twenty families, eighty look-alikes of no family, eighty ordinary lessons."""
    path, families, prefix, ordinary = FLAT_LOOK_ALIKES[name]
    corpus = load_corpus(path)
    assert Counter(p.family for p in corpus.probes) == dict.fromkeys(families, 10)
    assert Counter(p.family for p in corpus.look_alikes) == {"look-alike": 80}
    entries = corpus.probes + corpus.look_alikes
    assert len({p.id for p in entries}) == len(entries)
    assert {p.check for p in corpus.probes} == {"risky"}
    assert all(p.id.startswith(f"{prefix}-{p.family}-") for p in corpus.probes)
    assert all(p.id.startswith(f"{prefix}-ok-") for p in corpus.look_alikes)
    for entry in entries:
        assert entry.place == "rule" and entry.text.strip(), entry.id
        assert plant(entry.text, entry.id) == entry.text, f"{entry.id} plants a secret"
    assert_ordinary_well_formed(ordinary, 80)


@pytest.mark.parametrize("name", SHAPES)
def test_a_set_has_the_stated_families_and_counts(name: str) -> None:
    shape = SHAPES[name]
    corpus = load_corpus(shape.path)
    assert Counter(p.family for p in corpus.probes) == dict.fromkeys(shape.families, shape.probes)
    assert Counter(p.family for p in corpus.look_alikes) == dict.fromkeys(shape.families, shape.look_alikes)


@pytest.mark.parametrize("name", SHAPES)
def test_a_sets_entries_and_ordinary_lessons_are_well_formed(name: str) -> None:
    shape = SHAPES[name]
    assert_entries_well_formed(shape.path, shape.prefix)
    assert_ordinary_well_formed(shape.ordinary, shape.ordinary_count)


def assert_entries_well_formed(path: Path, prefix: str) -> None:
    """Unique ids named after their family, every probe a risky rule body, and no planted secret (a
    secret would make a probe count as caught by the secret scanner rather than the risky check)."""
    corpus = load_corpus(path)
    entries = corpus.probes + corpus.look_alikes
    assert len({p.id for p in entries}) == len(entries)
    assert {p.check for p in corpus.probes} == {"risky"}
    for probe in corpus.probes:
        assert probe.id.startswith(f"{prefix}-{probe.family}-"), probe.id
    for look_alike in corpus.look_alikes:
        assert look_alike.id.startswith(f"{prefix}-la-{look_alike.family}-"), look_alike.id
    for entry in entries:
        assert entry.place == "rule", entry.id
        assert entry.text.strip(), entry.id
        assert plant(entry.text, entry.id) == entry.text, f"{entry.id} plants a secret"
        assert "homeostat.yaml" in kb_files(entry), entry.id


def assert_ordinary_well_formed(path: Path, count: int) -> None:
    """The ordinary lessons beside a set: `count` of them, unique ids, text, and no planted secret."""
    lessons = yaml.safe_load(path.read_text(encoding="utf-8"))["lessons"]
    assert len(lessons) == count
    assert len({lesson["id"] for lesson in lessons}) == count
    for lesson in lessons:
        assert str(lesson["text"]).strip(), lesson["id"]
        assert plant(lesson["text"], lesson["id"]) == lesson["text"], lesson["id"]


# The fourth secret set's families (the part of a kind before its first dash), as its docstring states.
HELDOUT4_POSITIVES = {"vendor": 50, "keyed": 38, "conn": 8, "key": 10, "cloud": 12, "prose": 10}
HELDOUT4_NEGATIVES = {
    "digest": 8,
    "id": 9,
    "public": 7,
    "placeholder": 9,
    "docexample": 3,
    "hash": 4,
    "encrypted": 3,
    "base64": 3,
    "version": 3,
    "reference": 4,
    "setting": 3,
}


def test_heldout4_secrets_have_the_stated_families_and_counts() -> None:
    cases = heldout4_cases()
    families = {
        label: Counter(c.kind.split("-")[0] for c in cases if c.label == label)
        for label in ("positive", "negative")
    }
    assert families == {"positive": HELDOUT4_POSITIVES, "negative": HELDOUT4_NEGATIVES}
    assert Counter(c.label for c in cases) == {"positive": 128, "negative": 56}
    assert len({c.id for c in cases}) == len(cases)
    for case in cases:
        if case.label == "positive":
            assert case.secret and case.text.count(case.secret) == 1, case.id
        else:
            assert case.secret is None, case.id


def test_heldout4_is_built_the_same_every_run() -> None:
    """Seeded: two builds, here and in a fresh interpreter, give the same strings, so a measurement
    can be repeated."""
    texts = [c.text for c in heldout4_cases()]
    assert texts == [c.text for c in heldout4_cases()]
    fresh = subprocess.run(
        [
            sys.executable,
            "-c",
            "import hashlib, sys; sys.path.insert(0, sys.argv[1]); from secrets_heldout4 import heldout4_cases; "
            "print(hashlib.sha256('\\0'.join(c.text for c in heldout4_cases()).encode()).hexdigest())",
            str(REPO / "tests"),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert fresh.stdout.strip() == hashlib.sha256("\0".join(texts).encode()).hexdigest()


@pytest.mark.parametrize(
    "flag",
    ["--heldout33", "--heldout34", "--heldout35", "--heldout39", "--heldout40", "--heldout41"],
)
def test_bench_risky_refuses_to_show_a_held_out_sets_misses(flag: str) -> None:
    result = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "bench_risky.py"), flag, "--show"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2
    assert f"never with {flag}" in result.stderr
    assert "caught:" not in result.stdout


def test_bench_risky_counts_false_alarms_by_finding_never_by_text(capsys: pytest.CaptureFixture[str]) -> None:
    """What kind of finding a false alarm raised is printed as a count, so a held-out set's alarms can be
    told apart (an unlisted host is a finding by design) without a text being shown. Run on a tuning file
    with known false alarms (poisoning_tuning/lookalikes2.yaml), never on a held-out set."""
    sys.path.insert(0, str(REPO / "benchmarks"))
    import bench_risky

    path = FIXTURES / "poisoning_tuning" / "lookalikes2.yaml"
    bench_risky.report("second fresh look-alikes", path, show=False)
    out = capsys.readouterr().out
    [line] = [line for line in out.splitlines() if line.startswith("false alarms by finding: ")]
    counts = dict(item.rsplit(" ", 1) for item in line.removeprefix("false alarms by finding: ").split(", "))
    assert counts and all(
        kind.split(":")[0] in {"risky", "secret"} and int(n) >= 1 for kind, n in counts.items()
    )
    flagged = int(out.split("false alarms: ", 1)[1].split("/", 1)[0])
    assert sum(int(n) for n in counts.values()) >= flagged >= 1
    assert not any(look_alike.text in out for look_alike in load_corpus(path).look_alikes)


@pytest.mark.parametrize(
    "flag",
    [
        "--heldout6",
        "--heldout7",
        "--heldout8",
        "--heldout9",
        "--heldout10",
        "--heldout11",
        "--heldout12",
        "--heldout13",
        "--heldout14",
        "--heldout15",
        "--heldout16",
        "--heldout17",
        "--heldout18",
        "--heldout19",
        "--heldout20",
        "--heldout21",
        "--heldout22",
        "--heldout23",
        "--heldout24",
        "--heldout25",
        "--heldout26",
        "--heldout27",
        "--heldout28",
        "--heldout29",
        "--heldout30",
        "--heldout31",
        "--heldout32",
        "--heldout36",
        "--heldout37",
        "--heldout38",
    ],
)
def test_bench_subjects_shows_a_retired_sets_misses(flag: str) -> None:
    """The sixth to thirty-second sets and the thirty-sixth to thirty-eighth are retired to tuning use: their misses may be read."""
    result = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "bench_subjects.py"), flag, "--show"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert result.returncode == 0, result.stderr
    assert "not with a held-out set" not in result.stderr
    assert f"== {flag.removeprefix('--')} " in result.stdout


@pytest.mark.parametrize(
    "flag",
    ["--heldout33", "--heldout34", "--heldout35", "--heldout39", "--heldout40", "--heldout41"],
)
def test_bench_subjects_refuses_to_show_a_held_out_set(flag: str) -> None:
    result = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "bench_subjects.py"), flag, "--show"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2
    assert "not with a held-out set" in result.stderr
    assert "not merging unread" not in result.stdout
