"""`learn --from`: what Claude Code's auto memory or a CodeRabbit export holds, as pending lessons.

The steps: find and read the source (read only: the memory folder and the export are never written,
and nothing is sent anywhere), turn each note or learning into an `Entry`, then plan each entry as
`homeostat learn` would write it: placed in an area (and topic), built by `learn`'s own
`new_lesson` (so its area, topic and word-limit checks are the ones `learn` applies), refused when
any field holds a secret (`learn`'s check), and blocked when the lesson written alone fails
validation (risky content) or holds personal data (an email address), as `homeostat import` blocks
a rule file's item. Entries repeating a rule in force are written all the same: the daily run's
consolidation finds the duplicate and reconfirms the rule. An entry whose lesson is already pending
or already decided (by content hash, on this clone's copy of the state branch) is not written again,
so a second import of the same entries changes nothing.

The command writes what the plan says, after the preview and a confirmation; the lessons then travel
by `sync` to `candidates/<member>` and the daily run decides them like any other.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter, defaultdict
from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field, replace
from pathlib import Path

from homeostat.adapters.git.plumbing import Git
from homeostat.adapters.git.work_tree import main_top_level, origin_url, top_level
from homeostat.adapters.state.pending_store import list_pending
from homeostat.adapters.state.state_store import live_files, tracking_ref
from homeostat.console import Progress
from homeostat.core.config import CORE_AREA, Config
from homeostat.core.daily.curate import area_for_path
from homeostat.core.hosts import (
    RepoRef,
    UrlError,
    parse_comment_url,
    parse_pull_url,
    parse_repo_url,
    pull_url,
)
from homeostat.core.imports.candidates import Candidate, candidate_findings, dedupe, topic_for
from homeostat.core.imports.claude_memory import MemoryPlace, memory_place, read_memories
from homeostat.core.imports.coderabbit import Learning, learning_entry, read_export
from homeostat.core.imports.memories import Entry, EntryTooLong, fit
from homeostat.core.kb import CONFIG_FILE, KB
from homeostat.core.pending import LessonSource, PendingLesson, secret_fields, text_of
from homeostat.core.safety.secrets import redact_secrets
from homeostat.core.selection.session_repo import session_repo
from homeostat.core.state.branch import parse_state, state_branch
from homeostat.core.text import plural
from homeostat.errors import GitError, HomeostatError

MAX_FILE_BYTES = 256 * 1024  # a memory note is a few lines; anything far larger is not one
WRITTEN = ("new", "reconfirms")  # the outcomes that write a pending lesson
OUTCOMES = ("new", "reconfirms", "pending", "decided", "repeat", "blocked", "skipped")


class ImportInputError(HomeostatError):
    """The source cannot be read as one; the message names the folder or file and what to do."""

    exit_code = 2


@dataclass(frozen=True)
class Source:
    kind: LessonSource  # claude-memory | coderabbit: the lessons' source, their provenance
    where: str  # the folder or file read
    how: str  # how it was found
    entries: tuple[Entry, ...]


@dataclass(frozen=True)
class Planned:
    entry: Entry
    outcome: str  # one of OUTCOMES
    detail: str = ""
    lesson: PendingLesson | None = None

    def row(self) -> dict[str, object]:
        """The JSON form: what a person sees, secrets redacted."""
        lesson = self.lesson
        return {
            "origin": self.entry.origin,
            "kind": self.entry.kind,
            "title": redact_secrets(lesson.title if lesson else self.entry.title)[0],
            "area": lesson.area if lesson else "",
            "topic": lesson.topic if lesson else "",
            "outcome": self.outcome,
            "detail": redact_secrets(self.detail)[0],
            "key": lesson.content_key() if lesson else None,
        }


@dataclass
class Plan:
    source: Source
    rows: list[Planned] = field(default_factory=list)

    def lessons(self) -> list[PendingLesson]:
        """What the import writes, one lesson per content hash."""
        chosen = {r.lesson.content_key(): r.lesson for r in self.rows if r.outcome in WRITTEN and r.lesson}
        return list(chosen.values())

    def counts(self) -> dict[str, int]:
        counted = Counter(r.outcome for r in self.rows)
        return {outcome: counted.get(outcome, 0) for outcome in OUTCOMES}


# --- reading the sources --------------------------------------------------------------------------


def project_root(checkout: Path) -> str:
    """The folder Claude Code keys a project's memory by: the main worktree's root when the checkout
    is in a git repository (every worktree shares it), else the folder itself."""
    found = main_top_level(checkout.resolve())
    return str(found if found is not None else checkout.resolve())


def _settings(checkout: Path, root: str, home: str, env: Mapping[str, str]) -> list[tuple[str, str]]:
    """The settings files that may set `autoMemoryDirectory`, in Claude Code's order: the project's
    local settings, then the user's."""
    config_dir = env.get("CLAUDE_CONFIG_DIR", "").strip() or f"{home}/.claude"
    candidates = [
        ("the project's .claude/settings.local.json", Path(root) / ".claude" / "settings.local.json"),
        ("the user's settings.json", Path(config_dir) / "settings.json"),
    ]
    if checkout.resolve() != Path(root):
        candidates.insert(
            0, (".claude/settings.local.json", checkout.resolve() / ".claude" / "settings.local.json")
        )
    found: list[tuple[str, str]] = []
    for label, path in candidates:
        try:
            found.append((label, path.read_text(encoding="utf-8")))
        except (OSError, UnicodeDecodeError):
            continue
    return found


