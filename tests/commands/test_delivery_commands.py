"""The delivery commands end to end: context, search, read, docs, explain, report, and the index cache."""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
import shutil
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

import pytest
from gitfixtures import git
from kit import REPO

from homeostat.adapters.cache import corpus_cache as search_index
from homeostat.adapters.cache.corpus_cache import INDEX_DIR, WorkingChange, change_from_git, load_corpus
from homeostat.adapters.state.event_log import SqliteEventLog, events_path, log_exists
from homeostat.cli import main
from homeostat.core.events import Event

EXAMPLE = REPO / "examples" / "kb"
CLONE_STATE = shutil.ignore_patterns(".homeostat")  # a clone's index, events and pending lessons


def checkout(tmp_path: Path, name: str, origin: str | None, files: dict[str, str] | None = None) -> Path:
    """A code repo checkout with an origin remote and, optionally, committed files."""
    work = tmp_path / name
    work.mkdir()
    git(work, "init", "--quiet", "--initial-branch=main")
    if origin:
        git(work, "remote", "add", "origin", origin)
    for rel, text in (files or {}).items():
        (work / rel).parent.mkdir(parents=True, exist_ok=True)
        (work / rel).write_text(text, encoding="utf-8")
    if files:
        git(work, "add", ".")
        git(work, "commit", "--quiet", "-m", "start")
    return work


