"""Reviewers from a code repo's own CODEOWNERS (`team.reviewersFrom: codeowners`).

A team that keeps CODEOWNERS in its code repos has already said who knows each folder; a review PR
for a lesson about `src/payments/**` is best read by the people who own `src/payments/`. This reads
that file (text in, values out; the run fetches it through the host API) the way GitHub and
Bitbucket Cloud read it: gitignore-like patterns, the last matching line wins, owners as `@user`,
`@org/team` (Bitbucket: `@workspace/group`, with an optional `:random(2)`-style selector) or an email.

What a lesson covers is its scope's globs; each stands for one path the owners are looked up for,
its wildcards filled in (`src/payments/**` → `src/payments/x`, `**/*.py` → `x.py`), because the KB
never lists the code repo's files. Only KB members are requested (a KB review is the KB's members'
call, whatever else CODEOWNERS names): a handle or email of `team.members`, or a team handle of
`team.teams`; everyone else is skipped and named, so nobody wonders why an owner was not asked.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from homeostat.core.config import Config
from homeostat.core.daily.reviewers import ReviewerRequest, team_slug
from homeostat.core.globs import compile_glob, expand_braces
from homeostat.core.languages import expand_scope

# Where each host reads CODEOWNERS from, in the order it looks.
LOCATIONS = {
    "github": (".github/CODEOWNERS", "CODEOWNERS", "docs/CODEOWNERS"),
    "bitbucket": (".bitbucket/CODEOWNERS",),
}
_SELECTOR = re.compile(r":[a-z_]+(?:\(\d+\))?$")  # Bitbucket's `@{group}:random(2)`


@dataclass(frozen=True)
class OwnerLine:
    pattern: str
    owners: tuple[str, ...]
    matcher: object = field(compare=False, repr=False, default=None)


def parse_codeowners(text: str) -> list[OwnerLine]:
    """The file's rules in order; comments (a `#` at a line's start or after a space) and blank
    lines dropped. A pattern with no owners is kept: it unsets ownership of what it matches."""
    lines: list[OwnerLine] = []
    for raw in text.splitlines():
        line = re.sub(r"(^|\s)#.*$", "", raw).strip()
        if not line or line.startswith("["):  # a GitLab-style section heading is not a rule here
            continue
        pattern, *owners = line.split()
        lines.append(OwnerLine(pattern, tuple(owners), compile_glob(_as_glob(pattern))))
    return lines


def _as_glob(pattern: str) -> str:
    """A CODEOWNERS (gitignore-like) pattern as one of our globs over repo-relative paths: no slash
    but a trailing one matches at any depth; a trailing slash means everything below; a pattern
    naming a folder also owns what is inside it."""
    anchored = pattern.startswith("/") or "/" in pattern.rstrip("/")
    body = pattern.strip("/") or "**"
    if body == "*":
        return "**"
    glob = body if anchored or body.startswith("**") else f"**/{body}"
    if pattern.endswith("/"):
        return f"{glob}/**"
    if pattern.endswith("/*"):  # GitHub: `docs/*` owns docs' own files, not its folders' files
        return glob
    return f"{{{glob},{glob}/**}}"


def owners_of(lines: Sequence[OwnerLine], path: str) -> tuple[str, ...]:
    """The owners of the last line matching the path (none when no line does)."""
    for line in reversed(lines):
        if line.matcher is not None and line.matcher.match(path):  # type: ignore[attr-defined]
            return line.owners
    return ()


def sample_path(glob: str) -> str:
    """One path the glob matches, its wildcards filled in: the path whose owners stand for the glob's."""
    first = expand_braces(glob.removeprefix("./"))[0]
    parts = [p for p in first.split("/") if p and p != "**"] or ["x"]
    filled = [re.sub(r"[*?]+|\[[^\]]*\]", "x", p) for p in parts]
    if first.rstrip("/").endswith("**"):
        filled.append("x")
    return "/".join(filled)


@dataclass(frozen=True)
class CodeownersPick:
    """Who to request, who CODEOWNERS named but is no KB member (`skipped`, as written there), and
    who owns nothing because no line matched (`unowned`: the lesson's globs)."""

    request: ReviewerRequest
    skipped: tuple[str, ...] = ()
    unowned: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        return not self.request.users and not self.request.teams


def pick_reviewers(
    config: Config,
    owners_files: Iterable[tuple[Sequence[OwnerLine], Sequence[str]]],
    author: str,
    *,
    team_reviewers: bool,
) -> CodeownersPick:
    """The KB members CODEOWNERS names for the globs of each code repo (`owners_files`: a repo's
    parsed file and the globs its lessons cover, `lang:` selectors included), never the member whose
    lessons these are. A team handle of `team.teams` is requested as the team where the host takes
    team reviewers, else as its members."""
    table = config.language_table()
    users: list[str] = []
    teams: list[str] = []
    skipped: list[str] = []
    unowned: list[str] = []
    for lines, globs in owners_files:
        for glob in expand_scope(tuple(globs), table):
            owners = owners_of(lines, sample_path(glob))
            if not owners:
                unowned.append(glob)
            for owner in owners:
                found = _member_or_team(config, owner, author, team_reviewers)
                if found is None:
                    if owner not in skipped:
                        skipped.append(owner)
                    continue
                kind, names = found
                target = teams if kind == "team" else users
                target += [n for n in names if n not in target]
    return CodeownersPick(ReviewerRequest(tuple(users), tuple(teams)), tuple(skipped), tuple(unowned))


def _member_or_team(
    config: Config, owner: str, author: str, team_reviewers: bool
) -> tuple[str, tuple[str, ...]] | None:
    """("user", handles) or ("team", slugs) for a KB member or team; None for anyone else. The
    author is dropped here (their own lessons), and is not "skipped": they are a member."""
    token = _SELECTOR.sub("", owner.strip())
    if "@" in token.lstrip("@"):  # an email
        member = next((m for m in config.team.members if m.email and m.email.lower() == token.lower()), None)
        return None if member is None else ("user", _not_author((member.handle,), author))
    handle = token.lstrip("@").strip("{}")
    if "/" in handle:
        team = next(
            (t for t in config.team.teams if t.handle and t.handle.lstrip("@").lower() == handle.lower()),
            None,
        )
        if team is None:
            return None
        if team_reviewers:
            return "team", (team_slug(team.handle),)
        return "user", _not_author(
            tuple(m.handle for m in config.team.members if team.name in m.teams), author
        )
    member = config.member(handle)
    return None if member is None else ("user", _not_author((member.handle,), author))


def _not_author(handles: tuple[str, ...], author: str) -> tuple[str, ...]:
    return tuple(h for h in handles if h.lower() != author.lower())
