"""The TUNING set for the secret scanner: the formats issue 29's audit found missing, one family of
"secret after a flag or key" shapes at a time, and look-alikes of each.

This is the set rules are written against (tests/core/safety/test_secrets.py asserts every case, and those of
secrets_heldout.py and secrets_heldout2.py, the first and second held-out sets, each retired to tuning
use once its misses were read; likewise secrets_heldout3.py, the third).
"""

from __future__ import annotations

import base64
import json

from secret_sets import B64, DIGITS, HEX, LOWER, UPPER, URLSAFE, Case, CaseSet, password, rnd


def _b64url(obj: object) -> str:
    return base64.urlsafe_b64encode(json.dumps(obj, separators=(",", ":")).encode()).decode().rstrip("=")


def _vendors(s: CaseSet) -> None:
    s.pos("supabase-secret-key", "SUPABASE_SECRET_KEY={s}", "sb_" + "secret_" + rnd(31, URLSAFE, "t1"))
    s.pos(
        "supabase-secret-key",
        "The service key is `{s}`; keep it on the server.",
        "sb_" + "secret_" + rnd(32, URLSAFE, "t2"),
    )
    s.pos("planetscale-password", "PLANETSCALE_PASSWORD={s}", "pscale" + "_pw_" + rnd(43, URLSAFE, "t3"))
    s.pos(
        "planetscale-password",
        "mysql -h aws.connect.psdb.cloud -u ledger -p{s}",
        "pscale" + "_pw_" + rnd(43, URLSAFE, "t4"),
    )
    s.pos("planetscale-token", "Service token: {s}", "pscale" + "_tkn_" + rnd(43, URLSAFE, "t5"))
    s.pos("vercel-token", "vercel deploy --prod --token {s}", rnd(24, seed="t6"))
    s.pos("vercel-token", "npx vercel --token={s} --yes", rnd(24, seed="t7"))
    s.pos("buildkite-token", "BUILDKITE_API_TOKEN={s}", "bk" + "ua_" + rnd(40, HEX, "t8"))
    s.pos("buildkite-token", "- agent API: `{s}`", "bk" + "ua_" + rnd(40, HEX, "t9"))
    mapbox = (
        "s"
        + "k."
        + _b64url({"u": "acme-maps", "a": rnd(25, LOWER + DIGITS, "t10")})
        + "."
        + rnd(22, URLSAFE, "t11")
    )
    s.pos("mapbox-secret-token", "MAPBOX_DOWNLOADS_TOKEN={s}", mapbox)
    s.pos("mapbox-secret-token", "Tiles upload with `{s}`.", mapbox.replace("acme-maps", "acme-geo"))
    s.pos("okta-api-token", "Authorization: SSWS {s}", "0" + "0" + rnd(40, URLSAFE, "t12"))
    s.pos(
        "okta-api-token",
        "curl -H 'Authorization: SSWS {s}' https://acme.okta.com/api/v1/users",
        "0" + "0" + rnd(40, URLSAFE, "t13"),
    )
    s.pos("airtable-pat", "AIRTABLE_TOKEN={s}", "pa" + "t" + rnd(14, seed="t14") + "." + rnd(64, HEX, "t15"))
    s.pos(
        "airtable-pat", "Base sync uses `{s}`.", "pa" + "t" + rnd(14, seed="t16") + "." + rnd(64, HEX, "t17")
    )
    s.pos("dropbox-token", "DROPBOX_ACCESS_TOKEN={s}", "s" + "l." + rnd(138, URLSAFE, "t18"))
    s.pos("dropbox-token", "Bearer {s}", "s" + "l.u." + rnd(150, URLSAFE, "t19"))
    s.pos("dropbox-token", "backup token: `{s}`", "s" + "l." + rnd(140, URLSAFE, "t20"))
    s.pos(
        "typeform-token",
        "TYPEFORM_TOKEN={s}",
        "tf" + "p_" + rnd(44, URLSAFE, "t21") + "_" + rnd(14, URLSAFE, "t22"),
    )
    s.pos("typeform-token", "Forms API: `{s}`", "tf" + "p_" + rnd(59, URLSAFE, "t23"))
    s.pos("google-oauth-secret", '"client_secret": "{s}"', "GOC" + "SPX-" + rnd(28, URLSAFE, "t24"))
    s.pos(
        "google-oauth-secret", "OAuth app secret {s} (web client)", "GOC" + "SPX-" + rnd(28, URLSAFE, "t25")
    )
    s.pos("oracle-connect", "sqlplus ledger/{s}@//db.internal:1521/LEDGER", password(14, "t26"))
    s.pos("oracle-connect", "ORACLE_CONN=app_user/{s}@db-prod.internal:1521/ORCLPDB1", password(16, "t27"))
    s.pos("oracle-connect", "expdp system/{s}@ORCL schemas=LEDGER directory=DUMP", password(12, "t28"))
    s.pos("pgpass", "db.internal:5432:ledger:app:{s}", password(16, "t29"))
    s.pos("pgpass", "# ~/.pgpass\n*:*:*:replicator:{s}", password(18, "t30"))
    s.pos("netrc", "machine api.heroku.com login ana@acme.dev password {s}", rnd(36, URLSAFE, "t31"))
    s.pos("netrc", "machine git.internal\n  login ci-bot\n  password {s}", password(17, "t32"))
    s.pos("docker-login", "docker login -u ci -p {s} registry.internal", password(16, "t33"))
    s.pos("docker-login", "docker login registry.internal --username ci --password {s}", password(15, "t34"))
    s.pos("docker-login", "podman login -u ci -p {s} quay.io", password(14, "t35"))


