"""One module per subcommand: it parses its arguments and calls a typed function in runs/ or core/.

The modules are grouped by what a user does with the command (`GROUPS`); `module_name` says where
each lives, for the entry point (which imports a command's module only when that command runs) and
for `up` (which leaves out a job this install lacks).
"""

from __future__ import annotations

import keyword

# The sub-package of each command's module, by what a user does with it.
GROUPS: dict[str, tuple[str, ...]] = {
    # a developer's clone and coding agent: session hooks, rules for a change, MCP, lessons, sync
    "agent": ("context", "hook", "mcp", "learn", "sync", "status", "events"),
    # reading and checking the KB
    "kb": ("validate", "search", "read", "docs", "explain", "export", "report", "dashboard"),
    # the runs CI schedules, and `up`, which runs them on their schedules
    "ci": ("daily", "deep-dive", "digest", "review", "curate", "up"),
    # measuring the KB and its rule selection
    "measure": ("metrics", "calibrate", "eval", "bench"),
    # setting a KB up and bringing code repos' documents and rule files into it
    "setup": ("init", "doctor", "codeowners", "seed", "bootstrap", "import"),
}
_GROUP = {command: group for group, commands in GROUPS.items() for command in commands}


def module_name(command: str) -> str:
    """The module of a subcommand: `deep-dive` is `ci.deep_dive`, and `import` (a keyword) `setup.import_`.
    A name no group holds is looked up at the package's top (and is then not found)."""
    name = command.replace("-", "_")
    if keyword.iskeyword(name):
        name += "_"
    group = _GROUP.get(command)
    return f"homeostat.commands.{group}.{name}" if group else f"homeostat.commands.{name}"
