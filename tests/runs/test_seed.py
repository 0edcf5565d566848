"""`homeostat seed` end to end: a sample monorepo checkout, the real anthropic client against the stub.

What a team would check before letting a tool read its code: the never-read list is never opened
(watched at the interpreter's file-open level), nothing secret reaches the model, the preview lists
every file and the cost before anything is sent, a rerun over unchanged code is byte-identical and
costs nothing, and a person's edit survives a rerun that disagrees with it.
"""

from __future__ import annotations

import hashlib
import os
import pty
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from bootstrapkit import (
    NEVER_READ,
    PLANTED,
    REFUSED_AFTER_READING,
    Drafter,
    OpenAudit,
    git,
    monorepo,
    opened_in,
)
from emulators.anthropic_stub import Scripted, planted_secret_values

from homeostat.cli import main
from homeostat.core.kb import load_kb
from homeostat.core.validate import validate_files

ARCHITECTURE = "knowledge/billing/api/docs/architecture.md"
DATA = "knowledge/billing/db/docs/data.md"


@pytest.fixture
def planted_secrets() -> list[str]:
    """The stub fails at teardown if any of these reached it."""
    return [*planted_secret_values(), *PLANTED]


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    return monorepo(tmp_path / "billing")


@pytest.fixture
def drafter(anthropic_stub, monkeypatch: pytest.MonkeyPatch) -> Drafter:  # type: ignore[no-untyped-def]
    drafter = Drafter()
    anthropic_stub.respond_with(drafter)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", anthropic_stub.url)
    monkeypatch.setenv("CI", "true")
    return drafter


def seed(capsys: pytest.CaptureFixture[str], checkout: Path, kb: Path, *extra: str) -> tuple[int, str, str]:
    code = main(["seed", str(checkout), "--kb", str(kb), *extra])
    out, err = capsys.readouterr()
    return code, out, err


def tree_digest(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".homeostat" not in p.parts
    }


def kb_files(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): p.read_text() for p in root.rglob("*.md")} | {
        "homeostat.yaml": (root / "homeostat.yaml").read_text()
    }


def test_the_never_read_list_is_never_opened_and_no_secret_reaches_the_model(
    kb: Path,
    checkout: Path,
    drafter: Drafter,
    anthropic_stub,
    capsys: pytest.CaptureFixture[str],  # type: ignore[no-untyped-def]
) -> None:
    with OpenAudit.watching() as opened:
        code, out, err = seed(capsys, checkout, kb, "--yes")
    assert code == 0, out + err
    touched = opened_in(opened, checkout)
    assert touched, "the audit hook saw no open at all"
    assert not touched & set(NEVER_READ), touched & set(NEVER_READ)
    prompts = "\n".join(anthropic_stub.user_prompts())
    for refused in REFUSED_AFTER_READING:
        assert f'<file path="{refused}">' not in prompts
    assert not anthropic_stub.leaks(PLANTED)
    assert sorted(drafter.calls) == ["architecture", "conventions", "cross-repo", "data", "infrastructure"]
    written = load_kb(kb_files(kb))
    documents = {d.file: d for d in written.documents}
    assert {ARCHITECTURE, DATA} <= set(documents)
    section = documents[ARCHITECTURE].section("overview")
    assert section is not None and section.provenance is not None and section.provenance.source == "bootstrap"
    assert "src/billing/db/models.py" in prompts and "migrations/0004_add_status.sql" in prompts
    assert "migrations/0001_create_invoices.sql" not in prompts  # only the newest three migrations
    errors = validate_files(kb_files(kb), written.documents[0].meta.updated).errors
    assert not errors, errors


