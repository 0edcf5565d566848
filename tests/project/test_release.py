"""The release machinery: one exact version everywhere, the digest pin, per-action repositories.

scripts/version.py finds version sites by their shape in every tracked file, so these tests run it
on a copy of this checkout with files added or changed, the way a colleague's new file would arrive.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
import yaml
from actionkit import run_action
from kit import REPO

from homeostat import VERSION

HOMEOSTAT = Path(sys.executable).parent / "homeostat"
DIGEST = "sha256:" + "ab12" * 16


def script(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"scripts_{name}", REPO / "scripts" / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


version = script("version")
export_actions = script("export_actions")


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    """This checkout's tracked files (as they are on disk) in a fresh git repository."""
    target = tmp_path / "repo"
    for rel, path in version.tracked_files(REPO):
        (target / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, target / rel)
    git(tmp_path, "init", "--quiet", str(target))
    git(target, "add", "-A")
    git(target, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "--quiet", "-m", "copy")
    return target


def changed_lines(repo: Path) -> list[tuple[str, str, str]]:
    """(file, old line, new line) for every line `git diff` shows changed in place."""
    pairs = []
    for rel in git(repo, "diff", "--name-only").split():
        old = git(repo, "show", f"HEAD:{rel}").splitlines()
        new = (repo / rel).read_text().splitlines()
        assert len(old) == len(new), f"{rel}: lines were added or removed"
        pairs += [(rel, a, b) for a, b in zip(old, new, strict=True) if a != b]
    return pairs


# --- one version everywhere -------------------------------------------------------------------------


def test_one_version_everywhere() -> None:
    assert version.current_version(REPO) == VERSION
    assert version.problems(REPO) == []


def test_the_check_finds_the_sites_in_every_kind_of_file() -> None:
    kinds = {name for _, _, name, _ in version.find_sites(REPO)}
    assert kinds >= {
        "image tag",
        "action ref",
        "action version input",
        "package VERSION",
        "pyproject version",
        "image label",
    }


def test_a_new_file_naming_another_version_fails_the_check(copy: Path) -> None:
    """A colleague's plugin manifest or template is checked without being listed anywhere."""
    manifest = copy / "plugins" / "extra" / ".claude-plugin" / "plugin.json"
    manifest.parent.mkdir(parents=True)
    manifest.write_text(json.dumps({"name": "homeostat", "version": "0.1.9"}))
    template = copy / "homeostat" / "templates" / "init" / "homeostat-digest.yml"
    template.parent.mkdir(parents=True)
    template.write_text("steps:\n  - uses: homeostat/digest@v0.1.9\n")
    git(copy, "add", "-A")
    found = version.problems(copy)
    assert any(
        p.startswith("plugins/extra/.claude-plugin/plugin.json:1: plugin manifest 0.1.9") for p in found
    ), found
    assert any(
        p.startswith("homeostat/templates/init/homeostat-digest.yml:2: action ref 0.1.9") for p in found
    )


def test_floating_references_fail_the_check(copy: Path) -> None:
    moving = ".".join(VERSION.split(".")[:2])
    (copy / "workflows" / "github" / "extra.yml").write_text(f"- uses: homeostat/daily@v{moving}\n")
    (copy / "docs" / "extra.md").write_text(
        f"Pin `homeostat/daily@v{moving}` to follow fixes.\n\n    pip install 'homeostat-kb>=0.2'\n    pip install homeostat\n"
    )
    git(copy, "add", "-A")
    found = version.problems(copy)
    assert f"workflows/github/extra.yml:1: action ref {moving}, not {VERSION}" in found
    assert not any("docs/extra.md:1" in p for p in found), "prose may name the moving tag"
    assert any(p.startswith("docs/extra.md:3: floating range") for p in found)
    assert "docs/extra.md:4: the PyPI name is homeostat-kb" in found


def test_an_unpinned_dependency_fails_the_check(copy: Path) -> None:
    pyproject = copy / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('"pyyaml==6.0.4"', '"pyyaml>=6"'))
    assert "pyproject.toml: 'pyyaml>=6' is not pinned with ==" in version.problems(copy)


