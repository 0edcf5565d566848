"""Secrets in command arguments that no `--name` says: Windows-style flags (`/p:…`, `/pass:…`, `/rp …`,
`net use … /user:u …`), a user and password given together to a credentials flag (`-auth u:…`,
`--dest-creds u:…`, `lftp -u u,…`), admin commands whose positional argument is a password
(`rabbitmqctl add_user u …`, `drush user:password u …`, `isql DSN u …`, `poetry config http-basic.x
u …`, `bundle config host u:…`), a token given to a login subcommand (`cargo login …`, `ngrok config
add-authtoken …`, `cloudflared service install …`), and one-dash flags named for a token or a cookie
(`-token …`, `-setcookie …`).

Each runs on a line already chosen by its gate words (`ARGUMENT_GATES`), and reads it once.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from homeostat.core.scanners.secrets.commands import placed_password, strong_enough, strong_password
from homeostat.core.scanners.secrets.found import RANK_KEYED, Found
from homeostat.core.scanners.secrets.positional import judge, password_ok, secret_value_ok
from homeostat.core.scanners.secrets.values import is_reference, looks_random, shannon_entropy

_VALUE = r"""(?:"([^"\s]{1,256})"|'([^'\s]{1,256})'|([^\s"'`]{1,256}))"""
_HEX = re.compile(r"[0-9a-fA-F]+")


def _value(m: re.Match[str], first: int = 1) -> tuple[int, int, str, bool]:
    group = next(i for i in (first, first + 1, first + 2) if m.group(i) is not None)
    return m.start(group), m.end(group), m.group(group), group < first + 2


def _password(value: str, quoted: bool) -> bool:
    """A literal password where a flag or a position says it is one."""
    if value.startswith(("$", "%", "@")) or is_reference(value):
        return False
    return password_ok(value, quoted=True) and (strong_enough(value) if quoted else placed_password(value))


# `/p:…`, `/pass:…`, `/password:…`, `/rp …` (schtasks' run-as password), `/pw …`: Windows tools'
# password flags, after a blank so that no path's `/p` is read.
_SLASH_FLAG = re.compile(r"(?<=[ \t])/(?i:p|pw|pwd|pass|passwd|password|rp)(?::|[ \t]+(?!/))" + _VALUE)


def slash_flags(line: str, lowered: str) -> Iterator[Found]:
    """A password after a Windows-style flag."""
    if " /" not in line:
        return
    for m in _SLASH_FLAG.finditer(line):
        start, end, value, quoted = _value(m)
        if "=" in value:
            continue  # MSBuild's `/p:Configuration=Release`: a property, not a password
        if _password(value, quoted or line[m.start() : start].endswith(":")):
            yield Found("password-flag", start, end, RANK_KEYED)


# `net use \\host\share <password> /user:DOMAIN\user` and `net user <name> <password> /add`: the
# password is the one argument that is no drive, share, flag or name.
_NET_COMMAND = re.compile(r"(?i:\bnet[ \t]+(use|user))[ \t]+([^\n|&;]{1,400})")


def net_commands(line: str, lowered: str) -> Iterator[Found]:
    if "net " not in lowered:
        return
    for m in _NET_COMMAND.finditer(line):
        pos = m.start(2)
        args = [(a.start() + pos, a.group(0)) for a in re.finditer(r"\S+", m.group(2))]
        if m.group(1).lower() == "user":
            args = args[1:]  # the user's name
        for start, arg in args:
            if arg.startswith(("/", "\\\\", "*")) or re.fullmatch(r"[A-Za-z]:", arg):
                continue
            if strong_password(arg.strip("\"'")):
                yield Found("password", start, start + len(arg), RANK_KEYED)


# A user and a password given together to a credentials flag: `-auth u:…` (Jenkins), `--creds`,
# `--src-creds`/`--dest-creds` (skopeo), `--credentials`, `--basic-auth`; `-u u,…` (lftp).
_PAIR_FLAG = re.compile(
    r"(?<![\w\-])(?:-{1,2}auth|--(?:src-|dest-)?creds|--credentials?|--basic-auth|-u|--user)(?:=|[ \t]+)"
    r"""(["']?)([^\s:,%"'$@<{]{1,64})([:,])([^\s"']{1,256})\1"""
)


