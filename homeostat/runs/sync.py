"""`homeostat sync`: the laptop's half of the automation, run detached from the session hooks.

One sync: fetch the base branch, the state branch and this member's `candidates/<member>` from the
KB's `origin` (git's own transport and the developer's own credentials; nothing else is contacted);
clear pending lessons the daily run decided, leaving a one-time notice; fast-forward the clone when it
sits on the base branch with clean tracked files, else note how far behind it is; and force-push the
pending lessons and a heartbeat to `candidates/<member>` when they changed or the heartbeat is 12
hours old. The branch is transport only: it is rebuilt on the base branch's tip every time.

A sync never raises into its caller for a network failure: the outcome says `offline` and the next
sync tries again. Broken local state (a KB that does not load, an unknown member) is an `error`
outcome naming the file or setting.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path

from homeostat import VERSION
from homeostat.adapters.git import clone
from homeostat.adapters.git.plumbing import Git
from homeostat.adapters.plain_files import read_kb_text
from homeostat.adapters.state.pending_store import list_pending
from homeostat.adapters.state.state_store import live_files, snapshot_at, tracking_ref
from homeostat.adapters.state.sync_store import add_notice, record_sync
from homeostat.core.config import Config, Member
from homeostat.core.kb import CONFIG_FILE, load_config
from homeostat.core.state.branch import Heartbeat, StateSnapshot, dump_state, state_branch
from homeostat.core.state.sync import (
    HEARTBEAT_FILE,
    PENDING_PREFIX,
    USAGE_DAYS,
    candidate_changes,
    candidates_branch,
    decided_records,
    decision_notice,
    push_check,
    served_rule_ids,
    sync_member,
    usage_counts,
)
from homeostat.errors import GitError, HomeostatError, KBReadError

REMOTE = "origin"
MEMBER_VARIABLE = "HOMEOSTAT_MEMBER"


class SyncSetupError(HomeostatError):
    """The clone cannot sync as it is set up; the message names the setting to fix."""

    exit_code = 2


@dataclass
class SyncResult:
    """What one sync did; its JSON form is `.homeostat/sync.json` and the `sync` event."""

    outcome: str = "ok"  # ok | offline | error | busy
    member: str = ""
    pushed: bool = False
    reason: str = ""
    cleared: int = 0
    pending: int = 0
    branch: str | None = None
    behind: int | None = None
    ahead: int | None = None
    fast_forwarded: bool = False
    error: str = ""
    at: str = ""
    heartbeat_at: str = ""
    ms: int = 0
    extra: dict[str, str] = field(default_factory=dict)

    def event_data(self) -> dict[str, str | int | bool | None]:
        data = {k: v for k, v in asdict(self).items() if k not in ("extra", "error", "at", "heartbeat_at")}
        data["error"] = self.error[:200]
        return data


@dataclass(frozen=True)
class Clone:
    root: Path
    git: Git
    config: Config
    member: Member
    base: str
    state: str


def open_clone(root: Path, env: Mapping[str, str]) -> Clone:
    """The KB, its config and who is syncing; every way this fails is a setting to fix."""
    config = read_config(root)
    git = Git(root)
    if git.remote_url(REMOTE) is None:
        raise SyncSetupError(f"{root}: the KB clone has no `{REMOTE}` remote: clone the KB repo to sync it")
    handle = env.get(MEMBER_VARIABLE, "").strip() or None
    email = _git_config(git, "user.email")
    name = _git_config(git, "user.name")
    member = sync_member(config, handle, email, name)
    if member is None:
        who = f"{MEMBER_VARIABLE}={handle!r}" if handle else f"git user {email or name or '(unset)'}"
        raise SyncSetupError(
            f"{who} is not in team.members of homeostat.yaml: set {MEMBER_VARIABLE} to your handle "
            "or add your git user.email to your member entry"
        )
    base = config.sources.base_branch
    return Clone(root, git, config, member, base, state_branch(base))


def read_config(root: Path) -> Config:
    """Only homeostat.yaml: sync needs the team and the base branch, not the rules."""
    path = root / CONFIG_FILE
    try:
        text = read_kb_text(path, CONFIG_FILE)
    except OSError as exc:
        raise KBReadError(
            f"{path}: cannot read it ({exc.strerror}); run this in a KB clone or pass --kb"
        ) from None
    config, _, findings = load_config(text, CONFIG_FILE)
    if config is None:
        errors = [f for f in findings if f.severity == "error"] or findings
        first = f"line {errors[0].line}: {errors[0].message}" if errors else "not a Homeostat config"
        raise KBReadError(f"{path}: {first}; fix it (homeostat validate shows every problem)")
    return config


def _git_config(git: Git, key: str) -> str | None:
    done = git.run("config", "--get", key, check=False)
    return done.stdout.decode("utf-8", "replace").strip() or None if done.returncode == 0 else None


def run_sync(root: Path, env: Mapping[str, str], now: dt.datetime | None = None) -> SyncResult:
    started = time.perf_counter()
    moment = now or dt.datetime.now(dt.UTC).replace(microsecond=0)
    result = SyncResult(at=moment.isoformat())
    try:
        target = open_clone(root, env)
        result.member = target.member.handle
        fetch(target)
        clear_decided(target, result)
        update_clone(target, result)
        push_candidates(target, result, moment)
    except GitError as exc:
        result.outcome, result.error = "offline", str(exc)
    except HomeostatError as exc:
        result.outcome, result.error = "error", str(exc)
    result.ms = round((time.perf_counter() - started) * 1000)
    return result


def fetch(target: Clone) -> None:
    """The three branches sync reads, into their tracking refs (a missing one is simply absent)."""
    branches = (target.base, target.state, candidates_branch(target.member.handle))
    target.git.fetch(REMOTE, [f"+refs/heads/{b}:{tracking_ref(REMOTE, b)}" for b in branches])


def read_state(target: Clone) -> StateSnapshot:
    """The clone's copy of the state branch; its archive is read only for the months a pending lesson's
    decision is in."""
    ref = tracking_ref(REMOTE, target.state)
    tip = target.git.rev_parse(ref)
    return (
        StateSnapshot()
        if tip is None
        else snapshot_at(target.git, tip, live_files(target.git, tip), target.state)
    )


def clear_decided(target: Clone, result: SyncResult) -> None:
    """Delete the pending lessons a decision on the state branch names, and say what became of them."""
    pending = list_pending(target.root)
    keys = {lesson.content_key(): path for path, lesson in pending}
    state = read_state(target)
    decided = decided_records(state.decisions_for(keys, target.member.handle).values(), keys)
    for key in decided:
        keys[key].unlink(missing_ok=True)
    result.cleared = len(decided)
    add_notice(target.root, decision_notice(list(decided.values())))


def update_clone(target: Clone, result: SyncResult) -> None:
    upstream = tracking_ref(REMOTE, target.base)
    if target.git.rev_parse(upstream) is None:
        return
    where = clone.position(target.root, upstream)
    result.branch = where.branch
    if where.branch == target.base and where.behind and not where.ahead and clone.tracked_clean(target.root):
        result.fast_forwarded = clone.fast_forward(target.root, upstream)
        where = clone.position(target.root, upstream)
    result.behind, result.ahead = where.behind, where.ahead


def push_candidates(target: Clone, result: SyncResult, now: dt.datetime) -> None:
    git, member = target.git, target.member.handle
    ours = {f"{PENDING_PREFIX}{path.name}": path.read_bytes() for path, _ in list_pending(target.root)}
    result.pending = len(ours)
    ref = tracking_ref(REMOTE, candidates_branch(member))
    tip = git.rev_parse(ref)
    theirs = None
    sent_at = None
    if tip is not None:
        files = git.read_files(tip, ".homeostat")
        theirs = {f".homeostat/{p}": d for p, d in files.items() if p.startswith("pending/")}
        sent_at = _heartbeat_at(files.get(HEARTBEAT_FILE.removeprefix(".homeostat/")))
    check = push_check(ours, theirs, sent_at, now)
    result.reason = check.reason
    result.heartbeat_at = sent_at.isoformat() if sent_at else ""
    if not check.needed:
        return
    base = git.rev_parse(tracking_ref(REMOTE, target.base))
    if base is None:
        raise SyncSetupError(
            f"{REMOTE} has no branch {target.base!r} (sources.baseBranch): push the KB first"
        )
    usage = _usage(target.root, now) if target.member.usage else None
    heartbeat = Heartbeat(
        member=member,
        at=now,
        homeostat_version=VERSION,
        pending=len(ours),
        behind=result.behind,
        usage=usage[0] if usage else None,
        served=usage[1] if usage else (),
    )
    stray = [f".homeostat/{path}" for path in git.read_files(base, ".homeostat")]
    changes = candidate_changes(stray, ours, dump_state(heartbeat))
    commit = git.commit_files(base, changes, f"homeostat: pending lessons of {member} (sync)")
    git.push(REMOTE, commit, candidates_branch(member), force=True)
    git.run("update-ref", ref, commit)
    result.pushed, result.heartbeat_at = True, now.isoformat()


def _heartbeat_at(data: bytes | None) -> dt.datetime | None:
    if data is None:
        return None
    try:
        return Heartbeat.model_validate_json(data).at
    except ValueError:
        return None


def _usage(root: Path, now: dt.datetime) -> tuple[dict[dt.date, dict[str, int]], tuple[str, ...]]:
    """The opt-in heartbeat's per-day counts and the ids of the rules served or credited."""
    from homeostat.adapters.state.event_log import SqliteEventLog, events_path

    since = now - dt.timedelta(days=USAGE_DAYS)
    with SqliteEventLog(events_path(root)) as log:
        events = log.query(since=since)
    return usage_counts(events, now.date()), served_rule_ids(events, since)


def finish(root: Path, result: SyncResult) -> None:
    """Keep the outcome for `status` and the hooks, and log the `sync` event; neither may fail a sync."""
    try:
        record_sync(root, asdict(result))
    except OSError:
        pass
    from homeostat.adapters.state.event_recorder import log_event

    log_event(root, "sync", result.event_data())