def _flag_families(s: CaseSet) -> None:
    # A secret after a long flag whose name says what it holds
    s.pos("flag-password", "./manage.py createsuperuser --username admin --password {s}", password(14, "t40"))
    s.pos("flag-password", "restic backup --repo s3:backups --password '{s}'", password(15, "t41"))
    s.pos("flag-secret", "ledger-cli sync --client-secret {s}", rnd(32, URLSAFE, "t42"))
    s.pos("flag-secret", "terraform apply -var db_password={s}", password(14, "t43"))
    s.pos("flag-token", "gh-release --token {s} --tag v2", rnd(40, seed="t44"))
    s.pos("flag-token", "deployer push --auth-token={s}", rnd(36, URLSAFE, "t45"))
    s.pos("flag-token", "codecov upload -t {s}", "9c1d7e2a-5b4f-4e8a-9d3c-" + rnd(12, HEX, "t46"))
    # A password after a short flag of a tool where it means the password
    s.pos("short-flag", "sqlcmd -S db.internal -U sa -P {s} -Q 'select 1'", password(14, "t47"))
    s.pos("short-flag", "7z a -p{s} backup.7z exports/", password(13, "t48"))
    s.pos("short-flag", "unzip -P {s} backup.zip", password(12, "t49"))
    # A secret after a key, in every notation
    s.pos("key-value", "token: {s}", rnd(32, seed="t50"))
    s.pos("key-value", "apiKey={s}", rnd(32, seed="t51"))
    s.pos("key-value", "const client = new Client({ apiKey: '{s}' });", rnd(32, URLSAFE, "t52"))
    s.pos("key-value", '"secret": "{s}"', rnd(40, URLSAFE, "t53"))
    s.pos("key-value", "access_token = {s}", rnd(40, URLSAFE, "t54"))
    s.pos("key-value", "DB_PASS={s}", password(14, "t55"))
    # Authorization headers of every scheme
    s.pos("auth-header", "Authorization: Bearer {s}", rnd(40, URLSAFE, "t56"))
    s.pos("auth-header", 'curl -H "Authorization: token {s}" https://api.internal', rnd(40, seed="t57"))
    s.pos(
        "auth-header",
        "Authorization: Basic {s}",
        base64.b64encode(("svc:" + password(14, "t58")).encode()).decode(),
    )
    s.pos("auth-header", "Authorization: Api-Key {s}", rnd(32, seed="t59"))
    # Connection strings with credentials
    s.pos(
        "connection-string",
        "Server=sql.internal;Database=ledger;User Id=app;Password={s};",
        password(16, "t60"),
    )
    s.pos(
        "connection-string", "Host=db.internal;Username=app;Password={s};Database=ledger", password(15, "t61")
    )
    s.pos(
        "connection-string",
        "mongodb://ledger:{s}@mongo-0.internal:27017/ledger?authSource=admin",
        password(14, "t62"),
    )
    s.pos("connection-string", "DSN=mysql:host=db;dbname=ledger;user=app;password={s}", password(14, "t63"))


def _more_families(s: CaseSet) -> None:
    """Shapes met while writing the rules above, each a family of its own."""
    s.pos(
        "stdin-secret",
        'echo "{s}" | docker login -u ci --password-stdin registry.internal',
        password(15, "t70"),
    )
    s.pos("stdin-secret", "gh auth login --with-token <<< {s}", rnd(40, seed="t71"))
    s.pos("setter-secret", "client.setToken('{s}')", rnd(32, seed="t72"))
    s.pos("setter-secret", 'user.set_password("{s}")', password(13, "t73"))
    s.pos("setter-secret", 'api.setApiKey("{s}")', rnd(20, seed="t73b"))
    s.pos("config-set", "npm config set //registry.internal/:_authToken {s}", rnd(36, seed="t74"))
    s.pos("config-set", "yarn config set npmAuthToken {s}", rnd(36, URLSAFE, "t75"))
    s.pos("ssh-key-passphrase", "ssh-keygen -t ed25519 -N '{s}' -f deploy_key", password(16, "t76"))
    s.pos(
        "openssl-password", "openssl enc -aes-256-cbc -k {s} -in dump.sql -out dump.enc", password(14, "t77")
    )
    s.pos("vault-token", "vault login {s}", rnd(28, seed="t78"))
    s.pos("short-flag", "backup-tool restore -p {s} --target /srv", password(14, "t79"))
    s.pos("auth-header", "Authorization: GenieKey {s}", "3f2a1c9e-7b6d-4e5f-a1b2-" + rnd(12, HEX, "t80"))


