"""A KB repo with a week of history and a state branch, for `homeostat digest` tests and benchmarks.

world = DigestWorld(tmp_path, now=NOW)
world.commit(world.week_of_changes(), when=NOW - dt.timedelta(days=2))
world.in_review("Retry refunds", member="bo", opened=NOW - dt.timedelta(days=4))
result = world.run_digest(notifier)        # or world.cli("digest", "--print")
"""

from __future__ import annotations

import datetime as dt
import os
import subprocess
from pathlib import Path
from typing import Any

from dailyworld import KB_CONFIG_EXTRA
from kbfactory import example_files

from homeostat.adapters.git.plumbing import Git
from homeostat.adapters.state.state_store import write_state
from homeostat.core.format.write import render_rule_file, render_topic_section
from homeostat.core.schema import RuleMeta
from homeostat.core.state.branch import DecisionRecord, DecisionsFile, LessonSource, PullRef, dump_state

TOPIC = "knowledge/billing/api/errors.md"
DOC = "knowledge/billing/api/docs/overview.md"
CORE_RULE = "knowledge/core/log-with-fields.md"


def git(cwd: Path, *args: str, when: dt.datetime | None = None) -> str:
    env = dict(os.environ)
    if when is not None:
        stamp = f"{int(when.timestamp())} +0000"
        env.update(GIT_AUTHOR_DATE=stamp, GIT_COMMITTER_DATE=stamp)
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, env=env, check=False)
    assert done.returncode == 0, f"git {' '.join(args)}: {done.stderr}"
    return done.stdout.strip()


def rule_meta(rule_id: str, title: str, day: str, **extra: Any) -> RuleMeta:
    fields = {
        "id": rule_id,
        "title": title,
        "area": "billing/api",
        "topic": "errors",
        "scope": ["src/billing/api/**/*.py"],
        "status": "accepted",
        "source": {"type": "manual", "author": "ana"},
        "created": day,
        "lastConfirmed": day,
        **extra,
    }
    return RuleMeta.model_validate(fields)


def many_rules(count: int, day: str) -> str:
    """The example's errors topic file with `count` more rules (long titles, to test the limits)."""
    sections = [
        render_topic_section(
            rule_meta(
                f"billing-api-generated-{n:04d}",
                f"Rule {n}: refunds, retries and <angle> & ampersands in handlers",
                day,
            ),
            f"Handle case {n} through `billing.errors.Case{n}` in `src/billing/api/handlers.py`.",
            "A reviewer asked for it.",
            None,
        )
        for n in range(count)
    ]
    head = example_files()[TOPIC].rstrip("\n") + "\n"
    return head + "".join("\n" + text for text in sections)


class DigestWorld:
    def __init__(self, tmp_path: Path, *, now: dt.datetime, start: dt.datetime | None = None) -> None:
        self.tmp = tmp_path
        self.now = now
        self.origin = tmp_path / "origin.git"
        git(tmp_path, "init", "--quiet", "--bare", "--initial-branch=main", str(self.origin))
        self.work = tmp_path / "kb"
        git(tmp_path, "clone", "--quiet", str(self.origin), str(self.work))
        git(self.work, "checkout", "--quiet", "-B", "main")
        files = example_files()
        files["homeostat.yaml"] = files["homeostat.yaml"].replace(
            "  excludePaths:", KB_CONFIG_EXTRA + "  excludePaths:"
        )
        self.commit(files, when=start or now - dt.timedelta(days=30), message="KB")

    def text(self, path: str) -> str:
        return (self.work / path).read_text(encoding="utf-8")

    def commit(self, files: dict[str, str], *, when: dt.datetime, message: str = "change") -> str:
        for rel, text in files.items():
            (self.work / rel).parent.mkdir(parents=True, exist_ok=True)
            (self.work / rel).write_text(text, encoding="utf-8")
        git(self.work, "add", "-A")
        git(self.work, "commit", "--quiet", "-m", message, when=when)
        git(self.work, "push", "--quiet", "origin", "HEAD:main")
        return git(self.work, "rev-parse", "HEAD")

    def week_of_changes(self, day: str) -> dict[str, str]:
        """Two new rules, a rejected decision, a reconfirmation, a flag and an updated section."""
        topic = self.text(TOPIC).rstrip("\n") + "\n"
        for rule_id, title in (
            ("billing-api-retry-refunds", "Retry refunds with exponential backoff"),
            ("billing-api-log-codes", "Log the decline code with every refusal"),
        ):
            topic += "\n" + render_topic_section(
                rule_meta(rule_id, title, day),
                f"{title} in `src/billing/api/refunds.py`.",
                "Asked for.",
                None,
            )
        topic = topic.replace(
            "score: 4\n",
            f"flags:\n  - by: bo\n    at: {day}\n    reason: STATUS_BY_ERROR moved to billing.http\nscore: 4\n",
            1,
        )
        rejected = rule_meta(
            "billing-api-no-graphql", "Do not add a GraphQL gateway", day, adopted=False, kind="decision"
        )
        rejected = rejected.model_copy(update={"topic": None})
        doc = self.text(DOC).replace(
            "never the database layer directly.",
            "never the database layer directly. Webhooks enter at `hooks.py`.",
        )
        core = self.text(CORE_RULE).replace("lastConfirmed: 2026-11-02", f"lastConfirmed: {day}")
        return {
            TOPIC: topic,
            "knowledge/billing/api/billing-api-no-graphql.md": render_rule_file(
                rejected,
                "Keep the REST API; do not add a GraphQL gateway.",
                "Decided in the Q3 review.",
                None,
            ),
            DOC: doc,
            CORE_RULE: core,
        }

    # --- the state branch ---------------------------------------------------------------------------

    def in_review(self, titles: list[tuple[str, str, dt.datetime]]) -> None:
        """Lessons waiting in review PRs: (title, member, opened)."""
        by_member: dict[str, list[DecisionRecord]] = {}
        for index, (title, member, opened) in enumerate(titles, start=1):
            record = DecisionRecord(
                hash=f"h{index}",
                member=member,
                kind="new",
                title=title,
                rule_id=None,
                area="billing/api",
                source=LessonSource(type="manual"),
                outcome="review",
                state="in-review",
                confidence=55,
                pr=PullRef(
                    number=10 + index,
                    url=f"https://github.com/example/kb/pull/{10 + index}",
                    branch=f"homeostat/review-{member}",
                ),
                review_opened_at=opened,
                at=opened,
            )
            by_member.setdefault(member, []).append(record)
        files = {
            f"decisions/{member}.json": dump_state(DecisionsFile(member=member, records=tuple(records)))
            for member, records in by_member.items()
        }
        write_state(Git(self.work), files, remote="origin", branch="homeostat/state")

    def state_files(self) -> dict[str, bytes]:
        repo = Git(self.origin)
        tip = repo.rev_parse("refs/heads/homeostat/state")
        return repo.read_files(tip) if tip else {}
