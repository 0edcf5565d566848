"""Who reviews the middle band: `team.reviewers`, else the areas' owning teams, else seniors and leads."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from homeostat.core.config import CORE_AREA, Config


@dataclass(frozen=True)
class ReviewerRequest:
    users: tuple[str, ...] = ()
    teams: tuple[str, ...] = ()  # team slugs, for hosts that take team reviewers


def team_slug(handle: str) -> str:
    """`@acme/payments` → `payments`."""
    return handle.lstrip("@").rsplit("/", 1)[-1]


def choose_reviewers(
    config: Config, areas: Iterable[str], author: str, *, team_reviewers: bool
) -> ReviewerRequest:
    """Never the member whose lessons these are, unless nobody else could review them."""
    others = [m for m in config.team.members if m.handle.lower() != author.lower()]
    if config.team.reviewers:
        picked = tuple(h for h in config.team.reviewers if h.lower() != author.lower())
        if picked:
            return ReviewerRequest(users=picked)
    owners: list[str] = []
    for name in sorted(set(areas)):
        area = config.area(name) if name != CORE_AREA else None
        if area is not None and area.owner and area.owner not in owners:
            owners.append(area.owner)
    teams: list[str] = []
    users: list[str] = []
    for owner in owners:
        team = config.team_named(owner)
        if team is not None and team.handle and team_reviewers:
            teams.append(team_slug(team.handle))
        else:
            users += [m.handle for m in others if owner in m.teams and m.handle not in users]
    if teams or users:
        return ReviewerRequest(tuple(users), tuple(teams))
    seniors = tuple(m.handle for m in others if m.role in ("senior", "lead"))
    if seniors:
        return ReviewerRequest(users=seniors)
    return ReviewerRequest(users=tuple(m.handle for m in config.team.members if m.role in ("senior", "lead")))
