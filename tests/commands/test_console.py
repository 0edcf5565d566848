"""What commands say on stderr along the way: progress at a terminal and in CI, counted nouns."""

from __future__ import annotations

import io
import logging
import shutil
from pathlib import Path

import pytest
from kbfactory import EXAMPLE

from homeostat.cli import main
from homeostat.console import Progress
from homeostat.core.text import plural


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_in_a_log_progress_is_plain_lines_and_only_for_long_work(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    log = io.StringIO()
    with Progress("reading the KB", stream=log, delay=0, every=0) as progress:
        for done in range(1, 4):
            progress.update(done, 3)
    lines = log.getvalue().splitlines()
    assert lines[0].startswith("homeostat: reading the KB: 1/3 (")
    assert lines[-1].startswith("homeostat: reading the KB: 3/3 done (")
    assert "\r" not in log.getvalue()
    quick = io.StringIO()
    with Progress("reading the KB", stream=quick) as progress:  # the default delay: a second
        progress.update(1, 1)
    assert quick.getvalue() == ""


def test_at_a_terminal_progress_is_one_redrawn_bar(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    screen = Terminal()
    progress = Progress("building the search index", 4, stream=screen, delay=0)
    progress._last = -1.0  # draw every update
    progress.update(2)
    progress.finish()
    text = screen.getvalue()
    assert text.startswith("\rhomeostat: building the search index [############------------] 2/4")
    assert text.endswith("[########################] 4/4 done\x1b[K\n")


def test_ci_gets_lines_even_from_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    assert Progress("x", stream=Terminal()).bar is False


def test_counts_read_as_english() -> None:
    assert (plural(1, "file"), plural(2, "file"), plural(0, "rule")) == ("1 file", "2 files", "0 rules")


def test_verbose_works_after_the_command_too(capsys: pytest.CaptureFixture[str], tmp_path) -> None:  # type: ignore[no-untyped-def]
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    root.handlers.clear()
    try:
        code = main(["report", "--kb", str(tmp_path / "nowhere"), "-v"])
        assert code == 2 and "does not exist" in capsys.readouterr().err
        assert root.level == logging.INFO
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)


@pytest.mark.parametrize(
    ("argv", "label"),
    [
        (["validate"], "homeostat: validating: "),
        (["context", "--repo", "billing", "--files", "app.py"], "homeostat: building the search index: "),
        (["report"], "homeostat: reading the KB: "),
        (["daily", "--offline"], "homeostat: reading the KB: "),
    ],
)
def test_commands_that_can_take_long_show_progress_in_a_log(
    argv: list[str],
    label: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The wiring, not the timing: with no delay, each long step says what it does, as CI would see it."""
    kb = tmp_path / "kb"
    shutil.copytree(EXAMPLE, kb, ignore=shutil.ignore_patterns("index", "events.db"))
    monkeypatch.setenv("CI", "true")
    monkeypatch.setitem(Progress.__init__.__kwdefaults__, "delay", 0.0)
    monkeypatch.setitem(Progress.__init__.__kwdefaults__, "every", 0.0)
    main([*argv, "--kb", str(kb)])
    out, err = capsys.readouterr()
    assert label in err and label not in out
