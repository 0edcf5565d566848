"""FOURTH HELD-OUT set of secret strings: never tune the scanner against these.

Written 2026-12-04 for issue 29 by an engineer working as an independent red team (branch i29o),
against main as of 1f45fb98d3b31962be4597f8eab40d89757f883a, without reading the scanner
(homeostat/core/safety/, homeostat/core/scanners/), the other sets' cases (tests/secrets_tuning.py,
tests/secrets_heldout.py, tests/secrets_heldout2.py, tests/secrets_heldout3.py) or the shared corpus;
only the third set's module docstring and function names, tests/secret_sets.py (the `Case` type and
`score_cases`), and the files this set is wired into (benchmarks/bench_secrets.py,
tests/core/safety/test_heldout_sets.py, docs/validate.md, which give other sets' totals, never their
cases) were read, for the shape. Every case is written from the author's own knowledge
of real credential formats and of where they turn up (config files, shell history, CI logs, review
comments, chat messages, stack traces, docs prose).

A case's kind is `<family>-<what>`; the families and their counts (`test_heldout_sets.py` checks
them):

Positives (128):
- vendor (50): tokens that identify themselves, bare in prose, logs and configs, from AI/LLM APIs (6:
  OpenAI, Anthropic, Hugging Face, Groq, LangSmith, Pinecone), observability (6: New Relic, Sentry
  twice, Grafana, Dynatrace, Axiom), CI/CD and infrastructure (7: a GitHub App installation token in
  a clone URL, a fine-grained GitHub PAT, a GitLab runner token, Terraform Cloud, Vault, Tailscale, a
  Bitbucket app password), package registries (5: npm, PyPI, NuGet, Docker Hub, JFrog), feature flags
  (4: LaunchDarkly, Flagsmith, Statsig, PostHog), e-mail (3: SendGrid, Resend, Brevo), payments (5:
  Stripe restricted key and webhook secret, Square, Braintree, Shopify), databases as a service (4:
  Neon, PlanetScale, Aiven, Databricks), chat platforms (6: Slack bot token and webhook, Discord bot
  token and webhook, Telegram, a Teams webhook) and other developer tools (4: Linear, Figma,
  SonarQube, Atlassian);
- keyed (38): a secret with no shape of its own after a key or a flag: command-line flags (7: mysql,
  sshpass, redis-cli, sqlcmd, az, vercel, ansible-playbook), env files and shell prefixes (4), config
  dialects (7: YAML, TOML, INI, HCL, JSON, XML, properties), source code (6: PHP, Java, JavaScript,
  Ruby, Rust, C#), deployment files (5: Dockerfile, GitLab CI, Kubernetes, Terraform, Ansible vars),
  HTTP headers and cookies (5: Basic, Bearer, a session cookie, a vendor header holding a UUID, an
  Elasticsearch ApiKey), URL query parameters (2), a chat message and a stack trace's locals (2);
- conn (8): connection strings and URL userinfo (AMQP, rediss, MSSQL, JDBC query, Kafka JAAS, Oracle
  EZConnect, .pgpass, .netrc);
- key (10): private keys and key containers, the key material as the secret (PKCS#1, PKCS#8
  encrypted, OpenSSH, PGP, PuTTY v3, a JWK's `d`, PKCS#12 in a Kubernetes Secret, a PEM with `\\n`
  escapes in an env file, an age identity, an Ethereum key after `--private-key`);
- cloud (12): AWS (3: secret access key, a bare access key id, an STS session token), GCP (3: a
  service-account key, an API key in a URL, a refresh token), Azure (2: storage account key, a
  Functions `code`), Alibaba, DigitalOcean Spaces, Scaleway, Yandex;
- prose (10): passwords given in a sentence in French, German, Spanish, Italian, Portuguese, Dutch,
  Polish, Russian, Japanese and Chinese.

Look-alikes (56), which a good scanner must not flag at all:
- digest (8): image digests, lock-file integrity, pip hashes, go.sum, checksums, SRI, commit SHAs;
- id (9): UUIDs as ids, trace and request ids, container and pod ids, payment object ids, GitHub node
  ids, a Twilio-style message id;
- public (7): public keys, a certificate, key fingerprints, an age recipient, publishable keys that
  vendors intend to ship in web pages (Stripe `pk_live_`, Mapbox `pk.`);
- placeholder (9): `<your-token>`, `xxxx`, `${VAR}`, `{{ secrets.X }}`, Helm values, ellipses, stars,
  REDACTED, a Slack documentation token that says it is not real;
- docexample (3): keys vendors publish as fakes (the AWS documentation pair, the Azurite account key,
  the jwt.io sample token);
- hash (4): password hashes in a users fixture, /etc/shadow and Django (bcrypt, argon2id, sha512-crypt,
  PBKDF2). Labelled NOT secret: a salted slow hash is the form meant for storage and grants no access
  by itself; a scanner that redacts it from a rule hides useful text for no gain;
- encrypted (3): Ansible Vault, SOPS and Sealed Secrets ciphertext, which are made to be committed;
- base64 (3): base64 of ordinary text, of a JSON settings blob, a small data: URI;
- version (3): semver with build metadata, Go pseudo-versions, a Docker tag;
- reference (4): settings that name a secret without holding it (secretKeyRef, password files,
  os.environ lookups, vault paths);
- setting (3): keys that contain password or token with harmless values (a policy's lengths and
  TTLs, an OpenAPI `format: password`), and a French and German sentence that says where a password
  is kept, not what it is.

Every secret is built at run time from split prefixes and seeded random bodies
(`random.Random` with fixed seeds), so the repository holds no literal credential and the set is the
same on every run. Measure it only at the end of a change, with
`benchmarks/bench_secrets.py --heldout4`, which prints its totals only. A miss here is evidence that a
rule generalises badly, not a case to add a rule for; once it has guided a change it is no longer held
out.

Measurements (totals only): none yet; its author did not run the scanner on it.
"""

from __future__ import annotations

import base64
import json
import random

from secret_sets import ALNUM, DIGITS, HEX, LOWER, UPPER, URLSAFE, Case, CaseSet, rnd

B64 = ALNUM + "+/"
BECH32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"


def _t(seed: str, n: int, alphabet: str = ALNUM) -> str:
    """A seeded token body; the seed is namespaced so no other set's strings come out."""
    return rnd(n, alphabet, f"h4:{seed}")


