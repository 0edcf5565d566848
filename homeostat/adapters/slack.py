"""Posting to a Slack incoming webhook: the `Notifier` the daily run and the digest use.

The webhook URL is a credential (anyone holding it can post to the channel), so it is read from the
environment variable `notifications.slackWebhookEnv` names and never appears in a log line, an error
or a repr: messages name the variable instead. An unset variable is not an error and not a silent
skip either: `slack_notifier_from_env` returns a notice for the run to print and record. Passing
failures (5xx, 429, no connection) are retried within the shared retry policy's caps; a 4xx is final.
"""

from __future__ import annotations

import json
import logging
import urllib.error
import urllib.request
from collections.abc import Mapping
from email.message import Message
from urllib.parse import urlsplit

from homeostat.adapters.hosts.http_retry import RetriesExhausted, RetryPolicy, Transient, transient_status
from homeostat.core.config import NotificationsConfig
from homeostat.core.notify import Notifier, NotifyError, SlackMessage
from homeostat.errors import ConfigError

_log = logging.getLogger(__name__)

_LOOPBACK = ("127.0.0.1", "localhost", "::1")


class _Answered(Exception):
    """Slack answered with an error status."""

    def __init__(self, status: int, headers: Message, text: str) -> None:
        super().__init__(f"status {status}")
        self.status = status
        self.headers = headers
        self.text = text


class _Unreachable(Exception):
    """No answer at all: the connection failed or timed out."""


class SlackNotifier:
    """Posts one message per call to the webhook in `variable`."""

    def __init__(
        self, url: str, variable: str, *, retry: RetryPolicy | None = None, timeout: float = 10.0
    ) -> None:
        self._url = url
        self.variable = variable
        self.retry = retry or RetryPolicy(attempts=4, base_delay=1.0, max_delay=30.0, max_total_wait=60.0)
        self.timeout = timeout

    def __repr__(self) -> str:
        return f"SlackNotifier(variable={self.variable!r})"

    def post(self, message: SlackMessage | str) -> None:
        """Post one message; plain text is taken as mrkdwn text. Raises `NotifyError` when undelivered."""
        if isinstance(message, str):
            message = SlackMessage(message)
        body = json.dumps(message.payload(), ensure_ascii=False).encode("utf-8")
        try:
            self.retry.run(
                lambda _attempt: self._send(body),
                _classify,
                what=f"posting to Slack ({self.variable})",
                log=_log,
            )
        except RetriesExhausted as gave_up:
            raise NotifyError(self._gave_up(gave_up)) from None
        except _Answered as refused:
            raise NotifyError(
                f"Slack refused the post ({refused.status}{' ' + refused.text if refused.text else ''}): "
                f"check the webhook URL in {self.variable}"
            ) from None

    def _send(self, body: bytes) -> None:
        request = urllib.request.Request(
            self._url, data=body, method="POST", headers={"Content-Type": "application/json; charset=utf-8"}
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:  # noqa: S310 - checked scheme
                response.read()
        except urllib.error.HTTPError as exc:
            text = exc.read(200).decode("utf-8", "replace").strip()
            raise _Answered(exc.code, exc.headers, self._scrub(text)) from None
        except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
            reason = getattr(exc, "reason", exc)
            raise _Unreachable(self._scrub(str(reason))) from None

    def _gave_up(self, gave_up: RetriesExhausted) -> str:
        last = gave_up.last
        if isinstance(last, _Unreachable):
            what = f"could not reach Slack ({last})"
        else:
            what = f"Slack kept failing ({gave_up.transient.reason})"
        when = (
            f"and asked for a {gave_up.asked:.0f} s wait"
            if gave_up.asked
            else f"after {gave_up.attempts} tries"
        )
        return f"{what} {when}; the webhook in {self.variable} was not posted to: rerun later"

    def _scrub(self, text: str) -> str:
        return text.replace(self._url, f"${self.variable}") if self._url else text


def _classify(exc: BaseException) -> Transient | None:
    if isinstance(exc, _Unreachable):
        return Transient("no connection")
    if isinstance(exc, _Answered):
        return transient_status(exc.status, dict(exc.headers.items()))
    return None


def slack_notifier_from_env(
    notifications: NotificationsConfig,
    env: Mapping[str, str],
    *,
    retry: RetryPolicy | None = None,
    what: str = "the review queue",
) -> Notifier | str:
    """The notifier, or a notice saying the variable is unset (for the run to print and record);
    `what` names what was not posted."""
    variable = notifications.slack_webhook_env
    url = env.get(variable, "").strip()
    if not url:
        return (
            f"{variable} is not set, so {what} was not posted to Slack: set it to the channel's "
            "incoming-webhook URL (or change notifications.slackWebhookEnv)"
        )
    parts = urlsplit(url)
    loopback = parts.scheme == "http" and (parts.hostname or "") in _LOOPBACK
    if not parts.netloc or not (parts.scheme == "https" or loopback):
        raise ConfigError(f"{variable} is not an https URL: set it to the Slack incoming-webhook URL")
    return SlackNotifier(url, variable, retry=retry)
