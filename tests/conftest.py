"""Test-wide guards: no network beyond loopback, no real home directory, no real tokens."""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from kit import SHARED

# Local servers the tests drive the real client libraries against; each module provides fixtures.
pytest_plugins = [
    "emulators.github_server",
    "emulators.bitbucket_server",
    "emulators.anthropic_stub",
    "emulators.slack_sink",
    "emulators.git_http",
    "kbfactory",  # `kb`: the example KB copied as a clone has it
    "dailyworld",  # `world`: the daily run's world on the GitHub emulator
    "deepdiveworld",  # the deep-dive worlds: `dd` (GitHub) and `any_host_dd` (both hosts)
]

SHARED_KB = SHARED / "examples" / "kb"

_TOKEN_VARIABLES = (
    "GITHUB_TOKEN",
    "HOMEOSTAT_GITHUB_TOKEN",
    "GITHUB_API_URL",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "ANTHROPIC_AUTH_TOKEN",
    "BITBUCKET_API_TOKEN",
    "BITBUCKET_EMAIL",
    "HOMEOSTAT_BITBUCKET_TOKEN",
    "HOMEOSTAT_SLACK_WEBHOOK",
    "GITHUB_ACTIONS",
    "GITHUB_STEP_SUMMARY",
    "BITBUCKET_BUILD_NUMBER",
    "BITBUCKET_COMMIT",
    "GITHUB_BASE_REF",  # validate compares with a pull request's base when these are set
    "BITBUCKET_PR_DESTINATION_BRANCH",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "AWS_BEARER_TOKEN_BEDROCK",
    "AWS_SESSION_TOKEN",
    "AWS_PROFILE",
    "AWS_REGION",
    "AWS_DEFAULT_REGION",
    "ANTHROPIC_BEDROCK_BASE_URL",
    "ANTHROPIC_VERTEX_BASE_URL",
    "ANTHROPIC_VERTEX_PROJECT_ID",
    "CLOUD_ML_REGION",
    "GOOGLE_OAUTH_ACCESS_TOKEN",
    "GOOGLE_CLOUD_PROJECT",
    "CLAUDE_CODE_OAUTH_TOKEN",
    "BITBUCKET_API_URL",
    "BITBUCKET_WORKSPACE",
    "BITBUCKET_REPO_SLUG",
)

_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex
_real_getaddrinfo = socket.getaddrinfo


def _is_loopback(address: object) -> bool:
    if isinstance(address, tuple) and address:
        host = str(address[0])
        return host in {"127.0.0.1", "::1", "localhost"} or host.startswith("127.")
    return isinstance(address, (str, bytes))  # unix sockets are local


def _guarded_connect(self: socket.socket, address: object) -> None:
    if not _is_loopback(address):
        raise RuntimeError(f"test tried to reach the network: {address!r}")
    _real_connect(self, address)  # type: ignore[arg-type]


def _guarded_connect_ex(self: socket.socket, address: object) -> int:
    if not _is_loopback(address):
        raise RuntimeError(f"test tried to reach the network: {address!r}")
    return _real_connect_ex(self, address)  # type: ignore[arg-type]


def _guarded_getaddrinfo(host: object, *args: object, **kwargs: object):  # type: ignore[no-untyped-def]
    name = host.decode() if isinstance(host, bytes) else host
    if name not in (None, "localhost", "127.0.0.1", "::1") and not str(name).startswith("127."):
        raise RuntimeError(f"test tried to resolve a network host: {name!r}")
    return _real_getaddrinfo(host, *args, **kwargs)  # type: ignore[arg-type]


@pytest.fixture(autouse=True)
def _no_network_no_home(
    monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[None]:
    """Fail loudly on hidden defaults: any real network, real home directory or real token."""
    monkeypatch.setattr(socket.socket, "connect", _guarded_connect)
    monkeypatch.setattr(socket.socket, "connect_ex", _guarded_connect_ex)
    monkeypatch.setattr(socket, "getaddrinfo", _guarded_getaddrinfo)
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Homeostat Test")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "test@example.invalid")
    monkeypatch.setenv("GIT_COMMITTER_NAME", "Homeostat Test")
    monkeypatch.setenv("GIT_COMMITTER_EMAIL", "test@example.invalid")
    for name in _TOKEN_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    for name in list(os.environ):
        if name.startswith(("INPUT_", "HOMEOSTAT_")):
            monkeypatch.delenv(name, raising=False)
    yield


@pytest.fixture
def shared_kb() -> Path:
    """The format contract from ../shared; skipped only where that folder is absent (a user's clone)."""
    if not SHARED_KB.is_dir():
        pytest.skip("../shared/examples/kb is not present in this checkout")
    return SHARED_KB


@pytest.fixture
def lone_thread() -> None:
    """Wait until this process runs no thread but the main one, as a command does: a forked
    counting, parsing or writing child is only started then (`count_worker.may_fork`), so a test of
    that split run after a test whose model pool or server threads are still ending would test the
    no-fork path instead. Fails naming the threads that stay."""
    deadline = time.monotonic() + 20
    while threading.active_count() > 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    others = [thread.name for thread in threading.enumerate() if thread is not threading.main_thread()]
    if others:
        pytest.fail(f"threads still running before a test that forks: {others}")
