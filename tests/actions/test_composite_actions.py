"""The composite actions, run the way the GitHub runner runs them (tests/actionkit.py).

The entrypoint is resolved to this checkout's `homeostat` through HOMEOSTAT_BIN, or to a stand-in
`docker` that checks what a real `docker run` would need (mounts, forwarded variables) and then runs
this checkout's `homeostat` in its place. tests/actions/test_image.py runs the same actions in the real image.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from actionkit import parse_github_output, run_action
from kit import REPO

from homeostat import VERSION

EXAMPLE_KB = REPO / "examples" / "kb"
HOMEOSTAT = Path(sys.executable).parent / "homeostat"
VALIDATE_ACTION = REPO / "actions" / "validate"
ROOT_ACTION = REPO
PLANTED_RULE = "knowledge/core/log-with-fields.md"


@pytest.fixture
def kb(tmp_path: Path) -> Path:
    """A copy of the example KB as the workspace, so nothing a run writes reaches the repository."""
    workspace = tmp_path / "workspace"
    shutil.copytree(EXAMPLE_KB, workspace)
    return workspace


def plant_unknown_key(kb: Path) -> int:
    """Give a rule a frontmatter key the schema does not know; return the line it is on."""
    rule = kb / PLANTED_RULE
    lines = rule.read_text(encoding="utf-8").splitlines(keepends=True)
    at = lines.index("tokens: 61\n") + 1
    lines.insert(at, "colour: red\n")
    rule.write_text("".join(lines), encoding="utf-8")
    return at + 1


def direct() -> dict[str, str]:
    """Run this checkout's homeostat in place of the image."""
    return {"HOMEOSTAT_BIN": str(HOMEOSTAT)}


# --- validate, run directly through HOMEOSTAT_BIN ---------------------------------------------------


def test_validate_action_passes_a_clean_kb(kb: Path, tmp_path: Path) -> None:
    run = run_action(VALIDATE_ACTION, kb, tmp_path, env=direct())
    assert run.returncode == 0, run.stderr
    assert run.outputs["errors"] == "0"
    assert run.outputs["warnings"].isdigit()
    assert "::error" not in run.stdout + run.stderr
    assert run.summary.startswith("## Homeostat validate\n")
    assert "0 errors" in run.summary


def test_validate_action_fails_and_annotates_a_planted_problem(kb: Path, tmp_path: Path) -> None:
    line = plant_unknown_key(kb)
    run = run_action(VALIDATE_ACTION, kb, tmp_path, env=direct())
    assert run.returncode == 1
    annotations = re.findall(r"^::error file=([^,]+),line=(\d+)[^:]*::(.*)$", run.stderr, re.MULTILINE)
    assert (PLANTED_RULE, str(line)) in [(file, ln) for file, ln, _ in annotations], run.stderr
    assert int(run.outputs["errors"]) >= 1
    assert run.outputs["errors"] == str(len(annotations))
    assert "| Severity | Check | File | Line | Message |" in run.summary
    assert f"| `{PLANTED_RULE}` | {line} |" in run.summary


def test_validate_action_counts_findings_in_json_format(kb: Path, tmp_path: Path) -> None:
    plant_unknown_key(kb)
    run = run_action(VALIDATE_ACTION, kb, tmp_path, {"format": "json"}, direct())
    assert run.returncode == 1
    report = json.loads(run.stdout)  # the report alone: the annotations went to stderr
    assert "::error" in run.stderr
    assert run.outputs == {"errors": str(report["errors"]), "warnings": str(report["warnings"])}
    assert report["errors"] >= 1


def test_validate_action_checks_a_kb_in_a_subfolder(tmp_path: Path) -> None:
    workspace = tmp_path / "workspace"
    shutil.copytree(EXAMPLE_KB, workspace / "kb")
    run = run_action(VALIDATE_ACTION, workspace, tmp_path, {"kb-path": "kb"}, direct())
    assert run.returncode == 0, run.stderr
    assert run.outputs["errors"] == "0"