def test_set_rewrites_every_site_and_nothing_else(copy: Path) -> None:
    sites = list(version.find_sites(copy))
    changed = version.set_version(copy, "0.3.0")
    assert version.problems(copy, "0.3.0") == []
    assert {rel for rel, *_ in sites} == set(changed)
    for rel, old, new in changed_lines(copy):
        versions = rf"0\.3\.0|{re.escape(VERSION)}|(?<![\d.])(?:0\.3|{re.escape(VERSION[:3])})(?![\d.])"
        assert re.sub(versions, "X", new) == re.sub(versions, "X", old), f"{rel}: more than a version changed"
    assert 'VERSION = "0.3.0"' in (copy / "homeostat" / "__init__.py").read_text()


def test_set_refuses_what_is_not_a_version(copy: Path) -> None:
    with pytest.raises(SystemExit, match="is not a version like 0.3.0"):
        version.set_version(copy, "latest")


# --- the release commit's digest pin ---------------------------------------------------------------


def expected_pin_lines(repo: Path) -> set[tuple[str, str]]:
    """Found independently of the script: each action's version default, each pipe and template image."""
    lines = set()
    for action in [repo / "action.yml", *sorted((repo / "actions").glob("*/action.yml"))]:
        text = action.read_text()
        default = re.search(r'^  version:\n(?:    .*\n)*?(    default: ".*")$', text, re.MULTILINE)
        assert default
        lines.add((action.relative_to(repo).as_posix(), default.group(1)))
    for path in [
        *sorted((repo / "actions").glob("*/pipe.yml")),
        *sorted((repo / "workflows" / "bitbucket").glob("*.yml")),
    ]:
        for line in path.read_text().splitlines():
            if f"ghcr.io/homeostat/homeostat:{VERSION}" in line and not line.lstrip().startswith("#"):
                lines.add((path.relative_to(repo).as_posix(), line))
    return lines


def test_the_digest_pin_changes_exactly_the_expected_lines(copy: Path) -> None:
    expected = expected_pin_lines(copy)
    assert len(expected) >= 6
    version.pin_digest(copy, DIGEST)
    changed = changed_lines(copy)
    assert {(rel, old) for rel, old, _ in changed} == expected
    for rel, old, new in changed:
        assert new == old.replace(VERSION, f"{VERSION}@{DIGEST}", 1), rel
    assert version.problems(copy) == [], "a pinned release still has one version"
    # Run twice, or again with a new digest: the pin is replaced, never stacked.
    assert version.pin_digest(copy, DIGEST) == []
    version.pin_digest(copy, "sha256:" + "cd34" * 16)
    assert {(rel, old) for rel, old, _ in changed_lines(copy)} == expected
    assert DIGEST not in "".join(new for _, _, new in changed_lines(copy))


def test_the_digest_pin_refuses_what_is_not_a_digest(copy: Path) -> None:
    with pytest.raises(SystemExit, match="is not an image digest"):
        version.pin_digest(copy, "latest")


def test_a_pinned_version_input_runs_the_image_by_digest(tmp_path: Path, copy: Path) -> None:
    """`image:version` with `0.2.0@sha256:…` is what `docker run` gets: the tag and the digest."""
    from actions.test_composite_actions import fake_docker

    version.pin_digest(copy, DIGEST)
    env, record = fake_docker(tmp_path)
    workspace = tmp_path / "workspace"
    shutil.copytree(REPO / "examples" / "kb", workspace)
    run = run_action(copy / "actions" / "validate", workspace, tmp_path, env=env)
    assert run.returncode == 0, run.stderr
    assert f"ghcr.io/homeostat/homeostat:{VERSION}@{DIGEST}" in json.loads(record.read_text())


# --- per-action repositories ---------------------------------------------------------------------------


def test_each_action_works_from_its_own_repository(tmp_path: Path) -> None:
    """`uses: homeostat/validate@v0.2` checks out the exported folder: its _shared/ is inside."""
    exported = export_actions.export(REPO, tmp_path / "actions")
    names = sorted(p.name for p in exported)
    assert names == sorted(p.parent.name for p in (REPO / "actions").glob("*/action.yml"))
    for folder in exported:
        assert (folder / "_shared" / "run-entrypoint.sh").is_file() and (folder / "action.yml").is_file()
    workspace = tmp_path / "workspace"
    shutil.copytree(REPO / "examples" / "kb", workspace)
    run = run_action(
        tmp_path / "actions" / "validate", workspace, tmp_path, env={"HOMEOSTAT_BIN": str(HOMEOSTAT)}
    )
    assert run.returncode == 0, run.stderr
    assert run.outputs["errors"] == "0"


# --- renovate and the release workflow ---------------------------------------------------------------