def _hex(seed: str, n: int) -> str:
    return _t(seed, n, HEX)


def _bytes(seed: str, n: int) -> bytes:
    return random.Random(f"h4-bytes:{seed}").randbytes(n)


def _uuid(seed: str) -> str:
    h = _bytes(seed, 16).hex()
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:32]}"


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _jwt(seed: str, claims: dict[str, object], alg: str = "HS256") -> str:
    head = _b64url(json.dumps({"alg": alg, "typ": "JWT"}, separators=(",", ":")).encode())
    body = _b64url(json.dumps(claims, separators=(",", ":")).encode())
    return f"{head}.{body}.{_b64url(_bytes(seed, 32 if alg == 'HS256' else 64))}"


def _pw(seed: str, n: int = 16) -> str:
    """A generated password that starts with a letter and needs no quoting in YAML or a shell."""
    r = random.Random(f"h4-pw:{seed}")
    marks = "-_.!@%"
    while True:
        s = r.choice(UPPER + LOWER) + "".join(r.choice(ALNUM + marks) for _ in range(n - 1))
        if any(c.isdigit() for c in s) and any(c.isupper() for c in s) and any(c in marks for c in s):
            return s


def _human_pw(seed: str) -> str:
    """A password a person chose: words, a year or a number, a mark."""
    r = random.Random(f"h4-human:{seed}")
    words = ["Falcon", "Tornado", "Marmelade", "Zitrone", "Girasol", "Kestrel", "Pomodoro", "Windmolen"]
    return f"{r.choice(words)}{r.choice(['!', '#', '.', '$', '*'])}{r.randint(1000, 9999)}{r.choice(words)}"


def _passphrase(seed: str) -> str:
    r = random.Random(f"h4-phrase:{seed}")
    words = [
        "orbit",
        "lantern",
        "quarry",
        "velvet",
        "pistol",
        "meadow",
        "cobalt",
        "ember",
        "juniper",
        "atlas",
    ]
    return "-".join(r.sample(words, 4)) + str(r.randint(10, 99))


def _pem_body(seed: str, nbytes: int, first: bytes = b"", width: int = 64) -> str:
    data = _b64(first + _bytes(seed, nbytes))
    return "\n".join(data[i : i + width] for i in range(0, len(data), width))


def _vendor_ai(s: CaseSet) -> None:
    k = "vendor-ai"
    openai = "sk" + "-proj-" + _t("oai", 74, URLSAFE) + "T3Blbk" + "FJ" + _t("oai2", 74, URLSAFE)
    s.pos(k, "ugh, pasted my key into the wrong channel: {s}\nrevoking it now, ignore", openai)
    anthropic = "sk-" + "ant-api03-" + _t("ant", 93, URLSAFE) + "AA"
    s.pos(
        k,
        "Eval harness notes\n- model: claude-sonnet\n- key for the shared budget (expires Fri): {s}",
        anthropic,
    )
    hf = "hf" + "_" + _t("hf", 34, UPPER + LOWER)
    s.pos(k, 'from huggingface_hub import login\n\nlogin("{s}")\nmodel = AutoModel.from_pretrained(repo)', hf)
    groq = "gs" + "k_" + _t("groq", 52)
    s.pos(k, '{\n  "provider": "groq",\n  "model": "llama-3.3-70b-versatile",\n  "key": "{s}"\n}', groq)
    langsmith = "lsv2" + "_pt_" + _hex("ls", 32) + "_" + _hex("ls2", 10)
    s.pos(
        k,
        '> client = Client(api_key="{s}")\n\nPlease read this from the environment instead of committing it.',
        langsmith,
    )
    pinecone = "pcsk" + "_" + _t("pc", 5) + "_" + _t("pc2", 62)
    s.pos(k, "INFO  vector-sync  connecting to index=docs-prod with api key {s}", pinecone)


def _vendor_observability(s: CaseSet) -> None:
    k = "vendor-observability"
    nrak = "NR" + "AK-" + _t("nrak", 27, UPPER + DIGITS)
    s.pos(
        k, 'provider "newrelic" {\n  account_id = 3301234\n  api_key    = "{s}"\n  region     = "EU"\n}', nrak
    )
    sntrys = (
        "sntry"
        + "s_"
        + _b64url(json.dumps({"iat": 1733300000.1, "url": "https://sentry.io", "org": "acme"}).encode())
        + "_"
        + _t("sntrys", 43, URLSAFE)
    )
    s.pos(k, "# .sentryclirc\n[defaults]\norg = acme\nproject = web\n\n[auth]\ntoken={s}", sntrys)
    sntryu = "sntry" + "u_" + _hex("sntryu", 64)
    s.pos(k, "Step 7/9 : upload sourcemaps\n+ sentry-cli --auth-token {s} sourcemaps upload ./dist", sntryu)
    glsa = "gl" + "sa_" + _t("glsa", 32) + "_" + _hex("glsa2", 8)
    s.pos(
        k,
        "$ curl -s -H 'Authorization: Bearer {s}' https://grafana.acme.internal/api/dashboards/uid/api-latency",
        glsa,
    )
    dynatrace = "dt0" + "c01." + _t("dt", 24, UPPER + DIGITS) + "." + _t("dt2", 64, UPPER + DIGITS)
    s.pos(k, "OneAgent install failed, token {s} rejected by https://abc12345.live.dynatrace.com", dynatrace)
    axiom = "xa" + "at-" + _uuid("axiom")
    s.pos(k, 'vector.toml:\n[sinks.axiom]\ntype = "axiom"\ndataset = "web-logs"\ntoken = "{s}"', axiom)


