"""Secrets inside a URL other than its userinfo: a query parameter named for one (`?access_token=…`,
`&sig=…` of an Azure SAS, `?code=…` of an Azure Function, `X-Amz-Signature=…`), and the random
path segment of a webhook (`/hooks/<id>` of Mattermost and Rocket.Chat, `/IncomingWebhook/<key>/`
of Teams, Zapier's `/hooks/catch/<n>/<key>/`).

A value must still look random (or, under a password parameter, be a password); a UUID in a
webhook path is an id, and is left alone.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from urllib.parse import unquote

from homeostat.core.scanners.secrets.found import RANK_KEYED, Found
from homeostat.core.scanners.secrets.keys import KeyClass, classify_key
from homeostat.core.scanners.secrets.positional import password_ok
from homeostat.core.scanners.secrets.values import is_reference, is_uuid, looks_random

_URL = re.compile(r"""\b[A-Za-z][A-Za-z0-9+.\-]{1,30}://[^\s"'`<>()\[\]{}|\\^]{1,4096}""")
_PARAM = re.compile(r"[?&;]([A-Za-z_][\w.\-\[\]]{0,63})=([^&#;]{1,1024})")
# Parameters that carry a credential under a name no key rule reads as one.
_SECRET_PARAMS = frozenset(
    "code sig signature x-amz-signature x-amz-security-token x-goog-signature x-goog-credential "
    "private_token privatetoken circle-token key apikey api_key access_token auth authtoken "
    "client_secret refresh_token id_token jwt hmac".split()
)
# Path words after which the next segments are a webhook's secret.
_HOOK_PATH = re.compile(r"/(?i:hooks?|webhooks?|incomingwebhook|webhookb2|catch|triggers)/([^?#]{1,1024})")


def _param_secret(name: str, raw: str) -> bool:
    value = unquote(raw)
    if is_reference(value) or is_reference(raw):
        return False
    cls = classify_key(name)
    if cls is KeyClass.PASSWORD:
        return password_ok(value, quoted=False)
    if cls is KeyClass.IGNORE:
        return False
    if name.lower() == "code" and len(value) < 40:
        return False  # an OAuth authorization code in a redirect (short-lived, short); a function key is long
    if cls is KeyClass.SECRET or name.lower() in _SECRET_PARAMS:
        return not is_uuid(value) and looks_random(value)
    return False


def url_secrets(line: str, lowered: str) -> Iterator[Found]:
    """Query parameters and webhook path segments that hold a secret."""
    if "://" not in line:
        return
    for url in _URL.finditer(line):
        text = url.group(0)
        if "?" in text:
            for m in _PARAM.finditer(text, text.index("?")):
                if _param_secret(m.group(1), m.group(2)):
                    yield Found("url-secret", url.start() + m.start(2), url.start() + m.end(2), RANK_KEYED)
        hook = _HOOK_PATH.search(text)
        if hook is None:
            continue
        offset = url.start() + hook.start(1)
        for segment in re.finditer(r"[^/]+", hook.group(1)):
            value = segment.group(0)
            if len(value) >= 20 and not is_uuid(value) and "@" not in value and looks_random(value):
                yield Found("webhook-secret", offset + segment.start(), offset + segment.end(), RANK_KEYED)


# The rest of a URL after `://`: a line whose URL holds a query or a webhook path needs reading.
URL_TAIL = re.compile(r"""[^\s"'`<>]{0,4096}""")
URL_MARKS = ("?", "hook", "catch/", "triggers/")
