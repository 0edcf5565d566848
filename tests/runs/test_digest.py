"""`homeostat digest`: built from the KB's history and the state branch, posted to a local Slack sink."""

from __future__ import annotations

import datetime as dt
import io
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from digestworld import TOPIC, DigestWorld, many_rules
from kbfactory import stderr_errors
from kit import FIXTURES, TESTS

from homeostat.adapters.git.plumbing import Git
from homeostat.adapters.hosts.http_retry import RetryPolicy
from homeostat.adapters.kb_files import load_kb_dir
from homeostat.adapters.slack import SlackNotifier
from homeostat.adapters.state.event_log import SqliteEventLog, events_path
from homeostat.core.events import Event
from homeostat.core.render import slack_blocks as blocks
from homeostat.core.state.branch import parse_state
from homeostat.runs.curate import kb_repo_ref
from homeostat.runs.digest import DigestDeps, DigestOptions, events_desire_paths, run_digest

NOW = dt.datetime(2026, 12, 7, 8, 0, tzinfo=dt.UTC)
SNAPSHOT = FIXTURES / "digest" / "small_kb.json"
KILLPOINT = TESTS / "killpoint.py"


def small_world(tmp_path: Path, now: dt.datetime = NOW) -> DigestWorld:
    world = DigestWorld(tmp_path, now=now)
    day = (now - dt.timedelta(days=2)).date().isoformat()
    world.commit(world.week_of_changes(day), when=now - dt.timedelta(days=2), message="A week of lessons")
    world.in_review(
        [
            ("Use RefundPolicy.allows before posting", "bo", now - dt.timedelta(days=4)),
            ("Backfill columns after the deploy", "cy", now - dt.timedelta(hours=20)),
        ]
    )
    return world


def deps(world: DigestWorld, notifier: SlackNotifier | None, out: io.StringIO, **extra: object) -> DigestDeps:
    config = load_kb_dir(world.work).require_config()
    git = Git(world.work)
    return DigestDeps(
        git=git,
        config=config,
        kb_repo=kb_repo_ref(config, None),
        out=out,
        notifier=notifier,
        now=lambda: world.now,
        kb_name="example/kb",
        **extra,  # type: ignore[arg-type]
    )


def notifier(sink) -> SlackNotifier:  # type: ignore[no-untyped-def]
    return SlackNotifier(sink.url, "HOMEOSTAT_SLACK_WEBHOOK")


