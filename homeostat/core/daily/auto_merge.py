"""Whether the daily run can merge its own pull requests on the KB's base branch, and if not, why and
what to change. `doctor` asks it of the live setup; the daily run asks it when a merge is refused.

The daily run opens a PR with its token and squash-merges it at once. Three facts decide whether the
host lets it (ECOSYSTEM.md, "GitHub: tokens, workflows and limits"; Bitbucket's merge-check docs):

- Who the token is. GitHub starts no workflow for events caused by a workflow's `GITHUB_TOKEN`, so a
  required check never reports on a PR that token opened or pushed; a GitHub App installation token or
  a person's token does start workflows. Nobody approves their own PR, on either host.
- What the branch requires, per rule set: GitHub's classic branch protection and each active ruleset
  (approvals, named checks); Bitbucket's merge checks (approvals, a number of passing builds), which
  block only under Premium's "Prevent a merge with unresolved merge checks".
- Who may skip a rule set: a GitHub App on a ruleset's bypass list skips all of it; classic
  protection's pull-request allowance skips the approvals, not the checks. `GITHUB_TOKEN` can be on no
  bypass list, and Bitbucket has none.

So a required check is something the run can wait for (its PRs start workflows) or never get (the
Actions token); a required approval is something it never gets unless its token bypasses it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

import yaml

from homeostat.core.hosts import MergeRules, RuleSet

TokenKind = Literal["actions", "app", "person", "unknown"]
ACTIONS_LOGIN = "github-actions[bot]"
DAILY_WORKFLOW = ".github/workflows/homeostat-daily.yml"
APP_TOKEN_ACTION = "actions/create-github-app-token"
SETUP_DOC = "docs/setup.md, 'Auto-merge and branch protection'"


@dataclass(frozen=True)
class RunToken:
    """The token the daily run merges with, as its workflow names it (or as the host shows it)."""

    kind: TokenKind
    source: str  # in words: "the workflow's GITHUB_TOKEN", "the app token (app id in vars.HOMEOSTAT_APP_ID)"
    app_id: int | None = None
    app_variable: str = ""  # the repository variable holding the app id (vars.NAME)
    or_actions: bool = False  # `secrets.NAME || github.token`: the Actions token when the secret is unset


@dataclass(frozen=True)
class Gate:
    """One requirement standing between the daily PR and its merge."""

    rule_set: str
    kind: Literal["approvals", "checks-never-run", "approvals-unknown", "bypass-unknown"]
    text: str


@dataclass(frozen=True)
class Outlook:
    """What a daily PR into the branch meets: gates it never passes, gates that could not be told,
    checks it passes by waiting for them, and rule sets that only warn."""

    branch: str
    blocked: tuple[Gate, ...] = ()
    uncertain: tuple[Gate, ...] = ()
    waits_for: tuple[str, ...] = ()  # named checks (GitHub)
    builds: int = 0  # passing builds (Bitbucket)
    bypassed: tuple[str, ...] = ()  # rule sets the token skips
    advisory: tuple[str, ...] = ()  # rule sets that warn but do not block
    incomplete: str = ""  # what the host would not show

    @property
    def can_merge(self) -> bool:
        return not self.blocked and not self.uncertain

    @property
    def waits(self) -> bool:
        return bool(self.waits_for or self.builds)


# --- which token the daily run uses ---------------------------------------------------------------


def token_of_author(login: str, host: str) -> RunToken:
    """The token kind a PR's author shows: GitHub's Actions bot, an app's `<slug>[bot]`, or a person."""
    if host != "github":
        return RunToken("person", "the Bitbucket token")
    if login == ACTIONS_LOGIN:
        return RunToken("actions", "the workflow's GITHUB_TOKEN")
    if login.endswith("[bot]"):
        return RunToken("app", f"the app token ({login})")
    return RunToken("person", f"{login}'s token" if login else "a person's token")


def daily_token(files: Mapping[str, str], host: str) -> RunToken:
    """The token the daily workflow hands the daily action (its `token:` input), from the CI files."""
    if host != "github":
        return RunToken("person", "HOMEOSTAT_BITBUCKET_TOKEN (the pipeline's Bitbucket token)")
    text = files.get(DAILY_WORKFLOW)
    if text is None:
        return RunToken("unknown", f"no {DAILY_WORKFLOW}")
    try:
        spec = yaml.safe_load(text)
    except yaml.YAMLError:
        return RunToken("unknown", f"{DAILY_WORKFLOW} does not parse")
    steps = [
        step
        for job in ((spec or {}).get("jobs") or {}).values()
        if isinstance(job, dict)
        for step in job.get("steps") or []
        if isinstance(step, dict)
    ]
    daily = next((s for s in steps if _is_daily_action(str(s.get("uses") or ""))), None)
    if daily is None:
        return RunToken("unknown", f"{DAILY_WORKFLOW} runs no Homeostat daily action")
    expression = str((daily.get("with") or {}).get("token") or "${{ github.token }}")
    return _token_of(expression, steps)


