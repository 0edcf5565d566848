"""`homeostat learn --from`: Claude Code's auto memory and CodeRabbit's learnings, imported as pending
lessons that the daily run decides like any other.

The samples in tests/fixtures/memories are written in the shapes the real tools write (see its
README); one test runs the real Claude Code CLI (where it is installed) to check that the folder read
is the one it reads.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from dailyworld import DailyWorld
from gitfixtures import git
from kbfactory import stderr_errors
from kit import FIXTURES
from ptykit import at_a_terminal

from homeostat.adapters.git.plumbing import Git
from homeostat.cli import main
from homeostat.core.imports.claude_memory import memory_place, project_key, read_memories
from homeostat.core.imports.memories import EntryTooLong, fit
from homeostat.core.pending import PendingLesson
from homeostat.core.state.branch import DecisionRecord, DecisionsFile, LessonSource, dump_state
from runs.test_sync import developer_clone, homeostat, sync

SAMPLES = FIXTURES / "memories"
CLAUDE_SAMPLE = SAMPLES / "claude"

# The sample's entries and what becomes of each (the numbers in docs/capture.md).
CLAUDE_COUNTS = {
    "new": 10,
    "reconfirms": 2,
    "pending": 0,
    "decided": 0,
    "repeat": 0,
    "blocked": 2,
    "skipped": 2,
}
CSV_COUNTS = {"new": 10, "reconfirms": 3, "pending": 0, "decided": 0, "repeat": 1, "blocked": 2, "skipped": 2}
JSON_COUNTS = {"new": 8, "reconfirms": 2, "pending": 0, "decided": 0, "repeat": 0, "blocked": 1, "skipped": 1}


@pytest.fixture
def kb(kb: Path) -> Path:
    git(kb, "init", "--quiet")
    return kb


def billing_checkout(parent: Path) -> Path:
    """A checkout of example/billing, as a developer has it."""
    work = parent / "billing"
    (work / "src").mkdir(parents=True)
    git(work, "init", "--quiet")
    git(work, "remote", "add", "origin", "https://github.com/example/billing.git")
    return work


def memory_folder(checkout: Path, sample: Path = CLAUDE_SAMPLE) -> Path:
    """The sample copied where Claude Code keeps the checkout's auto memory (the docs' default)."""
    folder = (
        Path(os.environ["HOME"]) / ".claude" / "projects" / project_key(str(checkout.resolve())) / "memory"
    )
    shutil.copytree(sample, folder, ignore=shutil.ignore_patterns("README.md"))
    return folder


def learn_from(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any]]:
    code = main(["learn", *argv, "--format", "json"])
    out = capsys.readouterr().out
    return code, json.loads(out) if out.strip() else {}


def from_memory(kb: Path, checkout: Path, *extra: str) -> list[str]:
    """`learn`'s arguments importing the checkout's memory into `kb`, as bo."""
    return ["--kb", str(kb), "--author", "bo", "--from", "claude-memory", "--checkout", str(checkout), *extra]


def pending(kb: Path) -> list[PendingLesson]:
    return [
        PendingLesson.from_json(p.read_text()) for p in sorted((kb / ".homeostat/pending").glob("*.json"))
    ]


def by_origin(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        row["origin"].rsplit(":", 1)[0] + ":" + row["origin"].rsplit(":", 1)[1]: row
        for row in data["entries"]
    }


# --- Claude Code's auto memory ----------------------------------------------------------------------


def test_the_project_memory_is_previewed_then_written_as_pending_lessons(
    kb: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    checkout = billing_checkout(tmp_path)
    memory_folder(checkout)
    argv = from_memory(kb, checkout / "src")
    code, preview = learn_from(capsys, *argv, "--dry-run")
    assert code == 0 and preview["dryRun"] and preview["written"] == 0 and not (kb / ".homeostat").exists()
    assert preview["counts"] == CLAUDE_COUNTS
    rows = {row["origin"].split(":")[0]: row for row in preview["entries"]}
    assert rows["user_role.md"]["outcome"] == "skipped" and "user memory" in rows["user_role.md"]["detail"]
    assert rows["feedback_currency_owner.md"]["outcome"] == "blocked"
    assert "personal data" in rows["feedback_currency_owner.md"]["detail"]
    assert rows["feedback_run_migrations.md"]["outcome"] == "blocked"
    assert "piped-shell" in rows["feedback_run_migrations.md"]["detail"]
    assert rows["feedback_minor_units.md"]["detail"].startswith(
        "repeats rule billing-api-integer-minor-units"
    )
    assert rows["feedback_log_fields.md"]["outcome"] == "reconfirms"
    assert rows["feedback_currency_owner.md"]["area"] == "billing/db"  # it names `migrations/`
    assert rows["team/feedback_idempotency_keys.md"]["outcome"] == "new"

    code, written = learn_from(capsys, *argv, "--yes")
    assert code == 0 and written["written"] == 12
    lessons = pending(kb)
    assert len(lessons) == 12 and {lesson.source for lesson in lessons} == {"claude-memory"}
    assert {lesson.author for lesson in lessons} == {"bo"}
    texts = " ".join(lesson.model_dump_json() for lesson in lessons)
    assert "northwind-pay" not in texts and "get.example.dev" not in texts and "Ten years" not in texts
    retries = next(lesson for lesson in lessons if "withRetry" in lesson.rule)
    assert len(retries.rule.split()) <= 60 and "nightly failover" in retries.why  # moved, not lost
    tests = next(lesson for lesson in lessons if "real Postgres" in lesson.rule)
    assert "mocked tests passed" in tests.why and "How to apply: When adding" in tests.why

    code, again = learn_from(capsys, *argv, "--yes")
    assert code == 0 and again["written"] == 0 and again["counts"]["pending"] == 12
    assert len(pending(kb)) == 12


def test_a_lesson_the_daily_run_decided_is_not_imported_again(
    kb: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    checkout = billing_checkout(tmp_path)
    memory_folder(checkout)
    argv = from_memory(kb, checkout, "--yes")
    _, first = learn_from(capsys, *argv)
    keys = [row["key"] for row in first["entries"] if row["outcome"] in ("new", "reconfirms")]
    shutil.rmtree(kb / ".homeostat" / "pending")  # what sync does once the daily run decided them
    record_decisions(kb, "bo", keys)
    code, second = learn_from(capsys, *argv)
    assert code == 0 and second["written"] == 0 and second["counts"]["decided"] == 12


def record_decisions(kb: Path, member: str, keys: list[str]) -> None:
    """This clone's copy of homeostat/state, holding a decision for each key (as sync fetches it)."""
    now = "2026-12-01T06:00:00+00:00"
    records = tuple(
        DecisionRecord.model_validate(
            {
                "hash": key, "member": member, "kind": "new", "title": "imported", "source": LessonSource(type="claude-memory"),
                "outcome": "review", "state": "in-review", "confidence": 50, "at": now, "reviewOpenedAt": now,
            }
        )
        for key in keys
    )  # fmt: skip
    data = dump_state(DecisionsFile(member=member, records=records))
    repo = Git(kb)
    commit = repo.commit_files(None, {f"decisions/{member}.json": data}, "state")
    repo.run("update-ref", "refs/remotes/origin/homeostat/state", commit)


