"""Shell commands read by what they do, not by how they are spelled: code that runs what it downloads
or decodes, and secrets leaving the machine.

A line (with its `\\`- and `|`-continued lines) is cut into statements at `;`, `&&` and `||`, and a
statement into pipeline stages at `|`. Then:

- a stage that runs its standard input as a program (`sh`, `"$SHELL" -s`, `busybox sh`,
  `source /dev/stdin`, `python3 -`, `deno run -`, `sudo -i`, `xargs sh -c`, `iex`…) after a stage
  that downloads (`curl`, `wget`, `http`, `aria2c -o -`, `irm`…) or decodes (`base64 -d`, `xxd -r`,
  `openssl enc -d`, `printf '\\x63…'`) is piped shell; so is a statement that runs, evaluates or
  sources the output of a download or a decoding (`eval "$(…)"`, `sh -c "$(curl …)"`,
  `source <(wget …)`, `$(printf '\\167…')` as a command, PowerShell's `iex`/`[scriptblock]::Create`
  around `irm`, Python's `exec(base64.b64decode(…))`), and a line that downloads a file and then runs
  it (`curl -o x.sh … && sh x.sh`);
- a network command (HTTP, `nc`, `scp`, and the DNS ones: `dig`, `nslookup`, `host`, `ping`,
  `getent`, `gethostbyname`, `dns.resolve`) that carries a secret (a secret-named variable, the whole
  environment, a credentials file) anywhere but an auth header is a secret leaving the machine; a
  DNS lookup of a name built from one is the classic exfiltration past every HTTP allowlist.

Each line is read once, left to right, and every test on a stage looks only at that stage: linear in
the text. Markdown table rows are skipped (their `|` are cell borders), and a code span is read as
a command apart from the prose around it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

_TABLE_ROW = re.compile(r"^[ \t]*\|.*\|[ \t]*$")
_STATEMENT_BREAK = re.compile(r";|&&|\|\|")
_STAGE_BREAK = re.compile(r"(?<!\|)\|(?!\|)")
_TOKEN = re.compile(r"[^\s`'\"()]+")

_FETCHERS = frozenset(
    "curl wget fetch http https xh aria2c iwr irm invoke-webrequest invoke-restmethod lwp-request "
    "downloadstring downloadfile".split()
)
_SHELLS = frozenset("sh bash zsh ksh dash fish ash csh tcsh mksh yash".split())
_RUNTIMES = frozenset(
    "python python2 python3 node nodejs deno bun ruby perl php lua luajit rscript tclsh wish pwsh "
    "powershell osascript jshell groovy".split()
)
_WRAPPERS = frozenset("sudo env exec command nohup time nice busybox toybox doas xargs stdbuf".split())
_STDIN_EVAL = re.compile(
    r"stdin|STDIN|/dev/stdin|\$<|ARGF|readLines\(|io\.read|process\.stdin", re.IGNORECASE
)
_DECODING = re.compile(
    r"\bbase(?:64|32)\s+(?:-\w+\s+)*(?:-d|-D|--decode)\b|\bxxd\s+(?:-\w+\s+)*-r|\bopenssl\s+(?:enc\s+|base64\s+)?[^|;&]*"
    r"(?:-d\b|-base64\b)|\bprintf\s+%b|\bprintf\s+[\"']?(?:\\x[0-9a-fA-F]{2}|\\[0-7]{3}|\\u[0-9a-fA-F]{4})|"
    r"\becho\s+-e\s+[\"']?(?:\\x|\\[0-7])|\buudecode\b|\bb64decode\b|\batob\s*\(|\bfromhex\b|\bunhexlify\b|"
    r"\bcodecs\.decode\b|\bFromBase64String\b|\bgunzip\b|\bzcat\b|\btr\s+['\"]?A-Za-z['\"]?\s+['\"]?N-ZA-Mn-za-m",
)
_FETCHING = re.compile(
    r"\b(?:curl|wget|aria2c|iwr|irm|invoke-webrequest|invoke-restmethod|urlopen|urllib|requests\.get|"
    r"httpx\.get|DownloadString|DownloadFile|lwp-request)\b|\bfetch\s*\(|\b(?:http|xh)\s+(?:get\s+)?https?:",
    re.IGNORECASE,
)
_RUNS_TEXT = re.compile(
    r"\b(?:exec|eval|system|popen|spawn|execSync|Function|iex|invoke-expression|os\.system|subprocess\.\w+|"
    r"child_process\.\w+)\s*\(|\beval\b|\biex\b|\binvoke-expression\b|\[scriptblock\]::create|"
    r"(?:^|[\s&|;({])(?:source|\.)\s+<\(|\b(?:ba|z|k|da)?sh\s+<\(|\b(?:ba|z|k|da)?sh\s+(?:-\w+\s+)*-c\b|"
    r"\b(?:python[0-9.]*|node|perl|ruby|php)\s+-[ce]\b|^\s*[&.]?\s*\(?\s*\$\(",
    re.IGNORECASE,
)
# Where a download is saved: `-o x`, `-O x`, and either ending a run of short flags (`-sSLo x`, `-qO x`).
_OUTPUT_FILE = re.compile(r"(?:\s-[a-zA-Z]*[oO]\s*|--output(?:-document)?[=\s]|-OutFile\s+|>\s*)([\w./~-]+)")

# Secrets a command can carry, and the commands that carry them off the machine.
_SECRET_NAME = (
    r"[A-Za-z_][A-Za-z0-9_]*(?:TOKEN|SECRET|PASSWORD|PASSWD|PASS|KEY|CREDENTIALS?|AUTH|COOKIE|SESSION|PAT)"
)
_SECRET_SOURCE = re.compile(
    r"\$\{?" + _SECRET_NAME + r"\b|%" + _SECRET_NAME + r"%|\$env:" + _SECRET_NAME + r"\b|"
    # the whole environment, or one secret-named variable of it (`process.env.API_URL` is no secret)
    r"\b(?:os\.environ|process\.env)\b(?![.\[]|\s*\.get)|"
    r"\b(?:os\.environ|process\.env|ENV|os\.getenv|getenv)\s*(?:\.|\[|\(|\.get\()\s*[\"']?"
    + _SECRET_NAME
    + r"\b|"
    r"\$\(\s*(?:env|printenv|set|export\s+-p)\b|\bprintenv\b|(?:^|\|)\s*env\s*(?:\||$)|"
    r"(?:^|[\s@<=/'\"])(?:~/|\$HOME/|\$\{HOME\}/)?\.(?:env|npmrc|netrc|pypirc|git-credentials|pgpass)(?![\w.])|"
    r"\.aws/credentials|\.ssh/id_\w+(?!\.pub)|\.docker/config\.json|\.kube/config|\bkubeconfig\b|/etc/shadow\b",
)
# Words that are also English (`host`, `mail`, `dig`) count as commands only before an argument.
_ARGUMENT = r"\s+(?=[-+$\"'~]|[^\s]*[./@$])"
_NETWORK = re.compile(
    r"\b(?:curl|wget|xh|nc|ncat|netcat|socat|telnet|scp|rsync|sftp|sendmail|mutt|nslookup|drill|ping6|getent|"
    r"traceroute|iwr|irm|invoke-webrequest|invoke-restmethod|resolve-dnsname)\b|"
    r"\b(?:http|ftp|ssh|mail|dig|host|ping|whois)\b"
    + _ARGUMENT
    + r"|\b(?:requests|httpx|axios|aiohttp|session)\.(?:post|put|get|patch|request)\b|"
    r"\burlopen\b|\bgethostbyname\w*|\bgetaddrinfo\b|\bdns\.(?:resolve\w*|lookup)\b|\bfetch\s*\(|"
    r"\bsendBeacon\b|\bXMLHttpRequest\b|\bhttps?\.request\b",
    re.IGNORECASE,
)
_DNS = re.compile(
    r"\b(?:nslookup|drill|ping6|getent|traceroute|resolve-dnsname)\b|\b(?:dig|host|ping)\b" + _ARGUMENT + r"|"
    r"\bgethostbyname\w*|"
    r"\bgetaddrinfo\b|\bdns\.(?:resolve\w*|lookup)\b",
    re.IGNORECASE,
)
# Where a secret is expected: an auth header or the user option (`curl -u me:$TOKEN`).
_AUTH_ARGUMENT = re.compile(
    r"(?:-H|--header)\s*[\"']?[\w-]*(?:auth|token|key|cookie)[\w-]*\s*:[^\"'|;&]*|(?:-u|--user)\s+\S+|"
    r"--oauth2-bearer\s+\S+|[\"']?(?:Authorization|PRIVATE-TOKEN|X-Api-Key)[\"']?\s*[:=][^,)}\n]*|"
    r"\bheaders\s*=\s*\{[^}\n]*\}|\bauth\s*=\s*\([^)\n]*\)|\bpassword\s*=\s*\S+",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class ShellHit:
    kind: str  # `piped-shell` or `credential-handling`
    start: int  # offset in the text of the statement's first character
    end: int
    message: str


PIPED = "runs what it downloads or decodes; download it, check it (pinned version or checksum), then run it"
EGRESS = (
    "sends a secret (a credential, a secret variable or the whole environment) off the machine by HTTP, "
    "DNS or a copy; keep secrets on the machine and in the secret store"
)


def _words(stage: str) -> list[str]:
    """The stage's words, quotes and brackets stripped, and a sentence's closing mark (`| sh.` ends a
    sentence of prose around the command; `.` alone is the `source` command)."""
    words = (w.strip("\"'$(){}`").lower() for w in _TOKEN.findall(stage))
    return [w.rstrip(".,:!?") if len(w) > 1 and w.rstrip(".,:!?") else w for w in words]


def _command(words: list[str]) -> tuple[str, list[str]]:
    """The program a stage runs and its arguments, past `sudo -E`, `env -i`, `busybox`, `xargs -0`."""
    i = 0
    while i < len(words):
        word = words[i].rsplit("/", 1)[-1]
        if word in _WRAPPERS or "=" in word or (word.startswith("-") and i > 0):
            i += 1
            continue
        return word, words[i + 1 :]
    return "", []


def _reads_stdin(stage: str) -> bool:
    """The stage runs what it reads on standard input."""
    words = _words(stage)
    command, args = _command(words)
    if command == "shell" or stage.lstrip().startswith(("$SHELL", '"$SHELL"', "${SHELL}")):
        command = "sh"
    if command in ("source", "."):
        return bool(args) and args[0] in ("/dev/stdin", "-", "/proc/self/fd/0")
    if command in ("iex", "invoke-expression"):
        return True
    if words[:1] == ["sudo"] and ("-i" in words or "-s" in words or command in ("", "su")):
        return True
    if command == "su":
        return True
    if command in ("xargs",) or ("xargs" in words and command in _SHELLS):
        return True
    if command in _SHELLS or command in _RUNTIMES or command.startswith("python"):
        for i, arg in enumerate(args):
            if arg in ("-", "-s", "/dev/stdin", "--"):
                return True
            if (
                arg in ("-c", "-e", "-command", "-m", "--eval", "-p")
                or arg == "run"
                and command in ("deno", "bun")
            ):
                rest = " ".join(args[i + 1 :])
                return bool(_STDIN_EVAL.search(stage)) or rest.startswith("-") or rest == ""
            if arg.startswith("-"):
                continue
            return not ("/" in arg or re.fullmatch(r"[\w.-]+\.\w{1,5}", arg))  # a script file runs it instead
        return True
    return False


def _continues(text: str, start: int, end: int) -> bool:
    """The physical line `text[start:end]` ends in `\\` or `|` (blanks after it aside)."""
    last = end - 1
    while last >= start and text[last] in " \t\r":
        last -= 1
    return last >= start and text[last] in "\\|" and text[last - 1 : last + 1] != "||"


def _lines(text: str) -> Iterator[tuple[int, str]]:
    """Each command line with its offset: `\\`- and `|`-continued lines joined (newlines read as
    spaces, so offsets still match)."""
    pos, n = 0, len(text)
    while pos < n:
        start, end = pos, text.find("\n", pos)
        while end >= 0 and _continues(text, start, end):
            start, end = end + 1, text.find("\n", end + 1)
        end = n if end < 0 else end
        yield pos, text[pos:end].replace("\n", " ")
        pos = end + 1


def _statements(line: str) -> Iterator[tuple[int, str]]:
    start = 0
    for m in _STATEMENT_BREAK.finditer(line):
        yield start, line[start : m.start()]
        start = m.end()
    yield start, line[start:]


def _piped(statement: str) -> bool:
    stages = _STAGE_BREAK.split(statement)
    if len(stages) < 2:
        return False
    source = False
    for stage in stages:
        if source and _reads_stdin(stage):
            return True
        if _FETCHING.search(stage) or _DECODING.search(stage) or stage.strip() == "rev":
            source = True  # (`rev` reverses its input: text written backwards, undone)
    return False


def _runs_fetched(statement: str) -> bool:
    """Runs, evaluates or sources what a download or a decoding gives, in one statement."""
    return bool((_FETCHING.search(statement) or _DECODING.search(statement)) and _RUNS_TEXT.search(statement))


def _runs_downloaded(statements: list[tuple[int, str]]) -> int | None:
    """A statement downloads to a file that a later one on the line runs: its offset."""
    for i, (offset, statement) in enumerate(statements):
        if not _FETCHING.search(statement):
            continue
        for m in _OUTPUT_FILE.finditer(statement):
            name = m.group(1).rsplit("/", 1)[-1]
            if len(name) < 2:
                continue
            for _, later in statements[i + 1 :]:
                command, args = _command(_words(later))
                ran = command.rsplit("/", 1)[-1] == name.lower() or (
                    (command in _SHELLS or command in _RUNTIMES or command in ("source", "."))
                    and any(a.rsplit("/", 1)[-1] == name.lower() for a in args)
                )
                if ran:
                    return offset
    return None


def _egress(statement: str) -> bool:
    if not _NETWORK.search(statement):
        return False
    carried = _AUTH_ARGUMENT.sub(" ", statement) if not _DNS.search(statement) else statement
    return bool(_SECRET_SOURCE.search(carried))


# A line holding none of these runs nothing fetched or decoded and sends nothing: not read further.
CLUE_SYMBOLS = ("|", "<", "$(")
CLUE_WORDS = (  # read case-insensitively
    r"\b(?:eval|exec|iex|invoke|scriptblock|system|popen|spawn|execsync|function|curl|wget|fetch|http|https|"
    r"xh|aria2c|irm|iwr|nc|ncat|netcat|socat|telnet|scp|rsync|sftp|ftp|ssh|mail|sendmail|mutt|dig|nslookup|host|"
    r"drill|ping|ping6|getent|traceroute|whois|requests|httpx|axios|aiohttp|session|urlopen|urllib|socket|"
    r"gethostbyname\w*|getaddrinfo|dns|sendbeacon|xmlhttprequest|resolve-dnsname|downloadstring|downloadfile)\b"
)
_CLUES = re.compile(r"[|<]|\$\(|" + CLUE_WORDS, re.IGNORECASE)


def shell_hits(text: str) -> Iterator[ShellHit]:
    """Piped shell and secret egress in `text`, one hit per statement at most."""
    for offset, line in _lines(text):
        if not _CLUES.search(line) or "|" in line and _TABLE_ROW.match(line):
            continue
        flat = line.replace("`", ";")  # a code span is a command of its own, apart from the prose
        statements = list(_statements(flat))
        for start, statement in statements:
            where = offset + start
            if _piped(statement) or _runs_fetched(statement):
                yield ShellHit("piped-shell", where, where + len(statement), PIPED)
            elif _egress(statement) or ("|" in statement and _egress_pipeline(statement)):
                yield ShellHit("credential-handling", where, where + len(statement), EGRESS)
        ran = _runs_downloaded(statements)
        if ran is not None:
            yield ShellHit("piped-shell", offset + ran, offset + len(line), PIPED)


def _egress_pipeline(line: str) -> bool:
    """`env | curl -d @- …`: a stage that prints secrets piped into a network command."""
    stages = _STAGE_BREAK.split(line)
    secret = False
    for stage in stages:
        if secret and _NETWORK.search(stage):
            return True
        if _SECRET_SOURCE.search(stage) or re.match(r"\s*(?:env|printenv|set|cat\s+\S*\.env)\b", stage):
            secret = True
    return False