def test_the_digest_of_a_small_kb_matches_its_snapshot(tmp_path: Path, slack_sink) -> None:  # type: ignore[no-untyped-def]
    world = small_world(tmp_path)
    log = SqliteEventLog(events_path(world.work), now=lambda: NOW)
    for asked, tool in (("get_rules", "context"), ("get_rules", "context"), ("remember", "")):
        log.record(Event("desire-path", NOW - dt.timedelta(days=1), {"asked": asked, "tool": tool}))
    log.close()
    out = io.StringIO()
    result = run_digest(
        deps(world, notifier(slack_sink), out, desire_paths=events_desire_paths(world.work)), DigestOptions()
    )
    assert result.posted and result.recorded
    [post] = slack_sink.posts
    if os.environ.get("UPDATE_SNAPSHOTS"):
        SNAPSHOT.parent.mkdir(parents=True, exist_ok=True)
        SNAPSHOT.write_text(json.dumps(post, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    assert post == json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    assert result.digest.counts == {
        "new-rules": 2,
        "reconfirmed": 1,
        "rejected-decisions": 1,
        "retired": 0,
        "updated-sections": 1,
        "review-queue": 2,
        "open-flags": 1,
        "desire-paths": 2,
        "re-taught": 0,
        "overdue": 1,
    }


def test_a_digest_of_500_new_rules_stays_within_every_slack_limit(tmp_path: Path, slack_sink) -> None:  # type: ignore[no-untyped-def]
    world = DigestWorld(tmp_path, now=NOW)
    world.commit({TOPIC: many_rules(500, "2026-12-05")}, when=NOW - dt.timedelta(days=2))
    world.in_review(
        [(f"Lesson {n} " + "with a long title " * 6, "bo", NOW - dt.timedelta(days=n % 5)) for n in range(80)]
    )
    result = run_digest(deps(world, notifier(slack_sink), io.StringIO()), DigestOptions())
    assert result.posted, slack_sink.refused
    [post] = slack_sink.posts
    assert blocks.problems(post["blocks"], post["text"]) == []
    assert len(post["blocks"]) <= 50
    assert all(len(b["text"]["text"]) <= 3000 for b in post["blocks"] if b["type"] == "section")
    sections = [b["text"]["text"] for b in post["blocks"] if b["type"] == "section"]
    new = next(text for text in sections if text.startswith("*New rules* (500)"))
    assert "…and 490 more: <https://github.com/example/kb/tree/main/knowledge|see them all>" in new
    assert "&lt;angle&gt; &amp; ampersands" in new  # escaped, so Slack shows them as text
    queue = next(text for text in sections if text.startswith("*Review queue* (80)"))
    assert "…and 70 more: <https://github.com/example/kb/pulls|see them all>" in queue
    assert post["text"].startswith(
        "Homeostat digest for example/kb, 2026-11-30 to 2026-12-07: 500 new rules, "
    )


def test_blocks_fit_cuts_any_message_to_slacks_limits() -> None:
    raw: list[dict[str, object]] = [{"type": "header", "text": {"type": "plain_text", "text": "h" * 400}}]
    raw += [{"type": "section", "text": {"type": "mrkdwn", "text": "x" * 5000}} for _ in range(80)]
    assert len(blocks.problems(raw, "")) == 83  # too many blocks, 81 texts too long, no fallback
    fitted = blocks.fit(raw)
    assert blocks.problems(fitted, "fallback") == []
    assert len(fitted) == 50 and "…and 32 more blocks" in fitted[-1]["elements"][0]["text"]  # type: ignore[index]


def test_a_week_with_nothing_new_says_so_in_one_line(tmp_path: Path, slack_sink) -> None:  # type: ignore[no-untyped-def]
    world = DigestWorld(tmp_path, now=NOW)
    result = run_digest(deps(world, notifier(slack_sink), io.StringIO()), DigestOptions())
    [post] = slack_sink.posts
    line = "Homeostat digest for example/kb: nothing new from 2026-11-30 to 2026-12-07."
    assert post["text"] == line
    assert post["blocks"] == [{"type": "section", "text": {"type": "mrkdwn", "text": line}}]
    assert result.digest.empty


def test_the_next_digest_starts_where_the_last_posted_one_ended(tmp_path: Path, slack_sink) -> None:  # type: ignore[no-untyped-def]
    world = small_world(tmp_path)
    run_digest(deps(world, notifier(slack_sink), io.StringIO()), DigestOptions())
    state = parse_state(world.state_files(), None)
    [record] = state.digests.values()
    assert record.posted and record.since == NOW - dt.timedelta(days=7) and record.until == NOW
    assert record.counts["new-rules"] == 2

    world.now = NOW + dt.timedelta(days=7, minutes=-40)  # next week's scheduled run, started late
    later = run_digest(deps(world, notifier(slack_sink), io.StringIO()), DigestOptions())
    assert later.posted and later.digest.since == NOW
    assert later.digest.counts["new-rules"] == 0  # the week's rules were in the last digest
    assert later.digest.counts["review-queue"] == 2  # still waiting: shown again
    assert len(parse_state(world.state_files(), None).digests) == 2
    assert len(slack_sink.posts) == 2


def test_a_second_run_in_the_same_week_posts_nothing(tmp_path: Path, slack_sink) -> None:  # type: ignore[no-untyped-def]
    world = small_world(tmp_path)
    assert run_digest(deps(world, notifier(slack_sink), io.StringIO()), DigestOptions()).posted
    recorded = world.state_files()

    world.now = NOW + dt.timedelta(days=3)
    out = io.StringIO()
    again = run_digest(deps(world, notifier(slack_sink), out), DigestOptions())
    assert not again.posted and len(slack_sink.posts) == 1
    assert (
        again.skipped
        == "this week's digest (2026-11-30 08:00 to 2026-12-07 08:00 UTC) was already posted to Slack"
    )
    assert f"digest: {again.skipped}; nothing posted (`--since DATE` posts another)" in out.getvalue()
    assert world.state_files() == recorded  # and nothing recorded: next week starts where the post ended

    forced = run_digest(deps(world, notifier(slack_sink), io.StringIO()), DigestOptions(since=NOW))
    assert forced.posted and len(slack_sink.posts) == 2  # asked for by hand: posted


@pytest.mark.parametrize("point", ["digest-before-post", "digest-after-post"])
def test_a_run_killed_while_posting_is_not_posted_again_and_next_week_covers_it(
    tmp_path: Path, slack_sink, point: str
) -> None:  # type: ignore[no-untyped-def]
    world = small_world(tmp_path, now=dt.datetime.now(dt.UTC))
    killed = spawn_digest(world, slack_sink, point)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert len(slack_sink.posts) == (1 if point == "digest-after-post" else 0)
    [stopped] = parse_state(world.state_files(), None).digests.values()
    assert stopped.sending and not stopped.posted

    out = io.StringIO()
    rerun = run_digest(deps(world, notifier(slack_sink), out), DigestOptions())
    assert not rerun.posted and len(slack_sink.posts) == (1 if point == "digest-after-post" else 0)
    assert [n.kind for n in rerun.notices] == ["digest-unconfirmed"]
    assert "so it may not have; next week's digest covers those days too" in out.getvalue()

    world.now += dt.timedelta(days=7)
    next_week = run_digest(deps(world, notifier(slack_sink), io.StringIO()), DigestOptions())
    assert next_week.posted and next_week.digest.since == stopped.since  # the stopped week again
    assert next_week.digest.counts["new-rules"] == 2


def test_runs_at_once_post_one_digest(tmp_path: Path, slack_sink) -> None:  # type: ignore[no-untyped-def]
    from digestworld import git

    world = small_world(tmp_path, now=dt.datetime.now(dt.UTC))
    checkouts = [tmp_path / f"job-{n}" for n in range(3)]  # three CI jobs, each its own checkout
    for checkout in checkouts:
        git(tmp_path, "clone", "--quiet", world.origin.as_uri(), str(checkout))
    runs = [spawn_digest(world, slack_sink, wait=False, kb=checkout) for checkout in checkouts]
    for run in runs:
        assert run.wait(timeout=120) == 0, run.stderr.read() if run.stderr else ""
    assert len(slack_sink.posts) == 1
    records = parse_state(world.state_files(), None).digests.values()
    # one posted; a run that started after it records nothing, one that raced it records why it did not post
    assert [r for r in records if r.posted] and not any(r.sending for r in records)
    assert all(r.posted or [n.kind for n in r.notices] == ["digest-already-posted"] for r in records), [
        (r.posted, r.sending, [n.message for n in r.notices]) for r in records
    ]


def spawn_digest(world: DigestWorld, sink, point: str = "", *, wait: bool = True, kb: Path | None = None):  # type: ignore[no-untyped-def]
    """`homeostat digest` as its own process (under tests/killpoint.py when `point` is given)."""
    env = {**os.environ, "HOMEOSTAT_SLACK_WEBHOOK": sink.url}
    script = [str(KILLPOINT), point] if point else ["-m", "homeostat"]
    argv = [sys.executable, *script, "digest", "--kb", str(kb or world.work)]
    if wait:
        return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120, check=False)
    return subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def test_a_passing_slack_failure_is_retried_and_posted_once(tmp_path: Path, slack_sink) -> None:  # type: ignore[no-untyped-def]
    world = small_world(tmp_path)
    slack_sink.fail_next(503)
    quick = SlackNotifier(
        slack_sink.url, "HOMEOSTAT_SLACK_WEBHOOK", retry=RetryPolicy(attempts=3, base_delay=0.01)
    )
    result = run_digest(deps(world, quick, io.StringIO()), DigestOptions())
    assert result.posted and len(slack_sink.posts) == 1
    assert [status for _path, status in slack_sink.attempts] == [503, 200]


def test_print_shows_the_blocks_text_and_posts_and_records_nothing(tmp_path: Path, slack_sink) -> None:  # type: ignore[no-untyped-def]
    world = small_world(tmp_path)
    before = world.state_files()
    out = io.StringIO()
    run_digest(deps(world, notifier(slack_sink), out), DigestOptions(print_only=True))
    assert slack_sink.posts == [] and slack_sink.attempts == []
    assert world.state_files() == before
    text = out.getvalue()
    assert text.startswith(
        "Homeostat digest: example/kb\n\nFrom 2026-11-30 to 2026-12-07\n\n*New rules* (2)\n"
    )
    assert "Use RefundPolicy.allows before posting" in text and ":warning: *overdue*" in text


def test_an_unset_slack_variable_is_printed_and_recorded_as_a_notice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    world = small_world(tmp_path)
    from homeostat.cli import main

    assert main(["digest", "--kb", str(world.work)]) == 0
    out = capsys.readouterr().out
    assert "notice: HOMEOSTAT_SLACK_WEBHOOK is not set, so the digest was not posted to Slack" in out
    assert "*New rules* (2)" in out  # the week is in the log, at least
    [record] = parse_state(world.state_files(), None).digests.values()
    assert not record.posted and [n.kind for n in record.notices] == ["slack-unset"]


def test_slack_refusing_the_post_fails_the_run_and_a_rerun_posts_it(
    tmp_path: Path, slack_sink, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:  # type: ignore[no-untyped-def]
    world = small_world(tmp_path, now=dt.datetime.now(dt.UTC))
    monkeypatch.setenv("HOMEOSTAT_SLACK_WEBHOOK", slack_sink.origin + "/services/revoked")
    from homeostat.cli import main

    assert main(["digest", "--kb", str(world.work)]) == 1
    err = stderr_errors(capsys.readouterr().err)
    assert err.strip() == (
        "homeostat: Slack refused the post (404 no_service): check the webhook URL in HOMEOSTAT_SLACK_WEBHOOK"
    )
    [record] = parse_state(world.state_files(), None).digests.values()
    assert not record.posted and not record.sending and [n.kind for n in record.notices] == ["slack-failed"]

    monkeypatch.setenv("HOMEOSTAT_SLACK_WEBHOOK", slack_sink.url)  # the webhook fixed
    assert main(["digest", "--kb", str(world.work)]) == 0
    [post] = slack_sink.posts
    assert "*New rules* (2)" in json.dumps(post)


def test_the_cli_posts_and_reports_json(
    tmp_path: Path, slack_sink, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:  # type: ignore[no-untyped-def]
    world = small_world(tmp_path, now=dt.datetime.now(dt.UTC))
    monkeypatch.setenv("HOMEOSTAT_SLACK_WEBHOOK", slack_sink.url)
    from homeostat.cli import main

    assert main(["digest", "--kb", str(world.work), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["posted"] and report["recorded"]
    assert report["counts"]["new-rules"] == 2 and report["counts"]["overdue"] == 1
    assert len(slack_sink.posts) == 1


def test_print_json_has_the_documented_keys_and_posts_nothing(
    tmp_path: Path, slack_sink, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:  # type: ignore[no-untyped-def]
    world = small_world(tmp_path, now=dt.datetime.now(dt.UTC))
    monkeypatch.setenv("HOMEOSTAT_SLACK_WEBHOOK", slack_sink.url)
    before = world.state_files()
    from homeostat.cli import main

    assert main(["digest", "--kb", str(world.work), "--print", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)  # the shape docs/cli.md promises
    assert set(report) == {
        "since", "until", "posted", "recorded", "skipped", "counts", "summary", "text", "blocks", "notices",
    }  # fmt: skip
    assert report["posted"] is False and report["recorded"] is False and report["blocks"]
    assert "*New rules* (2)" in report["text"]
    assert slack_sink.posts == [] and world.state_files() == before


def test_an_unset_slack_variable_is_a_json_notice_with_a_kind_and_a_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    world = small_world(tmp_path, now=dt.datetime.now(dt.UTC))
    from homeostat.cli import main

    assert main(["digest", "--kb", str(world.work), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    [notice] = report["notices"]
    assert set(notice) == {"kind", "message"} and notice["kind"] == "slack-unset"


def test_since_sets_the_window(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    world = small_world(tmp_path, now=dt.datetime.now(dt.UTC))
    from homeostat.cli import main

    assert main(["digest", "--kb", str(world.work), "--print", "--since", "2020-01-01"]) == 0
    out = capsys.readouterr().out
    assert "From 2020-01-01 to" in out
    assert "*New rules* (" in out  # everything since the KB began
    assert main(["digest", "--kb", str(world.work), "--print", "--since", "last week"]) == 2
    assert "--since 'last week' is not a date" in capsys.readouterr().err


def test_digest_records_round_trip_and_two_on_one_day_are_both_kept() -> None:
    from homeostat.core.state.branch import (
        DigestRecord,
        digest_path,
        dump_state,
        merge_state_files,
        parse_state_file,
    )

    first = DigestRecord(
        run_id="a", since=NOW - dt.timedelta(days=7), until=NOW, counts={"new-rules": 3}, posted=True
    )
    second = first.model_copy(update={"run_id": "b", "posted": False})
    path = digest_path(first)
    assert path == "digests/2026-12-07.json"
    assert parse_state_file(path, dump_state(first)) == first
    merged = merge_state_files({path: dump_state(first)}, {path: dump_state(second)})
    assert sorted(merged) == ["digests/2026-12-07-2.json", "digests/2026-12-07.json"]
    assert merge_state_files(merged, {path: dump_state(second)}) == merged  # a rerun adds nothing
    with pytest.raises(ValueError, match="until is before since"):
        DigestRecord(run_id="c", since=NOW, until=NOW - dt.timedelta(days=1), posted=True)


def test_a_shallow_ci_clone_gets_the_history_it_needs(tmp_path: Path) -> None:
    """Bitbucket clones 50 commits deep by default, a checkout 1: the window's start must not be cut off,
    or every rule would read as new."""
    from digestworld import git

    world = small_world(tmp_path)
    shallow = tmp_path / "shallow"
    git(tmp_path, "clone", "--quiet", "--depth", "1", world.origin.as_uri(), str(shallow))
    world.work = shallow
    result = run_digest(deps(world, None, io.StringIO()), DigestOptions(print_only=True))
    assert result.digest.counts["new-rules"] == 2
    assert git(shallow, "rev-parse", "--is-shallow-repository") == "false"
