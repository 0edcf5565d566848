"""The deep dive's world: the daily run's (tests/dailyworld.py) with every date moved to this week, so
only what a test plants is stale or new, and a model script answering the deep dive's agents.

    dd = DeepDiveWorld(DailyWorld(harness, stub, tmp_path, monkeypatch))
    dd.add(duplicate_files())
    dd.run()                      # `homeostat deep-dive` as the action runs it
    dd.deep_dive_pulls(), dd.deep_dive_runs()
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from typing import Any

import pytest
from dailyworld import DailyWorld, as_bitbucket
from gitfixtures import git

TODAY = dt.datetime.now(dt.UTC).date()
RECENT = (TODAY - dt.timedelta(days=2)).isoformat()
LONG_AGO = (TODAY - dt.timedelta(days=400)).isoformat()
OVERVIEW = "knowledge/billing/api/docs/overview.md"
SAME_RULE = "Two rules in the team's knowledge base look alike"
CONTRADICTION = "You check a team's coding rules for contradictions"
RETRACT = "was retired. A document section cites it"


class DeepDiveScript:
    """Answers the deep dive's agents by content; `calls` records (agent, user prompt)."""

    def __init__(self) -> None:
        self.same: bool | dict[str, Any] = True
        self.contradicts: dict[str, list[str]] = {}  # new rule id -> ids it contradicts
        self.retraction: dict[str, Any] = {"change": False}
        self.calls: list[tuple[str, str]] = []
        self.garbage = False

    def __call__(self, system: str, user: str) -> Any:
        agent = "same" if SAME_RULE in system else "contradiction" if CONTRADICTION in system else ""
        agent = agent or ("retract" if RETRACT in system else "")
        assert agent, f"unexpected prompt: {system[:80]}"
        self.calls.append((agent, user))
        if self.garbage:
            return {"not": "the schema"}
        if agent == "same":
            return (
                self.same
                if isinstance(self.same, dict)
                else {"reason": "same instruction", "same": self.same}
            )
        if agent == "contradiction":
            new = re.search(r"^New rule (\S+)", user, re.M)
            ids = self.contradicts.get(new.group(1) if new else "", [])
            return {"reason": "they disagree" if ids else "no conflict", "contradicts": ids}
        return self.retraction

    def asked(self, agent: str) -> list[str]:
        return [user for name, user in self.calls if name == agent]


def rule_file(rule_id: str, title: str, text: str, **fields: str) -> str:
    author = fields.get("author", "cy")
    url = fields.get(
        "url", f"https://github.com/example/storefront/pull/9#discussion_r{abs(hash(rule_id)) % 10**9}"
    )
    return (
        f'---\nid: {rule_id}\ntitle: {title}\narea: storefront/ui\nscope: ["web/components/**/*.tsx"]\n'
        f"status: accepted\nkind: convention\nsource:\n  type: pr-feedback\n  url: {url}\n"
        f"  author: {author}\n  changedCode: true\ncreated: {fields.get('created', '2026-10-01')}\n"
        f"lastConfirmed: {fields.get('confirmed', RECENT)}\n---\n## Rule\n{text}\n\n## Why\n"
        f"{fields.get('why', 'The reviewers asked for it and the code changed after.')}\n"
    )


LOOK_ALIKES = {
    "fetch-with-use-foo": (
        "Fetch product data with the useFoo hook",
        "Fetch product data in components with `useFoo()`; never call the product API directly.",
    ),
    "fetch-with-use-foo-bar": (
        "Fetch product data with the useFooBar hook",
        "Fetch product data in components with `useFooBar()`; never call the product API directly.",
    ),
    "checkout-api-v1": (
        "Call the checkout API v1 for payments",
        "Call the checkout API v1 from payment components; never post payments from a page.",
    ),
    "checkout-api-v2": (
        "Call the checkout API v2 for payments",
        "Call the checkout API v2 from payment components; never post payments from a page.",
    ),
    "retry-limit-101": (
        "Stop retrying image uploads after 101 attempts",
        "Stop retrying image uploads from components after 101 attempts and show the upload error.",
    ),
    "retry-limit-102": (
        "Stop retrying image uploads after 102 attempts",
        "Stop retrying image uploads from components after 102 attempts and show the upload error.",
    ),
}
DUPLICATES = {
    "cart-totals-hook": rule_file(
        "cart-totals-hook",
        "Read cart totals through the useCartTotals hook",
        "Read cart totals in components through `useCartTotals()`; never sum line items inside a component.",
        author="ana",
        url="https://github.com/example/storefront/pull/20#discussion_r2000000001",
    ),
    "cart-totals-hook-again": rule_file(
        "cart-totals-hook-again",
        "Read cart totals with the useCartTotals hook",
        "Read the cart totals in components with `useCartTotals()`; do not sum line items in a component.",
        author="dee",
        url="https://github.com/example/storefront/pull/31#discussion_r2000000002",
    ),
}


