"""The poisoning corpus (tests/fixtures/poisoning/corpus.yaml): loading it, planting its secrets, and
running each probe through `validate` the way a KB pull request meets it.

A probe is text an attacker would get into a rule (its rule text, title, why or example) or a file
they would add to the KB repo; it names the check that must catch it (`risky:<kind>` or `secret`).
A look-alike is harmless text of the same shape that must pass with no risky or secret finding.

Secrets are never written in the corpus: `[[kind]]` (or `[[kind|disguise]]`) stands for one, built
here at run time from a seeded generator, so the repository never trips a secret scanner.
"""

from __future__ import annotations

import base64
import contextlib
import datetime as dt
import io
import json
import os
import random
import re
import string
import subprocess
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import yaml

CORPUS = Path(__file__).resolve().parent / "fixtures" / "poisoning" / "corpus.yaml"
TODAY = dt.date(2026, 11, 29)
RULE_PATH = "knowledge/ledger/api/probe-rule.md"

CONFIG = """version: 0.2.0
team:
  members:
    - {handle: ana, role: lead, teams: [payments]}
    - {handle: bo, role: senior, teams: [payments]}
  teams:
    - {name: payments, handle: "@acme/payments"}
repos:
  - name: ledger
    url: https://github.com/acme/ledger
    areas:
      - {name: api, paths: ["src/api/**"], owner: payments}
security:
  allowedDomains: [acme.dev]
"""

DEFAULTS = {
    "title": "Keep request handlers small",
    "rule": "Keep each request handler under forty lines; move the work into a service.",
    "why": "Small handlers are easy to review and to test.",
    "example": "",
}

_ALNUM = string.ascii_letters + string.digits
_B64 = _ALNUM + "+/"


@dataclass(frozen=True)
class Probe:
    id: str
    check: str  # `risky:<kind>` or `secret`; empty for a look-alike
    text: str
    place: str = "rule"  # rule, title, why, example, topic (a topic-file section), or file
    path: str = ""  # for place=file: the repo path the text is written to
    binary: bool = False  # for place=file: the text sits between binary bytes
    gap: str = ""  # the issue-9 gap it reproduces, if any
    note: str = ""
    family: str = ""  # what the probe does (the held-out and tuning sets name one on every entry)

    @property
    def is_look_alike(self) -> bool:
        return not self.check


@dataclass
class Corpus:
    probes: list[Probe] = field(default_factory=list)
    look_alikes: list[Probe] = field(default_factory=list)


def _probe(entry: dict[str, object], look_alike: bool) -> Probe:
    return Probe(
        id=str(entry["id"]),
        check="" if look_alike else str(entry["check"]),
        text=str(entry["text"]),
        place=str(entry.get("place", "rule")),
        path=str(entry.get("path", "")),
        binary=bool(entry.get("binary", False)),
        gap=str(entry.get("gap", "")),
        note=str(entry.get("note", "")),
        family=str(entry.get("family", "")),
    )


def load_corpus(path: Path = CORPUS) -> Corpus:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    return Corpus(
        [_probe(e, False) for e in data["probes"]],
        [_probe(e, True) for e in data["look_alikes"]],
    )


# --- planted secrets -------------------------------------------------------------------------------


def _random(rng: random.Random, alphabet: str, n: int) -> str:
    """Random characters; eight or more hold two digits and each letter case the alphabet has."""
    while True:
        value = "".join(rng.choice(alphabet) for _ in range(n))
        if (
            n >= 8
            and alphabet != string.digits
            and (
                sum(c.isdigit() for c in value) < 2
                or (any(c.isupper() for c in alphabet) and not any(c.isupper() for c in value))
                or (any(c.islower() for c in alphabet) and not any(c.islower() for c in value))
            )
        ):
            continue
        return value


def _b64url(data: dict[str, object]) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")


def _jwt(rng: random.Random) -> str:
    header = _b64url({"alg": "HS256", "typ": "JWT"})
    payload = _b64url({"sub": _random(rng, string.digits, 8), "role": "service", "iat": 1790000000})
    return f"{header}.{payload}.{_random(rng, _ALNUM + '-_', 43)}"


def _pem(rng: random.Random) -> str:
    body = "\n".join(_random(rng, _B64, 64) for _ in range(4))
    kind = "RSA PRIVATE KEY"
    return f"-----BEGIN {kind}-----\n{body}\n-----END {kind}-----"