def _look_alikes(s: CaseSet) -> None:
    s.neg("supabase-publishable", "SUPABASE_PUBLISHABLE_KEY=sb_" + "publishable_" + rnd(31, URLSAFE, "n1"))
    s.neg("supabase-placeholder", "SUPABASE_SECRET_KEY=sb_" + "secret_xxxxxxxxxxxxxxxxxxxxxxxxxxxx")
    s.neg(
        "mapbox-public",
        "MAPBOX_TOKEN=pk."
        + _b64url({"u": "acme-maps", "a": rnd(25, LOWER + DIGITS, "n2")})
        + "."
        + rnd(22, URLSAFE, "n3"),
    )
    s.neg("vercel-token-reference", "vercel deploy --prod --token $VERCEL_TOKEN")
    s.neg("vercel-token-reference", "vercel deploy --token=${{ secrets.VERCEL_TOKEN }}")
    s.neg("token-file", "vault login -method=token --token-file ~/.vault-token")
    s.neg("okta-reference", "Authorization: SSWS ${OKTA_API_TOKEN}")
    s.neg("okta-prose", "Okta admin tokens use the SSWS scheme, not Bearer.")
    s.neg("pat-word", "Use the pattern `pathlib.Path(patient_id)` for patched paths.")
    s.neg("dropbox-like", "Load `sl.bootstrap.min.css` from the CDN before `sl.theme.css`.")
    s.neg("typeform-placeholder", "TYPEFORM_TOKEN=tfp_<your-token>")
    s.neg("google-oauth-placeholder", '"client_secret": "GOCSPX-xxxxxxxxxxxxxxxxxxxxxxxxxxxx"')
    s.neg("oracle-like", "uses: actions/checkout@v4\nuses: acme/ci-actions/setup@" + rnd(40, HEX, "n4"))
    s.neg("oracle-like", "go install golang.org/x/tools/gopls@v0.16.1")
    s.neg("oracle-like", "sqlplus ledger/${ORACLE_PASSWORD}@//db.internal:1521/LEDGER")
    s.neg("oracle-like", "sqlplus /nolog @scripts/migrate.sql")
    s.neg("oracle-like", "See src/ledger@2x/ and docs/api@latest for the renders.")
    s.neg("oracle-like", "sqlplus scott/<password>@orcl")
    s.neg("pgpass-like", "Each ~/.pgpass line is hostname:port:database:username:password.")
    s.neg("pgpass-like", "Timestamps look like 2026:11:29:14:05 in the old logs.")
    s.neg("pgpass-like", "ipv6: fe80:0:0:0:204:61ff:fe9d:f156")
    s.neg("netrc-like", "machine api.heroku.com login ana@acme.dev password $HEROKU_API_KEY")
    s.neg("netrc-like", "The state machine logs in once; the password prompt follows.")
    s.neg("docker-login-like", 'docker login -u ci -p "$REGISTRY_PASSWORD" registry.internal')
    s.neg("docker-login-like", "docker run -d -p 5432:5432 postgres:16")
    s.neg("docker-login-like", "cat token.txt | docker login -u ci --password-stdin registry.internal")
    s.neg("short-flag-like", "psql -h db.internal -p 5432 -U app ledger")
    s.neg("short-flag-like", "python -m pytest -p no:cacheprovider -k token")
    s.neg("short-flag-like", "cp -p notes.txt /tmp && mkdir -p out")
    s.neg("flag-like", "./manage.py changepassword --database replica admin")
    s.neg("flag-like", "deployer push --auth-token-file /run/secrets/deploy --token-ttl 3600")
    s.neg("flag-like", "ledger-cli sync --client-secret-env LEDGER_SECRET --secret-name ledger-prod")
    s.neg("key-like", "token: ${{ secrets.GITHUB_TOKEN }}")
    s.neg("key-like", "const client = new Client({ apiKey: process.env.LEDGER_KEY });")
    s.neg("key-like", "access_token = response.json()['access_token']")
    s.neg("key-like", "apiKey=config.apiKey")
    s.neg("auth-header-like", "Authorization: Bearer $ACCESS_TOKEN")
    s.neg("auth-header-like", 'headers["Authorization"] = "Bearer " + token')
    s.neg("connection-like", "Server=sql.internal;Database=ledger;Integrated Security=true;")
    s.neg("connection-like", "Host=db.internal;Username=app;Password=${DB_PASSWORD};Database=ledger")
    s.neg("connection-like", "mongodb://mongo-0.internal:27017/ledger?replicaSet=rs0")
    s.neg("b64-like", "Authorization: Basic " + base64.b64encode(b"user:password").decode())
    s.neg("hash-like", "checksum: " + rnd(64, HEX, "n5") + "\netag: " + rnd(32, HEX, "n6"))
    s.neg("b64-like", "![chart](data:image/png;base64," + rnd(80, B64, "n7") + "=)")
    s.neg("stdin-like", 'echo "$REGISTRY_TOKEN" | docker login -u ci --password-stdin registry.internal')
    s.neg("stdin-like", "gh auth login --with-token < token.txt")
    s.neg("setter-like", "client.setToken(token)")
    s.neg("setter-like", 'user.set_password(form.cleaned_data["password"])')
    s.neg("setter-like", 'settings.setKeyboardLayout("dvorak")')
    s.neg("config-set-like", "npm config set registry https://registry.internal/")
    s.neg("config-set-like", "git config set user.name 'Ana Lima'")
    s.neg("ssh-keygen-like", "ssh-keygen -t ed25519 -N '' -f deploy_key")
    s.neg("openssl-like", "openssl enc -d -aes-256-cbc -kfile key.txt -in dump.enc")
    s.neg("vault-like", "vault login -method=oidc role=dev")
    s.neg("short-flag-like", "uvicorn app:main -w 4 -p 8000")
    s.neg("short-flag-like", "docker run -p 127.0.0.1:5353:53/udp -w /srv/app img:3.12")
    s.neg("short-flag-like", "tar -cf out.tar -p src/Main2.java")
    # found in the wild (pip's and Node's own docs) while the rules above were checked for false alarms
    s.neg("short-flag-like", "sudo sysctl -w net.ipv6.conf.lo.disable_ipv6=0")
    s.neg("short-flag-like", "#compdef -P pip[0-9.]#")
    s.neg("netrc-like", "machine example.com\nlogin daniel\npassword qwerty")


