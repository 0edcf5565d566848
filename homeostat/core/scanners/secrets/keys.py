"""What a key name says about its value: a password, some other secret, or nothing in particular.

`DB_PASSWORD`, `clientSecret`, `_authToken` and `heroku_api_key` hold secrets; `credentialsId`,
`secretSize`, `public_key` and `password_hash` name something else, even though they share words.
"""

from __future__ import annotations

import re
from enum import Enum, auto
from functools import lru_cache


class KeyClass(Enum):
    PASSWORD = auto()
    SECRET = auto()
    OTHER = auto()
    IGNORE = auto()


_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
# psk: WPA; requirepass, masterauth: Redis; rootpw: OpenLDAP
_PASSWORD_WORDS = frozenset(
    {"pass", "pwd", "passwd", "password", "passphrase", "pw", "psk", "requirepass", "masterauth", "rootpw"}
)
_PASSWORD_PARTS = ("password", "passwd", "passphrase")
_SECRET_WORDS = frozenset(
    {
        "secret",
        "secrets",
        "token",
        "tokens",
        "key",
        "apikey",
        "accesskey",
        "secretkey",
        "privatekey",
        "masterkey",
        "signingkey",
        "encryptionkey",
        "authkey",
        "appkey",
        "clientkey",
        "credential",
        "credentials",
        "creds",
        "auth",
        "authtoken",
        "bearer",
        "pat",
        "jwt",
        "sas",
        "cookie",
    }
)
_SECRET_PARTS = ("secret", "token", "apikey", "credential")
# A last word that makes the key name a property of the secret, not the secret itself.
_NOT_THE_VALUE = frozenset(
    "id ids name names size file files path paths dir url uri urls length len type types version ref refs "
    "arn count prefix suffix header headers field fields format mode hint policy expiry expires expiration "
    "ttl endpoint host region alias label labels enabled required min max pattern regex env var location "
    "hash digest checksum provider store manager rotation timeout reset validation strength lifetime "
    "source kind scope scopes usage limit param params method algorithm algo index idx".split()
)
_NEVER_SECRET = frozenset(
    "public publishable pub sha sha1 sha256 sha512 md5 integrity srcrev revision rev commit etag "
    "uuid guid "
    # what holds a secret only encrypted or hashed: `encrypted_password`, `hashed_password`, a
    # SealedSecret's `encryptedData`
    "encrypted ciphertext sealed hashed".split()
)
# Product names that contain a secret word but say nothing about the value (`onepassword_vault`).
_PRODUCT_WORDS = frozenset({"onepassword", "lastpass", "keepass", "keepassxc", "passbolt"})


def key_words(key: str) -> list[str]:
    """`AUTH_CLIENTSECRET` → [auth, clientsecret]; `oktaApiToken` → [okta, api, token]."""
    return [w for w in (w.lower() for w in _WORD.findall(key)) if w not in _PRODUCT_WORDS]


# Keys that are a digest's algorithm: `h1:` in go.sum, `sha256:`, `md5:`.
_DIGEST_KEYS = frozenset("h1 md5 sha1 sha224 sha256 sha384 sha512 blake2b blake2s blake3 crc32 xxh64".split())


# A JSON Web Key's public members (the private ones are `d`, `p`, `q`, `dp`, `dq`, `qi`, `k`).
_PUBLIC_JWK_MEMBERS = frozenset({"x", "y", "n", "e", "x5c", "x5t", "kid"})


@lru_cache(maxsize=4096)
def classify_key(key: str) -> KeyClass:
    if key.lower() in _DIGEST_KEYS or key in _PUBLIC_JWK_MEMBERS:
        return KeyClass.IGNORE
    words = key_words(key)
    if not words:
        return KeyClass.OTHER
    if words[-1] in _NOT_THE_VALUE or any(w in _NEVER_SECRET for w in words):
        return KeyClass.IGNORE
    if any(w in _PASSWORD_WORDS or any(p in w for p in _PASSWORD_PARTS) for w in words):
        return KeyClass.PASSWORD
    if any(w in _SECRET_WORDS or any(p in w for p in _SECRET_PARTS) for w in words):
        return KeyClass.SECRET
    return KeyClass.OTHER


@lru_cache(maxsize=4096)
def takes_uuid_token(key: str) -> bool:
    """`api_token`, `heroku_api_key`, `_authToken`: a UUID here is the credential itself."""
    words = key_words(key)
    return any("token" in w for w in words) or "apikey" in words or ("api" in words and "key" in words)


def is_aws_secret(key: str) -> bool:
    """`aws_secret_access_key`, `AWS_SECRET_ACCESS_KEY`, `awsSecretKey`."""
    words = key_words(key)
    return "aws" in words and any("secret" in w for w in words)
