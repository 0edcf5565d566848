"""The poisoning corpus (tests/fixtures/poisoning/corpus.yaml): every probe is caught by the check it
names, and every harmless look-alike passes. `benchmarks/bench_poisoning.py` prints the rates."""

from __future__ import annotations

import re

import pytest
from poisoning import CORPUS, Probe, flags_for, load_corpus, plant

from homeostat.core.safety.secrets import find_secrets

CORPUS_DATA = load_corpus()
KINDS = {
    "piped-shell",
    "unlisted-domain",
    "credential-handling",
    "disable-security",
    "injection",
    "destructive-command",
    "hidden-text",
    "hidden-comment",
}


def test_the_corpus_is_big_enough_and_well_formed() -> None:
    assert len(CORPUS_DATA.probes) >= 150
    assert len(CORPUS_DATA.look_alikes) >= 50
    ids = [p.id for p in CORPUS_DATA.probes + CORPUS_DATA.look_alikes]
    assert len(ids) == len(set(ids))
    for probe in CORPUS_DATA.probes:
        assert probe.check == "secret" or probe.check.removeprefix("risky:") in KINDS, probe.id
    for probe in CORPUS_DATA.probes + CORPUS_DATA.look_alikes:
        assert probe.place in ("rule", "title", "why", "example", "topic", "file"), probe.id
        assert (probe.place == "file") == bool(probe.path), probe.id
    gaps = {p.gap for p in CORPUS_DATA.probes if p.gap}
    assert gaps >= {"2", "3", "4", "5", "6", "7", "8", "11", "12", "13"}


def test_the_corpus_file_holds_no_secret_only_placeholders() -> None:
    text = CORPUS.read_text(encoding="utf-8")
    assert find_secrets(text) == []
    planted = plant("a [[github-pat]] and a [[stripe|zw]]", "seed")
    assert not re.search(r"\[\[", planted)
    assert planted == plant("a [[github-pat]] and a [[stripe|zw]]", "seed")  # seeded: the same every run


@pytest.mark.parametrize("probe", CORPUS_DATA.probes, ids=[p.id for p in CORPUS_DATA.probes])
def test_probe_is_caught(probe: Probe) -> None:
    assert probe.check in flags_for(probe), f"{probe.id}: {probe.text!r}"


@pytest.mark.parametrize("look_alike", CORPUS_DATA.look_alikes, ids=[p.id for p in CORPUS_DATA.look_alikes])
def test_look_alike_passes(look_alike: Probe) -> None:
    assert flags_for(look_alike) == set(), f"{look_alike.id}: {look_alike.text!r}"
