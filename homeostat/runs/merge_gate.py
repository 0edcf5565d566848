"""After the host refuses the daily merge: wait for the checks that will run, or say why it never merges.

`Publisher.land` merges a daily PR at the commit it pushed, whose message says `[skip ci]` (the branch
is deleted before a pipeline could start), so a branch that requires checks refuses that first merge.
`land` then pushes a plain commit, on which the PR's checks run, and asks `after_refusal`:

- It reads the branch's merge rules with the run's own token (a ruleset says whether that token may
  bypass it) and tells the token's kind from the PR's author (`github-actions[bot]` is the workflow's
  `GITHUB_TOKEN`, `<app>[bot]` an app, anyone else a person; `homeostat.core.daily.auto_merge`).
- When nothing but checks stands in the way and the token's PRs start workflows, it waits for the
  required checks (Bitbucket: the passing builds) on the plain commit, up to `HOMEOSTAT_CHECK_WAIT`
  seconds (default 600; 0 never waits), and merges again at that commit.
- Otherwise, or when a check fails or never reports, the refusal carries the reason in words and the
  fix, which the run prints in its summary and writes into the PR's body.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from homeostat.core.daily.auto_merge import Outlook, outlook, refusal_note, summary, token_of_author
from homeostat.core.hosts import CheckState, CodeHost, MergeResult, PullInfo, RepoRef
from homeostat.errors import ConfigError, HomeostatError

WAIT_VARIABLE = "HOMEOSTAT_CHECK_WAIT"
DEFAULT_WAIT = 600.0
NOT_MERGED_HEADING = "## Not merged"


@dataclass(frozen=True)
class CheckWait:
    """How long a refused merge waits for its required checks, and how it waits."""

    seconds: float = DEFAULT_WAIT
    interval: float = 15.0
    appear: float = 180.0  # a required check none of whose runs has shown up by then is not coming
    sleep: Callable[[float], None] = time.sleep
    clock: Callable[[], float] = time.monotonic


def check_wait_from_env(env: Mapping[str, str]) -> CheckWait:
    text = env.get(WAIT_VARIABLE, "").strip()
    if not text:
        return CheckWait()
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not 0 <= seconds <= 6 * 3600:
        raise ConfigError(f"{WAIT_VARIABLE}={text!r}: give the seconds to wait for checks, 0 to 21600")
    return CheckWait(seconds=seconds)


def after_refusal(
    host: CodeHost,
    repo: RepoRef,
    pull: PullInfo,
    head: str,
    refused: MergeResult,
    merge: Callable[[str], MergeResult],
    wait: CheckWait,
) -> MergeResult:
    """`refused` explained; or, when waiting for the checks on `head` can get it merged, merged."""
    token = token_of_author(pull.author, host.kind.value)
    try:
        rules = host.merge_rules(repo, pull.base_branch)
    except HomeostatError:
        return refused
    look = outlook(rules, token, asked_by_run=True)
    if _worth_waiting(look, refused.reason) and wait.seconds > 0:
        try:
            failed = wait_for_checks(host, repo, head, look, wait)
        except HomeostatError as exc:
            failed = f"its checks could not be read ({exc})"
        if not failed:
            merged = merge(head)
            if merged.merged:
                return merged
            return MergeResult(merged=False, reason=refusal_note(look, token, merged.reason, host.kind.value))
        return MergeResult(merged=False, reason=f"{summary(look, token)}, but {failed}")
    return MergeResult(merged=False, reason=refusal_note(look, token, refused.reason, host.kind.value))


def _worth_waiting(look: Outlook, reason: str) -> bool:
    """Only checks stand in the way. Approvals a token without admin cannot read (classic protection)
    are taken to be none unless the host's refusal named them."""
    if look.blocked or not look.waits:
        return False
    unknown = {gate.kind for gate in look.uncertain}
    return unknown <= {"approvals-unknown"} and not (unknown and "approv" in reason.lower())


def wait_for_checks(host: CodeHost, repo: RepoRef, sha: str, look: Outlook, wait: CheckWait) -> str:
    """The empty string once every required check passed on `sha`, else what went wrong."""
    start = wait.clock()
    while True:
        states = host.commit_checks(repo, sha)
        verdict = _checks_verdict(states, look, sha)
        if verdict is not None:
            return verdict
        waited = wait.clock() - start
        missing = [name for name in look.waits_for if name not in states]
        if missing and waited >= wait.appear:
            return (
                f"no workflow reported {_names(missing)} on {sha[:12]} within {wait.appear:.0f}s (is there a"
                " job of that name on pull_request?)"
            )
        if look.builds and not states and waited >= wait.appear:
            return f"no build reported on {sha[:12]} within {wait.appear:.0f}s (does a pipeline run on pull requests?)"
        if waited + wait.interval > wait.seconds:
            return (
                f"the required checks did not pass on {sha[:12]} within {wait.seconds:.0f}s ({WAIT_VARIABLE})"
            )
        wait.sleep(wait.interval)


def _checks_verdict(states: Mapping[str, CheckState], look: Outlook, sha: str) -> str | None:
    """The empty string when the required checks (and Bitbucket's passing builds) are all in, the
    failure when one failed, None while some are still to come."""
    failed = [name for name in look.waits_for if states.get(name) is CheckState.FAILURE]
    if look.builds:  # Bitbucket: no build may have failed
        failed += [name for name, state in states.items() if state is CheckState.FAILURE]
    if failed:
        return f"{_names(sorted(set(failed)))} failed on {sha[:12]}"
    named = all(states.get(name) is CheckState.SUCCESS for name in look.waits_for)
    passing = sum(1 for state in states.values() if state is CheckState.SUCCESS)
    return "" if named and passing >= look.builds else None


def _names(names: list[str]) -> str:
    return ", ".join(f"`{name}`" for name in names)


def with_refusal(body: str, reason: str) -> str:
    """The PR body with one "Not merged" section saying why (a rerun replaces it, never repeats it)."""
    kept = body.split(f"\n\n{NOT_MERGED_HEADING}\n", 1)[0].rstrip()
    note = (
        f"{NOT_MERGED_HEADING}\n\nThe daily run could not merge this pull request: {reason}\n\n"
        "Its lessons count as waiting for review; merging it by hand lands them."
    )
    return f"{kept}\n\n{note}\n" if kept else f"{note}\n"
