"""One command line: the shared options, the old spellings kept for a release, and each command's
JSON shape (docs/cli.md) pinned key by key, so a script written against it keeps working."""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

import pytest
from gitfixtures import git
from kbfactory import EXAMPLE
from kit import FIXTURES

from homeostat.cli import main


@pytest.fixture
def billing(tmp_path: Path) -> Path:
    work = tmp_path / "billing"
    work.mkdir()
    git(work, "init", "--quiet")
    git(work, "remote", "add", "origin", "https://github.com/example/billing")
    return work


def as_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, object]]:
    code = main([*argv, "--format", "json"])
    out = capsys.readouterr().out
    data = json.loads(out)
    assert isinstance(data, dict), "the top level is always an object"
    assert out.endswith("}\n")
    return code, data


def keys(data: object) -> set[str]:
    assert isinstance(data, dict)
    return set(data)


def test_validate_json(kb: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, data = as_json(capsys, "validate", "--kb", str(kb), "--today", "2026-11-29")
    assert code == 0 and keys(data) == {"ok", "errors", "warnings", "rules", "documents", "findings"}


def test_daily_json(kb: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copytree(EXAMPLE / ".homeostat" / "pending", kb / ".homeostat" / "pending")
    code, data = as_json(capsys, "daily", "--offline", "--kb", str(kb))
    assert code == 0 and keys(data) == {"dryRun", "exitCode", "decisions", "prs", "text"}
    decisions = data["decisions"]
    assert isinstance(decisions, list) and decisions
    assert keys(decisions[0]) == {
        "key",
        "kind",
        "member",
        "title",
        "area",
        "verdict",
        "outcome",
        "reason",
        "target",
        "ruleId",
        "pr",
    }
    assert data["dryRun"] is True and data["exitCode"] == 0 and data["text"]


def test_learn_json(kb: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, data = as_json(
        capsys, "learn", "--kb", str(kb), "--author", "ana", "--area", "core",
        "--title", "Name queues by owner", "--rule", "Prefix queue names with the team.", "--why", "Ownership.",
    )  # fmt: skip
    assert code == 0 and keys(data) == {"path", "written", "lesson"}


def test_learn_from_json(kb: Path, capsys: pytest.CaptureFixture[str]) -> None:
    export = FIXTURES / "memories" / "coderabbit.json"
    code, data = as_json(
        capsys, "learn", "--kb", str(kb), "--author", "ana", "--from", "coderabbit", str(export), "--dry-run"
    )
    assert code == 0 and keys(data) == {"from", "path", "found", "dryRun", "written", "counts", "entries"}
    assert keys(data["counts"]) == {"new", "reconfirms", "pending", "decided", "repeat", "blocked", "skipped"}
    entries = data["entries"]
    assert isinstance(entries, list) and entries
    assert keys(entries[0]) == {"origin", "kind", "title", "area", "topic", "outcome", "detail", "key"}


def test_context_json_and_prompt_json_name_rules_the_same_way(
    kb: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["context", "--kb", str(kb), "--repo", "billing"]
    code, data = as_json(capsys, *base, "--files", "src/billing/api/errors.py")
    assert code == 0 and keys(data) == {
        "text",
        "tokens",
        "chars",
        "rules",
        "sections",
        "cut",
        "notForTheseFiles",
        "compact",
        "budget",
        "task",
    }
    rules = data["rules"]
    assert isinstance(rules, list) and rules and keys(rules[0]) == {"id", "form", "tier"}
    code, data = as_json(capsys, *base, "--prompt", "how do we return error status codes from the api")
    assert keys(data) == {"text", "tokens", "rules", "sections", "newRules", "searched", "reason"}
    assert all(isinstance(rule, dict) and "id" in rule for rule in data["rules"])  # type: ignore[attr-defined]


def test_search_read_docs_explain_json(kb: Path, capsys: pytest.CaptureFixture[str]) -> None:
    scope = ["--kb", str(kb), "--repo", "billing"]
    _, data = as_json(capsys, "search", "money", "minor", "units", *scope)
    assert keys(data) == {"query", "topic", "hits"}
    hits = data["hits"]
    assert isinstance(hits, list) and hits
    assert keys(hits[0]) == {"kind", "id", "title", "area", "topic", "score", "snippet", "rejected"}
    code, data = as_json(capsys, "read", "billing/api/overview", *scope)
    assert code == 0 and keys(data) == {"target", "found", "rules", "sections", "cut", "hint"}
    sections = data["sections"]
    assert isinstance(sections, list)
    assert keys(sections[0]) == {"key", "heading", "source", "updated", "url", "text"}
    code, data = as_json(capsys, "read", "nothing-here", *scope)
    assert code == 1 and data["found"] is False and data["hint"]
    _, data = as_json(capsys, "docs", *scope)
    assert keys(data) == {"documents"}
    documents = data["documents"]
    assert isinstance(documents, list) and keys(documents[0]) == {"id", "title", "area", "sections"}
    code, data = as_json(capsys, "explain", "billing-api-integer-minor-units", *scope)
    assert code == 0 and keys(data) == {
        "id",
        "found",
        "hint",
        "title",
        "file",
        "area",
        "owner",
        "status",
        "kind",
        "scope",
        "source",
        "alsoFrom",
        "dates",
        "approvedBy",
        "score",
        "openFlags",
        "conflicts",
        "forTheseFiles",
    }


def test_report_json(kb: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, data = as_json(capsys, "report", "--kb", str(kb), "--today", "2026-12-01")
    assert {"rules", "byStatus", "validation", "unreadable", "usage"} <= keys(data)
    assert data["usage"] is None  # no event log on this machine: null, not a missing key


def test_export_json(kb: Path, billing: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shape = {
        "repo",
        "formats",
        "rules",
        "check",
        "written",
        "removed",
        "stale",
        "handWritten",
        "kept",
        "leftOut",
        "budgets",
    }
    code, data = as_json(capsys, "export", "--checkout", str(billing), "--kb", str(kb), "--check")
    assert code == 1 and keys(data) == shape | {"overBudget"} and data["stale"]
    code, data = as_json(capsys, "export", "--checkout", str(billing), "--kb", str(kb))
    assert code == 0 and keys(data) == shape and data["written"] and data["stale"] == []


def test_eval_json(kb: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    cases = tmp_path / "cases.yaml"
    cases.write_text(
        "cases:\n  - files: [src/billing/api/errors.py]\n    repo: billing\n    expect: [billing-api-error-status-table]\n"
    )
    code, data = as_json(capsys, "eval", "--kb", str(kb), "--cases", str(cases))
    assert code == 0 and keys(data) == {"cases", "summary", "results"}


def test_bench_json(kb: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """`bench run` with a real call is pinned in tests/plugin/test_bench_claude_code.py; its dry run and the
    report have the same keys."""
    tasks = tmp_path / "tasks.yaml"
    tasks.write_text("tasks:\n  - id: why\n    kind: question\n    prompt: Why?\n    reference: Because.\n")
    out = str(tmp_path / "results")
    code, data = as_json(
        capsys, "bench", "run", "--kb", str(kb), "--tasks", str(tasks), "--out", out, "--dry-run"
    )
    assert code == 0 and keys(data) == {
        "dryRun", "out", "tasks", "repeats", "planned", "alreadyDone", "pending", "done", "left", "stopped",
        "estimateUsd", "correctionsUsd", "calls", "inputTokens", "outputTokens", "cacheCreationTokens",
        "cacheReadTokens", "costUsd", "callsEstimateUsd",
    }  # fmt: skip
    assert data["planned"] == 6 and data["stopped"] is None
    code, data = as_json(capsys, "bench", "report", "--kb", str(kb), "--out", out)
    assert code == 0 and keys(data) == {
        "out", "seed", "resamples", "level", "conditions", "difference", "tasks", "skippedLines",
    }  # fmt: skip
    assert data["difference"] is None and data["tasks"] == []  # no results yet: null and empty, never absent


def test_the_old_spellings_still_work_for_a_release(
    kb: Path, billing: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["search", "money", "--kb", str(kb), "--repo", "billing", "--json"]) == 0
    assert "hits" in json.loads(capsys.readouterr().out)
    assert main(["validate", str(kb), "--today", "2026-11-29"]) == 0
    assert main(["export", str(billing), "--kb", str(kb)]) == 0
    capsys.readouterr()
    assert (
        main(
            [
                "context",
                "--kb",
                str(kb),
                "--repo",
                "billing",
                "--files",
                "src/billing/api/errors.py",
                "web/x.ts",
            ]
        )
        == 0
    )
    assert "(billing-api-error-status-table)" in capsys.readouterr().out


def test_the_old_and_new_spelling_may_not_disagree(
    kb: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["validate", str(tmp_path), "--kb", str(kb)]) == 2
    assert "the KB given twice" in capsys.readouterr().err


def test_files_never_swallows_the_rule_id(kb: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "explain",
            "--kb",
            str(kb),
            "--repo",
            "billing",
            "--files",
            "src/billing/api/errors.py",
            "billing-api-integer-minor-units",
        ]
    )
    assert code == 0 and "for these files: #" in capsys.readouterr().out


def test_a_checkout_that_does_not_exist_is_an_error(
    kb: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for command in (["search", "money"], ["context"], ["export"]):
        with pytest.raises(SystemExit) as exited:
            main([*command, "--kb", str(kb), "--checkout", str(tmp_path / "nowhere")])
        assert exited.value.code == 2
        err = capsys.readouterr().err
        assert "argument --checkout:" in err and "nowhere does not exist" in err, command


def test_every_answering_command_takes_format_json() -> None:
    from homeostat.cli import COMMANDS, build_parser

    protocol = {"mcp", "hook"}  # they speak MCP and Claude Code's hook JSON on stdout
    protocol |= {"dashboard", "up"}  # servers: they answer in a browser, and log to stderr
    missing = []
    for name in COMMANDS:
        if name in protocol:
            continue
        parser = build_parser(name)
        sub = parser._subparsers._group_actions[0].choices[name]  # type: ignore[union-attr]
        for leaf, command in _leaves(sub, name):
            options = {o for action in leaf._actions for o in action.option_strings}
            if "--format" not in options:
                missing.append(command)
    assert missing == []


def _leaves(parser: argparse.ArgumentParser, name: str) -> list[tuple[argparse.ArgumentParser, str]]:
    """A command with actions of its own (`review merge`) answers through each action."""
    nested = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not nested:
        return [(parser, name)]
    return [leaf for a in nested for sub, p in a.choices.items() for leaf in _leaves(p, f"{name} {sub}")]


def test_status_events_metrics_json(kb: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, data = as_json(capsys, "status", "--kb", str(kb))
    assert keys(data) == {
        "kb", "version", "pinned", "pending", "branch", "behind", "ahead", "lastSync", "lastHeartbeat", "notices",
    }  # fmt: skip
    code, data = as_json(capsys, "events", "--kb", str(kb))
    assert code == 0 and data == {"events": []}  # an object even when the log is empty, never a bare list
    _, data = as_json(capsys, "metrics", "--kb", str(kb))
    assert keys(data) == {
        "since", "decisions", "usage", "costByStep", "costByRun", "membersSyncing", "members",
        "repeatLessonRate", "repeats",
    }  # fmt: skip


def test_init_codeowners_doctor_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = tmp_path / "new-kb"
    repo.mkdir()
    git(repo, "init", "--quiet", "--initial-branch=main")
    code, data = as_json(
        capsys, "init", "--kb", str(repo), "--host", "github", "--member", "ana:lead", "--repo",
        "ledger=https://github.com/acme/ledger",
    )  # fmt: skip
    assert code == 0 and keys(data) == {
        "kb",
        "version",
        "host",
        "baseBranch",
        "files",
        "schedules",
        "validateErrors",
    }
    code, data = as_json(capsys, "codeowners", "--kb", str(repo), "--check")
    assert code == 0 and keys(data) == {"path", "stale", "written", "diff"}
    code, data = as_json(capsys, "doctor", "--kb", str(repo))
    assert keys(data) == {"kb", "repo", "version", "checks", "counts", "security"}
    assert data["security"] is None  # without --security: null, not a missing key


def test_the_old_json_flag_is_hidden_everywhere() -> None:
    from homeostat.cli import COMMANDS, build_parser

    for name in COMMANDS:
        if name in ("mcp", "hook"):
            continue
        parser = build_parser(name)
        sub = parser._subparsers._group_actions[0].choices[name]  # type: ignore[union-attr]
        assert "--json" not in sub.format_help(), name


def test_sync_and_events_refuse_a_folder_that_is_no_kb(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "typo"
    for command in ("sync", "events"):
        assert main([command, "--kb", str(missing), "--format", "json"]) == 2
        out, err = capsys.readouterr()
        assert (
            out == ""
            and err == f"homeostat: --kb {missing} does not exist: give the folder of your KB clone\n"
        )
    assert not missing.exists()  # a mistyped --kb makes no folder


def test_a_sync_that_cannot_start_says_so_on_stderr_only(
    kb: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    git(kb, "init", "--quiet")  # a KB with no origin remote cannot sync
    assert main(["sync", "--kb", str(kb), "--format", "json"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("homeostat: sync: ") and "no `origin` remote" in err


def test_help_shows_one_spelling_for_the_kb() -> None:
    from homeostat.cli import build_parser

    for name in ("validate", "init", "export"):
        parser = build_parser(name)
        sub = parser._subparsers._group_actions[0].choices[name]  # type: ignore[union-attr]
        usage = sub.format_usage()
        assert "[DIR]" not in usage and "[PATH]" not in usage and "CHECKOUT" not in usage, name


def test_every_commands_help_gives_examples_that_parse_and_points_at_no_docs_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pip user has no docs/ folder: --help holds examples, each one a command line its parser takes."""
    import shlex

    for folder in ("kb", "ledger", "storefront"):  # the checkouts the examples name, beside the KB
        (tmp_path / folder).mkdir()
    monkeypatch.chdir(tmp_path / "kb")

    from homeostat.cli import COMMANDS, build_parser

    for name in COMMANDS:
        parser = build_parser(name)
        sub = parser._subparsers._group_actions[0].choices[name]  # type: ignore[union-attr]
        text = sub.format_help()
        assert "docs/" not in text and ".md" not in text.replace("AGENTS.md", "").replace("CLAUDE.md", ""), (
            name
        )
        examples = text.split("\nexamples:\n", 1)[1].replace("\\\n", "")
        commands = [shlex.split(line, comments=True) for line in examples.splitlines()]
        commands = [words[words.index("homeostat") + 1 :] for words in commands if "homeostat" in words]
        assert commands, name
        for words in commands:
            words = words[: words.index("<")] if "<" in words else words  # a redirection, not an argument
            line = " ".join(words)
            try:
                build_parser(words[0]).parse_args(words)
            except SystemExit:
                raise AssertionError(f"{name}: the example does not parse: {line}") from None