def find_memory(checkout: Path, env: Mapping[str, str], memory_dir: str | None = None) -> MemoryPlace:
    if memory_dir:
        return MemoryPlace(str(Path(memory_dir).expanduser().resolve()), "--memory-dir")
    home = env.get("HOME") or str(Path.home())
    root = project_root(checkout)
    return memory_place(root, home, env, _settings(checkout, root, home, env))


def read_memory_folder(place: MemoryPlace) -> dict[str, str]:
    """Every regular `.md` file under the folder (links are not followed), by path inside it."""
    folder = Path(place.path)
    if not folder.is_dir():
        raise ImportInputError(
            f"{folder}: no such folder ({place.how}): Claude Code has kept no auto memory here yet; "
            "pass --memory-dir DIR if it is elsewhere"
        )
    files: dict[str, str] = {}
    for path in sorted(folder.rglob("*.md")):
        if path.is_symlink() or not path.is_file() or not path.resolve().is_relative_to(folder.resolve()):
            continue
        name = path.relative_to(folder).as_posix()
        if path.stat().st_size > MAX_FILE_BYTES:
            files[name] = ""
            continue
        try:
            files[name] = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            files[name] = ""
    if not any(text.strip() for text in files.values()):
        raise ImportInputError(
            f"{folder}: the memory folder holds no notes (no MEMORY.md or memory files with text): nothing to import"
        )
    return files


def claude_memory_source(checkout: Path, env: Mapping[str, str], memory_dir: str | None = None) -> Source:
    place = find_memory(checkout, env, memory_dir)
    files = read_memory_folder(place)
    entries = read_memories({name: text for name, text in files.items() if text.strip()})
    unread = [
        Entry(f"{name}:1", skip="empty, unreadable or too large")
        for name, text in files.items()
        if not text.strip()
    ]
    return Source("claude-memory", place.path, place.how, tuple([*entries, *unread]))


def coderabbit_source(path: Path, config: Config) -> Source:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ImportInputError(
            f"{path}: no such file: pass the CodeRabbit learnings export (.csv or .json)"
        ) from None
    except OSError as exc:
        raise ImportInputError(f"{path}: cannot read it ({exc.strerror})") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ImportInputError(f"{path}: not UTF-8 text: export the learnings again as CSV or JSON") from None
    learnings = read_export(str(path), text)
    entries = tuple(_learning_entry(path.name, learning, config) for learning in learnings)
    return Source("coderabbit", str(path), "a CodeRabbit learnings export", entries)


def _learning_entry(name: str, learning: Learning, config: Config) -> Entry:
    repo, ref = _kb_repo(config, learning.repo)
    url = _cited_url(config, learning.url) or (
        pull_url(ref, int(learning.pull)) if ref is not None and learning.pull.isdigit() else ""
    )
    entry = learning_entry(name, learning, repo, url)
    if learning.repo and ref is None and (config.repos or config.sources.repos):
        return replace(entry, foreign_repo=learning.repo)
    return entry


def _code_repos(config: Config) -> list[tuple[str | None, RepoRef]]:
    found: list[tuple[str | None, RepoRef]] = []
    named: list[tuple[str | None, str]] = [(r.name, r.url) for r in config.repos]
    for name, url in named or [(None, url) for url in config.sources.repos]:
        try:
            found.append((name, parse_repo_url(url)))
        except UrlError:
            continue
    return found


def _kb_repo(config: Config, named: str) -> tuple[str | None, RepoRef | None]:
    """(the KB repo's folder name, its host ref) for a repository as the export names it."""
    wanted = named.strip().lower().removesuffix(".git")
    if not wanted:
        return None, None
    for name, ref in _code_repos(config):
        full = f"{ref.owner}/{ref.name}".lower()
        if wanted in (full, ref.name.lower(), (name or "").lower()) or full.endswith(f"/{wanted}"):
            return name, ref
    return None, None


