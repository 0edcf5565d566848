"""`homeostat learn`: write a lesson to this clone's pending set (`.homeostat/pending/`).

A pending lesson applies to the developer's own sessions at once, and the background sync carries it to
`candidates/<member>` for the daily run to decide. So it is checked against the KB before it is
written (a known area and topic, the word limits, an existing rule for an update or flag, a document
section a patch can apply to, no secrets): a broken lesson would otherwise fail only the next morning,
far from the person who wrote it. The same lesson written twice is one file (named by its content).

`--url` takes a review-comment URL instead: the thread is fetched through the code host, redacted,
and (for whatever `--title`, `--rule` and `--why` leave out) drafted by the curator in one model call.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import get_args

from homeostat.adapters.git.plumbing import Git
from homeostat.adapters.state.pending_store import write_pending
from homeostat.cli_options import add_format_option, add_kb_option
from homeostat.core.asker import Asker
from homeostat.core.config import Config
from homeostat.core.hosts import HostKind, MergedPull, ReviewThread, UrlError, parse_comment_url, pull_url
from homeostat.core.kb import KB
from homeostat.core.lessons import (
    Fields,
    LessonError,
    check_area,
    check_secrets,
    doc_lesson,
    flag_lesson,
    new_lesson,
    update_lesson,
)
from homeostat.core.pending import LessonSource, PendingLesson, pending_path
from homeostat.core.schema import RULE_WORD_LIMIT, TITLE_CHAR_LIMIT, WHY_WORD_LIMIT, RuleKind
from homeostat.core.state.sync import sync_member
from homeostat.errors import GitError
from homeostat.workspace import Workspace

MEMBER_VARIABLE = "HOMEOSTAT_MEMBER"
CONTENT_FLAGS = ("title", "rule", "why", "example", "area", "topic", "scope", "kind")
IMPORT_SOURCES = ("claude-memory", "coderabbit")
IMPORT_FLAGS = ("memory_dir", "yes", "dry_run")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "learn",
        help="write a lesson to this clone's pending set",
        description=(
            "Write a lesson to .homeostat/pending/ (git-ignored): it applies to your sessions at once\n"
            "and the daily run decides it. A new rule, an update of a rule, a flag on a rule, or a patch\n"
            "to one document section; or a lesson drafted from a review comment's URL; or, with --from,\n"
            "the notes Claude Code's auto memory or CodeRabbit kept, each a pending lesson (previewed,\n"
            "and asked about, first)."
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_kb_option(parser)
    _add_rule_options(parser)
    _add_mode_options(parser)
    _add_import_options(parser)
    add_format_option(parser)
    parser.set_defaults(run=run)


def _add_rule_options(parser: argparse.ArgumentParser) -> None:
    """A new rule's fields, which --update also takes: what it says, where it applies, who wrote it."""
    parser.add_argument("--title", help=f"the rule's title (at most {TITLE_CHAR_LIMIT} characters)")
    parser.add_argument("--rule", help=f"one instruction (at most {RULE_WORD_LIMIT} words)")
    parser.add_argument("--why", help=f"why it holds (at most {WHY_WORD_LIMIT} words)")
    parser.add_argument("--example", help="an optional short example")
    parser.add_argument(
        "--area", help="the area it belongs to, as homeostat.yaml names it (e.g. billing/api)"
    )
    parser.add_argument("--topic", help="the area's topic file, when the area has topics")
    parser.add_argument(
        "--scope",
        action="append",
        metavar="GLOB",
        help="a path glob, or lang:NAME for a language's files (repeat; default: the area's)",
    )
    parser.add_argument("--kind", choices=get_args(RuleKind), help="convention, anti-pattern, migration, …")
    parser.add_argument(
        "--source",
        choices=("manual", "agent-handoff"),
        help="who wrote it: you (manual, the default) or an agent",
    )
    parser.add_argument(
        "--author",
        help=f"your member handle (default: ${MEMBER_VARIABLE}, else the member your git email or name matches)",
    )


