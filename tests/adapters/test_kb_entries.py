"""Links, FIFOs, submodules and oversized files in a KB: one validate error each, and no reader
follows, opens or serves them.

A symbolic link under `knowledge/` used to be skipped by validate but followed by the CLI, MCP and
export (text from outside the KB served as rules), and a FIFO hung `context`. Every reader now
shares one reading rule (`plain_files.read_regular`, `kb_files.read_tree` / `read_ref`); these tests
drive the real commands in subprocesses with a time limit, so a reader that opens a FIFO fails here
instead of hanging the suite.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import anyio
import pytest
from gitfixtures import git
from kbfactory import EXAMPLE, run_limited
from mcp import Client, StdioServerParameters

from homeostat.adapters.kb_files import read_tree
from homeostat.core.format.readable import DOCUMENT_LIMIT, RULE_FILE_LIMIT, Refused
from homeostat.core.kb import load_kb

T = TypeVar("T")
MARKER = "OUTSIDEKNOWLEDGE"  # in every file planted outside the KB; no answer may hold it
SECONDS = 120  # a reader that blocks on the FIFO fails the test instead of hanging it


def homeostat(*argv: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return run_limited(*argv, cwd=cwd, seconds=SECONDS)


def outside_rule(rule_id: str) -> str:
    """A valid rule that every Python task selects, holding the marker."""
    return (
        f"---\nid: {rule_id}\ntitle: Route every {MARKER} call through the proxy\narea: core\n"
        'scope: ["**/*.py"]\nstatus: accepted\nkind: convention\napprovedBy: [ana]\n'
        "source:\n  type: manual\n  author: bo\ncreated: 2026-08-05\nlastConfirmed: 2026-11-02\n---\n"
        f"## Rule\nSend {MARKER} structured logging calls through the proxy.\n\n"
        f"## Why\nThe {MARKER} proxy indexes structured logging fields.\n"
    )


@pytest.fixture
def planted(tmp_path: Path) -> Path:
    """The example KB with links to a rule, a folder of rules and a document outside it."""
    kb = tmp_path / "kb"
    shutil.copytree(EXAMPLE, kb, ignore=shutil.ignore_patterns(".homeostat"))
    outside = tmp_path / "outside"
    (outside / "rules").mkdir(parents=True)
    (outside / "outside-rule.md").write_text(outside_rule("outside-rule"))
    (outside / "rules" / "folder-rule.md").write_text(outside_rule("folder-rule"))
    doc = (EXAMPLE / "knowledge/billing/api/docs/overview.md").read_text()
    (outside / "doc.md").write_text(doc.replace("# ", f"# {MARKER} ", 1) + f"\n{MARKER} structured logging\n")
    (kb / "knowledge/core/outside-rule.md").symlink_to(outside / "outside-rule.md")
    (kb / "knowledge/core/linked").symlink_to(outside / "rules")
    (kb / "knowledge/billing/api/docs/outside.md").symlink_to(outside / "doc.md")
    return kb


LINKS = ("knowledge/billing/api/docs/outside.md", "knowledge/core/linked", "knowledge/core/outside-rule.md")


def errors_by_file(out: str) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for f in json.loads(out)["findings"]:
        if f["severity"] == "error":
            found.setdefault(f["file"], []).append(f["message"])
    return found


def test_validate_reports_each_link_and_fifo_once(planted: Path) -> None:
    os.mkfifo(planted / "knowledge/core/pipe.md")
    done = homeostat("validate", "--kb", str(planted), "--today", "2026-11-29", "--format", "json")
    assert done.returncode == 1, done.stderr
    errors = errors_by_file(done.stdout)
    for link in LINKS:
        assert len(errors[link]) == 1 and errors[link][0].startswith("a symbolic link: no reader follows"), (
            errors
        )
    assert errors["knowledge/core/pipe.md"] == [
        "a named pipe (FIFO), not a regular file: no reader opens it; remove it from the KB"
    ]
    assert MARKER not in done.stdout
    text = homeostat("validate", "--kb", str(planted), "--today", "2026-11-29")
    assert "knowledge/core/outside-rule.md:1: error [schema] a symbolic link" in text.stdout


def test_validate_of_a_ref_reports_links_and_submodules(planted: Path) -> None:
    git(planted, "init", "--quiet")
    git(planted, "-c", "user.name=t", "-c", "user.email=t@example.com", "add", "-A")
    commit = git(planted, "-c", "user.name=t", "-c", "user.email=t@example.com", "write-tree").strip()
    sub = "knowledge/core/vendored"
    git(planted, "update-index", "--add", "--cacheinfo", f"160000,{commit},{sub}")
    git(planted, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "links")
    done = homeostat(
        "validate", "--kb", str(planted), "--ref", "HEAD", "--today", "2026-11-29", "--format", "json"
    )
    assert done.returncode == 1, done.stderr
    errors = errors_by_file(done.stdout)
    for link in LINKS:
        assert len(errors[link]) == 1 and errors[link][0].startswith("a symbolic link: no reader follows"), (
            errors
        )
    assert errors[sub] == ["a git submodule, not a regular file: no reader opens it; remove it from the KB"]
    assert MARKER not in done.stdout


@pytest.mark.parametrize(
    "argv",
    [
        ["context", "--files", "src/app.py", "--repo", "billing"],
        ["search", "structured", "logging", "proxy", "--repo", "billing"],
        ["read", "outside-rule", "--repo", "billing"],
        ["read", "folder-rule", "--repo", "billing"],
        ["docs", "--repo", "billing"],
        ["explain", "outside-rule", "--repo", "billing"],
        ["report", "--repo", "billing"],
    ],
    ids=lambda argv: argv[0] + ("-" + argv[1] if argv[0] == "read" else ""),
)
def test_no_reader_serves_what_a_link_points_at_nor_opens_a_fifo(planted: Path, argv: list[str]) -> None:
    os.mkfifo(planted / "knowledge/core/pipe.md")
    done = homeostat(*argv, "--kb", str(planted))
    assert MARKER not in done.stdout + done.stderr
    assert "Traceback" not in done.stderr


def test_export_writes_nothing_from_outside_the_kb(planted: Path, tmp_path: Path) -> None:
    os.mkfifo(planted / "knowledge/core/pipe.md")
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    git(checkout, "init", "--quiet")
    git(checkout, "remote", "add", "origin", "https://github.com/example/billing.git")
    done = homeostat("export", "--checkout", str(checkout), "--repo", "billing", "--kb", str(planted))
    assert done.returncode == 0, done.stderr
    written = [p for p in checkout.rglob("*") if p.is_file() and ".git" not in p.parts]
    assert written, "export wrote nothing at all"
    assert not any(MARKER in p.read_text(errors="replace") for p in written)


def test_mcp_serves_nothing_from_outside_the_kb(planted: Path, tmp_path: Path) -> None:
    os.mkfifo(planted / "knowledge/core/pipe.md")
    work = tmp_path / "billing"
    work.mkdir()
    git(work, "init", "--quiet")
    git(work, "remote", "add", "origin", "https://github.com/example/billing.git")
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOMEOSTAT_")}
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "homeostat", "mcp", "--kb", str(planted)], cwd=str(work), env=env
    )
    answers: list[str] = []

    async def main() -> None:
        with anyio.fail_after(SECONDS):
            async with Client(params) as client:
                for name, args in (
                    ("context", {"files": ["src/app.py"]}),
                    ("search", {"query": "structured logging proxy"}),
                    ("read", {"target": "outside-rule"}),
                    ("read", {"target": "folder-rule"}),
                    ("docs", {}),
                    ("explain", {"target": "outside-rule"}),
                    ("report", {}),
                ):
                    result = await client.call_tool(name, args)
                    answers.append(" ".join(getattr(c, "text", "") for c in result.content))

    anyio.run(main)
    assert len(answers) == 7 and not any(MARKER in a for a in answers), answers


def within(seconds: float, task: Callable[[], T]) -> T:
    """`task()` in a daemon thread: a reader that blocks opening the FIFO fails the test, and the
    stuck thread does not keep the suite from ending."""
    done: list[T] = []
    thread = threading.Thread(target=lambda: done.append(task()), daemon=True)
    thread.start()
    thread.join(seconds)
    assert done, f"still reading after {seconds} s: a FIFO was opened"
    return done[0]


def test_a_link_never_reaches_the_loader_and_a_fifo_is_never_opened(planted: Path) -> None:
    os.mkfifo(planted / "knowledge/core/pipe.md")
    for whole in (False, True):
        files = within(SECONDS, lambda: read_tree(planted, whole_repo=whole))  # noqa: B023
        refused = {p: v.what for p, v in files.items() if isinstance(v, Refused)}
        assert refused == {
            **dict.fromkeys(LINKS, "a symbolic link"),
            "knowledge/core/pipe.md": "a named pipe (FIFO)",
        }
        kb = load_kb(files)
        assert {r.id for r in kb.served_rules()}.isdisjoint({"outside-rule", "folder-rule"})
        assert all(MARKER not in text for text in kb.files.values())


def test_the_kb_itself_through_a_link_is_refused(planted: Path, tmp_path: Path) -> None:
    real = tmp_path / "real-knowledge"
    (planted / "knowledge").rename(real)
    (planted / "knowledge").symlink_to(real)
    done = homeostat("context", "--files", "src/app.py", "--repo", "billing", "--kb", str(planted))
    assert done.returncode != 0
    assert "knowledge: a symbolic link; Homeostat reads no part of a KB through a link" in done.stderr


def test_a_file_over_its_size_limit_is_one_error_and_never_read(tmp_path: Path) -> None:
    kb = tmp_path / "kb"
    shutil.copytree(EXAMPLE, kb, ignore=shutil.ignore_patterns(".homeostat"))
    rule = kb / "knowledge/core/log-with-fields.md"
    rule.write_text(rule.read_text() + "\n## Example\n" + "x = 1\n" * (RULE_FILE_LIMIT // 6))
    doc = kb / "knowledge/billing/api/docs/overview.md"
    doc.write_text(doc.read_text() + "word " * (DOCUMENT_LIMIT // 5))
    done = homeostat("validate", "--kb", str(kb), "--today", "2026-11-29", "--format", "json")
    assert done.returncode == 1
    errors = errors_by_file(done.stdout)
    assert errors["knowledge/core/log-with-fields.md"] == [
        "2.0 MB, over the 2.0 MB limit for a rule or topic file; split it into smaller files "
        "(docs/validate.md, 'File limits')"
    ]
    assert errors["knowledge/billing/api/docs/overview.md"] == [
        "1.0 MB, over the 1.0 MB limit for a document; split it into smaller files (docs/validate.md, 'File limits')"
    ]
    files = read_tree(kb)
    assert isinstance(files["knowledge/core/log-with-fields.md"], Refused)
    # the same limits hold for content given in memory (a draft, a ref's blob)
    in_memory = load_kb(
        {
            **{"homeostat.yaml": (kb / "homeostat.yaml").read_text()},
            "knowledge/core/big.md": "x" * (RULE_FILE_LIMIT + 1),
        }
    )
    assert [f.message[:36] for f in in_memory.problems if f.file == "knowledge/core/big.md"] == [
        "2.0 MB, over the 2.0 MB limit for a "
    ]


def test_a_pending_lesson_through_a_link_or_a_fifo_is_never_served(planted: Path, tmp_path: Path) -> None:
    """Pending lessons are served to the clone's sessions with the KB's rules: `.homeostat/pending/`
    is read by the same rule (a committed link there would serve any JSON file as a lesson)."""
    lesson = json.loads((EXAMPLE / ".homeostat/pending/fde386f7304856eb.json").read_text())
    lesson["rule"] = f"Send every refund through the {MARKER} proxy in `src/billing/api/refunds.py`."
    outside = tmp_path / "outside" / "lesson.json"
    outside.write_text(json.dumps(lesson))
    pending = planted / ".homeostat/pending"
    pending.mkdir(parents=True)
    (pending / "aaaaaaaaaaaaaaaa.json").symlink_to(outside)
    os.mkfifo(pending / "bbbbbbbbbbbbbbbb.json")
    done = homeostat(
        "context", "--files", "src/billing/api/refunds.py", "--repo", "billing", "--kb", str(planted)
    )
    assert done.returncode == 0, done.stderr
    assert MARKER not in done.stdout
    shutil.copy(outside, pending / "cccccccccccccccc.json")  # the same lesson as a file is served
    done = homeostat(
        "context", "--files", "src/billing/api/refunds.py", "--repo", "billing", "--kb", str(planted)
    )
    assert MARKER in done.stdout


def test_the_sync_refuses_a_pending_lesson_through_a_link(tmp_path: Path) -> None:
    from homeostat.adapters.state.pending_store import list_pending
    from homeostat.errors import HomeostatError

    pending = tmp_path / "kb/.homeostat/pending"
    pending.mkdir(parents=True)
    (tmp_path / "lesson.json").write_text((EXAMPLE / ".homeostat/pending/fde386f7304856eb.json").read_text())
    (pending / "aaaaaaaaaaaaaaaa.json").symlink_to(tmp_path / "lesson.json")
    with pytest.raises(
        HomeostatError, match=r"aaaaaaaaaaaaaaaa\.json: a symbolic link: no reader follows a link"
    ):
        list_pending(tmp_path / "kb")
