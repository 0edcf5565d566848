"""A team's whole world for daily-run tests: a KB repo and code repos on the GitHub emulator, members'
candidates branches, a CI checkout of the KB, and a model stub answering by content.

    world = DailyWorld(github_harness, anthropic_stub, tmp_path)
    world.merged_pull("billing", PullSpec(...))
    world.pending("cy", title=..., rule=...)
    code = world.daily()                       # `homeostat daily` as the action runs it
    world.state_records()                      # what homeostat/state holds
"""

from __future__ import annotations

import datetime as dt
import json
import re
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from gitfixtures import git
from hostkit import PullSpec
from kbfactory import example_files

from homeostat.adapters.git.plumbing import Git
from homeostat.core.pending import PendingLesson, pending_path
from homeostat.core.state.branch import parse_state

KB_CONFIG_EXTRA = "  kbRepo: https://github.com/example/kb\n"


class ModelScript:
    """Answers by which agent is asking and what the thread says (call order in a run is not fixed)."""

    def __init__(self) -> None:
        self.judge_failures: dict[str, dict[str, Any]] = {}  # thread keyword -> failing answer
        self.duplicates: dict[str, str] = {}  # thread keyword -> candidate id
        self.dispute_fix: dict[str, Any] | None = None
        self.retraction: dict[str, Any] | None = None
        self.calls: list[tuple[str, str]] = []
        self.broken = False

    def __call__(self, system: str, user: str) -> Any:
        self.calls.append((system[:40], user))
        if self.broken:
            return {"not": "the schema"}
        if "into at most one short rule" in system:
            return self._draft(user)
        if "reference documents true" in system:
            return {"patch": False}
        if "free of near-duplicates" in system:
            for keyword, target in self.duplicates.items():
                if keyword in user:
                    return {"reason": "same lesson", "action": "duplicate", "target": target}
            return {"reason": "new", "action": "create"}
        if "before it reaches every" in system:
            for keyword, answer in self.judge_failures.items():
                if keyword in user:
                    return answer
            return {"ok": True, "problems": []}
        if "was flagged by developers" in system:
            return self.dispute_fix or {"fixable": False}
        if "was retired. A document section cites it" in system:
            return self.retraction or {"change": False}
        raise AssertionError(f"unexpected prompt: {system[:80]}")

    @staticmethod
    def _draft(user: str) -> dict[str, Any]:
        comment = re.search(r"^(\w+): (.*)$", user.split("\n\n", 1)[1], re.MULTILINE)
        body = comment.group(2) if comment else "Do the thing"
        title = re.sub(r"[^\w\s`-]", "", body).strip()[:70]
        path = re.search(r"^File: (\S+)", user, re.MULTILINE)
        where = path.group(1) if path else "src"
        return {
            "keep": True,
            "title": title,
            "rule": f"{body.rstrip('.')} in `{where}`.",
            "why": "The reviewer asked for it and the code changed after.",
            "topic": "errors" if "billing" in where else "",
        }