def test_renovate_waits_three_days_and_pins_actions_to_digests() -> None:
    config = json.loads((REPO / "renovate.json").read_text())
    assert config["minimumReleaseAge"] == "3 days"
    assert any(
        rule.get("pinDigests") and "github-actions" in rule.get("matchManagers", [])
        for rule in config["packageRules"]
    )
    bin_dir = Path(sys.executable).parent
    done = subprocess.run(
        [
            str(bin_dir / "check-jsonschema"),
            "--builtin-schema",
            "vendor.renovate",
            str(REPO / "renovate.json"),
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr


# --- the release's tags -------------------------------------------------------------------------------

RELEASE_TAGS = REPO / ".github" / "release-tags.sh"


@pytest.fixture
def tag_server(tmp_path: Path):  # type: ignore[no-untyped-def]
    """homeostat/daily as a bare repo behind a git server whose pushes need the token `tok-1`,
    released once at 0.2.0 (so the moving tag v0.2 exists), with a work clone one commit ahead."""
    from emulators.git_http import GitHttpServer

    root = tmp_path / "server"
    bare = root / "homeostat" / "daily.git"
    git(tmp_path, "init", "--quiet", "--bare", "--initial-branch=main", str(bare))
    seed = tmp_path / "seed"
    git(tmp_path, "init", "--quiet", "--initial-branch=main", str(seed))
    identity = ["-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    git(seed, *identity, "commit", "--quiet", "--allow-empty", "-m", "0.2.0")
    git(seed, "tag", "v0.2.0")
    git(seed, "tag", "v0.2")
    git(seed, "push", "--quiet", str(bare), "main", "v0.2.0", "v0.2")
    server = GitHttpServer(root, {"tok-1"})
    yield server, bare, identity
    server.close()


def release_tags(cwd: Path, *args: str, token: str = "tok-1") -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")} | {"GH_TOKEN": token}
    command = ["bash", str(RELEASE_TAGS), *args]
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=60)


def test_a_release_makes_the_exact_tag_once_and_moves_the_moving_tag(tag_server, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    server, bare, identity = tag_server
    url = server.repo_url("homeostat", "daily")
    work = tmp_path / "work"
    cloned = release_tags(tmp_path, "clone", url, str(work))
    assert cloned.returncode == 0, cloned.stderr
    assert "tok-1" not in (work / ".git" / "config").read_text()  # the token never lands on disk
    git(work, *identity, "commit", "--quiet", "--allow-empty", "-m", "0.2.1")
    head = git(work, "rev-parse", "HEAD").strip()

    done = release_tags(work, url, "0.2.1", "main")
    assert done.returncode == 0, done.stderr
    assert git(bare, "rev-parse", "v0.2.1^{commit}", "v0.2^{commit}", "main").split() == [head] * 3
    assert all(r.user == "x-access-token" for r in server.pushes())

    # A rerun (or a second release of the same version) moves nothing: the exact tag is never moved.
    git(work, *identity, "commit", "--quiet", "--allow-empty", "-m", "again")
    again = release_tags(work, url, "0.2.1", "main")
    assert again.returncode == 1
    assert "v0.2.1 already exists; a released tag is never moved" in again.stderr
    assert git(bare, "rev-parse", "v0.2.1^{commit}", "v0.2^{commit}", "main").split() == [head] * 3


def test_a_release_refuses_a_version_that_is_not_exact(tag_server, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    server, _bare, _identity = tag_server
    done = release_tags(tmp_path, server.repo_url("homeostat", "daily"), "0.2")
    assert done.returncode == 2 and "0.2 is not an exact version X.Y.Z" in done.stderr


def test_the_release_workflow_tags_through_the_script_and_scopes_its_app_token() -> None:
    """No `--force` push, no token in a URL, and the app token reaches exactly the per-action repos."""
    text = (REPO / ".github" / "workflows" / "release.yml").read_text(encoding="utf-8")
    assert "--force" not in text and "x-access-token:" not in text
    [app] = [
        step
        for job in yaml.safe_load(text)["jobs"].values()
        for step in job["steps"]
        if "create-github-app-token" in str(step.get("uses"))
    ]
    names = sorted(p.parent.name for p in (REPO / "actions").glob("*/action.yml"))
    assert sorted(app["with"]["repositories"].split(",")) == names
    assert {k for k in app["with"] if k.startswith("permission-")} == {"permission-contents"}
    assert "owner" not in app["with"]
