"""Where the tests' files are, named once for every test module whatever folder it sits in.

Test modules live in folders that mirror the package (tests/core/safety/, tests/runs/daily/, …), so a
path worked out from a test file's own place (`Path(__file__).parent / "fixtures"`) breaks when the
file moves; these do not. The shared fixtures are `kb` (kbfactory) and `world` (dailyworld); the git
helper is `gitfixtures.git`.
"""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
FIXTURES = TESTS / "fixtures"
EXAMPLE_KB = REPO / "examples" / "kb"
SHARED = REPO.parent / "shared"  # the team's ../shared; absent from a user's clone
