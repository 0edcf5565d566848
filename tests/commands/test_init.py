"""`homeostat init` as a team runs it in a fresh KB repo: what it writes, that the ecosystem's own
validators accept it, that a rerun changes no byte, and that a file someone edited survives."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from gitfixtures import git

from homeostat import VERSION
from homeostat.cli import main
from homeostat.core.setup.pins import find_pins

BIN = Path(sys.executable).parent
GITHUB_FILES = [
    "homeostat.yaml",
    ".github/workflows/homeostat-validate.yml",
    ".github/workflows/homeostat-daily.yml",
    ".github/workflows/homeostat-deep-dive.yml",
    ".github/workflows/homeostat-digest.yml",
    ".github/workflows/homeostat-review-merge.yml",
    ".github/CODEOWNERS",
    ".gitignore",
    "knowledge/core/README.md",
]
TEAM = ["--member", "ana:lead", "--member", "bo:senior", "--member", "cy"]
REPOS = ["--repo", "ledger=https://github.com/acme/ledger", "--repo", "https://github.com/acme/Storefront"]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """An empty KB repository, as a team has it right after creating and cloning it."""
    path = tmp_path / "kb"
    path.mkdir()
    git(path, "init", "--quiet", "--initial-branch=main")
    return path


def init(repo: Path, *args: str) -> int:
    return main(["init", str(repo), *args])


def files_of(repo: Path) -> dict[str, tuple[bytes, int]]:
    """Every file's bytes and modification time, outside .git."""
    return {
        path.relative_to(repo).as_posix(): (path.read_bytes(), path.stat().st_mtime_ns)
        for path in sorted(repo.rglob("*"))
        if path.is_file() and ".git" not in path.relative_to(repo).parts
    }


def run_tool(name: str, *args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / name), *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=120
    )