class DailyWorld:
    def __init__(self, harness: Any, stub: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.harness = harness
        self.host = harness.name
        self.stub = stub
        self.tmp = tmp_path
        self.monkeypatch = monkeypatch
        self.script = ModelScript()
        stub.respond_with(self.script)
        for handle, teams in (
            ("ana", ("payments",)),
            ("bo", ("payments",)),
            ("cy", ("web",)),
            ("dee", ("web",)),
        ):
            harness.add_member(handle, teams)
        self.kb_repo = harness.create_repo("example", "kb")
        self.repos = {name: harness.create_repo("example", name) for name in ("billing", "storefront")}
        self.work = push_example_kb(harness, self.kb_repo, tmp_path / "kb-work")
        self.now = dt.datetime.now(dt.UTC)

    # --- setting the world up ----------------------------------------------------------------------

    def merged_pull(self, repo: str, spec: PullSpec) -> int:
        return int(self.harness.merged_pull(self.repos[repo], spec))

    def hours_ago(self, hours: float) -> dt.datetime:
        return self.now - dt.timedelta(hours=hours)

    def pending(self, member: str, **fields: Any) -> PendingLesson:
        """Push a pending lesson to candidates/<member>, as the member's session sync does."""
        lesson = PendingLesson.model_validate({"author": member, "created": self.hours_ago(5), **fields})
        repo = Git(self.harness.bare_path(self.kb_repo))
        ref = f"refs/heads/candidates/{member}"
        base = repo.rev_parse(ref) or repo.rev_parse("refs/heads/main")
        sha = repo.commit_files(base, {pending_path(lesson): lesson.to_json().encode()}, "pending")
        repo.run("update-ref", ref, sha)
        return lesson

    # --- running -----------------------------------------------------------------------------------

    def checkout(self) -> Path:
        """A fresh CI checkout of the KB's main branch, as actions/checkout makes."""
        path = self.tmp / f"ci-{len(list(self.tmp.glob('ci-*')))}"
        git(self.tmp, "clone", "--quiet", str(self.harness.bare_path(self.kb_repo)), str(path))
        return path

    def env(self) -> None:
        if self.host == "bitbucket":
            self.monkeypatch.setenv("HOMEOSTAT_BITBUCKET_TOKEN", self.harness.token)
            self.monkeypatch.setenv("BITBUCKET_API_URL", self.harness.api_url)
        else:
            self.monkeypatch.setenv("GITHUB_TOKEN", self.harness.token)
            self.monkeypatch.setenv("GITHUB_API_URL", self.harness.emulator.api_url)
        self.monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
        self.monkeypatch.setenv("ANTHROPIC_BASE_URL", self.stub.url)
        self.monkeypatch.setenv("CI", "true")

    def daily(self, *args: str, capsys: pytest.CaptureFixture[str] | None = None) -> int:
        from homeostat.cli import main

        self.env()
        return main(["daily", "--kb", str(self.checkout()), *args])

    # --- reading the outcome -----------------------------------------------------------------------

    def bare(self) -> Git:
        return Git(self.harness.bare_path(self.kb_repo))

    def main_files(self) -> dict[str, str]:
        return {p: d.decode() for p, d in self.bare().read_files("refs/heads/main").items()}

    def state(self) -> Any:
        repo = self.bare()
        tip = repo.rev_parse("refs/heads/homeostat/state")
        files = repo.read_files(tip) if tip else {}
        return parse_state(files, tip)

    def records(self) -> dict[str, Any]:
        return {record.title: record for record in self.state().records()}

    def pulls(self) -> dict[int, Any]:
        record = self.harness.emulator.repo("example", "kb")
        return dict(record.pulls)

    def pull_state(self, number: int) -> dict[str, object]:
        return dict(self.harness.open_pull_state(self.kb_repo, number))


def push_example_kb(harness: Any, repo: Any, work: Path) -> Path:
    """The example KB (its kbRepo set; Bitbucket URLs on Bitbucket) pushed as `repo`'s main, from a
    clone at `work`."""
    git(work.parent, "clone", "--quiet", str(harness.bare_path(repo)), str(work))
    files = example_files()
    files["homeostat.yaml"] = files["homeostat.yaml"].replace(
        "  excludePaths:", KB_CONFIG_EXTRA + "  excludePaths:"
    )
    if harness.name == "bitbucket":
        files = {path: as_bitbucket(text) for path, text in files.items()}
    for rel, text in files.items():
        target = work / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    git(work, "add", "-A")
    git(work, "commit", "--quiet", "-m", "KB")
    git(work, "push", "--quiet", "origin", "HEAD:main")
    return work


def as_bitbucket(text: str) -> str:
    """The example KB as a Bitbucket team writes it: bitbucket.org repos and comment URLs."""
    text = text.replace("host: github", "host: bitbucket")
    text = re.sub(
        r"https://github\.com/(\w+)/(\w+)/pull/(\d+)#discussion_r(\d+)",
        r"https://bitbucket.org/\1/\2/pull-requests/\3#comment-\4",
        text,
    )
    return text.replace("https://github.com/", "https://bitbucket.org/")


def git_log(path: Path, ref: str = "main") -> list[str]:
    done = subprocess.run(
        ["git", "log", "--format=%s", ref], cwd=path, capture_output=True, text=True, check=True
    )
    return done.stdout.splitlines()


def jsonl(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


Responder = Callable[[str, str], Any]


# --- fixtures (a pytest plugin: tests/conftest.py lists this module) ---------------------------------


@pytest.fixture
def world(github_harness, anthropic_stub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> DailyWorld:  # type: ignore[no-untyped-def]
    """The daily run's world on the GitHub emulator. A module that needs it seeded overrides it,
    asking for this one: `def world(world: DailyWorld) -> DailyWorld`."""
    return DailyWorld(github_harness, anthropic_stub, tmp_path, monkeypatch)
