"""`homeostat export <code-repo-checkout>`: write Claude, Cursor, Copilot and AGENTS.md rule files.

The repo comes from the checkout (its `origin`, else its folder name) unless `--repo` names it. Only
Homeostat's own files and the text between its markers are rewritten; a hand-written file where an
own file would go is left alone and reported. `--check` writes nothing and exits 1 when anything is
stale, or an always-on file (Claude rules without `paths`, Copilot's block and `applyTo: "**"` files,
the AGENTS.md block) is over its budget in `distribution.exports`; export fills those in `context`'s
order and says what it left out. Team-only areas and rejected decisions are never exported. A public repo needs
`--allow-public`: whether it is public cannot be asked of the code host offline, so the checkout is
treated as public when `--visibility public` says so, or the repo entry in homeostat.yaml has
`public: true`.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from homeostat.cli_options import add_checkout_option, add_format_option, add_kb_option, emit_json, one_of
from homeostat.console import Unreadable, note
from homeostat.core.export.budget import WHERE, Limit, limits_from, over_budget
from homeostat.core.export.formats import (
    COPILOT_DIR,
    FORMATS,
    ExportError,
    ExportPlan,
    always_on_sizes,
    apply_block,
    owns,
    paths_for,
    repo_export,
)
from homeostat.core.kb import classify
from homeostat.core.records import Record
from homeostat.core.selection.corpus import Corpus
from homeostat.core.text import plural
from homeostat.core.type_hints import cast
from homeostat.errors import ConfigError
from homeostat.runs.session import open_session
from homeostat.runs.sync import read_config
from homeostat.workspace import Workspace


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "export",
        help="write Claude, Cursor, Copilot and AGENTS.md rule files into a code repo",
        description="Write the KB's rules for one code repo in each agent tool's native, path-scoped format.",
    )
    add_checkout_option(parser, "the code repo checkout to write into", default=None)
    parser.add_argument(
        "old_checkout", nargs="?", help=argparse.SUPPRESS
    )  # `export DIR`, for one more release
    parser.add_argument(
        "--repo", metavar="NAME", help="the repo's name in homeostat.yaml (default: from the checkout)"
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 when the exported files are stale or an always-on file is over its budget",
    )
    parser.add_argument(
        "--formats",
        default=",".join(FORMATS),
        metavar="LIST",
        help=f"comma-separated subset of {','.join(FORMATS)} (default: all)",
    )
    parser.add_argument(
        "--visibility",
        choices=("private", "public"),
        default=None,
        help="say whether the code repo is public (default: homeostat.yaml, else private)",
    )
    parser.add_argument("--allow-public", action="store_true", help="export into a public repo anyway")
    add_format_option(parser)
    add_kb_option(parser)
    parser.set_defaults(run=run)


@dataclass
class Changes:
    write: dict[str, str] = field(default_factory=dict)
    delete: list[str] = field(default_factory=list)
    hand_written: list[str] = field(default_factory=list)


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (FileNotFoundError, IsADirectoryError):
        return None


def _existing_own(checkout: Path, plan: ExportPlan) -> list[str]:
    found: list[str] = []
    for folder in plan.own_dirs:
        base = checkout / folder
        if not base.is_dir():
            continue
        walker = [(str(base), [], sorted(os.listdir(base)))] if folder == COPILOT_DIR else os.walk(base)
        for dirpath, _, names in walker:
            for name in names:
                full = Path(dirpath) / name
                if full.is_file():
                    found.append(full.relative_to(checkout).as_posix())
    return found


def diff(checkout: Path, plan: ExportPlan, keep: set[str] | frozenset[str] = frozenset()) -> Changes:
    """What to write and delete; `keep` are own files of rules that exist but cannot be read now."""
    changes = Changes()
    for rel, text in plan.files.items():
        current = _read(checkout / rel)
        if current == text:
            continue
        if current is not None and not owns(rel, current, plan):
            changes.hand_written.append(rel)
            continue
        changes.write[rel] = text
    for rel, body in plan.blocks.items():
        current = _read(checkout / rel)
        try:
            updated = apply_block(current, body, rel)
        except ExportError as exc:
            raise ConfigError(str(exc)) from None
        if updated != current:
            changes.write[rel] = updated
    for rel in _existing_own(checkout, plan):
        found = _read(checkout / rel)
        if rel not in plan.files and rel not in keep and found is not None and owns(rel, found, plan):
            changes.delete.append(rel)
    return changes


def kept_for_unreadable(unreadable: Sequence[Unreadable], formats: Sequence[str]) -> set[str]:
    """A rule whose file fails to parse still exists: its exported files stay until it reads again."""
    rule_ids = [rule_id for *_, ids in unreadable for rule_id in ids]
    doc_ids = [
        f"{kind[1]}/{file.rsplit('/', 1)[-1].removesuffix('.md')}"
        for file, *_ in unreadable
        if (kind := classify(file)) is not None and kind[0] == "document"
    ]
    return paths_for(rule_ids, doc_ids, formats)


def run(args: argparse.Namespace, workspace: Workspace) -> int:
    checkout = _checkout(args)
    formats = _formats(args.formats)
    session = open_session(args.kb, checkout, args.repo, say_scope=False)
    corpus = session.corpus
    repo = _export_repo(corpus, session.audience.repo, checkout, args)
    nowhere = [e.id for e in corpus.entries if not e.scope and e.status == "accepted"]
    if nowhere:
        note(f"not exported, their scope names no known language (homeostat validate): {', '.join(nowhere)}")
    limits = limits_from(read_config(session.root))
    plan = repo_export(corpus, repo, limits, formats)
    changes = diff(checkout, plan, kept_for_unreadable(corpus.unreadable, formats))
    for rel in changes.hand_written:
        note(
            f"{rel}: a hand-written file is where an exported one goes; left as is (move or delete it to export there)"
        )
    kept = sorted(kept_for_unreadable(corpus.unreadable, formats) & set(_existing_own(checkout, plan)))
    data = _report(repo, formats, plan, changes, kept, limits, args.check)
    export = _Export(checkout, plan, changes, limits, formats, data)
    return _check(export, args.format) if args.check else _write(export, args.format)


def _checkout(args: argparse.Namespace) -> Path:
    """The code checkout to write into: export never guesses it, as it writes files there."""
    given = one_of(args, "checkout", "old_checkout", "the checkout")
    if given is None:
        raise ConfigError("export needs the code repo checkout to write into: --checkout DIR")
    checkout = Path(given)
    if not checkout.is_dir():
        raise ConfigError(f"{checkout}: not a folder; pass the code repo checkout to export into")
    return checkout


def _formats(given: str) -> list[str]:
    """The formats `--formats` names, refused whole when one is unknown, so a typo writes nothing."""
    formats = [f.strip() for f in given.split(",") if f.strip()]
    unknown = sorted(set(formats) - set(FORMATS))
    if unknown or not formats:
        raise ConfigError(f"--formats {given!r}: use a comma-separated subset of {','.join(FORMATS)}")
    return formats


def _export_repo(corpus: Corpus, repo: str | None, checkout: Path, args: argparse.Namespace) -> str | None:
    """The repo whose rules go into the checkout: it must be known in a multi-repo KB (else another
    repo's rules could land there), and a public one needs --allow-public, since its files are
    readable by anyone."""
    if corpus.multi_repo and repo is None:
        raise ConfigError(
            f"{checkout}: its origin and folder name match no repo in homeostat.yaml; pass --repo NAME"
        )
    info = next((r for r in corpus.repos if r.name == repo), None)
    public = args.visibility == "public" or (args.visibility is None and info is not None and info.public)
    if public and not args.allow_public:
        raise ConfigError(
            f"{checkout}: the repo is public, and exported rules would be readable by anyone; "
            "pass --allow-public to export anyway"
        )
    return repo


def _report(
    repo: str | None,
    formats: list[str],
    plan: ExportPlan,
    changes: Changes,
    kept: list[str],
    limits: Mapping[str, Limit],
    check: bool,
) -> dict[str, object]:
    """The `--format json` answer before anything is written; `_check` and `_write` fill in what
    they find or do."""
    return {
        "repo": repo,
        "formats": formats,
        "rules": plan.rules,
        "check": check,
        "written": [],
        "removed": [],
        "stale": sorted([*changes.write, *changes.delete]),
        "handWritten": changes.hand_written,
        "kept": kept,
        "leftOut": {fmt: list(ids) for fmt, ids in plan.left_out.items()},
        "budgets": {
            fmt: {"limit": limits[fmt].to_data(), "size": size.to_data()} for fmt, size in plan.sizes.items()
        },
    }


class _Export(Record):
    """What `export` found, for `_check` to report or `_write` to do."""

    checkout: Path
    plan: ExportPlan
    changes: Changes
    limits: Mapping[str, Limit]
    formats: list[str]
    data: dict[str, object]  # the JSON answer so far (`_report`)


def _check(export: _Export, output: str) -> int:
    """`--check`: says what is stale or over budget on disk and writes nothing; exits 1 when anything
    is, so CI can fail on exports that fell behind the KB."""
    checkout, plan, changes, limits, formats, data = export
    on_disk = always_on_sizes(read_always_on(checkout, plan), formats)
    over = over_budget(on_disk, limits)
    for fmt, size in on_disk.items():
        budgets = cast("dict[str, dict[str, object]]", data["budgets"])
        budgets[fmt]["onDisk"] = size.to_data()
    if output == "json":
        emit_json({**data, "overBudget": over})
    else:
        for rel in sorted(changes.write):
            print(f"stale: {rel}")
        for rel in changes.delete:
            print(f"stale (to delete): {rel}")
        for line in over:
            print(f"over budget: {line}")
        print(f"export: {check_verdict(changes, over)}")
    return 1 if changes.write or changes.delete or changes.hand_written or over else 0


def _write(export: _Export, output: str) -> int:
    """Writes the changed files and removes the ones no longer exported; exits 1 while a hand-written
    file still stands where an export goes, as that export is missing."""
    from homeostat.adapters.kb_files import write_changed

    checkout, plan, changes, limits, formats, data = export
    written = write_changed(checkout, changes.write)
    for rel in changes.delete:
        (checkout / rel).unlink()
    if output == "json":
        emit_json({**data, "written": written, "removed": changes.delete, "stale": []})
    else:
        print(
            f"export: {plural(plan.rules, 'rule')}, {plural(len(written), 'file')} written, "
            f"{len(changes.delete)} removed ({', '.join(formats)})"
        )
        for line in left_out_lines(plan, limits):
            print(f"export: {line}")
    for line in over_budget(plan.sizes, limits):  # a budget too small for the header and the documents list
        note(f"{line}: raise it, or export fewer formats")
    return 1 if changes.hand_written else 0


def read_always_on(checkout: Path, plan: ExportPlan) -> dict[str, str]:
    """The own files and the block files as they are in the checkout, for their always-on sizes."""
    found = {
        rel: text for rel in _existing_own(checkout, plan) if (text := _read(checkout / rel)) is not None
    }
    for rel in plan.blocks:
        text = _read(checkout / rel)
        if text is not None:
            found[rel] = text
    return found


SHOWN_IDS = 5
STILL_SERVED = {
    "claude": "no file carries them; the plugin and MCP serve them",
    "copilot": "no file carries them; MCP serves them",
    "agents": "their path-scoped files and MCP still serve them",
}


def left_out_lines(plan: ExportPlan, limits: Mapping[str, Limit]) -> list[str]:
    """What each always-on file left out, and why; `--format json` lists every id."""
    lines = []
    for fmt, ids in plan.left_out.items():
        if not ids:
            continue
        shown = ", ".join(ids[:SHOWN_IDS]) + (", …" if len(ids) > SHOWN_IDS else "")
        lines.append(
            f"{WHERE[fmt]}: {plural(len(ids), 'rule')} left out by its budget of {limits[fmt].describe()} "
            f"({shown}); {STILL_SERVED[fmt]}"
        )
    return lines


def check_verdict(changes: Changes, over: Sequence[str] = ()) -> str:
    """What `--check` tells CI to do: running export fixes stale files, not a hand-written one in the way."""
    parts = []
    if over:
        parts.append("over budget (above); run homeostat export to fit the budgets")
    if changes.write or changes.delete:
        parts.append("stale; run homeostat export to update")
    if changes.hand_written:
        blocked = plural(len(changes.hand_written), "hand-written file")
        parts.append(
            f"{blocked} in the way of exported ones (above): move or delete them, then run homeostat export"
        )
    return "; ".join(parts) or "up to date"
