"""`homeostat init`: set up a KB repo (homeostat.yaml, the CI files, CODEOWNERS, .gitignore, core/).

It runs in the KB repo's checkout. The answers (host, members, code repos) come from flags or, at a
terminal, a few questions; nothing is filled in that the person did not give (PEERS.md, lesson 7).
Rerunning it is safe: a file that already holds what init would write is left alone, and a file that
differs (the user edited it, or it comes from another release) is kept and its diff printed, unless
`--force`. `homeostat.yaml` is written only when it is missing (or replaced, with flags and --force);
an existing one is what the other files are rendered from.
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import TypeVar

from homeostat import VERSION
from homeostat.adapters.git import work_tree
from homeostat.adapters.kb_files import read_tree
from homeostat.adapters.state.unfinished_writes import left_unfinished, write_noted
from homeostat.cli_options import add_format_option, add_kb_option, emit_json, kb_path
from homeostat.core.config import Config, Host
from homeostat.core.daily.shards import parse_shard_count
from homeostat.core.hosts import HostKind, UrlError, parse_repo_url
from homeostat.core.kb import CONFIG_FILE, load_config, load_kb
from homeostat.core.setup.codeowners import default_path, render_codeowners
from homeostat.core.setup.scaffold import (
    ACTIONS_REPO,
    APP_ID_VARIABLE,
    APP_KEY_SECRET,
    CI_TEMPLATES,
    CORE_README,
    CORE_README_TEXT,
    DAILY_FILE,
    GITIGNORE,
    CiOptions,
    FilePlan,
    InitAnswers,
    Outcome,
    app_repos,
    check_answers,
    ci_templates,
    merged_gitignore,
    parse_member,
    parse_repo,
    pin_config_version,
    pinned_commits,
    plan_files,
    render_ci,
    render_config,
    shards_in,
    spread_schedules,
    uses_app_token,
    with_shards,
)
from homeostat.errors import ConfigError, HomeostatError
from homeostat.workspace import Workspace

Ask = Callable[[str], str]
T = TypeVar("T")
_TRIES = 3


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "init",
        help="set up a KB repo: homeostat.yaml, the CI files, CODEOWNERS, .gitignore, knowledge/core/",
        description=(
            "Write a commented homeostat.yaml (from the flags, or a few questions at a terminal), the CI "
            "files pinned to this exact Homeostat version, CODEOWNERS, a .gitignore entry for .homeostat/ "
            "and knowledge/core/. A second run changes nothing; a file you edited is kept, with its diff "
            "shown, unless --force."
        ),
    )
    # `init DIR` is `init --kb DIR`'s older spelling, kept for a release and left out of --help (docs/cli.md)
    parser.add_argument("path", nargs="?", metavar="DIR", help=argparse.SUPPRESS)
    add_kb_option(parser)
    _add_config_options(parser)
    parser.add_argument(
        "--force", action="store_true", help="overwrite files that differ from what init writes"
    )
    parser.add_argument("--yes", "-y", action="store_true", help="ask nothing: take the flags as they are")
    _add_ci_options(parser)
    add_format_option(parser)
    parser.set_defaults(run=run)


def _add_config_options(parser: argparse.ArgumentParser) -> None:
    """What goes into homeostat.yaml: the host, the team and the repos the KB serves."""
    parser.add_argument("--host", choices=("github", "bitbucket"), help="the code host (default: origin's)")
    parser.add_argument(
        "--member",
        action="append",
        default=[],
        metavar="HANDLE[:ROLE]",
        help="a team member's code-host handle, optionally with a role (ana:lead); repeat for each",
    )
    parser.add_argument(
        "--repo",
        action="append",
        default=[],
        metavar="NAME=URL",
        help="a code repo this KB serves (ledger=https://github.com/acme/ledger); repeat for each",
    )
    parser.add_argument(
        "--base-branch",
        metavar="BRANCH",
        help="the KB's base branch (default: origin's, else the current one)",
    )


def _add_ci_options(parser: argparse.ArgumentParser) -> None:
    """How the CI files init writes run: the token they take, how actions are pinned, the
    schedules and the daily run's shards."""
    parser.add_argument(
        "--app",
        action=argparse.BooleanOptionalAction,
        default=None,
        help=(
            "GitHub: the daily, deep-dive and review-merge workflows take a GitHub App token (app id in"
            f" vars.{APP_ID_VARIABLE}, key in secrets.{APP_KEY_SECRET}), so their PRs run the required"
            " checks and the app can bypass the branch's ruleset (default: as the workflows already are)"
        ),
    )
    parser.add_argument(
        "--pin-actions",
        choices=("tag", "sha"),
        help=(
            "GitHub: pin Homeostat's actions by their exact release tag, or by its commit with the version"
            " in a comment (sha asks the server once; default: as the workflows already are, else tag)"
        ),
    )
    parser.add_argument(
        "--create-schedules",
        action="store_true",
        help="Bitbucket: create the daily and weekly schedules through the Pipelines API",
    )
    parser.add_argument(
        "--shards",
        metavar="N",
        help=(
            "split the daily run's drafting over N CI jobs (a GitHub Actions matrix, Bitbucket parallel "
            "steps) and one merge job that decides (default: what the daily workflow already runs, else 1)"
        ),
    )


