"""The phrase families of the risky-content linter: what each looks for, and what a reviewer is told.

Each pattern names lowercase trigger words; only lines holding one are searched with it, so a large KB
is read once per trigger word with `str.find` rather than once per pattern.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property, lru_cache

from homeostat.core.scanners.risky.literals import MARKS, required_words

_I = re.IGNORECASE


@dataclass(frozen=True)
class Pattern:
    """A regex, the lowercase words a line must hold for it to be tried, and whether the match must
    open its clause (so "the share password" is not read as "share the password")."""

    triggers: tuple[str, ...]
    source: str  # the regex, compiled (case-insensitive) the first time a text opens its gate
    opens_clause: bool = False
    anchored: bool = True  # the regex starts where a trigger does, so it is only tried there

    @cached_property
    def regex(self) -> re.Pattern[str]:
        """Compiled on first use: the ninety patterns were most of the linter's import time, and most
        texts (most KBs) open few of their gates."""
        return re.compile(self.source, _I)

    @property
    def gates(self) -> frozenset[str]:
        return frozenset(gate_of(t) for t in self.triggers)

    @cached_property
    def marks(self) -> tuple[str, ...]:
        """The punctuation every match holds (`literals.required_words`): a text without one of them
        has no match, told with `in` instead of trying the regex at every trigger."""
        groups = required_words(self.source)
        return tuple(sorted(next(iter(g)) for g in groups if len(g) == 1 and next(iter(g)) in MARKS))


@dataclass(frozen=True)
class PhraseRule:
    kind: str
    patterns: tuple[Pattern, ...]
    message: str
    negatable: bool = True


_GATE_TOKEN = re.compile(r"[a-z0-9]+")


@lru_cache(maxsize=512)
def gate_of(trigger: str) -> str:
    """The word a text must contain for `trigger` to occur in it: its longest `[a-z0-9]+` run, or the
    trigger itself when it is all symbols (`<(`). Lets a text be checked with one word split."""
    tokens = _GATE_TOKEN.findall(trigger)
    return max(tokens, key=len) if tokens else trigger


PUNCTUATION = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~‘’“”—–…•·«»"
_TO_SPACES = str.maketrans(dict.fromkeys(PUNCTUATION, " "))


def words_of(lowered: str) -> set[str]:
    """The `[a-z0-9]+` words of a lowercased text (a translate and split: twice as fast as a regex)."""
    return set(lowered.translate(_TO_SPACES).split())


def words_among(lowered: str, wanted: frozenset[str]) -> set[str]:
    """`words_of(lowered) & wanted`, without building the set of every word first."""
    return set(wanted.intersection(lowered.translate(_TO_SPACES).split()))


# A suppression's code and reason: `# nosec B608: table name comes from an enum`.
_REASONED = r"(?:\s+|:\s*)[a-z]\d{3}(?:\s*,\s*[a-z]\d{3})*\s*[:\-–—]\s*[a-z]"


# A secret scanner's ignore entry: a finding taken out of the scan (a phrase rule below; `core.safety.risky` also
# reads it to excuse an entry for a secret already rotated).
SCANNER_IGNORE = (
    r"\.gitleaksignore\b|\bgitleaks:allow\b|\bpragma:\s*allowlist[ -]secret\b|\btrufflehog:ignore\b"
)


def _p(triggers: str, regex: str, *, opens_clause: bool = False, anchored: bool = True) -> Pattern:
    """`triggers` is space-separated lowercase words; `~` stands for a space inside one (`do~not`)."""
    words = tuple(w.replace("~", " ") for w in triggers.split())
    return Pattern(words, regex, opens_clause, anchored)


# What reads a script from its standard input: `sh`, `/bin/bash`, `sudo -E /usr/bin/env bash`,
# `python3 -`, but not `python -m json.tool` or `sh -c '…'`, which take their program elsewhere.
_INTERPRETER = (
    r"(?:sudo\s+(?:-\S+\s+)*)?(?:(?:/usr)?(?:/local)?/s?bin/)?(?:env\s+(?:-\S+\s+)*)?(?:(?:/usr)?(?:/local)?/s?bin/)?"
    r"(?:(?:ba|z|k|da|fi|c|tc)?sh|python[0-9.]*|perl|ruby|node|pwsh|powershell|php)\b"
    r"(?![.\w-]|[ \t]+-(?:[cemnpV]|ne|pe|-version|-help)\b)"
)
# One stage of a shell pipeline: anything but a pipe, `;`, `&&` or a line end (a `\` continues it).
_STAGE = r"(?:\\\n|[^\n|;&]|&(?![&\s]))*"
_PIPED_INTO = r"(?:\|(?!\|)" + _STAGE + r")*?\|(?!\|)\s*" + _INTERPRETER
# Files that hold credentials: `~/.aws/credentials`, `.env`, `~/.ssh/id_ed25519`, `~/.kube/config`.
SECRET_FILE = (
    r"(?:(?:~|\$HOME|\$\{HOME\})?/?(?:[\w.-]+/)*(?:\.aws/credentials|\.ssh/id_(?:rsa|ed25519|ecdsa|dsa)(?![\w.])|"
    r"\.npmrc|\.netrc|\.pypirc|\.git-credentials|\.docker/config\.json|\.kube/config|kubeconfig|\.env(?![\w.]))|"
    r"\bid_(?:rsa|ed25519|ecdsa|dsa)(?![\w.]))"
)
# A dump of the environment holds every secret a job has: `printenv`, `` `env` ``, `os.environ`.
_ENVIRONMENT_DUMP = (
    r"(?:\bprintenv\b|`(?:env|set|export\s+-p|printenv)`|\bos\.environ\b(?![.\[(])|\bprocess\.env\b(?![.\[])|"
    r"\b(?:Get-ChildItem|gci|dir)\s+env:)"
)
_SECRET_NOUN = (
    r"(?:(?<![-_/.])\b(?:(?:api|access|secret|private|ssh|signing|deploy|client|aws|gcp|azure|cloud|service[ _-]account)"
    r"[ _-]?keys?|tokens?|passwords?|"
    r"passphrases?|secrets?|credentials?|creds|env\s+files?|session\s+cookies?|cookies|"
    r"auth(?:orization)?\s+headers?)|`?\.env\b(?!\.)|"
    # an environment variable that holds one: `GITHUB_TOKEN`, `$AWS_SECRET_ACCESS_KEY`
    r"`?\$?\{?(?-i:\b[A-Z][A-Z0-9]*_(?:[A-Z0-9]+_)*(?:TOKEN|SECRET|PASSWORD|PASSWD|API_KEY|APIKEY|ACCESS_KEY|"
    r"SECRET_KEY|PRIVATE_KEY|CREDENTIALS?)\b)|" + SECRET_FILE + "|" + _ENVIRONMENT_DUMP + r")"
    # "password reset", "token count", "key rotation" name something else
    r"(?!\s*(?:reset|resets|polic(?:y|ies)|rotation|expiry|expiration|length|limits?|counts?|bucket|usage|budget|"
    r"manager|field|prompt|hash|strength|requirements?|change|validation|complexity|format|type|name|ids?|"
    r"scann(?:er|ing)|store|vault)\b)"
)
_EXPOSING_VERBS = (
    "print echo log dump display show reveal output expose leak paste send post share upload forward commit "
    "push hardcode hard-code embed check attach email mail publish"
)
_EXPOSING_VERB = (
    r"(?<![-_/.\w])(?:print|echo|log|dump|display|show|reveal|output|expose|leak|paste|send|post|share|upload|"
    r"forward|commit|push|hard-?code|embed|check\s+in|attach|e?mail|publish)\b(?=[ \t]+[^\s=(:])"
    # a verb takes an object: "output and cache tokens" is a list of nouns
    r"(?![ \t]+(?:and|or|of|from|is|are|was|were|to|for|by)\b)"
)
# Tokens a model reads and writes are not credentials: "input, output and cache tokens".
MODEL_TOKENS = re.compile(
    r"\b(?:input|output|prompt|completion|cache[ds]?|context|max|total|llm|model|reasoning|thinking)"
    r"(?:\s+|-)tokens?\W*$",
    _I,
)
_PLACING_VERBS = "put place store add include write insert append pass set keep save embed hardcode hard-code inline copy mirror"
_BAD_PLACE = (
    r"(?:source(?:\s+code)?|code|codebase|repo(?:sitory)?|url|query\s*(?:string|param(?:eter)?s?)|commit|readme|"
    r"docs?|documentation|logs?|chat|slack|issue|pull\s+request|pr|comment|config(?:uration)?\s+file|dockerfile|"
    r"image|frontend|client|browser|local\s*storage|git|stdout|console|output|prompt)"
)
# Saying where a secret goes is fine when that place is a secret store.
SECRET_STORE = re.compile(
    r"\b(?:vault|secrets?\s+manager|key\s*vault|keychain|1password|ci\s+secrets?|github\s+secrets|"
    r"repository\s+secrets|actions\s+secrets|kms|parameter\s+store|sealed-?secrets|sops|credential\s+manager|"
    r"secret\s+store|password\s+manager|environment\s+secrets?)\b",
    _I,
)
# A list that hides a secret: "add the token field to the log masking list". Its words, and the list named in
# prose (`HIDING_LIST`) or as an identifier after the place it hides from (`HIDING_LIST_NAMED`: `log_masking_list`).
_HIDERS = r"(?:masking|mask|redaction|scrubbing|scrubber)"
_HIDING_PLACES = r"(?:list|rules?|filters?|patterns?|config)"
HIDING_LIST = _HIDERS + r"\s+" + _HIDING_PLACES
HIDING_LIST_NAMED = r"[-_\s]*" + _HIDERS + r"[-_\s]+" + _HIDING_PLACES + r"\b"
# Part of a secret, or a form of it that gives nothing away: how one is told apart in a log.
PARTIAL_SECRET = re.compile(
    r"\b(?:(?:first|last|leading|trailing)\s+(?:\w+\s+){0,2}(?:characters?|chars|digits|letters)|masked|redacted|"
    r"fingerprint|hash(?:ed)?\s+of|" + HIDING_LIST + r")\b",
    _I,
)
# What is printed or logged is about the secret, not the secret: "the name of the secret".
ABOUT_A_SECRET = re.compile(
    r"\b(?:names?|ids?|types?|paths?|locations?|counts?|numbers?|lists?|expir\w*|ages?|lengths?)\s+of\b", _I
)
_FETCHERS = r"(?:iwr|irm|invoke-webrequest|invoke-restmethod)"

_INTERPRETER_WORD = (
    r"`?(?:(?:ba|z|k|da|fi)?sh|python[0-9]?|powershell|pwsh|iex|node|perl|ruby)`?\b"
    r"(?!['’]s|\s+(?:modules?|packages?|library|libraries|scripts?|files?|docs?|versions?|code|api|tests?|"
    r"history|sessions?|prompts?|profiles?|configs?))"
)
# Code that runs what it downloads: `exec(urlopen(…).read())`, `eval(execSync('curl …'))`.
_FETCHED_CODE = (
    r"\b(?:exec|eval)\s*\(\s*[^\n]{0,80}?(?:\burlopen\b|\burllib\b|\brequests\.get\b|\bhttpx\.get\b|"
    r"\bexecSync\s*\(\s*[\"'`](?:curl|wget)\b|\bfetch\s*\(|\bInvoke-WebRequest\b|\bDownloadString\b)"
)

PIPED_SHELL = PhraseRule(
    "piped-shell",
    (
        _p("curl wget fetch", r"\b(?:curl|wget|fetch)\b" + _STAGE + _PIPED_INTO),
        _p(
            "iwr irm invoke-webrequest invoke-restmethod",
            r"\b" + _FETCHERS + r"\b[^\n|;]*\|\s*(?:iex|invoke-expression)\b",
        ),
        _p(
            "iex invoke-expression",
            r"\b(?:iex|invoke-expression)\b\s*\(?\s*(?:\(?\s*new-object\s+(?:system\.)?net\.webclient\)?"
            r"\.downloadstring|\(?\s*" + _FETCHERS + r"\b)",
        ),
        _p("<(", r"(?:\b(?:ba|z|k|da)?sh|\bsource|(?<![\w.])\.)\s+<\(\s*(?:curl|wget)\b", anchored=False),
        _p(
            "$(",
            r"\b(?:(?:ba|z|k|da)?sh|python[0-9.]*|node|eval)\s+(?:-[ce]\s+)?[\"']?\$\(\s*(?:curl|wget)\b",
            anchored=False,
        ),
        # An encoded payload decoded straight into a shell: `echo … | base64 -d | sh`.
        _p(
            "base64 base32 xxd",
            r"\b(?:base(?:64|32)\s+(?:-\w+\s+)*(?:-d|-D|--decode)|xxd\s+(?:-\w+\s+)*-r)\b"
            + _STAGE
            + _PIPED_INTO,
        ),
        _p("exec eval", _FETCHED_CODE),
        # Prose: "pipe the installer into bash", "feed the script to sh".
        _p(
            "pipe piping piped pipes feed feeding",
            r"\b(?:pip(?:e|es|ed|ing)|feed(?:s|ing)?)\b[^.\n]{0,80}?\b(?:in)?to\s+(?:a\s+|the\s+)?"
            + _INTERPRETER_WORD,
        ),
    ),
    "runs a downloaded script straight in a shell; download it, check it (pinned version or checksum), then run it",
)

CREDENTIAL_HANDLING = PhraseRule(
    "credential-handling",
    (
        _p(_EXPOSING_VERBS, _EXPOSING_VERB + r"[^.,;\n]{0,40}?" + _SECRET_NOUN, opens_clause=True),
        _p(
            _PLACING_VERBS,
            r"(?<![-_/.\w])(?:put|place|store|add|include|write|insert|append|pass|set|keep|save|embed|hard-?code|"
            r"inline|copy|mirror)\b(?=[ \t]+[^\s=(:])[^.,;\n]{0,40}?"
            + _SECRET_NOUN
            + r"[^.\n]{0,40}?\b(?:in|into|to|inside|within|(?:at|to)\s+the\s+(?:end|start|beginning|top|bottom|foot)\s+of)\s+"
            r"(?:the\s+|a\s+|your\s+)?(?:[\w-]+\s+){0,2}" + _BAD_PLACE + r"\b",
            opens_clause=True,
        ),
        _p(
            "echo print puts console. logger. logging. log. println fmt.print",
            r"\b(?:echo|print|printf|puts|console\.(?:log|error|info|warn)|logger\.\w+|logging\.\w+|log\.\w+|"
            r"println|fmt\.print\w*)\b\s*\(?[^)\n]{0,40}?(?:\$\{?|os\.environ|process\.env\.|getenv\(|env\[)\s*"
            r"[\[(\"']{0,2}\w*(?:token|secret|password|passwd|api_?key|private_?key|credentials?)",
        ),
        _p(
            "cat",
            r"\bcat\s+[^\n|;]*(?:\.env(?![\w.])|id_(?:rsa|ed25519|ecdsa|dsa)\b(?!\.pub)|\.pem\b|credentials\b|"
            r"\.npmrc\b|\.pypirc\b|\.netrc\b|\.git-credentials\b|\.docker/config\.json|kubeconfig\b|\.kube/config\b)",
        ),
        _p(
            "ask",
            r"\bask\s+(?:the\s+)?users?\s+(?:for|to\s+(?:paste|send|share|enter|provide|type))\s+"
            r"(?:their\s+|his\s+|her\s+|the\s+|a\s+|an\s+|your\s+)?" + _SECRET_NOUN,
        ),
        # The environment's variables sent to an address, in prose: "mirror the CI environment variables to
        # https://…", "post every env var to the webhook". Any address: an allowed host is no safer a sink.
        # Gated on the rarer word it needs (the verbs are everyday words), so it is tried where it starts.
        _p(
            "environment env",
            r"\b(?:send|post|upload|forward|mirror|sync|copy|ship|stream|relay|transmit|exfiltrate|dump|push)\b"
            r"[^.;\n]{0,40}?\b(?:environment(?:\s+variables?)?|env(?:ironment)?\s+vars?|env\s+variables?)\b"
            r"[^.;\n]{0,30}?\b(?:to|into|at)\s+(?:the\s+|an?\s+|our\s+|this\s+)?[`<]?"
            r"(?:https?://|(?:[\w-]+\.)+[a-z]{2,}/|webhooks?\b|endpoints?\b|servers?\b|hosts?\b|urls?\b)",
            opens_clause=True,
            anchored=False,
        ),
        # The environment or a credential file sent over the network: `printenv | curl -d @- …`.
        _p(
            "printenv env set export cat",
            r"\b(?:printenv|env|set|export\s+-p|cat\s+[^\n|;]*?" + SECRET_FILE + r")\s*\|\s*(?:\S*/)?"
            r"(?:curl|wget|nc|ncat|netcat|socat|telnet|gh|base64|mail|sendmail|xclip|pbcopy)\b",
        ),
        _p(
            "curl",
            r"\bcurl\b[^\n]*?\s(?:-d|--data(?:-binary|-raw|-urlencode)?|-F|--form|-T|--upload-file)[\s=]*[\"']?"
            r"(?:[\w-]+=)?@?[\"']?" + SECRET_FILE,
        ),
    ),
    "asks to print, share or commit a credential, or to put one in code or a URL; keep secrets in the secret "
    "store and out of code, logs and chat",
)

DISABLE_SECURITY = PhraseRule(
    "disable-security",
    (
        _p("verify", r"\bverify(?:_ssl|_certs?)?\s*=\s*False\b"),
        _p("ssl_verify sslverify", r"\bssl_?verify\s*[:=]\s*(?:false|0|no)\b"),
        _p("--insecure", r"(?<![\w-])--insecure\b"),
        _p("curl", r"\bcurl\b[^\n|;]*\s-k\b"),
        _p("node_tls_reject_unauthorized", r"\bNODE_TLS_REJECT_UNAUTHORIZED\s*=\s*[\"']?0"),
        _p("rejectunauthorized", r"\brejectUnauthorized\s*:\s*false\b"),
        _p("insecureskipverify", r"\bInsecureSkipVerify\s*:\s*true\b"),
        # Python's TLS context without verification: `ssl._create_unverified_context`, `CERT_NONE`,
        # `check_hostname = False`.
        _p(
            "_create_unverified_context ssl.cert_none cert_none check_hostname",
            r"\b_create_unverified_context\b|\bCERT_NONE\b|\bcheck_hostname\s*=\s*False\b",
            anchored=False,
        ),
        _p(
            "--no-verify --no-check-certificate --insecure-skip-tls-verify --skip-tls-verify --disable-web-security "
            "--no-sandbox --allow-unauthenticated --disable-content-trust --privileged",
            r"(?<![\w-])--(?:no-verify|no-check-certificate|insecure-skip-tls-verify|skip-tls-verify|"
            r"disable-web-security|no-sandbox|allow-unauthenticated|disable-content-trust|privileged)\b",
        ),
        _p("--tls-verify", r"--tls-verify\s*=\s*false\b"),
        _p("strict-ssl strict_ssl", r"\bstrict[-_]ssl\s*(?:[:=]\s*|\s+)false\b"),
        _p("git_ssl_no_verify", r"\bGIT_SSL_NO_VERIFY\s*=\s*(?:1|true)\b"),
        _p("http.sslverify", r"\bhttp\.sslVerify\s+false\b"),
        _p("pythonhttpsverify", r"\bPYTHONHTTPSVERIFY\s*=\s*0\b"),
        _p("--trusted-host", r"(?<![\w-])--trusted-host\b"),
        # Packages installed without their signatures checked: an apt source marked trusted, yum/dnf's
        # GPG check off.
        _p(
            "trusted nogpgcheck gpgcheck",
            r"\[\s*trusted\s*=\s*yes\s*\]|(?<![\w-])--nogpgcheck\b|\bgpgcheck\s*=\s*0\b",
            anchored=False,
        ),
        # Hooks and scanners switched off: `git commit -n`, `HUSKY=0`, `SKIP=gitleaks`, a null hooks path.
        _p("git", r"\bgit\s+commit\b[^\n;&|`]*?\s-(?!-)[a-zA-Z]*n[a-zA-Z]*(?=[\s`'\"]|$)"),
        _p("husky", r"\bHUSKY\s*=\s*[\"']?0\b|\bHUSKY_SKIP_HOOKS\s*=\s*[\"']?(?:1|true)\b"),
        _p(
            "skip",
            r"(?-i:\bSKIP)\s*=\s*[\"']?[\w,-]*(?:detect-secrets|gitleaks|trufflehog|secrets?|bandit|semgrep|"
            r"security|talisman|ggshield)",
        ),
        _p("core.hookspath hookspath", r"\bcore\.hooksPath\s*[= ]\s*[\"']?/dev/null\b"),
        _p("gitleaksignore gitleaks allowlist trufflehog", SCANNER_IGNORE, anchored=False),
        # SSH without host-key checks.
        _p(
            "stricthostkeychecking userknownhostsfile",
            r"\bStrictHostKeyChecking\s*[=\s]\s*[\"']?(?:no|off|false)\b|\bUserKnownHostsFile\s*[=\s]\s*/dev/null\b",
        ),
        # Containers without their confinement.
        _p(
            "seccomp apparmor label systempaths",
            r"\b(?:seccomp|apparmor|systempaths)\s*[=:]\s*unconfined\b|\blabel\s*[=:]\s*disable\b",
        ),
        _p("--cap-add", r"--cap-add[=\s]+[\"']?(?:ALL|SYS_ADMIN|SYS_PTRACE|SYS_MODULE|NET_ADMIN)\b"),
        # Web framework settings that switch protection off.
        _p("debug", r"(?-i:\bDEBUG\s*=\s*True\b)"),
        _p("allowed_hosts", r"\bALLOWED_HOSTS\s*=\s*[\[(]\s*[\"']\*[\"']"),
        # Deserialising what an attacker may control.
        _p(
            "pickle cpickle dill marshal jsonpickle",
            r"\b(?:c?pickle|dill|marshal|cloudpickle)\.loads?\s*\(|\bjsonpickle\.decode\s*\(",
        ),
        _p(
            "yaml.load yaml.unsafe_load yaml.full_load",
            r"\byaml\.(?:unsafe_load|full_load)(?:_all)?\s*\(|"
            r"\byaml\.load(?:_all)?\s*\((?![^)\n]*Loader\s*=\s*(?:yaml\.)?C?(?:Safe|Base)Loader)",
        ),
        _p(
            "csrf",
            r"\bcsrf_exempt\b|\b(?:WTF_)?CSRF_ENABLED\s*=\s*False\b|\bcsrf\s*[:=]\s*false\b|\.csrf\(\)\s*\.disable\(\)",
            anchored=False,
        ),
        # World-writable modes: 777, 666, 0662…, o+w, a+rw (a socket or a file anyone may change).
        _p("chmod", r"\bchmod\s+(?:-R\s+)?(?:0?[0-7]?[0-7][0-7][2367](?=\s|$)|(?:a|o|ugo)\+r?wx?\b)"),
        _p("setenforce", r"\bsetenforce\s+0\b"),
        _p("allowanonymous permitall", r"\bAllowAnonymous\b|\bpermitAll\(\)"),
        # a suppression, unless it names the one check it silences and says why (`# nosec B608: …`)
        _p(
            "nosec nosemgrep noqa",
            r"#\s*nosec\b(?!" + _REASONED + r")|#\s*nosemgrep\b(?!:\s*[\w.-]+\s*[:\-–—]\s*[a-z])|"
            r"\bnoqa\s*:\s*S\d{3}\b(?!\s*[:\-–—]\s*[a-z])",
            anchored=False,
        ),
        _p("eslint-disable", r"\beslint-disable(?:-next-line|-line)?\b[^\n]*\bsecurity\b"),
        _p("set-executionpolicy", r"\bSet-ExecutionPolicy\s+(?:Bypass|Unrestricted)\b"),
        _p("ufw iptables", r"\bufw\s+disable\b|\biptables\s+-F\b"),
        _p("docker_content_trust", r"\bDOCKER_CONTENT_TRUST\s*=\s*0\b"),
        _p(
            "allow_origins allow-origin",
            r"\ballow_origins\s*=\s*\[\s*[\"']\*[\"']\s*\]|\bAccess-Control-Allow-Origin\s*:\s*\*",
        ),
        _p(
            "disable disabling turn turning switch switching bypass bypassing skip skipping",
            r"\b(?:disable|disabling|turn(?:ing)?\s+off|switch(?:ing)?\s+off|bypass(?:ing)?|skip(?:ping)?)\s+"
            r"(?:the\s+|all\s+|any\s+)?(?:ssl|tls|https|certificate|cert|hostname|signature|csrf|xsrf|auth|"
            r"authentication|authorization|2fa|mfa|sso|firewall|sandbox|secret\s+scanning|code\s+scanning|"
            r"branch\s+protection|pre-commit\s+hooks?|git\s+hooks?|commit\s+hooks?|security|"
            r"secrets?\s+scanners?|secrets?\s+detection|push\s+protection|dependabot(?:\s+alerts)?|"
            r"code\s+scanners?|gitleaks|trufflehog|detect-secrets|antivirus|virus\s+scann(?:er|ing)|selinux|"
            r"apparmor|seccomp|audit\s+log(?:ging|s)?|"
            r"(?:certificate|ssl|tls)\s+(?:verification|validation|checks?))\b(?!\s+(?:tests?|docs?|page|team)\b)",
        ),
        _p(
            "disable turn switch remove ignore",
            r"\b(?:disable|turn\s+off|switch\s+off|remove|ignore)\s+(?:the\s+)?(?:\w+\s+){0,2}(?:linter'?s?|lint)\s+"
            r"security\s+(?:rules?|checks?|warnings?)",
        ),
    ),
    "switches off a security check (TLS verification, CSRF, auth, hooks, permissions); keep it on, or state "
    "the narrow exception",
)

INJECTION = PhraseRule(
    "injection",
    (
        _p(
            "ignore disregard forget override bypass",
            r"\b(?:ignore|disregard|forget|override|bypass)\s+(?:(?:all|any|the|your|my|every|of)\s+)*"
            r"(?:previous|prior|above|earlier|preceding|former|original|system|other|existing|safety)?\s*"
            r"(?:instructions?|prompts?|guidelines|directions|directives|guardrails)\b",
        ),
        _p(
            "ignore disregard forget override",
            r"\b(?:ignore|disregard|forget|override)\s+(?:(?:all|any|the|your|every)\s+)*"
            r"(?:previous|prior|above|earlier|preceding|system|safety)\s+(?:rules|context|constraints|policies)\b",
        ),
        _p(
            "disregard",
            r"\bdisregard\b[^.\n]{0,30}\b(?:system|developer)\s+(?:prompt|message|instructions?)\b",
        ),
        _p("you from", r"\byou\s+are\s+now\b|\bfrom\s+now\s+on,?\s+you\b"),
        _p(
            "act behave",
            r"\b(?:act|behave)\s+as\s+(?:if\s+you\s+(?:are|were)\s+)?(?:an?\s+)?(?:unrestricted|jailbroken|"
            r"unfiltered|dan\b|evil|root\b|admin(?:istrator)?\b|developer\s+mode)",
        ),
        _p(
            "pretend jailbreak",
            # not the attack named as a thing the team collects and tests ("jailbreak attempts", "a jailbreak eval")
            r"\bpretend\s+(?:to\s+be|you\s+are)\b|\bjailbreak(?!s?\s+(?:attempts?|prompts?|tests?|cases?|examples?|"
            r"detect\w*|evals?|attacks?|payloads?|corpus|datasets?|strings?|techniques?|resistance|classifiers?|"
            r"suites?|fixtures?)\b)",
        ),
        _p(
            "do~not don't dont never",
            r"\b(?:do\s+not|don'?t|never)\s+(?:tell|inform|notify|alert|warn|show|mention\s+(?:this\s+|it\s+)?to|"
            r"report\s+(?:this\s+|it\s+)?to)\s+(?:the\s+)?users?\b",
        ),
        _p(
            "without",
            r"\bwithout\s+(?:asking|telling|informing|notifying|consulting|alerting|confirming\s+with)\s+(?:the\s+)?"
            r"users?\b|\bwithout\s+the\s+users?'?s?\s+(?:knowledge|consent|approval|permission)\b",
        ),
        _p(
            "keep hide conceal",
            r"\bkeep\s+(?:this|it|these\s+instructions)\s+(?:secret|hidden)\s+from\s+the\s+users?\b|"
            r"\b(?:hide|conceal)\s+(?:this|it|these\s+\w+|the\s+\w+)\s+from\s+the\s+users?\b",
        ),
        _p(
            "system new important",
            r"\b(?:system\s+prompt|system\s+message|new\s+instructions|important\s+instructions?)\s*:",
        ),
        _p(
            "<|im_start|> <|system|> [inst] [/inst] <<sys>>",
            r"<\|im_start\|>|<\|system\|>|\[/?INST\]|<<SYS>>",
        ),
        _p(
            "this",
            r"\bthis\s+(?:rule|instruction)\s+(?:overrides?|supersedes?|takes\s+precedence\s+over)\b",
        ),
        _p("higher top", r"\b(?:higher|top)\s+priority\s+than\s+(?:the\s+)?(?:user|system|any)\b"),
        _p("reveal", r"\breveal\s+(?:your|the)\s+(?:system\s+prompt|instructions|hidden\s+instructions)\b"),
        # "Ignore the above and…", "disregard everything above" (but "ignore the above warning" is advice).
        _p(
            "ignore disregard forget",
            r"\b(?:ignore|disregard|forget)\s+(?:all\s+|everything\s+|anything\s+)?(?:of\s+)?"
            r"(?:the\s+|that\s+|what(?:'s|\s+is|\s+was)\s+(?:written\s+|said\s+)?)?"
            r"(?:above|before\s+this|previous(?:ly)?|prior|preceding|earlier)\b"
            r"(?!\s+(?:warnings?|errors?|steps?|examples?|sections?|notes?|tables?|lists?|code|outputs?|tests?|lines?|"
            r"paragraphs?|commands?|messages?|logs?|screenshots?|figures?|images?|snippets?|values?|versions?|"
            r"releases?|runs?|results?|failures?|exceptions?))",
        ),
        # A new order dressed as a heading: "NEW TASK:", "Updated instructions:".
        _p(
            "new updated real actual additional secret hidden revised true",
            r"\b(?:new|updated|real|actual|additional|secret|hidden|revised|true)\s+(?:tasks?|instructions?|"
            r"directives?|orders?|objectives?|goals?|missions?)\s*:",
            opens_clause=True,
        ),
        # A chat transcript's role line or a model's control tags inside a rule.
        _p(
            "assistant system human",
            r"(?m:^)[ \t>*_\-]*(?-i:(?:Assistant|System|Human))[ \t]*:[ \t]*\S",
            anchored=False,
        ),
        _p(
            "<system </system <instruction <instructions </instruction </instructions <assistant </assistant "
            "<human </human <|endoftext|> <|im_end|>",
            r"</?(?:system(?:[-_]\w+)?|instructions?|assistant|human)(?:\s[^>\n]{0,40})?>|<\|(?:endoftext|im_end)\|>",
        ),
    ),
    "speaks to the agent over its user's head (ignore instructions, hide things from the user, act without "
    "asking); a rule must never steer the agent against its user",
)

# A resource made for one change and torn down with it: `pr-1234`, `preview-481`, `review-feature-x-12`,
# `pr-$PR_NUMBER`, `pr-*`.
_PER_CHANGE = r"(?:pr|mr|preview|review|ephemeral|tmp|temp)-(?:[\w-]*\d[\w-]*|\$\{?\w+\}?|\*)(?![\w-])"
# A place made to be thrown away, in any family: a scratch clone or checkout, a backup or stale copy, a
# disposable container or VM, a resource made for one change or named as scratch (`tmp_import`).
_THROWAWAY_PLACE = (
    r"(?:fresh|throwaway|throw-away|disposable|scratch|temporary|temp|ephemeral|sandbox(?:ed)?|one-off|short-lived|"
    r"backup|stale)\s+(?:[`'\"\w*$-]+\s+)?(?:clones?|checkouts?|cop(?:y|ies)|worktrees?|work\s+trees?|workspaces?|"
    r"containers?|vms?|virtual\s+machines?|sandboxes?|namespaces?|environments?|databases?|schemas?|files?)\b"
)
THROWAWAY_NAME = re.compile(
    # scratch by its first or its last word: `tmp_import`, `refund_tmp`, `orders_scratch`
    r"(?<![\w-])(?:"
    + _PER_CHANGE
    + r"|(?:tmp|temp|scratch)_\w+|(?:\w+\.)?\w+_(?:tmp|temp|scratch)(?![\w-]))|"
    # a backup copy's name: `homeostat.yaml.bak`, `settings.json.orig`
    r"^[\w.-]*\.(?:bak|orig|old|tmp|swp|backup)\b",
    _I,
)
# The risky thing confined to such a place by the words after it: "… in a scratch clone", "… runs only in
# ephemeral `pr-*` workspaces", "… of the stale backup copy".
CONFINED_AFTER = re.compile(
    r"^[^.!?;]{0,80}?\b(?:in|on|inside|within|against|to|for|of|from)\s+(?:(?:a|an|the|your|its|their|each|every|one)\s+)?"
    r"(?:" + _THROWAWAY_PLACE + r"|[`'\"]?" + _PER_CHANGE + r")|"
    r"^[`'\"]?[\w.-]*\.(?:bak|orig|old|tmp|swp|backup)\b",
    _I,
)
# A checkout made to be thrown away: a command confined to its work tree (`git clean -fdx`) loses
# nothing there.
DISPOSABLE_CHECKOUT = re.compile(
    r"\b(?:fresh|throwaway|throw-away|disposable|scratch|temporary|temp|ephemeral|new)\s+(?:\w+\s+)?"
    r"(?:clones?|checkouts?|worktrees?|work\s+trees?|workspaces?|containers?)\b",
    _I,
)
WORK_TREE_ONLY = re.compile(r"git\s+(?:clean|reset)\b", _I)
# A destructive command the rule leaves to the user to allow: "… ask before running it", "check with the
# owner first", "ask for confirmation before running `terraform destroy`". Not "no need to ask before running it", nor asking about something else ("ask before
# running the linter").
ASKS_FIRST = re.compile(
    r"\b(?:asks?|check\s+with|confirm\s+with)\b(?:\s+(?:the|a|its|their|them|him|her|users?|owners?|developers?|"
    r"persons?|people|team|someone|whoever\s+owns\s+it|permission|"
    r"for\s+(?:(?:an?\s+)?(?:explicit\s+)?(?:confirmation|approval|permission|go-ahead|sign-off)|the\s+go-ahead)))*"
    r"\s+(?:first\b|before\s+(?:(?:running|using|executing|"
    r"invoking|calling|typing|trying)\s+(?:(?:any|each|one|all)\s+of\s+)?(?:it|this|that|them|one|the\s+command)\b|"
    r"(?:running|using|executing)\s+`|doing\s+(?:so|that|this)\b|you\s+(?:run|use|type|do)\b)|"
    # the choice left to the person: "say so and ask which to follow"
    r"(?:which|whether)\s+(?:one\s+)?to\s+(?:follow|use|run|apply|keep)\b)",
    _I,
)
# What makes an ask no ask: "no need to ask first", "never ask before", "don't bother to check with…".
ASK_WAIVED = re.compile(
    r"\b(?:no\s+need|never|not|n't|don'?t|dont|needn'?t|without|skip|stop)\b(?:\s+\w+){0,3}\s*$", _I
)
ASK_WAIVER_REACH = 40  # how far before an ask its waiver is looked for


def asks_first(text: str, start: int, end: int) -> bool:
    """Between `start` and `end` the text leaves the act to a person (`ASKS_FIRST`), and the asking is
    not waived just before it (`ASK_WAIVED`)."""
    return any(
        not ASK_WAIVED.search(text, max(start, ask.start() - ASK_WAIVER_REACH), ask.start())
        for ask in ASKS_FIRST.finditer(text, start, end)
    )


# A credential set apart from what a sentence exposes, in the same list: "Log the request id, never the
# Authorization header", "… but not the token", "… except the cookies". Not a negation that turns on the
# secret again ("not just the header", "no matter what", "never masking the token").
SET_APART = re.compile(
    r"(?:[,;(]|\band\b|\bbut\b)\s*(?:(?:but|and)\s+)?(?:never|not|no|nor)\s+(?!(?:only|just|merely|simply|even|"
    r"matter|exceptions?|redact\w*|mask\w*|hash\w*|strip\w*|omit\w*|hid\w*|filter\w*|scrub\w*|truncat\w*|"
    r"remov\w*|drop\w*|censor\w*|obfuscat\w*)\b)|"
    r"\b(?:except|excluding|without|minus|rather\s+than|instead\s+of)\s+(?!(?:redact\w*|mask\w*|hash\w*|strip\w*|"
    r"filter\w*|scrub\w*|truncat\w*|censor\w*|obfuscat\w*|removing|dropping|hiding|omitting)\b)",
    _I,
)

DESTRUCTIVE = PhraseRule(
    "destructive-command",
    (
        _p(
            "rm ",
            r"\brm\s+(?:-[a-zA-Z]*\s+|--[a-z-]+\s+)*?(?:-[a-zA-Z]*[rR][a-zA-Z]*|--recursive)\s+"
            r"(?:-[a-zA-Z]+\s+|--[a-z-]+\s+)*[\"']?(?:/\*?|~/?\*?|\$HOME/?\*?|\$\{HOME\}/?\*?|\*|\.\.?/?|"
            r"\$\{?\w+\}?/\*?)[\"']?(?=[\s;&|`)]|$)",
        ),
        _p(
            "git",
            r"\bgit\s+push\b[^\n;&|`]*?(?:\s--force(?:-with-lease)?\b|\s-f\b)[^\n;&|`]*?\b(?:main|master)\b|"
            r"\bgit\s+push\b[^\n;&|`]*?\b(?:main|master)\b[^\n;&|`]*?\s(?:--force(?:-with-lease)?|-f)\b|"
            # a `+` refspec forces whatever it names onto main: `+main`, `+HEAD:main`, `+HEAD:refs/heads/main`
            r"\bgit\s+push\b[^\n;&|`]*?\s\+(?:[^\s:`'\"]*:)?(?:refs/heads/)?(?:main|master)\b|"
            r"\bgit\s+push\s+\S+\s+(?:--delete\s+|:)(?:main|master)\b",
        ),
        _p("git", r"\bgit\s+reset\s+--hard\s+(?:origin|upstream)\b"),
        _p("git", r"\bgit\s+clean\s+-(?=[a-zA-Z]*f)(?=[a-zA-Z]*d)(?=[a-zA-Z]*x)[a-zA-Z]+"),
        _p("drop", r"\bdrop\s+(?:table|database|schema)\s+(?:if\s+exists\s+)?[\w.\"`\[]+"),
        # (not the keyword named in a list: "migrations containing DROP, TRUNCATE or DELETE need a second approver")
        _p(
            "truncate",
            r"\btruncate\s+table\s+[\w.\"`\[]+|"
            r"(?-i:\bTRUNCATE\s+(?!(?:or|and|nor|statements?|commands?|queries|query|rights?|privileges?)\b)[\w.\"`\[]+)",
        ),
        _p("delete", r"\bdelete\s+from\s+[\w.\"`\[\]]+\s*(?:;|$)"),
        _p(
            "mkfs", r"\bmkfs(?:\.\w+)?\s+(?:-\S+\s+(?:[^-/\s]\S*\s+)?){0,8}/dev/"
        ),  # options, some with a value
        _p("dd", r"\bdd\s+[^\n]*\bof=/dev/(?:sd|hd|nvme|xvd|vd|disk|mmcblk)"),
        _p("/dev/sd", r">\s*/dev/sd[a-z]\b", anchored=False),
        _p(":(", r":\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:"),
        _p("chmod chown", r"\bchmod\s+-R\s+0{3,4}\s+/(?=\s|$)|\bchown\s+-R\s+\S+\s+/(?=\s|$)"),
        # (a namespace made for one pull request or preview, `pr-1234`, is torn down when it closes)
        _p(
            "kubectl",
            r"\bkubectl\s+delete\s+(?:ns|namespaces?)\b(?!\s+"
            + _PER_CHANGE
            + r")|\bkubectl\s+delete\b[^\n]*\s--all\b",
        ),
        _p("terraform", r"\bterraform\s+destroy\b"),
        _p(
            "aws gsutil",
            r"\baws\s+s3\s+(?:rm\s+[^\n]*--recursive|rb\s+[^\n]*--force)\b|\bgsutil\s+(?:-m\s+)?rm\s+-r\b",
        ),
        _p("flush db.dropdatabase", r"\bflush(?:all|db)\b|\bdb\.dropDatabase\(\)"),
        _p(
            "remove-item del format",
            r"\bRemove-Item\b[^\n]*-Recurse[^\n]*\s(?:[A-Za-z]:\\\s|[A-Za-z]:\\?$|/\s|~)|"
            r"\bdel\s+/[sq]\s+/[sq]\s+[a-zA-Z]:\\|\bformat\s+[a-zA-Z]:(?=\s|$)",
        ),
        _p("shred wipefs", r"\b(?:shred|wipefs)\s+[^\n]*/dev/"),
        # `find / -delete`, `find ~ -exec rm -rf {} +`: deletes across the whole disk or home.
        _p(
            "find",
            r"\bfind\s+(?:-[HLP]\s+)*[\"']?(?:/|~/?|\$HOME/?|\$\{HOME\}/?|/home/?|/root/?|/etc/?|/var/?|/usr/?)[\"']?"
            r"(?=\s)[^\n;|&]*?\s(?:-delete\b|-exec(?:dir)?\s+(?:sudo\s+)?(?:/bin/)?(?:rm|shred)\b)",
        ),
    ),
    "runs a command that destroys data or history (rm -rf on / or ~, force-push to main, DROP TABLE); scope "
    "it to what must go, or remove it",
)

PHRASE_RULES: tuple[PhraseRule, ...] = (
    PIPED_SHELL,
    CREDENTIAL_HANDLING,
    DISABLE_SECURITY,
    INJECTION,
    DESTRUCTIVE,
)

# Words that turn an instruction into a warning when they open its clause: "Never pass verify=False",
# "Do not run rm -rf in CI", "Avoid `chmod 777`", "instead of piping curl to sh".
# An exception a team's policy confines, read as one in every family: the risky thing left to one actor
# or job that is not the agent ("only the release bot commits with `--no-verify`"), allowed only in a
# named place ("… is allowed only on the nightly job"), kept off ("keep `autoApprove` off"), or a
# suppression that must give its reason ("a `# nosec` comment must name the check and say why").
EXCEPTION_BEFORE = r"\bonly\s+(?:the\s+|our\s+)?(?:[\w-]+\s+){0,2}(?:bots?|nightly|canary|cron|scheduled)\b"
EXCEPTION_AFTER = (
    # a suppression that needs its reason ("a `# nosec B608` needs its reason on the same line"), an act
    # reserved for a named role that is not the reader ("… is reserved for the on-call, with a ticket")
    r"^[^.!?]{0,60}?\b(?:needs?|requires?)\s+(?:an?\s+|its\s+|the\s+)?(?:written\s+)?(?:reason|justification)\b|"
    r"^[^.!?]{0,60}?\b(?:is|are)\s+(?:only\s+)?reserved\s+for\s+(?:the\s+|our\s+)?"
    r"(?!(?:you|yourself|agents?|assistants?|ai|bots?|everyone|everybody|anyone|anybody|all|any|us)\b)[\w-]+|"
    r"^[`'\"]?\s*(?:off|disabled|unset)\b|"
    # the side job it belongs to, named after it: "the only job with `continue-on-error: true` is `nightly-canary`"
    r"^[`'\"]?\s+(?:is|are)\s+(?:the\s+)?[`'\"]?[\w-]*(?:nightly|canary|experimental|cron|scheduled)[\w-]*[`'\"]?"
    r"(?![^.;\n]{0,60}\bso\b)|"
    # kept to the reader's own disposable place: "… only in your own ephemeral workspace (`dev-<handle>`)"
    r"^[^.!?]{0,40}?\bonly\s+(?:in|on|against|inside)\s+your\s+own\s+(?:[\w-]+\s+){0,2}?"
    r"(?:workspaces?|sandbox(?:es)?|namespaces?|branch(?:es)?|forks?|containers?|scratch\s+\w+|stacks?|"
    r"dev\s+environments?|preview\s+environments?)\b|"
    r"^[^.!?]{0,60}?\b(?:is|are)\s+(?:only\s+(?:allowed|permitted|acceptable)|(?:allowed|permitted|acceptable)\s+only)\b|"
    r"^[^.!?]{0,60}?\bmust\s+(?:name|cite|give|state|carry|include|say|link)\b[^.!?]{0,60}?"
    r"\b(?:why|reason|justification|rule|check|issue|ticket)\b"
)
# The same warnings in the other languages teams write rules in: a prohibition word ("ne … pas", "nicht",
# "nunca", "не", "不要", "決して"), never a "without" (`ohne`, `sans`, `без`: "run it without asking" orders it).
_PROHIBITION_WORLD = (
    # (no bare French "ne", nor Italian "mai": Romanian reads them "us" and "more"; "pas" and "non" carry them)
    r"\b(?:pas|jamais|nicht|nie|niemals|keine?[nmrs]?|nunca|jamás|não|non(?![-\w])|niet|nooit|"
    r"nigdy|inte|aldrig|не|никогда|нельзя|ні|ніколи|không|đừng|évite[zr]?|vermeide\w*|evit[ae]\w*|vermijd\w*|"
    r"unikaj\w*|undvik\w*|избега\w*|уникай\w*|interdit\w*|verboten|prohibid\w*|proibid\w*|vietat\w*|"
    r"запрещ\w*|заборон\w*|"
    # Nordic, Baltic and Finnic "not", "never", "forbidden", "avoid": `ikke`, `aldri`, `ekki`, `älä`, `ära`
    r"ikke|aldri|forbudt|undgå|unngå|förbjud\w*|ekki|aldrei|bannað|älä|älkää|ei\s+saa|kielletty\w*|"
    r"koskaan|vältä\w*|ärge|ära|keelatud|nekad|niekada|aizliegt\w*|draudžiam\w*|"
    # Czech and Slovak "never", "forbidden", and a verb's negated imperative (`nepoužívej`, `nevypínejte`;
    # not `nechte`, "leave it"); Hungarian "never", "forbidden", "must not", and "ne" before an imperative
    r"nikdy|zakázan\w*|zakázán\w*|ne(?!ch|cess)[^\W\d_]{2,}(?:ej|ejte|ěj|ějte|uj|ujte|ij|ijte|aj|ajte)|"
    r"soha|tilos\w*|nem\s+szabad|kerüld\w*|"
    # "ne" before an imperative (Hungarian `ne használj`, `ne kapcsold`; Serbian and Croatian `ne koristi`)
    r"ne\s+[^\W\d_]+(?:j|jon|jék|jen|d|dd|sd|zd|ld|jad|jed|i|ite|aj|ajte|uj|ujte|jte)|"
    # South Slavic "don't", "never", "forbidden"
    r"nemoj\w*|nikad\w*|nikoli|zabranjen\w*|prepovedan\w*|немој\w*|никад\w*|забрањен\w*|никога|"
    r"niciodată|interzis\w*|μην|ποτέ|απαγορεύ\w*|jangan|dilarang|tidak\s+boleh|huwag|bawal|kamwe|marufuku|"
    r"usi\w{2,}e|mos|kurrë|kurre|nuk|ndalo\w*|asla|yasak\w*|ешқашан|тыйым|hech\s+qachon|taqiqla\w*|"
    r"არასოდეს|აკრძალ\w*|ნუ|երբեք|արգել\w*|մի)(?![\w'’])|"
    # a negated imperative or a ban in scripts with no word boundary before them: Hebrew `אל ת…`, `אסור`,
    # `לעולם`; Arabic `لا ت…`, `لا ي…`, `ممنوع`, `أبدا`; Persian and Urdu `هرگز`, `ممنوع`; Thai, Lao, Khmer
    r"(?<![\u05d0-\u05ea])(?:אל\s+ת|אסור|לעולם\s+(?:אל|לא))|(?<![\u0600-\u06ff])(?:لا\s+[تي]|ممنوع|أبدا|ابدا|"
    r"يحظر|يمنع|هرگز|نباید|کبھی\s+نہیں|مت\b)|อย่า|ห้าม|ຢ່າ|ຫ້າມ|កុំ|ហាមឃាត់|"
    r"(?:不要|不得|不能|不可|不准|别|別|禁止|切勿|勿|避免|決して|絶対に)"
)
# A label that marks what follows as the bad example: "Bad: `curl … | sh`", "❌ Wrong:", "Don't do this:".
_BAD_LABEL = (
    r"^\s*(?:[*_]{1,2}\s*)?(?:❌|✗|✘|⛔|🚫)|"
    r"^\s*(?:[*_]{1,2}\s*)?(?:bad|wrong|incorrect|insecure|unsafe|vulnerable|dangerous|anti-?pattern|"
    r"(?:never|don'?t|do\s+not|avoid)(?:\s+do(?:ing)?)?\s+(?:this|that|these))\b(?:\s+(?:example|way|pattern|"
    r"code|version))?\s*(?:[*_]{1,2}\s*)?[:\-–—]"
)
# Words that set the thing after them up to be found and stopped: "Flag any `verify=False` in review",
# "grep for `curl | sh` in CI".
_DETECTION = (
    r"\b(?:flag(?:s|ged)?|catch(?:es)?|report(?:s|ed)?)\s+(?:any|every|each|all|uses?\s+of)\b|"
    r"\b(?:grep|lint)(?:s|ed)?\s+for\b|\b(?:look|watch)\s+out\s+for\b"
)
# (Not a bare "detect", "search for" or "look for": "detect the platform and pipe `curl … | sh`" orders it.)
NEGATION_BEFORE = re.compile(
    r"\b(?:never|not|no|don'?t|dont|doesn'?t|isn'?t|aren'?t|won'?t|cannot|can'?t|mustn'?t|shouldn'?t|avoid|avoids|"
    r"avoiding|stop|instead\s+of|rather\s+than|without|forbid\w*|prohibit\w*|disallow\w*|refuse|reject|"
    r"warn(?:s|ed|ing)?\s+against|beware|nor|prevent\w*|block\w*|ban|bans|banned)\b|"
    + EXCEPTION_BEFORE
    + "|"
    + _PROHIBITION_WORLD
    + "|"
    + _BAD_LABEL
    + "|"
    + _DETECTION,
    _I,
)
# …or when they follow it: "`chmod 777` is forbidden", "piping curl to sh is not allowed".
# An ellipsis ("curl … | sh", NFKC's "...") is no sentence end.
_IN_SENTENCE = r"(?:\.\.\.|[^.!?。！？])"
NEGATION_AFTER = re.compile(
    r"^"
    + _IN_SENTENCE
    + r"{0,60}?\b(?:is|are|was|were)\s+(?:not\s+allowed|forbidden|prohibited|banned|dangerous|"
    r"unsafe|insecure|never\s+(?:ok|okay|acceptable|allowed)|a\s+security\s+risk|discouraged|not\s+permitted)\b"
    # (not "… is not allowed to be removed", which keeps it)
    r"(?:(?<!allowed)(?<!permitted)|(?!\s+to\b))|"
    # kept out by a modal: "`InsecureSkipVerify: true` must not appear outside tests" (not "must not be removed")
    r"^"
    + _IN_SENTENCE
    + r"{0,60}?\b(?:must|should|may|can|shall)(?:\s+not|\s+never|n['’]t)\s+(?:ever\s+)?(?:be\s+)?"
    r"(?:appear\w*|used|set|enabled|turned\s+on|committed|merged|added|shipped|ship|land|reach\w*|exist|show\s+up|"
    r"present|passed|introduced|checked\s+in|deployed)\b|"
    # what it does stated as its harm: "turning off certificate checks makes every request open to a MITM"
    r"^"
    + _IN_SENTENCE
    + r"{0,60}?\b(?:makes?|leaves?|renders?)\s+"
    + _IN_SENTENCE
    + r"{0,40}?\b(?:open|vulnerable|"
    r"exposed)\s+to\b|^"
    + _IN_SENTENCE
    + r"{0,60}?\b(?:lets?\s+(?:an?\s+)?attackers?|exposes?\s+(?:\w+\s+){0,3}to\s+"
    r"(?:attack|man-in-the-middle|mitm|takeover|theft))|"
    # a sentence-final prohibition reaching back over a code span read as one word: "`verify=False` や
    # `InsecureSkipVerify: true` で証明書検証を無効にしないでください"
    r"^`?(?:\s*`[^`\n]*`|[^.!?。！？、，,;；`\n]){0,40}?(?:(?<!忘れ)ないで|しないこと|禁止|(?<!잊)지\s*마|금지|不允许)|"
    # the prohibition after the thing, where other languages put it: "`curl | sh` でインストールしないでください"
    r"^" + _IN_SENTENCE + r"{0,40}?(?:(?<!忘れ)ないで|しないこと|禁止|(?<!잊)지\s*마|금지|不允许|"
    r"(?:ist|sind)\s+verboten|(?:est|sont)\s+interdit|(?:está|están|é|são|è)\s+(?:prohibid|proibid|vietat)\w*|"
    # Hindi, Marathi, Bengali, Urdu, Persian, Tamil, Telugu, Kannada, Malayalam and Turkic prohibitions,
    # which close the sentence: "`verify=False` को कभी इस्तेमाल न करें", "`verify=False` kullanmayın"
    r"न\s+कर(?:ें|ो|ना)|मत\s+कर|वर्जित|निषिद्ध|नका\b|করবেন\s+না|করো\s+না|নিষিদ্ধ|نہ\s+کریں|"
    r"مت\s+کریں|نکنید|نکن\b|வேண்டாம்|கூடாது|వద్దు|కూడదు|ಬೇಡ|ಮಾಡಬಾರದು|രുത്|"
    r"\w+(?:mayın|meyin|mayınız|meyiniz)\b|\w+(?:баңыз|беңіз|паңыз|пеңіз|маңыз|меңіз)\b)|" + EXCEPTION_AFTER,
    _I,
)
# Phrases that hold a negation word but order the thing they precede: "never forget to", "don't skip",
# "it is not optional to", "no need to check it:". They are blanked before NEGATION_BEFORE is read.
DOUBLE_NEGATIVE = re.compile(
    r"\b(?:never|not|no|don'?t|dont|doesn'?t|mustn'?t|shouldn'?t|won'?t|cannot|can'?t)\s+(?:ever\s+)?"
    r"(?:forget|skip|neglect|omit|fail|hesitate|miss|overlook)\w*\b|"
    r"\b(?:not|never|no\s+longer|isn'?t|aren'?t)\s+(?:optional|negotiable)\b|"
    # a prohibition negated is a permission: "we don't block `curl | sh`", "nobody forbids `verify=False`"
    r"\b(?:not|never|no\s+longer|don'?t|dont|doesn'?t|won'?t|nobody|no\s+one)\s+(?:ever\s+)?"
    r"(?:block|forbid|ban|prohibit|disallow|reject|refuse|prevent)s?\b|"
    r"\bno\s+(?:need|reason|point)\s+(?:to\s+|in\s+|for\s+)?(?:check|verify|validate|review|read|inspect|worry|"
    r"test|audit|look|ask|confirm)\w*\b|"
    r"\bwithout\s+(?:first\s+)?(?:checking|verifying|validating|reviewing|reading|inspecting|auditing|asking|"
    r"confirming|looking|testing|hesitation|fail|exception)\b|"
    r"\bnever\s+(?:check|verify|validate|review|inspect|audit)\b(?!\s+in\b)|"
    # the same double negatives in the languages `_PROHIBITION_WORLD` reads: "n'oubliez pas", "vergiss nicht",
    # "no olvides", "не забудь", "不要忘记", "别犹豫"
    r"\bn['’]\s*(?:oubli|hésit)\w*\s+(?:pas|jamais)\b|\b(?:vergiss|vergessen|zögere|zögern)\w*\s+(?:\w+\s+)?nicht\b|"
    r"\b(?:no|não|non|nie|не|ні)\s+(?:olvid|dud|esqueç|hesit|dimentic|esit|zapomn|заб|стесня|бойт|соромт)\w*|"
    r"\b(?:vergeet|glöm)\s+(?:\w+\s+)?(?:niet|inte)\b|(?:不要|别|別|不能|千万别|勿)\s*(?:忘|犹豫|猶豫)",
    _I,
)
# What may come before a verb that opens its clause: "Print the token", "You should print the token",
# and a short label first: "Tip: print the token", "Step 2: paste it".
CLAUSE_LEAD = re.compile(
    r"^(?:[^:\n]{0,30}:[ \t]+)?(?:[\s\-*+>#`_\d.)]|\b(?:to|should|must|please|and|then|also|always|just|you|we|i|"
    r"can|will|could|would|may|might|shall|or|first|now|simply|make\s+sure|be\s+sure|remember|ensure|"
    r"feel\s+free|go\s+ahead\s+and|need|have|want|it'?s\s+(?:fine|ok|okay|safe)|it\s+is\s+(?:fine|ok|okay|safe))\b)*$",
    _I,
)