def _cited_url(config: Config, url: str) -> str:
    """`url` when it is a review comment or PR in one of the KB's code repos (the only links the KB
    keeps as a rule's provenance), else ''."""
    if not url:
        return ""
    try:
        repo = parse_comment_url(url).repo
    except UrlError:
        try:
            repo = parse_pull_url(url.split("#", 1)[0])[0]
        except UrlError:
            return ""
    return url if any(repo.same_repo(ref) for _, ref in _code_repos(config)) else ""


# --- planning -------------------------------------------------------------------------------------


class _Unplaced(ValueError):
    """No area of the KB fits the entry; the message says how to file it."""


def checkout_repo(config: Config, checkout: Path) -> str | None:
    """The KB repo the checkout is (None in a KB without repo folders, or when none matches)."""
    if not config.repos:
        return None
    top = top_level(checkout.resolve()) or checkout.resolve()
    return session_repo([(r.name, r.url) for r in config.repos], origin_url(checkout), top.name)


def _placement(
    config: Config, entry: Entry, area: str, topic: str, repo: str | None, org_wide: bool
) -> tuple[str, str]:
    """(area, topic): `--area`/`--topic` when given; else the area a path the entry names falls in,
    else its repo's first area; an entry that names no repo goes to core when it may apply to every
    repo (a CodeRabbit learning kept for the whole organization)."""
    if area:
        return area, topic
    if entry.foreign_repo:
        raise _Unplaced(
            f"its repository {entry.foreign_repo} is not one of the KB's code repos (pass --area to file it anyway)"
        )
    owner = entry.repo if org_wide else repo
    if config.repos and owner is None:
        if not org_wide:
            raise _Unplaced("no KB repo to file it under: run it in the code repo's checkout, or pass --area")
        chosen = CORE_AREA
    else:
        named = (area_for_path(config, owner or "", path) for path in entry.paths)
        first = [name for name, _ in config.iter_areas() if not config.repos or name.startswith(f"{owner}/")]
        chosen = next((found for found in named if found), "") or (first[0] if first else CORE_AREA)
    return chosen, topic_for(config, chosen, [*entry.hints, entry.title, entry.text])


def provenance_why(source: Source, entry: Entry) -> str:
    """The why of an entry that gives none: where it was kept, and why it is imported."""
    where = entry.origin.rsplit(":", 1)[0]
    if source.kind == "claude-memory":
        kept = f"Claude Code's auto memory for this project kept it (`{where}`)"
    else:
        kept = "CodeRabbit learned it in review" + (f" ({entry.url})" if entry.url else "")
    return f"{kept}; imported so it is reviewed, scored and kept current like every rule."


def decided_keys(root: Path, config: Config) -> AbstractSet[str]:
    """Content hashes this clone's copy of the state branch holds decisions for (no fetch)."""
    try:
        git = Git(root)
        tip = git.rev_parse(tracking_ref("origin", state_branch(config.sources.base_branch)))
        if tip is None:
            return frozenset()
        return parse_state(live_files(git, tip), tip).decided_hashes()  # the index: no archive read
    except GitError:
        return frozenset()


def plan_import(
    kb: KB,
    source: Source,
    *,
    author: str,
    now: dt.datetime,
    area: str = "",
    topic: str = "",
    repo: str | None = None,
    pending: frozenset[str] = frozenset(),
    decided: AbstractSet[str] = frozenset(),
) -> Plan:
    """What each entry becomes; nothing is written here."""
    plan = Plan(source)
    built: list[tuple[int, Candidate]] = []
    with Progress("checking entries", len(source.entries)) as progress:
        for entry in source.entries:
            planned = _plan_entry(kb, source, entry, author, now, area, topic, repo)
            plan.rows.append(planned)
            if planned.outcome == "new" and planned.lesson is not None:
                built.append((len(plan.rows) - 1, _candidate(entry, planned.lesson)))
            progress.step()
        progress.update(len(source.entries), what="comparing with the KB's rules")
        _mark_duplicates(kb, plan, built, now)
    for index, row in enumerate(plan.rows):
        key = row.lesson.content_key() if row.lesson is not None and row.outcome in WRITTEN else None
        if key in decided:
            plan.rows[index] = Planned(row.entry, "decided", "the daily run already decided it", row.lesson)
        elif key in pending:
            plan.rows[index] = Planned(row.entry, "pending", "already pending on this clone", row.lesson)
    return plan


