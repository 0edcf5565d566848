"""What a command works in, built once by the entry point and handed to it: the KB folder, the KB
read from it, its homeostat.yaml, the environment and where output goes.

Each part is found on first use, not when the workspace is built: a command refuses its own flags
before it looks for a KB, `init` makes the folder it is given, and a session hook reads the corpus
cache, not the KB's files. So every error comes where, and as, it came when each command found the
KB itself (`--kb DIR does not exist`, the unreadable homeostat.yaml line), and a command that needs
none of it pays for none of it.
"""

from __future__ import annotations

from homeostat.core.type_hints import TYPE_CHECKING

if TYPE_CHECKING:  # a session hook builds a workspace too: it imports neither typing nor the options
    from collections.abc import Mapping
    from pathlib import Path
    from typing import TextIO

    from homeostat.core.config import Config
    from homeostat.core.kb import KB


class Workspace:
    """`kb_option` is `--kb` as given (None: $HOMEOSTAT_DIR, else the current folder); `env` the
    environment the command reads its settings from; `out` where its answer goes."""

    def __init__(self, kb_option: str | None, env: Mapping[str, str], out: TextIO) -> None:
        self.kb_option = kb_option
        self.env = env
        self.out = out
        self._root: Path | None = None
        self._kb: KB | None = None
        self._config: Config | None = None

    @classmethod
    def of(cls, args: object, env: Mapping[str, str] | None = None, out: TextIO | None = None) -> Workspace:
        """The workspace of parsed arguments (their `--kb`, when the command has one); the process's
        environment and stdout unless given."""
        import os
        import sys

        kb_option = getattr(args, "kb", None)
        return cls(
            kb_option if isinstance(kb_option, str) else None,
            os.environ if env is None else env,
            sys.stdout if out is None else out,
        )

    @property
    def root(self) -> Path:
        """The KB folder; one that does not exist is refused, naming `--kb` or $HOMEOSTAT_DIR."""
        if self._root is None:
            from pathlib import Path

            from homeostat.cli_options import kb_dir

            self._root = Path(kb_dir(self.kb_option))
        return self._root

    @property
    def kb(self) -> KB:
        """The KB as the working tree holds it, read once."""
        if self._kb is None:
            from homeostat.adapters.kb_files import load_kb_dir

            self._kb = load_kb_dir(self.root)
        return self._kb

    @property
    def config(self) -> Config:
        """homeostat.yaml, for a command that cannot go on without a valid one (all but validate)."""
        if self._config is None:
            self._config = self.kb.require_config()
        return self._config