def _uuid(seed: str) -> str:
    h = rnd(32, HEX, seed)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-b{h[17:20]}-{h[20:]}"


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def _second_heldout_families(s: CaseSet) -> None:
    """Written when the second held-out set was retired (issue 29): for each family its misses
    showed, new cases of the family (other vendors, tools and dialects than that set's)."""
    # vendor formats
    s.pos("aws-session-token", "aws_session_token = {s}", "FwoGZXIvYXdz" + rnd(160, B64, "u1"))
    s.pos(
        "google-access-token",
        "The access token was {s} (it expires in an hour).",
        "ya" + "29." + rnd(90, URLSAFE, "u2"),
    )
    s.pos("google-refresh-token", '{"refresh_token": "{s}"}', "1/" + "/0g" + rnd(80, URLSAFE, "u3"))
    s.pos(
        "circleci-token",
        "CircleCI token for the mirror: {s}",
        "CCI" + "PAT_" + rnd(22, seed="u4") + "_" + rnd(40, HEX, "u5"),
    )
    s.pos("sonarqube-token", "sonar-scanner -Dsonar.login={s}", "sq" + "p_" + rnd(40, HEX, "u6"))
    s.pos("honeycomb-key", "Ingest key `{s}`", "hcx" + "ik_" + rnd(58, LOWER + DIGITS, "u7"))
    s.pos("axiom-token", "Axiom personal token: {s}", "xa" + "pt-" + _uuid("u8"))
    s.pos("stripe-webhook-secret", "endpoint_secret = '{s}'", "wh" + "sec_" + rnd(32, seed="u9"))
    s.pos("plaid-access-token", "Stored item: {s}", "access" + "-production-" + _uuid("u10"))
    s.pos("posthog-personal-key", "PostHog personal key {s}", "ph" + "x_" + rnd(47, seed="u11"))
    s.pos("elevenlabs-key", "xi-api-key: {s}", "sk" + "_" + rnd(48, HEX, "u12"))
    s.pos(
        "slack-client-token",
        "token={s}",
        "xo"
        + "xc-"
        + rnd(12, DIGITS, "u13")
        + "-"
        + rnd(12, DIGITS, "u14")
        + "-"
        + rnd(13, DIGITS, "u15")
        + "-"
        + rnd(64, HEX, "u16"),
    )
    s.pos(
        "cloudflare-tunnel-token",
        "docker run cloudflare/cloudflared tunnel run --token {s}",
        _b64(
            json.dumps(
                {"a": rnd(32, HEX, "u17"), "t": _uuid("u18"), "s": rnd(44, B64, "u19")}, separators=(",", ":")
            )
        ),
    )
    s.pos(
        "ably-key",
        "new Ably.Rest({ key: '{s}' })",
        rnd(6, seed="u20") + "." + rnd(6, seed="u21") + ":" + rnd(43, URLSAFE, "u22"),
    )
    s.pos("prefixed-uuid", "billing_api_token: live-{s}", _uuid("u23"))
    s.pos("dotted-token", "EDGE_SERVICE_TOKEN={s}", rnd(8, seed="u24") + "." + "Xq7" + rnd(30, seed="u25"))
    s.pos("long-value", "SIGNING_KEY=" + "{s}", rnd(400, B64, "u26") + "==")
    # private keys in other wrappings
    s.pos(
        "base64-private-key",
        "data:\n  tls.key: {s}",
        _b64(
            "-----BEGIN RSA PRIVATE KEY-----\n"
            + rnd(64, B64, "u27")
            + "\n"
            + rnd(64, B64, "u28")
            + "\n-----END RSA PRIVATE KEY-----\n"
        ),
    )
    s.pos(
        "putty-v2-key",
        "{s}",
        "PuTTY-User-Key-File-2: ssh-rsa\nEncryption: aes256-cbc\nComment: ops\nPublic-Lines: 1\n"
        + rnd(64, B64, "u29")
        + "\nPrivate-Lines: 2\n"
        + rnd(64, B64, "u30")
        + "\n"
        + rnd(40, B64, "u31")
        + "\nPrivate-MAC: "
        + rnd(40, HEX, "u32"),
    )
    s.pos(
        "ssh2-private-key",
        "Old key from the jump host:\n{s}",
        "---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\n"
        + rnd(64, B64, "u33")
        + "\n"
        + rnd(48, B64, "u34")
        + "\n---- END SSH2 ENCRYPTED PRIVATE KEY ----",
    )
    # a keyword, blanks, the password
    s.pos("spaced-password", "# redis.conf\nrequirepass {s}", password(18, "u35"))
    s.pos("spaced-password", "CREATE USER ledger_app IDENTIFIED BY '{s}';", password(16, "u36"))
    s.pos("spaced-password", "ALTER ROLE reporting WITH LOGIN PASSWORD '{s}';", password(15, "u37"))
    s.pos("spaced-password", "set smtp_pass\nset imap_user = ops\npassword {s}", password(14, "u38"))
    s.pos("expect-send", 'expect "Password:" { send "{s}\\r" }', password(15, "u39"))
    s.pos("sasl-passwd", "# /etc/postfix/sasl_passwd\n[mail.acme.dev]:465 ops:{s}", password(17, "u40"))
    s.pos("realm-file", "# jetty realm file\nops: {s},user,admin", password(14, "u41"))
    s.pos("realm-file", "# realm.properties\nci: OBF:{s},deploy", rnd(32, LOWER + DIGITS, "u42"))
    # command arguments
    s.pos("slash-flag", "wmic /node:db01 /user:ACME\\ops /password:{s} process list", password(14, "u43"))
    s.pos("slash-flag", "cmdkey /generic:TERMSRV/jump01 /user:ops /pass:{s}", password(15, "u44"))
    s.pos("net-user", "net user svc-backup {s} /add /domain", password(14, "u45"))
    s.pos("credential-flag", "java -jar jenkins-cli.jar -auth ops:{s} who-am-i", rnd(34, HEX, "u46"))
    s.pos(
        "credential-flag",
        "skopeo inspect --creds ci:{s} docker://registry.acme.dev/ledger",
        password(16, "u47"),
    )
    s.pos("positional-password", "rabbitmqctl change_password ops {s}", password(15, "u48"))
    s.pos("positional-password", "mosquitto_passwd -b /etc/mosquitto/passwd sensor {s}", password(14, "u49"))
    s.pos("positional-password", "redis-cli -h cache.acme.dev AUTH default {s}", password(16, "u50"))
    s.pos("positional-password", "composer config http-basic.gitlab.acme.dev ci {s}", password(15, "u51"))
    s.pos("login-token", "ngrok authtoken {s}", "2" + rnd(26, seed="u52") + "_" + rnd(21, seed="u53"))
    s.pos("login-token", "doctl auth init -t {s}", rnd(48, URLSAFE, "u54"))
    s.pos("token-flag", "consul members -token={s}", _uuid("u55"))
    s.pos("token-flag", "erl -sname worker -setcookie {s}", rnd(20, "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "u56"))
    s.pos(
        "snmp-passphrase",
        "snmpget -v3 -u mon -l authPriv -a SHA -A {s} core-sw2 sysUpTime.0",
        password(16, "u57"),
    )
    s.pos("short-flag-token", "ovsx publish -p {s}", rnd(36, LOWER + DIGITS, "u58"))
    s.pos(
        "app-password",
        "altool --validate-app -f a.ipa -u ops@acme.dev -p {s}",
        "-".join(rnd(4, LOWER, f"u59-{i}") for i in range(4)),
    )
    s.pos("psk", "wpa_psk={s}", password(16, "u60"))
    # secrets in URLs
    s.pos(
        "url-secret",
        "https://backups.blob.core.windows.net/db/dump.tar?sv=2022-11-02&sp=r&sig={s}",
        rnd(30, seed="u61") + "%2B" + rnd(10, seed="u62") + "%3D",
    )
    s.pos(
        "url-secret",
        "curl 'https://gitlab.acme.dev/api/v4/projects?private_token={s}'",
        "x" + rnd(19, seed="u63"),
    )
    s.pos(
        "webhook-secret",
        "Zap hook: https://hooks.zapier.com/hooks/catch/4412233/{s}/",
        rnd(24, LOWER + DIGITS, "u64"),
    )
    s.pos(
        "webhook-secret",
        "ROCKETCHAT_HOOK=https://chat.acme.dev/hooks/" + rnd(17, seed="u65") + "/{s}",
        rnd(48, seed="u66"),
    )

    s.pos(
        "xml-element", "<server>\n  <id>acme</id>\n  <password>{s}</password>\n</server>", password(16, "u67")
    )
    s.pos("xml-element", "<ApiKey>{s}</ApiKey>", rnd(32, seed="u68"))
    s.pos("name-value", '<property name="db.password" value="{s}"/>', password(15, "u69"))
    s.pos("make-assignment", "DEPLOY_TOKEN ?= {s}", rnd(36, seed="u82"))
    s.pos("set-variable", "setx LEDGER_API_TOKEN {s}", rnd(40, seed="u83"))
    s.pos("set-variable", "set -gx OPENROUTER_KEY {s}", rnd(40, URLSAFE, "u84"))
    s.pos("set-variable", "gh secret set DEPLOY_TOKEN --body {s}", rnd(40, seed="u85"))
    s.pos("url-hash-password", "AMQP_URL=amqp://ops:{s}@mq.acme.dev:5672/", "Q7#" + password(12, "u86"))

    # look-alikes of each
    s.neg("xml-like", "<tokenType>Bearer</tokenType>\n<passwordPolicy>strict</passwordPolicy>")
    s.neg("xml-like", '<property name="password.length" value="16"/>')
    s.neg("make-like", "DB_HOST ?= localhost\nPASSWORD_FILE ?= /run/secrets/db")
    s.neg("set-like", 'setx PATH "%PATH%;C:\\tools" && set -x EDITOR vim')
    s.neg("set-like", "gh secret set DEPLOY_KEY < deploy_key.pem")
    s.neg("url-like", "http://localhost:8080/#/login@home")
    s.neg("vendor-like", "Stripe webhook secret: whsec_" + "x" * 32)
    s.neg("vendor-like", "pa-settings-for-the-production-cluster-and-staging")
    s.neg("vendor-like", "See https://wiki.acme.dev/API-3F9A1C2E8B7D6A5F4E3D2C1B0A9F8E7D for the design.")
    s.neg("vendor-like", "Loader: cioBaseClientConfigurationV2LoaderModule")
    s.neg("vendor-like", "Publishable key pk_" + "live_" + rnd(24, seed="u70") + " goes in the page.")
    s.neg(
        "spaced-like",
        "Set the password manager up before the first login; password reset links expire after 24h.",
    )
    s.neg("spaced-like", "CREATE USER ledger_app IDENTIFIED BY '${DB_PASSWORD}';")
    s.neg("spaced-like", 'account acme\nuser alerts@acme.dev\npasswordeval "gpg -d ~/.msmtp-password.gpg"')
    s.neg("spaced-like", "db2 connect to LEDGER user db2inst1 using $DB2_PASSWORD")
    s.neg("spaced-like", "using System.Security.Cryptography; // for the password hash")
    s.neg("spaced-like", 'expect "password:"\nsend -- "$env(SSH_PASSWORD)\\r"')
    s.neg("sasl-like", "image.repository  ledger:v1.2.3-rc1")
    s.neg("sasl-like", "[smtp.acme.dev]:587 relay@acme.dev:${SMTP_PASSWORD}")
    s.neg("realm-like", "# realm.properties\nguest: MD5:" + rnd(32, HEX, "u71") + ",user")
    s.neg("slash-like", "msbuild ledger.sln /p:Configuration=Release /p:Platform=x64")
    s.neg("slash-like", "xcopy build dist /p /s /e")
    s.neg("slash-like", "cmdkey /add:files.acme.dev /user:ops /pass")
    s.neg("net-like", "net use Z: \\\\files\\finance /user:ACME\\svc-report * /persistent:no")
    s.neg("flag-like", "ps -o pid,cmd -u postgres,www-data")
    s.neg("flag-like", "skopeo copy --src-creds ci:$(cat /run/secrets/registry) docker://a/b docker://c/b")
    s.neg("positional-like", 'composer config http-basic.repo.acme.dev ci "$COMPOSER_PASSWORD"')
    s.neg("positional-like", "rabbitmqctl list_users --formatter json")
    s.neg("login-like", "docker login registry.acme.dev && gh auth login --hostname ghe.acme.dev")
    s.neg("login-like", "ngrok authtoken $NGROK_AUTHTOKEN")
    s.neg("login-like", "nix profile install " + rnd(40, HEX, "u72"))
    s.neg("token-flag-like", "consul acl token create -description ci -token-file /run/secrets/consul")
    s.neg("token-flag-like", "erl -sname worker -setcookie monster")
    s.neg("short-flag-like", "git log -p " + rnd(40, HEX, "u73"))
    s.neg("short-flag-like", "pg_dump -w ledger_production_backup_2024")
    s.neg("url-like", "https://api.acme.dev/v1/items?page=2&sort=desc&key=created_at")
    s.neg("url-like", "https://acme.dev/oauth/callback?code=" + rnd(24, seed="u74") + "&state=af0ifjsldkj")
    s.neg("url-like", "curl 'https://gitlab.acme.dev/api/v4/projects?private_token=${GITLAB_TOKEN}'")
    s.neg("url-like", "https://github.com/acme/ledger/settings/hooks/412345678")
    s.neg("url-like", "https://docs.acme.dev/webhooks/configuring-incoming-webhooks-for-teams")
    s.neg(
        "url-like",
        "https://acme.webhook.office.com/webhookb2/"
        + _uuid("u75")
        + "@"
        + _uuid("u76")
        + "/IncomingWebhook/<key>/"
        + _uuid("u77"),
    )
    s.neg(
        "public-like",
        "tls.crt: "
        + _b64("-----BEGIN CERTIFICATE-----\n" + rnd(64, B64, "u78") + "\n-----END CERTIFICATE-----\n"),
    )
    s.neg("public-like", "known_hosts fingerprint: SHA256:" + rnd(43, B64, "u79"))
    s.neg("public-like", 'integrity: "sha384-' + rnd(64, B64, "u80") + '"')
    s.neg("public-like", "POSTHOG_KEY=phc_" + rnd(43, seed="u81"))
    s.neg("encoded-config", "WIDGET_CONFIG=" + _b64('{"theme":"dark","columns":3,"compact":true}'))
    s.neg("code-like", "handler = app.routes.v2.ledgerHandler")


def _jwe(seed: str, alg: str = "dir") -> str:
    header = _b64url({"alg": alg, "enc": "A256GCM", "kid": "ledger-2"})
    key = "" if alg == "dir" else rnd(342, URLSAFE, seed + "k")
    return ".".join(
        (header, key, rnd(16, URLSAFE, seed + "i"), rnd(120, URLSAFE, seed + "c"), rnd(22, URLSAFE, seed))
    )


def _no_digit_token(n: int, seed: str) -> str:
    """Random letters of both cases, at most one digit: how a short token often comes out."""
    r = rnd(n, UPPER + LOWER + "_-", seed)
    return r[: n // 2] + "7" + r[n // 2 + 1 :]


def _third_heldout_families(s: CaseSet) -> None:
    """Written when the third held-out set was retired (issue 29): for each family its misses and
    false alarms showed, new cases of the family and look-alikes, in other tools and dialects."""
    # a secret after a header or key, whatever its digits: random letters alone, or a dot between
    # random words (a bootstrap token)
    s.pos(
        "keyed-few-digits",
        'curl -H "X-Auth-Token: {s}" https://api.acme.dev/v2/ledgers',
        _no_digit_token(28, "v1"),
    )
    s.pos(
        "keyed-few-digits",
        "headers = {{'Api-Key': '{s}'}}".replace("{{", "{").replace("}}", "}"),
        _no_digit_token(32, "v2"),
    )
    s.pos("keyed-few-digits", "LEDGER_ACCESS_TOKEN={s}", _no_digit_token(40, "v3"))
    s.pos(
        "keyed-dotted-token",
        "kubeadm join 10.0.0.4:6443 --token {s} --discovery-token-ca-cert-hash sha256:" + rnd(64, HEX, "v4"),
        rnd(5, LOWER + DIGITS, "v5") + "4.2" + rnd(15, LOWER + DIGITS, "v6"),
    )
    s.pos(
        "keyed-dotted-token",
        "bootstrap_token: {s}",
        rnd(5, LOWER + DIGITS, "v7") + "0.9" + rnd(15, LOWER + DIGITS, "v8"),
    )
    s.neg("keyed-few-digits-like", "X-Auth-Token: RequestScopedTokenHeaderName")
    s.neg("keyed-few-digits-like", "api_key_header = X-Ledger-Api-Key-Forwarded-For")
    s.neg("keyed-dotted-like", "token_library: jjwt-api.0.12.5")
    s.neg("keyed-dotted-like", "auth_token_client: ledger-auth-client-3.14.2-rc1")
    # a secret in base64 under a key: a Kubernetes Secret's `data:`, a Helm value
    s.pos(
        "encoded-secret",
        "kind: Secret\ntype: Opaque\ndata:\n  stripe-secret: {s}\n",
        _b64(rnd(40, seed="v9")),
    )
    s.pos("encoded-secret", "ledgerApi:\n  tokenB64: {s}\n", _b64(rnd(36, URLSAFE, "v10")))
    s.neg("encoded-secret-like", "data:\n  api_key_name: " + _b64("ledger-api-key-primary") + "\n")
    s.neg("encoded-secret-like", "SECRET_SETTINGS=" + _b64('{"rotate":true,"days":30}'))
    # key containers: a signify or minisign secret key under its comment line; a PEM on one line
    s.pos(
        "signed-key-file",
        "$ cat ~/.signify/release.sec\nuntrusted comment: signify secret key\n{s}\n",
        "RWRCSwAAA" + rnd(140, B64, "v11") + "==",
    )
    s.pos(
        "one-line-pem",
        "TLS_KEY='-----BEGIN EC PRIVATE KEY----- {s} -----END EC PRIVATE KEY-----'",
        rnd(64, B64, "v12") + " " + rnd(56, B64, "v13"),
    )
    s.neg(
        "signed-key-file-like",
        "untrusted comment: minisign public key "
        + rnd(16, "ABCDEF" + DIGITS, "v14")
        + "\nRWQ"
        + rnd(53, B64, "v15"),
    )
    s.neg(
        "pem-like",
        "-----BEGIN RSA PRIVATE KEY-----\nstored in 1Password under ops/deploy, never pasted in a file\n"
        "-----END RSA PRIVATE KEY-----",
    )
    s.neg("pem-like", '"private_key": "-----BEGIN PRIVATE KEY-----\\n...\\n-----END PRIVATE KEY-----\\n"')
    # an encrypted token (JWE), with an encrypted key or none
    s.pos("jwe", "Set-Cookie: session={s}; HttpOnly", _jwe("v16"))
    s.pos("jwe", "refresh = '{s}'", _jwe("v17", "RSA-OAEP-256"))
    s.neg("jwe-like", "eyJ" + rnd(30, URLSAFE, "v18") + ".sig.x.y.z")
    # a key after its key id, given to an authorize subcommand
    s.pos(
        "authorize-key",
        "b2 authorize-account {s}".replace("{s}", rnd(25, HEX, "v19") + " {s}"),
        "K00" + rnd(28, seed="v20"),
    )
    s.pos("authorize-key", "rclone authorize drive '{s}'", rnd(40, URLSAFE, "v21"))
    s.neg("authorize-key-like", "b2 authorize-account $B2_APPLICATION_KEY_ID $B2_APPLICATION_KEY")
    s.neg("authorize-key-like", "b2 account authorize --help && b2 bucket list")
    # references to a secret store are no secret, whatever the store
    s.neg("store-reference", "db_password: op://Production/ledger-db/password")
    s.neg("store-reference", "password = ref+awssecrets://prod/ledger/db#/password")
    s.neg(
        "store-reference",
        "LEDGER_TOKEN=arn:aws:secretsmanager:eu-west-1:123456789012:secret:ledger/token-AbCdEf",
    )
    s.neg(
        "store-reference",
        "API_KEY=@Microsoft.KeyVault(SecretUri=https://ledger-kv.vault.azure.net/secrets/api-key/)",
    )
    s.neg("store-reference", "smtp_password: sm://acme-prod/smtp-password")
    # keys published for a local emulator
    s.neg(
        "emulator-key",
        "AccountEndpoint=https://localhost:8081/;AccountKey=C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuV"
        + "TqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==",
    )


def _prose_families(s: CaseSet) -> None:
    """A secret told in a sentence, a table or a list, in English and other languages, with no key or
    flag: after the word and a verb or a separator, or before `as the … token`; look-alikes of each."""
    s.pos(
        "prose-password", "The staging database password is {s} until Friday's rotation.", password(13, "w1")
    )
    s.pos("prose-password", "I reset the admin password to `{s}`, change it after login.", password(12, "w2"))
    s.pos(
        "prose-password",
        "| Service | Password |\n| --- | --- |\n| billing DB password | {s} |",
        password(14, "w3"),
    )
    s.pos("prose-password", "- VPN passphrase for the Berlin office → {s}", password(15, "w4"))
    s.pos("prose-token", "The deploy token for CI is {s} (read-only).", rnd(40, seed="w5"))
    s.pos("prose-token", "Paste {s} as the Sentry auth token when asked.", rnd(64, HEX, "w6"))
    s.pos("prose-token", "Our license key: {s}", rnd(32, seed="w7"))
    s.pos("prose-token", "webhook secret {s}", rnd(40, seed="w8"))
    s.pos("prose-token", "Postmark server token {s}", _uuid("w9"))
    s.pos("prose-foreign", "Das Kennwort für den Testserver ist {s}", password(12, "w10"))
    s.pos("prose-foreign", "Le mot de passe de la base est {s}", password(12, "w11"))
    s.pos("prose-foreign", "La contraseña del servidor: {s}", password(12, "w12"))
    s.pos("prose-foreign", "A senha do banco é {s}", password(12, "w13"))
    s.pos("prose-foreign", "本番DBのパスワードは {s} です", password(12, "w14"))
    s.pos("prose-foreign", "数据库密码：{s}", password(12, "w15"))
    s.pos("prose-foreign", "Пароль от стенда: {s}", password(12, "w16"))
    s.pos("prose-foreign", "API-Schlüssel: {s}", rnd(36, seed="w17"))
    s.neg("prose-like", "The password is stored in Vault under ledger/prod; ask ops for access.")
    s.neg("prose-like", "The token is refreshed every 3600 seconds by the sidecar.")
    s.neg("prose-like", "| Setting | Value |\n| --- | --- |\n| password min length | 12 |")
    s.neg("prose-like", "The API key is `LEDGER_API_KEY` in the environment, never in code.")
    s.neg("prose-like", "Use the next page token " + _uuid("w18") + " to fetch more results.")
    s.neg("prose-like", "The secret was rotated on 2024-06-01 after the incident.")
    s.neg("prose-like", "Der Kennwort-Dialog erscheint nach 3 Fehlversuchen.")
    s.neg("prose-like", "パスワードは 1Password の ops 保管庫にあります")
    s.neg("prose-like", "password: hunter2  # the classic example, never a real one")
    s.neg("prose-like", "Set the password to at least 12 characters with a digit.")


def _layout_families(s: CaseSet) -> None:
    """A key and its value apart (name/value fields, the value on the next line, a flag and its value
    as list items), secret stores written from the command line, stdin, and what only looks like a
    password (hashes, ciphertexts, YAML tags); look-alikes of each."""
    s.pos(
        "name-value",
        'containers:\n  - name: api\n    env:\n      - name: LEDGER_DB_PASSWORD\n        value: "{s}"\n',
        password(14, "x1"),
    )
    s.pos(
        "name-value",
        '"environment": [{"name": "PAYMENTS_API_TOKEN", "value": "{s}"}]',
        rnd(40, seed="x2"),
    )
    s.pos(
        "name-value",
        "Parameters:\n  - ParameterKey: DbPassword\n    ParameterValue: {s}\n",
        password(14, "x3"),
    )
    s.neg(
        "name-value-like",
        "env:\n  - name: LEDGER_DB_PASSWORD\n    valueFrom:\n      secretKeyRef: {name: db, key: pw}",
    )
    s.neg("name-value-like", '- name: LOG_LEVEL\n  value: "debug"\n- name: TOKEN_TTL\n  value: "3600"')
    s.pos("next-line", "smtp:\n  password:\n    {s}\n", password(13, "x4"))
    s.pos("next-line", "stripe:\n  webhook_secret: >-\n    {s}\n", rnd(40, seed="x5"))
    s.pos("next-line", "vault_token: |\n  {s}\n", "hvs." + rnd(24, seed="x6") + "X")
    s.neg("next-line-like", "password:\n  min_length: 12\n  require_digit: true\n")
    s.neg("next-line-like", "api_key:\nendpoint: https://api.acme.dev/v2\n")
    s.pos("list-flag", 'command: ["valkey-server", "--requirepass", "{s}"]', password(14, "x7"))
    s.pos("list-flag", "entrypoint: ['ledger-cli', '--api-token', '{s}']", rnd(36, seed="x8"))
    s.pos("list-flag", 'args = ["-p", "{s}", "--host", "db"]', password(13, "x9"))
    s.neg("list-flag-like", 'args: ["--password-file", "/run/secrets/db", "-p", "5432"]')
    s.pos(
        "store-value",
        "az keyvault secret set --vault-name ledger-kv --name smtp --value '{s}'",
        password(14, "x10"),
    )
    s.pos(
        "store-value",
        "aws secretsmanager put-secret-value --secret-id ledger/db --secret-string {s}",
        password(16, "x11"),
    )
    s.neg(
        "store-value-like",
        "aws ssm put-parameter --name /ledger/db --value file://pw.txt --type SecureString",
    )
    s.pos("stdin-password", "printf '{s}\\n' | sudo -S systemctl restart ledger", password(14, "x12"))
    s.pos(
        "spaced-named",
        "vrrp_instance VI_1 {\n  authentication {\n    auth_pass {s}\n  }\n}",
        password(8, "x13"),
    )
    s.pos("spaced-named", "rootpw {s}", password(12, "x14"))
    s.pos("bang-password", "redis_password: !{s}", rnd(13, seed="x15"))
    s.neg("bang-like", "db_password: !vault |\n  $ANSIBLE_VAULT;1.1;AES256\n  " + rnd(64, HEX, "x16"))
    s.neg("bang-like", "Password: !Ref DbPasswordParameter")
    s.neg("hash-like", "admin_password_hash: $2b$12$" + rnd(53, LOWER + UPPER + DIGITS + "./", "x17"))
    s.neg("hash-like", "admin: {SSHA}" + rnd(32, B64, "x18"))
    s.neg("hash-like", "users:\n  ci: $apr1$" + rnd(8, seed="x19") + "$" + rnd(22, seed="x20"))
    s.neg(
        "hash-like", "password: pbkdf2_sha256$720000$" + rnd(22, seed="x21") + "$" + rnd(43, B64, "x22") + "="
    )
    s.neg(
        "hash-like",
        "CREATE ROLE app LOGIN PASSWORD 'SCRAM-SHA-256$4096:"
        + rnd(24, B64, "x23")
        + "$"
        + rnd(44, B64, "x24")
        + "'",
    )
    s.neg("ciphertext-like", "db_password: vault:v2:" + rnd(64, B64, "x25"))
    s.neg("ciphertext-like", "encryptedData:\n  password: AgB" + rnd(700, B64, "x26"))
    s.neg("ciphertext-like", "api_token: ENC(" + rnd(44, B64, "x27") + ")")
    s.neg("ciphertext-like", "ciphertext_blob: AQICAHh" + rnd(180, B64, "x28"))


B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
BECH32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"


def _container_families(s: CaseSet) -> None:
    """Tokens and keys that say what they are by their shape or their container: PASETO, BIP-32 and
    Nostr private keys, New Relic and Azure DevOps keys, private JWKs, SAS tokens without a URL."""
    s.pos("paseto", "session: {s}", "v4." + "local." + rnd(120, URLSAFE, "y1"))
    s.pos("paseto", "Bearer-ish header X-Paseto {s} was logged", "v2." + "public." + rnd(96, URLSAFE, "y2"))
    s.pos("extended-private-key", "Recovery: {s}", "xp" + "rv9s21ZrQH143K" + rnd(95, B58, "y3"))
    s.pos("nostr-secret-key", "my nostr key {s}", "ns" + "ec1" + rnd(58, BECH32, "y4"))
    s.pos("newrelic-license", "license_key: {s}", rnd(36, HEX, "y5") + "NR" + "AL")
    s.pos("newrelic-license", "NR ingest key {s} in the agent log", rnd(36, HEX, "y6") + "NR" + "AL")
    s.pos("azure-devops-pat", "ADO: {s}", rnd(76, seed="y7") + "AZ" + "DO" + rnd(4, seed="y8"))
    s.pos(
        "jwk-private",
        '{"keys": [{"kty": "OKP", "crv": "Ed25519", "x": "' + rnd(43, URLSAFE, "y9") + '", "d": "{s}"}]}',
        rnd(43, URLSAFE, "y10"),
    )
    s.pos(
        "jwk-private",
        '{"kty":"RSA","n":"' + rnd(342, URLSAFE, "y11") + '","e":"AQAB","d":"{s}"}',
        rnd(342, URLSAFE, "y12"),
    )
    s.pos(
        "sas-token",
        "AZURE_BLOB_SAS=sv=2023-01-03&ss=bf&srt=sco&sp=rl&se=2026-12-31T00:00:00Z&spr=https&sig={s}",
        rnd(40, B64, "y13") + "%3D",
    )
    s.neg(
        "container-like",
        '{"kty": "EC", "crv": "P-256", "x": "'
        + rnd(43, URLSAFE, "y14")
        + '", "y": "'
        + rnd(43, URLSAFE, "y15")
        + '"}',
    )
    s.neg("container-like", "xpub661MyMwAqRbcF" + rnd(94, B58, "y16"))
    s.neg("container-like", "npub1" + rnd(58, BECH32, "y17"))
    s.neg("container-like", "storage api version sv=2023-01-03&comp=list&restype=container")
    s.neg("container-like", "paseto versions: v4.local. and v4.public. (see the spec)")
    # a builder's method named for a secret, and a header set with a blank (nginx, Apache)
    s.pos(
        "builder-secret", 'conn = Pool.builder().user("ledger").password("{s}").build()', password(14, "y18")
    )
    s.pos("builder-secret", 'OpenAI::Client.new.tap { |c| c.api_key("{s}") }', rnd(40, seed="y19"))
    s.pos(
        "header-blank",
        'proxy_set_header Authorization "Basic {s}";',
        base64.b64encode(("ci:" + password(13, "y20")).encode()).decode(),
    )
    s.pos("header-blank", 'RequestHeader set Authorization "Bearer {s}"', rnd(40, seed="y21"))
    s.neg("builder-like", 'form.password("Enter your password").required()')
    s.neg("builder-like", 'b.api_key(os.environ["LEDGER_API_KEY"])')
    s.neg("header-blank-like", 'proxy_set_header Authorization "Bearer $http_x_token";')


def tuning_cases() -> list[Case]:
    s = CaseSet("tuning")
    _vendors(s)
    _flag_families(s)
    _more_families(s)
    _look_alikes(s)
    _second_heldout_families(s)
    _third_heldout_families(s)
    _prose_families(s)
    _layout_families(s)
    _container_families(s)
    return s.cases
