"""How well the MCP `context` tool ranks for a client that sends only `files`, through real checkouts.

    .venv/bin/python benchmarks/bench_mcp_task.py [--fixture reviews|reviews_heldout]

For every touched-file case of the fixture (default: both; `reviews` is the set selection was tuned
on, `reviews_heldout` was written afterwards and never tuned on), a git checkout is made as the PR's
author had it: origin the case's repo, a base branch ending in a merge commit, the case's branch (detached
where the merge commit names none) and one commit per commit subject, oldest first, each touching the
case's files. Then, in that checkout:

- MCP, paths only: `context` with `files` as it ranked before it read the checkout (no task words);
- MCP, with the checkout: the server's own task words (`McpSession.task_of`: the branch and the
  last three commits' subjects, read from git), the case's files;
- the same with `task` set to the PR's title, standing in for the few words an agent says it is doing;
- session start: what the SessionStart hook ranks (`change_from_git`, `session_task`, `session_view`):
  touched paths and task words both from git.

Prints Hit@1/3/5 and MRR of each over the cases; numbers only, no time is measured.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from homeostat.core.measure.eval import Case
    from homeostat.core.render.view import View

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ("reviews", "reviews_heldout")
ORIGINS = {"pip": "https://github.com/pypa/pip.git", "flask": "https://github.com/pallets/flask.git"}
WHO = ("-c", "user.name=bench", "-c", "user.email=bench@example.invalid")


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *WHO, *args], cwd=cwd, check=True, capture_output=True)


def checkout_for(case: Case, where: Path) -> Path:
    """A checkout as the case's author had it: its branch, its commits (oldest first) on a base whose
    tip is a merge commit, every commit touching the case's files."""
    where.mkdir(parents=True)
    git(where, "init", "--quiet", "--initial-branch=upstream")  # the case may be on a fork's `main`
    git(where, "remote", "add", "origin", ORIGINS[case.repo or "pip"])
    git(where, "commit", "--quiet", "--allow-empty", "-m", "Merge pull request #1 from upstream/main")
    if case.branch:
        git(where, "switch", "--quiet", "-c", case.branch)
    else:
        git(where, "switch", "--quiet", "--detach")
    for n, subject in enumerate(reversed(case.commits)):
        for name in case.files:
            path = where / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(f"step {n}\n", encoding="utf-8")
        git(where, "add", "--all")
        git(where, "commit", "--quiet", "-m", subject)
    return where


def measure(fixture: Path) -> None:
    from homeostat.core.measure.eval import case_metrics, mean_metrics, parse_cases
    from homeostat.core.render.view import build_view
    from homeostat.mcp_server import build_server

    text = (fixture / "eval/selection.yaml").read_text(encoding="utf-8")
    cases = [c for c in parse_cases(text) if c.files]
    rows: dict[str, list[dict[str, float]]] = {"paths": [], "mcp": [], "stated": [], "session": []}
    with tempfile.TemporaryDirectory() as scratch:
        kb = Path(scratch) / "kb"
        shutil.copytree(fixture, kb, ignore=shutil.ignore_patterns(".homeostat"))
        for n, case in enumerate(cases):
            checkout = checkout_for(case, Path(scratch) / f"case{n}")
            server = build_server(str(kb), checkout)
            s = server.service.session()
            views = {
                "paths": build_view(s.corpus, case.files, s.audience, s.counter()),
                "mcp": build_view(
                    s.corpus, case.files, s.audience, s.counter(), task=server.service.task_of(s, None)
                ),
                "stated": build_view(
                    s.corpus, case.files, s.audience, s.counter(), task=server.service.task_of(s, case.name)
                ),
                "session": session_start(kb, checkout),
            }
            for name, view in views.items():
                ranked = [r.entry.id for r in view.selection.ranked]
                rows[name].append(case_metrics(ranked, case.expect, view.served_ids))
    labels = {
        "paths": "MCP context, files only (before)",
        "mcp": "MCP context, files + the checkout",
        "stated": "... + `task` (the PR's title)",
        "session": "session start (hook, all from git)",
    }
    print(f"{fixture.name} ({len(cases)} touched-file cases)")
    for name, label in labels.items():
        m = mean_metrics(rows[name])
        print(
            f"  {label:<36} Hit@1 {m['hit@1']:.3f}  Hit@3 {m['hit@3']:.3f}  Hit@5 {m['hit@5']:.3f}  "
            f"MRR {m['mrr']:.3f}  served {m['served']:.3f}"
        )


def session_start(kb: Path, checkout: Path) -> View:
    """The SessionStart hook's ranking in this checkout: touched paths and task words from git."""
    from homeostat.adapters.cache.corpus_cache import change_from_git
    from homeostat.runs.session import open_session, session_task, session_view

    change = change_from_git(checkout)
    session = open_session(str(kb), checkout, say_scope=False, own_part=True)
    return session_view(session, list(change.paths), checkout, "", task=session_task(None, False, change))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--fixture", choices=FIXTURES, action="append")
    args = parser.parse_args(argv)
    os.environ.pop("HOMEOSTAT_MEMBER", None)
    for name in args.fixture or FIXTURES:
        measure(ROOT / "tests" / "fixtures" / name)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
