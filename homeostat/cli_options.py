"""The options every command spells the same way, defined once (docs/cli.md is their reference).

`--kb DIR` is the KB checkout, `--checkout DIR` the code checkout, `--repo NAME` a repo of
homeostat.yaml, `--files PATH` a touched path (repeat it, or separate paths with commas), `--format
text|json` the output. Spellings from before this convention (`--json`, `validate PATH`, `export
CHECKOUT`, `--files a b`) still work for one release and are left out of `--help`.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import sys
from collections.abc import Callable, Mapping

from homeostat.core.text import camel_case
from homeostat.core.type_hints import TYPE_CHECKING
from homeostat.errors import ConfigError

if TYPE_CHECKING:  # argparse is imported where a parser is built: a session hook's fast path has none
    import argparse

    from homeostat.core.asker import Asker, RunStats
    from homeostat.core.config import Config
    from homeostat.core.events import EventSink

    SubParsers = argparse._SubParsersAction  # the type `register(subparsers)` receives


def kb_path(value: str | None) -> str:
    """`--kb`, else $HOMEOSTAT_DIR, else the current folder, as given (init makes it when missing)."""
    return value or os.environ.get("HOMEOSTAT_DIR") or "."


def kb_dir(value: str | None) -> str:
    """The KB folder (`kb_path`); one that does not exist is refused here, before a command writes
    anything (a cache, a lock, an event) into a folder it would have to make."""
    root = kb_path(value)
    if not os.path.isdir(root):
        named = f"--kb {root}" if value else f"HOMEOSTAT_DIR={root}"
        what = "is not a folder" if os.path.exists(root) else "does not exist"
        raise ConfigError(f"{named} {what}: give the folder of your KB clone")
    return root


def add_kb_option(parser: argparse.ArgumentParser) -> None:
    """`--kb DIR`: the KB checkout; default $HOMEOSTAT_DIR, else the current folder."""
    parser.add_argument(
        "--kb",
        metavar="DIR",
        default=None,
        help="the KB checkout (default: $HOMEOSTAT_DIR, else the current folder)",
    )


def add_format_option(parser: argparse.ArgumentParser) -> None:
    """`--format text|json`; the older `--json` is its hidden alias."""
    import argparse

    parser.add_argument(
        "--format",
        choices=("text", "json"),
        default="text",
        help="text (default) or json: one JSON object on stdout (errors stay on stderr), for scripts",
    )
    parser.add_argument("--json", dest="format", action="store_const", const="json", help=argparse.SUPPRESS)


def check_cost_and_prompts(args: argparse.Namespace, result: str) -> None:
    """`--max-cost` and `--show-prompts` as every model-calling run reads them, refused before any
    work: a negative cap, or prompts asked for where one JSON object (holding `result`) is promised."""
    if args.max_cost is not None and args.max_cost < 0:
        raise ConfigError(
            f"--max-cost {args.max_cost:g} is negative: give a cap in US dollars, e.g. --max-cost 2"
        )
    if args.format == "json" and args.show_prompts:
        raise ConfigError(f"--show-prompts prints prompts, not {result}: drop --format json to see them")


def askers_from_args(
    args: argparse.Namespace, config: Config, stats: RunStats, *, sink: EventSink, env: Mapping[str, str]
) -> Callable[[str], Asker]:
    """A model-calling run's asker per agent, with `--max-cost` and `--show-prompts` read as
    `check_cost_and_prompts` checked them: one place maps the two flags onto every run's calls."""
    from homeostat.adapters.models.askers import run_asker_for

    return run_asker_for(
        config,
        stats,
        sink=sink,
        max_cost_usd=args.max_cost,
        show_prompts=sys.stdout if args.show_prompts else None,
        env=env,
    )


def existing_folder(value: str) -> str:
    """An argparse type: a folder that exists (`--checkout /nonexistent` is a mistake, not a default)."""
    import argparse

    if not os.path.isdir(value):
        what = "is not a folder" if os.path.exists(value) else "does not exist"
        raise argparse.ArgumentTypeError(f"{value} {what}")
    return value


def add_checkout_option(parser: argparse.ArgumentParser, help: str = "", default: str | None = ".") -> None:
    parser.add_argument(
        "--checkout",
        metavar="DIR",
        type=existing_folder,
        default=default,
        help=help or "the code checkout (default: the current folder)",
    )


def one_of(args: argparse.Namespace, flag: str, old: str, what: str) -> str | None:
    """The value of `--flag`, or of its old positional spelling; both, and different, is a mistake."""
    new_value: str | None = getattr(args, flag)
    old_value: str | None = getattr(args, old)
    from pathlib import Path  # a session hook's command line never reads this

    if new_value is not None and old_value is not None and Path(new_value) != Path(old_value):
        raise ConfigError(
            f"{what} given twice ({old_value} and --{flag} {new_value}): give it once, as --{flag}"
        )
    return new_value if new_value is not None else old_value


def add_repo_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--repo", metavar="NAME", help="the code repo's name in homeostat.yaml (default: from the checkout)"
    )


def add_files_option(parser: argparse.ArgumentParser, help: str) -> None:
    """`--files PATH`, once per path (or comma-separated): it never swallows a positional argument."""
    parser.add_argument(
        "--files", action="append", metavar="PATH", help=f"{help}; repeat, or separate with commas"
    )


def at_least(minimum: int, maximum: int | None = None) -> Callable[[str], int]:
    """An argparse type: a whole number in range, so `--limit 0` is an error rather than "no match"."""

    def parse(value: str) -> int:
        import argparse

        try:
            number = int(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{value!r} is not a whole number") from None
        if number < minimum or (maximum is not None and number > maximum):
            span = f"from {minimum} to {maximum}" if maximum is not None else f"at least {minimum}"
            raise argparse.ArgumentTypeError(f"{value} is out of range: give a number {span}")
        return number

    parse.__name__ = "number"
    return parse


def camel_keys(data: Mapping[str, object]) -> dict[str, object]:
    """A record's snake_case field names as the camelCase keys every JSON answer uses."""
    return {camel_case(key): value for key, value in data.items()}


def emit_json(data: object) -> None:
    """The one JSON object a command prints on stdout (UTF-8 as is, two-space indent, a final newline)."""
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2, default=str) + "\n")


def parse_when(value: str | None, flag: str) -> dt.datetime | None:
    """A date (midnight UTC) or an ISO time (UTC when it names no zone)."""
    if value is None:
        return None
    text = value.strip()
    try:
        if len(text) == 10:
            return dt.datetime.combine(dt.date.fromisoformat(text), dt.time(), dt.UTC)
        moment = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise ConfigError(
            f"{flag} {value!r} is not a date (YYYY-MM-DD) or an ISO time (2026-11-20T06:00Z)"
        ) from None
    return moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)


DEFAULT_PORT = 8765  # the dashboard's, for `dashboard` and `up`


def add_port_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--port",
        type=at_least(0, 65535),
        default=DEFAULT_PORT,
        metavar="N",
        help=f"the port on 127.0.0.1 (default: {DEFAULT_PORT}; 0 picks a free one)",
    )
