"""Our glob translation agrees with wcmatch (GLOBSTAR, BRACE, DOTGLOB) on every shape it handles."""

from __future__ import annotations

import itertools

import pytest
from wcmatch import glob as wcglob

from homeostat.core.globs import compile_glob, glob_regex

FLAGS = wcglob.GLOBSTAR | wcglob.BRACE | wcglob.DOTGLOB | wcglob.NEGATE | wcglob.EXTGLOB
GLOBS = [
    "**",
    "*",
    "*.md",
    "**/*.py",
    "src/**",
    "src/*",
    "src/**/*.ts",
    "a/**/b",
    "a/**/**/b",
    "a//b",
    "a/**b",
    "a/b**",
    "a/?.py",
    "{a,b}/**",
    "a/{x,y}.py",
    "a/*.{ts,tsx}",
    "a/{b}.py",
    "**/test_*",
    "app/components/**/*.tsx",
    "migrations/**",
    "src/api/**/*.py",
    "web/routes/legacy/**",
    "a/**/",
    ".github/**",
    "a.b/c*d/**/e?f",
    "x/{y,{z,w}}/*.py",
    "a/b/c.py",
    "docs/**/README.md",
]
PATHS = [
    "a",
    "a/b",
    "a/x/b",
    "a/x/y/b",
    "a.py",
    "x/.a.py",
    ".x/y",
    "x/a.md",
    "a.md",
    "src/a",
    "src/a/b",
    "src/a.ts",
    "src/x/y/z.ts",
    "a/xb",
    "a/x/b/",
    "a/bc/d",
    "a/b.py",
    "a/bb.py",
    "b/c",
    "a/y.py",
    "a/b.tsx",
    "a/b/test_x",
    "app/components/ui/Button.tsx",
    "app/components/Button.tsx",
    "migrations/001.sql",
    "src/api/v1/x.py",
    "web/routes/legacy/home.tsx",
    "a/b/",
    ".github/workflows/ci.yml",
    "a.b/cXd/e1f",
    "a.b/cd/q/r/eZf",
    "x/z/a.py",
    "x/w/b.py",
    "x/y/c.py",
    "x/q/d.py",
    "a/b/c.py",
    "docs/README.md",
    "docs/x/README.md",
    "a/{b}.py",
]


@pytest.mark.parametrize("glob", GLOBS)
def test_translated_globs_match_exactly_what_wcmatch_matches(glob: str) -> None:
    assert glob_regex(glob) is not None, f"{glob} should be translated, not left to wcmatch"
    ours = compile_glob(glob)
    for path in PATHS:
        expected = wcglob.globmatch(path, glob, flags=FLAGS)
        assert bool(ours.match(path)) == expected, f"{glob!r} on {path!r}: wcmatch says {expected}"


@pytest.mark.parametrize("glob", ["src/[ab]*.py", "!(*.md)", "a/@(x|y).py", "a\\*b"])
def test_other_shapes_are_left_to_wcmatch(glob: str) -> None:
    assert glob_regex(glob) is None
    ours = compile_glob(glob)
    for path in ["src/a1.py", "src/c.py", "x.md", "x.py", "a/x.py", "a/z.py", "a*b"]:
        assert bool(ours.match(path)) == wcglob.globmatch(path, glob, flags=FLAGS)


def test_every_pair_of_segments_agrees() -> None:
    pieces = ["**", "*", "a", "a*", "*.py", "?", "{a,b}"]
    for first, second in itertools.product(pieces, repeat=2):
        glob = f"{first}/{second}"
        ours = compile_glob(glob)
        for path in ["a", "a/a", "a/b.py", "b/a/a.py", "ab/a", "a/b/c", ".a/b", "a/.b"]:
            assert bool(ours.match(path)) == wcglob.globmatch(path, glob, flags=FLAGS), (glob, path)