def test_validate_action_reports_an_unreadable_kb_with_empty_counts(tmp_path: Path) -> None:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    run = run_action(VALIDATE_ACTION, workspace, tmp_path, {"kb-path": "missing"}, direct())
    assert run.returncode == 2
    assert "does not exist" in run.stderr
    assert run.outputs == {"errors": "", "warnings": ""}


def test_validate_action_fix_rewrites_cached_fields_in_the_checkout(kb: Path, tmp_path: Path) -> None:
    rule = kb / PLANTED_RULE
    text = rule.read_text(encoding="utf-8")
    rule.write_text(text.replace("\ntokens: 61\n", "\ntokens: 999\n"), encoding="utf-8")
    run = run_action(VALIDATE_ACTION, kb, tmp_path, {"fix": "true"}, direct())
    assert run.returncode == 0, run.stdout + run.stderr
    assert "tokens: 999" not in rule.read_text(encoding="utf-8")
    assert f"fixed cached score/tokens in {PLANTED_RULE}" in run.stderr


def test_validate_action_refuses_a_fix_value_that_is_not_a_boolean(kb: Path, tmp_path: Path) -> None:
    run = run_action(VALIDATE_ACTION, kb, tmp_path, {"fix": "yes"}, direct())
    assert run.returncode == 2
    assert "the input fix must be true or false, not 'yes'" in run.stderr


def test_validate_action_checks_a_git_ref_instead_of_the_working_tree(kb: Path, tmp_path: Path) -> None:
    git = ["git", "-C", str(kb)]
    subprocess.run([*git, "init", "-q", "-b", "main"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "kb"], check=True)
    plant_unknown_key(kb)  # only in the working tree
    run = run_action(VALIDATE_ACTION, kb, tmp_path, {"ref": "main"}, direct())
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.outputs["errors"] == "0"


# --- the docker path: what `docker run` is given ------------------------------------------------------

FAKE_DOCKER = textwrap.dedent(
    """\
    #!{python}
    # Stand-in for `docker run`: records its arguments, refuses what a real container could not do
    # (a working folder or command file outside every mount), then runs homeostat with only the
    # variables that were forwarded, as the container would see them.
    import json, os, subprocess, sys
    args = sys.argv[1:]
    with open({record!r}, "w") as handle:
        json.dump(args, handle)
    assert args[0] == "run", args
    mounts, names, values, workdir, user, i = [], [], {{}}, None, None, 1
    while args[i].startswith("--"):
        flag = args[i]
        if flag == "--rm":
            i += 1
            continue
        value = args[i + 1]
        i += 2
        if flag == "--volume":
            source, target = value.split(":")
            assert source == target, "mounted at another path: " + value
            mounts.append(target)
        elif flag == "--env":
            name, sep, val = value.partition("=")
            if sep:
                values[name] = val
            else:
                names.append(name)
        elif flag == "--workdir":
            workdir = value
        elif flag == "--user":
            user = value
    image, command = args[i], args[i + 1:]
    def mounted(path):
        return any(path == m or path.startswith(m.rstrip("/") + "/") for m in mounts)
    env = {{"PATH": os.environ["PATH"]}}
    env.update({{n: os.environ[n] for n in names if n in os.environ}})
    env.update(values)
    if "PYTHONPATH" in os.environ:
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    for name in ("GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT"):
        if name in env and not mounted(os.path.dirname(env[name])):
            sys.exit("docker: " + name + " is not inside any mounted folder")
    if workdir is None or not mounted(workdir):
        sys.exit("docker: the working folder is not mounted")
    sys.exit(subprocess.run([{homeostat!r}, *command], cwd=workdir, env=env).returncode)
    """
)


