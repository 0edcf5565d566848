"""Judging a candidate value: placeholder, reference, or something that looks like a real secret.

Every detector in the scanner funnels its candidates through these checks, so a placeholder such as
`sk_live_xxxx…`, an env reference such as `${DB_PASSWORD}` or a base64-encoded sentence is rejected
the same way whichever detector found it.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import math
import re
from collections import Counter
from functools import lru_cache

_PLACEHOLDER_WORDS = (
    "xxxx",
    "example",
    "placeholder",
    "changeme",
    "change_me",
    "change-me",
    "replace",
    "dummy",
    "redacted",
    "sample",
    "your_",
    "your-",
    "yourtoken",
    "yourkey",
    "yourpass",
    "_here",
    "-here",
    "insert",
    "todo",
)
# Passwords are short and human-chosen, so a word like "fake" in one means a sample.
_PASSWORD_PLACEHOLDER_WORDS = _PLACEHOLDER_WORDS + ("fake",)
# Whole values that stand for "some value here" rather than being one.
_STAND_IN_VALUES = frozenset(
    "password passwd pass pwd secret token key apikey api_key none null nil true false required optional "
    "string str undefined empty hidden masked value foo bar baz test "
    # password managers and secret stores: where the secret is, not what it is
    "1password lastpass keepass keepassxc bitwarden dashlane passbolt vault".split()
)
_MASK_CHARS = re.compile(r"\*{3,}|•{2,}|…|\.\.\.|#{4,}|_{6,}|-{6,}")
# A name without underscores is short (`PASSWORD`, `GITHUBTOKEN`): twenty random capitals
# (an Erlang `-setcookie` value) are a random value, not a variable.
_ENV_NAME = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|[A-Z]{3,16}")
_REFERENCE = re.compile(
    r"""
      \$\{\{.*\}\}                      # ${{ secrets.X }} (GitHub Actions)
    | \$\{[^{}]*\}                      # ${VAR}, ${VAR:-default}, ${aws_db.x.password}
    | \$\([^()]*(?:\([^()]*\)[^()]*)*\) # $(command)
    | \$(?:[A-Z_][A-Z0-9_]*|[a-z_][a-z0-9_]*|[a-z][A-Za-z0-9]*)  # $VAR, $var, $dbPassword
    | %[A-Za-z_][A-Za-z0-9_]*%          # %VAR% (Windows, NuGet)
    | %\([A-Za-z_][A-Za-z0-9_]*\)[sd]   # %(VAR)s (Python config interpolation)
    | \{\{.*\}\}                        # {{ .Values.apiKey }} (Helm, Jinja)
    | \{[A-Za-z_][\w.]*\}               # {api_key} (format strings)
    | <%.*%>                            # ERB
    | <[^<>]*>                          # <YOUR_TOKEN>, <redacted>
    | \[[^\[\]]*\]                      # [PASSWORD]
    | `[^`]*`                           # `command`
    | (?:os\.environ|os\.getenv|getenv|process\.env|ENV|env|System\.getenv|secrets|vars|var|local)
      (?:\.[A-Za-z_]\w*|\[[^\]]*\]|\([^)]*\))+ .*

    | (?i:vault|op|sm|ssm|ssm-secure|secretsmanager|awssm|aws-sm|gcpsm|gcp-sm|berglas|azkv|akv|keyvault
      |azure-keyvault|doppler|infisical|bw|bitwarden|sops|secret|secretref|kms|ref\+[a-z0-9]+)
      :(?://)?[A-Za-z0-9_\-]+(?:/[\w.\-]+)+(?:[#?][\w./\-=&]+)?  # vault:secret/x#key, op://v/i/f, ref+vault://…
    | arn:aws[\w\-]*:(?:secretsmanager|ssm|kms):\S+     # an AWS secret's ARN
    | (?:[a-z]{2}(?:-[a-z]+)+-\d)?:\d{12}:\S+            # an ARN's tail, read after its service name
    | @Microsoft\.KeyVault\(.*\)                       # Azure App Service's Key Vault reference
    """,
    re.VERBOSE | re.DOTALL,
)
# A bare (unquoted) value that is a dotted name or a call is code, not a literal: `self.password`,
# `var.db_password`, `settings.API_KEY`, `get_token()`, `request.headers["x"]`.
_CODE_EXPRESSION = re.compile(r"[A-Za-z_][\w]*(?:(?:\.|::|->)[A-Za-z_]\w*)*(?:\(.*\)|\[.*\])?[;,)]*")
_SUBSTITUTION_STARTS = ("$(", "${", "{{", "<%", "%(", "`")
# A YAML tag is a name (`!vault`, `!Ref`, `!!binary`, `!Fn::Base64`, `!!python/name:x.y`); a value
# starting with `!` that mixes digits into its letters (`!oqbK5GuE71`) is a password.
_YAML_TAG = re.compile(r"!!?[A-Za-z]+(?:64)?(?:(?:::|[:./_\-])[A-Za-z]+(?:64)?)*")
_CALL_OR_INDEX = re.compile(r"[A-Za-z_][\w.]*[(\[]")
_DOTTED = re.compile(r"[A-Za-z_]\w*(?:(?:\.|::|->)[A-Za-z_]\w*)+")
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_HEX = re.compile(r"[0-9a-f]+|[0-9A-F]+")
_LETTERS_AND_JOINERS = re.compile(r"[A-Za-z][A-Za-z_.\-]*|_[A-Za-z_.\-]+")
_NAME_PART = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+")
_SECRET_NAME_WORDS = frozenset(
    {"password", "passwd", "pass", "pwd", "passphrase", "secret", "token", "key", "credential", "credentials"}
)
_CAPITALISED_WORD = re.compile(r"[A-Z][a-z]{2,}")
_SEGMENT_SPLIT = re.compile(r"[:_\-./]+")
_BASE64_CHARS = re.compile(r"[A-Za-z0-9+/_\-]+={0,2}")
# A version number: digits starting at a word's edge before the dot (`jjwt-jackson-0.11.2`,
# `v1.2`), or ending at one after it (`python3.11`). `4az300.6dgjo16…` (a kubeadm token) has
# digits inside random words on both sides of its dot, and is no version.
_VERSION = re.compile(r"(?<![A-Za-z0-9])[vV]?\d+\.\d|\d\.\d+(?![A-Za-z0-9])")
_TOKEN_CHARS = re.compile(r"[A-Za-z0-9+/=_\-.~:$!@#%^&*?()|]+")
# A vendor's short prefix before a UUID: `sdk-…`, `pat-na1-…`, `xaat-…`, `sk-lf-…`.
_PREFIXED_UUID = re.compile(
    r"(?:[A-Za-z][A-Za-z0-9]{0,11}[\-_.]){1,3}"
    r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
)
# A value that names its own digest algorithm: `SHA256:…` (an SSH host key's fingerprint),
# `sha512-…` (npm integrity), `h1:…` (go.sum), `md5:…`.
_DIGEST_LABEL = re.compile(r"(?i:sha-?(?:1|224|256|384|512)|md5|h1|blake2[bs]?|blake3|sha3-\d{3})[:\-]")
# Letter-digit alternations that make a segment random rather than a name: `HRY95D68312BE6CS41NK`
# has a dozen, `xchacha20poly1305` three.
_ALTERNATION = re.compile(r"(?<=[A-Za-z])(?=\d)|(?<=\d)(?=[A-Za-z])")
_CASE_CHANGE = re.compile(r"(?<=[a-z])(?=[A-Z])")


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def lower_same_length(text: str) -> str:
    """`text.lower()`, unless that changes the length (`İ` lowers to two characters): then ASCII only,
    so offsets into the lowered text stay offsets into `text`."""
    lowered = text.lower()
    return lowered if len(lowered) == len(text) else text.translate(_ASCII_LOWER)