# A stale rule and the document section that cites it, beside one on the same subject that does not.
STALE_ID = "storefront-ui-legacy-grid"
STALE = rule_file(
    STALE_ID,
    "Lay out product pages on the legacy grid",
    "Lay out product pages in `web/components/` on `LegacyGrid`; never nest flex containers for columns.",
    confirmed=LONG_AGO,
    created="2025-01-01",
)
LAYOUT_DOC = f"""---
title: Storefront layout
area: storefront/ui
owner: web
scope: ["web/components/**"]
updated: {RECENT}
---
## Columns {{#columns}}
<!-- homeostat: source=manual updated={RECENT} -->
Product pages use twelve columns. Columns come from `LegacyGrid` (see ({STALE_ID})). Gutters come from the theme.

## Grid {{#grid}}
<!-- homeostat: source=manual updated={RECENT} -->
The grid is part of the layout. Product pages keep a twelve column grid with theme gutters.
"""


class DeepDiveWorld:
    def __init__(self, world: DailyWorld) -> None:
        self.world = world
        self.script = DeepDiveScript()
        world.stub.respond_with(self.script)
        self.refresh_dates()

    def refresh_dates(self) -> None:
        """Every rule confirmed and every section updated two days ago: nothing is stale by accident."""
        work = self.world.work
        for path in (work / "knowledge").rglob("*.md"):
            text = path.read_text()
            text = re.sub(r"^lastConfirmed: \S+$", f"lastConfirmed: {RECENT}", text, flags=re.M)
            text = re.sub(r"^updated: \S+$", f"updated: {RECENT}", text, flags=re.M)
            text = re.sub(r"updated=\d{4}-\d{2}-\d{2}", f"updated={RECENT}", text)
            path.write_text(text)
        self.push("dates this week")

    def add(self, files: dict[str, str], message: str = "more rules") -> None:
        if self.world.host == "bitbucket":
            files = {rel: as_bitbucket(text) for rel, text in files.items()}
        for rel, text in files.items():
            (self.world.work / rel).parent.mkdir(parents=True, exist_ok=True)
            (self.world.work / rel).write_text(text)
        self.push(message)

    def push(self, message: str) -> None:
        work = self.world.work
        git(work, "add", "-A")
        git(work, "commit", "--quiet", "--allow-empty", "-m", message)
        git(work, "push", "--quiet", "origin", "HEAD:main")

    def run(self, *args: str, token: str = "") -> int:
        from homeostat.cli import main

        self.world.env()
        if token:
            self.world.monkeypatch.setenv("GITHUB_TOKEN", token)
        return main(["deep-dive", "--kb", str(self.world.checkout()), *args])

    def open_deep_dive_pulls(self) -> list[Any]:
        """As the host's own API lists them (either host)."""
        return self.world.harness.adapter().list_open_pulls(self.world.kb_repo, "homeostat/deep-dive-")

    def deep_dive_pulls(self) -> list[Any]:
        return [p for p in self.world.pulls().values() if p.head_ref.startswith("homeostat/deep-dive-")]

    def branch_files(self, pull: Any) -> dict[str, str]:
        return {p: d.decode() for p, d in self.world.bare().read_files(f"refs/heads/{pull.head_ref}").items()}

    def deep_dive_runs(self) -> list[Any]:
        return [r for r in self.world.state().runs.values() if r.kind == "deep-dive"]


def look_alike_files() -> dict[str, str]:
    return {
        f"knowledge/storefront/ui/{rule_id}.md": rule_file(rule_id, title, text)
        for rule_id, (title, text) in LOOK_ALIKES.items()
    }


def duplicate_files() -> dict[str, str]:
    return {f"knowledge/storefront/ui/{rule_id}.md": text for rule_id, text in DUPLICATES.items()}


# --- fixtures (a pytest plugin: tests/conftest.py lists this module) ---------------------------------


@pytest.fixture(params=["github", "bitbucket"])
def any_host_dd(
    request: pytest.FixtureRequest, anthropic_stub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> DeepDiveWorld:  # type: ignore[no-untyped-def]
    harness = request.getfixturevalue(f"{request.param}_harness")
    return DeepDiveWorld(DailyWorld(harness, anthropic_stub, tmp_path, monkeypatch))


@pytest.fixture
def dd(github_harness, anthropic_stub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> DeepDiveWorld:  # type: ignore[no-untyped-def]
    return DeepDiveWorld(DailyWorld(github_harness, anthropic_stub, tmp_path, monkeypatch))