def run(args: argparse.Namespace, workspace: Workspace) -> int:
    if args.path and args.kb and Path(args.path).resolve() != Path(args.kb).resolve():
        raise ConfigError(f"DIR {args.path} and --kb {args.kb} name two folders: give one of them")
    shards = parse_shard_count(args.shards, "--shards") if args.shards is not None else None
    root = _root(args.path or kb_path(args.kb))
    ask = input if _interactive(args) else None
    left = left_unfinished(root)  # what a run that crashed wrote is init's to redo, not yours to keep
    config_plan, config = _config_plan(root, args, ask, left)
    options = _ci_options(root, config, args)
    plans = [config_plan, *_other_plans(root, config, options, force=args.force, left=left, shards=shards)]
    plans = _confirmed(plans, ask)
    _write(root, {plan.path: plan.text for plan in plans if plan.writes})
    schedules: list[dict[str, str]] = []
    if args.create_schedules:
        from homeostat.runs.schedules import create_schedules

        schedules = create_schedules(root, config, force=args.force)
    findings = _validate(root)
    if args.format == "json":
        emit_json(_json(root, config, plans, schedules, findings))
    else:
        _print_text(root, config, plans, schedules, findings, args.create_schedules, options.app)
    return 0


def _write(root: Path, files: dict[str, str]) -> None:
    try:
        write_noted(root, files)
    except OSError as exc:
        where = exc.filename or root
        raise HomeostatError(
            f"{where}: cannot write it ({exc.strerror or exc}); fix that and run init again: it redoes what"
            " this run left unfinished"
        ) from None


def _interactive(args: argparse.Namespace) -> bool:
    return not args.yes and args.format == "text" and sys.stdin.isatty() and sys.stdout.isatty()


def _root(value: str) -> Path:
    """The KB folder (made when files are written, so a refused run leaves no folder behind)."""
    root = Path(value)
    if root.exists() and not root.is_dir():
        raise ConfigError(f"{root}: not a folder; give the KB repo's checkout")
    existing = next(folder for folder in (root.absolute(), *root.absolute().parents) if folder.exists())
    top = work_tree.top_level(existing)
    if top is not None and top.resolve() != root.resolve():
        raise ConfigError(
            f"{root} is inside the git repository {top} but not at its root: a KB is a repository of its"
            " own (run init at the root of a clone of the KB repo)"
        )
    return root


# --- homeostat.yaml -----------------------------------------------------------------------------


def _config_plan(
    root: Path, args: argparse.Namespace, ask: Ask | None, left: frozenset[str]
) -> tuple[FilePlan, Config]:
    """The plan for homeostat.yaml and the config the other files are rendered from. One left by a
    run that did not finish is the answers of that run: the flags given now replace it."""
    path = root / CONFIG_FILE
    current = path.read_text(encoding="utf-8") if path.is_file() else None
    given = bool(args.host or args.member or args.repo or args.base_branch)
    existing = _existing_config(current, replacing=given and (args.force or CONFIG_FILE in left))
    if current is not None and existing is not None and not given:
        wanted = pin_config_version(current, VERSION)  # yours, with only its version pin moved
    else:
        wanted = render_config(_answers(root, args, ask if current is None else None, existing), VERSION)
    (plan,) = plan_files(
        {CONFIG_FILE: wanted}, {CONFIG_FILE: current}, force=args.force, merged=frozenset(), unfinished=left
    )
    if existing is not None and not plan.writes:
        return plan, existing
    return plan, _parse_config(plan.text)


