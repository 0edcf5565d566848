"""Review PR reviewers from the code repos' own CODEOWNERS (`team.reviewersFrom: codeowners`).

The paths a PR's lessons cover belong to code repos (an area's repo, or the KB's `sources.repos`
without repo folders); each repo's CODEOWNERS is read through the host API (GitHub's contents API,
Bitbucket's src endpoint), once per run, where the host itself reads it. `core.daily.codeowners_lookup`
picks the KB members it names. Anything that leaves nobody to ask (no file, no member among the
owners, a read refused) falls back to the usual choice, and the run says why in one line each.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from homeostat.core.config import CORE_AREA, Config
from homeostat.core.daily.codeowners_lookup import (
    LOCATIONS,
    CodeownersPick,
    OwnerLine,
    parse_codeowners,
    pick_reviewers,
)
from homeostat.core.daily.reviewers import ReviewerRequest
from homeostat.core.hosts import CodeHost, RepoRef, UrlError, parse_repo_url
from homeostat.errors import HomeostatError


@dataclass
class OwnersCache:
    """Each code repo's CODEOWNERS as read this run (None: the repo has none), by full name."""

    files: dict[str, tuple[str, tuple[OwnerLine, ...] | None]] = field(default_factory=dict)


@dataclass(frozen=True)
class CodeownersAnswer:
    """The request (None: fall back to the usual choice) and the lines the run prints about it."""

    request: ReviewerRequest | None
    notes: tuple[str, ...]


def covered_by_repo(config: Config, covered: Mapping[str, Iterable[str]]) -> dict[str, list[str]]:
    """Code repo URL → the globs (of every area in it) the lessons cover. `core` belongs to no repo."""
    out: dict[str, list[str]] = {}
    for area, globs in covered.items():
        if area == CORE_AREA:
            continue
        repo = config.repo_of_area(area)
        urls = [repo.url] if repo is not None else list(config.sources.repos)
        for url in urls:
            kept = out.setdefault(url, [])
            kept += [g for g in globs if g not in kept]
    return out


def codeowners_request(
    host: CodeHost,
    config: Config,
    covered: Mapping[str, Iterable[str]],
    author: str,
    *,
    team_reviewers: bool,
    cache: OwnersCache,
) -> CodeownersAnswer:
    notes: list[str] = []
    files: list[tuple[Sequence[OwnerLine], Sequence[str]]] = []
    read_from: list[str] = []
    for url, globs in sorted(covered_by_repo(config, covered).items()):
        try:
            repo = parse_repo_url(url)
        except UrlError as exc:
            notes.append(f"CODEOWNERS: {exc}")
            continue
        try:
            where, lines = _owners_file(host, repo, cache)
        except HomeostatError as exc:
            notes.append(f"could not read CODEOWNERS of {repo.full_name}: {exc}")
            continue
        if lines is None:
            notes.append(
                f"{repo.full_name} has no CODEOWNERS the token can read ({', '.join(LOCATIONS[host.kind.value])})"
            )
            continue
        files.append((lines, globs))
        read_from.append(f"{repo.full_name}:{where}")
    if not files:
        return CodeownersAnswer(None, (*notes, "reviewers: none from CODEOWNERS; asking the usual reviewers"))
    pick = pick_reviewers(config, files, author, team_reviewers=team_reviewers)
    notes.append(_said(pick, read_from))
    return CodeownersAnswer(None if pick.empty else pick.request, tuple(notes))


def _owners_file(
    host: CodeHost, repo: RepoRef, cache: OwnersCache
) -> tuple[str, tuple[OwnerLine, ...] | None]:
    key = repo.full_name.lower()
    if key not in cache.files:
        found: tuple[str, tuple[OwnerLine, ...] | None] = ("", None)
        for path in LOCATIONS[host.kind.value]:
            text = host.file_text(repo, path)
            if text is not None:
                found = (path, tuple(parse_codeowners(text)))
                break
        cache.files[key] = found
    return cache.files[key]


def _said(pick: CodeownersPick, read_from: Sequence[str]) -> str:
    asked = [*(f"@{u}" for u in pick.request.users), *(f"team {t}" for t in pick.request.teams)]
    text = f"reviewers from {', '.join(read_from)}: " + (", ".join(asked) if asked else "none")
    if pick.skipped:
        text += f"; skipped {', '.join(pick.skipped)} (not KB members)"
    if pick.unowned:
        text += f"; no owner for {', '.join(pick.unowned)}"
    if pick.empty:
        text += "; asking the usual reviewers"
    return text