def _add_mode_options(parser: argparse.ArgumentParser) -> None:
    """What kind of lesson this is, one at the most (a new rule when none is given): an update, a flag,
    a document patch or an import; and the flags each of them takes."""
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--update", metavar="ID", help="rewrite rule ID (what you leave out is kept)")
    mode.add_argument("--flag", metavar="ID", help="flag rule ID as wrong or outdated (with --reason)")
    mode.add_argument("--doc", metavar="AREA/NAME", help="patch one section of this document")
    parser.add_argument("--reason", help="with --flag: what is wrong with the rule")
    parser.add_argument("--section", metavar="ID", help="with --doc: the section id")
    parser.add_argument("--op", choices=("replace", "append", "add"), default="append", help="with --doc")
    parser.add_argument("--heading", help="with --doc --op add: the new section's heading")
    parser.add_argument("--body", help="with --doc: the section text (- reads it from stdin)")
    parser.add_argument("--url", help="a review-comment URL: fetch the thread and draft what is left out")
    mode.add_argument(
        "--from",
        dest="source_tool",
        choices=IMPORT_SOURCES,
        help="import what another tool remembered, each note a pending lesson: claude-memory (this "
        "project's Claude Code auto memory) or coderabbit FILE (a learnings export, CSV or JSON)",
    )


def _add_import_options(parser: argparse.ArgumentParser) -> None:
    """--from's flags: where the notes are read from, and whether to ask before writing them."""
    parser.add_argument("file", nargs="?", metavar="FILE", help="with --from coderabbit: the export to read")
    parser.add_argument(
        "--memory-dir", metavar="DIR", help="with --from claude-memory: read this folder, not the project's"
    )
    parser.add_argument(
        "--checkout",
        metavar="DIR",
        default=".",
        help="with --from claude-memory: the code checkout whose memory to read (default: the current folder)",
    )
    parser.add_argument("--yes", action="store_true", help="with --from: write them without asking")
    parser.add_argument("--dry-run", action="store_true", help="with --from: preview them, write nothing")


def run(args: argparse.Namespace, workspace: Workspace) -> int:
    if args.source_tool or args.file:
        return run_import(args, workspace)
    _refuse(args, IMPORT_FLAGS, "a lesson written by hand (they go with --from)")
    root, kb, config = workspace.root, workspace.kb, workspace.config
    author = resolve_author(config, args.author, workspace.env, _git_user(root))
    lesson = build_lesson(args, kb, author, _now())
    check_secrets(lesson)
    target = root / pending_path(lesson)
    existed = target.is_file()
    if not existed:
        _ignore_local_folder(root)
        write_pending(root, lesson)
        _log_capture(root, lesson)
    if args.format == "json":
        data = {"path": pending_path(lesson), "written": not existed, "lesson": json.loads(lesson.to_json())}
        workspace.out.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")
    else:
        verb = "already pending" if existed else "written"
        workspace.out.write(
            f"{describe(lesson)}: {verb} as {pending_path(lesson)}; the daily run decides it\n"
        )
    return 0


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(microsecond=0)


# --- importing what another tool remembered (--from) ----------------------------------------------


