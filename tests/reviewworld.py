"""A KB repo on a host emulator with Homeostat review PRs on it, for `homeostat review merge` tests.

world = ReviewWorld(github_harness, tmp_path, monkeypatch)
first = world.review_pr("ana", add_rule("billing-api-retry", "Retry refunds with backoff"))
world.run("review", "merge", "--all")      # the CLI, as the action runs it
world.main_text(TOPIC)                     # what the base branch holds now
"""

from __future__ import annotations

import datetime as dt
import subprocess
from pathlib import Path
from typing import Any

import pytest
from dailyworld import push_example_kb
from gitfixtures import git

from homeostat.adapters.git.plumbing import Git
from homeostat.core.format.write import render_topic_section
from homeostat.core.schema import RuleMeta
from homeostat.core.state.branch import (
    DecisionRecord,
    DecisionsFile,
    LessonSource,
    PullRef,
    decisions_path,
    dump_state,
)

TOPIC = "knowledge/billing/api/errors.md"
DAY = "2026-12-01"
STATE = "homeostat/state"


def section(rule_id: str, title: str, text: str = "", area: str = "billing/api") -> str:
    meta = RuleMeta.model_validate(
        {
            "id": rule_id,
            "title": title,
            "area": area,
            "topic": "errors",
            "scope": ["src/billing/api/**/*.py"],
            "status": "accepted",
            "source": {"type": "manual", "author": "ana"},
            "created": "2026-11-20",
            "lastConfirmed": "2026-11-20",
        }
    )
    rule = text or f"{title} in `src/billing/api/handlers.py`."
    return render_topic_section(meta, rule, "A reviewer asked for it.", None)


class ReviewWorld:
    def __init__(self, harness: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.harness = harness
        self.host = harness.name
        self.tmp = tmp_path
        self.monkeypatch = monkeypatch
        for handle in ("ana", "bo", "cy", "dee"):
            harness.add_member(handle)
        self.kb_repo = harness.create_repo("example", "kb")
        self.adapter = harness.adapter()
        push_example_kb(harness, self.kb_repo, tmp_path / "kb-work")

    def bare(self) -> Git:
        return Git(self.harness.bare_path(self.kb_repo))

    def main_text(self, path: str) -> str:
        data = self.bare().read_file("refs/heads/main", path)
        assert data is not None, f"main has no {path}"
        return data.decode()

    def branch(self, name: str) -> str | None:
        return self.bare().rev_parse(f"refs/heads/{name}")

    def push_branch(self, branch: str, files: dict[str, str], message: str) -> str:
        """A commit of `files` on main's tip, pushed as `branch` (as the daily run pushes one)."""
        bare = self.bare()
        sha = bare.commit_files(
            bare.rev_parse("refs/heads/main"), {p: t.encode() for p, t in files.items()}, message
        )
        bare.run("update-ref", f"refs/heads/{branch}", sha)
        return sha

    def review_pr(
        self, member: str, files: dict[str, str], *, prefix: str = "homeostat/review-", author: str = ""
    ) -> int:
        """A review PR of `member`'s lessons (a dispute PR of `author`'s flags), with the decision
        record the daily run writes on the state branch for it."""
        branch = f"{prefix}{member}-{DAY}"
        title = f"Homeostat review: {member} {DAY}"
        self.push_branch(branch, files, title)
        pull = self.adapter.open_pull(self.kb_repo, branch, "main", title, f"Lessons for {member}.")
        self.record(author or member, pull.number, pull.url, branch, dispute=bool(author))
        return pull.number

    def record(self, member: str, number: int, url: str, branch: str, *, dispute: bool = False) -> None:
        """`member`'s decision record naming PR `number`, added to the state branch."""
        bare = self.bare()
        tip = bare.rev_parse(f"refs/heads/{STATE}")
        path = decisions_path(member)
        old = bare.read_file(tip, path) if tip else None
        records = DecisionsFile.model_validate_json(old).records if old else ()
        at = dt.datetime(2026, 12, 1, 6, tzinfo=dt.UTC)
        record = DecisionRecord(
            hash=f"lesson-{number}",
            member=member,
            kind="dispute" if dispute else "new",
            title=f"Lesson of PR {number}",
            source=LessonSource(type="flag" if dispute else "manual"),
            outcome="review",
            state="in-review",
            confidence=55,
            pr=PullRef(number=number, url=url, branch=branch),
            review_opened_at=at,
            at=at,
        )
        data = dump_state(DecisionsFile(member=member, records=(*records, record)))
        bare.run("update-ref", f"refs/heads/{STATE}", bare.commit_files(tip, {path: data}, "record"))

    def approve(self, number: int, login: str) -> None:
        """`login` approves the PR at its head, as a reviewer does on the host."""
        self.harness.approve(self.kb_repo, number, login)

    def with_rule(self, *sections: str, path: str = TOPIC) -> dict[str, str]:
        """The topic file as main holds it, with `sections` added at its end."""
        text = self.main_text(path).rstrip("\n") + "\n"
        for extra in sections:
            text += "\n" + extra
        return {path: text}

    def state(self, number: int) -> dict[str, object]:
        return dict(self.harness.open_pull_state(self.kb_repo, number))

    def env(self) -> None:
        if self.host == "bitbucket":
            self.monkeypatch.setenv("HOMEOSTAT_BITBUCKET_TOKEN", self.harness.token)
            self.monkeypatch.setenv("BITBUCKET_API_URL", self.harness.api_url)
        else:
            self.monkeypatch.setenv("GITHUB_TOKEN", self.harness.token)
            self.monkeypatch.setenv("GITHUB_API_URL", self.harness.emulator.api_url)

    def checkout(self) -> Path:
        path = self.tmp / f"ci-{len(list(self.tmp.glob('ci-*')))}"
        git(self.tmp, "clone", "--quiet", str(self.harness.bare_path(self.kb_repo)), str(path))
        return path

    def run(self, *args: str) -> int:
        from homeostat.cli import main

        self.env()
        return main([*args, "--kb", str(self.checkout())])

    def validate_main(self) -> list[str]:
        """The error findings `homeostat validate` reports on main."""
        from homeostat.adapters.kb_files import load_kb_ref
        from homeostat.core.validate import validate_kb

        kb = load_kb_ref(self.bare(), "refs/heads/main")
        return [f"{f.file}: {f.message}" for f in validate_kb(kb, dt.date(2026, 12, 2)).errors]

    def log(self, ref: str = "main") -> list[str]:
        done = subprocess.run(
            ["git", "--git-dir", str(self.harness.bare_path(self.kb_repo)), "log", "--format=%s", ref],
            capture_output=True,
            text=True,
            check=True,
        )
        return done.stdout.splitlines()
