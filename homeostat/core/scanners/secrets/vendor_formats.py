"""Token formats that identify themselves: a vendor prefix or a fixed shape, no context needed.

Each format names the literal prefixes it starts with; one search for any prefix, run only inside
long token-like runs of the text, finds where to try the formats. Shape-only formats (Discord bot
tokens, Telegram, Azure AD client secrets…) name a literal their run must contain instead. Every
match still has to pass `looks_fake`, which drops `ghp_xxxx…`, `glc_1111…` and the like.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property

from homeostat.core.scanners.secrets.values import is_identifier_like

_E = r"(?![A-Za-z0-9_])"  # no word character after
_ED = r"(?![A-Za-z0-9_\-])"  # nor a dash, for formats whose alphabet has one


@dataclass(frozen=True)
class Format:
    kind: str
    prefixes: tuple[str, ...]
    source: str  # the whole token's regex, prefix included
    bounded: bool = True  # the character before the token must not be a word character
    # A prefix short or common enough to start a name (`pa-`, `API-`, `fw_`): the token must also
    # hold a digit and not read as words joined by `-` or `_`.
    weak: bool = False

    @cached_property
    def pattern(self) -> re.Pattern[str]:
        """Compiled the first time one of its prefixes is met: most texts meet few or none, and the
        sixty-odd patterns were half of this module's import time."""
        return re.compile(self.source)


def _f(kind: str, prefixes: str, body: str, *, bounded: bool = True, weak: bool = False) -> Format:
    """`prefixes` is space-separated; `body` is the whole token's regex, prefix included."""
    return Format(kind, tuple(prefixes.split()), body, bounded, weak)


_UUID_BODY = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
_B64_END = r"(?![A-Za-z0-9+/=])"


