"""The daily run pushes with its own host token, whatever credential layout the checkout left.

Real git against `git http-backend` behind an origin that refuses unauthenticated pushes (and, the KB
being private, fetches) and refuses a doubled Authorization header. The image test
(tests/actions/test_image.py) runs the same layouts inside the container.
"""

from __future__ import annotations

import base64
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from dailyworld import DailyWorld
from emulators.git_http import GitHttpServer, PipelinesProxy
from gitfixtures import git
from hostkit import PullSpec, ReplySpec, ThreadSpec
from runnerkit import Layout, runner_checkout

from homeostat.adapters.git.auth import origin_auth_env
from homeostat.adapters.git.plumbing import Git
from homeostat.cli import main

TOKEN = "ghs_" + "Q7w" * 12


# --- what the environment tells git ----------------------------------------------------------------


def urlmatch(repo: Path, env: dict[str, str], key: str, url: str) -> list[str]:
    """What git itself reads for `key` at `url` with that environment (no network)."""
    done = Git(repo, env).run("config", "--get-urlmatch", key, url, check=False)
    return done.stdout.decode().splitlines()


@pytest.mark.parametrize(
    ("host", "origin", "env", "expected"),
    [
        ("github", "https://github.com/acme/kb", {"GITHUB_TOKEN": TOKEN}, "x-access-token"),
        ("github", "https://github.com/acme/kb.git", {"HOMEOSTAT_GITHUB_TOKEN": TOKEN}, "x-access-token"),
        (
            "github",
            "https://ghe.example.com/acme/kb",
            {"GITHUB_TOKEN": TOKEN, "GITHUB_SERVER_URL": "https://ghe.example.com"},
            "x-access-token",
        ),
        ("github", "https://gitlab.example.com/acme/kb", {"GITHUB_TOKEN": TOKEN}, None),
        ("github", "git@github.com:acme/kb.git", {"GITHUB_TOKEN": TOKEN}, None),
        ("github", "http://github.com/acme/kb", {"GITHUB_TOKEN": TOKEN}, None),
        ("github", "https://github.com/acme/kb", {}, None),
        ("bitbucket", "https://bitbucket.org/acme/kb", {"HOMEOSTAT_BITBUCKET_TOKEN": TOKEN}, "x-token-auth"),
        (
            "bitbucket",
            "https://bitbucket.org/acme/kb.git",
            {"BITBUCKET_API_TOKEN": TOKEN, "BITBUCKET_EMAIL": "a@example.com"},
            "x-bitbucket-api-token-auth",
        ),
        ("bitbucket", "https://github.com/acme/kb", {"HOMEOSTAT_BITBUCKET_TOKEN": TOKEN}, None),
    ],
)
def test_the_token_becomes_a_header_for_its_own_server_only(
    tmp_path: Path, host: str, origin: str, env: dict[str, str], expected: str | None
) -> None:
    git(tmp_path, "init", "--quiet")
    auth = origin_auth_env(host, origin, env)  # type: ignore[arg-type]
    headers = urlmatch(tmp_path, auth, "http.extraheader", origin.replace("git@github.com:", "ssh://x/"))
    if expected is None:
        assert auth == {} and headers == []
        return
    assert headers[-1] == "AUTHORIZATION: basic " + base64.b64encode(f"{expected}:{TOKEN}".encode()).decode()
    assert TOKEN not in " ".join(auth)  # the names: only values hold it
    assert urlmatch(tmp_path, auth, "http.extraheader", "https://elsewhere.example.com/x") == []


def test_settings_already_in_the_environment_are_kept(tmp_path: Path) -> None:
    env = {"GITHUB_TOKEN": TOKEN, "GIT_CONFIG_COUNT": "1"}
    auth = origin_auth_env("github", "https://github.com/acme/kb", env)
    assert auth["GIT_CONFIG_COUNT"] == "3"
    assert {"GIT_CONFIG_KEY_1", "GIT_CONFIG_KEY_2"} <= set(auth) and "GIT_CONFIG_KEY_0" not in auth


def test_a_pipe_reaches_the_pipelines_proxy_through_the_configured_address(tmp_path: Path) -> None:
    origin = "http://bitbucket.org/acme/kb"
    env = {
        "BITBUCKET_GIT_HTTP_ORIGIN": origin,
        "HOMEOSTAT_BITBUCKET_PROXY": "http://host.docker.internal:29418",
    }
    git(tmp_path, "init", "--quiet")
    git(tmp_path, "config", f"http.{origin}.proxy", "http://localhost:29418/")
    auth = origin_auth_env("bitbucket", origin, env)
    assert urlmatch(tmp_path, auth, "http.proxy", origin) == ["http://host.docker.internal:29418"]
    # In a plain step (no HOMEOSTAT_BITBUCKET_PROXY) the clone's own proxy setting stands.
    assert origin_auth_env("bitbucket", origin, {"BITBUCKET_GIT_HTTP_ORIGIN": origin}) == {}