SECRETS: dict[str, Callable[[random.Random], str]] = {
    "github-pat": lambda r: "ghp_" + _random(r, _ALNUM, 36),
    "github-fine-grained": lambda r: "github_pat_" + _random(r, _ALNUM, 22) + "_" + _random(r, _ALNUM, 59),
    "aws-access-key": lambda r: "AKIA" + _random(r, string.ascii_uppercase + "234567", 16),
    "aws-secret": lambda r: _random(r, _B64, 40),
    "slack-bot": lambda r: (
        "xoxb-"
        + _random(r, string.digits, 12)
        + "-"
        + _random(r, string.digits, 13)
        + "-"
        + _random(r, _ALNUM, 24)
    ),
    "stripe": lambda r: "sk_" + "live_" + _random(r, _ALNUM, 24),
    "npm": lambda r: "npm_" + _random(r, _ALNUM, 36),
    "gitlab": lambda r: "glpat-" + _random(r, _ALNUM, 20),
    "anthropic": lambda r: "sk-ant-api03-" + _random(r, _ALNUM + "-_", 93) + "AA",
    "doppler-service": lambda r: "dp.st.prd." + _random(r, _ALNUM, 43),
    "flyio-macaroon": lambda r: "FlyV1 fm2_" + _random(r, _B64, 64) + ",fm2_" + _random(r, _B64, 64),
    "docker-auth": lambda r: base64.b64encode(f"deploy:{_random(r, _ALNUM, 18)}".encode()).decode(),
    "password": lambda r: _random(r, _ALNUM, 10) + "!" + _random(r, _ALNUM, 3),
    "hex-secret": lambda r: _random(r, "0123456789abcdef", 40),
    "jwt": _jwt,
    "private-key": _pem,
}


def _zero_width(token: str) -> str:
    middle = len(token) // 2
    return token[:middle] + "\u200b" + token[middle:]


def _percent(token: str) -> str:
    return "".join(f"%{ord(c):02X}" if c in "_-." or i % 7 == 3 else c for i, c in enumerate(token))


def _html(token: str) -> str:
    return "".join(f"&#{ord(c)};" if c in "_-." or i % 9 == 4 else c for i, c in enumerate(token))


def _fullwidth(token: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in token)


def _soft_hyphen(token: str) -> str:
    return "\u00ad".join(token[i : i + 8] for i in range(0, len(token), 8))


DISGUISES: dict[str, Callable[[str], str]] = {
    "zw": _zero_width,
    "percent": _percent,
    "html": _html,
    "fullwidth": _fullwidth,
    "soft-hyphen": _soft_hyphen,
}
_PLACEHOLDER = re.compile(r"\[\[([a-z0-9-]+)(?:\|([a-z-]+))?\]\]")


def plant(text: str, seed: str) -> str:
    """`text` with each `[[kind]]` replaced by a freshly built secret of that kind."""
    rng = random.Random(seed)

    def build(m: re.Match[str]) -> str:
        if m.group(1) not in SECRETS:
            return m.group(0)  # `[[ops]]` in a probe's own text, not a placeholder
        secret = SECRETS[m.group(1)](rng)
        return DISGUISES[m.group(2)](secret) if m.group(2) else secret

    return _PLACEHOLDER.sub(build, text)


# --- running a probe -------------------------------------------------------------------------------


