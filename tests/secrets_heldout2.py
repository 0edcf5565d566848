"""Secret strings first written as the SECOND HELD-OUT set, RETIRED to tuning use:
tests/core/safety/test_secrets.py asserts every case beside tests/secrets_tuning.py's and
tests/secrets_heldout.py's, and `benchmarks/bench_secrets.py --show-heldout2` prints its misses.

It was measured without its misses being read (70/113 recall with 6/48 false alarms on 6610a89;
71/113, 6/48 on 979db4b); on 2026-12-04 its misses and false alarms were read and the scanner
generalised by family, not by case (vendor formats from the vendors' published shapes; a keyword,
blanks and a password in configuration files and SQL; Windows-style flags; credentials flags and
admin commands' positional passwords; tokens given to login subcommands; secrets in URL query
parameters and webhook paths; private keys in base64, PuTTY and SSH2 wrappings; base64 of text,
of a certificate, and digests that name their algorithm as public), with new cases of each family
and look-alikes written into secrets_tuning.py: 113/113, 0/48. It no longer tells whether the
scanner generalises; a third held-out set is written by someone who has not read these. What
follows is the set's original note.

Written 2026-12-03 for issue 29 by an engineer working as an independent red team (branch i29h), before
any change to the scanner for it and without reading the scanner (homeostat/core/safety/) or the
tuning set's cases; only the kind names of tests/secrets_tuning.py, tests/secrets_heldout.py and the
shared corpus were looked at, so that every vendor and shape here is one none of them names: other
SaaS, cloud and AI vendors' self-identifying tokens, webhook URLs with their secret in the path,
connection strings of other databases and brokers, config-file dialects (Gradle, Jetty, Kafka JAAS,
Terraform, Drupal, Laravel, Guardian, HAProxy, Postfix, fetchmail, msmtp, Mercurial, boto, Yarn,
wpa_supplicant), other tools' password arguments (Windows, IPMI, SNMP, RDP, CIFS, Db2, Perforce, GnuPG,
RabbitMQ, Mosquitto, InfluxDB, WP-CLI, Drush, skopeo, Poetry, Bundler, Composer, Erlang, Jenkins,
unixODBC), and look-alikes of each (public keys and identifiers, hashes, placeholders, references to a
secret store).

benchmarks/bench_secrets.py --heldout2 prints only its totals. A miss here is evidence that a rule
generalises badly, not a case to add a rule for; once it has guided a change it is no longer held out.

Measurements (totals only; no miss or false alarm has been read):
- 2026-12-03, committed alone, main's scanner as of 6610a89 (branch i29h, e5d8470): recall 70/113
  (0.619), false alarms 6/48.
"""

from __future__ import annotations

import base64
import json

from secret_sets import DIGITS, HEX, LOWER, UPPER, URLSAFE, Case, CaseSet, b64, password, rnd

ALNUM_UP = UPPER + DIGITS
LOW_ALNUM = LOWER + DIGITS


