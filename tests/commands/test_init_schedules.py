"""`homeostat init --create-schedules`: Bitbucket's schedules, created through the real client over
HTTP against the Bitbucket emulator (Bitbucket has no scheduler inside the repository)."""

from __future__ import annotations

from pathlib import Path

import pytest
from emulators.bitbucket_server import BOT, WRITE_SCOPES, BitbucketHarness
from gitfixtures import git

from homeostat.cli import main

PIPELINE_SCOPES = (*WRITE_SCOPES, "pipeline:write")
WANTED = [
    ("homeostat-daily", "main", "0 31 6 * * ? *"),  # minutes from the name acme/kb (init)
    ("homeostat-deep-dive", "main", "0 49 7 ? * MON *"),
    ("homeostat-digest", "main", "0 10 8 ? * MON *"),
]


@pytest.fixture
def world(
    bitbucket_harness: BitbucketHarness, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[BitbucketHarness, Path]:
    harness = bitbucket_harness
    harness.create_repo("acme", "kb")
    monkeypatch.setenv("BITBUCKET_API_URL", harness.api_url)
    monkeypatch.setenv("HOMEOSTAT_BITBUCKET_TOKEN", harness.new_token(BOT, PIPELINE_SCOPES))
    kb = tmp_path / "kb"
    kb.mkdir()
    git(kb, "init", "--quiet", "--initial-branch=main")
    git(kb, "remote", "add", "origin", "https://bitbucket.org/acme/kb.git")
    return harness, kb


def schedules(harness: BitbucketHarness) -> list[tuple[str, str, str]]:
    from homeostat.core.hosts import HostKind, RepoRef

    found = harness.schedules(RepoRef(HostKind.BITBUCKET, "acme", "kb"))
    return sorted(
        (s["target"]["selector"]["pattern"], s["target"]["ref_name"], s["cron_pattern"]) for s in found
    )


def test_create_schedules_makes_one_per_job_and_a_rerun_makes_none(
    world: tuple[BitbucketHarness, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    harness, kb = world
    assert main(["init", str(kb), "--member", "ana:lead", "--create-schedules", "--yes"]) == 0
    out = capsys.readouterr().out
    assert schedules(harness) == sorted(WANTED)
    assert "created    schedule homeostat-daily on main (0 31 6 * * ? *)" in out
    assert "Bitbucket has no scheduler in the repository: the schedules above live in Bitbucket" in out

    posts = len([entry for entry in harness.requests.entries if entry[0] == "POST"])
    assert main(["init", str(kb), "--create-schedules", "--yes"]) == 0
    assert "unchanged  schedule homeostat-deep-dive on main" in capsys.readouterr().out
    assert len([entry for entry in harness.requests.entries if entry[0] == "POST"]) == posts
    assert schedules(harness) == sorted(WANTED)


def test_a_schedule_changed_in_bitbucket_is_kept_unless_force(
    world: tuple[BitbucketHarness, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    harness, kb = world
    assert main(["init", str(kb), "--create-schedules", "--yes"]) == 0
    repo = harness.emulator.repo("acme", "kb")
    daily = next(s for s in repo.schedules if s["target"]["selector"]["pattern"] == "homeostat-daily")
    daily["cron_pattern"] = "0 0 5 * * ? *"
    capsys.readouterr()

    assert main(["init", str(kb), "--create-schedules", "--yes"]) == 0
    assert "kept       schedule homeostat-daily on main (0 31 6 * * ? *)" in capsys.readouterr().out
    assert ("homeostat-daily", "main", "0 0 5 * * ? *") in schedules(harness)

    assert main(["init", str(kb), "--create-schedules", "--force", "--yes"]) == 0
    assert "replaced   schedule homeostat-daily" in capsys.readouterr().out
    assert schedules(harness) == sorted(WANTED)
    assert daily["uuid"] not in {s["uuid"] for s in repo.schedules}


def test_a_create_whose_answer_was_lost_is_not_sent_twice(world: tuple[BitbucketHarness, Path]) -> None:
    harness, kb = world
    harness.lose_next_answer("POST", "pipelines_config/schedules", 500)
    assert main(["init", str(kb), "--create-schedules", "--yes"]) == 0
    assert schedules(harness) == sorted(WANTED)


def test_a_token_without_the_pipeline_scope_is_named(
    world: tuple[BitbucketHarness, Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    harness, kb = world
    monkeypatch.setenv("HOMEOSTAT_BITBUCKET_TOKEN", harness.new_token(BOT, WRITE_SCOPES))
    assert main(["init", str(kb), "--create-schedules", "--yes"]) == 2
    err = capsys.readouterr().err
    assert "HOMEOSTAT_BITBUCKET_TOKEN (403)" in err and "pipeline:write" in err
    assert (kb / "bitbucket-pipelines.yml").is_file()  # the files were written before the API was asked
    assert schedules(harness) == []


def test_a_github_kb_has_its_schedules_in_the_workflows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kb = tmp_path / "kb"
    kb.mkdir()
    git(kb, "init", "--quiet")
    assert main(["init", str(kb), "--host", "github", "--create-schedules", "--yes"]) == 2
    assert "--create-schedules is for a Bitbucket KB" in capsys.readouterr().err
