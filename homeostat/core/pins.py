"""The Homeostat version a KB pins in its CI files.

`init` pins every action and image to one exact version (`homeostat/homeostat/actions/daily@v0.2.0`,
`ghcr.io/homeostat/homeostat:0.2.0`), so the KB's own CI files say which Homeostat the team runs; the
plugin runs that version on laptops too, so a session and the daily run read the KB the same way.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

# The monorepo path, or an action's own repository (homeostat/daily@v0.2.0); a SHA pin carries the
# version in its comment (homeostat/daily@<sha> # v0.2.0).
_ACTION = re.compile(
    r"homeostat/(?:homeostat(?:/actions/[\w.-]+)?|validate|daily|deep-dive|digest|review-merge)"
    r"@(?:[0-9a-f]{40}\s+#\s*)?v(\d+\.\d+\.\d+(?:[-+.][\w.]+)?)\b"
)
_IMAGE = re.compile(r"homeostat/homeostat:v?(\d+\.\d+\.\d+(?:[-+.][\w.]+)?)\b")
_VERSION = re.compile(r"^\d+\.\d+\.\d+(?:[-+.][\w.]+)?$")
CI_FILES = (".github/workflows", "bitbucket-pipelines.yml")


def pins_in(text: str) -> list[str]:
    """Every exact version a CI file pins Homeostat's actions or image to, in order."""
    found = [(m.start(), m.group(1)) for m in _ACTION.finditer(text)]
    found += [(m.start(), m.group(1)) for m in _IMAGE.finditer(text)]
    return [version for _, version in sorted(found)]


def pinned_version(files: Mapping[str, str]) -> str | None:
    """The one version the CI files pin, or None when they pin none or disagree (then nothing is pinned
    for sure, and the caller runs its own version)."""
    versions = {version for path in sorted(files) for version in pins_in(files[path])}
    return versions.pop() if len(versions) == 1 else None


def is_version(text: str) -> bool:
    return bool(_VERSION.match(text))
