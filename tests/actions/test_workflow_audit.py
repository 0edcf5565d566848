"""zizmor and actionlint on this repository's workflows and actions, and on every setup `init` writes.

zizmor (pinned in the dev dependencies) runs offline with its default persona and no configuration
file: any finding fails, and an ignore is allowed only inline, with its reason on the line above
(`# zizmor: ignore[...]` on Homeostat's own tag pins, which `--pin-actions sha` replaces by commits).
`init`'s output is audited for the default workflow token, for `--app` (a scoped GitHub App token),
for `--app --shards N` (a token in every job of the sharded daily workflow) and for `--pin-actions sha`, whose commit comes from a git server standing in for github.com.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from emulators.git_http import GitHttpServer
from gitfixtures import git
from kit import REPO

from homeostat import VERSION
from homeostat.cli import main

BIN = Path(sys.executable).parent


def tool(name: str) -> Path:
    path = BIN / name
    assert path.exists(), f"{name} is not installed next to {sys.executable}; run pip install -e '.[dev]'"
    return path


def zizmor(*paths: Path, cwd: Path) -> list[str]:
    """Every finding, as `ident: file:line`; [] when there is none."""
    done = subprocess.run(
        [
            str(tool("zizmor")),
            "--offline",
            "--no-config",
            "--no-progress",
            "--format",
            "json",
            *map(str, paths),
        ],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode in (0, 10, 11, 12, 13, 14), done.stderr  # 1x: findings of some severity
    findings = json.loads(done.stdout or "[]")
    return [f"{f['ident']}: {_where(f)}" for f in findings]


def _where(finding: dict) -> str:  # type: ignore[type-arg]
    location = finding["locations"][0]
    path = location["symbolic"]["key"].get("Local", {}).get("verbatim_path", "?")
    line = location.get("concrete", {}).get("location", {}).get("start_point", {}).get("row", -1) + 1
    return f"{path}:{line}"


def init_kb(tmp_path: Path, name: str, *flags: str, env: dict[str, str] | None = None) -> Path:
    kb = tmp_path / name
    kb.mkdir()
    git(kb, "init", "--quiet", "--initial-branch=main")
    git(kb, "remote", "add", "origin", "https://github.com/acme/kb")
    args = ["init", "--kb", str(kb), "--host", "github", "--member", "ana:lead", "--yes"]
    args += ["--repo", "ledger=https://github.com/acme/ledger", *flags]
    with pytest.MonkeyPatch.context() as patch:
        for key, value in (env or {}).items():
            patch.setenv(key, value)
        assert main(args) == 0
    return kb


@pytest.fixture
def actions_server(tmp_path: Path):  # type: ignore[no-untyped-def]
    """homeostat/homeostat with its release tag (annotated, as the release makes it) on a git server."""
    root = tmp_path / "server"
    bare = root / "homeostat" / "homeostat.git"
    git(tmp_path, "init", "--quiet", "--bare", "--initial-branch=main", str(bare))
    seed = tmp_path / "seed"
    git(tmp_path, "init", "--quiet", "--initial-branch=main", str(seed))
    identity = ["-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    git(seed, *identity, "commit", "--quiet", "--allow-empty", "-m", "release")
    git(seed, *identity, "tag", "--annotate", f"v{VERSION}", "-m", "release")
    git(seed, "push", "--quiet", str(bare), "main", f"v{VERSION}")
    server = GitHttpServer(root, {"unused"})
    yield server, git(seed, "rev-parse", "HEAD").strip()
    server.close()


# --- zizmor ---------------------------------------------------------------------------------------


def test_zizmor_finds_nothing_in_this_repositorys_workflows_and_actions() -> None:
    audited = [REPO / ".github", REPO / "action.yml", REPO / "actions"]
    assert zizmor(*audited, cwd=REPO) == []


def test_zizmor_finds_nothing_in_what_init_writes(tmp_path: Path, actions_server) -> None:  # type: ignore[no-untyped-def]
    server, _commit = actions_server
    setups = {
        "default": init_kb(tmp_path, "default"),
        "app": init_kb(tmp_path, "app", "--app"),
        "app-shards": init_kb(tmp_path, "app-shards", "--app", "--shards", "3"),
        "sha": init_kb(
            tmp_path, "sha", "--app", "--pin-actions", "sha", env={"GITHUB_SERVER_URL": server.url}
        ),
    }
    for name, kb in setups.items():
        assert zizmor(kb / ".github", cwd=kb) == [], name


def test_zizmor_still_finds_what_the_templates_once_had(tmp_path: Path) -> None:
    """The audit above can fail: a checkout that keeps its credential, a tag pin without its note."""
    kb = init_kb(tmp_path, "kb")
    daily = kb / ".github" / "workflows" / "homeostat-daily.yml"
    text = daily.read_text().replace("          persist-credentials: false\n", "")
    daily.write_text(text.replace(" # zizmor: ignore[unpinned-uses]", ""))
    found = zizmor(kb / ".github", cwd=kb)
    assert sorted(f.split(":")[0] for f in found) == ["artipacked", "unpinned-uses"]


# --- actionlint on init's output --------------------------------------------------------------------


@pytest.mark.parametrize(
    "flags", [(), ("--app",), ("--app", "--shards", "3")], ids=["default", "app", "app-shards"]
)
def test_actionlint_accepts_what_init_writes(tmp_path: Path, flags: tuple[str, ...]) -> None:
    kb = init_kb(tmp_path, "kb", *flags)
    done = subprocess.run(
        [str(tool("actionlint")), "-no-color"], cwd=kb, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr


# --- what --app and --pin-actions write ----------------------------------------------------------------


def test_app_writes_a_scoped_app_token_into_the_workflows_that_open_prs(tmp_path: Path) -> None:
    import yaml

    kb = init_kb(tmp_path, "kb", "--app")
    workflows = kb / ".github" / "workflows"
    for name, repositories in (("daily", "kb,ledger"), ("deep-dive", None), ("review-merge", None)):
        spec = yaml.safe_load((workflows / f"homeostat-{name}.yml").read_text())
        assert spec["permissions"] == {"contents": "read"}, name
        [job] = spec["jobs"].values()
        app, checkout, action = job["steps"]
        assert app["uses"].startswith("actions/create-github-app-token@") and app["id"] == "app-token"
        assert {k: v for k, v in app["with"].items() if k.startswith("permission-")} == {
            "permission-contents": "write",
            "permission-pull-requests": "write",
        }
        assert app["with"].get("repositories") == repositories and "owner" not in app["with"]
        assert app["with"]["app-id"] == "${{ vars.HOMEOSTAT_APP_ID }}"
        assert checkout["with"]["persist-credentials"] is False
        assert action["with"]["token"] == "${{ steps.app-token.outputs.token }}"
    digest = yaml.safe_load((workflows / "homeostat-digest.yml").read_text())
    assert digest["permissions"] == {"contents": "write"}  # it pushes homeostat/state only, unprotected


def test_app_refuses_code_repos_of_another_owner(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    kb = tmp_path / "kb"
    kb.mkdir()
    git(kb, "init", "--quiet", "--initial-branch=main")
    git(kb, "remote", "add", "origin", "https://github.com/acme/kb")
    args = ["init", "--kb", str(kb), "--host", "github", "--yes", "--app"]
    assert main([*args, "--repo", "web=https://github.com/other/web"]) == 2
    assert "--app: the code repo web is under other, not acme" in capsys.readouterr().err


def test_pin_actions_sha_pins_the_release_commit_and_a_rerun_keeps_it_offline(
    tmp_path: Path,
    actions_server,
    capsys: pytest.CaptureFixture[str],  # type: ignore[no-untyped-def]
) -> None:
    server, commit = actions_server
    kb = init_kb(tmp_path, "kb", "--pin-actions", "sha", env={"GITHUB_SERVER_URL": server.url})
    texts = {p.name: p.read_text() for p in (kb / ".github" / "workflows").glob("*.yml")}
    pins = [
        line.strip() for text in texts.values() for line in text.splitlines() if "uses: homeostat/" in line
    ]
    assert len(pins) == 5
    assert all(re.search(rf"@{commit} # v{re.escape(VERSION)}$", pin) for pin in pins), pins
    assert not any("zizmor" in text or "release tag" in text for text in texts.values())

    server.close()  # a rerun reuses the commit the workflows pin for this version: no network
    capsys.readouterr()
    assert main(["init", "--kb", str(kb), "--yes"]) == 0
    assert "updated" not in capsys.readouterr().out
    assert {p.name: p.read_text() for p in (kb / ".github" / "workflows").glob("*.yml")} == texts

    assert main(["init", "--kb", str(kb), "--yes", "--force", "--pin-actions", "tag"]) == 0
    daily = (kb / ".github" / "workflows" / "homeostat-daily.yml").read_text()
    assert f"actions/daily@v{VERSION} # zizmor: ignore[unpinned-uses]" in daily


def test_pin_actions_sha_without_the_server_says_what_to_do(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_SERVER_URL", "http://127.0.0.1:9")  # nothing listens there
    kb = tmp_path / "kb"
    kb.mkdir()
    git(kb, "init", "--quiet", "--initial-branch=main")
    assert main(["init", "--kb", str(kb), "--host", "github", "--yes", "--pin-actions", "sha"]) == 2
    err = capsys.readouterr().err
    assert (
        f"--pin-actions sha: could not read the tag v{VERSION} of http://127.0.0.1:9/homeostat/homeostat"
        in err
    )
    assert "--pin-actions tag" in err
    assert not (kb / ".github").exists()


def test_the_app_token_action_is_the_one_the_release_pins() -> None:
    """One pin of actions/create-github-app-token in the repo, so Renovate moves both together."""
    from homeostat.core.setup.scaffold import APP_TOKEN_ACTION

    release = (REPO / ".github" / "workflows" / "release.yml").read_text()
    assert f"uses: {APP_TOKEN_ACTION}" in release


def test_a_rerun_keeps_the_app_token_and_no_app_takes_it_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kb = init_kb(tmp_path, "kb", "--app")
    daily = kb / ".github" / "workflows" / "homeostat-daily.yml"
    with_app = daily.read_text()
    capsys.readouterr()
    assert main(["init", "--kb", str(kb), "--yes"]) == 0
    out = capsys.readouterr().out
    assert "kept" not in out and daily.read_text() == with_app
    assert "put it on the bypass list of main's ruleset" in out  # the Next: steps for the app
    assert main(["init", "--kb", str(kb), "--yes", "--force", "--no-app"]) == 0
    assert "app-token" not in daily.read_text()
    assert "token: ${{ secrets.HOMEOSTAT_GITHUB_TOKEN || github.token }}" in daily.read_text()