def is_reference(value: str) -> bool:
    """A value that names where the secret lives (env, template, vault path) rather than holding it."""
    v = value.strip()
    if not v:
        return True
    # A bare value cut at its first blank may hold only the start of a substitution or a YAML tag.
    if v.startswith(_SUBSTITUTION_STARTS) or _YAML_TAG.fullmatch(v):
        return True
    return _REFERENCE.fullmatch(v) is not None


# Keys made to be shown: Stripe's publishable keys, Mapbox's public tokens, Supabase's publishable
# keys, SSH public keys. Under a `…_TOKEN` or `…_KEY` key they are still no secret.
_PUBLIC_PREFIXES = (
    "pk_live_",
    "pk_test_",
    "phc_",  # PostHog project key (its personal keys are `phx_`)
    "pk-lf-",  # Langfuse public key
    "FLWPUBK",  # Flutterwave public key
    "pk.eyJ",
    "sb_publishable_",
    "ssh-ed25519 ",
    "ssh-rsa ",
    "ecdsa-sha2-",
)


# A password's hash in the forms that name their scheme: modular crypt (`$2b$`, `$6$`, `$apr1$`,
# `$argon2id$`), Django's (`pbkdf2_sha256$…`), LDAP's (`{SSHA}…`), PostgreSQL's (`SCRAM-SHA-256$…`,
# `md5` and 32 hex digits). A hash lets no one in; it is no secret to report.
_PASSWORD_HASH = re.compile(
    r"""(?:[\w.@+\-]{1,64}:)?  # htpasswd's `user:` before the hash
    (?: \$(?:1|2[abxy]?|5|6|7|y|gy|md5|sha1|apr1|argon2(?:id|i|d)|scrypt|pbkdf2(?:-sha\d+)?|bcrypt(?:-sha256)?)\$\S+
      | (?:pbkdf2_sha\d+|bcrypt(?:_sha256)?|argon2|scrypt|sha1|md5|crypt|unsalted_\w+)\$\S+
      | \{(?i:ssha\d*|sha\d*|smd5|md5|crypt|pbkdf2[\w\-]*|argon2|bcrypt)\}\S+
      | SCRAM-SHA-(?:1|256)\$\S+
      | md5[0-9a-f]{32} )""",
    re.VERBOSE,
)
# Ciphertexts that name their encryption: Vault transit, sops, Jasypt, Ansible Vault, AWS KMS blobs,
# age. Only a holder of the key can read them, which is why they are committed.
CIPHERTEXT_PREFIXES = (
    "vault:v",
    "ENC[",
    "ENC(",
    "$ANSIBLE_VAULT",
    "AQICAH",
    "AQECAH",
    "YWdlLWVuY3J5cHRpb24ub3JnL3Yx",
)