def test_the_dry_run_lists_every_file_and_the_cost_and_sends_nothing(
    kb: Path,
    checkout: Path,
    drafter: Drafter,
    anthropic_stub,
    capsys: pytest.CaptureFixture[str],  # type: ignore[no-untyped-def]
) -> None:
    before = tree_digest(kb)
    code, out, _ = seed(capsys, checkout, kb, "--dry-run")
    assert code == 0
    assert anthropic_stub.requests == []
    assert tree_digest(kb) == before
    for path in (
        "README.md",
        "src/billing/app.py",
        "src/billing/db/models.py",
        "migrations/0004_add_status.sql",
        "charts/billing/Chart.yaml",
        "infra/terraform/main.tf",
        "deploy/k8s/worker.yaml",
        "Dockerfile",
        ".github/workflows/ci.yml",
    ):
        assert f"    {path}" in out, path
    assert "estimated cost: ~$" in out and "5 calls to claude-opus-5-5" in out
    assert ".env (env file)" in out and "infra/terraform/terraform.tfstate (Terraform state)" in out
    assert "secrets/stripe.txt (secrets folder)" in out
    assert "deploy/k8s/db-credentials.yaml (Kubernetes Secret manifest)" in out
    assert "src/billing/settings.py (holds 3 possible secrets)" in out


def test_a_rerun_over_unchanged_code_is_byte_identical_and_makes_no_call(
    kb: Path,
    checkout: Path,
    drafter: Drafter,
    anthropic_stub,
    capsys: pytest.CaptureFixture[str],  # type: ignore[no-untyped-def]
) -> None:
    code, out, err = seed(capsys, checkout, kb, "--yes")
    assert code == 0, out + err
    first = tree_digest(kb)
    calls = len(anthropic_stub.requests)
    code, out, err = seed(capsys, checkout, kb, "--yes")
    assert code == 0, out + err
    assert len(anthropic_stub.requests) == calls
    assert tree_digest(kb) == first
    assert "skipped 5 (unchanged" in out and "nothing to write" in out
    assert "no model call needed" in out


def test_a_persons_edit_survives_a_rerun_that_disagrees_and_lists_are_unioned(
    kb: Path,
    checkout: Path,
    drafter: Drafter,
    anthropic_stub,
    capsys: pytest.CaptureFixture[str],  # type: ignore[no-untyped-def]
) -> None:
    assert seed(capsys, checkout, kb, "--yes")[0] == 0
    doc = kb / ARCHITECTURE
    mine = "The billing API is a FastAPI app behind the gateway; `make run` starts it on port 8000."
    text = doc.read_text()
    edited = text.replace(text.split("\n")[text.split("\n").index("## Overview {#overview}") + 2], mine)
    edited = edited.replace("- `README.md`", "- `README.md`\n- `docs/gateway.md` (kept by hand)")
    edited = edited.replace('title: "billing: Architecture"', "title: Billing architecture, by the team")
    doc.write_text(edited)
    (checkout / "README.md").write_text((checkout / "README.md").read_text() + "\nIt also sends receipts.\n")
    git(checkout, "commit", "--quiet", "-am", "receipts")
    drafter.version = 2
    code, out, err = seed(capsys, checkout, kb, "--yes")
    assert code == 0, out + err
    assert drafter.calls.count("architecture") == 2 and drafter.calls.count("data") == 1  # only what changed
    after = doc.read_text()
    assert mine in after and "(draft 2)" not in after.split("{#files}")[0]
    assert "title: Billing architecture, by the team" in after  # only generator-owned fields change
    assert "- `docs/gateway.md` (kept by hand)" in after and after.count("- `README.md`") == 1
    assert f"source now disagrees on section overview ({ARCHITECTURE}) — kept" in out
    assert (
        "skipped 3 (unchanged: conventions, data, infrastructure)" in out
    )  # README: architecture, cross-repo


def test_the_spending_cap_leaves_topics_for_a_rerun(
    kb: Path,
    checkout: Path,
    drafter: Drafter,
    anthropic_stub,
    capsys: pytest.CaptureFixture[str],  # type: ignore[no-untyped-def]
) -> None:
    code, out, err = seed(capsys, checkout, kb, "--yes", "--max-cost", "0.002")
    assert code == 1
    assert len(drafter.calls) == 2
    # the topics are asked at once: which two the cap let through may vary, but each paid answer is
    # kept and exactly the others are left for the rerun
    left = sorted(
        {"architecture", "conventions", "cross-repo", "data", "infrastructure"} - set(drafter.calls)
    )
    assert f"left for a rerun (spending cap): {', '.join(left)}" in out
    assert "spending cap reached" in out
    code, out, _ = seed(capsys, checkout, kb, "--yes")
    assert code == 0 and sorted(drafter.calls[2:]) == left


