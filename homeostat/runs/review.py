"""`homeostat review merge`: rebuild a review or dispute PR on the current base, then merge it.

Review PRs that add sections to one topic file conflict for git once one of them merges. For each
PR (one by number, or every open one, oldest first, each on the base the last one left):

1. check: it is open, its head is this repository's `homeostat/review-*` branch (dispute PRs
   included), and it targets `sources.baseBranch`; a merged or closed PR is reported and skipped;
2. approval: a team member who wrote none of its lessons (the decision records on the state branch
   that name the PR say who did) approved it at the head just fetched, the one the rebuild starts
   from and the push is leased on; else it is left open, with no comment, and the line says why;
3. rebuild: when the base moved since the PR's branch left it, the PR's files are merged onto the
   current base section by section (`homeostat.core.format.section_merge`), validated, and committed on
   the base tip; a rule both sides changed (or anything else two sides changed differently) leaves
   the PR open with one comment saying which and why, never repeated by a rerun; the rebuilt commit
   keeps the approved head as its second parent, so the daily run that settles the PR can make the
   rebuild again and count the approval for what merged (`rebuilt_from`);
4. push: the rebuilt commit replaces the branch, leased on the commit it was rebuilt from, so a
   person's push in between is never lost; a host that can miss a force push (Bitbucket) gets an
   ordinary push on top; then the run waits until the host shows the pushed commit as the PR head;
5. merge: squash-merge at exactly that head (the Bitbucket adapter polls its asynchronous merge).
   A refusal (branch protection, a required check) leaves the PR open, rebuilt, for a person.

Only the PR's own branch is ever force-pushed: never the base branch or the state branch. Nothing
here writes the state branch: the next daily run settles a merged review PR as a reviewer's merge.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal, TextIO

from homeostat.adapters.git.plumbing import Git
from homeostat.adapters.kb_files import load_kb_ref
from homeostat.adapters.state.state_store import read_state, tracking_ref
from homeostat.core.config import Config
from homeostat.core.format.section_merge import Conflict, Rebuild, rebuild
from homeostat.core.hosts import Capability, CodeHost, PullInfo, PullState, RepoRef, same_commit
from homeostat.core.review_approval import Verdict, approval_verdict
from homeostat.core.state.branch import StateSnapshot, state_branch
from homeostat.core.validate import validate_files
from homeostat.errors import AuthError, HomeostatError, HostError
from homeostat.runs.publish import REBUILDABLE_PREFIX, Publisher

Outcome = Literal["merged", "left-open", "skipped", "dry-run", "failed"]
MARKER = "<!-- homeostat review-merge: {key} -->"


class NotHomeostatsPull(HomeostatError):
    """A PR review merge must not touch: someone else's branch, a fork, another base."""

    exit_code = 2


@dataclass(frozen=True)
class ReviewMergeOptions:
    number: int | None = None  # None: every open review and dispute PR
    dry_run: bool = False
    head_wait: float = 120.0  # seconds to wait for the host to show a pushed head
    poll: float = 2.0


@dataclass
class ReviewMergeDeps:
    git: Git
    host: CodeHost
    kb_repo: RepoRef
    config: Config
    out: TextIO
    remote: str = "origin"
    sleep: Callable[[float], None] = time.sleep
    clock: Callable[[], float] = time.monotonic
    today: Callable[[], dt.date] = lambda: dt.datetime.now(dt.UTC).date()


@dataclass(frozen=True)
class PullOutcome:
    number: int
    url: str
    outcome: Outcome
    reason: str
    rebuilt: bool = False
    merge_sha: str = ""


@dataclass
class ReviewMergeResult:
    outcomes: list[PullOutcome] = field(default_factory=list)

    def count(self, outcome: Outcome) -> int:
        return sum(1 for o in self.outcomes if o.outcome == outcome)

    @property
    def exit_code(self) -> int:
        """1 when a PR was left for a person (a conflict, a refusal, a failure), else 0."""
        return 1 if any(o.outcome in ("left-open", "failed") for o in self.outcomes) else 0


@dataclass(frozen=True)
class _Prepared:
    """A PR ready to merge: the commit to push (None when its branch is already level with the
    base) and the one the branch held."""

    pull: PullInfo
    head: str
    rebuilt: str | None
    approver: str