def credential_flags(line: str, lowered: str) -> Iterator[Found]:
    """The password half of `user:password` (or lftp's `user,password`) after a credentials flag."""
    if (
        "-auth" not in lowered
        and "creds" not in lowered
        and "-u" not in lowered
        and "credential" not in lowered
    ):
        return
    for m in _PAIR_FLAG.finditer(line):
        value = m.group(4)
        if m.group(3) == ",":
            ok = strong_password(value)
        else:
            ok = not value.startswith(("@", "$")) and password_ok(value, quoted=True) and strong_enough(value)
        if ok:
            yield Found("basic-auth", m.start(4), m.end(4), RANK_KEYED)


# Admin commands whose positional argument is a password: (the command and what comes before the
# password, the password).
_POSITIONAL = re.compile(
    r"(?i:\brabbitmqctl[ \t]+(?:add_user|change_password|authenticate_user)[ \t]+\S{1,64}"
    r"|\bdrush[ \t]+(?:user:password|user-password|upwd)[ \t]+\S{1,64}"
    r"|\bmosquitto_passwd[ \t]+-b[ \t]+\S{1,256}[ \t]+\S{1,64}"
    r"|\bisql(?:[ \t]+-[A-Za-z]\w*){0,6}[ \t]+(?!-)\S{1,128}[ \t]+(?!-)\S{1,64}"
    r"|\bconfig(?:[ \t]+set)?(?:[ \t]+-{1,2}[\w\-]+){0,3}[ \t]+(?:http-basic|basic-auth|http-auth)\.\S{1,200}[ \t]+\S{1,64}"
    r"|\bredis-cli\b[^\n|;&]{0,200}?[ \t]AUTH(?:[ \t]+\S{1,64})?)"
    r"[ \t]+(?!-)" + _VALUE
)
# `bundle config [set] [--global] gems.host user:password`: a host's credentials as one argument.
_CONFIG_HOST_PAIR = re.compile(
    r"\bconfig(?:[ \t]+set)?(?:[ \t]+-{1,2}[\w\-]+){0,3}[ \t]+[\w\-]{1,63}(?:\.[\w\-]{1,63})+/?[ \t]+"
    r"""[\w.+\-@]{1,64}:([^\s"'`]{1,256})"""
)
_POSITIONAL_WORDS = (
    "rabbitmqctl",
    "drush",
    "mosquitto_passwd",
    "isql",
    "http-basic",
    "basic-auth",
    "http-auth",
    "auth",
)


def positional_passwords(line: str, lowered: str) -> Iterator[Found]:
    """The password an admin command takes as a positional argument."""
    if any(map(lowered.__contains__, _POSITIONAL_WORDS)):
        for m in _POSITIONAL.finditer(line):
            start, end, value, quoted = _value(m)
            if _password(value, quoted):
                yield Found("password", start, end, RANK_KEYED)
    if "config" in lowered:
        for m in _CONFIG_HOST_PAIR.finditer(line):
            if _password(m.group(1), False):
                yield Found("password", m.start(1), m.end(1), RANK_KEYED)


# A token given to a subcommand that logs in or installs credentials: `cargo login …`, `ngrok
# authtoken …`, `ngrok config add-authtoken …`, `cloudflared service install …`, `doctl auth init -t`,
# and a key after its key's id (`b2 authorize-account <id> <key>`, `b2 account authorize <id> <key>`):
# the first argument, and the second when the first is no flag.
_LOGIN_TOKEN = re.compile(
    r"(?i:(?<![\w\-])(?:login|authtoken|add-authtoken|set-token|service[ \t]+install|auth[ \t]+init[ \t]+-t"
    r"|authorize(?:-account)?))"
    r"[ \t]+(?=[\"']?[A-Za-z0-9])" + _VALUE + r"(?:[ \t]+(?=[\"']?[A-Za-z0-9])" + _VALUE + ")?"
)


def login_tokens(line: str, lowered: str) -> Iterator[Found]:
    """A random token right after a login-like subcommand (never a hash: `install <sha>` pins code)."""
    if (
        "login" not in lowered
        and "authtoken" not in lowered
        and "install" not in lowered
        and "init" not in lowered
        and "authorize" not in lowered
    ):
        return
    for m in _LOGIN_TOKEN.finditer(line):
        for first in (1, 4) if m.group(4) or m.group(5) or m.group(6) else (1,):
            start, end, value, _ = _value(m, first)
            if (
                len(value) >= 20
                and not _HEX.fullmatch(value)
                and secret_value_ok("api_token", value, quoted=True)
            ):
                yield Found("login-token", start, end, RANK_KEYED)


