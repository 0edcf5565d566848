"""`homeostat up`: everything on one shared box (or the image), for a team without CI minutes.

Runs `homeostat daily`, `homeostat deep-dive` and `homeostat digest` on the cron lines of
`agents.schedules` (UTC), each once per slot across every box running `up` against the same KB repo
(a lock per job on the state branch), and serves the dashboard. Each run's output goes to
`.homeostat/up/<job>-<slot>.log` and one `agent-run` event. The jobs use the same credentials as in
CI (`GITHUB_TOKEN` or the Bitbucket variables, `ANTHROPIC_API_KEY`, the Slack webhook variable).
SIGTERM or Ctrl-C stops it between jobs; a second one also stops the running job.
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib.util
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path

from homeostat.adapters.job_process import JobProcess, log_file, update_clone
from homeostat.adapters.state.event_log import event_sink
from homeostat.adapters.state.run_claim import this_process
from homeostat.adapters.state.schedule_lock import SlotLocks
from homeostat.cli_options import add_kb_option, add_port_option
from homeostat.commands import module_name
from homeostat.core.events import Event, Scalar
from homeostat.core.schedule.up import Job, parsed_jobs
from homeostat.core.state.branch import state_branch
from homeostat.dashboard.start import serve
from homeostat.kb_origin import origin_git
from homeostat.runs.sync import read_config
from homeostat.runs.up import Scheduler, Stop, UpDeps
from homeostat.workspace import Workspace


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "up",
        help="run the daily run, deep dive and digest on their schedules, and serve the dashboard",
        description=(
            "Run homeostat daily, deep-dive and digest on the cron lines of agents.schedules (UTC), once per "
            "slot across every box running up against this KB repo, and serve the dashboard on 127.0.0.1. "
            "SIGTERM stops it between jobs."
        ),
    )
    add_kb_option(parser)
    add_port_option(parser)
    parser.add_argument("--no-dashboard", action="store_true", help="run the schedules only")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, workspace: Workspace) -> int:
    root = workspace.root.resolve()
    config = read_config(root)
    for job in parsed_jobs(config.agents.schedules):  # a broken cron line stops here
        if not _installed(job):
            print(
                f"homeostat: up: {job.name}: not in this release of homeostat; its schedule waits",
                file=sys.stderr,
            )
    git = origin_git(root, config, workspace.env)
    process = JobProcess(root)
    stop = Stop()
    _on_signals(stop, process.interrupt)
    server = None
    if not args.no_dashboard:
        server = serve(root, args.port)
    deps = UpDeps(
        locks=SlotLocks(git, remote="origin", branch=state_branch(config.sources.base_branch)),
        owner=this_process(),
        jobs=lambda: tuple(filter(_installed, parsed_jobs(read_config(root).agents.schedules))),
        run_job=_runner(root, process),
        now=lambda: dt.datetime.now(dt.UTC),
        sleep=stop.event.wait,
        log=sys.stderr,
        stop=stop,
    )
    try:
        Scheduler(deps).loop()
    finally:
        if server is not None:
            server.stop()
    return 0


def _installed(job: Job) -> bool:
    """Whether this install has the job's command (a job added in a later release is left out)."""
    return importlib.util.find_spec(module_name(job.name)) is not None


def _on_signals(stop: Stop, interrupt: Callable[[], None]) -> None:
    """The first SIGTERM or SIGINT asks to stop between jobs; the next passes it on to the job."""

    def handle(signum: int, _frame: object) -> None:
        stop.request()
        if stop.requests == 1:
            print(
                "homeostat: up: stopping after the running job (signal again to stop it too)", file=sys.stderr
            )
        else:
            interrupt()

    signal.signal(signal.SIGTERM, handle)
    signal.signal(signal.SIGINT, handle)


def _runner(root: Path, process: JobProcess) -> Callable[[Job, dt.datetime, Callable[[], None]], int]:
    """Run one job: bring the clone up to date, run its command, record an `agent-run` event."""

    def run_job(job: Job, slot: dt.datetime, renew: Callable[[], None]) -> int:
        said = update_clone(root, read_config(root).sources.base_branch)
        if said:
            print(f"homeostat: up: {job.name}: {said}", file=sys.stderr)
        started = time.monotonic()
        code = process.run(job, slot, renew)
        seconds = round(time.monotonic() - started, 1)
        data: dict[str, Scalar] = {
            "job": job.name,
            "slot": slot.isoformat(),
            "exitCode": code,
            "seconds": seconds,
            "by": "up",
        }
        sink = event_sink(root)
        sink.record(Event("agent-run", dt.datetime.now(dt.UTC), data))
        close = getattr(sink, "close", None)
        if close is not None:
            close()
        print(f"homeostat: up: {job.name}: log in {log_file(root, job.name, slot)}", file=sys.stderr)
        return code

    return run_job
