"""A KB file that cannot be read never vanishes silently, and never takes anything with it.

Readers (context, search, read, export, learn, explain, report) leave a broken or schema-failing file
out and say so on stderr; `export` keeps what a broken rule exported; `read` caps what it prints; a
pending lesson the KB already holds is served once.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gitfixtures import git

from homeostat.cli import main
from homeostat.core.kb import load_kb
from homeostat.core.render.read import READ_TOKEN_LIMIT

RULE = "knowledge/core/log-with-fields.md"
NOTE = "homeostat: 1 KB file could not be read and is left out (knowledge/core/log-with-fields.md:4: "


def break_rule(kb: Path) -> None:
    path = kb / RULE
    path.write_text(path.read_text().replace("title: Log with", "title: [Log with"))


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_readers_say_what_they_left_out(kb: Path, capsys: pytest.CaptureFixture[str]) -> None:
    break_rule(kb)
    for argv in (
        ["context", "--files", "app.py"],
        ["search", "structured", "fields"],
        ["docs"],
        ["read", "log-with-fields"],
        ["explain", "log-with-fields"],
    ):
        code, out, err = run(capsys, *argv, "--kb", str(kb), "--repo", "billing")
        assert err.count(NOTE) == 1, (argv, err)
        assert "(log-with-fields)" not in out
    _, _, err = run(capsys, "daily", "--offline", "--kb", str(kb))
    assert err.count(NOTE) == 1, err  # the daily run says it too: it would decide against a KB without it
    code, out, _ = run(capsys, "explain", "log-with-fields", "--kb", str(kb), "--repo", "billing")
    assert code == 1 and out.startswith(
        "Rule 'log-with-fields' cannot be read (knowledge/core/log-with-fields.md:4"
    )


def test_learn_update_of_a_broken_rule_says_its_file_cannot_be_read(
    kb: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    break_rule(kb)
    code, _, err = run(
        capsys, "learn", "--kb", str(kb), "--author", "ana", "--update", "log-with-fields", "--why", "x"
    )
    assert code == 2
    assert "--update 'log-with-fields': its file cannot be read (knowledge/core/log-with-fields.md:4:" in err
    assert "no such rule" not in err


def test_report_counts_unreadable_files(kb: Path, capsys: pytest.CaptureFixture[str]) -> None:
    break_rule(kb)
    code, out, _ = run(capsys, "report", "--kb", str(kb), "--today", "2026-12-01")
    assert (
        code == 0
        and "Unreadable, left out of what agents read: 1 (knowledge/core/log-with-fields.md:4:" in out
    )
    code, out, _ = run(capsys, "report", "--kb", str(kb), "--today", "2026-12-01", "--format", "json")
    assert json.loads(out)["unreadable"][0].startswith("knowledge/core/log-with-fields.md:4: frontmatter")


def test_export_keeps_the_files_of_a_rule_that_fails_to_parse(
    tmp_path: Path, kb: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = tmp_path / "billing"
    repo.mkdir()
    git(repo, "init", "--quiet")
    git(repo, "remote", "add", "origin", "https://github.com/example/billing")
    assert main(["export", "--checkout", str(repo), "--kb", str(kb)]) == 0
    exported = sorted(p.relative_to(repo).as_posix() for p in repo.rglob("*log-with-fields*"))
    assert len(exported) == 3
    break_rule(kb)
    capsys.readouterr()
    code, out, err = run(capsys, "export", "--checkout", str(repo), "--kb", str(kb), "--check")
    assert "log-with-fields" not in out and NOTE in err
    assert main(["export", "--checkout", str(repo), "--kb", str(kb)]) == 0
    assert sorted(p.relative_to(repo).as_posix() for p in repo.rglob("*log-with-fields*")) == exported
    (kb / RULE).unlink()  # gone for real: now its files go
    assert main(["export", "--checkout", str(repo), "--kb", str(kb)]) == 0
    assert not list(repo.rglob("*log-with-fields*"))


def test_a_rule_that_fails_the_schema_is_not_served(kb: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = kb / RULE
    words = " ".join(f"word{i}" for i in range(70))
    path.write_text(path.read_text().replace("## Why\n", f"{words}\n\n## Why\n"))
    code, out, err = run(capsys, "search", "structured", "fields", "--kb", str(kb), "--repo", "billing")
    assert "(log-with-fields)" not in out
    assert "Rule has 8" in err and "(limit 60)" in err
    kb_loaded = load_kb({p.relative_to(kb).as_posix(): p.read_bytes() for p in kb.rglob("*") if p.is_file()})
    assert kb_loaded.rule("log-with-fields") is not None  # validate still sees and reports it
    assert "log-with-fields" not in {r.id for r in kb_loaded.served_rules()}


def test_a_bad_section_in_a_topic_file_leaves_only_that_rule_out(
    kb: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = kb / "knowledge/billing/api/money.md"
    text = path.read_text()
    assert text.count("## ") > 2
    path.write_text(text.replace("status: accepted", "status: acepted", 1))
    loaded = load_kb({p.relative_to(kb).as_posix(): p.read_bytes() for p in kb.rglob("*") if p.is_file()})
    [broken] = loaded.unreadable
    assert broken.file == "knowledge/billing/api/money.md" and len(broken.ids) == 1
    served = {r.id for r in loaded.served_rules()}
    assert broken.ids[0] not in served


def test_read_caps_what_it_prints(kb: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = kb / RULE
    # 1.7 MB: under the 2 MB limit for a rule file (core.format.readable), so read has it all to cut
    path.write_text(path.read_text() + "\n## Example\n" + "log.info('x', a=1)\n" * 90_000)
    code, out, _ = run(capsys, "read", "log-with-fields", "--kb", str(kb), "--repo", "billing")
    assert code == 0
    assert out.rstrip().endswith(f"(cut at {READ_TOKEN_LIMIT} tokens; read a section)")
    assert len(out) < READ_TOKEN_LIMIT * 5


def test_a_pending_lesson_the_kb_already_holds_is_served_once(
    kb: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, _ = run(
        capsys,
        "learn",
        "--kb",
        str(kb),
        "--author",
        "bo",
        "--area",
        "core",
        "--title",
        "Log with structured fields, not formatted strings",
        "--rule",
        'Pass values to the logger as fields (`log.info("invoice.paid", invoice_id=iid)`), never inside a '
        "formatted message.",
        "--why",
        "The log pipeline indexes fields.",
    )
    assert code == 0
    code, out, _ = run(capsys, "context", "--kb", str(kb), "--repo", "billing", "--files", "app.py")
    assert "(log-with-fields)" in out and "pending" not in out


def test_explain_knows_a_pending_lesson_that_context_serves(
    kb: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    learn = ["learn", "--kb", str(kb), "--author", "bo", "--area", "core"]
    code, out, _ = run(
        capsys,
        *learn,
        "--title",
        "Name queues by owner",
        "--rule",
        "Prefix queue names with the team.",
        "--why",
        "Ownership.",
    )
    assert code == 0
    code, out, _ = run(
        capsys, "search", "queue", "names", "--kb", str(kb), "--repo", "billing", "--format", "json"
    )
    [hit] = [h for h in json.loads(out)["hits"] if h["id"].startswith("pending-")]
    code, out, _ = run(capsys, "explain", hit["id"], "--kb", str(kb), "--repo", "billing")
    assert code == 0 and out.startswith(f"{hit['id']}: Name queues by owner")
    assert "status: pending: a lesson in this clone's .homeostat/pending/" in out
