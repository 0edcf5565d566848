"""`homeostat daily`: the one scheduled job. Decide every member's lessons and land them by PR.

For each member it collects pending lessons from `candidates/<member>` and lessons drafted from
reviews on their merged PRs, skipping anything already decided; scores, consolidates, judges and
decides each; opens one daily PR per member and squash-merges it; then one review PR per member for
the middle band and one dispute PR per disputed rule; settles review PRs from earlier runs; and
records decisions, heartbeats and the run report on the state branch, never force-pushed.

A run whose model calls all failed is not an empty run: it exits non-zero, records no decisions,
opens no PR, and the next run reads its review window again. An unclear answer from the host is
never read as "closed" or "declined".
"""

from __future__ import annotations

import datetime as dt
import logging
import uuid
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal, Protocol, TextIO, TypeVar

from pydantic import BaseModel, ValidationError

from homeostat.adapters.git import Git
from homeostat.adapters.kb_files import load_kb_dir, load_kb_ref
from homeostat.adapters.pending_store import list_pending
from homeostat.adapters.state_store import read_state, write_state
from homeostat.core.asker import Asker, RunStats, SpendingCapError
from homeostat.core.config import Config
from homeostat.core.daily.apply import ApplyError, KbEdit
from homeostat.core.daily.bodies import render
from homeostat.core.daily.confidence import Confidence, score_confidence
from homeostat.core.daily.consolidate import (
    Candidate,
    Consolidation,
    candidate_from_rule,
    consolidate,
    fallback,
    merge_candidates,
)
from homeostat.core.daily.decide import Checks, Decision, decide
from homeostat.core.daily.dispute import DISPUTE_SYSTEM, DisputeFix, dispute_prompt, usable_fix
from homeostat.core.daily.drafting import cited_urls
from homeostat.core.daily.judge import JUDGE_CONFIRMATIONS, Verdict, judge
from homeostat.core.daily.lessons import Lesson, from_pending
from homeostat.core.daily.retract import (
    RETRACT_SYSTEM,
    RetractAnswer,
    acceptable_rewrite,
    find_citations,
    retract_prompt,
    still_supported,
)
from homeostat.core.daily.reviewers import choose_reviewers
from homeostat.core.findings import Finding
from homeostat.core.hosts import Capability, CodeHost, PullInfo, PullState, RepoRef
from homeostat.core.kb import KB, load_kb
from homeostat.core.notify import Notifier, queue_items, review_queue_message
from homeostat.core.pending import PENDING_DIR, DocPatchRequest, PendingLesson
from homeostat.core.similarity import same_lesson
from homeostat.core.state import (
    Capped,
    Cost,
    DecisionKind,
    DecisionRecord,
    DecisionsFile,
    Failed,
    Heartbeat,
    LessonSource,
    Notice,
    NoticeKind,
    Outcome,
    PullRef,
    RunReport,
    StateSnapshot,
    dump_state,
    state_branch,
)
from homeostat.core.text import content_hash
from homeostat.core.validate import validate_files
from homeostat.errors import HomeostatError, HostError

log = logging.getLogger("homeostat.daily")
T = TypeVar("T", bound=BaseModel)

SKIP_CI = "[skip ci]"
HEARTBEAT_FILE = ".homeostat/heartbeat.json"
CANDIDATES_PREFIX = "candidates/"
REVIEW_PREFIX = "homeostat/review-"
DAILY_PREFIX = "homeostat/daily-"


# --- inputs ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DailyOptions:
    dry_run: bool = False
    since: dt.datetime | None = None
    max_cost: float | None = None
    no_reviews: bool = False
    show_prompts: bool = False
    offline: bool = False  # no host and no model: this clone's pending lessons only


@dataclass(frozen=True)
class CurateOutcome:
    """What the review-drafting step hands back (see homeostat.runs.curate)."""

    lessons: tuple[Lesson, ...] = ()
    capped: bool = False
    cited: frozenset[str] = frozenset()


class CurateStep(Protocol):
    def __call__(
        self, *, kb: KB, since: dt.datetime, until: dt.datetime, extra_cited: frozenset[str], asker: Asker
    ) -> CurateOutcome: ...


@dataclass
class DailyDeps:
    git: Git | None  # the KB checkout; its `remote` is the KB repo (None with --offline)
    host: CodeHost | None
    kb_repo: RepoRef | None
    asker_for: Callable[[str], Asker]
    stats: RunStats
    out: TextIO
    now: Callable[[], dt.datetime] = lambda: dt.datetime.now(dt.UTC)
    curate: CurateStep | None = None
    notifier: Notifier | None = None
    notifier_missing: str = ""  # why no notifier: a Slack variable that is not set
    remote: str = "origin"
    checkout: Path | None = None  # for --offline: the clone whose .homeostat/pending is read


# --- model calls, counted so an all-failed run is told apart from an empty one --------------------


@dataclass
class CallTally:
    answered: int = 0
    unusable: int = 0
    errors: int = 0
    error_messages: list[str] = field(default_factory=list)

    @property
    def all_failed(self) -> bool:
        return self.errors > 0 and self.answered == 0 and self.unusable == 0


class CountingAsker:
    def __init__(self, inner: Asker, tally: CallTally) -> None:
        self.inner = inner
        self.tally = tally

    def ask(self, system: str, user: str, schema: type[T]) -> T | None:
        try:
            answer = self.inner.ask(system, user, schema)
        except SpendingCapError:
            raise
        except HomeostatError as exc:
            self.tally.errors += 1
            if len(self.tally.error_messages) < 3:
                self.tally.error_messages.append(str(exc))
            raise
        if answer is None:
            self.tally.unusable += 1
        else:
            self.tally.answered += 1
        return answer


class NoModel:
    """The offline runtime: no usable answer, so every agent falls back or fails closed."""

    def ask(self, system: str, user: str, schema: type[T]) -> T | None:
        return None


# --- what the run decides -------------------------------------------------------------------------