def _b64text(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def _urlpw(n: int, seed: str) -> str:
    """A password as it appears inside a URL or a config line that treats `#` as a comment."""
    return rnd(n - 1, LOWER + UPPER + DIGITS, seed) + "-"


def _uuid(seed: str) -> str:
    h = rnd(32, HEX, seed)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"


def _vendor_tokens(s: CaseSet) -> None:
    """Self-identifying tokens of vendors no other set names."""
    s.pos("alibaba-access-key", "ALIBABA_CLOUD_ACCESS_KEY_ID={s}", "LT" + "AI" + rnd(20, seed="k1"))
    s.pos("tencent-secret-id", "tccli configure set secretId {s}", "AK" + "ID" + rnd(32, seed="k2"))
    s.pos(
        "yandex-api-key",
        "export YC_API_KEY={s}",
        "AQ" + "VN" + rnd(36, URLSAFE, "k3"),
    )
    s.pos("google-refresh-token", 'refresh_token: "{s}"', "1/" + "/0" + rnd(100, URLSAFE, "k4"))
    s.pos("google-access-token", "Authorization: Bearer {s}", "ya" + "29." + rnd(120, URLSAFE, "k5"))
    s.pos(
        "aws-session-token",
        "export AWS_SESSION_TOKEN={s}",
        "IQoJb3JpZ2lu" + "X2Vj" + rnd(300, URLSAFE.replace("-", "+").replace("_", "/"), "k6") + "=",
    )
    s.pos(
        "flutterwave-secret",
        "FLW_SECRET_KEY={s}",
        "FLW" + "SECK-" + rnd(32, HEX, "k7") + "-X",
    )
    s.pos("brevo-key", "api-key: {s}", "xke" + "ysib-" + rnd(64, HEX, "k8") + "-" + rnd(16, seed="k9"))
    s.pos("mailersend-token", "MAILERSEND_API_KEY={s}", "ml" + "sn." + rnd(64, HEX, "k10"))
    s.pos("shippo-token", 'shippo.config.api_key = "{s}"', "shippo" + "_live_" + rnd(40, HEX, "k11"))
    s.pos("stytch-secret", "STYTCH_SECRET={s}", "secret" + "-live-" + rnd(36, URLSAFE, "k12"))
    s.pos("hubspot-private-app", "hubspot.init(accessToken: '{s}')", "pat" + "-na1-" + _uuid("k13"))
    s.pos("launchdarkly-sdk-key", "LAUNCHDARKLY_SDK_KEY={s}", "sd" + "k-" + _uuid("k14"))
    s.pos("trello-token", "trello.token = {s}", "AT" + "TA" + rnd(64, HEX, "k15") + rnd(8, ALNUM_UP, "k16"))
    s.pos(
        "asana-pat",
        "ASANA_ACCESS_TOKEN={s}",
        "2/" + rnd(16, DIGITS, "k17") + "/" + rnd(16, DIGITS, "k18") + ":" + rnd(32, HEX, "k19"),
    )
    s.pos(
        "clickup-token",
        "ClickUp personal token for the sync job: {s}",
        "pk_" + rnd(8, DIGITS, "k20") + "_" + rnd(32, ALNUM_UP, "k21"),
    )
    s.pos("woocommerce-secret", "WC_CONSUMER_SECRET={s}", "cs" + "_" + rnd(40, HEX, "k22"))
    s.pos(
        "intercom-token",
        "Intercom access token (sync bot): {s}",
        _b64text("tok:" + _uuid("k23") + ":" + rnd(12, seed="k24")).rstrip("="),
    )
    s.pos(
        "firebase-server-key",
        "FCM_SERVER_KEY={s}",
        "AAAA" + rnd(7, seed="k25") + ":APA91b" + rnd(134, URLSAFE, "k26"),
    )
    s.pos("onesignal-key", "ONESIGNAL_REST_API_KEY={s}", "os_v2" + "_app_" + rnd(108, LOW_ALNUM, "k27"))
    s.pos(
        "ably-key",
        "new Ably.Realtime('{s}')",
        rnd(6, seed="k28") + "." + rnd(7, URLSAFE, "k29") + ":" + rnd(43, URLSAFE, "k30"),
    )
    s.pos("replicate-token", "REPLICATE_API_TOKEN={s}", "r8" + "_" + rnd(37, seed="k31"))
    s.pos("tavily-key", 'TavilyClient(api_key="{s}")', "tv" + "ly-" + rnd(32, seed="k32"))
    s.pos("firecrawl-key", "FIRECRAWL_API_KEY={s}", "f" + "c-" + rnd(32, HEX, "k33"))
    s.pos(
        "langsmith-key",
        "LANGSMITH_API_KEY={s}",
        "lsv2" + "_pt_" + rnd(32, HEX, "k34") + "_" + rnd(10, HEX, "k35"),
    )
    s.pos(
        "langfuse-secret", 'Langfuse(secret_key="{s}", public_key="pk-lf-demo")', "sk" + "-lf-" + _uuid("k36")
    )
    s.pos("jina-key", "JINA_API_KEY={s}", "ji" + "na_" + rnd(60, URLSAFE, "k37"))
    s.pos("cerebras-key", "CEREBRAS_API_KEY={s}", "cs" + "k-" + rnd(48, LOW_ALNUM, "k38"))
    s.pos("fireworks-key", 'fireworks.client.api_key = "{s}"', "f" + "w_" + rnd(24, seed="k39"))
    s.pos("voyage-key", "VOYAGE_API_KEY={s}", "p" + "a-" + rnd(43, URLSAFE, "k40"))
    s.pos("deno-deploy-token", "deployctl deploy --token={s} main.ts", "dd" + "p_" + rnd(36, seed="k41"))
    s.pos("xata-key", "XATA_API_KEY={s}", "xa" + "u_" + rnd(32, seed="k42"))
    s.pos(
        "convex-deploy-key",
        "CONVEX_DEPLOY_KEY={s}",
        "prod:happy-otter-" + rnd(3, DIGITS, "k43") + "|" + rnd(80, URLSAFE, "k44"),
    )
    s.pos("honeycomb-ingest", "HONEYCOMB_API_KEY={s}", "hca" + "ik_" + rnd(58, LOW_ALNUM, "k45"))
    s.pos("axiom-token", "AXIOM_TOKEN={s}", "xa" + "at-" + _uuid("k46"))
    s.pos(
        "dynatrace-token",
        "DT_API_TOKEN={s}",
        "dt0" + "c01." + rnd(24, ALNUM_UP, "k47") + "." + rnd(64, ALNUM_UP, "k48"),
    )
    s.pos("twitter-bearer", "TWITTER_BEARER_TOKEN={s}", "A" * 22 + rnd(90, seed="k49").replace("A", "b"))
    s.pos("jfrog-api-key", "artifactory_api_key: {s}", "AK" + "Cp" + rnd(69, seed="k50"))
    s.pos(
        "harness-pat",
        "HARNESS_API_KEY={s}",
        "pat." + rnd(22, URLSAFE, "k51") + "." + rnd(24, HEX, "k52") + "." + rnd(20, seed="k53"),
    )
    s.pos(
        "octopus-key",
        "octo login --server https://deploy.acme.dev --api-key {s}",
        "AP" + "I-" + rnd(30, ALNUM_UP, "k54"),
    )
    s.pos("azure-devops-pat", "vsce publish -p {s}", rnd(52, "abcdefghijklmnopqrstuvwxyz234567", "k55"))
    s.pos("crates-token", "cargo login {s}", "ci" + "o" + rnd(32, seed="k56"))
    s.pos("clojars-token", "CLOJARS_PASSWORD={s}", "CLOJARS" + "_" + rnd(60, HEX, "k57"))
    s.pos(
        "ngrok-authtoken",
        "ngrok config add-authtoken {s}",
        "2" + rnd(26, seed="k58") + "_" + rnd(21, seed="k59"),
    )
    s.pos(
        "cloudflare-tunnel-token",
        "cloudflared service install {s}",
        _b64text(json.dumps({"a": rnd(32, HEX, "k60"), "t": _uuid("k61"), "s": b64(32, "k62")})),
    )
    s.pos(
        "onepassword-service-account",
        "OP_SERVICE_ACCOUNT_TOKEN={s}",
        "op" + "s_" + "eyJ" + rnd(400, URLSAFE, "k63"),
    )
    s.pos(
        "bitwarden-access-token",
        "BWS_ACCESS_TOKEN={s}",
        "0." + _uuid("k64") + "." + rnd(30, seed="k65") + ":" + b64(16, "k66"),
    )
    s.pos(
        "jenkins-api-token",
        "java -jar jenkins-cli.jar -s https://ci.acme.dev -auth deploy:{s} build ledger",
        "11" + rnd(32, HEX, "k67"),
    )
    s.pos("klaviyo-private-key", "KLAVIYO_PRIVATE_API_KEY={s}", "p" + "k_" + rnd(34, HEX, "k68"))


def _webhooks_and_dsns(s: CaseSet) -> None:
    """Secrets inside URLs and connection strings of other services."""
    s.pos(
        "teams-webhook",
        "TEAMS_WEBHOOK=https://acme.webhook.office.com/webhookb2/"
        + _uuid("w1")
        + "@"
        + _uuid("w2")
        + "/IncomingWebhook/{s}/"
        + _uuid("w3"),
        rnd(32, HEX, "w4"),
    )
    s.pos("mattermost-webhook", "MATTERMOST_HOOK=https://chat.acme.dev/hooks/{s}", rnd(26, LOW_ALNUM, "w5"))
    s.pos(
        "azure-functions-key",
        "curl 'https://ledger-fn.azurewebsites.net/api/reconcile?code={s}'",
        rnd(54, URLSAFE, "w6") + "==",
    )
    s.pos(
        "servicebus-connection",
        "Endpoint=sb://acme-events.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;"
        "SharedAccessKey={s}",
        b64(32, "w7"),
    )
    s.pos(
        "appconfig-connection",
        "Endpoint=https://acme-config.azconfig.io;Id=" + rnd(12, seed="w8") + ";Secret={s}",
        b64(32, "w9"),
    )
    s.pos("amqp-url", "CELERY_BROKER_URL=amqp://ledger:{s}@rabbit.acme.dev:5672/ledger", _urlpw(18, "w10"))
    s.pos(
        "clickhouse-dsn",
        "clickhouse://analytics:{s}@ch.acme.dev:9440/events?secure=true",
        _urlpw(16, "w11"),
    )
    s.pos(
        "snowflake-url",
        "snowflake://etl_user:{s}@acme-xy12345/ANALYTICS/PUBLIC?warehouse=ETL",
        _urlpw(17, "w12"),
    )
    s.pos("neo4j-url", "NEO4J_URI=neo4j+s://neo4j:{s}@graph.acme.dev:7687", _urlpw(15, "w13"))
    s.pos("mqtt-url", "MQTT_URL=mqtts://sensor-gw:{s}@broker.acme.dev:8883", _urlpw(14, "w14"))
    s.pos(
        "libsql-url",
        "DATABASE_URL=libsql://ledger-acme.turso.io?authToken={s}",
        "eyJhbGciOiJFZERTQSIsInR5cCI6IkpXVCJ9." + rnd(60, URLSAFE, "w15") + "." + rnd(86, URLSAFE, "w16"),
    )
    s.pos(
        "splunk-hec",
        "curl -H 'Authorization: Splunk {s}' https://hec.acme.dev:8088/services/collector",
        _uuid("w17"),
    )
    s.pos(
        "elastic-apikey",
        "Authorization: ApiKey {s}",
        _b64text(rnd(20, URLSAFE, "w18") + ":" + rnd(22, URLSAFE, "w19")),
    )
    s.pos(
        "openstack-fernet",
        "curl -H 'X-Auth-Token: {s}' https://cloud.acme.dev:8774/v2.1/servers",
        "gAAAAAB" + rnd(176, URLSAFE, "w20"),
    )
    s.pos("pagerduty-token", "Authorization: Token token={s}", "u+" + rnd(18, URLSAFE, "w21"))
    s.pos("postmark-header", "X-Postmark-Server-Token: {s}", _uuid("w22"))


def _config_dialects(s: CaseSet) -> None:
    """Passwords in the config files of other tools."""
    s.pos(
        "gradle-properties",
        "# gradle.properties\nsigning.keyId=24875D73\nsigning.password={s}",
        password(16, "c1"),
    )
    s.pos(
        "jetty-realm",
        "# etc/realm.properties\ndeploy: {s},manager-script",
        _urlpw(18, "c2"),
    )
    s.pos(
        "kafka-jaas",
        'sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="ledger" '
        'password="{s}";',
        password(20, "c3"),
    )
    s.pos("tfvars", '# prod.tfvars\nregion      = "eu-west-1"\ndb_password = "{s}"', password(19, "c4"))
    s.pos(
        "drupal-settings",
        "$databases['default']['default'] = ['driver' => 'mysql', 'username' => 'drupal', 'password' => '{s}'];",
        password(16, "c5"),
    )
    s.pos("laravel-app-key", "APP_KEY=base64:{s}", b64(32, "c6"))
    s.pos(
        "guardian-secret",
        'config :ledger, Ledger.Guardian,\n  issuer: "ledger",\n  secret_key: "{s}"',
        rnd(64, URLSAFE.replace("-", "+").replace("_", "/"), "c7"),
    )
    s.pos("haproxy-userlist", "userlist stats_users\n  user admin insecure-password {s}", _urlpw(15, "c8"))
    s.pos("postfix-sasl", "[smtp.acme.dev]:587 relay@acme.dev:{s}", password(16, "c9"))
    s.pos(
        "fetchmailrc",
        'poll imap.acme.dev protocol IMAP user "support" password "{s}" ssl',
        password(14, "c10"),
    )
    s.pos(
        "msmtprc", "account acme\nhost smtp.acme.dev\nuser alerts@acme.dev\npassword {s}", password(17, "c11")
    )
    s.pos(
        "hgrc-auth",
        "[auth]\nacme.prefix = https://hg.acme.dev\nacme.username = ci\nacme.password = {s}",
        password(15, "c12"),
    )
    s.pos(
        "boto-config",
        "[Credentials]\ngs_access_key_id = GOOG1E"
        + rnd(20, ALNUM_UP, "c13")
        + "\ngs_secret_access_key = {s}",
        b64(30, "c14"),
    )
    s.pos(
        "yarnrc-ident",
        'npmRegistries:\n  "https://npm.acme.dev":\n    npmAuthIdent: "ci:{s}"',
        password(18, "c15"),
    )
    s.pos("wpa-supplicant", 'network={\n  ssid="acme-lab"\n  psk="{s}"\n}', password(16, "c16"))
    s.pos(
        "kubeconfig-client-key",
        "users:\n- name: ci\n  user:\n    client-key-data: {s}",
        _b64text("-----BEGIN EC PRIVATE KEY-----\n" + b64(121, "c17") + "\n-----END EC PRIVATE KEY-----\n"),
    )
    s.pos(
        "pgp-private-key",
        "Release signing key:\n{s}",
        "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n"
        + "\n".join(b64(48, f"c18-{i}") for i in range(5))
        + "\n=Ab3D\n-----END PGP PRIVATE KEY BLOCK-----",
    )
    s.pos(
        "putty-key",
        "Saved session key (ppk):\n{s}",
        "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: deploy\nPublic-Lines: 2\n"
        + b64(36, "c19")
        + "\n"
        + b64(15, "c20")
        + "\nPrivate-Lines: 1\n"
        + b64(36, "c21")
        + "\nPrivate-MAC: "
        + rnd(64, HEX, "c22"),
    )
    s.pos("rails-master-key", "RAILS_MASTER_KEY={s}", rnd(32, HEX, "c23"))
    s.pos("erlang-cookie", "erl -name ledger@10.0.0.5 -setcookie {s}", rnd(20, UPPER, "c24"))


def _cli_passwords(s: CaseSet) -> None:
    """Other tools' password arguments and variables."""
    s.pos("cmdkey", "cmdkey /add:fileserver.acme.dev /user:ACME\\svc-backup /pass:{s}", password(15, "p1"))
    s.pos("net-use", "net use Z: \\\\files\\finance /user:ACME\\svc-report {s}", password(14, "p2"))
    s.pos(
        "schtasks",
        'schtasks /create /tn "Nightly export" /tr export.cmd /ru ACME\\svc-etl /rp {s}',
        password(16, "p3"),
    )
    s.pos("sc-config", "sc.exe config LedgerSync obj= ACME\\svc-sync password= {s}", password(15, "p4"))
    s.pos(
        "ipmitool",
        "ipmitool -I lanplus -H bmc-07.acme.dev -U admin -P {s} chassis power status",
        password(12, "p5"),
    )
    s.pos(
        "snmpv3",
        "snmpwalk -v3 -l authPriv -u monitor -a SHA -A {s} -x AES -X Pr1v-"
        + rnd(10, seed="p6")
        + " core-sw1",
        password(16, "p7"),
    )
    s.pos("xfreerdp", "xfreerdp /v:jump.acme.dev /u:ops /p:{s} /cert:tofu", password(14, "p8"))
    s.pos(
        "mount-cifs",
        "mount -t cifs //nas/backups /mnt/b -o username=backup,password={s},vers=3.0",
        password(15, "p9"),
    )
    s.pos("nmcli-wifi", "nmcli dev wifi connect acme-lab password {s}", password(16, "p10"))
    s.pos("db2-connect", "db2 connect to LEDGER user db2inst1 using {s}", password(13, "p11"))
    s.pos("p4passwd", "export P4PASSWD={s}", password(14, "p12"))
    s.pos(
        "gpg-passphrase",
        "gpg --batch --pinentry-mode loopback --passphrase {s} --sign release.tar.gz",
        password(18, "p13"),
    )
    s.pos("rabbitmqctl", "rabbitmqctl add_user ledger {s}", password(16, "p14"))
    s.pos(
        "mosquitto",
        "mosquitto_pub -h broker.acme.dev -u sensor -P {s} -t lab/temp -m 21.5",
        password(15, "p15"),
    )
    s.pos("influx-v1", "influx -host metrics.acme.dev -username admin -password {s}", password(14, "p16"))
    s.pos(
        "wp-cli", "wp user create editor editor@acme.dev --role=editor --user_pass={s}", password(15, "p17")
    )
    s.pos("drush", 'drush user:password admin "{s}"', password(16, "p18"))
    s.pos(
        "skopeo-creds",
        "skopeo copy --dest-creds ci:{s} docker://a/b docker://registry.acme.dev/b",
        password(17, "p19"),
    )
    s.pos("poetry-http-basic", "poetry config http-basic.acme ci {s}", password(16, "p20"))
    s.pos("bundle-config", "bundle config set --global gems.acme.dev ci:{s}", password(15, "p21"))
    s.pos(
        "composer-http-basic", "composer config --global http-basic.repo.acme.dev ci {s}", password(16, "p22")
    )
    s.pos(
        "rsync-password",
        "RSYNC_PASSWORD={s} rsync -av build/ rsync://deploy@mirror.acme.dev/www/",
        password(14, "p23"),
    )
    s.pos(
        "lftp", "lftp -u deploy,{s} sftp://files.acme.dev -e 'mirror -R dist /www; quit'", password(15, "p24")
    )
    s.pos(
        "kubectl-literal", "kubectl create secret generic db --from-literal=password={s}", password(18, "p25")
    )
    s.pos("unixodbc-isql", "isql -v LedgerDSN etl {s}", password(16, "p26"))
    s.pos(
        "expect-send", 'spawn ssh ops@legacy.acme.dev\nexpect "password:"\nsend "{s}\\r"', password(14, "p27")
    )
    s.pos(
        "app-specific-password",
        "xcrun altool --upload-app -f app.ipa -u dev@acme.dev -p {s}",
        "-".join(rnd(4, LOWER, f"p28-{i}") for i in range(4)),
    )
    s.pos("google-app-password", 'SMTP_PASSWORD="{s}"', " ".join(rnd(4, LOWER, f"p29-{i}") for i in range(4)))


def _negatives(s: CaseSet) -> None:
    # Public keys and identifiers that vendors publish by design
    s.neg(
        "public-key", "POSTHOG_PROJECT_KEY=phc_" + rnd(43, seed="n1") + "  # public, ships in the web bundle"
    )
    s.neg("public-key", "LANGFUSE_PUBLIC_KEY=pk-lf-" + _uuid("n2"))
    s.neg("public-key", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + rnd(43, seed="n3") + " deploy@ci")
    s.neg("public-key", "[Peer]\nPublicKey = " + b64(32, "n4") + "\nAllowedIPs = 10.8.0.0/24")
    s.neg("public-key", "age recipient for the backups: age1" + rnd(58, LOW_ALNUM, "n5"))
    s.neg("public-key", "Release key fingerprint: 4A1C 9E07 3B2D 55F8 C6E1  0D93 7AB4 2F6C 81E5 D039")
    s.neg("public-key", 'pin-sha256="' + b64(32, "n6") + '"; max-age=5184000')
    s.neg(
        "public-key",
        "certificate-authority-data: "
        + _b64text("-----BEGIN CERTIFICATE-----\n" + b64(90, "n7") + "\n-----END CERTIFICATE-----\n"),
    )
    s.neg("public-key", "EXPO push target: ExponentPushToken[" + rnd(22, seed="n8") + "]")
    # Identifiers that are not secrets
    s.neg("identifier", "arn:aws:iam::482913570216:role/ledger-deploy")
    s.neg(
        "identifier",
        "Stripe customer cus_" + rnd(14, seed="n9") + " was refunded twice; see the incident note.",
    )
    s.neg("identifier", "Twilio account SID AC" + rnd(32, HEX, "n10") + " owns the support number.")
    s.neg("identifier", "Slack channel C" + rnd(10, ALNUM_UP, "n11") + " receives the deploy digest.")
    s.neg("identifier", "Azure subscription " + _uuid("n12") + " holds the staging resources.")
    s.neg("identifier", "KMS key id: " + _uuid("n13"))
    s.neg("identifier", "Terraform state lineage " + _uuid("n14") + " must not change between plans.")
    s.neg("identifier", "Apple team ID 7QK3M9X2LD signs the iOS builds.")
    s.neg(
        "identifier",
        "Elastic Cloud ID: acme-prod:" + _b64text("eu-west-1.aws.found.io$" + rnd(32, HEX, "n15")),
    )
    # Hashes and digests
    s.neg("hash", "Fixed in 3f9a1c2e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a3f; backport it to release/4.2.")
    s.neg("hash", "github.com/acme/ledger v1.4.2 h1:" + b64(32, "n16"))
    s.neg("hash", 'checksum = "' + rnd(64, HEX, "n17") + '"')
    s.neg("hash", 'outputHash = "sha256-' + b64(32, "n18") + '";')
    s.neg("hash", "Host key: SHA256:" + b64(32, "n19").rstrip("="))
    s.neg("hash", "Built asset: main." + rnd(8, HEX, "n20") + ".js (content hash)")
    s.neg("hash", "Pin the module to v2.4.1-0.20261201123456-3f9a1c2e8b7d in go.mod.")
    s.neg("hash", "CID of the published docs: bafybei" + rnd(52, "abcdefghijklmnopqrstuvwxyz234567", "n21"))
    # Placeholders, masks and references to a secret store
    s.neg("placeholder", "FLW_SECRET_KEY=FLWSECK-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx-X")
    s.neg("placeholder", "api-key: xkeysib-<your-key-here>")
    s.neg("placeholder", "ALIBABA_CLOUD_ACCESS_KEY_ID=LTAI<your-access-key-id>")
    s.neg("placeholder", "cargo login <token from crates.io/settings/tokens>")
    s.neg("placeholder", "APP_KEY=\nAPP_DEBUG=false  # .env.example: run `php artisan key:generate`")
    s.neg("placeholder", "password: ********  (masked in the job log)")
    s.neg("env-reference", "<password>${env.MAVEN_DEPLOY_PASSWORD}</password>")
    s.neg("env-reference", "define( 'DB_PASSWORD', getenv( 'DB_PASSWORD' ) );")
    s.neg("env-reference", 'npmRegistries:\n  "https://npm.acme.dev":\n    npmAuthToken: "${ACME_NPM_TOKEN}"')
    s.neg("env-reference", "cmdkey /add:fileserver.acme.dev /user:ACME\\svc-backup /pass:%SVC_BACKUP_PASS%")
    s.neg("env-reference", 'ipmitool -I lanplus -H "$BMC_HOST" -U admin -P "$(cat /run/secrets/ipmi)" sensor')
    s.neg("env-reference", "db_password = var.db_password  # set from TF_VAR_db_password in CI")
    s.neg("env-reference", 'sasl.jaas.config=... password="${file:/etc/kafka/secrets.properties:password}";')
    s.neg(
        "env-reference",
        "gpg --batch --pinentry-mode loopback --passphrase-file /run/secrets/gpg --sign release.tar.gz",
    )
    s.neg(
        "env-reference",
        'kubectl create secret generic db --from-literal=password="$(openssl rand -base64 24)"',
    )
    s.neg("env-reference", 'rabbitmqctl add_user ledger "$(vault kv get -field=password secret/rabbit)"')
    s.neg(
        "env-reference",
        "CELERY_BROKER_URL=amqp://ledger@rabbit.acme.dev:5672/ledger  # password from RABBIT_PASSWORD",
    )
    # Ordinary text that looks secret-ish
    s.neg("prose", "Passwords must be at least 14 characters; rotate service tokens every 90 days.")
    s.neg("prose", "snmpwalk -v2c -c public localhost system  # lab switch, read-only default community")
    s.neg("prose", "Use `--password-stdin` with every registry login; never pass a password as an argument.")
    s.neg("base64-config", "FEATURE_FLAGS=" + _b64text('{"debug":true,"newLedger":false}'))
    s.neg(
        "base64-config",
        "Fixture `hello.b64` holds " + _b64text("hello, ledger fixture") + " (the decoded text).",
    )


def heldout2_cases() -> list[Case]:
    s = CaseSet("held-out-2")
    _vendor_tokens(s)
    _webhooks_and_dsns(s)
    _config_dialects(s)
    _cli_passwords(s)
    _negatives(s)
    return s.cases