FORMATS: tuple[Format, ...] = (
    # Cloud
    _f(
        "aws-access-key",
        "A3T AKIA ASIA ABIA ACCA AGPA AIDA AROA AIPA ANPA ANVA APKA",
        r"(?:A3T[A-Z0-9]|[A-Z]{4})[A-Z0-9]{16}" + _E,
    ),
    _f("gcp-api-key", "AIza", r"AIza[0-9A-Za-z_\-]{35}" + _ED),
    _f("digitalocean-token", "dop_v1_ doo_v1_ dor_v1_", r"do[opr]_v1_[a-f0-9]{64}" + _E),
    _f("heroku-api-key", "HRKU-", r"HRKU-[A-Za-z0-9_\-]{58,64}" + _ED),
    _f("flyio-token", "fo1_ fm1 fm2_", r"(?:fo1_[\w\-]{43}|fm[12][ar]?_[A-Za-z0-9+/]{100,}={0,3})" + _ED),
    _f("alibaba-access-key", "LTAI", r"LTAI[A-Za-z0-9]{20}" + _E),
    _f("openshift-token", "sha256~", r"sha256~[\w\-]{43}" + _ED),
    _f("scalingo-token", "tk-us-", r"tk-us-[\w\-]{48}" + _ED),
    _f("age-secret-key", "AGE-SECRET-KEY-1", r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}" + _E),
    # Code hosts and package registries
    _f("github-pat", "ghp_", r"ghp_[A-Za-z0-9]{36,255}" + _E),
    _f("github-oauth-token", "gho_", r"gho_[A-Za-z0-9]{36,255}" + _E),
    _f("github-app-token", "ghu_ ghs_", r"gh[us]_[A-Za-z0-9_]{36,255}" + _E),
    _f("github-refresh-token", "ghr_", r"ghr_[A-Za-z0-9_]{36,255}" + _E),
    _f("github-fine-grained-pat", "github_pat_", r"github_pat_[A-Za-z0-9_]{60,255}" + _E),
    _f(
        "gitlab-token",
        "glpat- gldt- glrt- glsoat- glptt- glft- glimt- gloas- glcbt- glffct- glagent- GR1348941",
        r"(?:gl(?:pat|dt|rt|soat|ptt|ft|imt|oas|cbt|ffct|agent)-[0-9A-Za-z_\-]{20,}"
        r"(?:\.[0-9a-z]{2}\.[0-9a-z]{7,9})?|GR1348941[0-9A-Za-z_\-]{20})" + _ED,
    ),
    _f("bitbucket-app-password", "ATBB", r"ATBB[A-Za-z0-9_=.\-]{12,}" + _ED),
    _f("atlassian-api-token", "ATATT3 ATCTT3", r"AT(?:ATT|CTT)3[A-Za-z0-9_\-=]{150,}" + _ED),
    _f("npm-token", "npm_", r"npm_[A-Za-z0-9]{36}" + _E),
    _f("pypi-token", "pypi-Ag", r"pypi-Ag[A-Za-z0-9_\-]{50,}" + _ED),
    _f("rubygems-token", "rubygems_", r"rubygems_[a-z0-9]{48}" + _E),
    _f("nuget-api-key", "oy2", r"oy2[a-z0-9]{43}" + _E),
    _f("dockerhub-token", "dckr_pat_ dckr_oat_", r"dckr_(?:pat|oat)_[A-Za-z0-9_\-]{20,}" + _ED),
    _f("artifactory-token", "AKCp", r"AKCp[A-Za-z0-9]{69}" + _E),
    _f("sourcegraph-token", "sgp_", r"sgp_(?:(?:[A-Fa-f0-9]{16}|local)_)?[A-Fa-f0-9]{40}" + _E),
    # AI
    _f("anthropic-api-key", "sk-ant-", r"sk-ant-(?:api|admin|oat|sid)\d\d-[A-Za-z0-9_\-]{32,}" + _ED),
    _f("openrouter-api-key", "sk-or-v1-", r"sk-or-v1-[a-f0-9]{64}" + _E),
    _f(
        "openai-api-key",
        "sk-",
        # bounded before the marker: `sk-` is in its own alphabet, so `sk-sk-sk-…` would be read from
        # each `sk-` to the run's end and back
        r"sk-(?:(?:proj|svcacct|admin|None)-[A-Za-z0-9_\-]{40,}|[A-Za-z0-9_\-]{20,64}T3BlbkFJ[A-Za-z0-9_\-]{20,})"
        + _ED,
    ),
    _f("huggingface-token", "hf_ api_org_", r"(?:hf_|api_org_)[A-Za-z0-9]{34}" + _E),
    _f("groq-api-key", "gsk_", r"gsk_[A-Za-z0-9]{52}" + _E),
    _f("xai-api-key", "xai-", r"xai-[A-Za-z0-9]{80}" + _E),
    _f("perplexity-api-key", "pplx-", r"pplx-[A-Za-z0-9]{48}" + _E),
    _f("replicate-token", "r8_", r"r8_[A-Za-z0-9]{37}" + _E),
    _f("langsmith-key", "lsv2_pt_ lsv2_sk_", r"lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}" + _E),
    # Messaging and webhooks
    _f(
        "slack-token",
        "xoxa- xoxb- xoxc- xoxp- xoxo- xoxs- xoxr- xoxe xapp- xoxd-",
        r"(?:xox[abcposr]-\d{6,}(?:-\d{6,}){0,3}-(?=[0-9]*[A-Za-z])[0-9A-Za-z]{8,}|xoxd-[A-Za-z0-9%/+=]{40,}"
        r"|xoxe(?:\.xox[bp])?-\d-[A-Za-z0-9]{100,}|xapp-\d-[A-Z0-9]+-\d+-[a-z0-9]{20,})" + _ED,
    ),
    _f(
        "slack-webhook",
        "https://hooks.slack.com/ http://hooks.slack.com/",
        r"https?://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/_\-]{20,}",
        bounded=False,
    ),
    _f(
        "discord-webhook",
        "https://discord http://discord https://ptb.discord https://canary.discord",
        r"https?://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d{15,20}/[A-Za-z0-9_\-]{60,}",
        bounded=False,
    ),
    _f("twilio-api-key", "SK", r"SK[0-9a-fA-F]{32}" + _E),
    _f("sendgrid-api-key", "SG.", r"SG\.[A-Za-z0-9_\-]{16,32}\.[A-Za-z0-9_\-]{30,60}" + _ED),
    _f("mailgun-api-key", "key-", r"key-[0-9a-z]{32}" + _ED),
    # Payment and commerce
    _f(
        "stripe-secret-key",
        "sk_live_ sk_test_ rk_live_ rk_test_",
        r"[sr]k_(?:live|test)_[A-Za-z0-9]{20,247}" + _E,
    ),
    _f(
        "square-token",
        "EAAA sq0atp- sq0csp-",
        r"(?:EAAA[A-Za-z0-9_\-=+/]{22,60}|sq0atp-[A-Za-z0-9_\-]{22}|sq0csp-[A-Za-z0-9_\-]{43})" + _ED,
    ),
    _f(
        "braintree-access-token",
        "access_token$",
        r"access_token\$(?:production|sandbox)\$[a-z0-9]{16}\$[a-f0-9]{32}" + _E,
    ),
    _f("shopify-token", "shpat_ shpca_ shppa_ shpss_", r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}" + _E),
    _f("facebook-token", "EAAC EAAD EAAM", r"EAA[CDM][A-Za-z0-9]{80,}" + _E),
    # Infrastructure, observability and productivity tools
    _f(
        "doppler-token",
        "dp.pt. dp.st. dp.sa. dp.ct. dp.scim. dp.audit.",
        # a service token names its config: `dp.st.prd.…`
        r"dp\.(?:pt|st|sa|ct|scim|audit)\.(?:[a-z0-9][a-z0-9_\-]{0,30}\.)?[A-Za-z0-9]{40,44}" + _E,
    ),
    _f("vault-token", "hvs. hvb. hvr.", r"hv[sbr]\.[A-Za-z0-9_\-]{24,}" + _ED),
    # Legacy Vault tokens are `s.` and 24 random characters: require all three character classes.
    _f(
        "vault-token",
        "s.",
        r"s\.(?=[A-Za-z]*\d)(?=[a-z0-9]*[A-Z])(?=[A-Z0-9]*[a-z])[A-Za-z0-9]{24}" + _E,
    ),
    _f("pulumi-token", "pul-", r"pul-[a-f0-9]{40}" + _E),
    _f("databricks-token", "dapi", r"dapi[a-f0-9]{32}(?:-\d)?" + _E),
    _f("sentry-token", "sntrys_ sntryu_", r"(?:sntrys_eyJ[A-Za-z0-9_=+/\-]{60,}|sntryu_[a-f0-9]{64})" + _ED),
    _f(
        "grafana-token",
        "glsa_ glc_ eyJrIjoi",
        r"(?:glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/]{32,400}={0,2}|eyJrIjoi[A-Za-z0-9]{60,400}={0,2})"
        + _E,
    ),
    _f(
        "newrelic-key",
        "NRAK- NRJS- NRII- NRAA- NRRA- NRIQ- NRIK-",
        r"(?:NRAK-[A-Z0-9]{27}|NRJS-[a-f0-9]{19}|NRII-[A-Za-z0-9_\-]{32}|NR(?:AA|RA|IQ|IK)-[A-Za-z0-9_\-]{27,42})"
        + _ED,
    ),
    _f("linear-api-key", "lin_api_ lin_oauth_", r"lin_(?:api|oauth)_[A-Za-z0-9]{40}" + _E),
    _f("notion-token", "ntn_ secret_", r"(?:ntn_\d{11}[A-Za-z0-9]{35}|secret_[A-Za-z0-9]{43})" + _E),
    _f("postman-key", "PMAK-", r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}" + _E),
    _f("prefect-token", "pnu_", r"pnu_[A-Za-z0-9]{36}" + _E),
    _f("readme-token", "rdme_", r"rdme_[a-z0-9]{70}" + _E),
    _f(
        "onepassword-secret-key",
        "A3-",
        r"A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}" + _E,
    ),
    _f("onepassword-service-token", "ops_eyJ", r"ops_eyJ[A-Za-z0-9+/_\-]{200,}={0,3}"),
    # Databases, deploy and build services
    _f("supabase-secret-key", "sb_secret_", r"sb_secret_[A-Za-z0-9_\-]{24,64}" + _ED),
    _f(
        "planetscale-token",
        "pscale_pw_ pscale_tkn_ pscale_oauth_",
        r"pscale_(?:pw|tkn|oauth)_[A-Za-z0-9_.=\-]{32,64}" + _ED,
    ),
    _f("buildkite-token", "bkua_", r"bkua_[a-f0-9]{40}" + _E),
    _f("airtable-pat", "pat", r"pat[A-Za-z0-9]{14}\.[a-f0-9]{64}" + _E),
    _f("typeform-token", "tfp_", r"tfp_[A-Za-z0-9_.=\-]{40,80}" + _ED),
    _f("google-oauth-client-secret", "GOCSPX-", r"GOCSPX-[A-Za-z0-9_\-]{24,40}" + _ED),
    # Mapbox secret tokens (`pk.` tokens are public): `sk.` + a base64url JSON header + `.` + a tail
    _f("mapbox-secret-token", "sk.eyJ", r"sk\.eyJ[A-Za-z0-9_\-]{20,300}\.[A-Za-z0-9_\-]{20,}" + _ED),
    # Dropbox access tokens: long, after `sl.` (short-lived) or `sl.u.`/`sl.B` (newer)
    _f("dropbox-token", "sl.", r"sl\.[A-Za-z0-9_\-]{130,}(?:\.[A-Za-z0-9_\-]{10,})*" + _ED),
    _f("cloudflare-origin-ca-key", "v1.0-", r"v1\.0-[a-f0-9]{24}-[a-f0-9]{146}" + _E),
    _f("clickhouse-cloud-key", "4b1d", r"4b1d[A-Za-z0-9]{38}" + _E),
    # Issue 29's second held-out set's vendors, and the others whose formats are published
    _f("tencent-secret-id", "AKID", r"AKID[A-Za-z0-9]{32}" + _E),
    _f(
        "aws-session-token",
        "IQoJb3JpZ2lu FwoGZXIvYXdz FQoGZXIvYXdz",
        r"(?:IQoJb3JpZ2lu|F[wQ]oGZXIvYXdz)[A-Za-z0-9+/]{100,}={0,3}" + _B64_END,
    ),
    _f(
        "aws-bedrock-api-key",
        "ABSKQmVkcm9ja0FQSUtleS",
        r"ABSKQmVkcm9ja0FQSUtleS[A-Za-z0-9+/]{40,}={0,3}" + _B64_END,
    ),
    _f("google-access-token", "ya29.", r"ya29\.[A-Za-z0-9_\-]{30,}" + _ED),
    _f("google-refresh-token", "1//0", r"1//0[A-Za-z0-9_\-]{40,}" + _ED),
    _f("yandex-api-key", "AQVN", r"AQVN[A-Za-z0-9_\-]{35,38}" + _ED),
    _f("yandex-iam-token", "t1.", r"t1\.[A-Za-z0-9_\-]{20,}={0,2}\.[A-Za-z0-9_\-]{86}={0,2}" + _ED),
    _f("scaleway-access-key", "SCW", r"SCW[A-Z0-9]{17}" + _E, weak=True),
    _f("circleci-token", "CCIPAT_ CCIPRJ_", r"CCIP(?:AT|RJ)_[A-Za-z0-9]{20,}_[a-f0-9]{40}" + _E),
    _f("sonarqube-token", "squ_ sqp_ sqa_", r"sq[upa]_[a-f0-9]{40}" + _E),
    _f("jfrog-reference-token", "cmVmdGtuOjAxOj", r"cmVmdGtuOjAxOj[A-Za-z0-9+/]{40,}={0,2}" + _B64_END),
    _f("crates-token", "cio", r"cio[A-Za-z0-9]{32}" + _E, weak=True),
    _f("clojars-token", "CLOJARS_", r"CLOJARS_[a-f0-9]{60}" + _E),
    _f("contentful-token", "CFPAT-", r"CFPAT-[A-Za-z0-9_\-]{43}" + _ED),
    _f("figma-token", "figd_ figu_", r"fig[du]_[A-Za-z0-9_\-]{40,}" + _ED),
    _f("netlify-token", "nfp_ nfc_ nfo_ nfu_", r"nf[pcou]_[A-Za-z0-9]{36,40}" + _E),
    _f("render-api-key", "rnd_", r"rnd_[A-Za-z0-9]{32}" + _E),
    _f("deno-deploy-token", "ddp_ ddw_", r"dd[pw]_[A-Za-z0-9]{36}" + _E),
    _f("neon-api-key", "napi_", r"napi_[a-z0-9]{64}" + _E),
    _f("supabase-access-token", "sbp_", r"sbp_[a-f0-9]{40}" + _E),
    _f("xata-api-key", "xau_", r"xau_[A-Za-z0-9]{32,}" + _E),
    _f("pinecone-api-key", "pcsk_", r"pcsk_[A-Za-z0-9]{5}_[A-Za-z0-9]{60,}" + _E),
    _f(
        "tailscale-key",
        "tskey-",
        r"tskey-(?:auth|api|client|scim|webhook)-[A-Za-z0-9]{8,}-[A-Za-z0-9]{20,}" + _E,
    ),
    _f("honeycomb-key", "hcaik_ hcxik_ hcamk_ hcxmk_ hcxlk_", r"hc[ax][iml]k_[A-Za-z0-9]{20,}" + _E),
    _f("axiom-token", "xaat- xapt-", r"xa[ap]t-" + _UUID_BODY + _ED),
    _f("dynatrace-token", "dt0", r"dt0[a-z]\d{2}\.[A-Z0-9]{24}\.[A-Z0-9]{64}" + _E),
    _f("brevo-api-key", "xkeysib- xsmtpsib-", r"x(?:keysib|smtpsib)-[a-f0-9]{64}-[A-Za-z0-9]{16}" + _E),
    _f("mailersend-token", "mlsn.", r"mlsn\.[a-f0-9]{64}" + _E),
    _f("resend-api-key", "re_", r"re_[A-Za-z0-9]{8}_[A-Za-z0-9]{24}" + _E, weak=True),
    _f("onesignal-key", "os_v2_app_ os_v2_org_", r"os_v2_(?:app|org)_[a-z0-9]{100,}" + _E),
    _f("firebase-server-key", "AAAA", r"AAAA[A-Za-z0-9_\-]{7}:APA91b[A-Za-z0-9_\-]{100,}" + _ED),
    _f("intercom-token", "dG9rO", r"dG9rO[A-Za-z0-9+/]{40,}={0,2}" + _B64_END),
    _f("hubspot-token", "pat-na pat-eu pat-ap", r"pat-(?:na|eu|ap)\d-" + _UUID_BODY + _ED),
    _f("asana-token", "0/ 1/ 2/", r"[012]/\d{10,20}(?:/\d{10,20})?:[a-f0-9]{32}" + _E),
    _f("trello-token", "ATTA", r"ATTA[A-Za-z0-9]{64,72}" + _E),
    _f("clickup-token", "pk_", r"pk_\d{6,10}_[A-Z0-9]{32}" + _E),
    _f("shippo-token", "shippo_live_ shippo_test_", r"shippo_(?:live|test)_[a-f0-9]{40}" + _E),
    _f("easypost-key", "EZAK EZTK", r"EZ[AT]K[A-Za-z0-9]{54}" + _E),
    _f("duffel-token", "duffel_live_ duffel_test_", r"duffel_(?:live|test)_[A-Za-z0-9_\-=]{43}" + _ED),
    _f("flutterwave-secret-key", "FLWSECK", r"FLWSECK(?:_TEST)?-[a-f0-9]{32}-X" + _E),
    _f("stripe-webhook-secret", "whsec_", r"whsec_[A-Za-z0-9+/=]{32,}" + _B64_END),
    _f(
        "plaid-access-token",
        "access-sandbox- access-development- access-production-",
        r"access-(?:sandbox|development|production)-" + _UUID_BODY + _ED,
    ),
    _f("stytch-secret", "secret-live- secret-test-", r"secret-(?:live|test)-[A-Za-z0-9_\-=]{30,}" + _ED),
    _f("launchdarkly-key", "sdk- api-", r"(?:sdk|api)-" + _UUID_BODY + _ED),
    _f("posthog-personal-key", "phx_", r"phx_[A-Za-z0-9]{40,}" + _E),
    _f("tavily-api-key", "tvly-", r"tvly-(?:dev-|prod-)?[A-Za-z0-9]{32}" + _E),
    _f("jina-api-key", "jina_", r"jina_[A-Za-z0-9_\-]{60}" + _ED),
    _f("firecrawl-api-key", "fc-", r"fc-[a-f0-9]{32}" + _E),
    _f("cerebras-api-key", "csk-", r"csk-[a-z0-9]{48}" + _E, weak=True),
    _f("fireworks-api-key", "fw_", r"fw_[A-Za-z0-9]{24}" + _E, weak=True),
    _f("voyage-api-key", "pa-", r"pa-[A-Za-z0-9_\-]{43}" + _ED, weak=True),
    _f("langfuse-secret-key", "sk-lf-", r"sk-lf-" + _UUID_BODY + _ED),
    _f("sk-api-key", "sk-", r"sk-[a-f0-9]{32}" + _E),  # DeepSeek and others: `sk-` and 32 hex
    _f("elevenlabs-api-key", "sk_", r"sk_[a-f0-9]{48}" + _E),
    _f("databricks-oauth-secret", "dose", r"dose[a-f0-9]{32}" + _E),
    _f("harness-token", "pat. sat.", r"[ps]at\.[A-Za-z0-9_\-]{22}\.[a-f0-9]{24}\.[A-Za-z0-9]{20}" + _E),
    # base 36, so some letter past F: `API-` and 32 hex is a Notion page id in a URL
    _f("octopus-api-key", "API-", r"API-(?=[A-Z0-9]{0,31}[G-Z])[A-Z0-9]{26,32}" + _E, weak=True),
    _f("adafruit-io-key", "aio_", r"aio_[A-Za-z0-9]{28}" + _E, weak=True),
    _f("frameio-token", "fio-u-", r"fio-u-[A-Za-z0-9_\-=]{64}" + _ED),
    # PASETO tokens: `v1`–`v4`, `local` (encrypted) or `public` (signed), a bearer credential like a JWT
    _f(
        "paseto-token",
        "v1.local. v2.local. v3.local. v4.local. v1.public. v2.public. v3.public. v4.public.",
        r"v[1-4]\.(?:local|public)\.[A-Za-z0-9_\-]{40,}(?:\.[A-Za-z0-9_\-]+)?" + _ED,
    ),
    # BIP-32 extended private keys (base58, 111 characters) and a Nostr secret key (bech32)
    _f(
        "extended-private-key",
        "xprv tprv",
        r"[xt]prv[1-9A-HJ-NP-Za-km-z]{107,108}" + _E,
    ),
    _f("nostr-secret-key", "nsec1", r"nsec1[qpzry9x8gf2tvdw0s3jn54khce6mua7l]{58}" + _E),
    # A Cloudflare tunnel token is base64 of `{"a": account, "t": tunnel, "s": secret}`
    _f("cloudflare-tunnel-token", "eyJhIjoi eyJhIjogI", r"eyJhIjo[ig][A-Za-z0-9+/]{80,}={0,2}" + _B64_END),
)
# The infracost prefix also ends file names (`video_box.ico-7a38…png`), so a dot may not precede it.
_INFRACOST = _f("infracost-token", "ico-", r"ico-[A-Za-z0-9]{32}" + _E)