@dataclass
class Decided:
    lesson: Lesson
    confidence: Confidence
    verdict: str  # merge | review | decline | duplicate
    reason: str
    target: str = ""  # rule id an update, duplicate or flag is about
    update: Consolidation | None = None
    judge: Verdict | None = None
    rule_id: str = ""
    pr: PullRef | None = None
    undecided: bool = False
    waiting_key: str = ""

    @property
    def is_update(self) -> bool:
        return self.update is not None and self.update.action == "update"

    @property
    def outcome(self) -> Outcome:
        if self.verdict == "decline":
            return "declined"
        if self.verdict == "duplicate":
            return "duplicate"
        if self.verdict == "review":
            return "review"
        if self.lesson.kind == "flag":
            return "disputed"
        if self.update is not None and self.update.action == "update":
            return "updated"
        return "merged"


@dataclass
class Retirement:
    """A change the settled PRs ask of the KB, landed through the member's daily PR: a closed
    dispute retires its rule; a reviewer's merge records who approved the rules it held."""

    rule_id: str
    member: str
    reason: str
    record: DecisionRecord | None = None
    action: Literal["retire", "approve"] = "retire"
    by: str = ""


@dataclass
class RunState:
    """Everything one run accumulates; written out once at the end."""

    started: dt.datetime
    since: dt.datetime
    base: str
    state: StateSnapshot
    notices: list[Notice] = field(default_factory=list)
    records: dict[str, list[DecisionRecord]] = field(default_factory=lambda: defaultdict(list))
    heartbeats: list[Heartbeat] = field(default_factory=list)
    capped: bool = False

    def notice(self, kind: NoticeKind, message: str, out: TextIO) -> None:
        if not any(n.kind == kind and n.message == message for n in self.notices):
            self.notices.append(Notice(kind=kind, message=message))
        print(f"notice: {message}", file=out)


@dataclass(frozen=True)
class DailyResult:
    exit_code: int
    decided: tuple[Decided, ...]
    prs: tuple[PullInfo, ...]
    report: RunReport | None


# --- the run --------------------------------------------------------------------------------------


