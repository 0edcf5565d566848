"""Run the Homeostat the KB pins: a session reads the KB with the same version as the team's CI.

The KB's CI files pin one exact version (`homeostat.core.pins`). When the running Homeostat is another
version and the pinned one is installed under the versions folder (`$HOMEOSTAT_VERSIONS_DIR`, else
`$CLAUDE_PLUGIN_DATA/versions`, else `~/.local/share/homeostat/versions`, one `<version>/bin/homeostat`
each), the hook or MCP server hands over to it with `exec`; otherwise it runs itself. Nothing is
downloaded: installing a version is the developer's step (`docs/plugin.md`).
"""

from __future__ import annotations

import os

from homeostat import VERSION
from homeostat.core.type_hints import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

HANDED_OVER = "HOMEOSTAT_PINNED"  # set in the process a hand-over starts, so it never hands over again
CI_FILE_LIMIT = 1_000_000  # a workflow file that names the pin is a few KB


def ci_files(root: Path) -> dict[str, str]:
    """The KB's CI files that can pin a version (GitHub workflows, bitbucket-pipelines.yml)."""
    from homeostat.adapters.plain_files import read_kb_text
    from homeostat.core.pins import CI_FILES

    found: dict[str, str] = {}
    workflows = root / CI_FILES[0]
    candidates = sorted(workflows.glob("*.y*ml")) if workflows.is_dir() else []
    candidates.append(root / CI_FILES[1])
    for path in candidates:
        try:
            rel = path.relative_to(root).as_posix()
            found[rel] = read_kb_text(path, rel, CI_FILE_LIMIT, errors="replace")
        except OSError:
            continue
    return found


def kb_pin(root: Path) -> str | None:
    from homeostat.core.pins import pinned_version

    return pinned_version(ci_files(root))


def versions_dir() -> Path:
    from pathlib import Path

    return Path(_versions_folder())


def _versions_folder() -> str:
    """`versions_dir` as a string: every hook lists it, and pathlib costs a hook more than that."""
    explicit = os.environ.get("HOMEOSTAT_VERSIONS_DIR")
    if explicit:
        return explicit
    data = os.environ.get("CLAUDE_PLUGIN_DATA")
    if data:
        return os.path.join(data, "versions")
    return os.path.join(os.path.expanduser(os.environ.get("HOME", "~")), ".local/share/homeostat/versions")


def pinned_runner(root: str | os.PathLike[str]) -> Path | None:
    """The installed executable of the version the KB pins, when that is not this version.

    Every hook asks, so the common case costs one directory listing: with no other version installed
    there is nothing to hand over to, and the CI files are not read at all."""
    if os.environ.get(HANDED_OVER):
        return None
    try:
        others = [name for name in os.listdir(_versions_folder()) if name != VERSION]
    except OSError:
        return None
    if not others:
        return None
    from pathlib import Path

    from homeostat.core.pins import is_version

    folder = versions_dir()
    pin = kb_pin(Path(root))
    if pin is None or pin == VERSION or not is_version(pin) or pin not in others:
        return None
    runner = folder / pin / "bin" / "homeostat"
    return runner if os.access(runner, os.X_OK) else None


def hand_over(runner: Path, args: list[str], stdin: bytes | None = None) -> None:
    """Replace this process with the pinned Homeostat; `stdin` (already read) is passed on through a
    file. Returns only when the exec failed, and then this version carries on."""
    import tempfile  # only on a hand-over: with shutil and the compressors it costs a hook ~5 ms

    env = {**os.environ, HANDED_OVER: "1"}
    try:
        if stdin is not None:
            with tempfile.TemporaryFile() as handle:
                handle.write(stdin)
                handle.seek(0)
                os.dup2(handle.fileno(), 0)
        os.execve(runner, [str(runner), *args], env)
    except OSError:
        return