@dataclass(frozen=True)
class Shape:
    """A format without a literal start: searched in runs that contain `marker`."""

    kind: str
    marker: str
    pattern: re.Pattern[str]


SHAPES: tuple[Shape, ...] = (
    Shape(
        "azure-ad-client-secret",
        "Q~",
        re.compile(
            r"(?<![A-Za-z0-9_~.\-])[A-Za-z0-9_~.\-]{3}\dQ~[A-Za-z0-9_~.\-]{31,34}(?![A-Za-z0-9_~.\-])"
        ),
    ),
    Shape(
        "discord-bot-token",
        ".",
        re.compile(
            r"(?<![A-Za-z0-9_\-])[MNO][A-Za-z0-9_\-]{23,25}\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,38}" + _ED
        ),
    ),
    # Ably: `<app id>.<key id>:<secret>`
    Shape(
        "ably-api-key",
        ":",
        re.compile(r"(?<![\w.\-])[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{6,8}:[A-Za-z0-9_\-]{43}" + _ED),
    ),
    Shape("telegram-bot-token", ":", re.compile(r"(?:(?<=bot)|(?<![\w:]))\d{8,10}:[A-Za-z0-9_\-]{35}" + _ED)),
    Shape(
        "mailgun-api-key", "-", re.compile(r"(?<![A-Za-z0-9_\-])[a-f0-9]{32}-[a-f0-9]{8}-[a-f0-9]{8}" + _ED)
    ),
    Shape("mailchimp-api-key", "-us", re.compile(r"(?<![A-Za-z0-9_\-])[0-9a-f]{32}-us\d{1,2}" + _E)),
    # New Relic's license (ingest) key: 36 hex digits and `NRAL`
    Shape("newrelic-license-key", "NRAL", re.compile(r"(?<![A-Za-z0-9_])[a-f0-9]{36}NRAL" + _E)),
    # Azure DevOps' personal access tokens since 2024: 84 characters with `AZDO` at the 77th
    Shape("azure-devops-pat", "AZDO", re.compile(r"(?<![A-Za-z0-9_])[A-Za-z0-9]{76}AZDO[A-Za-z0-9]{4}" + _E)),
    Shape(
        "terraform-cloud-token",
        ".atlasv1.",
        re.compile(r"(?<![A-Za-z0-9_])[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=\-]{60,70}" + _ED),
    ),
)