class ReviewMerge:
    def __init__(self, deps: ReviewMergeDeps, options: ReviewMergeOptions) -> None:
        self.deps = deps
        self.options = options
        self.base = deps.config.sources.base_branch
        self.publisher = Publisher(deps.git, deps.host, deps.kb_repo, remote=deps.remote, out=deps.out)
        self._state: StateSnapshot | None = None  # read once, when the first PR asks who wrote it

    def run(self) -> ReviewMergeResult:
        result = ReviewMergeResult()
        for pull in self._pulls():
            try:
                outcome = self.merge_one(pull)
            except NotHomeostatsPull as exc:
                if self.options.number is not None:
                    raise
                outcome = PullOutcome(pull.number, pull.url, "skipped", str(exc))
            except HomeostatError as exc:
                outcome = PullOutcome(pull.number, pull.url, "failed", str(exc))
            self._say(outcome)
            result.outcomes.append(outcome)
        if not result.outcomes:
            print(f"review merge: no open review or dispute PR into {self.base}", file=self.deps.out)
        return result

    def _pulls(self) -> list[PullInfo]:
        host, repo = self.publisher.host
        if self.options.number is not None:
            try:
                return [host.get_pull(repo, self.options.number)]
            except AuthError:
                raise
            except HostError as exc:
                raise HostError(f"cannot read PR #{self.options.number} of {repo.full_name}: {exc}") from exc
        found = [p for p in self.publisher.open_pulls(REBUILDABLE_PREFIX) if p.base_branch == self.base]
        return sorted(found, key=lambda p: p.number)

    def merge_one(self, pull: PullInfo) -> PullOutcome:
        if pull.state is not PullState.OPEN:
            return PullOutcome(pull.number, pull.url, "skipped", f"already {pull.state.value}")
        head, base_tip = self._fetch(pull)
        verdict = self._approval(pull, head)
        if verdict.approver is None:
            if self.options.dry_run:
                return PullOutcome(pull.number, pull.url, "dry-run", f"would be left open: {verdict.reason}")
            return PullOutcome(pull.number, pull.url, "left-open", verdict.reason)
        prepared = self._prepare(pull, head, base_tip, verdict.approver)
        if isinstance(prepared, PullOutcome):
            return prepared
        if self.options.dry_run:
            what = "rebuilt on" if prepared.rebuilt else "level with"
            reason = f"would merge, {what} {self.base}, {verdict.reason}"
            return PullOutcome(pull.number, pull.url, "dry-run", reason)
        pushed = self._push(prepared)
        if isinstance(pushed, PullOutcome):
            return pushed
        return self._merge(prepared, pushed)

    # .. 1. check ..

    def _fetch(self, pull: PullInfo) -> tuple[str, str]:
        """The PR branch's tip and the base's, fresh from the remote; refuses a PR not Homeostat's."""
        branch = pull.head_branch
        if not branch.startswith(REBUILDABLE_PREFIX) or pull.base_branch != self.base:
            raise NotHomeostatsPull(
                f"PR #{pull.number} is not a Homeostat review or dispute PR: its branch is {branch!r} into "
                f"{pull.base_branch!r}, and review merge only merges {REBUILDABLE_PREFIX}* branches into "
                f"{self.base} (sources.baseBranch)"
            )
        git, remote = self.deps.git, self.deps.remote
        git.unshallow(remote)  # the merge base must be in the history, not cut off
        git.fetch(
            remote,
            [f"+refs/heads/{ref}:{tracking_ref(remote, ref)}" for ref in (self.base, branch)],
        )
        head = git.rev_parse(tracking_ref(remote, branch))
        base_tip = git.rev_parse(tracking_ref(remote, self.base))
        if head is None:
            raise NotHomeostatsPull(
                f"PR #{pull.number} is not a Homeostat review or dispute PR: {branch} is not a branch of "
                f"{self.deps.kb_repo.full_name} (a fork's branch, or one already deleted)"
            )
        if base_tip is None:
            raise HomeostatError(f"the KB repo has no branch {self.base!r} (sources.baseBranch)")
        return head, base_tip

    # .. 2. approval ..

    def _approval(self, pull: PullInfo, head: str) -> Verdict:
        """Whether a team member who wrote none of the PR's lessons approved it at `head`, the commit
        the rebuild starts from and the push is leased on."""
        authors = self._authors(pull)
        if isinstance(authors, str):
            return Verdict(None, f"{authors}, so who wrote its lessons is unknown")
        host, repo = self.publisher.host
        approvals = host.pull_approvals(repo, pull.number)
        return approval_verdict(approvals, authors, head, self._is_member, opener=pull.author)

    def _authors(self, pull: PullInfo) -> frozenset[str] | str:
        """The members whose lessons (or flags, for a dispute PR) the PR holds, from the decision
        records on the state branch; why not, when the branch cannot be read or names no author."""
        branch = state_branch(self.base)
        if self._state is None:
            try:
                self._state = read_state(self.deps.git, self.deps.remote, branch)
            except HomeostatError as exc:
                return f"{branch} cannot be read ({exc})"
        authors = frozenset(
            record.member
            for record in self._state.live_records()
            if record.pr is not None and record.pr.number == pull.number
        )
        return authors or f"no decision record on {branch} names this PR"

    def _is_member(self, login: str) -> bool:
        return self.deps.config.member(login) is not None

    # .. 3. rebuild ..

    def _prepare(self, pull: PullInfo, head: str, base_tip: str, approver: str) -> _Prepared | PullOutcome:
        git = self.deps.git
        fork = git.run("merge-base", head, base_tip, check=False).stdout.decode().strip()
        if not fork:
            return self._leave_open(
                pull, [Conflict("", f"{pull.head_branch} shares no history with {self.base}")]
            )
        if fork == base_tip:
            return _Prepared(pull, head, None, approver)
        built = self._rebuild(fork, base_tip, head)
        if built.conflicts:
            return self._leave_open(pull, list(built.conflicts), base_tip, fork)
        if not built.files:
            reason = f"{self.base} already holds everything this PR changes; close it or merge it by hand"
            return PullOutcome(pull.number, pull.url, "left-open", reason)
        broken = self._invalid(base_tip, built)
        if broken:
            return self._leave_open(
                pull, [Conflict("", f"rebuilt on {self.base}, the KB does not validate: {broken}")]
            )
        message = f"{pull.title}\n\nRebuilt on {self.base} at {base_tip[:12]} by homeostat review merge."
        # the approved head stays a parent, so the daily run can rebuild it again (`rebuilt_from`)
        return _Prepared(pull, head, _commit_rebuild(git, base_tip, head, built, message), approver)

    def _rebuild(self, fork: str, base_tip: str, head: str) -> Rebuild:
        return rebuild_on(self.deps.git, fork, base_tip, head)

    def _invalid(self, base_tip: str, built: Rebuild) -> str:
        """The first validation error the rebuilt files have on the current base, or ''."""
        files: dict[str, str | bytes] = dict(load_kb_ref(self.deps.git, base_tip).files)
        for path, text in built.files.items():
            if text is None:
                files.pop(path, None)
            else:
                files[path] = text
        errors = [f for f in validate_files(files, self.deps.today()).errors if f.file in built.files]
        return f"{errors[0].file}:{errors[0].line}: {errors[0].message}" if errors else ""

    def _leave_open(
        self, pull: PullInfo, conflicts: list[Conflict], base_tip: str = "", fork: str = ""
    ) -> PullOutcome:
        """One comment saying what stops the merge (never twice for the same reasons); the PR stays."""
        lines = [self._explain(c, fork, base_tip) for c in conflicts]
        key = hashlib.sha256("\n".join(sorted(c.why for c in conflicts)).encode()).hexdigest()[:16]
        marker = MARKER.format(key=key)
        reason = "; ".join(c.why for c in conflicts)
        if self.options.dry_run:
            return PullOutcome(pull.number, pull.url, "dry-run", f"would be left open: {reason}")
        host, repo = self.publisher.host
        if not any(marker in comment for comment in host.pull_comments(repo, pull.number)):
            body = "\n".join(
                [
                    f"Homeostat review merge left this PR open: it cannot be rebuilt on `{self.base}`.",
                    "",
                    *(f"- {line}" for line in lines),
                    "",
                    "A person decides: edit this PR's branch so it agrees with the base, or close it.",
                    marker,
                ]
            )
            host.add_comment(repo, pull.number, body)
        return PullOutcome(pull.number, pull.url, "left-open", reason)

    def _explain(self, conflict: Conflict, fork: str, base_tip: str) -> str:
        """The conflict, with the base commit that changed the same file since the PR left it."""
        if not conflict.path or not fork:
            return conflict.why
        done = self.deps.git.run(
            "log", "-1", "--format=%s", f"{fork}..{base_tip}", "--", conflict.path, check=False
        )
        subject = done.stdout.decode("utf-8", "replace").strip()
        return f"{conflict.why} ({self.base} changed it in “{subject}”)" if subject else conflict.why

    # .. 4. push, and wait for the host ..

    def _push(self, prepared: _Prepared) -> str | PullOutcome:
        """The commit the host shows as the PR head, ready to merge at."""
        pull, publisher = prepared.pull, self.publisher
        target = prepared.head
        if prepared.rebuilt is not None:
            never = (self.base, state_branch(self.base))
            if not publisher.push_rebuilt(
                pull.head_branch, prepared.rebuilt, expect=prepared.head, never=never
            ):
                reason = f"{pull.head_branch} moved while it was rebuilt; rerun to rebuild it again"
                return PullOutcome(pull.number, pull.url, "failed", reason)
            target = prepared.rebuilt
        if (
            not same_commit(pull.head_sha, target)
            and Capability.FORCE_PUSH_SEEN not in self.deps.host.capabilities
        ):
            target = self._nudge(pull, target)
        if self._wait_for(pull.number, target):
            return target
        waited = f"{self.options.head_wait:g}s"
        reason = f"the host did not show {target[:12]} as the PR's head within {waited}; rerun to merge it"
        return PullOutcome(pull.number, pull.url, "failed", reason, rebuilt=prepared.rebuilt is not None)

    def _nudge(self, pull: PullInfo, sha: str) -> str:
        """An ordinary push on top of a force push, which a host that missed the force push reads."""
        git = self.deps.git
        nudge = git.commit_files(sha, {}, f"{pull.title}: refresh the PR", parents=[sha])
        self.publisher.push(pull.head_branch, nudge)
        return nudge

    def _wait_for(self, number: int, sha: str) -> bool:
        deadline = self.deps.clock() + self.options.head_wait
        while True:
            if self.publisher.shows_head(number, sha):
                return True
            if self.deps.clock() + self.options.poll > deadline:
                return False
            self.deps.sleep(self.options.poll)

    # .. 5. merge ..

    def _merge(self, prepared: _Prepared, sha: str) -> PullOutcome:
        pull = prepared.pull
        rebuilt = prepared.rebuilt is not None
        rebuilt_on = f", rebuilt on {self.base}" if rebuilt else ""
        message = f"Merged by homeostat review merge{rebuilt_on}, approved by {prepared.approver}."
        merged = self.publisher.merge(pull.number, sha, f"{pull.title} (#{pull.number})", message)
        if not merged.merged:
            reason = f"the host refused the merge: {merged.reason}"
            return PullOutcome(pull.number, pull.url, "left-open", reason, rebuilt=rebuilt)
        self.publisher.delete_branch(pull.head_branch)
        how = f"rebuilt on {self.base} and merged" if rebuilt else "merged"
        return PullOutcome(pull.number, pull.url, "merged", how, rebuilt=rebuilt, merge_sha=merged.sha or "")

    def _say(self, outcome: PullOutcome) -> None:
        print(
            f"PR #{outcome.number}: {outcome.outcome}: {outcome.reason} ({outcome.url})", file=self.deps.out
        )


