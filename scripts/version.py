#!/usr/bin/env python3
"""One exact Homeostat version everywhere: check it, set it, and pin a release's image digest.

    python scripts/version.py check               # every version site agrees with homeostat.VERSION
    python scripts/version.py set 0.3.0           # rewrite every site to 0.3.0
    python scripts/version.py pin-digest sha256:… # a release commit: the actions run that exact image

A version site is found by its shape in every tracked text file, not by a list of files, so a new
file that names the version (the Claude Code plugin's manifest, a workflow template `init` writes, a
doc) is checked and set with no change here (tests/ is left out: tests hold other versions as
inputs on purpose): the image reference `ghcr.io/homeostat/homeostat:X`,
an action reference `homeostat/<repo>[/path]@vX`, a pip pin `homeostat-kb==X`, a `"version": "X"` in
a plugin.json or marketplace.json, an install folder `homeostat/versions/X`, an action's `version` input default, and the package's own
`VERSION`, `pyproject.toml` version and the Dockerfile's `ARG HOMEOSTAT_VERSION`. A site of another
shape is added to SITES below.

`check` also fails on a floating reference: a `homeostat>=`-style range, a moving `@v0.2` tag anywhere
but prose (Markdown may say what the moving tag is), or a dependency in pyproject.toml that is not
pinned with `==`. Run from anywhere; `--root` points at another checkout (the tests use a copy).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DISTRIBUTION = "homeostat-kb"  # on PyPI; the import name and the command stay `homeostat`
IMAGE = "ghcr.io/homeostat/homeostat"
VER = r"[0-9]+\.[0-9]+(?:\.[0-9]+)?(?:[-.+]?[A-Za-z0-9]+)*"
DIGEST = r"@sha256:[0-9a-f]{64}"
SKIP_PARTS = {".git", ".venv", "node_modules", "__pycache__", "build", "dist"}
# Tests hold other versions on purpose, as inputs (a KB pinned to an older release, say).
SKIP_TOP = {"tests"}
SKIP_SUFFIXES = {".lock", ".png", ".jpg", ".svg", ".db", ".gz", ".whl", ".pyc"}


@dataclass(frozen=True)
class Site:
    """A shape a version takes: `pattern`'s group `v` is the version, in files `applies` accepts."""

    name: str
    pattern: re.Pattern[str]
    applies: Callable[[str], bool] = lambda rel: True


def _named(*names: str) -> Callable[[str], bool]:
    return lambda rel: rel.rsplit("/", 1)[-1] in names


SITES = (
    Site("image tag", re.compile(rf"{re.escape(IMAGE)}:(?P<v>{VER})")),
    Site("action ref", re.compile(rf"\bhomeostat/[\w.-]+(?:/[\w./-]*[\w-])?@v(?P<v>{VER})")),
    Site("pip pin", re.compile(rf"\b(?:{re.escape(DISTRIBUTION)}|homeostat)(?:\[[\w,]+\])?==(?P<v>{VER})")),
    Site("SHA pin comment", re.compile(rf"\bhomeostat/[\w./-]+@[0-9a-f]{{40}}\s+#\s*v(?P<v>{VER})")),
    Site("install folder", re.compile(rf"homeostat/versions/(?P<v>{VER})\b")),
    Site(
        "plugin manifest",
        re.compile(rf'"version"\s*:\s*"(?P<v>{VER})"'),
        _named("plugin.json", "marketplace.json"),
    ),
    Site(
        "action version input",
        re.compile(rf'(?m)^  version:\n(?:    .*\n)*?    default: "?(?P<v>{VER})'),
        _named("action.yml"),
    ),
    Site(
        "package VERSION",
        re.compile(rf'(?m)^VERSION = "(?P<v>{VER})"'),
        lambda rel: rel == "homeostat/__init__.py",
    ),
    Site(
        "pyproject version",
        re.compile(rf'(?m)^version = "(?P<v>{VER})"'),
        lambda rel: rel == "pyproject.toml",
    ),
    Site("image label", re.compile(rf"(?m)^ARG HOMEOSTAT_VERSION=(?P<v>{VER})"), _named("Dockerfile")),
)
# `pip install homeostat` installs somebody else's project: the distribution is homeostat-kb.
WRONG_NAME = re.compile(r"pip install (?:-U |--upgrade )?['\"]?homeostat(?=[\[=\s'\"]|$)", re.MULTILINE)
FLOATING = re.compile(rf"\b(?:{re.escape(DISTRIBUTION)}|homeostat)(?:\[[\w,]+\])?\s*(?:>=|~=|>|\^)\s*{VER}")


def tracked_files(root: Path) -> Iterator[tuple[str, Path]]:
    """Every text file git tracks (or, outside a git checkout, every file), as (relative path, path)."""
    done = subprocess.run(["git", "-C", str(root), "ls-files", "-z"], capture_output=True, check=False)
    if done.returncode == 0 and done.stdout:
        names = sorted(n for n in done.stdout.decode().split("\0") if n)
    else:
        names = sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())
    for rel in names:
        path = root / rel
        parts = rel.split("/")
        if (
            parts[0] in SKIP_TOP
            or SKIP_PARTS & set(parts)
            or path.suffix in SKIP_SUFFIXES
            or not path.is_file()
        ):
            continue
        yield rel, path


def read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (UnicodeDecodeError, OSError):
        return None