def _existing_config(current: str | None, *, replacing: bool) -> Config | None:
    """The config already on disk; a broken one stops init unless the flags are to replace it."""
    if current is None:
        return None
    try:
        return _parse_config(current)
    except ConfigError as exc:
        if replacing:
            return None
        raise ConfigError(
            f"{exc}; fix it (homeostat validate shows every problem), or give the flags and --force to"
            " write a new one"
        ) from None


def _parse_config(text: str) -> Config:
    config, _doc, findings = load_config(text)
    if config is None:
        first = next(iter(findings), None)
        raise ConfigError(
            f"{first.file}:{first.line}: {first.message}" if first else f"{CONFIG_FILE} is invalid"
        )
    return config


def _answers(root: Path, args: argparse.Namespace, ask: Ask | None, existing: Config | None) -> InitAnswers:
    """From the flags, then the questions; an existing config fills in the host and base branch."""
    host = _host(root, args.host or (existing.sources.host if existing else None), ask)
    members = tuple(parse_member(text) for text in args.member)
    if not members and ask is not None:
        members = _ask_list(
            ask,
            "Team members: code-host handles separated by spaces, each optionally :lead, :senior or"
            " :junior (Enter for none yet): ",
            parse_member,
        )
    repos = tuple(parse_repo(text, host) for text in args.repo)
    if not repos and ask is not None:
        repos = _ask_list(
            ask,
            "Code repos this KB serves, as NAME=URL separated by spaces (Enter for none yet): ",
            lambda text: parse_repo(text, host),
        )
    base = (
        args.base_branch
        or (existing.sources.base_branch if existing else None)
        or work_tree.default_branch(root)
        or "main"
    )
    schedules = spread_schedules(_kb_name(root))
    answers = InitAnswers(host=host, base_branch=base, members=members, repos=repos, schedules=schedules)
    check_answers(answers)
    return answers


def _host(root: Path, flag: str | None, ask: Ask | None) -> Host:
    if flag:
        return flag  # type: ignore[return-value]
    inferred = _host_of_origin(root)
    if inferred:
        return inferred
    if ask is None:
        raise ConfigError(
            "which code host is the KB on? give --host github or --host bitbucket (origin does not say)"
        )
    for _ in range(_TRIES):
        answer = ask("Code host (github or bitbucket): ").strip().lower()
        if answer in ("github", "bitbucket"):
            return answer  # type: ignore[return-value]
        print("homeostat: answer github or bitbucket", file=sys.stderr)
    raise ConfigError("no code host given: rerun with --host github or --host bitbucket")


def _kb_name(root: Path) -> str:
    """The KB repo's owner/name when origin names it, else its folder's name: what the schedules'
    minutes are taken from (the same KB gets the same minutes on every run)."""
    url = work_tree.origin_url(root)
    if url:
        try:
            return parse_repo_url(url).full_name.lower()
        except UrlError:
            pass
    return root.resolve().name.lower()


def _host_of_origin(root: Path) -> Host | None:
    """github or bitbucket when origin is on github.com or bitbucket.org; other hosts are not guessed."""
    url = work_tree.origin_url(root)
    if not url:
        return None
    try:
        ref = parse_repo_url(url)
    except UrlError:
        return None
    if ref.base_url:
        return None
    return "bitbucket" if ref.host is HostKind.BITBUCKET else "github"


def _ask_list(ask: Ask, question: str, parse: Callable[[str], T]) -> tuple[T, ...]:
    for _ in range(_TRIES):
        try:
            return tuple(parse(item) for item in ask(question).split())
        except HomeostatError as exc:
            print(f"homeostat: {exc}", file=sys.stderr)
    raise ConfigError("no usable answer after three tries: rerun init with the flags (see --help)")