# --- the daily run against an origin that wants credentials ----------------------------------------


def with_a_review_thread(world: DailyWorld) -> DailyWorld:
    world.merged_pull(
        "billing",
        PullSpec(
            author="bo",
            title="Refund endpoint",
            files={"src/billing/api/refunds.py": "def refund(): pass\n"},
            merged_at=world.hours_ago(3),
            threads=(
                ThreadSpec(
                    author="ana",
                    body="Raise RefundDeclined from billing.errors instead of returning None.",
                    path="src/billing/api/refunds.py",
                    replies=(ReplySpec("bo", "Done."),),
                    followed_by_commit=True,
                ),
            ),
        ),
    )
    return world


@pytest.fixture
def world(world: DailyWorld) -> DailyWorld:
    return with_a_review_thread(world)


@pytest.fixture
def private_git(github_harness) -> Iterator[GitHttpServer]:  # type: ignore[no-untyped-def]
    server = GitHttpServer(github_harness.root, {github_harness.token}, private=True)
    yield server
    server.close()


def ci_checkout(world: DailyWorld, server: GitHttpServer, layout: Layout) -> Path:
    return runner_checkout(
        server.repo_url("example", "kb"),
        world.tmp / "runner" / "work" / "kb",
        world.tmp / "runner" / "temp",
        token=world.harness.token,
        server=server.url,
        layout=layout,
    )


def run_daily(
    world: DailyWorld, server: GitHttpServer, checkout: Path, monkeypatch: pytest.MonkeyPatch
) -> int:
    world.env()
    monkeypatch.setenv("GITHUB_SERVER_URL", server.url)
    return main(["daily", "--kb", str(checkout)])


def test_the_origin_refuses_a_push_without_credentials(world: DailyWorld, private_git: GitHttpServer) -> None:
    checkout = ci_checkout(world, private_git, "none")
    private_git.requests.clear()
    done = subprocess.run(
        ["git", "push", "origin", "HEAD:refs/heads/probe"],
        cwd=checkout,
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "GIT_TERMINAL_PROMPT": "0", "HOME": str(world.tmp)},
    )
    assert done.returncode != 0 and "terminal prompts disabled" in done.stderr
    assert [r.status for r in private_git.requests] == [401]


@pytest.mark.parametrize("layout", ["none", "v4", "v7-unseen"])
def test_daily_fetches_and_pushes_with_the_token_it_was_given(
    world: DailyWorld,
    private_git: GitHttpServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    layout: str,
) -> None:
    checkout = ci_checkout(world, private_git, "v7" if layout == "v7-unseen" else layout)  # type: ignore[arg-type]
    if layout == "v7-unseen":  # what a container that does not mount $RUNNER_TEMP sees
        for credentials in (world.tmp / "runner" / "temp").glob("git-credentials-*.config"):
            credentials.unlink()
    private_git.requests.clear()
    code = run_daily(world, private_git, checkout, monkeypatch)
    out = capsys.readouterr()
    assert code == 0, out.out + out.err
    pushes = private_git.pushes()
    assert pushes and all(p.user == "x-access-token" for p in pushes)  # one header each: no 400
    assert not [r for r in private_git.requests if r.status != 200]
    assert world.bare().rev_parse("refs/heads/homeostat/state")
    assert world.harness.token not in out.out + out.err
    assert world.harness.token not in (checkout / ".git" / "config").read_text()


def test_a_pipe_pushes_through_the_pipelines_proxy(
    bitbucket_harness,
    anthropic_stub,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # type: ignore[no-untyped-def]
    """The Pipelines layout: origin http://bitbucket.org/…, its proxy on localhost (nobody, in a pipe)."""
    world = with_a_review_thread(DailyWorld(bitbucket_harness, anthropic_stub, tmp_path, monkeypatch))
    pipeline_token = "pipelines-" + "x9" * 10
    server = GitHttpServer(bitbucket_harness.root, {pipeline_token}, private=True)
    proxy = PipelinesProxy(server, pipeline_token)
    origin = "http://bitbucket.org/example/kb"
    checkout = world.tmp / "build"
    git(world.tmp, "clone", "--quiet", str(world.harness.bare_path(world.kb_repo)), str(checkout))
    git(checkout, "remote", "set-url", "origin", origin)
    git(checkout, "config", f"http.{origin}.proxy", "http://127.0.0.1:9/")  # closed, as in a pipe
    world.env()
    monkeypatch.setenv("BITBUCKET_GIT_HTTP_ORIGIN", origin)
    monkeypatch.setenv("HOMEOSTAT_BITBUCKET_PROXY", proxy.url)
    try:
        code = main(["daily", "--kb", str(checkout)])
    finally:
        proxy.close()
        server.close()
    out = capsys.readouterr()
    assert code == 0, out.out + out.err
    assert any(path.startswith(origin) for path in proxy.requests)
    assert server.pushes() and all(p.user == "x-token-auth" for p in server.pushes())
    assert world.bare().rev_parse("refs/heads/homeostat/state")
