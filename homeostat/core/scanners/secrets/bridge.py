"""What we take from detect-secrets: its JWT check and its IBM Cloud, IBM COS, Cloudant and SoftLayer
detectors, whose key-name rules we would otherwise copy.

Only `analyze_string` is called, never `analyze_line` or `scan_line`: those consult global settings
and may verify a secret over the network, which the pure core must never do. The import is deferred
to first use so that loading the core does not load detect-secrets (and its `requests`) up front.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import Protocol

from homeostat.core.scanners.secrets.found import RANK_FORMAT, Found
from homeostat.core.scanners.secrets.values import looks_fake


class _Plugin(Protocol):
    def analyze_string(self, string: str) -> Iterator[str]: ...


# Each plugin runs only on lines that contain one of its words (lowercased), since their key-name
# prefixes are optional and would otherwise fire on any 44- or 64-character value.
_PLUGIN_GATES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("ibm-cloud-iam-key", "ibm_cloud_iam.IbmCloudIamDetector", ("ibm", "iam")),
    ("ibm-cos-hmac-key", "ibm_cos_hmac.IbmCosHmacDetector", ("ibm", "cos")),
    ("cloudant-credentials", "cloudant.CloudantDetector", ("cloudant",)),
    ("softlayer-key", "softlayer.SoftlayerDetector", ("softlayer", "sl_", "sl-")),
)


@lru_cache(maxsize=1)
def _plugins() -> tuple[tuple[str, _Plugin, tuple[str, ...]], ...]:
    from importlib import import_module

    loaded = []
    for kind, dotted, words in _PLUGIN_GATES:
        module_name, class_name = dotted.split(".")
        module = import_module(f"detect_secrets.plugins.{module_name}")
        loaded.append((kind, getattr(module, class_name)(), words))
    return tuple(loaded)


@lru_cache(maxsize=1)
def _jwt_check() -> Callable[[str], bool]:
    from detect_secrets.plugins.jwt import JwtTokenDetector

    check: Callable[[str], bool] = JwtTokenDetector.is_formally_valid
    return check


def is_valid_jwt(token: str) -> bool:
    """Header and payload decode to JSON: a real JWT, not `eyJ…` noise."""
    return _jwt_check()(token)


_ANY_GATE = re.compile("|".join(re.escape(w) for _, _, words in _PLUGIN_GATES for w in words))


def plugin_hits(line: str, lowered: str) -> Iterator[Found]:
    """Findings of the gated detect-secrets plugins in one line."""
    if _ANY_GATE.search(lowered) is None:
        return
    for kind, plugin, words in _plugins():
        if not any(map(lowered.__contains__, words)):
            continue
        for secret in plugin.analyze_string(line):
            start = line.find(secret)
            if start >= 0 and not looks_fake(secret):
                yield Found(kind, start, start + len(secret), RANK_FORMAT)
