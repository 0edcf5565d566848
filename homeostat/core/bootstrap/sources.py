"""What bootstrap and seed may read from a code checkout, decided before a file is opened.

Three questions, in this order:

1. `never_read(path)`: is it on the never-read list? Terraform state and variables, env files, keys
   and certificates, credential files, secrets folders and files, and tests. Decided on the path
   alone, so such a file is never opened, not even to look at it.
2. `is_noise(path)`: is it worth nothing to a reader (dependencies, build output, lock files, binary
   formats)? Left out silently.
3. `refuse_content(path, text)`, after reading: a Kubernetes `Secret` manifest, a file holding three
   or more possible secrets, or text that is not text. Its content goes no further.

Everything else is cut to size and redacted (`excerpt`) before any prompt holds it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from homeostat.core.safety.secrets import find_secrets, redact_secrets
from homeostat.core.selection.globs import glob_matches

MAX_FILE_BYTES = 1_000_000  # larger files are never opened
EXCERPT_CHARS = 8_000  # the most of one file a prompt holds
SECRET_LIMIT = 3  # a file with this many possible secrets is never sent

_TEST_DIRS = frozenset(
    {"test", "tests", "__tests__", "spec", "specs", "testdata", "test-data", "e2e", "cypress", "fixtures"}
)
_TEST_FILE = re.compile(
    r"^(?:test_.*\.py|.*_test\.(?:py|go|rb|exs?)|conftest\.py|.*\.(?:test|spec)\.[cm]?[jt]sx?"
    r"|.*_spec\.rb|.*Tests?\.(?:java|kt|cs|scala|swift))$"
)
_SECRET_DIRS = frozenset({"secret", "secrets", ".secrets", ".ssh", ".aws", ".gnupg", ".docker"})
_KEY_SUFFIXES = (
    ".pem",
    ".key",
    ".crt",
    ".cer",
    ".der",
    ".p8",
    ".p12",
    ".pfx",
    ".jks",
    ".keystore",
    ".ppk",
    ".asc",
    ".gpg",
    ".kdbx",
    ".csr",
)
_KEY_NAMES = re.compile(r"^(?:id_(?:rsa|dsa|ecdsa|ed25519)(?:\.pub)?|known_hosts|authorized_keys)$")
_CREDENTIAL_NAMES = re.compile(
    r"^(?:\.npmrc|\.pypirc|\.netrc|\.pgpass|\.git-credentials|\.dockercfg|\.htpasswd|htpasswd"
    r"|credentials(?:\.json|\.ya?ml)?|service-account.*\.json|kubeconfig|.*\.kubeconfig)$"
)
_ENV_NAME = re.compile(r"^(?:\.env(?:\..*)?|.*\.env|\.envrc|\.flaskenv)$")
_TF_STATE = re.compile(r"^.*\.tfstate(?:\..*)?$")
_TF_VARS = re.compile(r"^.*\.tfvars(?:\.json)?$")

_NOISE_DIRS = frozenset(
    {
        ".git",
        "node_modules",
        "vendor",
        "third_party",
        "dist",
        "build",
        "out",
        "target",
        ".venv",
        "venv",
        "__pycache__",
        ".mypy_cache",
        ".pytest_cache",
        ".tox",
        ".next",
        ".terraform",
        "coverage",
        ".idea",
        ".vscode",
    }
)
_NOISE_NAMES = frozenset(
    {
        "package-lock.json",
        "yarn.lock",
        "pnpm-lock.yaml",
        "poetry.lock",
        "Pipfile.lock",
        "Cargo.lock",
        "go.sum",
        "composer.lock",
        "Gemfile.lock",
        "uv.lock",
        ".terraform.lock.hcl",
        ".DS_Store",
    }
)
_NOISE_SUFFIXES = (
    ".lock",
    ".min.js",
    ".min.css",
    ".map",
    ".png",
    ".jpg",
    ".jpeg",
    ".gif",
    ".webp",
    ".ico",
    ".svg",
    ".pdf",
    ".zip",
    ".gz",
    ".tgz",
    ".tar",
    ".bz2",
    ".xz",
    ".7z",
    ".jar",
    ".war",
    ".class",
    ".pyc",
    ".so",
    ".dylib",
    ".dll",
    ".exe",
    ".bin",
    ".woff",
    ".woff2",
    ".ttf",
    ".otf",
    ".eot",
    ".mp3",
    ".mp4",
    ".mov",
    ".wav",
    ".sqlite",
    ".db",
    ".parquet",
    ".pkl",
    ".onnx",
)


def never_read(path: str, exclude: Sequence[str] = ()) -> str | None:
    """Why `path` must never be opened (a few words for the preview), or None when it may be."""
    parts = path.split("/")
    name = parts[-1]
    lowered = name.lower()
    dirs = [part.lower() for part in parts[:-1]]
    if _TF_STATE.match(lowered):
        return "Terraform state"
    if _TF_VARS.match(lowered):
        return "Terraform variables"
    if _ENV_NAME.match(lowered):
        return "env file"
    if lowered.endswith(_KEY_SUFFIXES) or _KEY_NAMES.match(lowered):
        return "key or certificate"
    if _CREDENTIAL_NAMES.match(lowered):
        return "credentials file"
    if any(part in _SECRET_DIRS for part in dirs):
        return "secrets folder"
    if "secret" in lowered:
        return "secrets file"
    if any(part in _TEST_DIRS for part in dirs) or _TEST_FILE.match(name):
        return "test"
    if any(glob_matches(glob, path) for glob in exclude):
        return "excluded by sources.excludePaths"
    return None


def is_noise(path: str) -> bool:
    """Dependencies, build output, lock files and binary formats: nothing a reader learns from."""
    parts = path.split("/")
    name = parts[-1]
    if any(part in _NOISE_DIRS for part in parts[:-1]):
        return True
    return name in _NOISE_NAMES or name.lower().endswith(_NOISE_SUFFIXES)


def readable(paths: Sequence[str], exclude: Sequence[str] = ()) -> tuple[list[str], dict[str, str]]:
    """The paths a picker may choose from, and the never-read ones with why (noise is left out)."""
    allowed: list[str] = []
    refused: dict[str, str] = {}
    for path in paths:
        if is_noise(path):
            continue
        why = never_read(path, exclude)
        if why is None:
            allowed.append(path)
        else:
            refused[path] = why
    return allowed, refused


_SECRET_KIND = re.compile(r"^kind:[ \t]*[\"']?(?:Secret|SealedSecret)[\"']?[ \t]*(?:#.*)?$", re.MULTILINE)


def refuse_content(path: str, text: str) -> str | None:
    """Why a file that was read must go no further, or None."""
    if path.lower().endswith((".yaml", ".yml", ".json")) and _SECRET_KIND.search(text):
        return "Kubernetes Secret manifest"
    found = len(find_secrets(text))
    if found >= SECRET_LIMIT:
        return f"holds {found} possible secrets"
    return None


@dataclass(frozen=True)
class Excerpt:
    """What a prompt holds of one file: at most `EXCERPT_CHARS`, secrets replaced by markers."""

    path: str
    text: str
    redactions: int
    cut: int  # characters left out at the end (0: the whole file)

    def render(self) -> str:
        tail = f"\n[… {self.cut:,} more characters not shown]" if self.cut else ""
        return f'<file path="{self.path}">\n{self.text.rstrip()}{tail}\n</file>'


def excerpt(path: str, text: str, limit: int = EXCERPT_CHARS) -> Excerpt:
    """The first `limit` characters, cut at a line end when one is near, then redacted."""
    cut = 0
    if len(text) > limit:
        end = text.rfind("\n", limit // 2, limit)
        end = end if end > 0 else limit
        cut = len(text) - end
        text = text[:end]
    clean, found = redact_secrets(text)
    return Excerpt(path, clean, found, cut)