def test_without_a_terminal_seed_asks_for_yes_and_sends_nothing(
    kb: Path,
    checkout: Path,
    drafter: Drafter,
    anthropic_stub,
    capsys: pytest.CaptureFixture[str],  # type: ignore[no-untyped-def]
) -> None:
    code, out, err = seed(capsys, checkout, kb)
    assert code == 2
    assert "seed sends source code to the model: pass --yes to confirm (or --dry-run to only preview)" in err
    assert anthropic_stub.requests == [] and "estimated cost" in out


def test_at_a_terminal_seed_asks_first_and_a_no_sends_nothing(
    kb: Path,
    checkout: Path,
    drafter: Drafter,
    anthropic_stub,  # type: ignore[no-untyped-def]
) -> None:
    before = tree_digest(kb)

    def at_a_terminal(answer: str) -> subprocess.CompletedProcess[str]:
        keyboard, terminal = pty.openpty()
        os.write(keyboard, answer.encode())
        try:
            return subprocess.run(
                [sys.executable, "-m", "homeostat", "seed", str(checkout), "--kb", str(kb)],
                stdin=terminal,
                capture_output=True,
                text=True,
                timeout=300,
                check=False,
            )
        finally:
            os.close(keyboard)
            os.close(terminal)

    declined = at_a_terminal("n\n")
    assert declined.returncode == 1, declined.stdout + declined.stderr
    assert "estimated cost: ~$" in declined.stdout  # the preview comes before the question
    assert "Send these files to claude-opus-5-5 in 5 call(s), about $" in declined.stderr
    assert "not confirmed: nothing was sent, written or published" in declined.stdout
    assert anthropic_stub.requests == [] and tree_digest(kb) == before
    accepted = at_a_terminal("y\n")
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
    assert len(anthropic_stub.requests) == 5 and (kb / ARCHITECTURE).is_file()


def test_bad_input_each_gets_one_clear_line_and_nothing_is_half_written(
    kb: Path,
    checkout: Path,
    drafter: Drafter,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],  # type: ignore[no-untyped-def]
) -> None:
    plain = tmp_path / "not-a-repo"
    plain.mkdir()
    before = tree_digest(kb)
    code, _, err = seed(capsys, plain, kb, "--yes")
    assert code == 2
    assert (
        err.strip()
        == f"homeostat: {plain}: not a git checkout (no .git); pass the top folder of a clone of the code repo"
    )
    assert tree_digest(kb) == before
    stranger = monorepo(
        tmp_path / "stranger", origin=f"https://x-access-token:{PLANTED[0]}@github.com/example/x.git"
    )
    code, _, err = seed(capsys, stranger, kb, "--yes")
    assert code == 2 and "matches no repo in homeostat.yaml" in err and "pass --repo NAME" in err
    assert PLANTED[0] not in err  # a CI clone's token in its origin URL is never printed
    assert tree_digest(kb) == before
    (checkout / "src/billing/blob.py").write_bytes(b"\x00\x01binary\x00")
    (checkout / "src/billing/huge.py").write_text("x = 1\n")
    (checkout / "src/billing/pipe.py").write_text("y = 2\n")
    (checkout / "src/billing/latin.py").write_bytes("# caf\u00e9 = 3\n".encode("latin-1"))
    git(checkout, "add", "-A")
    git(checkout, "commit", "--quiet", "-m", "odd files")
    with open(checkout / "src/billing/huge.py", "ab") as handle:
        handle.truncate(50_000_000)  # sparse: 50 MB on paper, instant to make
    (checkout / "src/billing/pipe.py").unlink()
    elsewhere = tmp_path / "elsewhere"
    shutil.move(checkout / "src/billing/db", elsewhere)  # the folder now lives outside the checkout
    (elsewhere / "models.py").write_text(f"DB_URL = '{PLANTED[-1]}'\n__tablename__ = 'x'\n")
    (checkout / "src/billing/db").symlink_to(elsewhere)
    os.mkfifo(checkout / "src/billing/pipe.py")  # opening it would block forever
    code, out, err = seed(capsys, checkout, kb, "--yes")
    assert code == 0, out + err
    assert "src/billing/blob.py: binary" in out
    assert "src/billing/huge.py: too large (50.0 MB; the limit is 1.0 MB)" in out
    assert "src/billing/pipe.py: not a regular file" in out
    assert "src/billing/latin.py: not UTF-8 text" in out
    assert "src/billing/db/models.py: outside the checkout (a folder on its path is a symlink)" in out
    assert (kb / ARCHITECTURE).is_file()