def _vendor_cicd(s: CaseSet) -> None:
    k = "vendor-cicd"
    ghs = "gh" + "s_" + _t("ghs", 36)
    s.pos(
        k,
        "remote: Invalid username or password.\n"
        "fatal: Authentication failed for 'https://x-access-token:{s}@github.com/acme/billing.git/'",
        ghs,
    )
    ghpat = "github" + "_pat_" + _t("ghpat", 22) + "_" + _t("ghpat2", 59)
    s.pos(k, "@maria the fine-grained token for the release bot is {s}, scoped to acme/web only", ghpat)
    glrt = "gl" + "rt-" + _t("glrt", 20, URLSAFE)
    s.pos(
        k,
        '[[runners]]\n  name = "build-01"\n  url = "https://gitlab.acme.dev"\n  token = "{s}"\n  executor = "docker"',
        glrt,
    )
    tfc = _t("tfc", 14) + ".atlas" + "v1." + _t("tfc2", 67)
    s.pos(
        k,
        '{\n  "credentials": {\n    "app.terraform.io": {\n      "token": "{s}"\n    }\n  }\n}',
        tfc,
    )
    hvs = "hv" + "s." + "CAESI" + _t("hvs", 86, URLSAFE)
    s.pos(k, "  501  export VAULT_ADDR=https://vault.acme.internal:8200\n  502  vault login {s}", hvs)
    tskey = "tskey" + "-auth-k" + _t("ts", 10) + "CNTRL-" + _t("ts2", 33)
    s.pos(k, "RUN tailscale up --authkey={s} --hostname=ci-runner", tskey)
    atbb = "AT" + "BB" + _t("atbb", 32) + _hex("atbb2", 8).upper()
    s.pos(
        k,
        "git remote set-url origin https://deploy-bot:{s}@bitbucket.org/acme/infra.git",
        atbb,
    )


def _vendor_registry(s: CaseSet) -> None:
    k = "vendor-registry"
    npm = "np" + "m_" + _t("npm", 36)
    s.pos(k, "; ~/.npmrc\n//registry.npmjs.org/:_authToken={s}\nsave-exact=true", npm)
    pypi = "pypi-" + "AgEIcHlwaS5vcmc" + "CJ" + _t("pypi", 150, URLSAFE)
    s.pos(
        k,
        "Run twine upload dist/*\n  TWINE_USERNAME: __token__\n  TWINE_PASSWORD: {s}\nUploading distributions",
        pypi,
    )
    nuget = "oy" + "2" + _t("nuget", 43, LOWER + DIGITS)
    s.pos(
        k,
        "dotnet nuget push bin/Release/Acme.Core.4.2.0.nupkg -k {s} -s https://api.nuget.org/v3/index.json",
        nuget,
    )
    docker = "dckr" + "_pat_" + _t("dckr", 27, URLSAFE)
    s.pos(k, "echo {s} | docker login -u acmebuild --password-stdin", docker)
    jfrog = "AK" + "Cp" + _t("jfrog", 69)
    s.pos(
        k,
        "# gradle.properties\nartifactory_user=ci-publisher\nartifactory_password={s}\norg.gradle.parallel=true",
        jfrog,
    )


def _vendor_flags(s: CaseSet) -> None:
    k = "vendor-flags"
    ld = "sdk" + "-" + _uuid("ld")
    s.pos(
        k,
        'LDClient client = new LDClient("{s}");\nboolean on = client.boolVariation("new-checkout", ctx, false);',
        ld,
    )
    flagsmith = "ser" + "." + _t("flagsmith", 22)
    s.pos(k, "FLAGSMITH_ENVIRONMENT_KEY={s}\nFLAGSMITH_API_URL=https://flags.acme.dev/api/v1/", flagsmith)
    statsig = "secret" + "-" + _t("statsig", 43)
    s.pos(k, "await Statsig.initialize('{s}', { environment: { tier: 'production' } });", statsig)
    posthog = "ph" + "x_" + _t("posthog", 43)
    s.pos(k, "for the insights export use my personal key {s} (Bearer), the project key won't work", posthog)


def _vendor_messaging(s: CaseSet) -> None:
    k = "vendor-messaging"
    sendgrid = "SG" + "." + _t("sg", 22, URLSAFE) + "." + _t("sg2", 43, URLSAFE)
    s.pos(k, "python-http-client.exceptions.UnauthorizedError: HTTP Error 401 (api key {s})", sendgrid)
    resend = "re" + "_" + _t("resend", 8) + "_" + _t("resend2", 24)
    s.pos(
        k, "const resend = new Resend('{s}');\nawait resend.emails.send({ from, to, subject, html });", resend
    )
    brevo = "xkeysib" + "-" + _hex("brevo", 64) + "-" + _t("brevo2", 16)
    s.pos(k, "the Sendinblue/Brevo key in the old cron box is {s}", brevo)


def _vendor_payments(s: CaseSet) -> None:
    k = "vendor-payments"
    rk = "rk" + "_live_" + _t("rk", 99)
    s.pos(k, "Restricted key for the reporting job (read charges only): {s}", rk)
    whsec = "wh" + "sec_" + _t("whsec", 32)
    s.pos(k, "STRIPE_WEBHOOK_SECRET={s}", whsec)
    square = "EA" + "AA" + _t("square", 60, URLSAFE)
    s.pos(
        k,
        "curl https://connect.squareup.com/v2/locations \\\n  -H 'Square-Version: 2024-10-17' \\\n"
        "  -H 'Authorization: Bearer {s}'",
        square,
    )
    braintree = "access_token" + "$production$" + _t("bt", 16, LOWER + DIGITS) + "$" + _hex("bt2", 32)
    s.pos(k, 'gateway = braintree.BraintreeGateway(access_token="{s}")', braintree)
    shopify = "shp" + "at_" + _hex("shpat", 32)
    s.pos(k, "X-Shopify-Access-Token: {s}", shopify)


def _vendor_database(s: CaseSet) -> None:
    k = "vendor-database"
    neon = "na" + "pi_" + _t("neon", 64, LOWER + DIGITS)
    s.pos(k, "neonctl branches create --name preview/pr-481 --api-key {s}", neon)
    pscale = "pscale" + "_tkn_" + _t("pscale", 43, URLSAFE)
    s.pos(k, "PLANETSCALE_SERVICE_TOKEN_ID=k3z9ab1c2d3e\nPLANETSCALE_SERVICE_TOKEN={s}", pscale)
    aiven = "AV" + "NS_" + _t("aiven", 23, URLSAFE)
    s.pos(k, "avnadmin / {s} on pg-acme-prod.a.aivencloud.com:12691 (sslmode=require)", aiven)
    dapi = "da" + "pi" + _hex("dapi", 32)
    s.pos(k, "[DEFAULT]\nhost  = https://adb-4417.7.azuredatabricks.net\ntoken = {s}", dapi)