def fake_docker(tmp: Path) -> tuple[dict[str, str], Path]:
    bin_dir = tmp / "fake-bin"
    bin_dir.mkdir()
    record = tmp / "docker-args.json"
    docker = bin_dir / "docker"
    docker.write_text(FAKE_DOCKER.format(python=sys.executable, record=str(record), homeostat=str(HOMEOSTAT)))
    docker.chmod(0o755)
    return {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}, record


def test_validate_action_runs_the_pinned_image_with_the_workspace_and_summary_mounted(
    kb: Path, tmp_path: Path
) -> None:
    env, record = fake_docker(tmp_path)
    line = plant_unknown_key(kb)
    run = run_action(VALIDATE_ACTION, kb, tmp_path, env=env)
    args = json.loads(record.read_text())
    assert f"ghcr.io/homeostat/homeostat:{VERSION}" in args
    image_at = args.index(f"ghcr.io/homeostat/homeostat:{VERSION}")
    assert args[image_at + 1 :] == ["validate", "--kb", ".", "--format", "text"]
    assert args[args.index("--user") + 1] == f"{os.getuid()}:{os.getgid()}"
    assert run.returncode == 1, run.stderr
    assert f"::error file={PLANTED_RULE},line={line}," in run.stderr
    assert f"| `{PLANTED_RULE}` | {line} |" in run.summary
    assert int(run.outputs["errors"]) >= 1


def test_docker_gets_credentials_by_name_never_by_value(kb: Path, tmp_path: Path) -> None:
    env, record = fake_docker(tmp_path)
    planted = "sk-ant-" + "Zq9x" * 10
    token = "ghp_" + "A1b2" * 9
    env.update({"ANTHROPIC_API_KEY": planted, "HOMEOSTAT_GITHUB_TOKEN": token, "UNRELATED": "x"})
    run = run_action(VALIDATE_ACTION, kb, tmp_path, env=env)
    assert run.returncode == 0, run.stderr
    args = json.loads(record.read_text())
    forwarded = [args[i + 1] for i, a in enumerate(args) if a == "--env"]
    assert "ANTHROPIC_API_KEY" in forwarded and "HOMEOSTAT_GITHUB_TOKEN" in forwarded
    assert "UNRELATED" not in forwarded
    assert not any(planted in a or token in a for a in args)


def test_version_and_image_inputs_choose_the_image(kb: Path, tmp_path: Path) -> None:
    env, record = fake_docker(tmp_path)
    inputs = {"version": "0.1.9", "image": "registry.example.com/mirror/homeostat"}
    run_action(VALIDATE_ACTION, kb, tmp_path, inputs, env)
    assert "registry.example.com/mirror/homeostat:0.1.9" in json.loads(record.read_text())


def test_without_docker_or_homeostat_bin_the_action_says_what_to_do(kb: Path, tmp_path: Path) -> None:
    path = "/usr/bin:/bin"
    if shutil.which("docker", path=path):
        pytest.skip("docker is installed in /usr/bin or /bin on this machine")
    run = run_action(VALIDATE_ACTION, kb, tmp_path, env={"PATH": path})
    assert run.returncode == 2
    assert "docker is not available on this runner (Linux)" in run.stderr
    assert "set HOMEOSTAT_BIN" in run.stderr


# --- the root action: any command --------------------------------------------------------------------


def test_root_action_runs_the_command_with_its_arguments(kb: Path, tmp_path: Path) -> None:
    inputs = {"command": "validate", "args": ". --format json\n--today 2026-11-29"}
    run = run_action(ROOT_ACTION, kb, tmp_path, inputs, direct())
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["errors"] == 0


def test_root_action_passes_its_exit_code_through(kb: Path, tmp_path: Path) -> None:
    plant_unknown_key(kb)
    run = run_action(ROOT_ACTION, kb, tmp_path, {"command": "validate"}, direct())
    assert run.returncode == 1
    assert f"::error file={PLANTED_RULE}," in run.stderr