# A Bitnami SealedSecret's value: a version byte (base64 `Ag…`), then an RSA-encrypted session key of
# 256 or 512 bytes and the sealed data, so always hundreds of characters.
_SEALED_PREFIXES = ("AgA", "AgB", "AgC", "AgD")
_SEALED_LENGTH = 340


def is_ciphertext(value: str) -> bool:
    """A ciphertext that names its encryption (`vault:v1:…`, `ENC[…]`, a KMS blob, a SealedSecret)."""
    return value.startswith(CIPHERTEXT_PREFIXES) or (
        len(value) >= _SEALED_LENGTH and value.startswith(_SEALED_PREFIXES)
    )


def is_password_hash(value: str) -> bool:
    return _PASSWORD_HASH.fullmatch(value) is not None


def is_public_value(value: str) -> bool:
    """A key made to be shown, a digest that names its algorithm, a password's hash, a ciphertext
    that names its encryption, or base64 of a certificate or a public key (a kubeconfig's
    `certificate-authority-data`)."""
    if value.startswith(_PUBLIC_PREFIXES) or _DIGEST_LABEL.match(value):
        return True
    if is_ciphertext(value) or ("$" in value and is_password_hash(value)):
        return True
    pem = base64_pem_label(value)
    return pem is not None and "PRIVATE" not in pem