def run_import(args: argparse.Namespace, workspace: Workspace) -> int:
    """Preview every entry, ask (or take --yes), then write the lessons the plan says to write."""
    from homeostat.runs import learn_from

    _check_import_args(args)
    root, kb, config = workspace.root, workspace.kb, workspace.config
    author = resolve_author(config, args.author, workspace.env, _git_user(root))
    checkout = Path(args.checkout)
    repo = None
    if args.source_tool == "claude-memory":
        if not checkout.is_dir():
            raise LessonError(f"--checkout {args.checkout}: no such folder")
        source = learn_from.claude_memory_source(checkout, workspace.env, args.memory_dir)
        repo = learn_from.checkout_repo(config, checkout)
        if config.repos and repo is None and not args.area:
            raise LessonError(
                f"{checkout.resolve()}: its origin matches no repo in homeostat.yaml, so its memories have no "
                "area: run it in the code repo's checkout (or pass --checkout DIR), or pass --area"
            )
    else:
        source = learn_from.coderabbit_source(Path(args.file), config)
    if args.area:
        check_area(config, args.area, args.topic or "")
    plan = learn_from.plan_import(
        kb,
        source,
        author=author,
        now=_now(),
        area=args.area or "",
        topic=args.topic or "",
        repo=repo,
        pending=learn_from.pending_keys(root),
        decided=learn_from.decided_keys(root, config),
    )
    lessons = plan.lessons()
    text = learn_from.summary(plan)
    write = bool(lessons) and not args.dry_run and _confirmed(args, text, len(lessons))
    if write:
        _ignore_local_folder(root)
        for lesson in lessons:
            write_pending(root, lesson)
            _log_capture(root, lesson)
    if args.format == "json":
        data = learn_from.plan_json(plan, dry_run=args.dry_run, written=len(lessons) if write else 0)
        workspace.out.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")
    else:
        if args.yes or args.dry_run or not lessons:
            workspace.out.write(text)
        workspace.out.write(
            learn_from.outcome_line(plan, written=len(lessons) if write else 0, dry_run=args.dry_run)
        )
    return 0


def _check_import_args(args: argparse.Namespace) -> None:
    if args.source_tool is None:
        raise LessonError(
            f"{args.file} is read only with --from coderabbit: pass --from coderabbit {args.file}"
        )
    if args.source_tool == "coderabbit" and not args.file:
        raise LessonError(
            "--from coderabbit needs the export to read: homeostat learn --from coderabbit FILE"
        )
    if args.source_tool == "claude-memory" and args.file:
        raise LessonError(
            f"--from claude-memory reads this project's memory folder, not {args.file}: drop it"
        )
    if args.source_tool == "coderabbit" and args.memory_dir:
        raise LessonError("--memory-dir applies to --from claude-memory: drop it")
    if args.topic and not args.area:
        raise LessonError(
            "--topic with --from needs --area: every imported lesson goes to that area and topic"
        )
    _refuse(
        args,
        (
            "title",
            "rule",
            "why",
            "example",
            "scope",
            "kind",
            "source",
            "reason",
            "section",
            "heading",
            "body",
            "url",
        ),
        "--from",
    )


def _confirmed(args: argparse.Namespace, preview: str, count: int) -> bool:
    """--yes answers; at a terminal the preview is shown and a y/N question asked; elsewhere it is an
    error, so a script never writes lessons nobody looked at by accident."""
    if args.yes:
        return True
    if not _interactive() or args.format == "json":
        raise LessonError(
            f"--from writes {count} pending lesson(s): pass --yes to write them (or --dry-run to only preview)"
        )
    sys.stdout.write(preview)
    sys.stdout.write(f"Write these {count} lesson(s) to .homeostat/pending/? [y/N] ")
    sys.stdout.flush()
    return sys.stdin.readline().strip().lower() in ("y", "yes")


# --- who is teaching ------------------------------------------------------------------------------


def resolve_author(
    config: Config, flag: str | None, env: Mapping[str, str], git_user: tuple[str | None, str | None]
) -> str:
    """--author, else $HOMEOSTAT_MEMBER, else the member the clone's git user.email (then user.name)
    names: the same rule sync and the session use, so a lesson is sent by the member who wrote it."""
    for value, where in ((flag, "--author"), (env.get(MEMBER_VARIABLE, "").strip(), MEMBER_VARIABLE)):
        if value:
            member = config.member(value)
            if member is None:
                raise LessonError(
                    f"{where} {value!r} is not in team.members of homeostat.yaml: use a member's handle"
                )
            return member.handle
    found = sync_member(config, None, *git_user)
    if found is not None:
        return found.handle
    raise LessonError(
        f"cannot tell who is teaching this: pass --author <handle>, set {MEMBER_VARIABLE}, or add your git "
        "user.email to your entry in team.members"
    )


def _git_user(root: Path) -> tuple[str | None, str | None]:
    """The clone's git user.email and user.name (None when unset or git cannot answer)."""
    return _git_config(root, "user.email"), _git_config(root, "user.name")