# One-dash flags named for a token, a key or a cookie: `-token …` (Consul, Nomad), `-apikey …`,
# `-setcookie …` (Erlang's distribution cookie).
_TOKEN_FLAG = re.compile(
    r"(?<![\w\-])-(?i:([a-z]{0,16}(?:token|apikey|api-key|authkey|auth-key|cookie)))(?:=|[ \t]+)(?!-)"
    + _VALUE
)


def token_flags(line: str, lowered: str) -> Iterator[Found]:
    if "-" not in line or not any(map(lowered.__contains__, ("token", "key", "cookie"))):
        return
    for m in _TOKEN_FLAG.finditer(line):
        start, end, value, _ = _value(m, 2)
        if m.group(1).lower().endswith("cookie"):
            ok = (
                len(value) >= 16
                and not is_reference(value)
                and shannon_entropy(value) >= 3.5
                and (looks_random(value) or value.isalpha())
            )
        else:
            ok = secret_value_ok("api_token", value, quoted=True)
        if ok:
            yield Found("token-flag", start, end, RANK_KEYED)


# A variable set with a blank, not `=`: `setx NAME value` (Windows), `set -x NAME value` (fish),
# `launchctl setenv NAME value`, `gh secret set NAME --body value`, `doppler secrets set NAME value`.
_SET_VARIABLE = re.compile(
    r"(?i:\b(?:setx|set[ \t]+-[A-Za-z]{1,4}|launchctl[ \t]+setenv|secrets?[ \t]+set))[ \t]+"
    r"([A-Za-z_][\w.\-]{0,80})(?:[ \t]+(?:--body|-b)(?:=|[ \t]+)|[ \t]+)(?!-)" + _VALUE
)


_SET_WORDS = ("setx", "set -", "set\t-", "setenv", "secret set", "secrets set", "secret\tset")


def set_variables(line: str, lowered: str) -> Iterator[Found]:
    """The value of a secret's variable set with a blank."""
    if not any(map(lowered.__contains__, _SET_WORDS)):
        return
    for m in _SET_VARIABLE.finditer(line):
        start, end, value, quoted = _value(m, 2)
        kind = judge(m.group(1), value, quoted=quoted)
        if kind and kind != "high-entropy":
            yield Found(kind, start, end, RANK_KEYED)


# A command that writes a secret store takes the secret after a flag with a plain name: `az keyvault
# secret set … --value …`, `aws ssm put-parameter … --value …`, `aws secretsmanager … --secret-string …`.
_STORE_VALUE = re.compile(
    r"(?i:\b(?:keyvault[ \t]+secret[ \t]+set|put-parameter|secretsmanager[ \t]+[\w\-]{1,30}))"
    r"[^\n|;&]{0,300}?[ \t]--(?:value|secret-string)(?:=|[ \t]+)(?!-)" + _VALUE
)


def store_values(line: str, lowered: str) -> Iterator[Found]:
    """The value a secret-store command writes."""
    if "keyvault" not in lowered and "put-parameter" not in lowered and "secretsmanager" not in lowered:
        return
    for m in _STORE_VALUE.finditer(line):
        start, end, value, quoted = _value(m)
        if not value.startswith(("file://", "fileb://", "@")) and _password(value, quoted):
            yield Found("password", start, end, RANK_KEYED)


ARGUMENT_DETECTORS = (
    store_values,
    set_variables,
    slash_flags,
    net_commands,
    credential_flags,
    positional_passwords,
    login_tokens,
    token_flags,
)
# What sends a line to these detectors, besides the secret words that already do (`-auth`, `--creds`
# are flags named for a secret) and `config set` (a gate of `commands`).
ARGUMENT_GATES = (
    "keyvault",
    "put-parameter",
    "secretsmanager",
    "setx ",
    "set -",
    "setenv",
    "secret set",
    "secrets set",
    " /p",
    " /rp",
    "net use",  # and `net user`
    " -u ",
    "rabbitmqctl",
    "drush",
    "mosquitto_passwd",
    "isql",
    "http-basic",
    "bundle config",
    "login ",
    "authtoken",
    "service install",
    "auth init",
    "authorize",
    "cookie",
)