def _vendor_chat(s: CaseSet) -> None:
    k = "vendor-chat"
    xoxb = "xo" + "xb-" + _t("xoxb1", 12, DIGITS) + "-" + _t("xoxb2", 13, DIGITS) + "-" + _t("xoxb3", 24)
    s.pos(k, "2026-12-01T09:14:03Z WARN slack_sdk token={s} not_authed, retrying", xoxb)
    hook = (
        "https://hooks.slack.com/services/"
        + "T"
        + _t("hk1", 8, UPPER + DIGITS)
        + "/B"
        + _t("hk2", 10, UPPER + DIGITS)
        + "/"
        + _t("hk3", 24)
    )
    s.pos(
        k,
        "alertmanager:\n  receivers:\n    - name: oncall\n      slack_configs:\n        - api_url: {s}",
        hook,
    )
    discord_id = _t("dsid", 18, DIGITS).lstrip("0") or "1"
    discord = _b64url(discord_id.encode()) + "." + _t("ds2", 6, URLSAFE) + "." + _t("ds3", 38, URLSAFE)
    s.pos(k, "bot.run('{s}')", discord)
    dhook = "https://discord.com/api/" + "webhooks/" + _t("dh1", 19, DIGITS) + "/" + _t("dh2", 68, URLSAFE)
    s.pos(k, "Deploy notifications go to {s} (the #releases channel)", dhook)
    telegram = _t("tg1", 10, DIGITS) + ":AA" + _t("tg2", 33, URLSAFE)
    s.pos(k, "TELEGRAM_CHAT_ID=-1001234567890\nbot father gave me {s}", telegram)
    teams = (
        "https://acme.webhook.office.com/webhookb2/"
        + _uuid("tm1")
        + "@"
        + _uuid("tm2")
        + "/IncomingWebhook/"
        + _hex("tm3", 32)
        + "/"
        + _uuid("tm4")
    )
    s.pos(k, "$teamsUrl = '{s}'\nInvoke-RestMethod -Method Post -Uri $teamsUrl -Body $card", teams)


def _vendor_devtools(s: CaseSet) -> None:
    k = "vendor-devtools"
    linear = "lin" + "_api_" + _t("linear", 40)
    s.pos(k, "LINEAR_API_KEY is set in the repo secrets now; the old one ({s}) is dead", linear)
    figma = "fi" + "gd_" + _t("figma", 40, URLSAFE)
    s.pos(k, "curl -H 'X-Figma-Token: {s}' https://api.figma.com/v1/files/aBcD1234", figma)
    sonar = "sq" + "u_" + _hex("sonar", 40)
    s.pos(k, "mvn verify sonar:sonar -Dsonar.host.url=https://sonar.acme.dev -Dsonar.token={s}", sonar)
    atatt = "ATATT" + "3xFfGF0" + _t("atatt", 180, URLSAFE) + "=" + _hex("atatt2", 8).upper()
    s.pos(k, "Jira automation user: ci-bot@acme.dev, API token {s}", atatt)


def _keyed_flags(s: CaseSet) -> None:
    k = "keyed-flag"
    s.pos(k, "mysql -h db-prod.acme.internal -u reporting -p{s} analytics < q.sql", _pw("mysql"))
    s.pos(k, "sshpass -p '{s}' ssh deploy@10.20.3.14 'systemctl restart api'", _human_pw("sshpass"))
    s.pos(k, "redis-cli -h cache.acme.internal -a {s} --no-auth-warning FLUSHDB", _t("rediscli", 32))
    s.pos(
        k,
        'sqlcmd -S tcp:sql-prod.acme.internal,1433 -U sa -P {s} -Q "SELECT @@VERSION"',
        _pw("sqlcmd", 20),
    )
    s.pos(
        k,
        "az login --service-principal -u 6a1f0c2e-0000-4000-8000-000000000001 -p {s} --tenant acme.onmicrosoft.com",
        _t("azsp", 3) + "8Q~" + _t("azsp2", 34, URLSAFE + "~."),
    )
    s.pos(k, "vercel deploy --prod --token={s} --yes", _t("vercel", 24))
    s.pos(
        k,
        "ansible-playbook site.yml -i prod -e 'ansible_become_password={s}'",
        _human_pw("ansible"),
    )


def _keyed_env(s: CaseSet) -> None:
    k = "keyed-env"
    s.pos(
        k,
        "# .env.production\nNODE_ENV=production\nSESSION_SECRET={s}\nPORT=8080",
        _t("session", 48, URLSAFE),
    )
    s.pos(k, "$ PGPASSWORD='{s}' pg_dump -h db.acme.internal -U app app > dump.sql", _pw("pgpw"))
    s.pos(
        k,
        "export TWILIO_ACCOUNT_SID=AC" + _hex("sid", 32) + "\nexport TWILIO_AUTH_TOKEN={s}",
        _hex("twtok", 32),
    )
    s.pos(k, 'DJANGO_SECRET_KEY="{s}"', _t("django", 50, ALNUM + "!@#%^&*(-_=+)"))


def _keyed_config(s: CaseSet) -> None:
    k = "keyed-config"
    s.pos(
        k,
        "spring:\n  datasource:\n    url: jdbc:postgresql://db:5432/orders\n    username: orders\n"
        "    password: {s}",
        _pw("spring"),
    )
    s.pos(k, '[smtp]\nhost = "smtp.acme.dev"\nport = 587\nuser = "noreply"\npassword = "{s}"', _pw("toml"))
    s.pos(k, "[ldap]\nbind_dn = cn=svc-gitea,ou=services,dc=acme,dc=dev\nbind_password = {s}", _pw("ini"))
    s.pos(k, 'db_admin_password = "{s}"\ninstance_class    = "db.r6g.large"', _passphrase("tfvars"))
    s.pos(
        k,
        '{\n  "ConnectionStrings": {},\n  "Payments": {\n    "MerchantId": "acme-eu",\n    "ApiSecret": "{s}"\n  }\n}',
        _t("appsettings", 40),
    )
    s.pos(
        k,
        '<user username="admin" password="{s}" roles="manager-gui,admin-gui"/>',
        _pw("tomcat"),
    )
    s.pos(k, "mail.smtp.host=smtp.acme.dev\nmail.smtp.auth=true\nmail.smtp.password={s}", _pw("props"))


