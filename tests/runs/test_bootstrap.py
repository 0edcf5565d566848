"""`homeostat bootstrap` end to end: every repo's checkout, one PR per repo on the GitHub emulator.

The KB repo lives on the emulator (a real bare git repo); the code checkouts sit beside the KB
checkout, as on a laptop; the model is the Anthropic stub behind the real client.
"""

from __future__ import annotations

import datetime as dt
import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from bootstrapkit import PLANTED, Drafter, git, monorepo
from dailyworld import DailyWorld
from emulators.anthropic_stub import planted_secret_values
from racekit import KILLPOINT, daily_env

from homeostat.adapters.git.plumbing import Git
from homeostat.cli import main
from homeostat.core.validate import validate_files

ARCHITECTURE = "knowledge/billing/api/docs/architecture.md"
RUNBOOK = "knowledge/billing/api/docs/runbook.md"


@pytest.fixture
def planted_secrets() -> list[str]:
    return [*planted_secret_values(), *PLANTED]


class World(DailyWorld):
    def __init__(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        self.drafter = Drafter()
        self.stub.respond_with(self.drafter)
        self.code = self.tmp / "code"
        self.code.mkdir()
        self.billing = monorepo(self.code / "billing")
        storefront = self.code / "storefront"
        (storefront / "web/components").mkdir(parents=True)
        (storefront / "README.md").write_text("# Storefront\n\nThe shop's web front end.\n")
        (storefront / "package.json").write_text('{"name": "storefront", "scripts": {"dev": "vite"}}\n')
        (storefront / "web/components/Button.tsx").write_text("export const Button = () => null;\n")
        git(storefront, "init", "--quiet", "-b", "main")
        git(storefront, "add", "-A")
        git(storefront, "commit", "--quiet", "-m", "storefront")
        git(storefront, "remote", "add", "origin", "https://github.com/example/storefront.git")

    def bootstrap(self, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
        self.env()
        code = main(
            ["bootstrap", "--kb", str(self.checkout()), "--checkouts", str(self.code), "--yes", *args]
        )
        out, err = capsys.readouterr()
        return code, out, err

    def branch_files(self, branch: str) -> dict[str, str]:
        return {p: d.decode() for p, d in self.bare().read_files(f"refs/heads/{branch}").items()}

    def bootstrap_pulls(self) -> dict[str, object]:
        return {p.head_ref: p for p in self.pulls().values() if p.head_ref.startswith("homeostat/bootstrap-")}


@pytest.fixture
def world(github_harness, anthropic_stub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:  # type: ignore[no-untyped-def]
    return World(github_harness, anthropic_stub, tmp_path, monkeypatch)


def test_bootstrap_opens_one_pr_per_repo_with_drafted_and_imported_documents(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = world.bootstrap(capsys)
    assert code == 0, out + err
    pulls = world.bootstrap_pulls()
    assert set(pulls) == {"homeostat/bootstrap-billing", "homeostat/bootstrap-storefront"}
    billing = pulls["homeostat/bootstrap-billing"]
    assert billing.state == "open" and billing.merged_at is None  # a person merges it
    assert billing.reviewers == ["ana"]
    assert "`src/billing/db/models.py`" in billing.body and "`docs/runbook.md`" in billing.body
    assert "Never read: 8 file(s)" in billing.body
    files = world.branch_files("homeostat/bootstrap-billing")
    assert "source=bootstrap" in files[ARCHITECTURE]
    runbook = files[RUNBOOK]
    assert "## Restarting the worker {#restarting-the-worker}" in runbook and "source=import" in runbook
    assert "(https://github.com/example/billing/blob/HEAD/charts/billing/values.yaml)" in runbook
    assert world.main_files().get(ARCHITECTURE) is None  # nothing reaches main without a person
    for branch in pulls:  # what a person is asked to merge passes the KB's own PR check
        errors = validate_files(world.branch_files(branch), dt.datetime.now(dt.UTC).date()).errors
        assert not errors, (branch, errors)
    assert "drafting billing" in err and f"/example/kb/pull/{billing.number}" in out


def test_a_rerun_over_unchanged_repos_makes_no_call_and_no_new_commit(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    assert world.bootstrap(capsys)[0] == 0
    calls = len(world.stub.requests)
    tip = world.bare().rev_parse("refs/heads/homeostat/bootstrap-billing")
    code, out, err = world.bootstrap(capsys)
    assert code == 0, out + err
    assert len(world.stub.requests) == calls
    assert world.bare().rev_parse("refs/heads/homeostat/bootstrap-billing") == tip
    assert len(world.bootstrap_pulls()) == 2 and len(world.pulls()) == 2
    assert "skipped 5 (unchanged" in out


def test_a_reviewers_edit_on_the_branch_survives_and_the_disagreement_is_in_the_pr_body(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    assert world.bootstrap(capsys)[0] == 0
    branch = "homeostat/bootstrap-billing"
    review = world.tmp / "review"
    git(world.tmp, "clone", "--quiet", "-b", branch, str(world.harness.bare_path(world.kb_repo)), str(review))
    doc = review / ARCHITECTURE
    mine = "The billing API is a FastAPI app behind the gateway."
    doc.write_text(
        doc.read_text().replace("The architecture of billing, as `README.md` shows it (draft 1).", mine)
    )
    git(review, "commit", "--quiet", "-am", "Reviewer: say what the API is")
    git(review, "push", "--quiet", "origin", branch)
    reviewed = world.bare().rev_parse(f"refs/heads/{branch}")
    (world.billing / "README.md").write_text("# Billing\n\nThe billing service, now with receipts.\n")
    git(world.billing, "commit", "--quiet", "-am", "receipts")
    world.drafter.version = 2
    code, out, err = world.bootstrap(capsys)
    assert code == 0, out + err
    files = world.branch_files(branch)
    assert mine in files[ARCHITECTURE]
    tip = world.bare().rev_parse(f"refs/heads/{branch}")
    assert (
        tip != reviewed
        and Git(world.harness.bare_path(world.kb_repo))
        .run("merge-base", "--is-ancestor", reviewed, tip, check=False)
        .returncode
        == 0
    )  # built on the reviewer's commit, never forced over it
    pull = world.bootstrap_pulls()[branch]
    assert f"source now disagrees on section overview ({ARCHITECTURE}) — kept" in pull.body  # type: ignore[attr-defined]
    assert len(world.pulls()) == 2


def test_after_the_pr_is_merged_a_rerun_opens_nothing(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    assert world.bootstrap(capsys)[0] == 0
    for pull in world.bootstrap_pulls().values():
        world.harness.merge_as(world.kb_repo, pull.number, "ana")  # type: ignore[attr-defined]
    assert ARCHITECTURE in world.main_files()
    calls = len(world.stub.requests)
    code, out, err = world.bootstrap(capsys)
    assert code == 0, out + err
    assert len(world.stub.requests) == calls
    assert [p.state for p in world.pulls().values()] == ["merged", "merged"] or all(
        p.state != "open" for p in world.pulls().values()
    )


def test_the_dry_run_needs_no_host_and_lists_every_repo(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["bootstrap", "--kb", str(world.checkout()), "--checkouts", str(world.code), "--dry-run"])
    out, _ = capsys.readouterr()
    assert code == 0
    assert "billing (checkout" in out and "storefront (checkout" in out
    assert "Markdown docs imported without a model: 1" in out and "docs/runbook.md → " + RUNBOOK in out
    assert world.stub.requests == [] and world.pulls() == {}
    command = ["bootstrap", "--kb", str(world.checkout()), "--checkouts", str(world.code), "--dry-run"]
    assert main([*command, "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)  # the shape docs/cli.md promises
    assert set(data) == {"dryRun", "plans", "prs", "notes", "costUsd", "exitCode", "text"}
    assert [plan["repo"] for plan in data["plans"]] == ["billing", "storefront"] and data["prs"] == {}
    assert all(  # "as seed's"
        set(plan) == {"repo", "checkout", "topics", "docs", "neverRead", "refused", "unreadable"}
        for plan in data["plans"]
    )
    assert world.stub.requests == []


def test_a_repo_without_a_checkout_is_named_and_the_others_still_run(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    import shutil

    shutil.rmtree(world.code / "storefront")
    code, out, err = world.bootstrap(capsys)
    assert code == 1
    assert f"homeostat: storefront: no checkout found in {world.code}" in err
    assert set(world.bootstrap_pulls()) == {"homeostat/bootstrap-billing"}


@pytest.mark.parametrize("point", ["after-push", "after-open"])
def test_a_run_killed_between_push_and_pr_or_between_repos_leaves_no_twin_after_a_rerun(
    world: World, capsys: pytest.CaptureFixture[str], point: str
) -> None:
    """SIGKILLed after billing's branch was pushed (no PR yet), or after its PR was opened (storefront
    not yet published): the rerun ends with one PR per repo, each branch a clean draft."""
    killed = subprocess.run(
        [sys.executable, str(KILLPOINT), point, "bootstrap", "--kb", str(world.checkout())]
        + ["--checkouts", str(world.code), "--yes"],
        env=daily_env(world),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert killed.returncode == -signal.SIGKILL, killed.stdout + killed.stderr
    left = world.bootstrap_pulls()
    assert len(left) == (1 if point == "after-open" else 0)
    calls = len(world.stub.requests)
    code, out, err = world.bootstrap(capsys)
    assert code == 0, out + err
    pulls = world.bootstrap_pulls()
    assert set(pulls) == {"homeostat/bootstrap-billing", "homeostat/bootstrap-storefront"}
    assert len(world.pulls()) == 2 and all(p.state == "open" for p in pulls.values())  # type: ignore[attr-defined]
    assert "source=bootstrap" in world.branch_files("homeostat/bootstrap-billing")[ARCHITECTURE]
    if point == "after-open":  # billing's open PR holds its drafts: nothing of it is paid for again
        assert pulls["homeostat/bootstrap-billing"].number == left["homeostat/bootstrap-billing"].number  # type: ignore[attr-defined]
        assert world.drafter.calls[calls:].count("architecture") == 1  # storefront's only


def test_a_doc_written_in_chinese_or_french_keeps_its_headings_and_passes_validate() -> None:
    """Ids are made from the headings as written, never squashed to ASCII placeholders."""
    from kbfactory import example_files

    from homeostat.core.bootstrap.markdown_docs import document_name, import_markdown
    from homeostat.core.bootstrap.merge import DocumentDraft, merge_validated
    from homeostat.core.bootstrap.placement import document_path

    source = "# 系统设计\n\n概述。\n\n## 数据库\n\n我们使用 PostgreSQL 存储发票。\n\n## Déploiement\n\nÇa marche.\n"
    imported = import_markdown("docs/设计.md", source, "https://github.com/example/billing/blob/HEAD")
    path = document_path("billing/api", document_name("docs/设计.md"))
    draft = DocumentDraft(
        path=path,
        title=imported.title,
        area="billing/api",
        owner="",
        scope=("**",),
        source="import",
        sections=imported.sections,
        source_hash="h",
    )
    files = example_files()
    today = dt.datetime.now(dt.UTC).date()
    text, _, blocked = merge_validated(None, draft, today, files["homeostat.yaml"])
    assert blocked == [] and text is not None
    assert "title: 系统设计" in text and "## 数据库 {#数据库}" in text and "{#deploiement}" in text
    assert not validate_files({**files, path: text}, today).errors


def test_two_runs_at_once_never_open_a_twin_and_a_rerun_settles_it(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    """Both plan from the same base and push the same branches: the loser's push is refused (never
    forced), it says so in one line, and a later run finishes what it left."""
    command = [sys.executable, "-m", "homeostat", "bootstrap", "--checkouts", str(world.code), "--yes"]
    runs = [
        subprocess.Popen(
            [*command, "--kb", str(world.checkout())],
            env=daily_env(world),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    outputs = [run.communicate(timeout=300) for run in runs]
    for run, (out, err) in zip(runs, outputs, strict=True):
        assert run.returncode in (0, 1), out + err
        assert "Traceback" not in err, err
        if run.returncode == 1:  # the loser says which push was refused, in one line
            assert "homeostat: could not push homeostat/bootstrap-" in err, err
    assert len(world.pulls()) <= 2 and len(set(world.bootstrap_pulls())) == len(world.pulls())
    code, out, err = world.bootstrap(capsys)
    assert code == 0, out + err
    assert set(world.bootstrap_pulls()) == {"homeostat/bootstrap-billing", "homeostat/bootstrap-storefront"}
    assert len(world.pulls()) == 2
    for branch in world.bootstrap_pulls():
        assert not validate_files(world.branch_files(branch), dt.datetime.now(dt.UTC).date()).errors