def test_init_on_an_empty_repo_writes_a_kb_that_validate_actionlint_and_the_schemas_accept(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert init(repo, "--host", "github", *TEAM, *REPOS, "--yes") == 0
    out = capsys.readouterr().out
    assert sorted(files_of(repo)) == sorted(GITHUB_FILES)
    for path in GITHUB_FILES:
        assert re.search(rf"^  wrote +{re.escape(path)}$", out, re.MULTILINE), out
    assert "validate: 0 errors" in out

    assert main(["validate", str(repo)]) == 0
    assert capsys.readouterr().out.startswith("validate: 0 errors, 0 warnings")
    lint = run_tool("actionlint", "-no-color", cwd=repo)
    assert lint.returncode == 0, lint.stdout + lint.stderr
    for workflow in sorted((repo / ".github" / "workflows").glob("*.yml")):
        schema = run_tool(
            "check-jsonschema", "--builtin-schema", "vendor.github-workflows", workflow, cwd=repo
        )
        assert schema.returncode == 0, schema.stdout + schema.stderr


def test_the_config_holds_what_was_given_and_nothing_that_was_not(repo: Path) -> None:
    assert init(repo, "--host", "github", *TEAM, *REPOS, "--yes") == 0
    text = (repo / "homeostat.yaml").read_text()
    config = yaml.safe_load(text)
    assert config["version"] == VERSION
    assert config["team"]["members"] == [
        {"handle": "ana", "role": "lead"},
        {"handle": "bo", "role": "senior"},
        {"handle": "cy", "role": "member"},
    ]
    assert config["sources"] == {"host": "github", "baseBranch": "main"}
    assert config["repos"] == [
        {"name": "ledger", "url": "https://github.com/acme/ledger", "areas": []},
        {"name": "storefront", "url": "https://github.com/acme/Storefront", "areas": []},
    ]
    # Unconfigured means unconfigured: no model, runtime or endpoint is written for the user; only
    # when the scheduled runs fire, which init must choose to write the CI files.
    assert list(config["agents"]) == ["schedules"] and "security" not in config
    assert "  # runtime: api\n  # model: <model id>\n" in text


def test_the_schedules_fire_at_a_minute_taken_from_the_kbs_name_not_on_the_hour(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def crons(origin: str) -> tuple[dict[str, str], list[str]]:
        kb = tmp_path / f"{len(list(tmp_path.iterdir()))}" / "kb"  # a fresh clone each time
        kb.mkdir(parents=True)
        git(kb, "init", "--quiet", "--initial-branch=main")
        git(kb, "remote", "add", "origin", origin)
        assert init(kb, "--host", "github", "--member", "ana:lead", "--yes") == 0
        schedules = yaml.safe_load((kb / "homeostat.yaml").read_text())["agents"]["schedules"]
        workflows = [
            re.findall(
                r'- cron: "([^"]+)"', (kb / ".github" / "workflows" / f"homeostat-{job}.yml").read_text()
            )[0]
            for job in ("daily", "deep-dive", "digest")
        ]
        return schedules, workflows

    acme, workflows = crons("https://github.com/acme/kb")
    assert workflows == [acme["daily"], acme["deepDive"], acme["digest"]]  # the CI files run what it says
    minutes = [int(cron.split()[0]) for cron in workflows]
    assert [cron.split(" ", 1)[1] for cron in workflows] == ["6 * * *", "7 * * 1", "8 * * 1"]
    assert len(set(minutes)) == 3 and not {0, 15, 30, 45} & set(minutes)
    assert crons("https://github.com/acme/kb")[0] == acme  # the same KB, the same minutes, every run
    others = [crons(f"https://github.com/team{n}/kb")[0]["daily"] for n in range(6)]
    assert len({acme["daily"], *others}) > 1  # another KB's name, another minute
    capsys.readouterr()


def test_every_pin_init_writes_is_this_exact_version(repo: Path) -> None:
    assert init(repo, "--host", "github", "--yes") == 0
    ci = {
        p.relative_to(repo).as_posix(): p.read_text() for p in (repo / ".github" / "workflows").glob("*.yml")
    }
    pins = find_pins(ci)
    assert len(pins) == 5
    assert {(pin.version, pin.floating) for pin in pins} == {(VERSION, False)}
    refs = sorted(pin.ref for pin in pins)
    assert refs == sorted(
        f"homeostat/homeostat/actions/{name}@v{VERSION}"
        for name in ("validate", "daily", "deep-dive", "digest", "review-merge")
    )
    for text in ci.values():  # every third-party action is pinned to a commit SHA
        for uses in re.findall(r"uses:\s*(\S+)", text):
            assert uses.startswith("homeostat/") or re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", uses), uses


def test_a_second_init_changes_no_byte(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert init(repo, "--host", "github", *TEAM, *REPOS, "--yes") == 0
    before = files_of(repo)
    capsys.readouterr()
    assert init(repo, "--yes") == 0
    assert init(repo, "--host", "github", *TEAM, *REPOS, "--yes") == 0  # the same answers again
    assert files_of(repo) == before
    out = capsys.readouterr().out
    assert out.count("unchanged") == 2 * len(GITHUB_FILES) and "wrote" not in out


def test_an_edited_file_survives_without_force_and_its_diff_is_shown(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert init(repo, "--host", "github", "--member", "ana:lead", "--yes") == 0
    daily = repo / ".github" / "workflows" / "homeostat-daily.yml"
    edited = daily.read_text().replace("timeout-minutes: 120", "timeout-minutes: 90")
    daily.write_text(edited)
    capsys.readouterr()

    assert init(repo, "--yes") == 0
    out = capsys.readouterr().out
    assert daily.read_text() == edited
    assert "kept       .github/workflows/homeostat-daily.yml: it differs from what init writes" in out
    assert "-    timeout-minutes: 90" in out and "+    timeout-minutes: 120" in out

    assert init(repo, "--force", "--yes") == 0
    out = capsys.readouterr().out
    assert "overwrote  .github/workflows/homeostat-daily.yml" in out
    assert "timeout-minutes: 120" in daily.read_text()


def test_a_rerun_redoes_what_a_run_that_stopped_half_way_wrote_and_keeps_what_you_edited_since(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # a file where init's `knowledge/` folder goes: the run fails after writing the files before it
    (repo / "knowledge").write_text("in the way\n")
    assert init(repo, "--host", "github", "--member", "ana:lead", "--yes") == 1
    err = capsys.readouterr().err
    assert err == (
        f"homeostat: {repo}/knowledge/core: cannot write it (Not a directory); fix that and run init again: it"
        " redoes what this run left unfinished\n"
    )
    assert (repo / "homeostat.yaml").is_file() and (repo / ".github" / "CODEOWNERS").is_file()
    daily = repo / ".github" / "workflows" / "homeostat-daily.yml"
    mine = daily.read_text().replace("timeout-minutes: 120", "timeout-minutes: 90")
    daily.write_text(mine)  # edited after the failed run: this one is the user's now
    (repo / "knowledge").unlink()

    # other answers this time: what the failed run wrote is init's to redo, not a file to keep
    assert init(repo, "--host", "github", "--member", "ana:lead", "--member", "bo:senior", "--yes") == 0
    out = capsys.readouterr().out
    for path in ("homeostat.yaml", ".github/CODEOWNERS", "knowledge/core/README.md"):
        assert re.search(rf"^  wrote +{re.escape(path)}$", out, re.MULTILINE), out
    assert "kept       .github/workflows/homeostat-daily.yml" in out and daily.read_text() == mine
    assert out.count("kept") == 1 and "validate: 0 errors" in out
    assert "handle: bo" in (repo / "homeostat.yaml").read_text()
    assert "@bo" in (repo / ".github" / "CODEOWNERS").read_text()
    assert not (repo / ".homeostat").exists() or os.listdir(repo / ".homeostat") == []

    assert init(repo, "--member", "cy", "--yes") == 0  # the run finished: its files are yours again
    assert "kept       homeostat.yaml" in capsys.readouterr().out


def test_a_new_release_moves_the_config_version_pin_and_nothing_else(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert init(repo, "--host", "github", "--member", "ana:lead", "--yes") == 0
    config = repo / "homeostat.yaml"
    older = config.read_text().replace(f"version: {VERSION}\n", "version: 0.1.0  # the release we run\n")
    older = older.replace("  baseBranch: main\n", "  baseBranch: main\n  lookbackHours: 30\n")
    config.write_text(older)
    capsys.readouterr()
    assert init(repo, "--yes") == 0
    out = capsys.readouterr().out
    assert config.read_text() == older
    assert "kept       homeostat.yaml" in out and f"+version: {VERSION}  # the release we run" in out
    assert init(repo, "--yes", "--force") == 0
    assert config.read_text() == older.replace("version: 0.1.0", f"version: {VERSION}")


def test_flags_against_an_existing_config_never_replace_it_without_force(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert init(repo, "--host", "github", "--member", "ana:lead", "--yes") == 0
    config = repo / "homeostat.yaml"
    mine = config.read_text().replace("  members:\n", "  members:\n    - handle: zed\n      role: junior\n")
    config.write_text(mine)
    capsys.readouterr()

    assert init(repo, "--member", "cy", "--yes") == 0
    out = capsys.readouterr().out
    assert config.read_text() == mine
    assert "kept       homeostat.yaml" in out and "+    - handle: cy" in out
    assert init(repo, "--member", "cy", "--force", "--yes") == 0
    assert "handle: cy" in config.read_text() and "zed" not in config.read_text()


def test_the_base_branch_and_schedules_come_from_homeostat_yaml(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert init(repo, "--host", "github", "--base-branch", "trunk", "--yes") == 0
    validate = yaml.safe_load((repo / ".github/workflows/homeostat-validate.yml").read_text())
    assert validate[True]["pull_request"]["branches"] == ["trunk"]  # PyYAML reads `on:` as True
    config = repo / "homeostat.yaml"
    config.write_text(re.sub(r'(?m)^    daily: "[^"]*"$', "    daily: 30 4 * * 1-5", config.read_text()))
    capsys.readouterr()

    assert init(repo, "--yes") == 0
    assert "kept       .github/workflows/homeostat-daily.yml" in capsys.readouterr().out
    assert init(repo, "--yes", "--force") == 0
    daily = yaml.safe_load((repo / ".github/workflows/homeostat-daily.yml").read_text())
    assert daily[True]["schedule"] == [{"cron": "30 4 * * 1-5"}]


def test_the_gitignore_is_merged_not_replaced(repo: Path) -> None:
    (repo / ".gitignore").write_text("node_modules/\n*.log")
    assert init(repo, "--host", "github", "--yes") == 0
    text = (repo / ".gitignore").read_text()
    assert text.startswith("node_modules/\n*.log\n") and text.endswith(".homeostat/\n")
    assert git(repo, "check-ignore", ".homeostat/events.db") == ".homeostat/events.db"
    assert init(repo, "--yes") == 0
    assert (repo / ".gitignore").read_text() == text


def test_bitbucket_gets_a_pipeline_file_and_is_told_there_is_no_scheduler_in_the_repo(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert init(repo, "--host", "bitbucket", "--member", "ana:lead", "--yes") == 0
    out = capsys.readouterr().out
    assert sorted(files_of(repo)) == sorted(
        [
            "homeostat.yaml",
            "bitbucket-pipelines.yml",
            ".bitbucket/CODEOWNERS",
            ".gitignore",
            "knowledge/core/README.md",
        ]
    )
    assert "Bitbucket has no scheduler in the repository" in out and "--create-schedules" in out
    pipelines = repo / "bitbucket-pipelines.yml"
    schema = run_tool(
        "check-jsonschema", "--builtin-schema", "vendor.bitbucket-pipelines", pipelines, cwd=repo
    )
    assert schema.returncode == 0, schema.stdout + schema.stderr
    assert {
        (p.version, p.floating) for p in find_pins({"bitbucket-pipelines.yml": pipelines.read_text()})
    } == {(VERSION, False)}
    assert "/bitbucket-pipelines.yml @ana" in (repo / ".bitbucket" / "CODEOWNERS").read_text()
    assert main(["validate", str(repo)]) == 0
    text = pipelines.read_text()  # digest and review merge are shipped: the file says what each needs
    assert "ships" not in text and "unknown" not in text
    assert "digest posts to Slack with HOMEOSTAT_SLACK_WEBHOOK" in text and "homeostat review merge" in text
    # the daily run reads the code repos' pull requests: a token for this repo alone cannot
    assert "a workspace access token, or one that may also read the pull requests" in out


def test_next_names_the_token_the_daily_run_needs_to_read_the_code_repos(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert init(repo, "--host", "github", *TEAM, *REPOS, "--yes") == 0
    out = capsys.readouterr().out
    steps = out[out.index("Next:") :]
    assert (
        "  - store HOMEOSTAT_GITHUB_TOKEN as a repository secret: a token that may read the pull requests"
        " of ledger, storefront (the workflows' own GITHUB_TOKEN reads only this KB repo)\n"
    ) in steps


def test_the_host_comes_from_origin_when_it_is_github_com_or_bitbucket_org(repo: Path) -> None:
    git(repo, "remote", "add", "origin", "git@bitbucket.org:acme/kb.git")
    assert init(repo, "--yes") == 0
    assert yaml.safe_load((repo / "homeostat.yaml").read_text())["sources"]["host"] == "bitbucket"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "which code host is the KB on? give --host github or --host bitbucket"),
        (["--host", "github", "--member", "ana:boss"], "--member 'ana:boss': the role must be one of junior"),
        (["--host", "github", "--member", "a b"], "--member 'a b': a handle is letters, digits"),
        (["--host", "github", "--member", "ana", "--member", "ANA"], "--member ana is given twice"),
        (["--host", "github", "--repo", "core=https://github.com/a/core"], "the name 'core' must be"),
        (["--host", "github", "--repo", "x=not a url"], "--repo 'x=not a url': not a repository URL"),
        (
            ["--host", "github", "--repo", "https://bitbucket.org/a/b"],
            "is on bitbucket but the KB's host is github",
        ),
    ],
)
def test_bad_answers_are_one_line_errors_and_nothing_is_written(
    repo: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    assert init(repo, *args, "--yes") == 2
    err = capsys.readouterr().err
    assert err.startswith("homeostat: ") and message in err and err.count("\n") == 1
    assert files_of(repo) == {}


def test_a_broken_config_stops_init_with_the_line_and_the_way_out(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / "homeostat.yaml").write_text("team: [\n")
    assert init(repo, "--yes") == 2
    err = capsys.readouterr().err
    assert (
        err.startswith("homeostat: homeostat.yaml:")
        and "give the flags and --force to write a new one" in err
    )
    assert init(repo, "--host", "github", "--force", "--yes") == 0
    assert yaml.safe_load((repo / "homeostat.yaml").read_text())["sources"]["host"] == "github"


def test_init_refuses_a_folder_inside_another_repository(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert init(repo / "kb", "--host", "github", "--yes") == 2
    assert "is inside the git repository" in capsys.readouterr().err
    assert not (repo / "kb").exists()
    assert main(["init", str(repo), "--kb", str(repo.parent), "--host", "github"]) == 2
    assert "name two folders: give one of them" in capsys.readouterr().err


def test_init_makes_a_folder_that_does_not_exist_yet(tmp_path: Path) -> None:
    assert init(tmp_path / "new" / "kb", "--host", "github", "--yes") == 0
    assert (tmp_path / "new" / "kb" / "homeostat.yaml").is_file()


def test_json_output_lists_every_file_and_its_outcome(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert init(repo, "--host", "github", "--format", "json") == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["version"] == VERSION and payload["host"] == "github" and payload["baseBranch"] == "main"
    assert [(f["path"], f["outcome"]) for f in payload["files"]] == [(p, "wrote") for p in GITHUB_FILES]
    assert payload["validateErrors"] == [] and payload["schedules"] == []


def test_at_a_terminal_init_asks_for_the_host_members_and_repos(repo: Path) -> None:
    """In a real pseudo-terminal, answering each question as a person would (one wrong answer first)."""
    import pty
    import time

    answers = [
        (b"Code host", b"gitlab"),
        (b"Code host", b"github"),
        (b"Team members", b"ana:lead bo"),
        (b"Code repos", b"ledger=https://github.com/acme/ledger"),
    ]
    primary, secondary = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "homeostat", "init", str(repo)],
        stdin=secondary,
        stdout=secondary,
        stderr=secondary,
        close_fds=True,
        env={**os.environ, "COLUMNS": "200"},
    )
    os.close(secondary)
    seen = b""
    deadline = time.monotonic() + 60
    for prompt, answer in answers:
        while seen.count(prompt) < sum(
            1 for p, _ in answers[: answers.index((prompt, answer)) + 1] if p == prompt
        ):
            assert time.monotonic() < deadline, seen.decode(errors="replace")
            seen += os.read(primary, 4096)
        os.write(primary, answer + b"\n")
    while process.poll() is None:
        try:
            seen += os.read(primary, 4096)
        except OSError:
            break
    process.wait(timeout=60)
    os.close(primary)
    assert process.returncode == 0, seen.decode(errors="replace")
    assert b"answer github or bitbucket" in seen
    config = yaml.safe_load((repo / "homeostat.yaml").read_text())
    assert config["sources"]["host"] == "github"
    assert [m["handle"] for m in config["team"]["members"]] == ["ana", "bo"]
    assert config["repos"][0]["name"] == "ledger"
