"""Examples at the foot of each command's `--help`.

A `pip install` brings the command, not the repository's docs/ folder: `--help` must be enough to
run a command the first time. `cli.build_parser` adds these to the one command it builds a full
parser for, so a session hook (which builds no parser) never loads them.
"""

from __future__ import annotations

EXAMPLES: dict[str, tuple[str, ...]] = {
    "validate": (
        "homeostat validate                    # the KB in the current folder",
        "homeostat validate --kb ~/kb --format json",
        "homeostat validate --fix              # rewrite the cached score and tokens fields",
        "homeostat validate --base origin/main # and what the change does for agents",
        "homeostat validate --base origin/main --max-budget-growth 10%   # fail past 10% more tokens",
    ),
    "daily": (
        "homeostat daily --dry-run             # decide and print, write nothing",
        "homeostat daily --offline             # this clone's pending lessons, no host, no model",
        "homeostat daily --since 2026-11-01 --max-cost 5",
        "homeostat daily --merge-shards 8        # the merge job of a sharded daily run",
    ),
    "deep-dive": ("homeostat deep-dive --dry-run", "homeostat deep-dive --max-cost 3"),
    "digest": (
        "homeostat digest --print              # print the digest, post nothing",
        "homeostat digest --since 2026-11-24",
    ),
    "review": ("homeostat review merge 42", "homeostat review merge --all --dry-run"),
    "curate": (
        "homeostat curate --dry-run --since 2026-11-30",
        "homeostat curate --show-skipped",
        "homeostat curate --shard 2/8           # one draft job of a sharded daily run",
    ),
    "learn": (
        'homeostat learn --area billing/api --topic errors --title "Return 422 for validation errors"'
        ' --rule "Return 422, not 400, when a request fails validation." --why "Clients retry on 400."',
        'homeostat learn --flag billing-api-error-status-table --reason "We moved to RFC 9457 problem details."',
        "homeostat learn --url https://github.com/acme/ledger/pull/12#discussion_r34",
        "homeostat learn --from claude-memory --dry-run        # preview this project's Claude Code memory",
        "homeostat learn --from claude-memory --area billing/api --yes",
        "homeostat learn --from coderabbit learnings.csv       # previews, then asks before writing",
        "homeostat learn --from coderabbit learnings.json --format json --dry-run",
    ),
    "calibrate": (
        "homeostat calibrate --dry-run            # the proposal, its calibration table and the diff",
        "homeostat calibrate                      # open or update the PR on homeostat/calibrate",
        "homeostat calibrate --min-sample 300 --format json",
    ),
    "sync": ("homeostat sync", "homeostat sync --background   # detached, as the plugin's hooks run it"),
    "context": (
        "homeostat context --kb ~/kb                     # the files changed in this checkout",
        "homeostat context --kb ~/kb --files src/billing/refunds.py --explain",
        'homeostat context --kb ~/kb --prompt "why do refunds retry?"',
    ),
    "search": ("homeostat search refund retries --kb ~/kb", "homeostat search idempotency --limit 3 --group"),
    "read": ("homeostat read billing/api/overview#errors --kb ~/kb", "homeostat read billing/api/overview"),
    "docs": ("homeostat docs --kb ~/kb", "homeostat docs --kb ~/kb --format json"),
    "explain": ("homeostat explain billing-api-integer-minor-units --kb ~/kb",),
    "report": ("homeostat report", "homeostat report --days 7 --format json"),
    "events": ("homeostat events --since 24h", "homeostat events --kind injection --since 7d"),
    "status": ("homeostat status --kb ~/kb",),
    "metrics": ("homeostat metrics", "homeostat metrics --days 7 --format json"),
    "mcp": ("homeostat mcp --kb ~/kb --checkout .   # register this line with your MCP client",),
    "hook": ("HOMEOSTAT_DIR=~/kb homeostat hook session-start < event.json   # Claude Code runs these",),
    "export": (
        "homeostat export --kb ~/kb --checkout .",
        "homeostat export --kb ~/kb --checkout . --formats agents,claude",
        "homeostat export --kb ~/kb --checkout . --check   # in CI: exit 1 when stale or over budget",
    ),
    "eval": (
        "homeostat eval",
        "homeostat eval --min hit@5=0.8 --format json",
        "homeostat eval --from-repeats   # draft cases from rules re-taught but never served",
    ),
    "bench": (
        "homeostat bench run --checkout billing=../billing --dry-run   # what would run, and its estimate",
        "homeostat bench run --checkout billing=../billing --budget 5 --repeats 3",
        "homeostat bench run --tasks bench/smoke.yaml --model claude-sonnet-5-5 --budget 2",
        "homeostat bench report",
        "homeostat bench report --seed 11 --format json   # aggregates only, no prompt or answer text",
    ),
    "init": (
        "git clone https://github.com/acme/kb && cd kb",
        "homeostat init --host github --member ana:lead --member bo:senior --member cy \\",
        "  --repo ledger=https://github.com/acme/ledger",
        'git add -A && git commit -m "Homeostat KB" && git push',
        "homeostat init --force              # take up a new release: move the version pins",
        "homeostat init --create-schedules   # Bitbucket, after the push",
        "homeostat init --shards 8           # the daily run as 8 draft jobs and one merge job",
    ),
    "doctor": ("homeostat doctor", "homeostat doctor --security"),
    "codeowners": ("homeostat codeowners", "homeostat codeowners --check   # in CI: exit 1 when stale"),
    "seed": ("homeostat seed ../ledger --dry-run", "homeostat seed ../ledger --topic architecture --yes"),
    "bootstrap": ("homeostat bootstrap --checkouts ../ledger ../storefront --dry-run",),
    "import": ("homeostat import ../ledger --dry-run", "homeostat import ../ledger"),
    "dashboard": ("homeostat dashboard   # then open http://127.0.0.1:8765/", "homeostat dashboard --port 0"),
    "up": ("homeostat up", "homeostat up --port 8800", "homeostat up --no-dashboard"),
}


def epilog(command: str) -> str:
    lines = EXAMPLES.get(command, ())
    return "examples:\n" + "\n".join(f"  {line}" for line in lines) if lines else ""
