"""The tuning set (tests/fixtures/poisoning_tuning/): every probe caught, every look-alike passing.
The held-out set beside it is never run here: it is measured with `benchmarks/bench_risky.py --heldout`
once a change is done, so no test ever tunes the check to it."""

from __future__ import annotations

from pathlib import Path

import pytest
from poisoning import Probe, flags_for, is_caught, load_corpus

TUNING = load_corpus(Path(__file__).resolve().parent / "fixtures" / "poisoning_tuning" / "tuning.yaml")


@pytest.mark.parametrize("probe", TUNING.probes, ids=[p.id for p in TUNING.probes])
def test_tuning_probe_is_caught(probe: Probe) -> None:
    assert is_caught(probe, flags_for(probe)), f"{probe.id} ({probe.family}): {probe.text!r}"


@pytest.mark.parametrize("look_alike", TUNING.look_alikes, ids=[p.id for p in TUNING.look_alikes])
def test_tuning_look_alike_passes(look_alike: Probe) -> None:
    assert flags_for(look_alike) == set(), f"{look_alike.id}: {look_alike.text!r}"