def _keyed_code(s: CaseSet) -> None:
    k = "keyed-code"
    s.pos(
        k,
        "define( 'DB_NAME', 'wp_shop' );\ndefine( 'DB_USER', 'wp' );\ndefine( 'DB_PASSWORD', '{s}' );",
        _pw("wp"),
    )
    s.pos(
        k,
        'private static final String KEYSTORE_PASSWORD = "{s}";',
        _human_pw("java"),
    )
    s.pos(
        k,
        "const client = new Client({\n  host: 'db',\n  user: 'api',\n  password: '{s}',\n});",
        _pw("js"),
    )
    s.pos(
        k,
        'Rails.application.configure do\n  config.secret_key_base = "{s}"\nend',
        _hex("rails", 128),
    )
    s.pos(
        k,
        'let webhook_secret = "{s}";\nlet mac = HmacSha256::new_from_slice(webhook_secret.as_bytes())?;',
        _t("rust", 32),
    )
    s.pos(
        k,
        'var conn = new SqlConnection("Server=sql01;Database=Crm;User Id=crm;Password={s};");',
        _pw("csharp"),
    )


def _keyed_deploy(s: CaseSet) -> None:
    k = "keyed-deploy"
    s.pos(
        k,
        "FROM node:20-alpine\nENV NPM_CONFIG_REGISTRY=https://npm.acme.dev\nENV REGISTRY_PASSWORD={s}\nRUN npm ci",
        _pw("docker"),
    )
    s.pos(
        k,
        'deploy:\n  stage: deploy\n  variables:\n    DEPLOY_PASSWORD: "{s}"\n  script:\n    - ./deploy.sh',
        _pw("gitlabci"),
    )
    s.pos(
        k,
        "        env:\n          - name: DB_HOST\n            value: postgres\n          - name: DB_PASSWORD\n"
        '            value: "{s}"',
        _pw("k8s"),
    )
    s.pos(
        k,
        'resource "aws_db_instance" "main" {\n  engine   = "postgres"\n  username = "app"\n  password = "{s}"\n}',
        _pw("tf"),
    )
    s.pos(
        k, "# group_vars/db.yml\nmysql_root_password: {s}\nmysql_databases: [shop]", _human_pw("ansiblevars")
    )


def _keyed_http(s: CaseSet) -> None:
    k = "keyed-http"
    basic = _b64(b"svc-reporting:" + _pw("basic").encode())
    s.pos(k, "GET /api/v2/reports HTTP/1.1\nHost: erp.acme.internal\nAuthorization: Basic {s}", basic)
    bearer = _t("bearer", 40, URLSAFE)
    s.pos(k, 'curl -sS https://api.acme.dev/v1/orders -H "Authorization: Bearer {s}"', bearer)
    s.pos(k, "Cookie: _shop_session={s}; theme=dark", _t("rails-cookie", 96, URLSAFE + "%"))
    s.pos(
        k,
        "X-Postmark-Server-Token: {s}\nContent-Type: application/json",
        _uuid("postmark"),
    )
    elastic = _b64((_t("esid", 20, URLSAFE) + ":" + _t("eskey", 22, URLSAFE)).encode())
    s.pos(k, 'filebeat: output.elasticsearch.headers: {Authorization: "ApiKey {s}"}', elastic)


def _keyed_url(s: CaseSet) -> None:
    k = "keyed-url"
    s.pos(
        k,
        "GET https://api.weather.acme.io/v3/forecast?lat=48.1&lon=11.5&api_key={s}&units=metric 200 84ms",
        _hex("apikeyq", 32),
    )
    s.pos(
        k,
        "requests.exceptions.HTTPError: 403 Client Error: Forbidden for url: "
        "https://graph.acme.dev/v19.0/me/accounts?access_token={s}",
        _t("fbtoken", 120),
    )


def _keyed_message(s: CaseSet) -> None:
    k = "keyed-message"
    s.pos(
        k,
        "[10:42] dana: what's the staging admin pw again?\n[10:43] lee: {s} — change it after the demo pls",
        _human_pw("slack"),
    )
    s.pos(
        k,
        'Traceback (most recent call last):\n  File "sync.py", line 88, in connect\n'
        "    conn = psycopg.connect(host=host, user=user, password=password)\n"
        "  locals: host='db-prod' user='etl' password='{s}'\n"
        "psycopg.OperationalError: connection timeout expired",
        _pw("trace"),
    )


def _connection_strings(s: CaseSet) -> None:
    k = "conn-string"
    s.pos(k, "CELERY_BROKER_URL=amqp://celery:{s}@rabbitmq.acme.internal:5672/prod", _t("amqp", 24))
    s.pos(k, "REDIS_URL=rediss://default:{s}@eu1-sharp-ox-33891.upstash.io:6379", _t("upstash", 34))
    s.pos(
        k,
        "sqlserver://sql01.acme.internal:1433;databaseName=Billing;user=billing_app;password={s};encrypt=true",
        _pw("mssql"),
    )
    s.pos(
        k,
        "jdbc:mysql://db.acme.internal:3306/inventory?user=inv&password={s}&useSSL=true",
        _t("jdbcq", 18),
    )
    s.pos(
        k,
        "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required "
        'username="ORDERS" password="{s}";',
        _t("kafka", 64, B64),
    )
    s.pos(k, "sqlplus system/{s}@//ora-prod.acme.internal:1521/ORCLPDB1 @migrate.sql", _pw("oracle"))
    s.pos(k, "# ~/.pgpass\ndb-replica.acme.internal:5432:*:readonly:{s}", _pw("pgpass"))
    s.pos(k, "machine artifacts.acme.dev\n  login ci-reader\n  password {s}", _t("netrc", 30))