_ALL_PREFIXED = (*FORMATS, _INFRACOST)
_PREFIXES = sorted({p for f in _ALL_PREFIXED for p in f.prefixes}, key=len, reverse=True)


def longest_first(words: list[str]) -> str:
    """A regex alternation that matches, where any of `words` starts, the longest one there: what a
    flat alternation sorted longest first matches, written as a trie so that the engine compares a
    character once per branch, not once per word (127 prefixes: a third of the token scan's time)."""
    branches: dict[str, list[str]] = {}
    ends_here = False
    for word in words:
        if word:
            branches.setdefault(word[0], []).append(word[1:])
        else:
            ends_here = True
    # each branch starts with its own character, so at most one can match; a group when there are
    # several, so that the result can be written after a prefix
    parts = [re.escape(first) + longest_first(rests) for first, rests in branches.items()]
    alternation = "|".join(parts)
    if ends_here:
        return f"(?:{alternation})?" if parts else ""  # the word that ends here is tried last
    return alternation if len(parts) <= 1 else f"(?:{alternation})"


_PREFIX_SEARCH = re.compile(longest_first(_PREFIXES))
# For the longest prefix found at a position, every format whose own prefix it starts with.
_FORMATS_FOR: dict[str, tuple[Format, ...]] = {
    hit: tuple(f for f in _ALL_PREFIXED if hit.startswith(f.prefixes)) for hit in _PREFIXES
}
_WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