def _plan_entry(
    kb: KB,
    source: Source,
    entry: Entry,
    author: str,
    now: dt.datetime,
    area: str,
    topic: str,
    repo: str | None,
) -> Planned:
    from homeostat.core.lessons import Fields, LessonError, new_lesson  # learn's own checks

    if entry.skip:
        return Planned(entry, "skipped", entry.skip)
    config = kb.require_config()
    try:
        where, chosen_topic = _placement(config, entry, area, topic, repo, source.kind == "coderabbit")
        rule, why = fit(entry.text, entry.why or provenance_why(source, entry))
        fields = Fields(title=entry.title, rule=rule, why=why, area=where, topic=chosen_topic)
        lesson = new_lesson(kb, fields, author, now, source.kind, entry.url)
    except _Unplaced as exc:
        return Planned(entry, "skipped", str(exc))
    except (EntryTooLong, LessonError) as exc:
        return Planned(entry, "blocked", str(exc))
    found = secret_fields(lesson)
    if found:
        name, kind = found[0]
        return Planned(
            entry,
            "blocked",
            f"its {name} holds what looks like a secret ({kind}); lessons are shared",
            lesson,
        )
    problems = candidate_findings(
        kb.files[CONFIG_FILE], _candidate(entry, lesson), now.date(), now, blocking=("email",)
    )
    if problems:
        return Planned(entry, "blocked", problems[0], lesson)
    return Planned(entry, "new", "", lesson)


def _candidate(entry: Entry, lesson: PendingLesson) -> Candidate:
    file, _, line = entry.origin.rpartition(":")
    return Candidate(
        key=lesson.content_key(),
        file=file,
        line=int(line) if line.isdigit() else 0,
        **text_of(lesson),
        url=lesson.url,
    )


def _mark_duplicates(kb: KB, plan: Plan, built: list[tuple[int, Candidate]], now: dt.datetime) -> None:
    """With the daily run's consolidation guards (`imports.candidates.dedupe`): one that repeats a
    rule in force is still written (the daily run reconfirms the rule), one that repeats an earlier
    entry of this import is not."""
    groups: dict[str | None, list[tuple[int, Candidate]]] = defaultdict(list)
    for index, candidate in built:
        repo = (
            None if candidate.area == CORE_AREA or "/" not in candidate.area else candidate.area.split("/")[0]
        )
        groups[repo].append((index, candidate))
    for repo, members in groups.items():
        verdicts = dedupe(kb, repo, [candidate for _, candidate in members], now)
        for (index, _), verdict in zip(members, verdicts, strict=True):
            if verdict.outcome != "duplicate":
                continue
            row = plan.rows[index]
            if verdict.detail.startswith("already in the KB as"):
                rule_id = verdict.detail.split("`")[1]
                plan.rows[index] = Planned(
                    row.entry,
                    "reconfirms",
                    f"repeats rule {rule_id}: the daily run reconfirms it",
                    row.lesson,
                )
            else:
                plan.rows[index] = Planned(row.entry, "repeat", verdict.detail, row.lesson)


def pending_keys(root: Path) -> frozenset[str]:
    return frozenset(lesson.content_key() for _, lesson in list_pending(root))


# --- what it says ---------------------------------------------------------------------------------

_MARKS = {
    "new": "+",
    "reconfirms": "=",
    "pending": "·",
    "decided": "·",
    "repeat": "~",
    "blocked": "!",
    "skipped": "-",
}


def summary(plan: Plan) -> str:
    """The preview: where it read, then one line per entry, then the counts."""
    source = plan.source
    lines = [
        f"{source.kind}: {source.where} ({source.how}); {plural(len(source.entries), 'entry', 'entries')}"
    ]
    for row in plan.rows:
        data = row.row()
        place = f" → {data['area']}" + (f"/{data['topic']}" if data["topic"] else "") if data["area"] else ""
        detail = f": {data['detail']}" if data["detail"] else ""
        lines.append(
            f"  {_MARKS[row.outcome]} {row.outcome:<10} {row.entry.origin} {data['title']}{place}{detail}"
        )
    counts = plan.counts()
    lines.append("  " + ", ".join(f"{n} {outcome}" for outcome, n in counts.items() if n))
    return "\n".join(lines) + "\n"


def outcome_line(plan: Plan, *, written: int, dry_run: bool) -> str:
    planned = len(plan.lessons())
    if written:
        return (
            f"{plural(written, 'lesson')} written to .homeostat/pending/ with source {plan.source.kind}; "
            "sync carries them to the team and the daily run decides them\n"
        )
    if not planned:
        return "nothing new to import: every entry is pending, decided, blocked or skipped\n"
    if dry_run:
        return f"dry run: {plural(planned, 'lesson')} would be written; nothing was\n"
    return "nothing written\n"


def plan_json(plan: Plan, *, dry_run: bool, written: int) -> dict[str, object]:
    return {
        "from": plan.source.kind,
        "path": plan.source.where,
        "found": plan.source.how,
        "dryRun": dry_run,
        "written": written,
        "counts": plan.counts(),
        "entries": [row.row() for row in plan.rows],
    }