class DailyRun:
    def __init__(self, deps: DailyDeps, options: DailyOptions) -> None:
        self.deps = deps
        self.options = options
        self.dry = options.dry_run or options.show_prompts
        self.tally = CallTally()
        self.out = deps.out
        self.opened: list[PullInfo] = []

    # .. small helpers ..

    @property
    def git(self) -> Git:
        if self.deps.git is None:
            raise HomeostatError(
                "this step needs the KB repo's git checkout (it does not run with --offline)"
            )
        return self.deps.git

    def ask(self, agent: str) -> Asker:
        if self.options.offline:
            return NoModel()
        return CountingAsker(self.deps.asker_for(agent), self.tally)

    def _fetch(self, base: str) -> None:
        remote = self.deps.remote
        self.git.fetch(
            remote,
            [
                f"+refs/heads/{base}:refs/remotes/{remote}/{base}",
                f"+refs/heads/{CANDIDATES_PREFIX}*:refs/remotes/{remote}/{CANDIDATES_PREFIX}*",
                f"+refs/heads/{REVIEW_PREFIX}*:refs/remotes/{remote}/{REVIEW_PREFIX}*",
            ],
        )

    def _base_tip(self, base: str) -> str:
        sha = self.git.rev_parse(f"refs/remotes/{self.deps.remote}/{base}")
        if sha is None:
            raise HomeostatError(
                f"the KB repo has no branch {base!r} on {self.deps.remote} (sources.baseBranch)"
            )
        return sha

    # .. the whole run ..

    def run(self) -> DailyResult:
        started = self.deps.now()
        if self.options.offline:
            assert self.deps.checkout is not None
            kb = load_kb_dir(self.deps.checkout)  # the working tree, git or not
            config = kb.require_config()
            base = config.sources.base_branch
            snapshot = StateSnapshot()
        else:
            git, remote = self.git, self.deps.remote
            base = self._config_from_checkout().sources.base_branch
            self._fetch(base)
            kb = load_kb_ref(git, self._base_tip(base))
            config = kb.require_config()
            snapshot = read_state(git, remote, state_branch(base))
        since = self._window_start(config, snapshot, started)
        run = RunState(started=started, since=since, base=base, state=snapshot)
        retirements = self._settle(config, snapshot, run)
        decided_keys = snapshot.decided_hashes()
        pending, heartbeats = self._collect_pending(config, decided_keys, run)
        run.heartbeats = heartbeats
        waiting, waiting_cited = self._waiting_lessons(kb)
        reviews: list[Lesson] = []
        if not (self.options.no_reviews or self.options.offline) and self.deps.curate is not None:
            try:
                outcome = self.deps.curate(
                    kb=kb,
                    since=since,
                    until=started,
                    extra_cited=waiting_cited | _decided_urls(snapshot),
                    asker=self.ask("curator"),
                )
            except SpendingCapError as exc:
                outcome = CurateOutcome(capped=True)
                run.notice("spending-cap", f"spending cap reached while drafting: {exc}", self.out)
            except HostError as exc:
                return self._fail(run, config, f"the code host did not answer clearly: {exc}")
            if outcome.capped:
                run.capped = True
                run.notice(
                    "spending-cap",
                    "spending cap reached while drafting; later threads are read next run",
                    self.out,
                )
            reviews = [lesson for lesson in outcome.lessons if lesson.key not in decided_keys]
        if self.tally.all_failed:
            return self._fail(run, config, "every model call failed: " + "; ".join(self.tally.error_messages))
        decided = self._decide_all(kb, config, pending + reviews, waiting, run)
        if self.tally.all_failed:
            return self._fail(run, config, "every model call failed: " + "; ".join(self.tally.error_messages))
        live = [d for d in decided if not d.undecided]
        if self.dry:
            self._print_dry_run(kb, live, retirements, run)
            return DailyResult(0, tuple(decided), (), None)
        live, base_sha = self._drop_overlap(base, live, run)
        base_sha = self._daily_prs(config, base, base_sha, live, retirements, run)
        retractions, listed = self._retractions(kb, config, retirements, run)
        live += retractions
        self._review_prs(config, base, base_sha, live, run, listed)
        self._dispute_prs(config, base, live, run)
        self._record(config, live, retirements, run)
        self._notify(config, run)
        report = self._report(config, live, run, failed=None)
        self._write_state(config, run, report)
        self._summary(live)
        return DailyResult(0, tuple(decided), tuple(self.opened), report)

    def _config_from_checkout(self) -> Config:
        """The checkout's own homeostat.yaml names the base branch to fetch."""
        head = self.git.rev_parse("HEAD")
        if head is None:
            raise HomeostatError("the KB checkout has no commits")
        return load_kb_ref(self.git, head).require_config()

    # .. the review window ..

    def _window_start(self, config: Config, snapshot: StateSnapshot, now: dt.datetime) -> dt.datetime:
        if self.options.since is not None:
            return self.options.since
        default = now - dt.timedelta(hours=config.sources.lookback_hours)
        last = snapshot.last_run("daily")
        if last is not None:
            for carried in (
                last.capped.since if last.capped else None,
                last.failed.since if last.failed else None,
            ):
                if carried is not None and carried < default:
                    default = carried
        return default

    # .. settling earlier review PRs ..

    def _settle(self, config: Config, snapshot: StateSnapshot, run: RunState) -> list[Retirement]:
        retirements: list[Retirement] = []
        host, repo = self.deps.host, self.deps.kb_repo
        if host is None or repo is None:
            return retirements
        now = self.deps.now()
        for record in snapshot.records():
            if record.state != "in-review" or record.pr is None:
                continue
            try:
                info = host.get_pull(repo, record.pr.number)
            except HomeostatError as exc:
                log.warning("PR %s: unclear answer (%s); left as it was", record.pr.number, exc)
                continue
            if info.state is PullState.OPEN:
                continue
            if info.state is PullState.MERGED:
                settled = record.model_copy(
                    update={"outcome": "merged", "state": "settled", "settled_at": now, "at": now}
                )
                merger = config.member(info.merged_by or "")
                if record.rule_id and record.kind != "dispute" and merger is not None:
                    retirements.append(
                        Retirement(
                            record.rule_id,
                            record.member,
                            f"merged by @{merger.handle} in #{record.pr.number}",
                            settled,
                            action="approve",
                            by=merger.handle,
                        )
                    )
            else:
                outcome: Outcome = "retired" if record.kind == "dispute" else "declined"
                settled = record.model_copy(
                    update={"outcome": outcome, "state": "settled", "settled_at": now, "at": now}
                )
                if record.kind == "dispute" and record.rule_id:
                    retirements.append(
                        Retirement(
                            record.rule_id,
                            record.member,
                            f"dispute PR #{record.pr.number} was closed",
                            settled,
                        )
                    )
            run.records[record.member].append(settled)
        return retirements

    # .. collecting ..

    def _collect_pending(
        self, config: Config, decided: frozenset[str], run: RunState
    ) -> tuple[list[Lesson], list[Heartbeat]]:
        lessons: list[Lesson] = []
        heartbeats: list[Heartbeat] = []
        if self.options.offline:
            checkout = self.deps.checkout
            for _, pending in list_pending(checkout) if checkout else []:
                if pending.content_key() not in decided:
                    lessons.append(from_pending(pending, pending.author))
            return lessons, heartbeats
        git, remote = self.git, self.deps.remote
        refs = git.run(
            "for-each-ref", "--format=%(refname)", f"refs/remotes/{remote}/{CANDIDATES_PREFIX}"
        ).stdout.decode()
        for ref in sorted(line for line in refs.splitlines() if line):
            member = ref.rsplit("/", 1)[-1]
            if config.member(member) is None:
                print(
                    f"notice: {CANDIDATES_PREFIX}{member}: {member} is not in team.members; skipped",
                    file=self.out,
                )
                continue
            files = git.read_files(ref, ".homeostat")
            for name, data in sorted(files.items()):
                path = f".homeostat/{name}"
                if path == HEARTBEAT_FILE:
                    try:
                        heartbeats.append(Heartbeat.model_validate_json(data))
                    except ValidationError:
                        print(f"notice: {ref}:{path} is not a heartbeat; ignored", file=self.out)
                    continue
                if not path.startswith(PENDING_DIR + "/") or not path.endswith(".json"):
                    continue
                try:
                    pending = PendingLesson.from_json(data.decode("utf-8"))
                except (ValueError, ValidationError) as exc:
                    print(
                        f"notice: {ref}:{path} is not a pending lesson ({str(exc).splitlines()[0]}); skipped",
                        file=self.out,
                    )
                    continue
                if pending.content_key() in decided:
                    continue
                lessons.append(from_pending(pending, member))
        return lessons, heartbeats

    def _waiting_lessons(self, kb: KB) -> tuple[list[Candidate], frozenset[str]]:
        """Rules added or changed in open review PRs: lessons may update or repeat them, and their URLs are cited."""
        if self.options.offline:
            return [], frozenset()
        git, remote = self.git, self.deps.remote
        refs = git.run(
            "for-each-ref", "--format=%(refname)", f"refs/remotes/{remote}/{REVIEW_PREFIX}"
        ).stdout.decode()
        known = {rule.id: rule for rule in kb.rules}
        waiting: list[Candidate] = []
        cited: set[str] = set()
        for ref in (line for line in refs.splitlines() if line):
            try:
                branch_kb = load_kb_ref(git, ref)
            except HomeostatError:
                continue
            for rule in branch_kb.rules:
                base_rule = known.get(rule.id)
                if base_rule is not None and base_rule.rule == rule.rule and base_rule.title == rule.title:
                    continue
                waiting.append(replace(candidate_from_rule(rule), waiting=True))
            cited |= cited_urls(branch_kb)
        return waiting, frozenset(cited)

    # .. deciding ..

    def _decide_all(
        self, kb: KB, config: Config, lessons: list[Lesson], waiting: list[Candidate], run: RunState
    ) -> list[Decided]:
        curator = config.agents.curator
        consolidator = self.ask("consolidator")
        judge_asker = self.ask("judge")
        rules_pool = [
            candidate_from_rule(r) for r in kb.rules if r.meta.status == "accepted" and r.meta.adopted
        ]
        pool = rules_pool + waiting
        waiting_ids = {c.id for c in waiting}
        consolidate_left = curator.consolidate_calls
        judge_cap = curator.judge_calls
        decided: list[Decided] = []
        updated_rules: set[str] = set()
        capped_keys: set[str] = set()
        repeated = _repeated_by(lessons)
        drafts: list[tuple[Lesson, Checks, Consolidation | None, str]] = []
        for lesson in lessons:
            if lesson.key in capped_keys:
                continue
            checks, consolidation, target = Checks(), None, ""
            if lesson.kind in ("update", "flag"):
                rule = kb.rule(lesson.target)
                if rule is None:
                    drafts.append(
                        (
                            lesson,
                            Checks(validation_errors=(f"no rule {lesson.target} in the KB",)),
                            None,
                            lesson.target,
                        )
                    )
                    continue
                target = rule.id
                if lesson.kind == "update":
                    consolidation = Consolidation(
                        "update",
                        rule.id,
                        lesson.title or rule.title,
                        lesson.rule or rule.rule,
                        lesson.why or rule.why,
                        reason="update by hand",
                    )
            elif lesson.kind == "new":
                candidates = merge_candidates(lesson, pool)
                if candidates:
                    if self.options.no_reviews or consolidate_left <= 0:
                        consolidation = fallback(lesson, candidates)
                    else:
                        consolidate_left -= 1
                        try:
                            consolidation = consolidate(consolidator, lesson, candidates) or fallback(
                                lesson, candidates
                            )
                        except SpendingCapError:
                            run.capped = True
                            run.notice(
                                "spending-cap",
                                "spending cap reached during consolidation; those lessons wait for the next run",
                                self.out,
                            )
                            capped_keys.update(_copies(lesson, lessons))
                            continue
                        except HomeostatError:
                            consolidation = fallback(lesson, candidates)
                    target = consolidation.target
                    if (
                        consolidation.action in ("update", "duplicate")
                        and consolidation.target in waiting_ids
                    ):
                        checks = replace(checks, waits_with=consolidation.target)
                    elif consolidation.action == "duplicate":
                        checks = replace(checks, duplicate_of=consolidation.target)
                    if consolidation.contradicts:
                        checks = replace(checks, contradicts=consolidation.contradicts)
            drafts.append((lesson, checks, consolidation, target))
        confident = 0
        scored: list[tuple[Lesson, Checks, Consolidation | None, str, Confidence, Decision]] = []
        for lesson, checks, consolidation, target in drafts:
            effective = lesson
            if consolidation is not None and consolidation.action == "update":
                if consolidation.target in updated_rules:
                    checks = replace(
                        checks, waits_with=f"another update of {consolidation.target} in this run"
                    )
                effective = lesson.with_changes(
                    title=consolidation.title, rule=consolidation.rule, why=consolidation.why
                )
                rule = kb.rule(consolidation.target)
                if rule is not None:
                    effective = effective.with_changes(area=rule.area, scope=rule.meta.scope)
            checks = self._validate_draft(kb, config, effective, consolidation, checks)
            rule = kb.rule(target) if target else None
            confidence = score_confidence(
                effective,
                config,
                repeated_by=repeated.get(lesson.key, 0),
                open_flags=len(rule.meta.open_flags) if rule is not None and lesson.kind == "update" else 0,
                conflicts=1 if checks.contradicts else 0,
            )
            decision = decide(effective, confidence, checks, config)
            if decision.verdict == "merge" and consolidation is not None and consolidation.action == "update":
                updated_rules.add(consolidation.target)
            if decision.needs_judge:
                confident += 1
            scored.append((effective, checks, consolidation, target, confidence, decision))
        if self.options.since is not None:
            judge_cap = max(judge_cap, (1 + JUDGE_CONFIRMATIONS) * confident)
        judge_calls = 0
        judge_skipped = 0
        for effective, _checks, consolidation, target, confidence, decision in scored:
            verdict: Verdict | None = None
            reason = decision.reason
            outcome = decision.verdict
            if decision.needs_judge:
                if judge_cap == 0:
                    pass
                elif judge_calls >= judge_cap:
                    judge_skipped += 1
                    outcome, reason = "review", "the judge's call cap was reached; a person reads it"
                else:
                    rewritten = ""
                    if consolidation is not None and consolidation.action == "update":
                        old = kb.rule(consolidation.target)
                        rewritten = f"{old.title}\n{old.rule}" if old else ""
                    try:
                        verdict = judge(judge_asker, effective, rewritten)
                    except SpendingCapError:
                        run.capped = True
                        run.notice(
                            "spending-cap",
                            "spending cap reached before the judge; those drafts wait for the next run",
                            self.out,
                        )
                        decided.append(
                            Decided(
                                effective,
                                confidence,
                                "review",
                                "spending cap",
                                target=target,
                                update=consolidation,
                                undecided=True,
                            )
                        )
                        continue
                    judge_calls += verdict.calls
                    if verdict.outcome == "unavailable":
                        judge_skipped += 1
                        outcome, reason = (
                            "review",
                            f"the judge gave no usable answer ({verdict.detail}); a person reads it",
                        )
                    elif verdict.outcome == "contradicts":
                        outcome, reason = (
                            "decline",
                            "the judge found it contradicts its thread: " + verdict.evidence,
                        )
                    elif verdict.outcome == "fail":
                        confidence = confidence.with_term("judge", -config.scoring.confidence.penalty.judge)
                        outcome, reason = "review", "the judge found: " + verdict.evidence
            decided.append(
                Decided(
                    effective, confidence, outcome, reason, target=target, update=consolidation, judge=verdict
                )
            )
        if judge_skipped:
            run.notice(
                "judge-cap",
                f"{judge_skipped} confident draft(s) went to review without a judge's pass",
                self.out,
            )
        for lesson in lessons:
            if lesson.key in capped_keys:
                decided.append(Decided(lesson, Confidence(0, ()), "review", "spending cap", undecided=True))
        return decided

    def _validate_draft(
        self, kb: KB, config: Config, lesson: Lesson, consolidation: Consolidation | None, checks: Checks
    ) -> Checks:
        """Apply the lesson to a scratch copy and validate the files it touched."""
        if lesson.kind == "flag" or checks.validation_errors:
            return checks
        edit = KbEdit.of(kb, self.deps.now().date())
        try:
            if lesson.kind == "doc":
                edit.patch_document(lesson)
            elif consolidation is not None and consolidation.action == "update":
                edit.update(
                    consolidation.target, lesson, consolidation.title, consolidation.rule, consolidation.why
                )
            elif lesson.kind == "new":
                if not lesson.area or config.area(lesson.area) is None and lesson.area != "core":
                    return replace(checks, validation_errors=(f"unknown area {lesson.area!r}",))
                edit.add_new(lesson)
            else:
                return checks
        except (ApplyError, ValidationError, ValueError) as exc:
            return replace(checks, validation_errors=(str(exc).splitlines()[0],))
        changed = edit.diff(kb.files)
        new = _new_errors(kb.files, changed, self.deps.now().date())
        risky = tuple(f.message for f in new if f.check == "risky")
        others = tuple(f.message for f in new if f.check != "risky")
        return replace(checks, risky=risky, validation_errors=others)

    def _drop_overlap(self, base: str, decided: list[Decided], run: RunState) -> tuple[list[Decided], str]:
        """Another run (the schedule and a manual run) may have decided some of these since this one
        started: leave those to it, so no lesson lands twice."""
        self._fetch(base)
        base_sha = self._base_tip(base)
        fresh = read_state(self.git, self.deps.remote, state_branch(base))
        already = fresh.decided_hashes() - run.state.decided_hashes()
        cited = cited_urls(load_kb_ref(self.git, base_sha))
        kept: list[Decided] = []
        for d in decided:
            if d.lesson.key in already or (d.lesson.from_review and d.lesson.url in cited):
                print(
                    f"notice: {d.lesson.title[:60]!r} was decided by an overlapping run; left to it",
                    file=self.out,
                )
                continue
            kept.append(d)
        return kept, base_sha

    # .. pull requests ..

    def _branch_name(self, prefix: str, name: str) -> str:
        date = self.deps.now().date().isoformat()
        base = f"{prefix}{name}-{date}"
        existing = self.git.ls_remote(self.deps.remote, f"refs/heads/{base}*")
        candidate, n = base, 2
        while f"refs/heads/{candidate}" in existing:
            candidate, n = f"{base}-{n}", n + 1
        return candidate

    def _push_pr(
        self,
        base: str,
        base_sha: str,
        changed: Mapping[str, str],
        branch: str,
        title: str,
        body: str,
        message: str,
    ) -> tuple[str, PullInfo]:
        git, host, repo = self.git, self.deps.host, self.deps.kb_repo
        assert host is not None and repo is not None
        sha = git.commit_files(base_sha, {p: t.encode("utf-8") for p, t in changed.items()}, message)
        pushed = git.push(self.deps.remote, sha, branch)
        if not pushed.ok:
            raise HomeostatError(f"could not push {branch}: {pushed.message}")
        info = host.open_pull(repo, branch, base, title, body)
        self.opened.append(info)
        return sha, info

    def _daily_prs(
        self,
        config: Config,
        base: str,
        base_sha: str,
        decided: list[Decided],
        retirements: list[Retirement],
        run: RunState,
    ) -> str:
        today = self.deps.now().date()
        members = sorted({d.lesson.member for d in decided} | {r.member for r in retirements})
        for member in members:
            mine = [d for d in decided if d.lesson.member == member]
            landing = [d for d in mine if d.verdict in ("merge", "duplicate")]
            my_retirements = [r for r in retirements if r.member == member]
            if not landing and not my_retirements:
                continue
            kb = load_kb_ref(self.git, base_sha)
            edit = KbEdit.of(kb, today)
            applied = _apply_landing(edit, kb, landing)
            done_retirements: list[Retirement] = []
            done_approvals: list[Retirement] = []
            for r in my_retirements:
                try:
                    if r.action == "approve":
                        edit.approve(r.rule_id, r.by)
                        done_approvals.append(r)
                    else:
                        edit.retire(r.rule_id)
                        done_retirements.append(r)
                except ApplyError as exc:
                    log.warning("cannot %s %s: %s", r.action, r.rule_id, exc)
            changed = edit.diff(kb.files)
            if not changed:
                continue
            result = validate_files({**kb.files, **changed}, today)
            broken = {f.file for f in result.errors if f.file in changed}
            if broken:
                for d in applied:
                    d.verdict, d.reason = (
                        "review",
                        "the KB did not validate with it merged: "
                        + next(f.message for f in result.errors if f.file in changed),
                    )
                print(
                    f"notice: daily PR for {member} did not validate; its lessons go to review", file=self.out
                )
                continue
            title = f"Homeostat daily: {member} {today.isoformat()}"
            body = render(
                "daily_pr.md.j2",
                member=member,
                date=today.isoformat(),
                merged=[d for d in applied if d.outcome == "merged"],
                updated=[d for d in applied if d.outcome == "updated"],
                reconfirmed=[d for d in applied if d.verdict == "duplicate"],
                disputed=[d for d in applied if d.outcome == "disputed"],
                retired=[{"rule_id": r.rule_id, "reason": r.reason} for r in done_retirements],
                approved=[{"rule_id": r.rule_id, "reason": r.reason} for r in done_approvals],
                decisions=mine,
                state_branch=state_branch(base),
            )
            branch = self._branch_name(DAILY_PREFIX, member)
            sha, info = self._push_pr(base, base_sha, changed, branch, title, body, f"{title} {SKIP_CI}")
            pr_ref = PullRef(number=info.number, url=info.url, branch=branch)
            message = "\n".join(f"- {d.outcome}: {d.lesson.title}" for d in applied) or "retirements"
            assert self.deps.host is not None and self.deps.kb_repo is not None
            merged = self.deps.host.merge_pull(
                self.deps.kb_repo, info.number, f"{title} (#{info.number})", message, sha
            )
            if merged.merged:
                for d in applied:
                    d.pr = pr_ref
                self._fetch(base)
                base_sha = self._base_tip(base)
                self.git.delete_remote_branch(self.deps.remote, branch)
            else:
                run.notice(
                    "merge-refused",
                    f"daily PR #{info.number} for {member} was not merged ({merged.reason}); it stays open",
                    self.out,
                )
                plain = self.git.commit_files(sha, {}, f"{title}: run the checks", parents=[sha])
                self.git.push(self.deps.remote, plain, branch)
                for d in applied:
                    if d.verdict == "merge":
                        d.verdict, d.reason, d.pr = (
                            "review",
                            f"the host refused the daily merge: {merged.reason}",
                            pr_ref,
                        )
                        d.waiting_key = "daily-refused"
        return base_sha

    def _retractions(
        self, kb: KB, config: Config, retirements: list[Retirement], run: RunState
    ) -> tuple[list[Decided], dict[str, list[dict[str, str]]]]:
        """Patches for document sections citing a rule a closed dispute retired; the rest, listed.

        Documents never merge without a person, so the patches go in the member's review PR."""
        decided: list[Decided] = []
        listed: dict[str, list[dict[str, str]]] = defaultdict(list)
        left = config.agents.curator.retract_calls
        asker = self.ask("retractor")
        for retirement in retirements:
            rule = kb.rule(retirement.rule_id)
            if rule is None or retirement.action != "retire":
                continue
            for citation in find_citations(kb, rule):
                body: str | None = None
                note = "no model call left this run (agents.curator.retractCalls)"
                if left > 0:
                    left -= 1
                    try:
                        answer = asker.ask(
                            RETRACT_SYSTEM,
                            retract_prompt(rule, citation, still_supported(kb, citation, rule.id)),
                            RetractAnswer,
                        )
                        body = acceptable_rewrite(answer, rule, citation)
                        note = "the model's rewrite was not safe to keep" if body is None else ""
                    except SpendingCapError:
                        left = 0
                        note = "the spending cap was reached"
                    except HomeostatError as exc:
                        note = f"the retractor failed: {exc}"
                if body is None:
                    listed[retirement.member].append(
                        {
                            "doc": citation.doc_id,
                            "section": citation.section_id,
                            "rule_id": rule.id,
                            "note": note,
                        }
                    )
                    continue
                document = kb.document(citation.doc_id)
                section = document.section(citation.section_id) if document else None
                keep_url = not citation.by_url and section is not None and section.provenance is not None
                lesson = Lesson(
                    key=content_hash("retract", rule.id, citation.doc_id, citation.section_id),
                    origin="review",
                    kind="doc",
                    member=retirement.member,
                    originator=retirement.member,
                    source="deep-dive",
                    created=self.deps.now(),
                    title=f"Retract {rule.id} from {citation.doc_id}#{citation.section_id}",
                    why=f"{rule.id} was retired ({retirement.reason})",
                    area=document.meta.area if document else "",
                    url=section.provenance.url if keep_url and section and section.provenance else "",
                    doc_patch=DocPatchRequest(
                        doc=citation.doc_id,
                        section=citation.section_id,
                        op="replace",
                        body=body,
                        note=f"retracted {rule.id}",
                    ),
                )
                decided.append(
                    Decided(lesson, Confidence(0, ()), "review", f"retracts the retired rule {rule.id}")
                )
        if any(listed.values()):
            count = sum(len(items) for items in listed.values())
            run.notice(
                "retract-cap",
                f"{count} document section(s) citing a retired rule are listed for a person",
                self.out,
            )
        return decided, listed

    def _review_prs(
        self,
        config: Config,
        base: str,
        base_sha: str,
        decided: list[Decided],
        run: RunState,
        retractions: Mapping[str, list[dict[str, str]]] | None = None,
    ) -> None:
        today = self.deps.now().date()
        host = self.deps.host
        assert host is not None
        for member in sorted({d.lesson.member for d in decided}):
            waiting = [
                d
                for d in decided
                if d.lesson.member == member and d.verdict == "review" and d.pr is None and not d.undecided
            ]
            if not waiting:
                continue
            kb = load_kb_ref(self.git, base_sha)
            edit = KbEdit.of(kb, today)
            included = _apply_review(edit, waiting)
            changed = edit.diff(kb.files)
            if not changed:
                continue
            title = f"Homeostat review: {member} {today.isoformat()}"
            body = render(
                "review_pr.md.j2",
                member=member,
                date=today.isoformat(),
                decisions=included,
                retractions=(retractions or {}).get(member, []),
            )
            branch = self._branch_name(REVIEW_PREFIX, member)
            _, info = self._push_pr(base, base_sha, changed, branch, title, body, title)
            areas = {d.lesson.area for d in included if d.lesson.area}
            self._request_reviewers(config, info, areas, member)
            for d in included:
                d.pr = PullRef(number=info.number, url=info.url, branch=branch)

    def _request_reviewers(self, config: Config, info: PullInfo, areas: Iterable[str], author: str) -> None:
        host, repo = self.deps.host, self.deps.kb_repo
        assert host is not None and repo is not None
        teams_ok = Capability.TEAM_REVIEWERS in host.capabilities
        request = choose_reviewers(config, areas, author, team_reviewers=teams_ok)
        try:
            host.request_reviewers(repo, info.number, request.users, request.teams)
        except HomeostatError as exc:
            print(f"notice: could not request reviewers on #{info.number}: {exc}", file=self.out)

    def _dispute_prs(self, config: Config, base: str, decided: list[Decided], run: RunState) -> None:
        today = self.deps.now().date()
        flagged = sorted(
            {
                d.target
                for d in decided
                if d.lesson.kind == "flag" and d.outcome == "disputed" and d.pr is not None
            }
        )
        if not flagged:
            return
        self._fetch(base)
        base_sha = self._base_tip(base)
        asker = self.ask("curator")
        for rule_id in flagged:
            kb = load_kb_ref(self.git, base_sha)
            rule = kb.rule(rule_id)
            if rule is None:
                continue
            try:
                fix = usable_fix(asker.ask(DISPUTE_SYSTEM, dispute_prompt(rule), DisputeFix))
            except SpendingCapError:
                run.notice(
                    "spending-cap",
                    f"spending cap reached: the dispute fix for {rule_id} waits for the next run",
                    self.out,
                )
                return
            except HomeostatError:
                fix = None
            edit = KbEdit.of(kb, today)
            if fix is not None:
                edit.restore(rule_id, fix.title, fix.rule, fix.why)
            else:
                edit.retire(rule_id)
            changed = edit.diff(kb.files)
            title = f"Homeostat dispute: {rule_id}"
            body = render("dispute_pr.md.j2", rule=rule, flags=rule.meta.open_flags, fix=fix)
            branch = self._branch_name("homeostat/review-dispute-", rule_id)
            _, info = self._push_pr(base, base_sha, changed, branch, title, body, title)
            flaggers = [d for d in decided if d.lesson.kind == "flag" and d.target == rule_id]
            member = flaggers[0].lesson.member if flaggers else rule.meta.source.author
            self._request_reviewers(config, info, {rule.area}, member)
            now = self.deps.now()
            run.records[member].append(
                DecisionRecord(
                    hash=f"dispute-{rule_id}-{today.isoformat()}",
                    member=member,
                    kind="dispute",
                    title=rule.title,
                    rule_id=rule_id,
                    area=rule.area,
                    source=LessonSource(type="flag", url=None),
                    outcome="review",
                    state="in-review",
                    confidence=0,
                    reason="fix drafted from the flags"
                    if fix
                    else "no fix could be drafted; retires the rule",
                    pr=PullRef(number=info.number, url=info.url, branch=branch),
                    review_opened_at=now,
                    at=now,
                )
            )

    # .. recording ..

    def _record(
        self, config: Config, decided: list[Decided], retirements: list[Retirement], run: RunState
    ) -> None:
        now = self.deps.now()
        for d in decided:
            outcome = d.outcome
            in_review = outcome == "review"
            run.records[d.lesson.member].append(
                DecisionRecord(
                    hash=d.lesson.key,
                    member=d.lesson.member,
                    kind=_record_kind(d.lesson),
                    title=d.lesson.title or d.lesson.target or "(untitled)",
                    rule_id=d.rule_id or d.target or None,
                    area=d.lesson.area or None,
                    source=LessonSource(type=d.lesson.source, url=d.lesson.url or None),
                    outcome=outcome,
                    state="in-review" if in_review else "settled",
                    confidence=d.confidence.total,
                    breakdown=d.confidence.as_dict(),
                    reason=d.reason,
                    pr=d.pr,
                    review_opened_at=now if in_review else None,
                    settled_at=None if in_review else now,
                    at=now,
                )
            )

    def _report(self, config: Config, decided: list[Decided], run: RunState, failed: str | None) -> RunReport:
        finished = self.deps.now()
        counts = Counter(d.outcome for d in decided)
        kb = load_kb_ref(self.git, self._base_tip(run.base)) if not self.options.offline else None
        health: dict[str, int] = {}
        if kb is not None:
            health = dict(Counter(f"rules.{r.meta.status}" for r in kb.rules))
            health["documents"] = len(kb.documents)
        stats = self.deps.stats
        return RunReport(
            run_id=f"{run.started.strftime('%Y%m%dT%H%M%S')}-{uuid.uuid4().hex[:6]}",
            kind="daily",
            started_at=run.started,
            finished_at=finished,
            duration_seconds=max(0.0, (finished - run.started).total_seconds()),
            decided=dict(counts),
            health=health,
            notices=tuple(run.notices),
            capped=Capped(since=run.since) if run.capped else None,
            failed=Failed(since=run.since, reason=failed) if failed else None,
            cost=Cost(usd=round(stats.cost_usd, 6), estimated=stats.estimated),
        )

    def _write_state(self, config: Config, run: RunState, report: RunReport) -> None:
        files: dict[str, bytes] = {}
        for member, records in run.records.items():
            latest: dict[str, DecisionRecord] = {}
            for record in records:
                latest[record.hash] = record
            files[f"decisions/{member}.json"] = dump_state(
                DecisionsFile(member=member, records=tuple(latest.values()))
            )
        for heartbeat in run.heartbeats:
            files[f"heartbeats/{heartbeat.member}.json"] = dump_state(heartbeat)
        files[f"runs/{report.started_at.date().isoformat()}.json"] = dump_state(report)
        write_state(
            self.git,
            files,
            remote=self.deps.remote,
            branch=state_branch(run.base),
            message=f"homeostat daily {report.run_id}",
        )

    def _notify(self, config: Config, run: RunState) -> None:
        """Post the review queue (new reviews, and overdue ones again); a Slack variable that is not
        set is a recorded notice, never silence."""
        if self.deps.notifier is None:
            message = (
                self.deps.notifier_missing
                or f"{config.notifications.slack_webhook_env} is not set; no Slack notice was posted"
            )
            run.notice("slack-unset", message, self.out)
            return
        latest = {record.hash: record for record in run.state.records()}
        for records in run.records.values():
            latest.update({record.hash: record for record in records})
        text = review_queue_message(
            queue_items(latest.values()),
            now=self.deps.now(),
            opened_since=run.started,
            overdue_days=config.notifications.review_overdue_days,
            reviewers=config.team.reviewers,
        )
        if text is None:
            return
        try:
            self.deps.notifier.post(text)
        except HomeostatError as exc:
            print(f"notice: the Slack notice was not posted: {exc}", file=self.out)

    def _summary(self, decided: list[Decided]) -> None:
        counts = Counter(d.outcome for d in decided)
        parts = ", ".join(f"{n} {outcome}" for outcome, n in sorted(counts.items())) or "nothing to decide"
        print(f"daily: {parts}; {len(self.opened)} PR(s) opened", file=self.out)

    def _print_dry_run(
        self, kb: KB, decided: list[Decided], retirements: list[Retirement], run: RunState
    ) -> None:
        """The decisions table and every PR body, built on a scratch copy of the KB; nothing is written."""
        day = self.deps.now().date()
        today = day.isoformat()
        bodies: list[str] = []
        for member in sorted({d.lesson.member for d in decided}):
            mine = [d for d in decided if d.lesson.member == member]
            landing = [d for d in mine if d.verdict == "merge"]
            edit = KbEdit.of(kb, day)
            _apply_landing(edit, kb, [d for d in mine if d.verdict in ("merge", "duplicate")])
            daily_files = sorted(edit.diff(kb.files))
            review_edit = KbEdit.of(kb, day)
            _apply_review(review_edit, [d for d in mine if d.verdict == "review"])
            review_files = sorted(review_edit.diff(kb.files))
            if landing or any(d.verdict == "duplicate" for d in mine):
                body = render(
                    "daily_pr.md.j2",
                    member=member,
                    date=today,
                    merged=[d for d in landing if d.outcome == "merged"],
                    updated=[d for d in landing if d.outcome == "updated"],
                    reconfirmed=[d for d in mine if d.verdict == "duplicate"],
                    disputed=[d for d in landing if d.outcome == "disputed"],
                    retired=[
                        {"rule_id": r.rule_id, "reason": r.reason}
                        for r in retirements
                        if r.member == member and r.action == "retire"
                    ],
                    approved=[
                        {"rule_id": r.rule_id, "reason": r.reason}
                        for r in retirements
                        if r.member == member and r.action == "approve"
                    ],
                    decisions=mine,
                    state_branch=state_branch(run.base),
                )
                files = "".join(f"  {path}\n" for path in daily_files)
                bodies.append(f"\n--- daily PR for {member}, changing:\n{files}\n{body}")
            review = [d for d in mine if d.verdict == "review"]
            if review:
                body = render("review_pr.md.j2", member=member, date=today, decisions=review, retractions=[])
                files = "".join(f"  {path}\n" for path in review_files)
                bodies.append(f"\n--- review PR for {member}, changing:\n{files}\n{body}")
        print("Decisions (dry run: nothing is written):", file=self.out)
        self.out.write(render("decisions.txt.j2", decisions=decided))
        for body in bodies:
            print(body, file=self.out)
        counts = Counter(d.outcome for d in decided)
        parts = ", ".join(f"{n} {outcome}" for outcome, n in sorted(counts.items())) or "nothing to decide"
        print(f"daily (dry run): {parts}", file=self.out)

    def _fail(self, run: RunState, config: Config, reason: str) -> DailyResult:
        print(f"homeostat: daily run failed: {reason}", file=self.out)
        print(
            "homeostat: no decisions were recorded and no PR was opened; the next run reads this window again",
            file=self.out,
        )
        run.notice("model-failure", reason[:500], self.out)
        if self.dry or self.options.offline:
            return DailyResult(1, (), (), None)
        report = self._report(config, [], run, failed=reason[:500])
        run.records.clear()
        run.heartbeats = []
        try:
            self._write_state(config, run, report)
        except HomeostatError as exc:
            print(f"homeostat: could not record the failed run: {exc}", file=self.out)
        return DailyResult(1, (), (), report)