def _git_config(root: Path, key: str) -> str | None:
    try:
        done = Git(root).run("config", "--get", key, check=False)
    except GitError:
        return None
    if done.returncode != 0:
        return None
    return done.stdout.decode("utf-8", "replace").strip() or None


# --- building the lesson --------------------------------------------------------------------------


def build_lesson(args: argparse.Namespace, kb: KB, author: str, now: dt.datetime) -> PendingLesson:
    config = kb.require_config()
    if args.flag:
        _only(args, "--flag", ("reason",))
        return flag_lesson(kb, args.flag, args.reason or "", author, now, args.source or "manual")
    if args.doc:
        _only(args, "--doc", ("section", "op", "heading", "body"))
        body = sys.stdin.read() if args.body == "-" else args.body or ""
        return doc_lesson(kb, args.doc, args.section or "", args.op, body, args.heading or "", author, now)
    _refuse(args, ("reason", "section", "heading", "body"), "a rule lesson")
    fields = fields_of(args)
    source: LessonSource = args.source or "manual"
    url = ""
    if args.url:
        if args.source:
            raise LessonError("--url sets the source from the thread (pr-feedback): drop --source")
        thread = fetch_thread(config, args.url)
        url = thread.url
        source = "pr-feedback" if thread.followed_by_commit else "pr-feedback-no-change"
        if not args.update:  # an update keeps what it leaves out from the rule, not from a draft
            fields = fields_from_thread(kb, thread, fields)
    if args.update:
        return update_lesson(kb, args.update, fields, author, now, source, url)
    if not args.url and _interactive():
        fields = ask_missing(config, fields, input)
    return new_lesson(kb, fields, author, now, source, url)


def _interactive() -> bool:
    return sys.stdin.isatty() and sys.stdout.isatty()


def fields_of(args: argparse.Namespace) -> Fields:
    """The lesson's fields as the flags give them, stripped."""
    return Fields(
        title=(args.title or "").strip(),
        rule=(args.rule or "").strip(),
        why=(args.why or "").strip(),
        example=(args.example or "").strip(),
        area=(args.area or "").strip(),
        topic=(args.topic or "").strip(),
        scope=tuple(glob.strip() for glob in args.scope or () if glob.strip()),
        kind=args.kind,
    )


def ask_missing(config: Config, fields: Fields, prompt: Callable[[str], str]) -> Fields:
    """At a terminal, a new lesson's missing fields are asked for, one line each (Enter skips)."""
    values = {
        "title": fields.title or prompt(f"Title (at most {TITLE_CHAR_LIMIT} characters): ").strip(),
        "rule": fields.rule or prompt(f"Rule (one instruction, at most {RULE_WORD_LIMIT} words): ").strip(),
        "why": fields.why or prompt(f"Why (at most {WHY_WORD_LIMIT} words): ").strip(),
        "example": fields.example,
        "area": fields.area or prompt(f"Area ({', '.join(config.area_names())}): ").strip(),
        "topic": fields.topic,
        "scope": fields.scope,
        "kind": fields.kind,
    }
    topics = config.topics_for(str(values["area"])) if values["area"] else ()
    if topics and not values["topic"]:
        values["topic"] = prompt(f"Topic ({', '.join(topics)}): ").strip()
    return Fields(**values)  # type: ignore[arg-type]


def _only(args: argparse.Namespace, mode: str, allowed: tuple[str, ...]) -> None:
    extra = [
        name
        for name in (*CONTENT_FLAGS, "reason", "section", "heading", "body", "url")
        if name not in allowed
    ]
    _refuse(args, tuple(extra), mode)


def _refuse(args: argparse.Namespace, names: tuple[str, ...], mode: str) -> None:
    for name in names:
        if getattr(args, name, None):
            raise LessonError(f"--{name} does not apply to {mode}: drop it")


# --- from a review comment ------------------------------------------------------------------------


