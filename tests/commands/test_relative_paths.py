"""Every command that writes, run from inside the folder it writes with relative paths (`init` in the
current folder, `--kb .`, `--checkout .`, `--output CODEOWNERS`, `../checkout`), as a person types it.

Each case is the installed `homeostat` entry point as a real process with its working folder set;
`init` is run exactly as docs/setup.md's first example shows it (only the clone URL points at a
local bare repository). A bare file name's folder is "", which the atomic writer once handed to
makedirs: init crashed after writing `.github/` alone, and so did `codeowners --output CODEOWNERS`
and `export --checkout .`.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from bootstrapkit import Drafter, monorepo
from dailyworld import DailyWorld
from gitfixtures import commit, git, make_bare
from kbfactory import EXAMPLE
from kit import REPO

BIN = Path(sys.executable).parent
HOMEOSTAT = BIN / "homeostat"  # the installed entry point
SETUP = REPO / "docs" / "setup.md"
DOCS_KB_URL = "https://github.com/acme/kb"


def homeostat(cwd: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [str(HOMEOSTAT), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **(env or {})},
    )
    assert done.returncode == 0, f"homeostat {' '.join(args)} in {cwd}: {done.stdout}{done.stderr}"
    assert "internal error" not in done.stderr, done.stderr
    return done


def setup_example() -> str:
    """The shell lines of docs/setup.md's first example that set the KB up (doctor, which checks the
    live host and writes nothing, is left out)."""
    block = re.search(r"```sh\n(.*?)```", SETUP.read_text(encoding="utf-8"), re.DOTALL)
    assert block is not None, "docs/setup.md lost its first example"
    lines = block.group(1).replace("\\\n", "").splitlines()
    assert lines[-1] == "homeostat doctor", lines
    return "\n".join(lines[:-1])


def test_init_in_the_current_folder_as_docs_setup_shows_then_every_writer_with_relative_paths(
    tmp_path: Path,
) -> None:
    origin = make_bare(tmp_path / "host" / "kb.git")  # cloned as `kb`, as the docs URL is
    script = setup_example().replace(DOCS_KB_URL, str(origin))
    assert "cd kb\nhomeostat init " in script.replace(" && ", "\n")
    shell = subprocess.run(
        ["bash", "-e", "-c", script],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"},
    )
    assert shell.returncode == 0, shell.stdout + shell.stderr
    assert "internal error" not in shell.stderr
    kb = tmp_path / "kb"
    assert "validate: 0 errors" in shell.stdout
    assert git(origin, "ls-tree", "-r", "--name-only", "HEAD").splitlines() == [
        ".github/CODEOWNERS",
        ".github/workflows/homeostat-daily.yml",
        ".github/workflows/homeostat-deep-dive.yml",
        ".github/workflows/homeostat-digest.yml",
        ".github/workflows/homeostat-review-merge.yml",
        ".github/workflows/homeostat-validate.yml",
        ".gitignore",
        "homeostat.yaml",
        "knowledge/core/README.md",
    ]

    rerun = homeostat(kb, "init", "--kb", ".", "--format", "json")
    assert {f["outcome"] for f in json.loads(rerun.stdout)["files"]} == {"unchanged"}

    homeostat(kb, "codeowners", "--output", "CODEOWNERS")
    assert re.search(r"^/CODEOWNERS +@ana @bo$", (kb / "CODEOWNERS").read_text(), re.MULTILINE)
    (kb / ".github" / "CODEOWNERS").unlink()
    homeostat(kb, "codeowners", "--kb", ".")
    assert (kb / ".github" / "CODEOWNERS").is_file()

    lesson = [
        "--title",
        "Money in cents",
        "--rule",
        "Keep amounts in integer cents.",
        "--why",
        "Floats round.",
    ]
    member = {"HOMEOSTAT_MEMBER": "ana"}
    homeostat(kb, "learn", "--kb", ".", *lesson, "--area", "core", env=member)
    assert len(list((kb / ".homeostat" / "pending").glob("*.json"))) == 1
    homeostat(kb, "sync", env=member)
    assert ".homeostat/pending/" in git(origin, "ls-tree", "-r", "--name-only", "candidates/ana")
    assert "Keep amounts in integer cents" in homeostat(kb, "context", "--kb", ".", "--files", "a.py").stdout
    homeostat(kb, "search", "cents", "--kb", ".")
    homeostat(kb, "validate", "--fix", "--kb", ".")

    ledger = tmp_path / "ledger"
    ledger.mkdir()
    git(ledger, "init", "--quiet", "--initial-branch=main")
    git(ledger, "remote", "add", "origin", "https://github.com/acme/ledger")
    commit(ledger, {"README.md": "ledger\n"})
    homeostat(ledger, "export", "--formats", "agents", "--checkout", ".", "--kb", "../kb")
    assert "## Team rules (Homeostat)" in (ledger / "AGENTS.md").read_text()  # merged rules only: none yet
    (ledger / "AGENTS.md").unlink()
    homeostat(kb, "export", "--formats", "agents", "--checkout", "../ledger")
    assert (ledger / "AGENTS.md").is_file()
    assert git(kb, "status", "--porcelain") == "?? CODEOWNERS"  # the caches and pending stay ignored


def test_seed_writes_its_documents_into_the_kb_it_runs_in(
    tmp_path: Path,
    anthropic_stub,  # type: ignore[no-untyped-def]
) -> None:
    kb = tmp_path / "kb"
    shutil.copytree(EXAMPLE, kb, ignore=shutil.ignore_patterns(".homeostat"))
    monorepo(tmp_path / "billing")
    anthropic_stub.respond_with(Drafter())
    model = {"ANTHROPIC_API_KEY": "sk-ant-test", "ANTHROPIC_BASE_URL": anthropic_stub.url, "CI": "true"}
    done = homeostat(
        kb, "seed", "--checkout", "../billing", "--kb", ".", "--yes", "--topic", "data", env=model
    )
    assert "knowledge/billing/db/docs/data.md" in done.stdout
    assert (kb / "knowledge" / "billing" / "db" / "docs" / "data.md").is_file()


def test_the_runs_that_push_to_the_host_work_from_inside_the_kb_with_kb_dot(
    world: DailyWorld, tmp_path: Path
) -> None:
    world.env()
    checkout = world.checkout()
    homeostat(checkout, "daily", "--kb", ".")
    assert world.bare().rev_parse("refs/heads/homeostat/state") is not None
    homeostat(checkout, "digest", "--kb", ".")
    homeostat(checkout, "deep-dive", "--kb", ".")
    homeostat(checkout, "review", "merge", "--all", "--kb", ".")

    billing = tmp_path / "billing"
    billing.mkdir()
    git(billing, "init", "--quiet", "--initial-branch=main")
    git(billing, "remote", "add", "origin", "https://github.com/example/billing.git")
    commit(billing, {"AGENTS.md": "- Never log a card number in `src/payments/**`.\n"})
    homeostat(checkout, "import", "--checkout", "../billing", "--kb", ".")
    assert "homeostat/import-billing" in {p.head_ref for p in world.pulls().values()}
