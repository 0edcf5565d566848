"""A generated CODEOWNERS is current: the PR check fails while it is stale against homeostat.yaml.

`homeostat codeowners` writes the KB repo's CODEOWNERS from the team and its areas, and nothing
else notices when a later change to homeostat.yaml (a new area, a team's new handle) leaves it
behind: the new area's folder then needs nobody's approval. `doctor` and `codeowners --check` say so
when someone runs them; `validate`, the check on every KB pull request, says so on the PR that makes
it stale. Only a file carrying the generated header is compared (a hand-written one is the team's
own), wherever the host reads one from; validate reads the whole repository, so the file is there.
"""

from __future__ import annotations

from collections.abc import Mapping

from homeostat.core.config import Config
from homeostat.core.findings import Finding, error
from homeostat.core.setup.codeowners import HEADER, render_codeowners

CHECK = "codeowners"
# Where GitHub (in its order) and Bitbucket Cloud read CODEOWNERS from.
LOCATIONS = (".github/CODEOWNERS", "CODEOWNERS", "docs/CODEOWNERS", ".bitbucket/CODEOWNERS")
_GENERATED = HEADER.splitlines()[0]


def check_codeowners(files: Mapping[str, str], config: Config) -> list[Finding]:
    found: list[Finding] = []
    for path in LOCATIONS:
        current = files.get(path)
        if current is None or not current.startswith(_GENERATED):
            continue
        wanted = render_codeowners(config, path)
        if current != wanted:
            line = _first_difference(current, wanted)
            found.append(
                error(
                    CHECK,
                    path,
                    line,
                    f"{path} is stale against homeostat.yaml (from line {line}): run homeostat codeowners and commit it",
                )
            )
    return found


def _first_difference(current: str, wanted: str) -> int:
    have, want = current.splitlines(), wanted.splitlines()
    for number, (a, b) in enumerate(zip(have, want, strict=False), start=1):
        if a != b:
            return number
    return min(len(have), len(want)) + 1