# --- the other files ------------------------------------------------------------------------------


def template_text(source: str) -> str:
    """A workflow template as shipped in the package (`workflows/` in the repository)."""
    return (resources.files("homeostat") / "templates" / "workflows" / source).read_text(encoding="utf-8")


def _ci_options(root: Path, config: Config, args: argparse.Namespace) -> CiOptions:
    """--app and --pin-actions, else what the workflows on disk already do (so a rerun keeps them)."""
    if config.sources.host != "github":
        if args.app or args.pin_actions == "sha":
            raise ConfigError("--app and --pin-actions sha are for GitHub workflows; this KB is on Bitbucket")
        return CiOptions()
    current = {t.target: text for t in CI_TEMPLATES["github"] if (text := _read(root / t.target)) is not None}
    app = args.app if args.app is not None else any(uses_app_token(text) for text in current.values())
    pinned = pinned_commits(current)
    form = args.pin_actions or ("sha" if pinned else "tag")
    commit = ""
    if form == "sha":
        commit = pinned.get(VERSION) or _release_commit()
    repos: tuple[str, ...] = ()
    if app:
        from homeostat.runs.curate import kb_repo_ref

        kb = kb_repo_ref(config, work_tree.origin_url(root))
        repos = app_repos(config, (kb.owner, kb.name) if kb is not None else None)
    return CiOptions(app=app, app_repos=repos, action_commit=commit)


def _release_commit() -> str:
    from homeostat.adapters.hosts.action_pins import release_commit

    return release_commit(ACTIONS_REPO, f"v{VERSION}")


def _other_plans(
    root: Path,
    config: Config,
    options: CiOptions,
    *,
    force: bool,
    left: frozenset[str],
    shards: int | None = None,
) -> list[FilePlan]:
    host = config.sources.host
    if shards is None:  # a rerun keeps the shards the daily run already has
        shards = shards_in(_read(root / DAILY_FILE[host]))
    generated = {
        template.target: with_shards(
            template, render_ci(template, template_text(template.source), config, VERSION, options), shards
        )
        for template in ci_templates(host, shards)
    }
    codeowners = default_path(host)
    generated[codeowners] = render_codeowners(config, codeowners)
    current = {path: _read(root / path) for path in [*generated, GITIGNORE, CORE_README]}
    wanted = {
        **generated,
        GITIGNORE: merged_gitignore(current[GITIGNORE]),
        CORE_README: current[CORE_README] or CORE_README_TEXT,
    }
    return plan_files(wanted, current, force=force, merged=frozenset({GITIGNORE}), unfinished=left)


def _read(path: Path) -> str | None:
    return path.read_text(encoding="utf-8") if path.is_file() else None


def _confirmed(plans: list[FilePlan], ask: Ask | None) -> list[FilePlan]:
    """At a terminal, --force shows what it would overwrite and asks once (--yes does not ask)."""
    replacing = [plan for plan in plans if plan.outcome is Outcome.REPLACE]
    if not replacing or ask is None:
        return plans
    for plan in replacing:
        sys.stdout.write(plan.diff())
    answer = ask(f"Overwrite {len(replacing)} file(s) that differ, as shown above? [y/N] ").strip().lower()
    if answer in ("y", "yes"):
        return plans
    return [
        FilePlan(plan.path, plan.text, plan.current, Outcome.KEEP)
        if plan.outcome is Outcome.REPLACE
        else plan
        for plan in plans
    ]


def _validate(root: Path) -> list[str]:
    """validate's error findings on what is now on disk (what init wrote must pass)."""
    from homeostat.core.validate import validate_kb

    result = validate_kb(load_kb(read_tree(root), root=str(root)), dt.datetime.now(dt.UTC).date())
    return [f"{f.file}:{f.line}: {f.message}" for f in result.errors]


# --- output ---------------------------------------------------------------------------------------