def test_root_action_refuses_a_command_that_is_not_a_subcommand(kb: Path, tmp_path: Path) -> None:
    env, record = fake_docker(tmp_path)
    run = run_action(ROOT_ACTION, kb, tmp_path, {"command": "validate; id"}, env)
    assert run.returncode == 2
    assert "must be a homeostat subcommand such as validate, not 'validate; id'" in run.stderr
    assert not record.exists()


def test_root_action_runs_the_image_with_command_then_arguments(kb: Path, tmp_path: Path) -> None:
    env, record = fake_docker(tmp_path)
    run = run_action(ROOT_ACTION, kb, tmp_path, {"command": "validate", "args": ". --no-insights"}, env)
    assert run.returncode == 0, run.stderr
    args = json.loads(record.read_text())
    assert args[-4:] == [f"ghcr.io/homeostat/homeostat:{VERSION}", "validate", ".", "--no-insights"]


# --- the harness itself -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("errors=0\nwarnings=2\n", {"errors": "0", "warnings": "2"}),
        ("body<<EOF\nline one\nline=two\nEOF\nx=1\n", {"body": "line one\nline=two", "x": "1"}),
        ("", {}),
    ],
)
def test_github_output_parser(text: str, expected: dict[str, str]) -> None:
    assert parse_github_output(text) == expected


# --- daily, run directly ------------------------------------------------------------------------------

DAILY_ACTION = REPO / "actions" / "daily"


@pytest.fixture
def daily_world(github_harness, anthropic_stub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    from adapters.git.test_git_auth import with_a_review_thread
    from dailyworld import DailyWorld

    return with_a_review_thread(DailyWorld(github_harness, anthropic_stub, tmp_path, monkeypatch))


def test_daily_action_writes_outputs_a_summary_and_notices(daily_world, git_http, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from runnerkit import daily_env, runner_checkout

    world = daily_world
    workspace = runner_checkout(
        git_http.repo_url("example", "kb"),
        tmp_path / "work" / "kb",
        tmp_path / "runner-temp",
        token=world.harness.token,
        server=git_http.url,
        layout="none",  # persist-credentials: false, as the templates check out
    )
    env = daily_env(world, git_http.url) | direct()
    run = run_action(DAILY_ACTION, workspace, tmp_path, {"token": world.harness.token}, env)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.outputs["merged"] == "1" and run.outputs["review"] == "0" and run.outputs["decided"] == "1"
    [url] = json.loads(run.outputs["pr-urls"])
    assert "/pull/" in url and run.outputs["dry-run"] == "false"
    assert run.summary.startswith("## Homeostat daily\n")
    assert "| Outcome | Confidence | Member | Lesson | Reason |" in run.summary
    assert "| merged |" in run.summary and "@bo" in run.summary and url in run.summary
    # No Slack variable is set: a notice annotation, on stderr, apart from the decisions on stdout.
    assert re.search(
        r"^::notice title=homeostat daily \(slack-unset\)::HOMEOSTAT_SLACK_WEBHOOK", run.stderr, re.M
    )
    assert "::notice" not in run.stdout


def test_daily_action_dry_run_has_outputs_but_opens_nothing(daily_world, git_http, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from runnerkit import daily_env, runner_checkout

    world = daily_world
    workspace = runner_checkout(
        git_http.repo_url("example", "kb"),
        tmp_path / "work" / "kb",
        tmp_path / "runner-temp",
        token=world.harness.token,
        server=git_http.url,
        layout="none",
    )
    env = daily_env(world, git_http.url) | direct()
    inputs = {"token": world.harness.token, "dry-run": "true"}
    run = run_action(DAILY_ACTION, workspace, tmp_path, inputs, env)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.outputs["dry-run"] == "true" and run.outputs["pr-urls"] == "[]"
    assert run.outputs["merged"] == "1"  # what it would merge
    assert "(dry run: nothing was written)" in run.summary
    assert not git_http.pushes()
