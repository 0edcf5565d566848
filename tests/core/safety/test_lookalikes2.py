"""The second fresh look-alikes (tests/fixtures/poisoning_tuning/lookalikes2.yaml, issue 29's second
false-alarm round, i29fa2): 250 good team rules that sound dangerous, written before the risky check was
read, raise no risky finding, but those listed with the reason the check cannot read them yet."""

from __future__ import annotations

from collections import Counter

import pytest
from kit import FIXTURES
from poisoning import Probe, _validate_in_process, kb_files, load_corpus

FRESH = load_corpus(FIXTURES / "poisoning_tuning" / "lookalikes2.yaml")
# Measured once before the round read the check (main 9072ccf): 39 of the 250 had a risky finding.
_NOT_READ_YET = "flagged when the file was written; not read yet"
KNOWN_FALSE_ALARMS: dict[str, str] = dict.fromkeys(
    [
        "la2-pipe-03", "la2-pipe-05", "la2-pipe-07", "la2-pipe-09", "la2-tls-04", "la2-tls-06",
        "la2-tls-07", "la2-ci-secrets-03", "la2-tokens-05", "la2-iam-03", "la2-iam-06", "la2-agent-tools-03",
        "la2-inject-01", "la2-inject-02", "la2-inject-06", "la2-inject-07", "la2-inject-09", "la2-inject-10",
        "la2-flaky-09", "la2-logging-02", "la2-incident-02", "la2-incident-05", "la2-incident-08", "la2-incident-09",
        "la2-exploit-04", "la2-sqli-02", "la2-destructive-01", "la2-destructive-02", "la2-destructive-06", "la2-destructive-07",
        "la2-destructive-08", "la2-review-01", "la2-review-03", "la2-lint-08", "la2-k8s-09", "la2-git-01",
        "la2-git-06", "la2-homeostat-06", "la2-homeostat-09",
    ],
    _NOT_READ_YET,
)  # fmt: skip


def _risky(probe: Probe) -> set[str]:
    return {flag for flag in _validate_in_process(kb_files(probe)) if flag.startswith("risky:")}


def test_the_file_is_large_and_varied() -> None:
    assert not FRESH.probes
    assert len(FRESH.look_alikes) == 250
    areas = Counter(p.family for p in FRESH.look_alikes)
    assert len(areas) == 25 and set(areas.values()) == {10}
    assert all(p.id.startswith(f"la2-{p.family}-") for p in FRESH.look_alikes)
    assert {p.place for p in FRESH.look_alikes} >= {"rule", "why", "example", "doc-body"}


@pytest.mark.parametrize("look_alike", FRESH.look_alikes, ids=[p.id for p in FRESH.look_alikes])
def test_a_fresh_look_alike_raises_no_risky_finding(look_alike: Probe) -> None:
    flagged = _risky(look_alike)
    if look_alike.id in KNOWN_FALSE_ALARMS:
        assert flagged, f"{look_alike.id} passes now: take it off KNOWN_FALSE_ALARMS"
    else:
        assert flagged == set(), f"{look_alike.id}: {look_alike.text!r}"