_PEM_IN_BASE64 = "LS0tLS1CRUdJTi"  # "-----BEGIN " in base64
_PEM_LABEL = re.compile(r"-----BEGIN ([A-Z0-9 ]{1,60})-----")


def base64_pem_label(value: str) -> str | None:
    """The label of a PEM block written in base64 (`LS0tLS1CRUdJTi…` is `-----BEGIN …`): `CERTIFICATE`,
    `EC PRIVATE KEY`; None for anything else. Only the head is decoded."""
    if not value.startswith(_PEM_IN_BASE64):
        return None
    head = value[:96]
    head = head[: len(head) - len(head) % 4]
    try:
        decoded = base64.b64decode(head, validate=True).decode("ascii", "replace")
    except (binascii.Error, ValueError):
        return None
    m = _PEM_LABEL.match(decoded)
    return m.group(1) if m else None


def is_code_expression(value: str) -> bool:
    """A bare value that reads as code: a dotted attribute, a call or an index (maybe cut short).
    Dots between random parts (`dt0c01.HRY95D68…`) make a token, not an attribute path."""
    if _CALL_OR_INDEX.match(value):
        return True
    if _CODE_EXPRESSION.fullmatch(value) is None or _DOTTED.match(value) is None:
        return False
    return not any(_random_segment(part) for part in re.split(r"\.|::|->", value))


