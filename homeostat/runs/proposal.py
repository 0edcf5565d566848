"""A hand-run's one standing PR (bootstrap's per repo, import's): found, built on, and updated.

A rerun must never open a twin, and must build on what its open PR already holds, a reviewer's
commits on its branch included: so the KB a rerun merges into is the PR branch's when the PR is open,
and a new commit goes on top of the branch (a plain push, no force). A branch left behind by a PR
that was merged or closed is deleted and the change starts again from the base branch. A change the
branch (or the base) already holds opens nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from homeostat.adapters.kb_files import read_ref
from homeostat.core.config import Config
from homeostat.core.format.readable import Refused
from homeostat.core.hosts import PullInfo
from homeostat.runs.publish import Change, Publisher


@dataclass(frozen=True)
class Proposal:
    branch: str
    base: str  # the branch the PR targets
    base_sha: str  # the commit a change builds on: the open PR's head, else the base's tip
    files: dict[str, str]  # the KB's files at `base_sha`
    pull: PullInfo | None  # the PR already open on `branch`


def open_proposal(publisher: Publisher, base: str, branch: str) -> Proposal:
    remote = publisher.remote
    publisher.git.fetch(
        remote,
        [
            f"+refs/heads/{base}:refs/remotes/{remote}/{base}",
            f"+refs/heads/{branch}:refs/remotes/{remote}/{branch}",
        ],
    )
    pull = next((p for p in publisher.open_pulls(branch) if p.head_branch == branch), None)
    tip = publisher.git.rev_parse(f"refs/remotes/{remote}/{branch}")
    if pull is not None and tip is not None:
        sha = tip
    else:
        if tip is not None:  # left by a merged or closed PR: start again from the base
            publisher.delete_branch(branch)
        sha = publisher.base_tip(base)
    files: dict[str, str] = {}
    for path, data in read_ref(publisher.git, sha).items():
        if isinstance(data, Refused):
            continue  # a link, a submodule or a file over its limit: never read, validate reports it
        try:
            files[path] = data.decode("utf-8")
        except UnicodeDecodeError:
            continue  # never merged into: validate reports it
    return Proposal(branch, base, sha, files, pull)


def publish_proposal(
    publisher: Publisher,
    proposal: Proposal,
    changed: Mapping[str, str],
    *,
    title: str,
    body: str,
    config: Config,
    areas: Iterable[str],
) -> PullInfo | None:
    """Push the change on top of the proposal and find-or-open its PR; None when nothing changed."""
    changes = {path: text for path, text in changed.items() if proposal.files.get(path) != text}
    if not changes:
        return proposal.pull
    change = Change(proposal.base, proposal.base_sha, changes, proposal.branch, title, body)
    published = publisher.open(change)
    publisher.request_reviewers(published.pull, config, areas, author="")
    return published.pull
