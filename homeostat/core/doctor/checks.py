"""`homeostat doctor`'s judgement: the facts of a live setup in, one ok/warn/fail finding per check out.

The facts (branch protection, what the token may do, the KB's visibility, the CI files, which
variables are set, the local event log) are gathered by `homeostat.runs.doctor`; everything here is
pure so each verdict is tested on its own. A finding that is not ok carries the fix, in one line a
person can act on. A check that could not be made is a warning that says why, never a silent ok.
Credential values are never part of the facts: only whether a variable is set.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Literal

from homeostat.core.config import AutoMerge, Config, Runtime
from homeostat.core.daily import auto_merge
from homeostat.core.hosts import BranchProtection, MergeRules, TokenReach
from homeostat.core.safety.subject_words import SUBJECTS
from homeostat.core.setup.codeowners import default_path, render_codeowners
from homeostat.core.setup.pins import Pin, find_pins
from homeostat.core.setup.scaffold import CI_TEMPLATES

Status = Literal["ok", "warn", "fail"]
VALIDATE_CHECK = "validate"  # the job name of the validate template: the status check to require

# The variables each runtime reads its credential from (any one set will do), by name only.
RUNTIME_CREDENTIALS: dict[Runtime, tuple[str, ...]] = {
    "api": ("ANTHROPIC_API_KEY",),
    "bedrock": ("AWS_BEARER_TOKEN_BEDROCK", "AWS_ACCESS_KEY_ID", "AWS_PROFILE"),
    "vertex": ("GOOGLE_APPLICATION_CREDENTIALS", "GOOGLE_OAUTH_ACCESS_TOKEN"),
    "claude-code": ("CLAUDE_CODE_OAUTH_TOKEN", "ANTHROPIC_API_KEY"),
}


@dataclass(frozen=True)
class Finding:
    check: str
    status: Status
    message: str
    fix: str = ""


@dataclass(frozen=True)
class HostFacts:
    """What the code host said, each part with the reason it is missing when it is."""

    repo: str = ""  # owner/name of the KB repo
    token_variable: str = ""
    unavailable: str = ""  # why the host was not asked at all (no token, no repo)
    protection: BranchProtection | None = None
    protection_error: str = ""
    reach: TokenReach | None = None
    reach_error: str = ""
    visibility: str = ""
    visibility_error: str = ""
    merge_rules: MergeRules | None = None
    merge_rules_error: str = ""
    app_id: int | None = None  # the daily workflow's app, from the variable its `app-id:` names
    app_id_error: str = ""


@dataclass(frozen=True)
class EventLogFacts:
    exists: bool = False
    retention_days: int = 0  # how long the log keeps events (it prunes older ones when opened)
    events: int = 0
    oldest_days: float | None = None
    size_bytes: int = 0


@dataclass(frozen=True)
class Setup:
    version: str
    config: Config | None
    config_error: str = ""
    chosen: frozenset[str] = frozenset()  # agents keys homeostat.yaml sets itself (runtime, model)
    git_checkout: bool = False
    origin: str = ""  # redacted
    files: Mapping[str, str] = field(default_factory=dict)  # the CI files and CODEOWNERS, path → text
    state_ignored: bool = False
    env_set: frozenset[str] = frozenset()
    claude_cli: bool = False
    events: EventLogFacts = EventLogFacts()
    host: HostFacts = HostFacts()
    rules: int = 0  # accepted and other rules in the KB, for the blast radius
    core_rules: int = 0


def count_of(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def _ok(check: str, message: str) -> Finding:
    return Finding(check, "ok", message)


def _warn(check: str, message: str, fix: str) -> Finding:
    return Finding(check, "warn", message, fix)


def _fail(check: str, message: str, fix: str) -> Finding:
    return Finding(check, "fail", message, fix)


def diagnose(setup: Setup) -> list[Finding]:
    """Every check, in the order a person fixes them: config and git first, then the host, then CI."""
    config = setup.config
    found = [check_config(setup), check_git(setup)]
    if config is None:
        return found
    found += [
        check_host_access(setup),
        check_branch_protection(setup, config),
        check_auto_merge(setup, config),
        check_unread_merges(config),
        check_token_reach(setup),
        check_visibility(setup, config),
        check_pins(setup),
        check_ci_files(setup, config),
        check_codeowners(setup, config),
        check_runtime(setup, config),
        check_exclusions(config),
        check_event_log(setup),
    ]
    return found


def counts(findings: list[Finding]) -> dict[str, int]:
    return {status: sum(1 for f in findings if f.status == status) for status in ("ok", "warn", "fail")}


# --- the KB itself --------------------------------------------------------------------------------


def check_config(setup: Setup) -> Finding:
    config = setup.config
    if config is None:
        return _fail(
            "config", setup.config_error, "fix homeostat.yaml (homeostat validate lists every problem)"
        )
    areas = len(config.iter_areas())
    summary = f"{count_of(len(config.team.members), 'member')}, {count_of(len(config.repos), 'repo')}, {count_of(areas, 'area')}"
    if config.version != setup.version:
        return _warn(
            "config",
            f"homeostat.yaml says version {config.version}, but this is Homeostat {setup.version} ({summary})",
            f"set version: {setup.version} in homeostat.yaml, or run Homeostat {config.version}",
        )
    if not config.team.members:
        return _warn("config", f"homeostat.yaml lists no team members ({summary})", "add team.members")
    return _ok("config", f"homeostat.yaml: {summary}")


def check_git(setup: Setup) -> Finding:
    if not setup.git_checkout:
        return _fail("git", "not a git checkout", "run doctor in a clone of the KB repo (--kb DIR)")
    if not setup.host.repo:
        return _fail(
            "git",
            f"cannot tell which repo the KB is (origin: {setup.origin or 'none'})",
            "set sources.kbRepo in homeostat.yaml, or add the KB repo as the origin remote",
        )
    return _ok("git", f"a clone of {setup.host.repo}")


# --- the live host --------------------------------------------------------------------------------


def check_host_access(setup: Setup) -> Finding:
    host = setup.host
    if host.unavailable:
        return _warn("host", f"the host was not asked: {host.unavailable}", "set the token and rerun doctor")
    if host.reach is None:
        return _fail("host", host.reach_error, "set a valid token and rerun doctor")
    who = host.reach.user or "an app or Actions token"
    return _ok("host", f"the token in {host.token_variable} acts as {who}")


def check_branch_protection(setup: Setup, config: Config) -> Finding:
    name, host = "branch-protection", setup.host
    branch = config.sources.base_branch
    fix = (
        f"protect {branch}: require pull requests with at least 1 approval and the `{VALIDATE_CHECK}` check,"
        " take approvals away on a new push, and block force pushes"
    )
    if host.unavailable or (host.protection is None and not host.protection_error):
        return _warn(
            name, f"not checked ({host.unavailable or 'no answer'})", "rerun doctor with the host token set"
        )
    if host.protection is None:
        return _warn(name, f"could not read the protection of {branch}: {host.protection_error}", fix)
    protection = with_rule_sets(host.protection, host.merge_rules)
    if not protection.known and not protection.protected and config.sources.host == "bitbucket":
        # Bitbucket shows its restrictions to admins only; GitHub's fallback still reads the branch's flag.
        return _warn(
            name,
            f"cannot tell whether {branch} is protected: the token cannot read the rules (it needs admin)",
            fix,
        )
    if not protection.protected:
        return _fail(
            name,
            f"{branch} is not protected: anyone with write access can change every session's rules without"
            " validate or review",
            fix,
        )
    if not protection.known:
        return _warn(name, f"{branch} is protected, but the token cannot read the rule (it needs admin)", fix)
    gaps = _protection_gaps(protection, config.sources.host)
    rules = host.merge_rules
    if rules is not None and any(not rule_set.enforced for rule_set in rules.rule_sets):
        gaps.append(
            'its merge checks only warn: without "Prevent a merge with unresolved merge checks" (Bitbucket'
            " Premium) anyone with write access merges past them"
        )
    if gaps:
        return _warn(name, f"{branch} is protected, but {'; '.join(gaps)}", fix)
    checks = ", ".join(protection.required_checks)
    return _ok(name, f"{branch} is protected: {protection.required_reviews} approval(s), checks: {checks}")


def check_auto_merge(setup: Setup, config: Config) -> Finding:
    """Whether the daily run's token can merge its own PRs past the base branch's live rules."""
    name, host = "auto-merge", setup.host
    rules = host.merge_rules
    if host.unavailable or rules is None:
        reason = host.unavailable or host.merge_rules_error or "no answer"
        return _warn(name, f"not checked ({reason})", "rerun doctor with the host token set")
    token = run_token(setup, config)
    look = auto_merge.outlook(rules, token)
    merges_unread = bool(config.scoring.auto_merge.areas)
    if look.blocked:
        message = auto_merge.summary(look, token) + "; "
        message += (
            "every lesson it would merge waits for a person instead"
            if merges_unread
            else "its reconfirmations, retirements and flags wait for a person (scoring.autoMerge lists no area)"
        )
        fix = auto_merge.fix(look, token, config.sources.host)
        return _fail(name, message, fix) if merges_unread else _warn(name, message, fix)
    if look.uncertain:
        detail = f" ({host.app_id_error})" if host.app_id_error else ""
        return _warn(
            name, auto_merge.summary(look, token) + detail, auto_merge.fix(look, token, config.sources.host)
        )
    message = auto_merge.summary(look, token)
    if token.or_actions:
        fallback = auto_merge.outlook(rules, auto_merge.RunToken("actions", "the workflow's GITHUB_TOKEN"))
        if fallback.blocked:
            return _warn(
                name,
                f"{message}; but while that secret is unset the run uses the workflow's GITHUB_TOKEN, and then"
                f" {'; '.join(gate.text for gate in fallback.blocked)}",
                auto_merge.fix(fallback, auto_merge.RunToken("actions", ""), config.sources.host),
            )
    if rules.note and not rules.complete:
        message += f" (as far as the token could read: {rules.note})"
    return _ok(name, message)


def check_unread_merges(config: Config) -> Finding:
    """What reads a lesson before the daily run merges it with no person, and whether a setting left
    only word tables to do it. The risky check and the gates read words, and on fresh red-team sets
    they keep from two poisoned lessons in five (a red team that read their docs) to three in four from
    merging unread (docs/daily.md#what-merges-unread):
    the judge, a model reading the rule against its thread, is the layer that reads what words cannot,
    and a subject accepted unread is read by nothing else. A review lesson also needs its enactment
    (`core.daily.enactment`): someone other than the commenter changed the code with the rule's terms;
    a taught lesson has no second person, so it goes to a person unless the team has it judged; and a
    flag, which merges with no person in any area, is capped per member and run."""
    name, auto = "unread-merges", config.scoring.auto_merge
    if not auto.areas:
        flags = flags_unread(auto)
        lists = "scoring.autoMerge lists no area " + (f"and {flags}" if auto.flags == 0 else f"({flags})")
        return _ok(name, f"nothing merges with no person: {lists}")
    where = f"confident lessons in {', '.join(auto.areas)} merge with no person"
    subjects = [subject for subject in auto.subjects if subject in SUBJECTS]
    if config.agents.curator.judge_calls == 0:
        return _warn(
            name,
            f"{where}, read by no model, only word checks and where a review lesson came from: the judge is"
            " off (agents.curator.judgeCalls: 0)",
            "set agents.curator.judgeCalls above 0 (100 by default), or list no area in scoring.autoMerge",
        )
    if subjects:
        return _warn(
            name,
            f"{where}; scoring.autoMerge.subjects accepts {', '.join(subjects)} unread, what poisoned rules are"
            " made of: only the judge reads those",
            f"remove {', '.join(subjects)} from scoring.autoMerge.subjects",
        )
    if auto.enactment == "signed" and config.sources.host == "bitbucket":
        return _warn(
            name,
            f"{where}, but no review lesson will: scoring.autoMerge.enactment: signed asks for verified"
            " commit signatures, and Bitbucket does not say whether a commit is signed",
            "set scoring.autoMerge.enactment to code (the default) on Bitbucket",
        )
    accepted = [*auto.subjects, *auto.languages]
    enacted = {
        "code": " that uses the rule's code",
        "author": " (scoring.autoMerge.enactment: author)",
        "signed": " that uses the rule's code, in commits with verified signatures (scoring.autoMerge.enactment:"
        " signed)",
    }[auto.enactment]
    taught = {
        "review": "; a lesson taught on a developer's machine goes to a person (scoring.autoMerge.pending:"
        " review)",
        "judged": "; a lesson taught on a developer's machine is read by the judge's safety trap alone, a"
        " model reading words (scoring.autoMerge.pending: judged)",
    }[auto.pending]
    return _ok(
        name,
        f"{where} after the risky check, the subject, topic and language gates, the judge and, for a"
        f" review lesson, a change after the comment by someone else{enacted}"
        + (f" (accepted unread: {', '.join(accepted)})" if accepted else "")
        + taught
        + f"; {flags_unread(auto)}",
    )


def flags_unread(auto: AutoMerge) -> str:
    """What a flag does with no person (`core.daily.flag_cap`): it takes its rule out of every
    agent's context, so how many one member's agent may do so in a run is part of what merges unread."""
    if auto.flags == 0 or auto.team_flags == 0:
        key = "flags" if auto.flags == 0 else "teamFlags"
        return f"every flag waits for a person (scoring.autoMerge.{key}: 0)"
    return (
        "a flag still takes its rule out of service until a reviewer settles it, up to"
        f" {auto.flags} of one member's flags a day (scoring.autoMerge.flags) and {auto.team_flags}"
        " rules of the team's (scoring.autoMerge.teamFlags), unless the rule is"
        " about a sensitive subject: then a person confirms the flag first"
    )


def run_token(setup: Setup, config: Config) -> auto_merge.RunToken:
    """The daily workflow's token, with the app id doctor found for it."""
    token = auto_merge.daily_token(setup.files, config.sources.host)
    if token.kind == "app" and token.app_id is None and setup.host.app_id is not None:
        return auto_merge.RunToken(token.kind, token.source, setup.host.app_id, token.app_variable)
    return token


def with_rule_sets(protection: BranchProtection, rules: MergeRules | None) -> BranchProtection:
    """The base branch's protection as the host enforces it: classic protection and every rule set in
    force together. GitHub's rulesets do not show in its branch-protection API, and setup.md protects
    the branch with one; each requirement is the strictest any of them sets."""
    sets = rules.rule_sets if rules is not None else ()
    if not sets:
        return protection
    classic = protection.protected
    approvals = max([protection.required_reviews if classic else 0, *(s.approvals or 0 for s in sets)])
    checks = [*(protection.required_checks if classic else ()), *(c for s in sets for c in s.checks)]
    fresh = (classic and protection.required_reviews >= 1 and not protection.keeps_stale_approvals) or any(
        s.dismisses_stale and (s.approvals or 0) >= 1 for s in sets
    )
    return replace(
        protection,
        protected=True,
        known=protection.known or not classic,  # unreadable and unprotected: the rule sets are all of it
        required_reviews=approvals,
        required_checks=tuple(dict.fromkeys(checks)),
        allows_force_push=(protection.allows_force_push or not classic)
        and not any(s.blocks_force_push for s in sets),
        keeps_stale_approvals=approvals >= 1 and not fresh,
    )


# The setting that makes a push to a PR take its approvals away, as each host's settings page names it.
_STALE_SETTING = {
    "github": '"Dismiss stale pull request approvals when new commits are pushed"',
    "bitbucket": '"Reset approvals when the source branch is modified"',
}


def _protection_gaps(protection: BranchProtection, host: str) -> list[str]:
    gaps = []
    if protection.required_reviews < 1:
        gaps.append("no approval is required")
    if not protection.required_checks:
        gaps.append("no status check is required")
    elif host == "github" and VALIDATE_CHECK not in protection.required_checks:
        gaps.append(f"the `{VALIDATE_CHECK}` check is not required")
    if protection.allows_force_push:
        gaps.append("force pushes are allowed")
    if protection.required_reviews >= 1 and protection.keeps_stale_approvals:
        gaps.append(f"an approval survives later pushes ({_STALE_SETTING[host]} is off)")
    return gaps


def check_token_reach(setup: Setup) -> Finding:
    name, host = "token-reach", setup.host
    reach = host.reach
    if reach is None:
        return _warn(
            name,
            f"not checked ({host.unavailable or host.reach_error})",
            "rerun doctor with the token CI uses",
        )
    if not reach.known:
        return _warn(
            name,
            f"the host did not say what the token may do in {host.repo}",
            "check the token's permissions",
        )
    if not reach.can_write:
        return _fail(
            name,
            f"the token in {host.token_variable} cannot write to {host.repo}: the daily run cannot push its"
            " branches or open pull requests",
            "give the token contents:write and pull-requests:write (Bitbucket: repository:write, pullrequest:write)",
        )
    wide = []
    if reach.can_admin:
        wide.append(f"it is an admin of {host.repo} (it could change branch protection)")
    if "repo" in reach.scopes:
        wide.append("its classic `repo` scope reaches every repository its user can")
    if wide:
        return _warn(
            name,
            f"the token in {host.token_variable} can write to {host.repo}, and {'; '.join(wide)}",
            "use a fine-grained or repository token with write access to the KB repo only",
        )
    return _ok(name, f"the token in {host.token_variable} can write to {host.repo}, without admin rights")


def check_visibility(setup: Setup, config: Config) -> Finding:
    name, host = "kb-visibility", setup.host
    if not host.visibility:
        reason = host.unavailable or host.visibility_error or "no answer"
        return _warn(name, f"not checked ({reason})", "rerun doctor with the host token set")
    if host.visibility != "public":
        return _ok(name, f"{host.repo} is {host.visibility}")
    team_only = [name for name, area in config.iter_areas() if area.team_only]
    fix = f"make {host.repo} private"
    if team_only:
        return _fail(
            name, f"{host.repo} is public, and it holds team-only areas: {', '.join(team_only)}", fix
        )
    return _warn(name, f"{host.repo} is public: anyone can read every rule and document", fix)


# --- the CI files and CODEOWNERS --------------------------------------------------------------------


def check_pins(setup: Setup) -> Finding:
    name = "pinned-versions"
    pins = find_pins(setup.files)
    if not pins:
        return _warn(name, "no CI file runs Homeostat", "run homeostat init to write the CI files")
    floating = [pin for pin in pins if pin.floating]
    if floating:
        return _fail(
            name,
            f"{_listed(floating)} {'moves' if len(floating) == 1 else 'move'}: a release would change what runs",
            f"pin the exact version ({setup.version}) everywhere: homeostat init --force rewrites the CI files",
        )
    versions = sorted({pin.version or "an unnamed commit" for pin in pins})
    if len(versions) > 1:
        return _fail(
            name,
            f"the CI files pin several versions: {_by_version(pins)}",
            "pin one exact version everywhere",
        )
    if versions[0] != setup.version:
        return _warn(
            name,
            f"CI runs Homeostat {versions[0]} ({len(pins)} pins), this is {setup.version}",
            f"run homeostat init --force to pin {setup.version}, or run doctor from Homeostat {versions[0]}",
        )
    return _ok(name, f"{len(pins)} pins in {len({p.file for p in pins})} CI files, all {setup.version}")


def _listed(pins: list[Pin]) -> str:
    shown = ", ".join(f"{pin.ref} ({pin.where})" for pin in pins[:3])
    return shown + (f" and {len(pins) - 3} more" if len(pins) > 3 else "")


def _by_version(pins: list[Pin]) -> str:
    first: dict[str, str] = {}
    for pin in pins:
        first.setdefault(pin.version or "an unnamed commit", pin.where)
    return ", ".join(f"{version} ({where})" for version, where in sorted(first.items()))


def check_ci_files(setup: Setup, config: Config) -> Finding:
    expected = [template.target for template in CI_TEMPLATES[config.sources.host]]
    missing = [path for path in expected if path not in setup.files]
    if missing:
        return _warn("ci-files", f"missing: {', '.join(missing)}", "run homeostat init to write them")
    return _ok("ci-files", f"all {len(expected)} present")


def check_codeowners(setup: Setup, config: Config) -> Finding:
    path = default_path(config.sources.host)
    current = setup.files.get(path)
    if current is None:
        return _warn(
            "codeowners", f"no {path}: nobody's approval is required per area", "run homeostat codeowners"
        )
    if current != render_codeowners(config, path):
        return _warn(
            "codeowners", f"{path} is stale against homeostat.yaml", "run homeostat codeowners and commit it"
        )
    return _ok("codeowners", f"{path} is current")


# --- the model runtime, exclusions, the event log ---------------------------------------------------


def check_runtime(setup: Setup, config: Config) -> Finding:
    name, agents = "runtime", config.agents
    variables = RUNTIME_CREDENTIALS[agents.runtime]
    present = [v for v in variables if v in setup.env_set]
    where = f"runtime {agents.runtime}, model {agents.model}"
    if "model" not in setup.chosen:
        return _warn(
            name,
            f"homeostat.yaml chooses no model: the runs would use the default ({where})",
            "set agents.runtime and agents.model in homeostat.yaml",
        )
    if agents.runtime == "claude-code" and not setup.claude_cli:
        return _warn(
            name, f"{where}: the claude CLI is not on PATH here", "install Claude Code where the runs happen"
        )
    if not present and agents.runtime != "claude-code":
        return _warn(
            name,
            f"{where}: {' / '.join(variables)} is not set here (doctor cannot see CI secrets)",
            f"store {variables[0]} as a CI secret for the scheduled runs",
        )
    credential = f"{present[0]} is set" if present else "the CLI's own login"
    return _ok(name, f"{where}; {credential}")


def check_exclusions(config: Config) -> Finding:
    sources = config.sources
    names = {repo.name for repo in config.repos}
    urls = {repo.url.rstrip("/").lower() for repo in config.repos} | {
        u.rstrip("/").lower() for u in sources.repos
    }
    unknown = [
        item for item in sources.exclude_repos if item not in names and item.rstrip("/").lower() not in urls
    ]
    summary = (
        f"{len(sources.exclude_paths)} excluded path globs, {len(sources.exclude_repos)} excluded repos,"
        f" {len(sources.opt_out)} opted-out members, skip marker {sources.skip_marker!r}"
    )
    if unknown:
        return _warn(
            "exclusions",
            f"excludeRepos names repos the KB does not list: {', '.join(unknown)}",
            "fix the names",
        )
    if not sources.exclude_paths:
        return _warn(
            "exclusions",
            f"{summary}: review comments on every file are read, generated and vendored code included",
            'add sources.excludePaths, e.g. ["**/generated/**", "**/vendor/**", "**/*.lock"]',
        )
    return _ok("exclusions", summary)


def check_event_log(setup: Setup) -> Finding:
    name, events = "event-log", setup.events
    if not setup.state_ignored:
        return _fail(
            name,
            ".homeostat/ is not git-ignored: pending lessons and the local event log could be committed",
            "add .homeostat/ to .gitignore (homeostat init does)",
        )
    if not events.exists:
        return _ok(
            name, f"no event log on this machine; one would keep {events.retention_days} days, git-ignored"
        )
    oldest = f", the oldest {events.oldest_days:.0f} days old" if events.oldest_days is not None else ""
    return _ok(
        name,
        f"{events.events} events ({events.size_bytes // 1024} KiB){oldest}; pruned after {events.retention_days} days,"
        " git-ignored, never sent anywhere",
    )