def recorded(kb: Path, kind: str) -> list[Event]:
    """Events of a kind, polled for up to 30 s (the recorder appends them to the journal the log folds in)."""
    deadline = time.monotonic() + 30
    while True:
        if log_exists(events_path(kb)):
            with SqliteEventLog(events_path(kb)) as log:
                found = log.query(kind)
            if found:
                return found
        if time.monotonic() > deadline:
            raise AssertionError(f"no {kind} event in {events_path(kb)}")
        time.sleep(0.05)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_context_serves_the_checkouts_repo_from_its_origin(
    tmp_path: Path, kb: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    web = checkout(tmp_path, "shop", "git@github.com:example/storefront.git")
    code, out, _ = run(
        capsys,
        "context",
        "--kb",
        str(kb),
        "--checkout",
        str(web),
        "--files",
        "web/components/Button.tsx",
        "src/billing/api/app.py",
    )
    assert code == 0
    assert "(use-theme-spacing)" in out
    assert "billing-api" not in out


def test_context_reads_changed_files_from_git_when_none_are_given(
    tmp_path: Path, kb: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    billing = checkout(tmp_path, "billing", "https://github.com/example/billing", {"README.md": "hi\n"})
    (billing / "src/billing/api").mkdir(parents=True)
    (billing / "src/billing/api/errors.py").write_text("x = 1\n", encoding="utf-8")
    code, out, _ = run(capsys, "context", "--kb", str(kb), "--checkout", str(billing))
    assert code == 0 and "(billing-api-error-status-table)" in out


def test_context_explain_and_json_report_every_cut(kb: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys,
        "context",
        "--kb",
        str(kb),
        "--repo",
        "billing",
        "--budget",
        "200",
        "--files",
        "src/billing/api/errors.py",
        "--explain",
    )
    assert code == 0
    view, _, report = out.partition("\n---\n")
    assert "Served " in report and "budget 200" in report
    assert "  cut     " in report and "over the rule token budget" in report
    code, out, _ = run(
        capsys,
        "context",
        "--kb",
        str(kb),
        "--repo",
        "billing",
        "--budget",
        "200",
        "--files",
        "src/billing/api/errors.py",
        "--format",
        "json",
    )
    data = json.loads(out)
    assert data["cut"] and {"id", "what", "reason"} <= set(data["cut"][0])
    assert data["tokens"] <= 200 and data["budget"]["tokens"] == 200


def test_context_records_an_injection_event(kb: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run(capsys, "context", "--kb", str(kb), "--repo", "billing", "--files", "src/billing/api/errors.py")
    [event] = recorded(kb, "injection")
    assert event.data["source"] == "session-start" and event.data["repo"] == "billing"
    assert "billing-api-error-status-table" in str(event.data["ids"])
    assert isinstance(event.data["ms"], int) and event.data["tokens"]


def test_team_only_areas_follow_the_member(
    tmp_path: Path, kb: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    args = ("context", "--kb", str(kb), "--repo", "billing", "--files", "migrations/0042_add.sql")
    assert "(migrations-expand-then-contract)" not in run(capsys, *args)[1]
    monkeypatch.setenv("HOMEOSTAT_MEMBER", "ana")
    assert "(migrations-expand-then-contract)" in run(capsys, *args)[1]
    monkeypatch.setenv("HOMEOSTAT_MEMBER", "cy")  # web team
    assert "(migrations-expand-then-contract)" not in run(capsys, *args)[1]
    monkeypatch.delenv("HOMEOSTAT_MEMBER")
    billing = checkout(tmp_path, "billing", "https://github.com/example/billing")
    git(billing, "config", "user.name", "Bo Chen")  # matched to the member's name
    code, out, _ = run(
        capsys, "context", "--kb", str(kb), "--checkout", str(billing), "--files", "migrations/1.sql"
    )
    assert code == 0 and "(migrations-expand-then-contract)" in out


def test_unknown_repo_is_an_error_naming_the_repos(kb: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "context", "--kb", str(kb), "--repo", "ledger", "--files", "a.py")
    assert code == 2
    assert "homeostat: --repo 'ledger' is not a repo in homeostat.yaml (repos: billing, storefront)" in err


def test_a_message_is_matched_once_per_session(kb: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = ("context", "--kb", str(kb), "--repo", "billing", "--session", "s1", "--format", "json")
    message = "the refund amount uses float rounding, should money be integer minor units?"
    first = json.loads(run(capsys, *base, "--prompt", message)[1])
    assert first["rules"] == [{"id": "billing-api-integer-minor-units"}]
    assert "## Team knowledge matching this message" in first["text"]
    second = json.loads(run(capsys, *base, "--prompt", message)[1])
    assert second["rules"] == [] and "search` the team KB first" in second["text"]
    chat = json.loads(run(capsys, *base, "--prompt", "yes go ahead, commit it")[1])
    assert chat["searched"] is False and chat["tokens"] < 80


def session_start(kb: Path, session: str) -> tuple[str, ...]:
    """`context` at a session's start in the billing repo, with a session id."""
    return (
        "context",
        "--kb",
        str(kb),
        "--repo",
        "billing",
        "--session",
        session,
        "--files",
        "src/billing/api/x.py",
    )


def add_trace_rule(kb: Path) -> None:
    """A new core rule, `trace-every-request`, merged while a session runs."""
    new_rule = (EXAMPLE / "knowledge/core/log-with-fields.md").read_text(encoding="utf-8")
    new_rule = new_rule.replace("id: log-with-fields", "id: trace-every-request").replace(
        "title: Log with structured fields, not formatted strings", "title: Trace every request"
    )
    (kb / "knowledge/core/trace-every-request.md").write_text(new_rule, encoding="utf-8")


def test_a_long_session_gets_rules_new_since_it_started(kb: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run(capsys, *session_start(kb, "s2"))
    add_trace_rule(kb)
    code, out, _ = run(
        capsys, "context", "--kb", str(kb), "--repo", "billing", "--session", "s2", "--prompt", "ok"
    )
    assert (
        code == 0 and "## New team rules since this session started" in out and "(trace-every-request)" in out
    )
    _, again, _ = run(
        capsys, "context", "--kb", str(kb), "--repo", "billing", "--session", "s2", "--prompt", "ok"
    )
    assert "(trace-every-request)" not in again


def known_ids_of(path: Path) -> list[str]:
    """A session's `known` file's ids (its first line may be the `@stamp` they were added under)."""
    return [line for line in path.read_text(encoding="utf-8").split("\n") if not line.startswith("@")]


def test_a_session_started_by_an_older_version_keeps_what_it_knew(
    kb: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`known` moved out of the session file into `<id>.known`; a session file that still holds it
    inline (written before the move) is read as it was, and moved on its next write."""
    start = session_start(kb, "s3")
    run(capsys, *start)
    sessions = kb / ".homeostat" / "sessions"
    known = known_ids_of(sessions / "s3.known")
    assert "billing-api-integer-minor-units" in known
    state = json.loads((sessions / "s3.json").read_text(encoding="utf-8"))
    assert "known" not in state
    (sessions / "s3.json").write_text(json.dumps({**state, "known": known}), encoding="utf-8")
    (sessions / "s3.known").unlink()
    prompt = ("context", "--kb", str(kb), "--repo", "billing", "--session", "s3", "--prompt", "ok")
    _, out, _ = run(capsys, *prompt)
    assert "New team rules since this session started" not in out
    run(capsys, *start)  # resumed: written again
    assert known_ids_of(sessions / "s3.known") == known
    assert "known" not in json.loads((sessions / "s3.json").read_text(encoding="utf-8"))


def test_a_resumed_session_start_leaves_the_known_ids_unwritten(
    kb: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A session start adds every rule it could serve to what the session knows, once per corpus
    and audience: resumed on the same KB, it neither works them out nor writes them again."""
    start = session_start(kb, "s4")
    run(capsys, *start)
    known = kb / ".homeostat" / "sessions" / "s4.known"
    os.utime(known, ns=(1_000_000_000, 1_000_000_000))
    run(capsys, *start)
    assert known.stat().st_mtime_ns == 1_000_000_000  # the same ids: not written again
    add_trace_rule(kb)
    run(capsys, *start)
    assert "trace-every-request" in known_ids_of(known)
    _, out, _ = run(
        capsys, "context", "--kb", str(kb), "--repo", "billing", "--session", "s4", "--prompt", "ok"
    )
    assert "New team rules since this session started" not in out  # known from the start it resumed
    run(
        capsys, *start[:-4], "--repo", "storefront", "--session", "s4", "--files", "web/components/Button.tsx"
    )
    assert "use-theme-spacing" in known_ids_of(known)  # another audience: its rules are added


def test_search_command(kb: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "search", "--kb", str(kb), "--repo", "billing", "float", "money")
    assert code == 0 and "(billing-api-integer-minor-units) [rule, billing/api]" in out
    code, out, _ = run(
        capsys, "search", "--kb", str(kb), "--repo", "billing", "--format", "json", "status", "errors"
    )
    hits = json.loads(out)["hits"]
    assert hits[0]["id"] == "billing-api-error-status-table" and {"kind", "snippet", "score"} <= set(hits[0])
    code, out, _ = run(
        capsys,
        "search",
        "--kb",
        str(kb),
        "--repo",
        "billing",
        "--topic",
        "money",
        "--all",
        "--format",
        "json",
    )
    assert [h["id"] for h in json.loads(out)["hits"]] == ["billing-api-integer-minor-units"]
    code, out, _ = run(capsys, "search", "--kb", str(kb), "--repo", "storefront", "router")
    assert "rejected decision (do not do this)" in out


def test_search_needs_words_or_a_whole_topic(kb: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "search", "--kb", str(kb), "--topic", "money")
    assert code == 2 and "--topic lists a whole topic; pass it with --all" in err
    code, _, err = run(capsys, "search", "--kb", str(kb))
    assert code == 2 and 'search needs words to look for: homeostat search "retry budget"' in err


def test_read_and_docs(kb: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "read", "--kb", str(kb), "--repo", "billing", "billing/api/overview#errors")
    assert code == 0 and out.startswith("### Billing API overview › Errors (billing/api/overview#errors)")
    assert "(source: curator, updated 2026-11-12, https://github.com/example/billing/pull/41" in out
    code, out, _ = run(capsys, "read", "--kb", str(kb), "--repo", "billing", "billing/api/overview")
    assert code == 0 and out.count("### Billing API overview") == 2
    code, out, _ = run(capsys, "read", "--kb", str(kb), "--repo", "billing", "billing/api/nothing")
    assert code == 1 and "Nothing named 'billing/api/nothing' for this repo" in out
    code, out, _ = run(capsys, "docs", "--kb", str(kb), "--repo", "billing")
    assert "- billing/api/overview: Billing API overview (2 sections)" in out and "  - #errors Errors" in out
    code, out, _ = run(capsys, "docs", "--kb", str(kb), "--repo", "storefront")
    assert "No documents" in out


def test_explain(kb: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, _ = run(
        capsys,
        "explain",
        "--kb",
        str(kb),
        "--repo",
        "billing",
        "billing-api-integer-minor-units",
        "--files",
        "src/billing/api/errors.py",
    )
    assert code == 0
    assert "score: 4 = prFeedback +3, seniorAuthor +1 (cached 4)" in out
    assert "owner: payments (@example/payments)" in out
    assert "source: pr-feedback by bo, https://github.com/example/billing/pull/57" in out
    assert "for these files: #2 of 3, tier 1" in out
    code, out, _ = run(
        capsys, "explain", "--kb", str(kb), "--repo", "billing", "migrations-expand-then-contract"
    )
    assert code == 1 and "No rule 'migrations-expand-then-contract'" in out
    monkeypatch.setenv("HOMEOSTAT_MEMBER", "ana")
    code, out, _ = run(
        capsys, "explain", "--kb", str(kb), "--repo", "billing", "--json", "migrations-expand-then-contract"
    )
    assert code == 0 and json.loads(out)["kind"] == "migration"


def test_report(kb: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run(capsys, "context", "--kb", str(kb), "--repo", "billing", "--files", "src/billing/api/errors.py")
    recorded(kb, "injection")
    code, out, _ = run(capsys, "report", "--kb", str(kb), "--today", "2026-12-01")
    assert code == 0 and out.startswith("Rules: 6 (accepted 6)")
    assert "By kind: convention 4, decision (rejected) 1, migration 1" in out
    assert "Documents: 1 with 2 sections" in out and "Last 7 days on this machine: " in out
    code, out, _ = run(capsys, "report", "--kb", str(kb), "--json", "--today", "2027-12-01")
    data = json.loads(out)
    assert len(data["stale"]) == 6 and data["usage"]["injection"] == 1
    assert set(data["validation"]) == {"errors", "warnings"}


def test_the_index_is_rebuilt_when_the_kb_changes_and_never_fails(
    kb: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="homeostat.index")
    first = load_corpus(kb)
    assert first.rebuilt and first.reason == "no cached index"
    assert not load_corpus(kb).rebuilt
    rule = kb / "knowledge/core/log-with-fields.md"
    rule.write_text(
        rule.read_text(encoding="utf-8").replace("as fields", "as named fields"), encoding="utf-8"
    )
    changed = load_corpus(kb)
    assert changed.rebuilt and changed.key != first.key and "changed" in changed.reason
    assert "as named fields" in (changed.corpus.entry("log-with-fields") or first.corpus.entries[0]).view
    index = next((kb / INDEX_DIR).glob("corpus-*"))
    index.write_bytes(b"\x00 not a corpus")
    broken = load_corpus(kb)
    assert broken.rebuilt and "unreadable" in broken.reason
    assert len(list((kb / INDEX_DIR).glob("corpus-*"))) == 1
    shutil.rmtree(kb / ".homeostat")
    assert load_corpus(kb).corpus.entries == changed.corpus.entries
    assert any("search index rebuilt" in r.message for r in caplog.records)


def test_the_index_key_follows_git_trees_and_uncommitted_edits(tmp_path: Path) -> None:
    repo = tmp_path / "kbrepo"
    shutil.copytree(EXAMPLE, repo / "kb", ignore=CLONE_STATE)  # a KB in a folder of a larger repo
    git(repo, "init", "--quiet")
    git(repo, "add", ".")
    git(repo, "commit", "--quiet", "-m", "kb")
    root = repo / "kb"
    committed = load_corpus(root)
    assert not load_corpus(root).rebuilt
    rule = root / "knowledge/core/log-with-fields.md"
    rule.write_text(rule.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    dirty = load_corpus(root)
    assert dirty.rebuilt and dirty.key != committed.key
    (root / "knowledge/core/new.md").write_text("not a rule yet\n", encoding="utf-8")
    assert load_corpus(root).key != dirty.key  # untracked files count too


def test_an_index_built_with_another_stemmer_is_rebuilt(kb: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = load_corpus(kb)
    assert not load_corpus(kb).rebuilt  # the stat shortcut and the git key both find it
    monkeypatch.setattr(search_index, "STEMMER_ID", "snowball-english-0.0.0")
    again = load_corpus(kb)
    assert again.rebuilt and again.key != first.key and "stemmer" in again.reason


def test_the_index_notices_pending_lessons(kb: Path) -> None:
    from homeostat.adapters.state.pending_store import write_pending
    from homeostat.core.pending import PendingLesson

    before = load_corpus(kb)
    write_pending(
        kb,
        PendingLesson(
            author="ana",
            created=dt.datetime(2026, 11, 1, tzinfo=dt.UTC),
            title="Name it",
            rule="Name money fields `*_minor`.",
            area="billing/api",
        ),
    )
    after = load_corpus(kb)
    assert after.rebuilt and any(e.pending for e in after.corpus.entries) and before.key != after.key


def test_context_imports_no_model_host_or_mcp_client(kb: Path) -> None:
    script = (
        "import sys\nfrom homeostat.cli import main\n"
        f"main(['context', '--kb', {str(kb)!r}, '--repo', 'billing', '--files', 'src/billing/api/errors.py'])\n"
        "heavy = [m for m in ('anthropic', 'github', 'atlassian', 'mcp') if m in sys.modules]\n"
        "print('HEAVY', heavy)\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOMEOSTAT_")}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "HEAVY []" in done.stdout


def test_a_warm_context_imports_no_pathlib_urllib_or_ipaddress(kb: Path, tmp_path: Path) -> None:
    """`context` on a warm cache works in path strings and reads the checkout's origin URL itself
    (see test_hooks' test of the same); run as an installed package starts, without the editable
    install's import finder (-S, the packages on the path)."""
    work = checkout(tmp_path, "work", "https://github.com/example/billing.git")
    args = ["context", "--kb", str(kb), "--checkout", str(work), "--files", "src/billing/api/errors.py"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOMEOSTAT_")}
    first = subprocess.run(
        [sys.executable, "-m", "homeostat", *args], capture_output=True, env=env, check=False
    )
    assert first.returncode == 0, first.stderr
    script = (
        f"import sys\nfrom homeostat.cli import main\nmain({args!r})\n"
        "print('HEAVY', [m for m in ('pathlib', 'urllib.parse', 'ipaddress', 'argparse', 'typing')"
        " if m in sys.modules])\n"
    )
    done = subprocess.run(
        [sys.executable, "-S", "-c", script],
        capture_output=True,
        text=True,
        env={**env, "PYTHONPATH": os.pathsep.join([str(REPO), sysconfig.get_paths()["purelib"]])},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "HEAVY []" in done.stdout and "(billing-api-error-status-table)" in done.stdout


def test_the_shared_format_contract_is_served(
    shared_kb: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "contract"
    shutil.copytree(
        shared_kb, root, ignore=CLONE_STATE
    )  # the index is written beside the KB, never into ../shared
    code, out, _ = run(
        capsys, "context", "--kb", str(root), "--repo", "ledger", "--files", "src/api/handlers/pay.py"
    )
    assert code == 0 and "(ledger-api-problem-json)" in out
    code, out, _ = run(
        capsys, "read", "--kb", str(root), "--repo", "ledger", "ledger/api/architecture#request-flow"
    )
    assert code == 0 and "src/api/app.py" in out


def test_an_unchanged_kb_is_recognised_without_git_and_any_edit_is_not(kb: Path) -> None:
    from homeostat.adapters.cache.corpus_cache import STAT_FILE

    first = load_corpus(kb)
    assert (kb / STAT_FILE).is_file()  # the copied files are older than the racy window
    again = load_corpus(kb)
    assert not again.rebuilt and again.key == first.key
    rule = kb / "knowledge/core/log-with-fields.md"
    text = rule.read_text(encoding="utf-8")
    rule.write_text(text.replace("as fields", "AS FIELDS"), encoding="utf-8")  # same size, new content
    edited = load_corpus(kb)
    assert edited.rebuilt and edited.key != first.key
    assert "AS FIELDS" in (edited.corpus.entry("log-with-fields") or edited.corpus.entries[0]).view


def test_a_large_kb_goes_straight_to_git(kb: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import homeostat.adapters.cache.corpus_cache as index

    monkeypatch.setattr(index, "STAT_MAX_FILES", 3)  # the example KB has more files than that
    walked: list[Path] = []
    monkeypatch.setattr(index, "stat_signature", lambda root: walked.append(root) or ("", 0, 0))
    first = load_corpus(kb)  # nothing recorded: its folders are counted, not every file stat'ed
    assert first.rebuilt and walked == []
    assert not load_corpus(kb).rebuilt and walked == []
    rule = kb / "knowledge/core/log-with-fields.md"
    rule.write_text(rule.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    assert load_corpus(kb).key != first.key


def _aged(root: Path) -> None:
    """Every file and folder of the KB a minute old and its git index refreshed, half a minute old:
    past the racy window, as a KB is whose files nobody touched in the last two seconds."""
    past = time.time_ns() - 60_000_000_000
    for folder, _, files in os.walk(root):
        if "/.git" in folder:
            continue
        for name in [*files, "."]:
            os.utime(os.path.join(folder, name), ns=(past, past))
    subprocess.run(["git", "update-index", "-q", "--refresh"], cwd=root, check=False)
    os.utime(root / ".git" / "index", ns=(past + 30_000_000_000,) * 2)


@pytest.fixture
def large_git_kb(kb: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The example KB committed in git and taken for a large one, so the index check proves it current."""
    import homeostat.adapters.cache.corpus_cache as index

    monkeypatch.setattr(index, "STAT_MAX_FILES", 3)
    git(kb, "init", "--quiet")
    (kb / ".gitignore").write_text(".homeostat/\n", encoding="utf-8")
    (kb / ".homeostat").mkdir()
    commit_all(kb, "kb")
    _aged(kb)
    return kb


def _keyed(kb: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[search_index.Loaded, int]:
    """A load and how many times git worked the key out for it."""
    calls: list[Path] = []
    real = search_index._git_fingerprint
    monkeypatch.setattr(search_index, "_git_fingerprint", lambda root: calls.append(root) or real(root))
    loaded = load_corpus(kb)
    monkeypatch.setattr(search_index, "_git_fingerprint", real)
    return loaded, len(calls)


def test_a_large_kb_unchanged_in_git_keeps_its_key_without_git_status(
    large_git_kb: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kb = large_git_kb
    first = load_corpus(kb)
    load_corpus(kb)  # the first load learned the KB is large; this one records the index check
    again, worked = _keyed(kb, monkeypatch)
    assert (again.key, again.rebuilt, worked) == (first.key, False, 0)


@pytest.mark.parametrize("change", ["edit", "add", "delete", "stage", "commit", "pending", "edit-untracked"])
def test_a_large_kb_in_git_sees_every_change_on_the_next_call(
    large_git_kb: Path, monkeypatch: pytest.MonkeyPatch, change: str
) -> None:
    kb = large_git_kb
    rule = kb / "knowledge/core/log-with-fields.md"
    text = rule.read_text(encoding="utf-8")
    added = kb / "knowledge/core/trace-every-request.md"
    new_rule = text.replace("id: log-with-fields", "id: trace-every-request")
    if change == "edit-untracked":  # an untracked file, recorded, then edited where it is
        added.write_text(new_rule, encoding="utf-8")
        _aged(kb)
    load_corpus(kb)
    before = load_corpus(kb)
    assert _keyed(kb, monkeypatch)[1] == 0  # the index check holds
    if change == "edit":
        rule.write_text(text.replace("as fields", "AS FIELDS"), encoding="utf-8")  # same size
    elif change in ("add", "stage", "commit"):
        added.write_text(new_rule, encoding="utf-8")
        if change != "add":
            git(kb, "add", ".")
        if change == "commit":
            commit_all(kb, "one more")
    elif change == "delete":
        rule.unlink()
    elif change == "pending":
        (kb / ".homeostat/pending").mkdir(parents=True, exist_ok=True)
        (kb / ".homeostat/pending/abc.json").write_text("{}", encoding="utf-8")
    else:
        added.write_text(new_rule.replace("as fields", "AS FIELDS"), encoding="utf-8")
    after = load_corpus(kb)
    assert after.key != before.key and after.rebuilt
    ids = {e.id for e in after.corpus.entries}
    if change == "edit" or change == "edit-untracked":
        edited = after.corpus.entry(
            "trace-every-request" if change == "edit-untracked" else "log-with-fields"
        )
        assert edited is not None and "AS FIELDS" in edited.view
    elif change == "delete":
        assert "log-with-fields" not in ids
    elif change != "pending":
        assert "trace-every-request" in ids


def test_the_checkouts_identity_is_remembered_until_its_git_config_changes(
    tmp_path: Path, kb: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    work = checkout(tmp_path, "work", "git@github.com:example/storefront.git")
    args = ("context", "--kb", str(kb), "--checkout", str(work), "--files", "web/components/Button.tsx")
    assert "(use-theme-spacing)" in run(capsys, *args)[1]
    assert (kb / ".homeostat/identity.json").is_file()
    git(work, "remote", "set-url", "origin", "https://github.com/example/billing")  # the config file changes
    out = run(capsys, *args)[1]
    assert "(use-theme-spacing)" not in out  # the new origin is read, not the remembered one


def commit_all(work: Path, subject: str, body: str = "") -> None:
    git(work, "add", ".")
    message = ["-m", subject] + (["-m", body] if body else [])
    git(work, "-c", "user.name=t", "-c", "user.email=t@x", "commit", "--quiet", *message)


def test_the_git_commands_that_find_the_changes_also_give_branch_and_commits(tmp_path: Path) -> None:
    work = checkout(tmp_path, "app", None)
    assert change_from_git(work) == WorkingChange((), "main", (), ())  # no commits yet on main
    git(work, "switch", "--quiet", "-c", "feature/apikey-from-file")
    (work / "cfg.py").write_text("a = 1\n", encoding="utf-8")
    commit_all(work, "Read the API key from a file", "Never from argv.\nMore text.")
    (work / "new_loader.py").write_text("b = 2\n", encoding="utf-8")
    change = change_from_git(work)
    assert change.branch == "feature/apikey-from-file" and change.changed == ("new_loader.py",)
    assert change.paths == ("new_loader.py", "cfg.py")
    assert change.commits == ("Read the API key from a file\nNever from argv.",)
    git(work, "switch", "--quiet", "--detach")
    assert change_from_git(work).branch == ""
    assert change_from_git(tmp_path / "not-a-repo-at-all") == WorkingChange((), "", (), ())


def test_context_ranks_by_the_branch_and_commits_and_explains_it(
    tmp_path: Path, kb: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    billing = checkout(tmp_path, "billing", "https://github.com/example/billing", {"README.md": "hi\n"})
    git(billing, "switch", "--quiet", "-c", "fix/JIRA-7-refund-status")
    (billing / "src/billing/api").mkdir(parents=True)
    (billing / "src/billing/api/errors.py").write_text("x = 1\n", encoding="utf-8")
    commit_all(billing, "Map refund errors to statuses")
    argv = ("context", "--kb", str(kb), "--checkout", str(billing), "--explain")
    code, out, _ = run(capsys, *argv)
    assert code == 0 and "Task words: refund, status, map, errors, start." in out
    assert "task #1" in out
    code, out, _ = run(capsys, *argv, "--task", "idempotent retries")
    assert "Task words: idempotent, retries." in out
    code, out, _ = run(capsys, *argv, "--no-task")
    assert "Task words: none (ranked by the touched paths alone)." in out and "task #" not in out
    code, out, _ = run(capsys, "context", "--kb", str(kb), "--checkout", str(billing), "--format", "json")
    assert json.loads(out)["task"][:2] == ["refund", "status"]
    # --files names the paths by hand, so no git runs and only --task gives a task
    code, out, _ = run(capsys, *argv, "--files", "src/billing/api/errors.py")
    assert "Task words: none" in out
    with pytest.raises(SystemExit):
        main([*argv, "--task", "x", "--no-task"])


@pytest.mark.parametrize("days", ["0", "100000000"])
def test_report_bounds_its_window(kb: Path, capsys: pytest.CaptureFixture[str], days: str) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["report", "--kb", str(kb), "--days", days])
    assert exited.value.code == 2
    assert f"argument --days: {days} is out of range: give a number from 1 to 3650" in capsys.readouterr().err
