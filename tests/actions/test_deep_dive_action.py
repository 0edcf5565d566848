"""The deep-dive composite action, run the way the GitHub runner runs it (tests/actionkit.py), with
this checkout's `homeostat` in place of the image (tests/actions/test_image.py runs the image itself)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from actionkit import run_action
from deepdiveworld import DeepDiveWorld, duplicate_files
from kit import REPO

DEEP_DIVE_ACTION = REPO / "actions" / "deep-dive"
DIRECT = {"HOMEOSTAT_BIN": str(Path(sys.executable).parent / "homeostat")}


def workspace(dd: DeepDiveWorld, git_http, tmp_path: Path) -> Path:  # type: ignore[no-untyped-def]
    from runnerkit import runner_checkout

    return runner_checkout(
        git_http.repo_url("example", "kb"),
        tmp_path / "work" / "kb",
        tmp_path / "runner-temp",
        token=dd.world.harness.token,
        server=git_http.url,
        layout="none",  # persist-credentials: false, as the templates check out
    )


def test_deep_dive_action_writes_outputs_a_summary_and_opens_one_pr(
    dd: DeepDiveWorld, git_http, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    from runnerkit import daily_env

    dd.add(duplicate_files())
    env = daily_env(dd.world, git_http.url) | DIRECT
    run = run_action(
        DEEP_DIVE_ACTION, workspace(dd, git_http, tmp_path), tmp_path, {"token": dd.world.harness.token}, env
    )
    assert run.returncode == 0, run.stdout + run.stderr
    [pull] = dd.deep_dive_pulls()
    assert run.outputs["pr-url"].endswith(f"/pull/{pull.number}")
    assert run.outputs["merged"] == "1" and run.outputs["retired"] == "0" and run.outputs["capped"] == "false"
    assert run.outputs["dry-run"] == "false" and run.outputs["cost-usd"]
    assert run.summary.startswith("## Homeostat deep dive\n")
    assert "1 near-duplicate merged" in run.summary and run.outputs["pr-url"] in run.summary
    assert "| merged | 1 |" in run.summary
    assert pull.merged_at is None  # the action never merges it


def test_deep_dive_action_dry_run_has_outputs_and_writes_nothing(
    dd: DeepDiveWorld, git_http, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    from runnerkit import daily_env

    dd.add(duplicate_files())
    env = daily_env(dd.world, git_http.url) | DIRECT
    inputs = {"token": dd.world.harness.token, "dry-run": "true"}
    run = run_action(DEEP_DIVE_ACTION, workspace(dd, git_http, tmp_path), tmp_path, inputs, env)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.outputs["dry-run"] == "true" and run.outputs["pr-url"] == ""
    assert run.outputs["merged"] == "1"  # what it would merge
    assert "(dry run: nothing was written)" in run.summary
    assert not git_http.pushes() and dd.deep_dive_pulls() == []


def test_deep_dive_action_refuses_a_dry_run_that_is_not_a_boolean(
    dd: DeepDiveWorld, git_http, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    from runnerkit import daily_env

    env = daily_env(dd.world, git_http.url) | DIRECT
    inputs = {"token": dd.world.harness.token, "dry-run": "yes"}
    run = run_action(DEEP_DIVE_ACTION, workspace(dd, git_http, tmp_path), tmp_path, inputs, env)
    assert run.returncode == 2
    assert re.search(r"the input dry-run must be true or false, not 'yes'", run.stderr)
