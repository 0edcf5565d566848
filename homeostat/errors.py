"""One error hierarchy, so the CLI can map every failure to an exit code and a one-line message."""

from __future__ import annotations


class HomeostatError(Exception):
    """A failure a person can act on. The message names the file or setting and the fix."""

    exit_code = 1


class KBReadError(HomeostatError):
    """The KB cannot be read at all (missing folder, missing or broken homeostat.yaml)."""

    exit_code = 2


class ConfigError(HomeostatError):
    """A setting or environment variable is missing or wrong."""

    exit_code = 2


class HostError(HomeostatError):
    """A code host answered in a way the run cannot go on from."""

    exit_code = 1


class RateLimitError(HostError):
    """The host's rate limit outlasted the waits a run allows: nothing was half-done, a rerun goes on."""

    exit_code = 1


class AuthError(HostError):
    """A token is missing, expired or lacks a permission; the message names the variable."""

    exit_code = 2


class GitError(HomeostatError):
    """A git command failed; the message carries git's own first line of stderr."""

    exit_code = 1