def _is_daily_action(uses: str) -> bool:
    name = uses.split("@", 1)[0]
    return name in ("homeostat/homeostat/actions/daily", "homeostat/daily")


def _token_of(expression: str, steps: list[dict[str, Any]]) -> RunToken:
    inner = expression.replace("${{", "").replace("}}", "").strip()
    parts = [part.strip() for part in inner.split("||")]
    first = parts[0]
    if first.startswith("steps.") and first.endswith(".outputs.token"):
        step_id = first.split(".")[1]
        step = next((s for s in steps if s.get("id") == step_id), None)
        if step is not None and str(step.get("uses") or "").startswith(APP_TOKEN_ACTION):
            app = str(
                (step.get("with") or {}).get("app-id") or (step.get("with") or {}).get("client-id") or ""
            )
            variable = _variable(app)
            where = f" (app id in vars.{variable})" if variable else ""
            return RunToken("app", f"the app token of step {step_id}{where}", _int(app), variable)
        return RunToken("unknown", f"the output of step {step_id}")
    if first in ("github.token", "secrets.GITHUB_TOKEN"):
        return RunToken("actions", "the workflow's GITHUB_TOKEN")
    if first.startswith("secrets."):
        fallback = any(part in ("github.token", "secrets.GITHUB_TOKEN") for part in parts[1:])
        name = first.removeprefix("secrets.")
        source = f"the secret {name}" + (", else the workflow's GITHUB_TOKEN" if fallback else "")
        return RunToken("person", source, or_actions=fallback)
    return RunToken("unknown", f"`{expression}`")


def _variable(expression: str) -> str:
    inner = expression.replace("${{", "").replace("}}", "").strip()
    return inner.removeprefix("vars.") if inner.startswith("vars.") else ""


def _int(text: str) -> int | None:
    return int(text) if text.strip().isdigit() else None


# --- what the branch's rules mean for that token ---------------------------------------------------


def outlook(rules: MergeRules, token: RunToken, *, asked_by_run: bool = False) -> Outlook:
    """What a PR the run opens with `token` meets on `rules.branch`. `asked_by_run`: the rules were read
    with the run's own token, so a ruleset's "you may bypass" answer is about it."""
    blocked: list[Gate] = []
    uncertain: list[Gate] = []
    waits: list[str] = []
    builds = 0
    bypassed: list[str] = []
    advisory: list[str] = []
    for rule_set in rules.rule_sets:
        if not rule_set.enforced:
            advisory.append(rule_set.name)
            continue
        bypass = _bypass(rule_set, token, asked_by_run)
        if bypass is True and rule_set.bypass_covers_checks:
            bypassed.append(rule_set.name)
            continue
        if bypass is not True:  # the approvals stand, or may
            if rule_set.approvals is None:
                text = f"{rule_set.name}: the approvals it requires are not readable with this token"
                uncertain.append(Gate(rule_set.name, "approvals-unknown", text))
            elif rule_set.approvals > 0 and bypass is False:
                blocked.append(Gate(rule_set.name, "approvals", _approvals(rule_set)))
            elif rule_set.approvals > 0:
                uncertain.append(Gate(rule_set.name, "bypass-unknown", _unknown_bypass(rule_set, token)))
        # Checks never block a token whose PRs start workflows: they run, and the run waits for them.
        if rule_set.checks and token.kind == "actions":
            blocked.append(Gate(rule_set.name, "checks-never-run", _never_run(rule_set)))
        else:
            waits += [name for name in rule_set.checks if name not in waits]
            builds = max(builds, rule_set.builds)
    return Outlook(
        rules.branch,
        tuple(blocked),
        tuple(uncertain),
        tuple(waits),
        builds,
        tuple(bypassed),
        tuple(advisory),
        rules.note if not rules.complete else "",
    )