def _private_keys(s: CaseSet) -> None:
    k = "key-private"
    body = _pem_body("rsa1", 600, b"\x30\x82\x04\xa4\x02\x01\x00\x02\x82\x01\x01")
    s.pos(
        k,
        "-----BEGIN RSA " + "PRIVATE KEY-----\n{s}\n-----END RSA " + "PRIVATE KEY-----",
        body,
    )
    enc = _pem_body("pkcs8enc", 500, b"\x30\x82\x05\x1e\x30\x40\x06\x09\x2a\x86\x48")
    s.pos(
        k,
        "client.key (passphrase in the vault):\n-----BEGIN ENCRYPTED " + "PRIVATE KEY-----\n{s}\n"
        "-----END ENCRYPTED " + "PRIVATE KEY-----",
        enc,
    )
    openssh = _pem_body("openssh", 300, b"openssh-key-v1\x00\x00\x00\x00\x04none\x00\x00\x00\x04none", 70)
    s.pos(
        k,
        "cat ~/.ssh/id_ed25519\n-----BEGIN OPENSSH "
        + "PRIVATE KEY-----\n{s}\n-----END OPENSSH "
        + "PRIVATE KEY-----",
        openssh,
    )
    pgp = _pem_body("pgp", 700, b"\x95\x03\xc6\x04")
    s.pos(
        k,
        "-----BEGIN PGP PRIVATE "
        + "KEY BLOCK-----\n\n{s}\n="
        + _t("crc", 4, B64)
        + "\n-----END PGP PRIVATE KEY BLOCK-----",
        pgp,
    )
    ppk = _pem_body("ppk", 96)
    s.pos(
        k,
        "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: deploy@build\nPublic-Lines: 2\n"
        "AAAAC3NzaC1lZDI1NTE5AAAAI"
        + _t("ppkpub", 43, B64)
        + "\nPrivate-Lines: 2\n{s}\nPrivate-MAC: "
        + _hex("ppkmac", 64),
        ppk,
    )
    d = _b64url(_bytes("jwkd", 32))
    x = _b64url(_bytes("jwkx", 32))
    y = _b64url(_bytes("jwky", 32))
    s.pos(
        k,
        '{"keys":[{"kty":"EC","crv":"P-256","kid":"signing-2026","x":"'
        + x
        + '","y":"'
        + y
        + '","d":"{s}"}]}',
        d,
    )
    p12 = _b64(b"\x30\x82\x0a\x59\x02\x01\x03\x30\x82\x0a\x1f" + _bytes("p12", 400))
    s.pos(
        k,
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: tls-keystore\ntype: Opaque\ndata:\n  keystore.p12: {s}",
        p12,
    )
    inline = _pem_body("inline", 900, b"\x30\x82\x04\xbd\x02\x01\x00\x30\x0d").replace("\n", "\\n")
    s.pos(
        k,
        'GITHUB_APP_PRIVATE_KEY="-----BEGIN ' + "PRIVATE KEY-----\\n{s}\\n-----END " + 'PRIVATE KEY-----\\n"',
        inline,
    )
    age = "AGE-" + "SECRET-KEY-1" + _t("age", 58, BECH32).upper()
    s.pos(k, "# created: 2026-11-02T10:11:12Z\n# public key: age1" + _t("agepub", 58, BECH32) + "\n{s}", age)
    eth = "0x" + _hex("eth", 64)
    s.pos(k, "forge script script/Deploy.s.sol --rpc-url $RPC --private-key {s} --broadcast", eth)


def _cloud(s: CaseSet) -> None:
    k = "cloud"
    akid = "AK" + "IA" + _t("akid", 16, UPPER + "234567")
    secret = _t("awssec", 40, B64)
    s.pos(
        k + "-aws",
        "[prod]\naws_access_key_id = " + akid + "\naws_secret_access_key = {s}\nregion = eu-west-1",
        secret,
    )
    s.pos(
        k + "-aws",
        "upload.sh: using static credentials (no role on this runner), key {s}",
        "AK" + "IA" + _t("akid2", 16, UPPER + "234567"),
    )
    session = "FwoGZXIvYXdzE" + _t("sts", 300, B64)
    s.pos(
        k + "-aws",
        '{\n  "Credentials": {\n    "AccessKeyId": "AS'
        + "IA"
        + _t("asia", 16, UPPER + "234567")
        + '",\n    "SecretAccessKey": "'
        + _t("stssec", 40, B64)
        + '",\n    "SessionToken": "{s}"\n  }\n}',
        session,
    )
    sa_key = _pem_body("gcpsa", 1200, b"\x30\x82\x04\xbe\x02\x01\x00").replace("\n", "\\n")
    s.pos(
        k + "-gcp",
        '{\n  "type": "service_account",\n  "project_id": "acme-prod",\n  "private_key_id": "'
        + _hex("gcpkid", 40)
        + '",\n  "private_key": "-----BEGIN PRIVATE '
        + 'KEY-----\\n{s}\\n-----END PRIVATE KEY-----\\n",\n  "client_email": "ci@acme-prod.iam.gserviceaccount.com"\n}',
        sa_key,
    )
    gkey = "AI" + "za" + _t("gapi", 35, URLSAFE)
    s.pos(k + "-gcp", "https://maps.googleapis.com/maps/api/geocode/json?address=Berlin&key={s}", gkey)
    refresh = "1//" + "0" + _t("grt", 98, URLSAFE)
    s.pos(k + "-gcp", "gcloud auth print-refresh-token\n{s}", refresh)
    account_key = _b64(_bytes("azsa", 64))
    s.pos(
        k + "-azure",
        "AZURE_STORAGE_CONNECTION_STRING=DefaultEndpointsProtocol=https;AccountName=acmeprodlogs;"
        "AccountKey={s};EndpointSuffix=core.windows.net",
        account_key,
    )
    s.pos(
        k + "-azure",
        "https://acme-orders.azurewebsites.net/api/ProcessOrder?code={s}",
        _t("azfunc", 54, URLSAFE) + "==",
    )
    ali_id = "LT" + "AI" + _t("ali", 20)
    s.pos(
        k + "-alibaba",
        "aliyun configure set --mode AK --access-key-id "
        + ali_id
        + " --access-key-secret {s} --region cn-hangzhou",
        _t("alisec", 30),
    )
    s.pos(
        k + "-digitalocean",
        "[spaces]\ntype = s3\nprovider = DigitalOcean\naccess_key_id = DO00"
        + _t("dospk", 16, UPPER + DIGITS)
        + "\nsecret_access_key = {s}\nendpoint = fra1.digitaloceanspaces.com",
        _t("dosps", 43, B64),
    )
    s.pos(
        k + "-scaleway",
        "SCW_ACCESS_KEY=SCW"
        + _t("scwak", 17, UPPER + DIGITS)
        + "\nSCW_SECRET_KEY={s}\nSCW_DEFAULT_ORGANIZATION_ID="
        + _uuid("scworg"),
        _uuid("scwsk"),
    )
    s.pos(
        k + "-yandex",
        "yc config set token {s}",
        "y0_" + "AgAAAA" + _t("yc", 52, URLSAFE),
    )