def _yaml_string(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


def _rule_file(fields: dict[str, str]) -> str:
    example = f"\n## Example\n{fields['example']}\n" if fields["example"] else ""
    return (
        f"---\nid: probe-rule\ntitle: {_yaml_string(fields['title'])}\narea: ledger/api\n"
        'scope: ["src/api/**"]\nstatus: accepted\napprovedBy: [ana]\n'
        "source:\n  type: manual\n  author: bo\ncreated: 2026-10-01\nlastConfirmed: 2026-11-01\n---\n"
        f"## Rule\n{fields['rule']}\n\n## Why\n{fields['why']}\n{example}"
    )


def _topic_file(fields: dict[str, str]) -> str:
    return (
        "---\narea: ledger/api\ntopic: errors\n---\n"
        f"## {fields['title']} {{#probe-rule}}\n<!-- homeostat\n"
        'scope: ["src/api/**"]\nstatus: accepted\napprovedBy: [ana]\n'
        "source:\n  type: manual\n  author: bo\ncreated: 2026-10-01\nlastConfirmed: 2026-11-01\n-->\n"
        f"### Rule\n{fields['rule']}\n\n### Why\n{fields['why']}\n"
    )


def _document(title: str, body: str) -> str:
    return (
        f'---\ntitle: {_yaml_string(title)}\narea: ledger/api\nscope: ["src/api/**"]\nupdated: 2026-11-10\n---\n'
        "## Request flow {#request-flow}\n<!-- homeostat: source=manual updated=2026-11-10 -->\n"
        f"{body}\n"
    )


# Places in a rule's frontmatter, and in a document: what the probe replaces there.
_RULE_FIELD_PLACES = ("scope", "flag-reason")
_DOC_PLACES = ("doc-title", "doc-body")


def kb_files(probe: Probe) -> dict[str, str | bytes]:
    """A one-rule KB with the probe planted where it says."""
    text = plant(probe.text, probe.id)
    fields = dict(DEFAULTS)
    if probe.place in fields:
        fields[probe.place] = text
    files: dict[str, str | bytes] = {"homeostat.yaml": CONFIG}
    if probe.place in _DOC_PLACES:
        title, body = "Ledger API architecture", "Requests enter through `src/api/app.py`."
        title, body = (text, body) if probe.place == "doc-title" else (title, text)
        files["knowledge/ledger/api/docs/architecture.md"] = _document(title, body)
    if probe.place == "topic":
        fields["rule"] = text
        config = CONFIG.replace("    areas:\n", "    topics: [errors]\n    areas:\n")
        files = {"homeostat.yaml": config, "knowledge/ledger/api/errors.md": _topic_file(fields)}
        return files
    files[RULE_PATH] = _rule_file(fields)
    if probe.place == "scope":
        files[RULE_PATH] = str(files[RULE_PATH]).replace(
            'scope: ["src/api/**"]', f"scope: [{_yaml_string(text)}]", 1
        )
    elif probe.place == "flag-reason":
        flag = f"flags:\n  - {{by: bo, at: 2026-11-02, reason: {_yaml_string(text)}}}\n"
        files[RULE_PATH] = str(files[RULE_PATH]).replace("source:\n", flag + "source:\n", 1)
    if probe.place == "file":
        content: str | bytes = text
        if probe.binary:
            content = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x01" + text.encode() + b"\x00\xff\xfe\x00IEND"
        files[probe.path] = content
    return files


def _flags(findings: Iterable[dict[str, object]]) -> set[str]:
    """`risky:<kind>` and `secret` for each error finding of those checks, `error:<check>` for others."""
    flags: set[str] = set()
    for f in findings:
        if f["severity"] != "error":
            continue
        if f["check"] not in ("secret", "risky"):
            flags.add(f"error:{f['check']}")
        if f["check"] == "secret":
            flags.add("secret")
        elif f["check"] == "risky":
            flags.add("risky:" + str(f["message"]).split(" ", 1)[0])
    return flags


def _validate_in_process(files: dict[str, str | bytes]) -> set[str]:
    from homeostat.core.validate import validate_files

    result = validate_files(files, TODAY)
    return _flags(f.as_dict() for f in result.findings)


def _validate_checkout(files: dict[str, str | bytes]) -> set[str]:
    """`homeostat validate` on a real git checkout, on its working tree and on `--ref HEAD`; a flag
    counts only when both report it (they must read the same files)."""
    from homeostat.cli import main

    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        for rel, content in files.items():
            target = root / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
        env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
        for args in (["init", "-q", "-b", "main"], ["add", "-A", "-f"]):
            subprocess.run(["git", *args], cwd=root, check=True, env=env)
        subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "kb"],
            cwd=root,
            check=True,
            env=env,
        )
        seen: list[set[str]] = []
        for extra in ([], ["--ref", "HEAD"]):
            out = io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
                main(["validate", str(root), "--format", "json", "--today", TODAY.isoformat(), *extra])
            seen.append(_flags(json.loads(out.getvalue())["findings"]))
        return seen[0] & seen[1]


def is_caught(probe: Probe, flags: set[str]) -> bool:
    """`check: risky` is met by any risky-content error, `check: error` by any error at all."""
    if probe.check == "risky":
        return any(flag.startswith("risky:") for flag in flags)
    if probe.check == "error":
        return bool(flags)
    return probe.check in flags


def flags_for(probe: Probe) -> set[str]:
    """What validate reports about the KB the probe was planted in."""
    files = kb_files(probe)
    return _validate_checkout(files) if probe.place == "file" else _validate_in_process(files)


@dataclass(frozen=True)
class Score:
    probes: int
    caught: list[Probe]
    missed: list[tuple[Probe, set[str]]]
    look_alikes: int
    flagged: list[tuple[Probe, set[str]]]

    @property
    def catch_rate(self) -> float:
        return len(self.caught) / self.probes if self.probes else 0.0

    @property
    def false_positive_rate(self) -> float:
        return len(self.flagged) / self.look_alikes if self.look_alikes else 0.0


def _risky_or_secret(flags: set[str]) -> set[str]:
    return {flag for flag in flags if not flag.startswith("error:")}


def score(corpus: Corpus) -> Score:
    caught: list[Probe] = []
    missed: list[tuple[Probe, set[str]]] = []
    for probe in corpus.probes:
        got = flags_for(probe)
        if is_caught(probe, got):
            caught.append(probe)
        else:
            missed.append((probe, got))
    flagged = [(p, got) for p in corpus.look_alikes if (got := _risky_or_secret(flags_for(p)))]
    return Score(len(corpus.probes), caught, missed, len(corpus.look_alikes), flagged)