def _print_text(
    root: Path,
    config: Config,
    plans: list[FilePlan],
    schedules: list[dict[str, str]],
    errors: list[str],
    created_schedules: bool,
    app: bool = False,
) -> None:
    host, base = config.sources.host, config.sources.base_branch
    print(f"homeostat init: {root} ({host}, base branch {base}, Homeostat {VERSION})")
    for plan in plans:
        note = ""
        if plan.outcome is Outcome.KEEP:
            note = ": it differs from what init writes, so yours stays (--force overwrites it):"
        print(f"  {plan.outcome.value:<10} {plan.path}{note}")
        if plan.outcome in (Outcome.KEEP, Outcome.REPLACE):
            sys.stdout.write(_indented(plan.diff()))
    for item in schedules:
        print(f"  {item['outcome']:<10} schedule {item['pipeline']} on {item['branch']} ({item['cron']})")
    print(f"validate: {len(errors)} error{'s' if len(errors) != 1 else ''}")
    for error in errors:
        print(f"  {error}")
    for line in _next_steps(config, created_schedules, app):
        print(line)


def _indented(text: str) -> str:
    return "".join(f"      {line}" for line in text.splitlines(keepends=True))


def _next_steps(config: Config, created_schedules: bool, app: bool = False) -> list[str]:
    base = config.sources.base_branch
    steps = ["Next:", "  - commit and push these files to the KB repo"]
    repos = ", ".join(repo.name for repo in config.repos) or "the code repos, once listed"
    if config.sources.host == "github":
        steps.append(
            "  - store ANTHROPIC_API_KEY (or your runtime's credential) and HOMEOSTAT_SLACK_WEBHOOK as"
            " repository secrets"
        )
        steps.append(
            f"  - store HOMEOSTAT_GITHUB_TOKEN as a repository secret: a token that may read the pull"
            f" requests of {repos} (the workflows' own GITHUB_TOKEN reads only this KB repo)"
        )
        steps.append(f"  - protect {base}: require pull requests and the `validate` status check")
        steps.append(_auto_merge_step(base, app))
    else:
        steps.append(
            "  - store HOMEOSTAT_BITBUCKET_TOKEN and ANTHROPIC_API_KEY (or your runtime's credential) as"
            " secured repository variables"
        )
        steps.append(
            f"  - make HOMEOSTAT_BITBUCKET_TOKEN a workspace access token, or one that may also read the"
            f" pull requests of {repos}: a repository access token reaches only this KB repo"
        )
        steps.append(f"  - protect {base}: require pull requests and a passing build")
        if created_schedules:
            steps.append(
                "  - Bitbucket has no scheduler in the repository: the schedules above live in Bitbucket"
                " (Repository settings > Pipelines > Schedules); rerun with --create-schedules after"
                " changing agents.schedules"
            )
        else:
            steps.append(
                "  - Bitbucket has no scheduler in the repository: the custom pipelines run only on a"
                " schedule kept in Bitbucket. Once the file is pushed, run `homeostat init"
                " --create-schedules` with HOMEOSTAT_BITBUCKET_TOKEN set (or add them under Repository"
                " settings > Pipelines > Schedules)"
            )
    steps.append("  - choose agents.runtime and agents.model in homeostat.yaml, then run `homeostat doctor`")
    return steps


def _auto_merge_step(base: str, app: bool) -> str:
    if app:
        return (
            f"  - create the GitHub App (contents and pull requests: read and write), install it on the KB repo"
            f" and the code repos, store its id as the variable {APP_ID_VARIABLE} and its key as the secret"
            f" {APP_KEY_SECRET}, and put it on the bypass list of {base}'s ruleset (docs/setup.md, \"Auto-merge"
            ' and branch protection")'
        )
    return (
        f"  - to let the daily run merge past a protected {base} (approvals, required checks), rerun with"
        " --app: the workflow's own token can bypass no rule, and its PRs start no check (docs/setup.md)"
    )


def _json(
    root: Path, config: Config, plans: list[FilePlan], schedules: list[dict[str, str]], errors: list[str]
) -> dict[str, object]:
    return {
        "kb": str(root),
        "version": VERSION,
        "host": config.sources.host,
        "baseBranch": config.sources.base_branch,
        "files": [
            {"path": plan.path, "outcome": plan.outcome.value, "diff": plan.diff() if plan.current else ""}
            for plan in plans
        ],
        "schedules": schedules,
        "validateErrors": errors,
    }