def current_version(root: Path) -> str:
    match = re.search(r'(?m)^VERSION = "([^"]+)"', (root / "homeostat" / "__init__.py").read_text())
    if not match:
        raise SystemExit("version: homeostat/__init__.py has no VERSION line")
    return match.group(1)


def find_sites(root: Path) -> Iterator[tuple[str, int, str, str]]:
    """(file, line, site name, version) for every version site in the checkout."""
    for rel, path in tracked_files(root):
        text = read(path)
        if text is None:
            continue
        for site in SITES:
            if not site.applies(rel):
                continue
            for match in site.pattern.finditer(text):
                line = text.count("\n", 0, match.start("v")) + 1
                yield rel, line, site.name, match.group("v")


def problems(root: Path, version: str | None = None) -> list[str]:
    """Every disagreement with the one version, and every floating reference."""
    version = version or current_version(root)
    moving = ".".join(version.split(".")[:2])
    found: list[str] = []
    for rel, line, name, value in find_sites(root):
        if value == version:
            continue
        if name == "action ref" and value == moving and rel.endswith(".md"):
            continue  # prose may name the moving tag; templates and action files never do
        found.append(f"{rel}:{line}: {name} {value}, not {version}")
    for rel, path in tracked_files(root):
        text = read(path) or ""
        for match in FLOATING.finditer(text):
            found.append(
                f"{rel}:{text.count(chr(10), 0, match.start()) + 1}: floating range {match.group(0)!r}"
            )
        for match in WRONG_NAME.finditer(text):
            found.append(
                f"{rel}:{text.count(chr(10), 0, match.start()) + 1}: the PyPI name is {DISTRIBUTION}"
            )
    found += _unpinned_dependencies(root)
    return found


def _unpinned_dependencies(root: Path) -> list[str]:
    project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    requirements = list(project["project"].get("dependencies", []))
    for extra in project["project"].get("optional-dependencies", {}).values():
        requirements += extra
    requirements += project.get("build-system", {}).get("requires", [])
    return [
        f"pyproject.toml: {req!r} is not pinned with =="
        for req in requirements
        if "==" not in req and not req.startswith(f"{DISTRIBUTION}[")
    ]


def set_version(root: Path, new: str) -> list[str]:
    """Rewrite every version site to `new`; the files changed."""
    if not re.fullmatch(VER, new):
        raise SystemExit(f"version: {new!r} is not a version like 0.3.0")
    changed = []
    for rel, path in tracked_files(root):
        text = read(path)
        if text is None:
            continue
        updated = text
        for site in SITES:
            if site.applies(rel):
                updated = _replace_group(site.pattern, updated, lambda old: _moved(old, new))
        if updated != text:
            path.write_text(updated, encoding="utf-8")
            changed.append(rel)
    return changed


def _moved(old: str, new: str) -> str:
    """A two-part version is the moving tag (`@v0.2` in prose): it becomes the new major.minor."""
    return ".".join(new.split(".")[:2]) if old.count(".") == 1 else new


def _replace_group(pattern: re.Pattern[str], text: str, change: Callable[[str], str]) -> str:
    def swap(match: re.Match[str]) -> str:
        start, end = match.span("v")
        return (
            match.group(0)[: start - match.start()]
            + change(match.group("v"))
            + match.group(0)[end - match.start() :]
        )

    return pattern.sub(swap, text)


# Where a release pins the image digest: each action's version default, and each image reference in
# the Bitbucket pipe files and template. Prose keeps the tag, which is what a reader types.
DIGEST_FILES = re.compile(
    r"^(action\.yml|actions/[^/]+/action\.yml|actions/[^/]+/pipe\.yml|workflows/bitbucket/.+\.yml)$"
)


def pin_digest(root: Path, digest: str) -> list[str]:
    """The release commit: every action and pipe runs `IMAGE:VERSION@digest`; the files changed."""
    if not re.fullmatch(r"sha256:[0-9a-f]{64}", digest):
        raise SystemExit(f"version: {digest!r} is not an image digest like sha256:<64 hex digits>")
    version = current_version(root)
    tag = rf"(?P<keep>{re.escape(version)})(?:{DIGEST})?"
    patterns = (
        re.compile(rf'(?m)^(?P<head>  version:\n(?:    .*\n)*?    default: "){tag}(?P<tail>")'),
        re.compile(rf"(?P<head>{re.escape(IMAGE)}:){tag}(?P<tail>)"),
    )
    changed = []
    for rel, path in tracked_files(root):
        if not DIGEST_FILES.match(rel):
            continue
        text = read(path) or ""
        updated = text
        for pattern in patterns:
            updated = pattern.sub(
                lambda m: f"{m.group('head')}{m.group('keep')}@{digest}{m.group('tail')}", updated
            )
        if updated != text:
            path.write_text(updated, encoding="utf-8")
            changed.append(rel)
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout (default: this one)")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("check", help="fail on any version drift or floating reference")
    setter = commands.add_parser("set", help="set the version everywhere")
    setter.add_argument("version")
    pinner = commands.add_parser("pin-digest", help="pin every action and pipe to the released image digest")
    pinner.add_argument("digest")
    args = parser.parse_args(argv)
    if args.command == "check":
        found = problems(args.root)
        for problem in found:
            print(problem, file=sys.stderr)
        return 1 if found else 0
    changed = (
        set_version(args.root, args.version) if args.command == "set" else pin_digest(args.root, args.digest)
    )
    for rel in changed:
        print(rel)
    return 0


if __name__ == "__main__":
    sys.exit(main())