def run_review_merge(deps: ReviewMergeDeps, options: ReviewMergeOptions) -> ReviewMergeResult:
    return ReviewMerge(deps, options).run()


# .. the rebuild, made again by the daily run ..


def rebuild_on(git: Git, fork: str, base_tip: str, head: str) -> Rebuild:
    """The files a PR changed between `fork` and `head`, merged onto `base_tip` section by section."""
    paths = set(_changed(git, fork, head))
    sides = [{path: _text(git, commit, path) for path in paths} for commit in (fork, base_tip, head)]
    return rebuild(paths, *sides)


def rebuilt_from(git: Git, merged: str, base_tip: str) -> str | None:
    """The PR head `merged` was rebuilt from by review merge, when `merged` is exactly that rebuild;
    else None. An approval on GitHub names its commit, and review merge merges a rebuild of the
    approved head on the moved base, a commit nobody approved; so the approval still counts for it
    when its parents are a commit of the base (`base_tip`'s history) and that head, and rebuilding the
    head onto that commit again gives its very tree. Anyone can push a commit with those parents, but
    not with other content: a rebuild onto a commit off the base would carry that commit's changes."""
    done = git.run("rev-list", "--parents", "-n", "1", merged, check=False)
    parents = done.stdout.decode().split()[1:] if done.returncode == 0 else []
    if len(parents) != 2:
        return None
    onto, head = parents
    if git.run("merge-base", "--is-ancestor", onto, base_tip, check=False).returncode != 0:
        return None
    fork = git.run("merge-base", head, onto, check=False).stdout.decode().strip()
    if not fork or fork == onto:
        return None
    built = rebuild_on(git, fork, onto, head)
    if built.conflicts or not built.files:
        return None
    again = _commit_rebuild(git, onto, head, built, "rebuilt again to compare")
    return head if git.tree_hash(again) == git.tree_hash(merged) else None


def _commit_rebuild(git: Git, base_tip: str, head: str, built: Rebuild, message: str) -> str:
    """The rebuilt files on `base_tip`, with the head they came from as the second parent."""
    changes = {path: None if text is None else text.encode("utf-8") for path, text in built.files.items()}
    return git.commit_files(base_tip, changes, message, parents=[base_tip, head])


def _changed(git: Git, old: str, new: str) -> list[str]:
    done = git.run("diff", "--name-only", "-z", "--no-renames", old, new)
    return [path for path in done.stdout.decode("utf-8", "surrogateescape").split("\0") if path]


def _text(git: Git, commit: str, path: str) -> str | None:
    data = git.read_file(commit, path)
    return None if data is None else data.decode("utf-8", "replace")