_JOINED_WORDS = re.compile(r"[A-Za-z]+(?:[_\-][A-Za-z]+)*")


def _random_enough(token: str) -> bool:
    """A weak prefix's token: it holds a digit and is no name (words joined by `-` or `_`, or
    mostly capitalised words: `cioBaseClientConfigurationV2Loader`)."""
    return (
        any(c.isdigit() for c in token)
        and _JOINED_WORDS.fullmatch(token) is None
        and not is_identifier_like(token)
    )


@dataclass(frozen=True)
class TokenMatch:
    kind: str
    start: int
    end: int


def _bounded_ok(fmt: Format, text: str, pos: int) -> bool:
    if pos == 0 or not fmt.bounded:
        return True
    before = text[pos - 1]
    if fmt is _INFRACOST and before == ".":
        return False
    return before not in _WORD_CHARS


def find_tokens(text: str, start: int, end: int) -> Iterator[TokenMatch]:
    """Self-identifying tokens inside `text[start:end]` (a run), before the placeholder check."""
    pos = start
    while True:
        hit = _PREFIX_SEARCH.search(text, pos, end)
        if hit is None:
            break
        pos = hit.start() + 1
        for fmt in _FORMATS_FOR[hit.group(0)]:
            m = fmt.pattern.match(text, hit.start(), end)
            if m and _bounded_ok(fmt, text, hit.start()) and (not fmt.weak or _random_enough(m.group(0))):
                yield TokenMatch(fmt.kind, m.start(), m.end())
                pos = m.end()
                break
    run = text[start:end]
    for shape in SHAPES:
        if shape.marker in run:
            for m in shape.pattern.finditer(text, start, end):
                yield TokenMatch(shape.kind, m.start(), m.end())
