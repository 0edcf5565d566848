"""`validate --base REF`: read the KB at the pull request's base and compare it with the head as
agents get them (`core.measure.agent_impact`).

In CI the base comes from the variables the hosts set for a pull request: GitHub's
`GITHUB_BASE_REF` and Bitbucket's `BITBUCKET_PR_DESTINATION_BRANCH`, both a branch name, read as
`origin/<branch>` (then `<branch>`). A shallow clone has no base branch: the comparison is then
skipped with a note naming the fix, unless `--base` or `--max-budget-growth` asked for it.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from homeostat.adapters.cache.corpus_cache import build_from_kb
from homeostat.adapters.git.plumbing import Git
from homeostat.adapters.kb_files import kb_repository, read_ref
from homeostat.core.cost.tiktoken_count import count_tokens
from homeostat.core.cost.token_counts import TokenCounts
from homeostat.core.export.budget import limits_from
from homeostat.core.kb import KB, load_kb
from homeostat.core.measure.agent_impact import Impact, compare
from homeostat.errors import ConfigError, HomeostatError

BASE_VARIABLES = ("GITHUB_BASE_REF", "BITBUCKET_PR_DESTINATION_BRANCH")
SHALLOW_FIX = (
    "fetch the base branch (actions/checkout: fetch-depth: 0; Bitbucket: clone: depth: full, "
    "then git fetch origin <branch>)"
)


def base_from_env(env: Mapping[str, str]) -> str | None:
    """The pull request's base branch as the CI host names it, or None outside a pull request."""
    for name in BASE_VARIABLES:
        value = env.get(name, "").strip()
        if value:
            return value
    return None


def resolve_base(git: Git, name: str, *, from_env: bool) -> str | None:
    """The ref to read: `name` itself, or for a branch from CI, `origin/<name>` first (a clone has
    the base as a remote-tracking branch). None when nothing resolves to a commit."""
    candidates = [f"origin/{name}", name] if from_env else [name]
    for ref in candidates:
        if git.rev_parse(f"{ref}^{{commit}}") is not None:
            return ref
    return None


def read_base(root: Path, base: str, *, from_env: bool) -> tuple[str, KB]:
    """The KB at the base: (the ref read, the loaded KB). Bad input is one line naming --base."""
    try:
        git, folder = kb_repository(root)
    except HomeostatError as exc:
        raise ConfigError(f"--base {base}: {exc}") from None
    ref = resolve_base(git, base, from_env=from_env)
    if ref is None:
        where = f"origin/{base} nor {base}" if from_env else base
        raise ConfigError(
            f"--base {base}: {where} is not a branch, tag or commit in {git.git_dir}; {SHALLOW_FIX}"
        )
    try:
        files = read_ref(git, ref, folder, whole_repo=False)
    except HomeostatError as exc:
        raise ConfigError(f"--base {base}: {exc}") from None
    kb = load_kb(files, root=str(root))
    if kb.config is None:
        raise ConfigError(
            f"--base {base}: its homeostat.yaml does not load, so there is nothing to compare with"
        )
    return ref, kb


def agent_impact(root: Path, head: KB, base: str, tokens: TokenCounts, *, from_env: bool = False) -> Impact:
    """Compare the head KB (already loaded and checked) with the KB at `base`."""
    if head.config is None:
        raise ConfigError("--base: homeostat.yaml does not load, so what agents get cannot be worked out")
    ref, old = read_base(root, base, from_env=from_env)
    assert old.config is not None
    before, after = build_from_kb(old, counts=tokens), build_from_kb(head, counts=tokens)
    limits = (limits_from(old.config), limits_from(head.config))
    return compare(ref, before, after, count_tokens, limits)
