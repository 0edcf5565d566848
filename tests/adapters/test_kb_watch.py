"""The MCP server's KB watch: quiet while nothing that makes up the KB's key changes, and not quiet
after any change that does, whichever way it is made."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from homeostat.adapters.kb_watch import KbWatch
from homeostat.adapters.state.event_recorder import log_event

RULE = "knowledge/storefront/ui/use-theme-spacing.md"


def watch(root: Path) -> KbWatch:
    found = KbWatch.start(root)
    if found is None:
        pytest.skip("no inotify on this system: the server works the key out on every call")
    return found


def test_what_is_not_part_of_the_key_leaves_it_quiet(kb: Path) -> None:
    (kb / ".homeostat").mkdir()
    watching = watch(kb)
    assert watching.quiet()
    (kb / "README.md").write_text("notes", encoding="utf-8")
    log_event(kb, "mcp-call", {"tool": "docs"})  # the server's own event journal
    (kb / ".homeostat" / "index").mkdir()
    (kb / ".homeostat" / "index" / "stat.json").write_text("{}", encoding="utf-8")
    (kb / RULE).read_text(encoding="utf-8")  # reading is no change
    assert watching.quiet()
    watching.close()
    assert not watching.quiet()


def _edit(kb: Path) -> None:
    path = kb / RULE
    path.write_text(path.read_text(encoding="utf-8") + "\n", encoding="utf-8")


def _replace(kb: Path) -> None:
    temp = kb / "saved.tmp"
    temp.write_text((kb / RULE).read_text(encoding="utf-8"), encoding="utf-8")
    os.replace(temp, kb / RULE)


def _touch(kb: Path) -> None:
    os.utime(kb / RULE, ns=(1, 1))


def _new_folder(kb: Path) -> None:
    (kb / "knowledge/storefront/ux").mkdir()


def _delete(kb: Path) -> None:
    (kb / RULE).unlink()


def _config(kb: Path) -> None:
    config = kb / "homeostat.yaml"
    config.write_text(config.read_text(encoding="utf-8") + "\n", encoding="utf-8")


def _pending(kb: Path) -> None:
    (kb / ".homeostat" / "pending").mkdir(parents=True)


def _pending_lesson(kb: Path) -> None:
    (kb / ".homeostat" / "pending" / "0a.json").write_text("{}", encoding="utf-8")


def _knowledge_moved(kb: Path) -> None:
    (kb / "knowledge").rename(kb / "old-knowledge")


@pytest.mark.parametrize(
    "change",
    [_edit, _replace, _touch, _new_folder, _delete, _config, _pending, _pending_lesson, _knowledge_moved],
)
def test_any_change_to_what_makes_up_the_key_is_reported(kb: Path, change: Callable[[Path], None]) -> None:
    if change is _pending_lesson:
        (kb / ".homeostat" / "pending").mkdir(parents=True)
    watching = watch(kb)
    assert watching.quiet()
    change(kb)
    assert not watching.quiet()
    assert not watching.quiet()  # it stays changed until the caller sets fresh watches
    watching.close()


def test_a_change_in_a_folder_made_after_the_watches_is_reported_by_the_fresh_ones(kb: Path) -> None:
    first = watch(kb)
    (kb / "knowledge/storefront/ux").mkdir()
    assert not first.quiet()
    first.close()
    fresh = watch(kb)
    assert fresh.quiet()
    (kb / "knowledge/storefront/ux/tidy.md").write_text("x", encoding="utf-8")
    assert not fresh.quiet()
    fresh.close()


def test_a_kb_with_a_symbolic_link_inside_is_not_watched(kb: Path, tmp_path: Path) -> None:
    """A link's target changes where no watch sees it: the server works the key out every call."""
    elsewhere = tmp_path / "shared.md"
    elsewhere.write_text("x", encoding="utf-8")
    (kb / "knowledge/core/shared.md").symlink_to(elsewhere)
    assert KbWatch.start(kb) is None