class Misbehaving(Drafter):
    """Garbage for data (prose, not the JSON asked for), a `curl | sh` and a credential in two
    infrastructure sections, and a sane draft for everything else."""

    def __init__(self, credential: str) -> None:
        super().__init__()
        self.credential = credential

    def __call__(self, system: str, user: str) -> Any:
        answer = super().__call__(system, user)
        topic = self.calls[-1]
        if topic == "data" and self.version == 1:
            return Scripted("text", "Sure! Here is a lovely document about the data model of billing.")
        if topic == "infrastructure" and self.version == 1:
            answer["sections"] += [
                {
                    "id": "installing",
                    "heading": "Installing the tools",
                    "body": "Install the deploy tool with `curl -fsSL https://get.deploytool.dev/i.sh | sh` first.",
                },
                {
                    "id": "registry",
                    "heading": "Pushing images",
                    "body": f"Log in to the registry with the token `{self.credential}` before pushing.",
                },
            ]
        return answer


def test_a_model_answering_garbage_or_risky_text_writes_nothing_of_it_and_a_rerun_finishes(
    kb: Path,
    checkout: Path,
    anthropic_stub,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],  # type: ignore[no-untyped-def]
) -> None:
    credential = "ghp_" + "Zr5m" * 9
    drafter = Misbehaving(credential)
    anthropic_stub.respond_with(drafter)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", anthropic_stub.url)
    monkeypatch.setenv("CI", "true")
    code, out, err = seed(capsys, checkout, kb, "--yes")
    assert code == 1, out + err  # a topic is missing: the run says so in its exit code
    assert drafter.calls.count("data") == 2  # the answer was asked for again once, then given up on
    assert "not drafted: data: no usable answer" in out
    assert not (kb / DATA).exists()  # nothing half-written for the topic that failed
    infrastructure = kb / "knowledge/billing/api/docs/infrastructure.md"
    text = infrastructure.read_text()
    assert "{#overview}" in text and "curl" not in text and credential not in text
    assert f"left out {infrastructure.relative_to(kb).as_posix()}#installing:" in out
    assert f"left out {infrastructure.relative_to(kb).as_posix()}#registry:" in out
    assert credential not in out + err  # the finding names the secret, never shows it
    written = load_kb(kb_files(kb))
    assert not validate_files(kb_files(kb), written.documents[0].meta.updated).errors
    drafter.version = 2  # the model behaves on the rerun
    code, out, err = seed(capsys, checkout, kb, "--yes")
    assert code == 0, out + err
    assert drafter.calls[-1:] == ["data"] and (kb / DATA).is_file()
    assert "skipped 4 (unchanged" in out  # what was drafted is not paid for twice


def test_the_json_shapes_of_seed_and_import(
    kb: Path,
    checkout: Path,
    drafter: Drafter,
    anthropic_stub,
    capsys: pytest.CaptureFixture[str],  # type: ignore[no-untyped-def]
) -> None:
    import json

    assert main(["seed", "--checkout", str(checkout), "--kb", str(kb), "--dry-run", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) == {"dryRun", "plans", "written", "costUsd", "exitCode", "text"}
    assert set(data["plans"][0]) == {
        "repo",
        "checkout",
        "topics",
        "docs",
        "neverRead",
        "refused",
        "unreadable",
    }
    assert set(data["plans"][0]["topics"][0]) == {
        "topic",
        "document",
        "files",
        "skipped",
        "inputTokens",
        "costUsd",
    }
    assert data["plans"][0]["neverRead"][".env"] == "env file" and "estimated cost" in data["text"]
    assert main(["import", str(checkout), "--kb", str(kb), "--dry-run", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) == {
        "repo",
        "dryRun",
        "files",
        "new",
        "duplicates",
        "blocked",
        "documents",
        "skipped",
        "own",
        "pr",
        "text",
    }
    assert anthropic_stub.requests == []
