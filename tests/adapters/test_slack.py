"""The morning review-queue message (pure) and the Slack webhook notifier over the local sink."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta

import pytest
from emulators.slack_sink import SlackSink

from homeostat.adapters.hosts.http_retry import RetryPolicy
from homeostat.adapters.slack import SlackNotifier, slack_notifier_from_env
from homeostat.core.config import NotificationsConfig
from homeostat.core.notify import NotifyError, QueueItem, SlackMessage, queue_items, review_queue_message
from homeostat.core.state.branch import DecisionRecord, LessonSource, PullRef
from homeostat.errors import ConfigError

NOW = datetime(2026, 11, 20, 6, 30, tzinfo=UTC)
RUN_START = datetime(2026, 11, 20, 6, 0, tzinfo=UTC)
PR_CY = "https://github.com/acme/kb/pull/31"
PR_ANA = "https://github.com/acme/kb/pull/27"
VARIABLE = "HOMEOSTAT_SLACK_WEBHOOK"


def item(title: str, url: str, opened: datetime, member: str = "cy", **extra: object) -> QueueItem:
    number = int(url.rsplit("/", 1)[1])
    return QueueItem(title=title, member=member, pr_url=url, opened_at=opened, pr_number=number, **extra)  # type: ignore[arg-type]


# --- the message ----------------------------------------------------------------------------------


def test_new_lessons_grouped_by_review_pr_and_overdue_ones_repeated() -> None:
    items = [
        item("Use a cursor for invoice lists", PR_CY, RUN_START + timedelta(minutes=5), area="billing/api"),
        item("Retry webhooks with jitter", PR_CY, RUN_START + timedelta(minutes=5), kind="update"),
        item("Sort imports", PR_ANA, NOW - timedelta(days=1), member="ana"),  # waiting, not overdue yet
        item("Money is Decimal", PR_ANA, NOW - timedelta(days=4, hours=2), member="ana"),
        item("Never edit generated code", PR_ANA, NOW - timedelta(days=3), member="ana", kind="flag"),
    ]

    message = review_queue_message(
        items, now=NOW, opened_since=RUN_START, overdue_days=2, reviewers=("ana", "bo"), kb_name="acme/kb"
    )

    assert message is not None
    assert message.text.splitlines() == [
        "*Homeostat review queue* (acme/kb): 5 lessons wait in 2 review PRs",
        "Reviewers: @ana, @bo",
        "",
        "*New in review*",
        f"• <{PR_CY}|review PR #31> for cy",
        "    – Use a cursor for invoice lists (billing/api)",
        "    – update: Retry webhooks with jitter",
        "",
        "*Waiting more than 2 days*",
        f"• Money is Decimal, waiting 4 days in <{PR_ANA}|review PR #27>",
        f"• flag: Never edit generated code, waiting 3 days in <{PR_ANA}|review PR #27>",
    ]


def test_nothing_new_and_nothing_overdue_posts_nothing() -> None:
    waiting = [item("Sort imports", PR_ANA, NOW - timedelta(days=1))]
    assert review_queue_message(waiting, now=NOW, opened_since=RUN_START, overdue_days=2) is None
    assert review_queue_message([], now=NOW, opened_since=RUN_START, overdue_days=2) is None
    repeated = review_queue_message(waiting, now=NOW, opened_since=RUN_START, overdue_days=0)
    assert repeated is not None and "waiting 1 day in" in repeated.text


def test_titles_are_escaped_and_any_script_kept() -> None:
    items = [item("Use <Money> & never float | 金額は Decimal で", PR_CY, RUN_START)]

    message = review_queue_message(items, now=NOW, opened_since=RUN_START, overdue_days=2)

    assert message is not None
    assert "    – Use &lt;Money&gt; &amp; never float | 金額は Decimal で" in message.text.splitlines()
    assert message.payload() == {"text": message.text, "unfurl_links": False, "unfurl_media": False}


def test_long_queues_are_cut_with_a_count() -> None:
    items = [item(f"Lesson {n}", PR_CY, RUN_START) for n in range(60)]

    message = review_queue_message(items, now=NOW, opened_since=RUN_START, overdue_days=2)

    assert message is not None
    lines = message.text.splitlines()
    assert lines[-1] == "…and 21 more lines in the review PRs"
    assert lines[0] == "*Homeostat review queue*: 60 lessons wait in 1 review PR"


def test_queue_items_come_from_decisions_still_in_review() -> None:
    def record(hash_: str, state: str, pr: PullRef | None, opened: datetime | None) -> DecisionRecord:
        settled = NOW if state == "settled" else None
        return DecisionRecord(
            hash=hash_,
            member="cy",
            kind="new",
            title=f"Lesson {hash_}",
            area="billing/api",
            source=LessonSource(type="pr-feedback"),
            outcome="review",
            state=state,  # type: ignore[arg-type]
            confidence=55,
            pr=pr,
            review_opened_at=opened,
            settled_at=settled,
            at=NOW - timedelta(days=5),
        )

    pr = PullRef(number=31, url=PR_CY, branch="homeostat/review-cy-2026-11-17")
    records = [
        record("a1", "in-review", pr, NOW - timedelta(days=3)),
        record("b2", "settled", pr, NOW - timedelta(days=3)),
        record("c3", "in-review", None, None),
        record("d4", "in-review", pr, None),
    ]

    assert queue_items(records) == [
        QueueItem("Lesson a1", "cy", PR_CY, NOW - timedelta(days=3), 31, "new", "billing/api"),
        QueueItem("Lesson d4", "cy", PR_CY, NOW - timedelta(days=5), 31, "new", "billing/api"),
    ]


# --- posting --------------------------------------------------------------------------------------


def fast(waits: list[float]) -> RetryPolicy:
    return RetryPolicy(attempts=3, base_delay=0.01, max_delay=5.0, max_total_wait=10.0, sleep=waits.append)


def notifier(sink: SlackSink, waits: list[float] | None = None) -> SlackNotifier:
    made = slack_notifier_from_env(
        NotificationsConfig(), {VARIABLE: sink.url}, retry=fast(waits if waits is not None else [])
    )
    assert isinstance(made, SlackNotifier)
    return made


def test_posts_the_message_as_json(slack_sink: SlackSink) -> None:
    message = SlackMessage("*Homeostat review queue*: 1 lesson waits in 1 review PR\n金額")

    notifier(slack_sink).post(message)

    notifier(slack_sink).post("plain *mrkdwn* text")

    assert slack_sink.posts == [message.payload(), SlackMessage("plain *mrkdwn* text").payload()]


def test_passing_failures_are_retried_within_bounds(
    slack_sink: SlackSink, caplog: pytest.LogCaptureFixture
) -> None:
    slack_sink.fail_next(503)
    slack_sink.fail_next(429, retry_after="2")
    waits: list[float] = []

    with caplog.at_level(logging.WARNING):
        notifier(slack_sink, waits).post(SlackMessage("hello"))

    assert [status for _, status in slack_sink.attempts] == [503, 429, 200]
    assert waits == [0.01, 2.0]
    assert len(slack_sink.posts) == 1
    assert slack_sink.path not in caplog.text and "HOMEOSTAT_SLACK_WEBHOOK" in caplog.text


def test_a_server_that_keeps_failing_is_an_error_naming_the_variable(slack_sink: SlackSink) -> None:
    slack_sink.fail_next(500, times=5)

    with pytest.raises(NotifyError) as raised:
        notifier(slack_sink).post(SlackMessage("hello"))

    assert str(raised.value) == (
        "Slack kept failing (server error (500)) after 3 tries; the webhook in HOMEOSTAT_SLACK_WEBHOOK was not "
        "posted to: rerun later"
    )
    assert len(slack_sink.attempts) == 3


@pytest.mark.parametrize(("status", "text"), [(404, "no_service"), (403, "action_prohibited")])
def test_a_refusal_is_final_and_never_shows_the_url(slack_sink: SlackSink, status: int, text: str) -> None:
    if status == 404:
        made = slack_notifier_from_env(
            NotificationsConfig(), {VARIABLE: slack_sink.origin + "/services/revoked"}
        )
        assert isinstance(made, SlackNotifier)
        target = made
    else:
        slack_sink.fail_next(status, text=text)
        target = notifier(slack_sink)

    with pytest.raises(NotifyError) as raised:
        target.post(SlackMessage("hello"))

    assert (
        str(raised.value) == f"Slack refused the post ({status} {text}): check the webhook URL in {VARIABLE}"
    )
    assert len(slack_sink.attempts) == 1
    assert "services" not in repr(target) and "127.0.0.1" not in str(raised.value)


def test_no_listener_is_an_error_after_the_tries() -> None:
    made = slack_notifier_from_env(
        NotificationsConfig(), {VARIABLE: "http://127.0.0.1:9/services/x"}, retry=fast([])
    )
    assert isinstance(made, SlackNotifier)

    with pytest.raises(NotifyError) as raised:
        made.post(SlackMessage("hello"))

    assert str(raised.value).startswith("could not reach Slack (")
    assert str(raised.value).endswith(
        "after 3 tries; the webhook in HOMEOSTAT_SLACK_WEBHOOK was not posted to: rerun later"
    )
    assert "/services/x" not in str(raised.value)


def test_an_unset_variable_is_a_notice_not_a_silent_skip() -> None:
    notice = slack_notifier_from_env(
        NotificationsConfig(slack_webhook_env="TEAM_SLACK_URL"), {"TEAM_SLACK_URL": " "}
    )

    assert notice == (
        "TEAM_SLACK_URL is not set, so the review queue was not posted to Slack: set it to the channel's "
        "incoming-webhook URL (or change notifications.slackWebhookEnv)"
    )


@pytest.mark.parametrize("url", ["http://hooks.example.com/services/x", "ftp://hooks/x", "not a url"])
def test_a_webhook_that_is_not_https_is_refused_without_showing_it(url: str) -> None:
    with pytest.raises(ConfigError) as raised:
        slack_notifier_from_env(NotificationsConfig(), {VARIABLE: url})

    assert str(raised.value) == f"{VARIABLE} is not an https URL: set it to the Slack incoming-webhook URL"