def _random_segment(segment: str) -> bool:
    """A part no one would name: long, with letters and digits, or small and capital letters,
    alternating again and again (`HRY95D68312BE6CS41NK`, `Xq7rLHEKwjk6BBxrsPEC`; a name changes
    case once a word: `BetaManagedAgentsToolset20260401WriteInput`)."""
    if len(segment) < 16:
        return False
    changes = len(_ALTERNATION.findall(segment)) + len(_CASE_CHANGE.findall(segment))
    return changes >= max(6, len(segment) // 4)


def names_a_secret(value: str) -> bool:
    """A name that mentions a secret rather than holding one: `userPassword`, `cloud-api-token`,
    `ssl_keyfile_password`, `_PasswordType`: only letters, split by case or `_-.`, one part a secret word."""
    if not _LETTERS_AND_JOINERS.fullmatch(value):
        return False
    parts = {p.lower() for p in _NAME_PART.findall(value)}
    return len(parts) >= 2 and not parts.isdisjoint(_SECRET_NAME_WORDS)


def is_identifier_like(value: str) -> bool:
    """A name, not key material: words and small numbers joined by `:_-./` (`user:1234:profile`),
    snake_case with mostly alphabetic parts (`crypto_secretstream_xchacha20poly1305_TAG`), or
    CamelCase made mostly of capitalised words (`AgentToolset20260401WriteInput`)."""
    segments = [seg for seg in _SEGMENT_SPLIT.split(value) if seg]
    if not segments:
        return True
    if any(_random_segment(seg) for seg in segments):
        return False  # `FLWSECK-363cd0c94c27…-X`: short words around a random part
    alpha = [seg for seg in segments if seg.isalpha() and (seg.islower() or seg.isupper() or seg.istitle())]
    if len(segments) >= 3 and len(alpha) * 3 >= len(segments) * 2:
        return True
    letters = sum(c.isalpha() for c in value)
    if letters and sum(len(w) for w in _CAPITALISED_WORD.findall(value)) >= 0.7 * letters:
        return True
    for seg in segments:
        has_alpha = any(c.isalpha() for c in seg)
        has_digit = any(c.isdigit() for c in seg)
        if (has_alpha and has_digit) or len(seg) > 20 or (has_digit and len(seg) > 8):
            return False
    return True


def is_env_name(value: str) -> bool:
    """`PASSWORD`, `SLACK_BOT_TOKEN`: a variable's name standing in for its value."""
    return _ENV_NAME.fullmatch(value) is not None and not any(c.isdigit() for c in value[-4:])


def is_uuid(value: str) -> bool:
    return _UUID.fullmatch(value) is not None


def is_prefixed_uuid(value: str) -> bool:
    """A UUID after a vendor's short prefix (`sdk-…`, `xaat-…`): under a token key, the credential."""
    return _PREFIXED_UUID.fullmatch(value) is not None


def repeated_fraction(value: str) -> float:
    """Share of the value inside runs of three or more identical characters (`0000`, `xxxx`)."""
    if not value:
        return 0.0
    covered = sum(len(m.group(0)) for m in _repeat_runs().finditer(value))
    return covered / len(value)


@lru_cache(maxsize=1)
def _repeat_runs() -> re.Pattern[str]:
    return re.compile(r"(.)\1{2,}", re.DOTALL)


def sequential_fraction(value: str) -> float:
    """Share of the value inside ascending runs of four or more (`abcdefgh`, `123456`)."""
    if len(value) < 4:
        return 0.0
    covered = 0
    run = 1
    for prev, cur in zip(value, value[1:], strict=False):
        if ord(cur) - ord(prev) == 1:
            run += 1
            continue
        if run >= 4:
            covered += run
        run = 1
    if run >= 4:
        covered += run
    return covered / len(value)


# Keys published for everyone to use with a local emulator, which grant nothing anywhere else: the
# Azure Storage emulator's (Azurite's) account key and the Azure Cosmos DB emulator's key. Held as
# the first half of their SHA-256, so the repository holds no key-shaped string.
_PUBLISHED_KEYS = frozenset({"0011cc25eb4320717494d2703e8cba85", "aa6547439583c3a275d4542a0df6c1ad"})
_PUBLISHED_KEY_LENGTHS = frozenset({88})


def is_published_key(value: str) -> bool:
    """One of the emulator keys published in their vendors' documentation."""
    return (
        len(value) in _PUBLISHED_KEY_LENGTHS
        and hashlib.sha256(value.encode()).hexdigest()[:32] in _PUBLISHED_KEYS
    )


def looks_fake(value: str, *, password: bool = False) -> bool:
    """A placeholder, mask or made-up sequence: `xxxx`, `****`, `<token>`, `abcdef123456`, `0000…`,
    or an emulator's published key."""
    if not value:
        return True
    if is_published_key(value):
        return True
    lowered = value.lower()
    if lowered in _STAND_IN_VALUES:
        return True
    words = _PASSWORD_PLACEHOLDER_WORDS if password else _PLACEHOLDER_WORDS
    if any(map(lowered.__contains__, words)) or _MASK_CHARS.search(value):
        return True
    if value[0] in "<[{" and value[-1] in ">]}":
        return True
    distinct = len(set(lowered))
    if (len(value) >= 8 and distinct <= 4) or (len(value) >= 24 and distinct <= 6):
        return True
    if repeated_fraction(value) > 0.4:
        return True
    # People do pick `abcd1234` as a password, so a sequence is only a placeholder in machine tokens.
    return not password and sequential_fraction(lowered) > 0.5


def shannon_entropy(value: str) -> float:
    """Bits per character over the value's own characters."""
    if not value:
        return 0.0
    counts = Counter(value)
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


def base64_text(value: str) -> str | None:
    """What a base64 value decodes to, when that is printable ASCII text."""
    core = value.rstrip("=")
    if len(core) < 8 or not re.fullmatch(r"[A-Za-z0-9+/_\-]+", core):
        return None
    padded = core + "=" * (-len(core) % 4)
    try:
        raw = base64.b64decode(padded.replace("-", "+").replace("_", "/"), validate=True)
    except (binascii.Error, ValueError):
        return None
    try:
        decoded = raw.decode("ascii")
    except UnicodeDecodeError:
        return None
    if not decoded or not all(c.isprintable() or c in "\n\r\t" for c in decoded):
        return None
    return decoded


def is_base64_of_text(value: str) -> bool:
    """Base64 that decodes to ordinary words (`aGVsbG8gd29ybGQ=` is "hello world"), not key material."""
    decoded = base64_text(value)
    if decoded is None:
        return False
    letters = sum(c.isalpha() or c == " " for c in decoded)
    return letters / len(decoded) >= 0.8 and re.search(r"[A-Za-z]{3,}", decoded) is not None


_USER_NAME = re.compile(r"[\w.@+\-\\]{1,128}")


def is_base64_userinfo(value: str) -> bool:
    """Base64 of `user:password` (a Docker config's `auth`, an .npmrc `_auth`, a Basic header)."""
    if len(value) < 12 or not re.fullmatch(r"[A-Za-z0-9+/]+={0,2}", value) or len(value) % 4:
        return False
    try:
        decoded = base64.b64decode(value, validate=True).decode("ascii")
    except (binascii.Error, ValueError):
        return False
    user, colon, password = decoded.partition(":")
    if not _USER_NAME.fullmatch(user):
        return False  # `{"rotate":true,…}`: JSON, whose first colon follows a quoted name
    return bool(colon and decoded.isprintable() and len(password) >= 6 and not looks_fake(password))


def looks_random(value: str, *, strict: bool = False) -> bool:
    """A machine-made string: long, mixed and high in entropy, not a word, version, hash or id.

    `strict` is for values whose key says nothing about secrets (`mimi=…`): only long, clearly
    random base64-like strings count there, never hex (which is how hashes and ids look).
    """
    alphabet = _BASE64_CHARS if strict else _TOKEN_CHARS
    if alphabet.fullmatch(value) is None or looks_fake(value):
        return False
    decoded = base64_text(value) if not strict else None
    if decoded is not None:
        # Base64 of a word, a sentence or a setting is no key; base64 of a random token (a Kubernetes
        # Secret's `data:`) is the token, encoded: judge what it decodes to, under a key that names a secret.
        return _holds_random(decoded.strip())
    if is_base64_of_text(value):
        return False
    if strict and base64_text(value) is not None:
        # Random key material decodes to bytes, not to printable text: base64 of JSON or of a host
        # name (`eyJkZWJ1ZyI6…`, an Elastic Cloud ID) is encoded configuration, unless a key says otherwise.
        return False
    if _VERSION.search(value) or is_identifier_like(value):
        return False  # a version, an address or a name: `jjwt-jackson-0.11.2`, `user:1234:profile`
    n = len(value)
    if _HEX.fullmatch(value):
        if strict or n < 16:
            return False
        return (
            shannon_entropy(value) >= 3.0
            and any(c.isdigit() for c in value)
            and any(c.isalpha() for c in value)
        )
    min_len = 32 if strict else 16
    if n < min_len:
        return False
    classes = sum(
        (
            any(c.islower() for c in value),
            any(c.isupper() for c in value),
            any(c.isdigit() for c in value),
        )
    )
    if classes < (3 if strict else 2):
        return False
    if sum(c.isdigit() for c in value) < 2 and not (classes >= 2 and _random_segment(value)):
        return False  # one digit or none: random only if its case changes again and again
    return shannon_entropy(value) >= min(4.2 if strict else 3.7, math.log2(n) - 0.7)


_RANDOM_RUN = re.compile(r"[A-Za-z0-9+/=_\-.~]{16,}")


def _holds_random(decoded: str) -> bool:
    """Decoded text that is, or holds, key material: a random token, a random run inside JSON (a
    service account's key), or a short mixed string with no blank (a password)."""
    if looks_random(decoded) or any(looks_random(run) for run in _RANDOM_RUN.findall(decoded)):
        return True
    classes = sum(
        (
            any(c.islower() for c in decoded),
            any(c.isupper() for c in decoded),
            any(c.isdigit() for c in decoded),
            any(not c.isalnum() for c in decoded),
        )
    )
    return 8 <= len(decoded) < 16 and classes >= 3 and not any(c.isspace() for c in decoded)


def luhn_valid(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = ord(ch) - 48
        if i % 2 == 1:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0
