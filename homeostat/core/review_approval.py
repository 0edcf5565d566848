"""Whether a review or dispute PR has the approval `homeostat review merge` needs, or, once a person
merged it with the host's button, whether that merge was read by someone else (pure).

Homeostat's bot opens these PRs, so the host lets the lesson's own author approve them. What counts
is an approval by a team member (homeostat.yaml's members) who wrote none of the PR's lessons, given at
the head the merge starts from (for a merged PR, the head it merged). GitHub records the commit a
review was given at; Bitbucket Cloud does not, so an approval there counts whatever the head
(`Approval.commit` is None). A merge by such a member is their review too: pressing the button is
reading it (`merger`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from homeostat.core.hosts import Approval, same_commit

NO_APPROVAL = "no approval by a team member who wrote none of its lessons"


@dataclass(frozen=True)
class Verdict:
    """`approver`: the member whose approval lets the PR merge, None when none does; `reason` says
    who approved it, or why no approval counts."""

    approver: str | None
    reason: str


def approval_verdict(
    approvals: Sequence[Approval],
    authors: Collection[str],
    head: str,
    is_member: Callable[[str], bool],
    *,
    opener: str = "",
    merger: str = "",
) -> Verdict:
    """The first approval that counts, or the merger's merge, or why none does. `authors` wrote the
    PR's lessons; `opener` opened it (the host's own rule: nobody approves their own PR); `merger`
    merged it, for a PR already merged (the opener's rule is the host's approval rule, not a merge's)."""
    authors_lowered = {author.lower() for author in authors}
    refused: list[str] = []
    for approval in approvals:
        why = _not_counted(approval, authors_lowered, opener.lower(), head, is_member)
        if not why:
            return Verdict(approval.login, f"approved by {approval.login}")
        refused.append(f"{approval.login} {why}")
    if merger and merger.lower() not in authors_lowered:
        if is_member(merger):
            return Verdict(merger, f"merged by {merger}")
        refused.append(f"{merger} merged it and is not a team member")
    wrote = [f"{', '.join(sorted(authors))} wrote them"] if authors else []
    details = "; ".join([*wrote, *refused])
    return Verdict(None, f"{NO_APPROVAL} ({details})" if details else NO_APPROVAL)


def _not_counted(
    approval: Approval, authors: set[str], opener: str, head: str, is_member: Callable[[str], bool]
) -> str:
    """Why an approval does not count, or ""."""
    login = approval.login.lower()
    if login in authors:
        return "wrote a lesson in it"
    if opener and login == opener:
        return "opened it"
    if not is_member(approval.login):
        return "is not a team member"
    if approval.commit is not None and not same_commit(approval.commit, head):
        return f"approved {approval.commit[:12]}, not its head {head[:12]}"
    return ""
