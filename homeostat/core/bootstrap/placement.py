"""Where drafted and imported knowledge goes in the KB: which area, which path, which scope, which URL.

A document or an imported rule belongs to the area of its repo whose path globs cover most of the
files it came from (the repo's first area when none does). A KB without repo folders has one set of
areas for its one code repo.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from homeostat.core.config import Area, Config
from homeostat.core.selection.globs import glob_matches

KNOWLEDGE = "knowledge"
_GLOB_CHARS = "*?[{"


def repo_areas(config: Config, repo: str | None) -> list[tuple[str, Area]]:
    """The areas of `repo` (all areas in a KB without repo folders), with their full names."""
    if not config.repos:
        return config.iter_areas()
    return [(name, area) for name, area in config.iter_areas() if name.startswith(f"{repo}/")]


def area_for_paths(config: Config, repo: str | None, paths: Sequence[str]) -> str:
    """The repo's area covering most of `paths` (ties and no match: the first listed)."""
    areas = repo_areas(config, repo)
    if not areas:
        raise ValueError(f"repo {repo!r} has no areas")
    votes: Counter[str] = Counter()
    for path in paths:
        for name, area in areas:
            if any(glob_matches(glob, path) for glob in area.paths):
                votes[name] += 1
                break
    if not votes:
        return areas[0][0]
    best = max(votes.values())
    return next(name for name, _ in areas if votes[name] == best)


def literal_prefix(glob: str) -> str:
    """`src/api/**/*.py` → `src/api`: the folder every match sits in ('' for `**/*.py`)."""
    cut = min((glob.find(ch) for ch in _GLOB_CHARS if ch in glob), default=-1)
    text = glob if cut < 0 else glob[:cut]
    return text.rsplit("/", 1)[0] if cut >= 0 or "/" in text else ""


def area_for_scope(config: Config, repo: str | None, scope: Sequence[str]) -> str:
    """The area covering a rule's scope, judged by the folders its globs name."""
    samples = [f"{prefix}/x" if (prefix := literal_prefix(glob)) else "" for glob in scope]
    return area_for_paths(config, repo, [s for s in samples if s])


def document_path(area: str, name: str) -> str:
    return f"{KNOWLEDGE}/{area}/docs/{name}.md"


def folder_scope(paths: Sequence[str], limit: int = 10) -> tuple[str, ...]:
    """Globs for the folders `paths` sit in (a top-level file stands for itself), outermost kept."""
    globs: list[str] = []
    for path in sorted(paths, key=lambda p: (p.count("/"), p)):
        glob = f"{path.rsplit('/', 1)[0]}/**" if "/" in path else path
        covered = any(g.endswith("/**") and glob.startswith(g[:-2]) for g in globs)
        if not covered and glob not in globs:
            globs.append(glob)
    return tuple(globs[:limit]) or ("**",)


def file_url(repo_url: str, path: str, host: str = "github") -> str:
    """A file's web address on the default branch (`HEAD` resolves to it on both hosts)."""
    base = repo_url.rstrip("/").removesuffix(".git")
    kind = "src" if host == "bitbucket" or "bitbucket" in base else "blob"
    return f"{base}/{kind}/HEAD/{path}"
