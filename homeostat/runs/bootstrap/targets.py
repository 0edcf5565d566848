"""Which code repo a checkout is, and where bootstrap finds each repo's checkout.

The repo comes from the checkout's `origin` (else its folder name) matched against homeostat.yaml,
or from `--repo` when a person names it; a checkout that matches no repo of a KB with repo folders is
an error, not a quiet guess. `bootstrap --checkouts DIR` takes folders that are checkouts or hold
checkouts (one level down), so `~/src` with `~/src/billing` and `~/src/storefront` finds both.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from homeostat.adapters.git.plumbing import Git
from homeostat.adapters.source_reader import require_checkout
from homeostat.core.bootstrap.pickers import TOPICS
from homeostat.core.config import Config
from homeostat.core.safety.secrets import redact_secrets
from homeostat.core.selection.session_repo import session_repo
from homeostat.errors import ConfigError
from homeostat.runs.bootstrap.plan import SeedTarget


def _origin(checkout: Path) -> str | None:
    return Git(checkout).remote_url("origin") if (checkout / ".git").exists() else None


def target_for(
    config: Config, checkout: Path, repo: str | None, topics: Sequence[str] = TOPICS, *, docs: bool = False
) -> SeedTarget:
    """The repo `checkout` holds, as homeostat.yaml names it."""
    require_checkout(checkout)
    names = [r.name for r in config.repos]
    if repo is not None and config.repos and repo not in names:
        raise ConfigError(f"--repo {repo!r} is not a repo in homeostat.yaml (repos: {', '.join(names)})")
    if not config.repos:  # one set of areas for the KB's one code repo
        url = config.sources.repos[0] if config.sources.repos else ""
        return SeedTarget(repo or checkout.resolve().name, None, checkout, url, tuple(topics), docs)
    name = repo or session_repo(
        [(r.name, r.url) for r in config.repos], _origin(checkout), checkout.resolve().name
    )
    if name is None:
        # a CI clone's origin may carry its token (https://x-access-token:…@host/…): never print it
        where = redact_secrets(_origin(checkout) or "")[0] or f"folder {checkout.resolve().name!r}"
        raise ConfigError(
            f"{checkout}: its origin ({where}) matches no repo in homeostat.yaml (repos: {', '.join(names)}); "
            "pass --repo NAME"
        )
    info = next(r for r in config.repos if r.name == name)
    return SeedTarget(name, name, checkout, info.url, tuple(topics), docs)


def _checkouts_in(folder: Path) -> list[Path]:
    if (folder / ".git").exists():
        return [folder]
    return [child for child in sorted(folder.iterdir()) if child.is_dir() and (child / ".git").exists()]


def find_targets(
    config: Config, folders: Sequence[Path], topics: Sequence[str], kb_root: Path
) -> tuple[list[SeedTarget], list[str]]:
    """A target per repo of homeostat.yaml with a checkout in `folders`, and a note per repo without."""
    found: dict[str, Path] = {}
    kb = kb_root.resolve()
    for folder in folders:
        for checkout in _checkouts_in(folder):
            if checkout.resolve() == kb:
                continue
            if not config.repos:
                found.setdefault(checkout.resolve().name, checkout)
                continue
            name = session_repo(
                [(r.name, r.url) for r in config.repos], _origin(checkout), checkout.resolve().name
            )
            if name is not None:
                found.setdefault(name, checkout)
    if not config.repos:
        if len(found) != 1:
            raise ConfigError(
                "this KB has no repo folders (no repos: in homeostat.yaml), so bootstrap seeds one code repo: "
                f"pass its checkout with --checkouts DIR (found {len(found)})"
            )
        name, checkout = next(iter(found.items()))
        return [target_for(config, checkout, name, topics, docs=True)], []
    targets: list[SeedTarget] = []
    notes: list[str] = []
    looked = ", ".join(str(f) for f in folders)
    excluded = set(config.sources.exclude_repos)
    for repo in config.repos:
        if repo.exclude or repo.name in excluded or repo.url in excluded:
            notes.append(f"{repo.name}: skipped, the repo is excluded in homeostat.yaml")
        elif repo.name in found:
            targets.append(SeedTarget(repo.name, repo.name, found[repo.name], repo.url, tuple(topics), True))
        else:
            notes.append(
                f"{repo.name}: no checkout found in {looked} (clone {repo.url} there, or pass --checkouts)"
            )
    return targets, notes