def _prose(s: CaseSet) -> None:
    k = "prose"
    s.pos(
        k + "-fr",
        "Salut ! Pour la base de recette, le mot de passe est {s} (à changer après la démo).",
        _human_pw("fr"),
    )
    s.pos(k + "-de", "Zugang zum Staging-Jenkins: Benutzer admin, das Passwort lautet {s}.", _pw("de", 14))
    s.pos(
        k + "-es",
        "Ya creé el usuario en el servidor FTP; la contraseña es {s} y caduca en 30 días.",
        _pw("es", 12),
    )
    s.pos(k + "-it", "Per il router dell'ufficio la password è {s}, non condividerla.", _human_pw("it"))
    s.pos(k + "-pt", "Oi! A senha do banco de homologação é {s}", _pw("pt", 13))
    s.pos(k + "-nl", "Het wachtwoord voor de NAS is {s}, graag na gebruik wijzigen.", _human_pw("nl"))
    s.pos(k + "-pl", "Dostęp do panelu: login serwis, hasło to {s}", _pw("pl", 12))
    s.pos(k + "-ru", "Доступ к стенду: логин deploy, пароль: {s}", _pw("ru", 15))
    s.pos(k + "-ja", "検証環境のDBのパスワードは {s} です。取り扱いに注意してください。", _pw("ja", 14))
    s.pos(k + "-zh", "测试服务器的 root 密码是 {s} ，用完请修改。", _pw("zh", 14))


