"""The Homeostat version a KB pins in its CI files: one reader for `doctor`, `init` and the plugin.

`init` pins every action and image to one exact version, so the KB's own CI files say which Homeostat
the team runs; the plugin runs that version on laptops too (`homeostat.adapters.runner`), so a session
and the daily run read the KB the same way, and `doctor` compares it with the running one. This reads
their text, not a setting: action refs (`homeostat/daily@v0.2.0`,
`homeostat/homeostat/actions/daily@v0.2.0`, or a commit SHA followed by its `# v0.2.0` comment), the
`version:` input a step may set on one of those actions, image references
(`ghcr.io/homeostat/homeostat:0.2.0`, with or without a digest) and pip pins (`homeostat==0.2.0`). A
moving ref (`@v0.2`, `@main`, `:latest`, an image with no tag) is a pin too, marked floating, because
"one exact version everywhere" is the promise it breaks.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

GITHUB_WORKFLOWS = ".github/workflows/"
BITBUCKET_PIPELINES = "bitbucket-pipelines.yml"
CI_FILES = (GITHUB_WORKFLOWS.rstrip("/"), BITBUCKET_PIPELINES)  # the folder and the file CI runs from

_EXACT = re.compile(r"^\d+\.\d+\.\d+(?:[-+.]?[0-9A-Za-z][\w.]*)?$")
_SHA = re.compile(r"^[0-9a-f]{40}$")
_USES = re.compile(
    r"^(?P<indent>\s*(?:-\s+)?)uses:\s*[\"']?(?P<ref>homeostat/[\w.-]+(?:/[\w./-]+)?@(?P<at>[\w.-]+))"
    r"[\"']?\s*(?:#\s*(?P<comment>\S+))?"
)
_IMAGE = re.compile(r"ghcr\.io/homeostat/homeostat(?::(?P<tag>[\w.-]+))?(?:@sha256:[0-9a-f]{64})?(?![\w./-])")
_PIP = re.compile(r"\bhomeostat(?:-kb)?==(?P<version>[\w.+-]+)")  # the PyPI name is homeostat-kb
_VERSION_INPUT = re.compile(r"^\s*version:\s*[\"']?(?P<version>[^\"'\s#]+)")


@dataclass(frozen=True)
class Pin:
    """One place a CI file names the Homeostat it runs."""

    file: str
    line: int
    ref: str  # as written, e.g. homeostat/homeostat/actions/daily@v0.2.0
    version: str  # the exact version it names; "" when it names none
    floating: bool  # a ref that moves (a branch, a major or minor tag, latest, no tag)

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"


def is_ci_file(path: str) -> bool:
    """The files CI runs from: GitHub workflows and the Bitbucket pipeline definition."""
    return (
        path.startswith(GITHUB_WORKFLOWS) and path.endswith((".yml", ".yaml"))
    ) or path == BITBUCKET_PIPELINES


def exact_version(text: str) -> str:
    """`0.2.0` from `0.2.0` or `v0.2.0`; "" for anything that is not one exact release."""
    candidate = text[1:] if text.startswith("v") else text
    return candidate if _EXACT.match(candidate) else ""


def find_pins(files: Mapping[str, str]) -> list[Pin]:
    """Every Homeostat pin in the CI files among `files` (path → text), in file and line order."""
    pins: list[Pin] = []
    for path in sorted(files):
        if is_ci_file(path):
            pins += _pins_in(path, files[path])
    return pins


def _pins_in(path: str, text: str) -> list[Pin]:
    lines = text.splitlines()
    pins: list[Pin] = []
    for number, line in enumerate(lines, start=1):
        code = line.split(" #", 1)[0] if not line.lstrip().startswith("#") else ""
        uses = _USES.match(line)
        if uses and code:
            pins.append(_action_pin(path, number, uses))
            pins += _version_inputs(path, lines, number, len(uses.group("indent")))
            continue
        for image in _IMAGE.finditer(code):
            tag = image.group("tag") or ""
            version = exact_version(tag)
            pins.append(Pin(path, number, image.group(0), version, floating=not version))
        for pip in _PIP.finditer(code):
            version = exact_version(pip.group("version"))
            pins.append(Pin(path, number, pip.group(0), version, floating=not version))
    return pins


def _action_pin(path: str, number: int, uses: re.Match[str]) -> Pin:
    at, comment = uses.group("at"), uses.group("comment") or ""
    if _SHA.match(at):  # pinned by commit: the comment says which release it is
        return Pin(path, number, uses.group("ref"), exact_version(comment), floating=False)
    version = exact_version(at)
    return Pin(path, number, uses.group("ref"), version, floating=not version)


def _version_inputs(path: str, lines: list[str], number: int, key_column: int) -> list[Pin]:
    """A `version:` input in the same step (under its `with:`) overrides the image the action runs.
    The step ends at the first line indented less than its `uses:` key."""
    found: list[Pin] = []
    for offset, line in enumerate(lines[number:], start=number + 1):
        stripped = line.lstrip()
        if not stripped or stripped.startswith("#"):
            continue
        indent = len(line) - len(stripped)
        if indent < key_column:
            break
        match = _VERSION_INPUT.match(line)
        if match and indent > key_column:
            version = exact_version(match.group("version"))
            found.append(Pin(path, offset, f"version: {match.group('version')}", version, not version))
    return found


def pinned_version(files: Mapping[str, str]) -> str | None:
    """The one exact version the CI files among `files` pin, or None when they pin none or disagree
    (then nothing is pinned for sure, and the caller runs its own version). Moving refs name no
    version and are left out here; `doctor` reports them."""
    versions = {pin.version for pin in find_pins(files) if pin.version}
    return versions.pop() if len(versions) == 1 else None


def is_version(text: str) -> bool:
    """Whether `text` is one exact release (`0.2.0`, `0.3.0rc1`), as a versions folder is named."""
    return bool(_EXACT.match(text))
