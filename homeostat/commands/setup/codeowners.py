"""`homeostat codeowners`: write CODEOWNERS from homeostat.yaml, or check that it is current.

The file is generated (its header says so), so this command overwrites it without asking; `init`
writes the same text the first time. `--check` is for CI and pre-commit: it changes nothing, prints
the diff and exits 1 when the committed file is missing or stale.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from homeostat.adapters.kb_files import write_changed
from homeostat.cli_options import add_format_option, add_kb_option, emit_json
from homeostat.core.setup.codeowners import default_path, render_codeowners
from homeostat.core.setup.diff import unified_diff
from homeostat.errors import ConfigError
from homeostat.workspace import Workspace


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "codeowners",
        help="write CODEOWNERS from homeostat.yaml (--check fails when it is stale)",
        description=(
            "Write the KB repo's CODEOWNERS: each area's folder to its owning team (or the team's members), "
            "homeostat.yaml, knowledge/core/, the CI files and CODEOWNERS itself to the seniors and leads. "
            "homeostat validate (the PR check) fails while the generated file is stale."
        ),
    )
    add_kb_option(parser)
    parser.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 with the diff when the file is stale"
    )
    parser.add_argument(
        "--output",
        metavar="PATH",
        help="where to write it, relative to the KB (default: .github/CODEOWNERS, or .bitbucket/CODEOWNERS)",
    )
    add_format_option(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, workspace: Workspace) -> int:
    root, config = workspace.root, workspace.config
    relative = _relative(root, args.output or default_path(config.sources.host))
    target = root / relative
    wanted = render_codeowners(config, relative)
    current = target.read_text(encoding="utf-8") if target.is_file() else None
    stale = current != wanted
    diff = unified_diff(relative, current, wanted) if stale else ""
    written = False
    if stale and not args.check:
        written = bool(write_changed(root, {relative: wanted}))
    if args.format == "json":
        emit_json({"path": relative, "stale": stale, "written": written, "diff": diff})
    elif args.check and stale:
        workspace.out.write(diff)
        state = "missing" if current is None else "stale"
        print(f"homeostat: {relative} is {state}: run homeostat codeowners and commit it", file=sys.stderr)
    else:
        print(f"wrote {relative}" if written else f"{relative} is up to date")
    return 1 if args.check and stale else 0


def _relative(root: Path, output: str) -> str:
    """The output as a path inside the KB (CODEOWNERS names itself, and must live in the repository)."""
    path = Path(output)
    resolved = (path if path.is_absolute() else root / path).resolve()
    try:
        return resolved.relative_to(root.resolve()).as_posix()
    except ValueError:
        raise ConfigError(f"--output {output}: CODEOWNERS must be inside the KB repo ({root})") from None