def _negatives(s: CaseSet) -> None:
    # Digests and commit SHAs.
    s.neg("digest-image", "FROM python:3.12-slim@sha256:" + _hex("img", 64))
    s.neg(
        "digest-lockfile",
        '"node_modules/lodash": {\n  "version": "4.17.21",\n  "integrity": "sha512-'
        + _b64(_bytes("sri", 64))
        + '"\n}',
    )
    s.neg("digest-pip", "requests==2.32.3 \\\n    --hash=sha256:" + _hex("pip", 64))
    s.neg("digest-gosum", "golang.org/x/net v0.31.0 h1:" + _b64(_bytes("gosum", 32)))
    s.neg(
        "digest-checksum",
        _hex("sum1", 64)
        + "  homeostat-0.4.1-py3-none-any.whl\n"
        + _hex("sum2", 64)
        + "  homeostat-0.4.1.tar.gz",
    )
    s.neg(
        "digest-sri",
        '<script src="https://cdn.acme.dev/app.js" integrity="sha384-'
        + _b64(_bytes("sri2", 48))
        + '" crossorigin="anonymous"></script>',
    )
    s.neg(
        "digest-commit",
        "commit "
        + _hex("commit", 40)
        + "\nAuthor: Dana Lee <dana@acme.dev>\n\n    Fix rounding in invoice totals",
    )
    s.neg(
        "digest-commit",
        "Reverts "
        + _hex("commit2", 40)[:12]
        + " and cherry-picks "
        + _hex("commit3", 40)
        + " onto release/4.2",
    )
    # Ids that are not credentials.
    s.neg("id-uuid", '{"id": "' + _uuid("orderid") + '", "status": "shipped", "items": 3}')
    s.neg("id-trace", "traceparent: 00-" + _hex("trace", 32) + "-" + _hex("span", 16) + "-01")
    s.neg(
        "id-request",
        "x-amz-request-id: "
        + _t("amzreq", 16, UPPER + DIGITS)
        + "\nx-amz-id-2: "
        + _b64(_bytes("amzid2", 54)),
    )
    s.neg(
        "id-container",
        "CONTAINER ID                                                       IMAGE\n"
        + _hex("ctr", 64)
        + "   redis:7",
    )
    s.neg("id-pod", "  uid: " + _uuid("poduid") + '\n  resourceVersion: "48213377"')
    s.neg(
        "id-payment",
        "refund created for charge ch_3" + _t("ch", 23) + " (payment_intent pi_3" + _t("pi", 23) + ")",
    )
    s.neg(
        "id-node",
        'query { node(id: "PR_kwDO' + _t("prnode", 16, URLSAFE) + '") { ... on PullRequest { title } } }',
    )
    s.neg("id-message", "Message SM" + _hex("smsid", 32) + " queued to +4915112345678")
    s.neg("id-request", "X-Request-Id: req_" + _t("reqid", 24) + "\nretry-after: 2")
    # Public material.
    s.neg("public-ssh", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + _t("edpub", 43, B64) + " dana@laptop")
    s.neg(
        "public-pem",
        "-----BEGIN PUBLIC KEY-----\n"
        + _pem_body("pub", 270, b"\x30\x82\x01\x22\x30\x0d\x06\x09\x2a\x86\x48\x86\xf7\x0d\x01\x01\x01")
        + "\n-----END PUBLIC KEY-----",
    )
    s.neg(
        "public-certificate",
        "ca.crt: |\n  -----BEGIN CERTIFICATE-----\n  "
        + _pem_body("cert", 500, b"\x30\x82\x03\x5a\x30\x82\x02\x42\xa0\x03\x02\x01\x02").replace(
            "\n", "\n  "
        )
        + "\n  -----END CERTIFICATE-----",
    )
    s.neg("public-fingerprint", "ED25519 key fingerprint is SHA256:" + _b64(_bytes("fp", 32)).rstrip("="))
    s.neg(
        "public-age",
        "Encrypt the backup to the ops recipient: age -r age1"
        + _t("agerec", 58, BECH32)
        + " -o db.age db.sql",
    )
    s.neg("public-publishable", "const stripe = Stripe('pk_" + "live_" + _t("pklive", 99) + "');")
    s.neg(
        "public-publishable",
        "mapboxgl.accessToken = 'pk."
        + _b64url(b'{"u":"acme","a":"' + _t("mbx", 12).encode() + b'"}')
        + "."
        + _t("mbx2", 22, URLSAFE)
        + "';",
    )
    # Placeholders.
    s.neg("placeholder-angle", "export OPENAI_API_KEY=<your-api-key>\npython run.py")
    s.neg("placeholder-xxx", "password: xxxxxxxxxxxx\ntoken: XXXXXXXXXXXXXXXXXXXX")
    s.neg("placeholder-shell", 'docker login -u "$REGISTRY_USER" -p "${REGISTRY_PASSWORD}" registry.acme.dev')
    s.neg(
        "placeholder-actions",
        "      - run: ./publish.sh\n        env:\n          NPM_TOKEN: ${{ secrets.NPM_TOKEN }}",
    )
    s.neg(
        "placeholder-helm",
        "          - name: DB_PASSWORD\n            value: {{ .Values.db.password | quote }}",
    )
    s.neg("placeholder-ellipsis", "Your secret key looks like sk_live_... and must never reach the browser.")
    s.neg("placeholder-stars", "Authorization: Bearer ****************\nX-Api-Key: ********")
    s.neg("placeholder-redacted", "DATABASE_URL=postgres://app:[REDACTED]@db.acme.internal:5432/app")
    s.neg("placeholder-vendor", 'client = WebClient(token="xoxb-' + 'not-a-real-token-this-will-not-work")')
    # Fakes vendors publish in their docs.
    s.neg(
        "docexample-aws",
        "aws_access_key_id = AK"
        + "IAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCY"
        + "EXAMPLEKEY",
    )
    s.neg(
        "docexample-azurite",
        "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey="
        + "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
        + ";BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1;",
    )
    s.neg(
        "docexample-jwtio",
        "Example from jwt.io: eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4g"
        + "RG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    )
    # Password hashes: stored form, not a credential (see the module docstring).
    s.neg(
        "hash-bcrypt",
        "- model: accounts.user\n  fields:\n    email: dana@acme.dev\n    password_hash: $2b$12$"
        + _t("bcrypt", 53, ALNUM + "./"),
    )
    s.neg(
        "hash-argon2",
        "INSERT INTO users (email, password) VALUES ('lee@acme.dev', '$argon2id$v=19$m=65536,t=3,p=4$"
        + _b64(_bytes("a2salt", 16)).rstrip("=")
        + "$"
        + _b64(_bytes("a2hash", 32)).rstrip("=")
        + "');",
    )
    s.neg(
        "hash-shadow",
        "deploy:$6$"
        + _t("shsalt", 16, ALNUM + "./")
        + "$"
        + _t("shhash", 86, ALNUM + "./")
        + ":19700:0:99999:7:::",
    )
    s.neg(
        "hash-django",
        '"password": "pbkdf2_sha256$870000$' + _t("djsalt", 22) + "$" + _b64(_bytes("djhash", 32)) + '",',
    )
    # Ciphertext made to be committed.
    s.neg(
        "encrypted-ansible",
        "db_password: !vault |\n  $ANSIBLE_VAULT;1.1;AES256\n  "
        + "\n  ".join(_hex(f"av{i}", 80) for i in range(4)),
    )
    s.neg(
        "encrypted-sops",
        "password: ENC[AES256_GCM,data:"
        + _b64(_bytes("sopsd", 18))
        + ",iv:"
        + _b64(_bytes("sopsiv", 32))
        + ",tag:"
        + _b64(_bytes("sopstag", 16))
        + ",type:str]",
    )
    s.neg(
        "encrypted-sealed",
        "kind: SealedSecret\nspec:\n  encryptedData:\n    password: AgB" + _t("sealed", 300, B64) + "==",
    )
    # Base64 of ordinary things.
    s.neg(
        "base64-text",
        'assert encode("Hello, world! Welcome to Homeostat.") == "'
        + _b64(b"Hello, world! Welcome to Homeostat.")
        + '"',
    )
    s.neg(
        "base64-json",
        "preferences=" + _b64(json.dumps({"theme": "dark", "lang": "de", "sidebar": True}).encode()),
    )
    s.neg(
        "base64-datauri",
        '<img alt="" src="data:image/png;base64,' + _b64(b"\x89PNG\r\n\x1a\n" + _bytes("png", 60)) + '">',
    )
    # Versions.
    s.neg("version-semver", "Released acme-cli v2.14.3-rc.1+build.5f3a9c1e, see CHANGELOG.md")
    s.neg("version-gopseudo", "require github.com/acme/ledger v0.0.0-20241012164521-" + _hex("gover", 12))
    s.neg("version-tag", "image: ghcr.io/acme/api:main-" + _hex("tag", 7) + "-20261203T101112Z")
    # References to a secret, not the secret.
    s.neg(
        "reference-k8s",
        "- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef:\n      name: orders-db\n      key: password",
    )
    s.neg("reference-file", "POSTGRES_PASSWORD_FILE=/run/secrets/postgres_password\nPOSTGRES_USER=app")
    s.neg("reference-code", 'password = os.environ["SMTP_PASSWORD"]\ntoken = settings.GITHUB_TOKEN')
    s.neg(
        "reference-vault",
        "api_key: vault:secret/data/payments/stripe#api_key\ntoken_ref: op://Prod/Stripe/credential",
    )
    # Settings that only sound secret.
    s.neg("setting-policy", "password_min_length: 12\npassword_require_symbol: true\ntoken_ttl_seconds: 3600")
    s.neg("setting-schema", "    password:\n      type: string\n      format: password\n      minLength: 12")
    s.neg(
        "setting-prose",
        "Le mot de passe est dans le coffre 1Password (« Staging DB »). Das Passwort steht im Tresor, nicht hier.",
    )


def heldout4_cases() -> list[Case]:
    s = CaseSet("held-out-4")
    _vendor_ai(s)
    _vendor_observability(s)
    _vendor_cicd(s)
    _vendor_registry(s)
    _vendor_flags(s)
    _vendor_messaging(s)
    _vendor_payments(s)
    _vendor_database(s)
    _vendor_chat(s)
    _vendor_devtools(s)
    _keyed_flags(s)
    _keyed_env(s)
    _keyed_config(s)
    _keyed_code(s)
    _keyed_deploy(s)
    _keyed_http(s)
    _keyed_url(s)
    _keyed_message(s)
    _connection_strings(s)
    _private_keys(s)
    _cloud(s)
    _prose(s)
    _negatives(s)
    return s.cases
