"""Run the Homeostat the KB pins: a session reads the KB with the same version as the team's CI.

The KB's CI files pin one exact version (`homeostat.core.setup.pins`). When the running Homeostat is another
version and the pinned one is installed in a versions folder (`$HOMEOSTAT_VERSIONS_DIR`,
`$CLAUDE_PLUGIN_DATA/versions`, `~/.local/share/homeostat/versions`, looked in in that order, one
`<version>/bin/homeostat` each), the hook or MCP server hands over to it with `exec`; otherwise it runs
itself. Every folder is looked in, as the plugin's launcher does: Claude Code always sets
CLAUDE_PLUGIN_DATA, and the documented install is the last folder. Nothing is downloaded: installing a
version is the developer's step (`docs/plugin.md`).
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
    from homeostat.core.setup.pins import CI_FILES

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
    from homeostat.core.setup.pins import pinned_version

    return pinned_version(ci_files(root))


def versions_folders() -> list[str]:
    """The versions folders, in the order they are looked in (strings: every hook lists them, and
    pathlib costs a hook more than that)."""
    folders = []
    explicit = os.environ.get("HOMEOSTAT_VERSIONS_DIR")
    if explicit:
        folders.append(explicit)
    data = os.environ.get("CLAUDE_PLUGIN_DATA")
    if data:
        folders.append(os.path.join(data, "versions"))
    home = os.environ.get("HOME")
    if home:
        folders.append(os.path.join(home, ".local/share/homeostat/versions"))
    return folders


def pinned_runner(root: str | os.PathLike[str]) -> Path | None:
    """The installed executable of the version the KB pins, when that is not this version.

    Every hook asks, so the common case costs a directory listing per folder: with no other version
    installed there is nothing to hand over to, and the CI files are not read at all."""
    if os.environ.get(HANDED_OVER):
        return None
    folders: list[tuple[str, list[str]]] = []
    for folder in versions_folders():
        try:
            others = [name for name in os.listdir(folder) if name != VERSION]
        except OSError:
            continue
        if others:
            folders.append((folder, others))
    if not folders:
        return None
    from pathlib import Path

    from homeostat.core.setup.pins import is_version

    pin = kb_pin(Path(root))
    if pin is None or pin == VERSION or not is_version(pin):
        return None
    for folder, others in folders:
        runner = Path(folder) / pin / "bin" / "homeostat"
        if pin in others and os.access(runner, os.X_OK):
            return runner
    return None


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