def fetch_thread(config: Config, url: str) -> ReviewThread:
    """The thread holding the comment, through the host its URL names, from a KB code repo only."""
    from homeostat.adapters.hosts.registry import host_from_env
    from homeostat.runs.curate import kb_code_repos

    try:
        ref = parse_comment_url(url)
    except UrlError as exc:
        raise LessonError(f"--url: {exc}") from None
    if not any(ref.repo.same_repo(repo) for repo in kb_code_repos(config)):
        raise LessonError(
            f"--url names a comment in {ref.repo.full_name}, which is not one of the KB's code repos "
            "(repos[].url in homeostat.yaml): review lessons come from those only"
        )
    host = host_from_env(
        "bitbucket" if ref.repo.host is HostKind.BITBUCKET else "github", os.environ, read_only=True
    )
    return host.get_comment_thread(ref)


def fields_from_thread(kb: KB, thread: ReviewThread, given: Fields) -> Fields:
    """Fill in what the flags left out from the curator's draft of the redacted thread (one call)."""
    from homeostat.core.daily.curate import (
        DRAFT_SYSTEM,
        DraftAnswer,
        area_for_path,
        draft_prompt,
        redacted_thread,
        render_thread,
    )
    from homeostat.runs.curate import repo_name

    config = kb.require_config()
    name = repo_name(config, thread.repo)
    area = given.area or area_for_path(config, name, thread.path)
    if given.title and given.rule and given.why:
        return replace(given, area=area)
    pull = MergedPull(
        thread.repo,
        thread.pull,
        thread.pull_title,
        "",
        thread.pull_author,
        thread.root.created_at,
        pull_url(thread.repo, thread.pull),
    )
    pull, thread, _ = redacted_thread(pull, thread)
    text = render_thread(pull, thread, lambda author: config.member(author) is not None)
    areas = [a for a in config.area_names() if not config.repos or a.startswith(f"{name}/") or a == "core"]
    topics = config.topics_for(area) if area else ()
    answer = _asker(config).ask(DRAFT_SYSTEM, draft_prompt(text, areas, topics, area), DraftAnswer)
    if answer is None or not answer.keep or not answer.title.strip() or not answer.rule.strip():
        raise LessonError(
            f"the model drafted no rule from {thread.url}: pass --title, --rule and --why yourself"
        )
    drafted_area = area or (answer.area if answer.area in config.area_names() else "")
    topic = given.topic or (answer.topic if answer.topic in config.topics_for(drafted_area) else "")
    return Fields(
        title=given.title or answer.title.strip(),
        rule=given.rule or answer.rule.strip(),
        why=given.why or answer.why.strip(),
        example=given.example or answer.example.strip(),
        area=drafted_area,
        topic=topic,
        scope=given.scope,
        kind=given.kind or answer.kind,
    )


def _asker(config: Config) -> Asker:
    from homeostat.adapters.models.askers import asker_for
    from homeostat.core.asker import RunStats
    from homeostat.core.events import NullSink

    return asker_for("curator", config, RunStats(), sink=NullSink())


# --- output and local bookkeeping -----------------------------------------------------------------


def describe(lesson: PendingLesson) -> str:
    """What was saved, said of the lesson as its sessions are served it (`served.served_lesson`)."""
    from homeostat.core.served import served_lesson

    lesson = served_lesson(lesson)
    if lesson.kind == "flag":
        return f"flag on rule {lesson.target}"
    if lesson.kind == "doc" and lesson.doc_patch is not None:
        return f"{lesson.doc_patch.op} of {lesson.doc_patch.doc}#{lesson.doc_patch.section}"
    if lesson.kind == "update":
        return f"update of rule {lesson.target} ({lesson.title!r})"
    return f"new rule {lesson.title!r} in {lesson.area}"


def _ignore_local_folder(root: Path) -> None:
    """`.homeostat/` is local state: ignored by git even where the KB's .gitignore does not say so."""
    marker = root / ".homeostat" / ".gitignore"
    if not marker.exists():
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.write_text("*\n", encoding="utf-8")


def _log_capture(root: Path, lesson: PendingLesson) -> None:
    from homeostat.adapters.state.event_recorder import log_event

    kind = "flag" if lesson.kind == "flag" else "capture"
    log_event(root, kind, {"source": lesson.source, "kind": lesson.kind})
