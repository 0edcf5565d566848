"""Who is asking: the member and repo a session serves, and which areas they see."""

from __future__ import annotations

from collections.abc import Callable

from homeostat.core.members import member_for
from homeostat.core.records import Record
from homeostat.core.selection.corpus import Corpus
from homeostat.core.selection.entries import CORE, MemberInfo
from homeostat.core.type_hints import TYPE_CHECKING

if TYPE_CHECKING:
    pass


class Audience(Record):
    """The session's repo (None: unknown, so only core in a KB with repo folders) and member."""

    repo: str | None
    member: str | None = None
    teams: frozenset[str] = frozenset()

    def sees(self, area: str, corpus: Corpus) -> bool:
        """Own repo plus core; another team's team-only area never."""
        if area != CORE and corpus.multi_repo:
            if self.repo is None or not area.startswith(f"{self.repo}/"):
                return False
        info = corpus.areas.get(area)
        return info is None or not info.team_only or info.owner in self.teams


def visibility(corpus: Corpus, audience: Audience) -> Callable[[str], bool]:
    """`audience.sees(area, corpus)`, worked out once per area: a message or a search over a large KB
    asks for thousands of rules of a few dozen areas."""
    seen: dict[str, bool] = {}

    def sees(area: str) -> bool:
        found = seen.get(area)
        if found is None:
            found = seen[area] = audience.sees(area, corpus)
        return found

    return sees


def find_member(
    corpus: Corpus, *, handle: str | None, email: str | None, name: str | None
) -> MemberInfo | None:
    """HOMEOSTAT_MEMBER (a handle) first, then the git email, then the git name as handle or name."""
    return member_for(corpus.members, handle=handle, email=email, name=name)


def audience_for(corpus: Corpus, repo: str | None, member: MemberInfo | None) -> Audience:
    if member is None:
        return Audience(repo)
    return Audience(repo, member.handle, frozenset(member.teams))