def _new_errors(files: Mapping[str, str], changed: Mapping[str, str], today: dt.date) -> list[Finding]:
    """Errors the change brings into the files it touches, checked on those files alone (fast on a
    large KB; whole-KB checks run once on each PR)."""
    config = {"homeostat.yaml": files["homeostat.yaml"], "knowledge/": ""}
    before = validate_files({**config, **{p: files[p] for p in changed if p in files}}, today)
    after = validate_files({**config, **changed}, today)
    seen = Counter((f.file, f.check, f.message) for f in before.errors)
    new: list[Finding] = []
    for finding in after.errors:
        key = (finding.file, finding.check, finding.message)
        if finding.file not in changed or finding.check in ("conflict", "cache"):
            continue
        if seen[key]:
            seen[key] -= 1
            continue
        new.append(finding)
    return new


def _apply_landing(edit: KbEdit, kb: KB, landing: Sequence[Decided]) -> list[Decided]:
    """Apply merged lessons and reconfirmations to one member's daily edit; a rule reconfirmed once."""
    reconfirmed: set[str] = set()
    applied: list[Decided] = []
    for d in landing:
        try:
            if d.lesson.kind == "flag":
                edit.flag(d.target, d.lesson.originator, d.lesson.reason)
                d.rule_id = d.target
            elif d.verdict == "duplicate":
                d.rule_id = d.target
                if d.target in reconfirmed or not d.target or kb.rule(d.target) is None:
                    continue
                edit.reconfirm(d.target, d.lesson.url)
                reconfirmed.add(d.target)
            elif d.is_update and d.update is not None:
                edit.update(d.update.target, d.lesson, d.update.title, d.update.rule, d.update.why)
                d.rule_id = d.update.target
            else:
                d.rule_id = edit.add_new(d.lesson, approved_by=(d.lesson.originator,))
            applied.append(d)
        except ApplyError as exc:
            d.verdict, d.reason = "decline", str(exc)
    return applied


