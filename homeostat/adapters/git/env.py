"""The environment every git child process runs under, for each of our git runners alike.

A calling git (a hook, `git rebase --exec`, a worktree's checkout) exports variables that point a
child git at its own repository, index or object store; inherited, they would send our commands
there instead. Each runner (`git.Git`, `git.work_tree_files`, `work_tree`, the corpus cache's
`corpus_cache._git`, the bench worktree's diff) starts from `git_env`, so the list is one and cannot
drift. Only `os` is imported: the session hook's corpus check uses this too.
"""

from __future__ import annotations

import os

# What a calling git may export that redirects a child git to another repository's data.
REPO_VARIABLES = frozenset(
    {
        "GIT_DIR",
        "GIT_WORK_TREE",
        "GIT_INDEX_FILE",
        "GIT_OBJECT_DIRECTORY",
        "GIT_ALTERNATE_OBJECT_DIRECTORIES",
        "GIT_NAMESPACE",
        "GIT_PREFIX",
        "GIT_COMMON_DIR",
    }
)
# Error text in English (runners match it), and never a prompt for credentials.
_PLAIN = {"LC_ALL": "C", "LANG": "C", "GIT_TERMINAL_PROMPT": "0"}


def git_env(**extra: str) -> dict[str, str]:
    """This process's environment without `REPO_VARIABLES`, in the C locale, never prompting, plus `extra`."""
    env = {k: v for k, v in os.environ.items() if k not in REPO_VARIABLES}
    env.update(_PLAIN)
    env.update(extra)
    return env
