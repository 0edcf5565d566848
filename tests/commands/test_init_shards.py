"""`homeostat init --shards N`: the daily run as N draft jobs and one merge job, on GitHub (a matrix)
and Bitbucket (parallel steps); what it writes passes actionlint, zizmor and the pipelines schema,
and a rerun without the flag keeps the shards the daily run has."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from gitfixtures import git

from homeostat.cli import main

BIN = Path(sys.executable).parent
DAILY = ".github/workflows/homeostat-daily.yml"


def tool(name: str) -> Path:
    path = BIN / name
    assert path.exists(), f"{name} is not installed next to {sys.executable}; run pip install -e '.[dev]'"
    return path


def kb(tmp_path: Path, host: str) -> Path:
    path = tmp_path / "kb"
    path.mkdir()
    git(path, "init", "--quiet", "--initial-branch=main")
    origin = "https://github.com/acme/kb" if host == "github" else "https://bitbucket.org/acme/kb"
    git(path, "remote", "add", "origin", origin)
    return path


def init(path: Path, *flags: str) -> int:
    host = "github" if "github.com" in git(path, "remote", "get-url", "origin") else "bitbucket"
    repo = f"ledger=https://{'github.com' if host == 'github' else 'bitbucket.org'}/acme/ledger"
    return main(
        ["init", "--kb", str(path), "--host", host, "--member", "ana:lead", "--repo", repo, "--yes", *flags]
    )


def test_init_shards_writes_a_matrix_of_draft_jobs_and_one_merge_job(tmp_path: Path) -> None:
    path = kb(tmp_path, "github")
    assert init(path, "--shards", "8") == 0
    spec = yaml.safe_load((path / DAILY).read_text())
    draft, merge = spec["jobs"]["draft"], spec["jobs"]["merge"]
    assert draft["strategy"] == {"fail-fast": False, "matrix": {"shard": [1, 2, 3, 4, 5, 6, 7, 8]}}
    assert draft["steps"][-1]["with"]["shard"] == "${{ matrix.shard }}/8"
    assert merge["needs"] == "draft" and merge["if"] == "${{ !cancelled() }}"  # after a failed shard too
    assert merge["steps"][-1]["with"]["merge-shards"] == "8"
    lint = subprocess.run([str(tool("actionlint")), "-no-color"], cwd=path, capture_output=True, text=True)
    assert lint.returncode == 0, lint.stdout + lint.stderr
    audit = subprocess.run(
        [str(tool("zizmor")), "--offline", "--no-config", "--no-progress", "--format", "json", DAILY],
        cwd=path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert json.loads(audit.stdout or "[]") == [], audit.stdout


def test_a_rerun_keeps_the_shards_and_shards_1_is_one_job_again(tmp_path: Path) -> None:
    path = kb(tmp_path, "github")
    assert init(path, "--shards", "4") == 0
    sharded = (path / DAILY).read_text()
    assert main(["init", "--kb", str(path), "--yes"]) == 0
    assert (path / DAILY).read_text() == sharded
    assert main(["init", "--kb", str(path), "--yes", "--force", "--shards", "1"]) == 0
    assert list(yaml.safe_load((path / DAILY).read_text())["jobs"]) == ["daily"]


def test_init_shards_on_bitbucket_writes_parallel_draft_steps_then_the_merge_step(tmp_path: Path) -> None:
    path = kb(tmp_path, "bitbucket")
    assert init(path, "--shards", "3") == 0
    pipelines = path / "bitbucket-pipelines.yml"
    daily = yaml.safe_load(pipelines.read_text())["pipelines"]["custom"]["homeostat-daily"]
    parallel, merge = daily
    scripts = [step["step"]["script"] for step in parallel["parallel"]["steps"]]
    assert [s[0].split(" || ")[0] for s in scripts] == [f"homeostat curate --shard {i}/3" for i in (1, 2, 3)]
    assert all("did not finish" in s[0] for s in scripts)  # a failed shard does not stop the merge step
    assert merge["step"]["script"] == ["homeostat daily --merge-shards 3"]
    schema = subprocess.run(
        [str(tool("check-jsonschema")), "--builtin-schema", "vendor.bitbucket-pipelines", str(pipelines)],
        capture_output=True,
        text=True,
    )
    assert schema.returncode == 0, schema.stdout + schema.stderr


@pytest.mark.parametrize("value", ["0", "65", "two"])
def test_a_bad_shard_count_is_one_line(
    tmp_path: Path, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = kb(tmp_path, "github")
    assert init(path, "--shards", value) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"homeostat: --shards '{value}': give the number of shards") and "\n" not in err
    assert not (path / DAILY).exists()


def test_init_app_and_shards_give_every_job_its_own_app_token(tmp_path: Path) -> None:
    """The draft jobs push drafts to the state branch and read the code repos' reviews; the merge job
    opens and merges the PRs: each job's app token carries its own permissions, and the workflow's
    token only checks the KB out. A rerun keeps both."""
    path = kb(tmp_path, "github")
    assert init(path, "--shards", "4", "--app") == 0
    written = (path / DAILY).read_text()
    spec = yaml.safe_load(written)
    assert spec["permissions"] == {}
    wanted = {
        "draft": {"permission-contents": "write", "permission-pull-requests": "read"},
        "merge": {"permission-contents": "write", "permission-pull-requests": "write"},
    }
    for name, permissions in wanted.items():
        job = spec["jobs"][name]
        assert job["permissions"] == {"contents": "read"}, name
        app, checkout, action = job["steps"]
        assert app["id"] == "app-token" and app["uses"].startswith("actions/create-github-app-token@")
        assert {k: v for k, v in app["with"].items() if k.startswith("permission-")} == permissions
        assert app["with"]["repositories"] == "kb,ledger"
        assert checkout["with"]["persist-credentials"] is False
        assert action["with"]["token"] == "${{ steps.app-token.outputs.token }}"
    assert spec["jobs"]["merge"]["steps"][-1]["with"]["merge-shards"] == "4"
    lint = subprocess.run([str(tool("actionlint")), "-no-color"], cwd=path, capture_output=True, text=True)
    assert lint.returncode == 0, lint.stdout + lint.stderr
    audit = subprocess.run(
        [str(tool("zizmor")), "--offline", "--no-config", "--no-progress", "--format", "json", ".github"],
        cwd=path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert json.loads(audit.stdout or "[]") == [], audit.stdout
    assert main(["init", "--kb", str(path), "--yes"]) == 0  # a rerun keeps the shards and the app token
    assert (path / DAILY).read_text() == written
    assert main(["init", "--kb", str(path), "--yes", "--force", "--no-app"]) == 0
    assert "app-token" not in (path / DAILY).read_text() and shards_of(path) == 4


def shards_of(path: Path) -> int:
    return len(yaml.safe_load((path / DAILY).read_text())["jobs"]["draft"]["strategy"]["matrix"]["shard"])