def _apply_review(edit: KbEdit, waiting: Sequence[Decided]) -> list[Decided]:
    """Apply middle-band lessons to one member's review edit."""
    included: list[Decided] = []
    for d in waiting:
        try:
            if d.lesson.kind == "doc":
                edit.patch_document(d.lesson)
                d.rule_id = ""
            elif d.is_update and d.update is not None:
                edit.update(d.update.target, d.lesson, d.update.title, d.update.rule, d.update.why)
                d.rule_id = d.update.target
            elif d.lesson.kind == "new":
                d.rule_id = edit.add_new(d.lesson)
            else:
                continue
            included.append(d)
        except ApplyError as exc:
            d.verdict, d.reason = "decline", str(exc)
    return included


def _decided_urls(snapshot: StateSnapshot) -> frozenset[str]:
    """Review threads already decided (whatever the outcome) are never drafted again."""
    return frozenset(
        r.source.url for r in snapshot.records() if r.kind in ("review-thread", "doc") and r.source.url
    )


def _record_kind(lesson: Lesson) -> DecisionKind:
    if lesson.from_review and lesson.kind == "new":
        return "review-thread"
    return {
        "new": "new",
        "update": "update",
        "flag": "flag",
        "doc": "review-thread" if lesson.from_review else "new",
    }[lesson.kind]


def _repeated_by(lessons: Sequence[Lesson]) -> dict[str, int]:
    """How many other members taught the same lesson in this run."""
    counts: dict[str, int] = {}
    for lesson in lessons:
        if lesson.kind != "new":
            continue
        others = {
            o.member
            for o in lessons
            if o.kind == "new" and o.member != lesson.member and same_lesson(lesson.text, o.text)
        }
        if others:
            counts[lesson.key] = len(others)
    return counts


def _copies(lesson: Lesson, lessons: Sequence[Lesson]) -> set[str]:
    return {lesson.key} | {o.key for o in lessons if o.kind == "new" and same_lesson(lesson.text, o.text)}


def run_daily(deps: DailyDeps, options: DailyOptions) -> DailyResult:
    return DailyRun(deps, options).run()


__all__ = ["CurateOutcome", "DailyDeps", "DailyOptions", "DailyResult", "Decided", "run_daily", "load_kb"]