def test_the_daily_run_reconfirms_what_repeats_a_rule_and_sends_the_rest_to_a_reviewer(
    kb: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    checkout = billing_checkout(tmp_path)
    memory_folder(checkout)
    learn_from(capsys, *from_memory(kb, checkout, "--yes"))
    code = main(["daily", "--offline", "--kb", str(kb), "--format", "json"])
    decisions = json.loads(capsys.readouterr().out)["decisions"]
    assert code == 0 and len(decisions) == 12
    verdicts = {d["title"]: d["verdict"] for d in decisions}
    assert verdicts.pop("Keep money amounts as integer minor units, never float") == "duplicate"
    assert verdicts.pop("Log values as structured fields, not inside formatted messages") == "duplicate"
    assert set(verdicts.values()) == {"review"}  # agent-written: nothing merges with no person


def test_a_secret_in_a_memory_is_refused_and_never_printed(
    kb: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    checkout = billing_checkout(tmp_path)
    folder = memory_folder(checkout)
    token = "ghp_" + "A1b2" * 9
    (folder / "feedback_ci_token.md").write_text(
        "---\nname: ci-token\ndescription: The CI deploy token for the billing pipeline\nmetadata:\n  type: reference\n---\n\n"
        f"Deploy from CI with the token `{token}` set as `DEPLOY_TOKEN`.\n"
    )
    code = main(["learn", *from_memory(kb, checkout, "--yes")])
    out, err = capsys.readouterr()
    assert code == 0 and token not in out + err
    assert "! blocked" in out and "holds what looks like a secret (github-pat)" in out
    assert all(token not in p.read_text() for p in (kb / ".homeostat/pending").glob("*.json"))


def test_without_yes_a_script_is_stopped_before_anything_is_written(
    kb: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    checkout = billing_checkout(tmp_path)
    memory_folder(checkout)
    code = main(["learn", *from_memory(kb, checkout)])
    err = stderr_errors(capsys.readouterr().err)  # progress lines aside, on a loaded machine
    assert code == 2 and err.count("\n") == 1
    assert (
        "--from writes 12 pending lesson(s): pass --yes to write them (or --dry-run to only preview)" in err
    )
    assert not (kb / ".homeostat").exists()


def test_a_checkout_of_no_kb_repo_needs_an_area(
    kb: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = tmp_path / "tools"
    other.mkdir()
    git(other, "init", "--quiet")
    memory_folder(other)
    assert main(["learn", *from_memory(kb, other, "--dry-run")]) == 2
    assert "its origin matches no repo in homeostat.yaml" in capsys.readouterr().err
    code, data = learn_from(capsys, *from_memory(kb, other, "--dry-run", "--area", "core"))
    assert code == 0 and {row["area"] for row in data["entries"] if row["area"]} == {"core"}


# --- where the memory is: as the docs say, and as the real CLI does ---------------------------------


@pytest.mark.parametrize(
    ("root", "key"),
    [
        ("/home/ana/src/billing", "-home-ana-src-billing"),
        ("/Users/ana/My Repos/billing.api", "-Users-ana-My-Repos-billing-api"),
        ("/home/ana/ünïcode", "-home-ana--n-code"),
        ("/tmp/\U0001f600", "-tmp---"),
        ("/" + "a" * 250, "-" + "a" * 199 + "-feo44x"),  # cut, with a hash (worked out by the CLI's own code)
    ],
)
def test_the_project_key_is_claude_codes(root: str, key: str) -> None:
    assert project_key(root) == key


def test_the_memory_folder_follows_the_settings_claude_code_reads() -> None:
    home, root = "/home/ana", "/home/ana/src/billing"
    assert memory_place(root, home, {}, []).path == "/home/ana/.claude/projects/-home-ana-src-billing/memory"
    assert memory_place(root, home, {"CLAUDE_CONFIG_DIR": "/cfg"}, []).path.startswith("/cfg/projects/-home-")
    named = {"CLAUDE_CONFIG_DIR": "/cfg", "CLAUDE_CODE_PROJECT_DIR_NAME": "billing"}
    assert memory_place(root, home, named, []).path == "/cfg/projects/billing/memory"
    user = ("the user's settings.json", json.dumps({"autoMemoryDirectory": "~/sync/billing-memory/"}))
    local = ("the project's .claude/settings.local.json", json.dumps({"autoMemoryDirectory": "/srv/mem"}))
    assert memory_place(root, home, {}, [user]).path == "/home/ana/sync/billing-memory"
    assert (
        memory_place(root, home, {}, [local, user]).how
        == "autoMemoryDirectory in the project's .claude/settings.local.json"
    )
    relative = ("the user's settings.json", json.dumps({"autoMemoryDirectory": "memory"}))
    assert memory_place(root, home, {}, [relative]).path.endswith("-home-ana-src-billing/memory")


def test_every_worktree_and_the_checked_in_settings_leave_the_folder_as_it_is(
    kb: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    checkout = billing_checkout(tmp_path)
    git(checkout, "commit", "--quiet", "--allow-empty", "-m", "start")
    worktree = tmp_path / "billing-feature"
    git(checkout, "worktree", "add", "--quiet", "-b", "feature", str(worktree))
    (worktree / ".claude").mkdir()
    (worktree / ".claude" / "settings.json").write_text(json.dumps({"autoMemoryDirectory": str(tmp_path)}))
    memory_folder(checkout)
    code, data = learn_from(capsys, *from_memory(kb, worktree, "--dry-run"))
    assert code == 0 and data["path"].endswith(f"{project_key(str(checkout.resolve()))}/memory")


def claude_code() -> Path | None:
    """The pinned Claude Code CLI of .ci/npm (installed by `.ci/run`, or here on first use); None without npm."""
    from claudekit import Unavailable, npm_tools

    try:
        return npm_tools().claude
    except Unavailable:
        return None


def test_the_folder_read_is_the_one_the_real_claude_code_loads(tmp_path: Path) -> None:
    """Claude Code 2.1.332, started in a subfolder of the checkout, puts the memory folder's path and
    its MEMORY.md in the system prompt of its first request: that path is the one `learn` reads."""
    cli = claude_code()
    if cli is None:
        pytest.skip("npm is not installed here (.ci/run installs Node and npm where it can)")
    version = subprocess.run([str(cli), "--version"], capture_output=True, text=True, check=False).stdout
    assert version.startswith("2.1.332"), version
    from homeostat.runs.learn_from import find_memory

    checkout = billing_checkout(tmp_path)
    place = find_memory(checkout / "src", os.environ)
    Path(place.path).mkdir(parents=True)
    (Path(place.path) / "MEMORY.md").write_text("- Run `make test-billing-7f3a` before pushing.\n")
    with recording_server() as (url, requests):
        env = {
            **os.environ,
            "ANTHROPIC_BASE_URL": url,
            "ANTHROPIC_API_KEY": "sk-ant-test",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        }
        subprocess.run(
            [str(cli), "-p", "hello"],
            cwd=checkout / "src",
            env=env,
            capture_output=True,
            timeout=120,
            check=False,
        )
    prompts = " ".join(requests)
    assert place.path in prompts and "make test-billing-7f3a" in prompts


class recording_server:  # noqa: N801 - used as a context manager, like a function
    """A loopback HTTP server that keeps each request body and answers 400 (the CLI then stops)."""

    def __enter__(self) -> tuple[str, list[str]]:
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        bodies: list[str] = []

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                bodies.append(
                    self.rfile.read(int(self.headers.get("content-length") or 0)).decode("utf-8", "replace")
                )
                payload = b'{"type":"error","error":{"type":"invalid_request_error","message":"recorded"}}'
                self.send_response(400)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return f"http://127.0.0.1:{self.server.server_address[1]}", bodies

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


# --- CodeRabbit ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sample", "counts"), [("coderabbit.csv", CSV_COUNTS), ("coderabbit.json", JSON_COUNTS)]
)
def test_a_coderabbit_export_is_imported_with_its_review_as_provenance(
    kb: Path, sample: str, counts: dict[str, int], capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["--kb", str(kb), "--author", "ana", "--from", "coderabbit", str(SAMPLES / sample)]
    code, data = learn_from(capsys, *argv, "--yes")
    assert code == 0 and data["counts"] == counts and data["written"] == counts["new"] + counts["reconfirms"]
    rows = data["entries"]
    assert rows[0]["detail"] == "repeats rule billing-api-error-status-table: the daily run reconfirms it"
    assert {r["area"] for r in rows if "Across all repositories" in r["title"]} == {"core"}
    legacy = next(r for r in rows if "legacy admin" in r["title"])
    assert (
        legacy["outcome"] == "skipped"
        and "example/legacy-admin is not one of the KB's code repos" in legacy["detail"]
    )
    lessons = {lesson.title: lesson for lesson in pending(kb)}
    assert {lesson.source for lesson in lessons.values()} == {"coderabbit"}
    validation = next(lesson for title, lesson in lessons.items() if title.startswith("In the billing API"))
    assert validation.url == "https://github.com/example/billing/pull/91#discussion_r9200000144"
    assert all("ana" not in lesson.rule.split() for lesson in lessons.values())
    _, again = learn_from(capsys, *argv, "--yes")
    assert again["written"] == 0 and again["counts"]["pending"] == data["written"]


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        (
            "missing.csv",
            None,
            "missing.csv: no such file: pass the CodeRabbit learnings export (.csv or .json)",
        ),
        (
            "broken.json",
            '{"items": [{"learning": "x",}]}',
            "broken.json: not valid JSON (line 1: Expecting property name",
        ),
        (
            "other.json",
            '{"rules": []}',
            "other.json: not a CodeRabbit learnings export: expected a list of learnings under `data`",
        ),
        (
            "columns.csv",
            "id,text,repo\n1,Use uv,billing\n",
            "columns.csv: not a CodeRabbit learnings export: it needs a `learning` column with each learning's text (its columns: id, repo, text)",
        ),
        (
            "cells.csv",
            'id,learning\n1,"Use uv",extra,more\n',
            "cells.csv: line 2: 4 cells under 2 columns; the CSV is broken: export it again",
        ),
        (
            "quote.csv",
            'id,learning\n1,"Use uv\n',
            "quote.csv: line 2: unexpected end of data; the CSV is broken: export it again",
        ),
        ("empty.csv", "", "empty.csv: the file is empty: export the learnings again"),
        ("none.json", '{"data": [], "next_cursor": null}', "none.json: the export holds no learnings"),
        (
            "latin.csv",
            b"id,learning\n1,caf\xe9\n",
            "latin.csv: not UTF-8 text: export the learnings again as CSV or JSON",
        ),
    ],
)
def test_a_bad_export_gets_one_clear_line(
    kb: Path,
    tmp_path: Path,
    name: str,
    content: str | bytes | None,
    message: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not None:
        path.write_text(content)
    code = main(["learn", "--kb", str(kb), "--author", "ana", "--from", "coderabbit", str(path), "--dry-run"])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and err.count("\n") == 1 and message in err, err


def test_area_files_every_learning_there_even_one_from_a_repo_the_kb_does_not_list(
    kb: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    export = str(SAMPLES / "coderabbit.csv")
    argv = ["--kb", str(kb), "--author", "ana", "--from", "coderabbit", export, "--area", "core", "--dry-run"]
    code, data = learn_from(capsys, *argv)
    legacy = next(r for r in data["entries"] if "legacy admin" in r["title"])
    assert code == 0 and (legacy["outcome"], legacy["area"]) == ("new", "core")
    assert {r["area"] for r in data["entries"] if r["area"]} == {"core"}


def test_column_names_are_read_in_any_spelling(
    kb: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "learnings.csv"
    path.write_text(
        "\ufeffLearning,Repository Name,File,Source URL\n"
        "Wrap storefront fetches in `withTimeout` from `web/lib/http.ts`.,storefront,web/routes/cart.tsx,\n"
    )
    code, data = learn_from(
        capsys, "--kb", str(kb), "--author", "cy", "--from", "coderabbit", str(path), "--dry-run"
    )
    assert code == 0 and [(r["area"], r["outcome"]) for r in data["entries"]] == [("storefront/ui", "new")]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["--from", "coderabbit"],
            "--from coderabbit needs the export to read: homeostat learn --from coderabbit FILE",
        ),
        (["notes.csv"], "notes.csv is read only with --from coderabbit: pass --from coderabbit notes.csv"),
        (
            ["--from", "claude-memory", "notes.csv"],
            "--from claude-memory reads this project's memory folder, not notes.csv: drop it",
        ),
        (["--from", "claude-memory", "--topic", "errors"], "--topic with --from needs --area"),
        (["--from", "claude-memory", "--title", "T"], "--title does not apply to --from: drop it"),
        (
            ["--title", "T", "--yes"],
            "--yes does not apply to a lesson written by hand (they go with --from): drop it",
        ),
        (
            ["--from", "claude-memory", "--memory-dir", "/nonexistent/memory"],
            "/nonexistent/memory: no such folder (--memory-dir)",
        ),
    ],
)
def test_a_wrong_combination_gets_one_clear_line(
    kb: Path, argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["learn", "--kb", str(kb), "--author", "ana", *argv, "--dry-run"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and message in err, err


def test_an_empty_memory_folder_gets_one_clear_line(
    kb: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "memory"
    empty.mkdir()
    (empty / "MEMORY.md").write_text("\n")
    code = main(["learn", *from_memory(kb, kb, "--memory-dir", str(empty), "--area", "core", "--dry-run")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert (
        f"{empty}: the memory folder holds no notes (no MEMORY.md or memory files with text): nothing to import"
        in err
    )


# --- the parts ----------------------------------------------------------------------------------------


def test_a_long_note_keeps_every_word_between_rule_and_why() -> None:
    text = " ".join(f"Sentence {n} has exactly seven words here." for n in range(12))
    rule, why = fit(text, "Because.")
    assert len(rule.split()) <= 60 and f"{rule} {why}" == f"{text} Because."
    with pytest.raises(EntryTooLong, match="its first sentence has 61 words"):
        fit(" ".join(["word"] * 61) + ".", "")
    with pytest.raises(EntryTooLong, match="more than a rule and its why hold"):
        fit(text * 3, "")


def test_older_notes_and_both_frontmatter_shapes_are_read() -> None:
    entries = read_memories(
        {
            "MEMORY.md": "# Memory\n\n- [Tests](tests.md) — real db\n\n## Build\n\n- Use `uv sync`, never `pip install`.\n",
            "tests.md": "---\nname: tests\ndescription: Real DB in tests\ntype: feedback\n---\nUse the real DB. See [[db-setup]].\n",
            "new.md": "---\nname: new\ndescription: New shape\nmetadata:\n  type: project\n---\nShip on Fridays.\n**Why:** Fewer users.\n",
            "bad.md": "---\nname: [unclosed\n---\ntext\n",
        }
    )
    got = {e.origin: (e.kind, e.text, e.why, e.skip) for e in entries}
    assert got["MEMORY.md:7"] == ("note", "Use `uv sync`, never `pip install`.", "", "")
    assert got["tests.md:6"] == ("feedback", "Use the real DB. See db-setup.", "", "")
    assert got["new.md:7"] == ("project", "Ship on Fridays.", "Fewer users.", "")
    assert got["bad.md:4"][3].startswith("its frontmatter is not YAML")
    assert not any(origin.startswith("MEMORY.md:3") for origin in got)  # an index line is a pointer


# --- the whole way: import, sync, the daily run -------------------------------------------------------


def test_imported_lessons_travel_by_sync_and_the_daily_run_decides_them_once(world: DailyWorld) -> None:
    dev = developer_clone(world, name="Bo Chen")
    checkout = billing_checkout(world.tmp)
    memory_folder(checkout)
    argv = ["learn", "--kb", str(dev), "--from", "claude-memory", "--checkout", str(checkout), "--yes"]
    done = homeostat(*argv)
    assert done.returncode == 0 and "12 lessons written" in done.stdout, done.stderr
    assert sync(dev)["pushed"]
    # the consolidator (the model) sees the two that repeat a rule in force
    world.script.duplicates = {
        "integer minor units": "billing-api-integer-minor-units",
        "structured fields": "log-with-fields",
    }
    assert world.daily() == 0
    records = [r for r in world.state().records() if r.source.type == "claude-memory"]
    outcomes = sorted(r.outcome for r in records)
    assert len(records) == 12 and outcomes == ["duplicate"] * 2 + ["review"] * 10
    assert all(r.member == "bo" for r in records)
    assert sync(dev)["cleared"] == 12
    again = homeostat(*argv)
    assert again.returncode == 0 and "12 decided" in again.stdout and "nothing new to import" in again.stdout
    assert not list((dev / ".homeostat" / "pending").glob("*.json"))


@pytest.mark.parametrize(("answer", "written"), [("n", 0), ("y", 12)])
def test_at_a_terminal_the_preview_comes_first_and_only_yes_writes(
    kb: Path, tmp_path: Path, answer: str, written: int
) -> None:
    checkout = billing_checkout(tmp_path)
    memory_folder(checkout)
    code, shown = at_a_terminal(["learn", *from_memory(kb, checkout)], [(b"[y/N]", answer)])
    assert code == 0, shown
    assert "claude-memory: " in shown and "+ new" in shown
    assert shown.index("+ new") < shown.index("Write these 12 lesson(s) to .homeostat/pending/? [y/N]")
    assert len(list((kb / ".homeostat" / "pending").glob("*.json"))) == written
    assert ("12 lessons written" in shown) == bool(written) and ("nothing written" in shown) != bool(written)