def _bypass(rule_set: RuleSet, token: RunToken, asked_by_run: bool) -> bool | None:
    """True when the token skips the rule set, False when it does not, None when it cannot be told."""
    if asked_by_run and rule_set.caller_bypasses is not None:
        return rule_set.caller_bypasses
    if token.kind != "app":
        return False  # GITHUB_TOKEN can be on no bypass list; a person's bypass is not read here
    if token.app_id is not None and token.app_id in rule_set.bypass_apps:
        return True
    if not rule_set.bypass_visible or token.app_id is None:
        return None
    return False


def _approvals(rule_set: RuleSet) -> str:
    count = rule_set.approvals or 0
    return (
        f"{rule_set.name} requires {count} approval{'s' if count != 1 else ''}, and nobody approves their own"
        " pull request"
    )


def _never_run(rule_set: RuleSet) -> str:
    names = ", ".join(f"`{name}`" for name in rule_set.checks)
    return (
        f"{rule_set.name} requires {names}, which never runs on a PR the workflow's GITHUB_TOKEN opened"
        " (GitHub starts no workflow for that token's events)"
    )


def _unknown_bypass(rule_set: RuleSet, token: RunToken) -> str:
    if token.app_id is None:
        where = f"vars.{token.app_variable}" if token.app_variable else "the workflow"
        return f"{rule_set.name}: which app the run is could not be told (set the app id in {where} here)"
    return f"{rule_set.name}: its bypass list is not readable with this token (it takes admin)"


# --- in words --------------------------------------------------------------------------------------


def summary(look: Outlook, token: RunToken) -> str:
    """One line: whether the run merges, with what token, past what."""
    if look.blocked:
        gates = "; ".join(gate.text for gate in look.blocked)
        return f"the daily run cannot merge its PRs into {look.branch} with {token.source}: {gates}"
    if look.uncertain:
        gates = "; ".join(gate.text for gate in look.uncertain)
        return f"cannot tell whether the daily run can merge into {look.branch} with {token.source}: {gates}"
    parts = [f"the daily run can merge its PRs into {look.branch} with {token.source}"]
    if look.bypassed:
        parts.append(f"it bypasses {', '.join(look.bypassed)}")
    if look.waits_for:
        parts.append(
            f"it waits for {', '.join(f'`{n}`' for n in look.waits_for)} to pass (its PRs start workflows)"
        )
    if look.builds:
        parts.append(f"it waits for {look.builds} passing build{'s' if look.builds != 1 else ''}")
    if look.advisory:
        parts.append(f"{', '.join(look.advisory)} only warn (nothing enforces them)")
    if not (look.bypassed or look.waits or look.advisory):
        parts.append("nothing on the branch blocks it")
    return "; ".join(parts)


def fix(look: Outlook, token: RunToken, host: str) -> str:
    """The change that lets the run merge (or tells), in one line."""
    if not look.blocked and not look.uncertain:
        return ""
    kinds = {gate.kind for gate in (*look.blocked, *look.uncertain)}
    if host != "github":
        return (
            "Bitbucket has no bypass for merge checks: drop the approvals check from"
            f" {look.branch}'s branch restriction and keep the required build (the run waits for it), or"
            f" leave every lesson to a reviewer ({SETUP_DOC})"
        )
    if token.kind == "actions":
        return (
            "merge with a GitHub App token: `homeostat init --app --force` writes it into the workflows;"
            f" then put the app on the bypass list of the ruleset on {look.branch} ({SETUP_DOC})"
        )
    if "bypass-unknown" in kinds or "approvals-unknown" in kinds:
        where = f"vars.{token.app_variable}" if token.app_variable else "the app id"
        return f"rerun doctor with an admin token of the KB repo, and {where} set here, to read the rules"
    names = ", ".join(dict.fromkeys(gate.rule_set for gate in look.blocked))
    if token.kind == "app":
        app = f"the app (id {token.app_id})" if token.app_id is not None else "the app"
        return (
            f"add {app} to the bypass list of {names} (Settings > Rules > Rulesets), or move the required"
            f" approvals into a ruleset it bypasses ({SETUP_DOC})"
        )
    return (
        f"use a GitHub App token on the bypass list of {names} (`homeostat init --app --force`; {SETUP_DOC})"
    )


def refusal_note(look: Outlook | None, token: RunToken, reason: str, host: str) -> str:
    """Why a refused daily merge was refused, and the fix, for the run's summary and the PR body."""
    if look is None or look.can_merge:
        return reason
    return f"{summary(look, token)}. Fix: {fix(look, token, host)}"
