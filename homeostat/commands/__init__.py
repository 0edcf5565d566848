"""One module per subcommand: it parses its arguments and calls a typed function in runs/ or core/.

`module_name` says where each command's module lives, for the entry point (which imports a command's
module only when that command runs) and for `up` (which leaves out a job this install lacks).
"""

from __future__ import annotations

import keyword


def module_name(command: str) -> str:
    """The module of a subcommand: `deep-dive` is `deep_dive`, and `import` (a keyword) `import_`."""
    name = command.replace("-", "_")
    return f"homeostat.commands.{name}_" if keyword.iskeyword(name) else f"homeostat.commands.{name}"
