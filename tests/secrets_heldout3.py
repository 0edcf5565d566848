"""Secret strings first written as the THIRD HELD-OUT set, RETIRED to tuning use:
tests/core/safety/test_secrets.py asserts every case beside the tuning set's and the first two
sets', and `benchmarks/bench_secrets.py --show-heldout3` prints its misses.

It was measured without its misses being read (104/114 recall with 5/54 false alarms on 979db4b;
108/114, 3/54 on 07783cb); on 2026-12-04 its misses and false alarms were read and the scanner
generalised by family, not by case (a secret under a key with one digit or none, or a dot between
random words; base64 of a random token under a key; signify/minisign secret keys; JWEs; a key after
its key id given to an authorize subcommand; a PEM whose body is a sentence; references to a secret
store; keys published for local emulators), with new cases of each family and look-alikes written
into secrets_tuning.py: 114/114, 0/54. It no longer tells whether the scanner generalises; the
fourth held-out set (secrets_heldout4.py) does. What follows is the set's original note.


Written 2026-12-03 for issue 29 by an engineer working as an independent red team (branch i29j), before
the next round of changes to the scanner for it (as of main's 979db4b) and without reading the scanner
(homeostat/core/safety/), the other sets' cases (tests/secrets_tuning.py, tests/secrets_heldout.py,
tests/secrets_heldout2.py) or the shared corpus; only the second set's module docstring and function
names, and the signatures of tests/secret_sets.py, were read, for the shape. Every case is written
from the author's own knowledge:

- 28 vendor tokens that identify themselves, from vendors outside the usual lists (developer tools,
  AI APIs, observability, payments, messaging, hosting, encryption tools), most bare in prose or a log;
- 29 secrets after a command-line flag, in URL userinfo, a header or a query string: database,
  directory, archive, Java build, Windows and PowerShell tools, Kubernetes and OpenShift, Consul,
  InfluxDB, restic, GnuPG, npm, pip, git, an Azure SAS signature;
- 26 connection strings and config dialects: MongoDB SRV, Redis with and without a user, ADO.NET, JDBC,
  Snowflake, SMTPS, a proxy variable, Azure Storage and Service Bus, .my.cnf, Maven settings.xml,
  NuGet.Config, .pypirc, Composer auth.json, kubeconfig, Kubernetes Secrets (stringData and base64
  data), systemd, a Dockerfile ARG, HCL, TOML, and source code (PHP, Python, Go, PowerShell);
- 17 private keys in their containers (OpenSSH, EC, PGP, PuTTY, WireGuard, JWK, minisign, a PEM inside
  JSON or YAML, base64 of a PEM), token formats (JWT, JWE, PASETO) and framework keys;
- 14 cloud credentials (AWS session and STS output, Azure, Azure DevOps, GCS HMAC, Alibaba, Tencent,
  IBM, OCI, Cloudflare R2, Linode, Heroku, Hetzner, Backblaze);
- 54 look-alikes: digests, checksums, ids, public keys and certificates, identifiers that are not
  secret, well-known documentation and emulator keys, placeholders, references to a secret store,
  variables, hashes of passwords, base64 of things that are not secrets, clearly fake test fixtures.

Every secret is built at run time from split prefixes and seeded random bodies, so the repository holds
no literal credential. benchmarks/bench_secrets.py --heldout3 prints only its totals. A miss here is
evidence that a rule generalises badly, not a case to add a rule for; once it has guided a change it
is no longer held out.

Measurements (totals only; no miss or false alarm has been read):
- 2026-12-03, committed alone, main's scanner as of 979db4b (branch i29j, 21ae782): recall 104/114
  (0.912), false alarms 5/54.
"""

from __future__ import annotations

import base64
import json

from secret_sets import ALNUM, DIGITS, HEX, LOWER, UPPER, URLSAFE, Case, CaseSet, b64, password, rnd

ALNUM_UP = UPPER + DIGITS
LOW_ALNUM = LOWER + DIGITS
B64 = ALNUM + "+/"
BECH32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"


def _uuid(seed: str) -> str:
    h = rnd(32, HEX, seed)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-8{h[17:20]}-{h[20:]}"


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _b64json(obj: dict[str, object]) -> str:
    return _b64url(json.dumps(obj, separators=(",", ":")).encode())


def _jwt(seed: str, claims: dict[str, object]) -> str:
    head = _b64json({"alg": "RS256", "typ": "JWT", "kid": rnd(8, LOW_ALNUM, seed + "k")})
    return f"{head}.{_b64json(claims)}.{rnd(86, URLSAFE, seed)}"


def _pem_body(seed: str, lines: int, first: str = "") -> str:
    body = first + rnd(64 * lines - len(first), B64, seed)
    return "\n".join(body[i : i + 64] for i in range(0, len(body), 64))


def _pem(kind: str, seed: str, lines: int = 6, first: str = "") -> str:
    label = (kind + " " if kind else "") + "PRIV" + "ATE KEY"
    return f"-----BEGIN {label}-----\n{_pem_body(seed, lines, first)}\n-----END {label}-----"


def _vendor_tokens(s: CaseSet) -> None:
    """Tokens whose prefix names the vendor, most of them bare in prose, a log or a header."""
    s.pos("linear", "Linear key for the sync script: {s}", "lin_" + "api_" + rnd(40, ALNUM, "lin"))
    s.pos(
        "postman",
        "newman run collection.json --postman-api-key {s}",
        "PM" + "AK-" + rnd(24, HEX, "pm1") + "-" + rnd(34, HEX, "pm2"),
    )
    s.pos(
        "pulumi",
        "CI log: using access token {s} for stack acme/ledger/prod",
        "pul" + "-" + rnd(40, HEX, "pul"),
    )
    s.pos("sentry-user", "[auth]\ntoken={s}\n", "sntr" + "yu_" + rnd(64, HEX, "sntry"))
    s.pos(
        "grafana-sa",
        'curl -H "Authorization: Bearer {s}" https://grafana.acme.dev/api/dashboards/home',
        "gl" + "sa_" + rnd(32, ALNUM, "glsa") + "_" + rnd(8, HEX, "glsa2"),
    )
    s.pos("shopify", "X-Shopify-Access-Token: {s}", "sh" + "pat_" + rnd(32, HEX, "shp"))
    s.pos(
        "vault-service", "VAULT_TOKEN={s} vault kv get secret/ledger", "hv" + "s." + rnd(91, URLSAFE, "hvs")
    )
    s.pos(
        "terraform-cloud",
        'credentials "app.terraform.io" {\n  token = "{s}"\n}',
        rnd(14, ALNUM, "tfc1") + ".atlas" + "v1." + rnd(67, ALNUM, "tfc2"),
    )
    s.pos("digitalocean", "doctl auth init --access-token {s}", "do" + "p_v1_" + rnd(64, HEX, "dop"))
    s.pos(
        "databricks",
        "[DEFAULT]\nhost = https://adb-1234567890123456.7.azuredatabricks.net\ntoken = {s}\n",
        "da" + "pi" + rnd(32, HEX, "dapi"),
    )
    s.pos("huggingface", "huggingface-cli login --token {s}", "h" + "f_" + rnd(34, UPPER + LOWER, "hf"))
    s.pos("groq", 'client = Groq(api_key="{s}")', "gs" + "k_" + rnd(52, ALNUM, "gsk"))
    s.pos(
        "xai",
        "here's the xAI key for the eval job: {s} (rotate after the demo)",
        "xa" + "i-" + rnd(80, ALNUM, "xai"),
    )
    s.pos(
        "notion",
        "GET /v1/pages/abc\nAuthorization: Bearer {s}\nNotion-Version: 2022-06-28",
        "nt" + "n_" + rnd(46, ALNUM, "ntn"),
    )
    s.pos(
        "atlassian",
        "jira: api token {s} for bot@acme.dev",
        "ATATT" + "3xFfGF0" + rnd(180, URLSAFE, "atatt") + "=" + rnd(8, HEX.upper()[:16], "atatt2"),
    )
    s.pos(
        "sendgrid",
        'sg = SendGridAPIClient("{s}")',
        "S" + "G." + rnd(22, URLSAFE, "sg1") + "." + rnd(43, URLSAFE, "sg2"),
    )
    s.pos(
        "telegram-bot",
        "GET https://api.telegram.org/bot{s}/getUpdates",
        rnd(10, DIGITS, "tg1") + ":AA" + rnd(33, URLSAFE, "tg2"),
    )
    s.pos(
        "discord-bot",
        'client.run("{s}")',
        "MT" + rnd(24, ALNUM, "dc1") + "." + rnd(6, URLSAFE, "dc2") + "." + rnd(38, URLSAFE, "dc3"),
    )
    s.pos(
        "slack-app-level",
        "SLACK_APP_TOKEN: {s}",
        "xa"
        + "pp-1-A"
        + rnd(10, ALNUM_UP, "xapp1")
        + "-"
        + rnd(13, DIGITS, "xapp2")
        + "-"
        + rnd(64, HEX, "xapp3"),
    )
    s.pos(
        "braintree",
        "BRAINTREE_TOKEN={s}",
        "access_token$" + "production$" + rnd(16, LOW_ALNUM, "bt1") + "$" + rnd(32, HEX, "bt2"),
    )
    s.pos(
        "age-identity",
        "# created: 2026-11-02T10:00:00Z\n# public key: age1" + rnd(58, BECH32, "agepub") + "\n{s}\n",
        "AGE-SECRET" + "-KEY-1" + rnd(58, BECH32.upper(), "age"),
    )
    s.pos(
        "tailscale",
        "tailscale up --authkey={s} --advertise-tags=tag:ci",
        "tskey" + "-auth-" + rnd(17, ALNUM, "ts1") + "-" + rnd(33, ALNUM, "ts2"),
    )
    s.pos(
        "1password-sa",
        "export OP_SERVICE_ACCOUNT_TOKEN={s}",
        "op" + "s_eyJ" + rnd(240, URLSAFE, "ops"),
    )
    s.pos(
        "sonarqube",
        "sonar-scanner -Dsonar.token={s} -Dsonar.projectKey=ledger",
        "sq" + "u_" + rnd(40, HEX, "squ"),
    )
    s.pos(
        "dynatrace",
        "Authorization: Api-Token {s}",
        "dt0" + "c01." + rnd(24, ALNUM_UP, "dt1") + "." + rnd(64, ALNUM_UP, "dt2"),
    )
    s.pos(
        "pinecone",
        'pc = Pinecone(api_key="{s}")',
        "pc" + "sk_" + rnd(5, ALNUM, "pc1") + "_" + rnd(64, ALNUM, "pc2"),
    )
    s.pos(
        "langsmith",
        "LANGCHAIN_API_KEY={s}",
        "lsv2" + "_pt_" + rnd(32, HEX, "ls1") + "_" + rnd(10, HEX, "ls2"),
    )
    s.pos(
        "firebase-fcm",
        "FCM_SERVER_KEY={s}",
        "AA" + "AA" + rnd(7, URLSAFE, "fcm1") + ":APA91b" + rnd(134, URLSAFE, "fcm2"),
    )


def _flags_and_urls(s: CaseSet) -> None:
    """A secret after a command-line flag, in URL userinfo or in a query string."""
    s.pos("mysql-glued", "mysql -h db.acme.dev -u ledger -p{s} ledger < dump.sql", password(14, "my1"))
    s.pos("pgpassword-env", "PGPASSWORD={s} psql -h db.acme.dev -U app ledger", password(15, "pg1"))
    s.pos("sshpass", "sshpass -p '{s}' ssh deploy@build-07.acme.dev", password(13, "sp1"))
    s.pos("redis-cli", "redis-cli -h cache.acme.dev -a {s} --no-auth-warning PING", rnd(32, ALNUM, "rc1"))
    s.pos(
        "mongosh",
        'mongosh "mongodb://db.acme.dev:27017/ledger" --username app --password {s}',
        password(14, "mo1"),
    )
    s.pos(
        "az-sp-login",
        "az login --service-principal -u " + _uuid("azapp") + " -p {s} --tenant " + _uuid("aztenant"),
        rnd(3, ALNUM, "az1") + "8Q~" + rnd(34, URLSAFE + "~.", "az2"),
    )
    s.pos(
        "kubectl-token",
        "kubectl --server=https://k8s.acme.dev --token={s} get pods -n ledger",
        _jwt("k8s", {"iss": "kubernetes/serviceaccount", "sub": "system:serviceaccount:ledger:ci"}),
    )
    s.pos(
        "oc-login",
        "oc login --token={s} --server=https://api.ocp.acme.dev:6443",
        "sha256~" + rnd(43, URLSAFE, "oc"),
    )
    s.pos(
        "curl-user",
        "curl -fsS -u ci-bot:{s} https://nexus.acme.dev/repository/raw/ledger.tgz -O",
        password(17, "curlu"),
    )
    s.pos(
        "ldapsearch",
        'ldapsearch -H ldaps://ldap.acme.dev -D "cn=admin,dc=acme,dc=dev" -w {s} -b "dc=acme,dc=dev"',
        password(15, "ldap"),
    )
    s.pos(
        "smbclient", "smbclient //fs.acme.dev/builds -U deploy%{s} -c 'put ledger.zip'", password(13, "smb")
    )
    s.pos(
        "openssl-passout",
        "openssl pkcs12 -export -in cert.pem -inkey key.pem -out bundle.p12 -passout pass:{s}",
        password(16, "p12"),
    )
    s.pos("7z", "7z a -p{s} -mhe=on backup.7z exports/", password(15, "7z"))
    s.pos("consul-token", "CONSUL_HTTP_TOKEN={s} consul kv get ledger/config", _uuid("consul"))
    s.pos(
        "influx",
        "influx write --bucket ledger --org acme --token {s} --file metrics.lp",
        rnd(86, URLSAFE, "influx") + "==",
    )
    s.pos("terraform-var", 'terraform apply -var "db_password={s}" -auto-approve', password(16, "tfvar"))
    s.pos("java-sysprop", "java -Djavax.net.ssl.keyStorePassword={s} -jar ledger.jar", password(14, "jsys"))
    s.pos(
        "gradle-prop", "./gradlew publish -PsigningPassword={s} -PsigningKeyId=0A1B2C3D", password(16, "grad")
    )
    s.pos("npm-config", "npm config set //npm.acme.dev/:_authToken {s}", rnd(36, ALNUM, "npmc"))
    s.pos("sqlcmd", 'sqlcmd -S db.acme.dev -U sa -P {s} -Q "SELECT 1"', password(16, "sqlcmd"))
    s.pos("psexec", "psexec \\\\build-win-03 -u ACME\\deploy -p {s} cmd /c deploy.bat", password(14, "psx"))
    s.pos(
        "net-use", "net use Z: \\\\fs01\\builds /user:ACME\\deploy {s} /persistent:no", password(13, "netuse")
    )
    s.pos(
        "restic", "RESTIC_PASSWORD={s} restic -r s3:s3.acme.dev/backups backup /srv", password(20, "restic")
    )
    s.pos(
        "gpg-passphrase",
        "gpg --batch --pinentry-mode loopback --passphrase {s} -d secrets.tar.gpg",
        password(18, "gpg"),
    )
    s.pos(
        "gitlab-header",
        'curl --header "PRIVATE-TOKEN: {s}" https://gitlab.acme.dev/api/v4/projects',
        rnd(26, URLSAFE, "glh"),
    )
    s.pos(
        "query-api-key", "GET https://api.acme.dev/v1/rates?currency=EUR&api_key={s}", rnd(32, ALNUM, "qak")
    )
    s.pos(
        "azure-sas",
        "https://acmeledger.blob.core.windows.net/exports/q3.csv?sv=2022-11-02&ss=b&srt=o&sp=r&se=2027-01-01T00:00:00Z&spr=https&sig={s}",
        b64(32, "sas").replace("+", "%2B").replace("/", "%2F").replace("=", "%3D"),
    )
    s.pos(
        "pip-index-userinfo",
        "pip install --extra-index-url https://ci:{s}@pypi.acme.dev/simple ledger-core",
        password(16, "pipidx"),
    )
    s.pos(
        "git-extraheader",
        'git -c http.extraHeader="Authorization: Basic {s}" clone https://git.acme.dev/ledger.git',
        base64.b64encode(("ci:" + password(15, "gitb")).encode()).decode(),
    )


def _connection_strings_and_configs(s: CaseSet) -> None:
    """Connection strings and config files of many dialects, and source code."""
    s.pos(
        "mongodb-srv",
        "MONGO_URL=mongodb+srv://app:{s}@cluster0.ab12c.mongodb.net/ledger?retryWrites=true",
        rnd(16, ALNUM, "msrv"),
    )
    s.pos("rediss-default", "REDIS_URL=rediss://default:{s}@cache.acme.dev:6380", rnd(32, ALNUM, "rss"))
    s.pos("redis-no-user", 'CACHE = "redis://:{s}@10.0.4.12:6379/0"', rnd(24, ALNUM, "rnu"))
    s.pos(
        "mssql-ado",
        '"Default": "Server=tcp:db.acme.dev,1433;Database=ledger;User ID=app;Password={s};Encrypt=True;"',
        password(16, "ado"),
    )
    s.pos(
        "jdbc-postgres",
        "spring.datasource.url=jdbc:postgresql://db:5432/ledger?user=app&password={s}",
        password(14, "jdbcpg"),
    )
    s.pos(
        "snowflake-url",
        'engine = create_engine("snowflake://etl:{s}@acme-xy12345/analytics/public")',
        password(16, "snow"),
    )
    s.pos("smtps", "EMAIL_URL=smtps://alerts%40acme.dev:{s}@smtp.acme.dev:465", rnd(16, ALNUM, "smtp"))
    s.pos("proxy-env", "HTTPS_PROXY=http://proxyuser:{s}@proxy.acme.dev:3128", rnd(14, ALNUM, "proxy"))
    s.pos(
        "azure-storage",
        "AZURE_STORAGE_CONNECTION_STRING=DefaultEndpointsProtocol=https;AccountName=acmeledger;AccountKey={s};EndpointSuffix=core.windows.net",
        b64(64, "azst"),
    )
    s.pos(
        "azure-servicebus",
        "Endpoint=sb://acme-ledger.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey={s}",
        b64(32, "azsb"),
    )
    s.pos("my-cnf", "[client]\nuser=app\npassword={s}\nhost=db.acme.dev\n", password(15, "mycnf"))
    s.pos(
        "maven-settings",
        "<server>\n  <id>acme-releases</id>\n  <username>ci</username>\n  <password>{s}</password>\n</server>",
        password(18, "mvnset"),
    )
    s.pos(
        "nuget-config",
        '<packageSourceCredentials>\n  <acme>\n    <add key="Username" value="ci" />\n    <add key="ClearTextPassword" value="{s}" />\n  </acme>\n</packageSourceCredentials>',
        password(16, "nugetcfg"),
    )
    s.pos(
        "pypirc",
        "[acme]\nrepository = https://pypi.acme.dev/\nusername = ci\npassword = {s}\n",
        password(17, "pypirc"),
    )
    s.pos(
        "composer-auth",
        '{"http-basic": {"repo.acme.dev": {"username": "ci", "password": "{s}"}}}',
        password(16, "composer"),
    )
    s.pos(
        "kubeconfig-token",
        "users:\n- name: ci\n  user:\n    token: {s}\n",
        rnd(6, LOW_ALNUM, "kct1") + "." + rnd(16, LOW_ALNUM, "kct2"),
    )
    s.pos(
        "k8s-stringdata",
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: ledger-db\nstringData:\n  password: {s}\n",
        password(18, "k8ssd"),
    )
    s.pos(
        "k8s-data-b64",
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: ledger-api\ndata:\n  API_KEY: {s}\n",
        base64.b64encode(rnd(32, ALNUM, "k8sdata").encode()).decode(),
    )
    s.pos(
        "systemd-env",
        '[Service]\nEnvironment="PAYMENTS_API_KEY={s}"\nExecStart=/usr/bin/ledger\n',
        rnd(40, ALNUM, "sysd"),
    )
    s.pos("dockerfile-arg", "FROM node:20\nARG NPM_TOKEN={s}\nRUN npm ci\n", rnd(36, ALNUM, "dfarg"))
    s.pos(
        "hcl-provider",
        'provider "acmecloud" {\n  region  = "eu-1"\n  api_key = "{s}"\n}',
        rnd(48, ALNUM, "hcl"),
    )
    s.pos(
        "toml-db",
        '[database]\nhost = "db.acme.dev"\nuser = "ledger"\npassword = "{s}"\n',
        password(16, "toml"),
    )
    s.pos("php-define", "define('DB_PASSWORD', '{s}');", password(16, "php"))
    s.pos(
        "python-auth-tuple",
        'resp = requests.get(url, auth=("svc-ledger", "{s}"), timeout=5)',
        password(15, "pyauth"),
    )
    s.pos("go-setenv", 'os.Setenv("LEDGER_SIGNING_SECRET", "{s}")', rnd(40, ALNUM, "gosetenv"))
    s.pos(
        "powershell-securestring",
        '$pw = ConvertTo-SecureString "{s}" -AsPlainText -Force',
        password(16, "ps"),
    )


def _private_keys_and_tokens(s: CaseSet) -> None:
    """Private keys in their containers, signed or encrypted tokens, and framework keys."""
    s.pos(
        "openssh-key",
        "{s}",
        _pem(
            "OPENSSH", "openssh", 7, "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW"
        ),
    )
    s.pos("ec-key", "# do not commit\n{s}\n", _pem("EC", "eckey", 3, "MHcCAQEEI"))
    pgp = (
        "-----BEGIN PGP "
        + "PRIVATE KEY BLOCK-----\n\n"
        + _pem_body("pgp", 12, "lQdGBGV")
        + "\n="
        + rnd(4, B64, "pgpcrc")
        + "\n-----END PGP "
        + "PRIVATE KEY BLOCK-----"
    )
    s.pos("pgp-private", "{s}", pgp)
    private_lines = "\n".join(rnd(64, B64, f"ppk{i}") for i in range(4))
    s.pos(
        "putty-ppk",
        "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: deploy@acme\nPublic-Lines: 2\n"
        + rnd(64, B64, "ppkpub1")
        + "\n"
        + rnd(20, B64, "ppkpub2")
        + "\nPrivate-Lines: 4\n{s}\nPrivate-MAC: "
        + rnd(64, HEX, "ppkmac")
        + "\n",
        private_lines,
    )
    s.pos(
        "wireguard",
        "[Interface]\nAddress = 10.8.0.2/24\nPrivateKey = {s}\n\n[Peer]\nPublicKey = "
        + b64(32, "wgpub")
        + "\nEndpoint = vpn.acme.dev:51820\n",
        b64(32, "wgpriv"),
    )
    s.pos(
        "jwk-private",
        '{"kty": "EC", "crv": "P-256", "x": "'
        + _b64url(bytes(range(1, 33)))
        + '", "y": "'
        + rnd(43, URLSAFE, "jwky")
        + '", "d": "{s}"}',
        rnd(43, URLSAFE, "jwkd"),
    )
    gcp_json = _pem("", "gcp", 8, "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC").replace("\n", "\\n")
    s.pos(
        "gcp-sa-json",
        '{\n  "type": "service_account",\n  "project_id": "acme-ledger",\n  "private_key_id": "'
        + rnd(40, HEX, "gcpkid")
        + '",\n  "private_key": "{s}\\n",\n  "client_email": "ci@acme-ledger.iam.gserviceaccount.com"\n}',
        gcp_json,
    )
    yaml_key = _pem("RSA", "yamlkey", 8, "MIIEpAIBAAKCAQEA")
    s.pos(
        "pem-in-yaml",
        "tls:\n  key: |\n" + "\n".join("    " + line for line in yaml_key.splitlines()) + "\n",
        "    " + "\n    ".join(yaml_key.splitlines()[1:3]),
    )
    s.pos(
        "minisign-secret",
        "untrusted comment: minisign encrypted secret key\n{s}\n",
        "RWRTY0Iy" + rnd(204, B64, "minisign"),
    )
    s.pos(
        "kubeconfig-client-key",
        "users:\n- name: admin\n  user:\n    client-certificate-data: "
        + b64(600, "kcc")
        + "\n    client-key-data: {s}\n",
        base64.b64encode(_pem("RSA", "kck", 6, "MIIEowIBAAKCAQEA").encode()).decode(),
    )
    s.pos(
        "jwt-bearer",
        "Authorization: Bearer {s}",
        _jwt(
            "bearer",
            {"sub": "svc-ledger", "aud": "api.acme.dev", "scope": "payments:write", "exp": 1893456000},
        ),
    )
    jwe_head = _b64json({"alg": "RSA-OAEP-256", "enc": "A256GCM"})
    s.pos(
        "jwe",
        "X-Session: {s}",
        f"{jwe_head}.{rnd(342, URLSAFE, 'jwe1')}.{rnd(16, URLSAFE, 'jwe2')}.{rnd(120, URLSAFE, 'jwe3')}.{rnd(22, URLSAFE, 'jwe4')}",
    )
    s.pos("paseto", "token: {s}", "v4" + ".local." + rnd(140, URLSAFE, "paseto"))
    s.pos("laravel-app-key", "APP_KEY=base64:{s}", b64(32, "laravel"))
    s.pos(
        "django-secret",
        "SECRET_KEY = '{s}'",
        rnd(50, LOWER + DIGITS + "!@#%^&*(-_=+)", "django"),
    )
    s.pos("rails-secret-key-base", "production:\n  secret_key_base: {s}\n", rnd(128, HEX, "rails"))
    s.pos(
        "supabase-service-role",
        "SUPABASE_SERVICE_ROLE_KEY={s}",
        _jwt(
            "supa",
            {
                "iss": "supabase",
                "ref": rnd(20, LOWER, "supref"),
                "role": "service_role",
                "iat": 1760000000,
                "exp": 2075000000,
            },
        ),
    )


def _cloud_credentials(s: CaseSet) -> None:
    """Cloud providers' keys, mostly the secret half after its key name."""
    s.pos(
        "aws-session-credentials",
        "[ci]\naws_access_key_id = ASIA"
        + rnd(16, ALNUM_UP, "asia")
        + "\naws_secret_access_key = {s}\naws_session_token = "
        + "IQoJb3JpZ2luX2Vj"
        + rnd(300, B64, "awssess")
        + "\n",
        rnd(40, B64, "awssec"),
    )
    s.pos(
        "aws-sts-json",
        '{"Credentials": {"AccessKeyId": "ASIA'
        + rnd(16, ALNUM_UP, "stsid")
        + '", "SecretAccessKey": "{s}", "Expiration": "2026-12-04T01:00:00Z"}}',
        rnd(40, B64, "stssec"),
    )
    s.pos(
        "azure-client-secret",
        "AZURE_CLIENT_SECRET={s}",
        rnd(3, ALNUM, "acs1") + "8Q~" + rnd(34, URLSAFE + "~.", "acs2"),
    )
    s.pos(
        "azure-devops-pat", "AZURE_DEVOPS_EXT_PAT={s}", rnd(52, "abcdefghijklmnopqrstuvwxyz234567", "adopat")
    )
    s.pos(
        "gcs-hmac",
        '{"metadata": {"accessId": "GOOG1E' + rnd(55, ALNUM_UP, "gcsid") + '"}, "secret": "{s}"}',
        rnd(40, B64, "gcssec"),
    )
    s.pos(
        "alibaba",
        "ALIBABA_CLOUD_ACCESS_KEY_ID=LTAI"
        + rnd(20, ALNUM, "ltai")
        + "\nALIBABA_CLOUD_ACCESS_KEY_SECRET={s}\n",
        rnd(30, ALNUM, "alisec"),
    )
    s.pos(
        "tencent",
        'cred = credential.Credential("AKID' + rnd(32, ALNUM, "akid") + '", "{s}")',
        rnd(32, ALNUM, "tcsec"),
    )
    s.pos("ibm-cloud", "ibmcloud login --apikey {s} -r eu-de", rnd(44, URLSAFE, "ibm"))
    s.pos(
        "oci-auth-token",
        "[DEFAULT]\nuser=ocid1.user.oc1..aaaa" + rnd(56, LOWER + DIGITS, "ociu") + "\npass_phrase={s}\n",
        password(16, "oci"),
    )
    s.pos(
        "r2-secret",
        "[r2]\naws_access_key_id = " + rnd(32, HEX, "r2id") + "\naws_secret_access_key = {s}\n",
        rnd(64, HEX, "r2sec"),
    )
    s.pos("linode", "linode-cli --token {s} linodes list", rnd(64, HEX, "linode"))
    s.pos("heroku-uuid", "heroku config:set --app ledger-ci HEROKU_API_KEY={s}", _uuid("heroku"))
    s.pos("hetzner", "export HCLOUD_TOKEN={s}", rnd(64, ALNUM, "hcloud"))
    s.pos(
        "backblaze",
        "b2 account authorize 005" + rnd(22, HEX, "b2id") + " {s}",
        "K005" + rnd(27, ALNUM, "b2key"),
    )


def _negatives(s: CaseSet) -> None:
    """Look-alikes a real repository holds and a scanner must pass."""
    s.neg("git-sha", f"Fixed in {rnd(40, HEX, 'nsha')}; see the revert in {rnd(12, HEX, 'nsha2')}.")
    s.neg("image-digest", f"image: registry.acme.dev/ledger@sha256:{rnd(64, HEX, 'ndig')}")
    s.neg(
        "sri", f'<script src="/app.js" integrity="sha384-{b64(48, "nsri")}" crossorigin="anonymous"></script>'
    )
    s.neg("npm-integrity", f'"integrity": "sha512-{b64(64, "nnpm")}"')
    s.neg("go-sum", f"golang.org/x/text v0.14.0 h1:{b64(32, 'ngosum')}")
    s.neg("nix-hash", f'hash = "sha256-{b64(32, "nnix")}";')
    s.neg("cargo-lock", f'checksum = "{rnd(64, HEX, "ncargo")}"')
    s.neg(
        "lfs-pointer",
        f"version https://git-lfs.github.com/spec/v1\noid sha256:{rnd(64, HEX, 'nlfs')}\nsize 48213\n",
    )
    s.neg("request-id", f"X-Request-Id: {_uuid('nreq')}")
    s.neg("traceparent", f"traceparent: 00-{rnd(32, HEX, 'ntp1')}-{rnd(16, HEX, 'ntp2')}-01")
    s.neg("ulid", f"order id 01J{rnd(23, '0123456789ABCDEFGHJKMNPQRSTVWXYZ', 'nulid')} was refunded")
    s.neg("objectid", f'db.orders.find({{_id: ObjectId("{rnd(24, HEX, "noid")}")}})')
    s.neg(
        "azure-ids",
        f"AZURE_CLIENT_ID={_uuid('nazc')}\nAZURE_TENANT_ID={_uuid('nazt')}\nAZURE_SUBSCRIPTION_ID={_uuid('nazs')}\n",
    )
    s.neg("aws-arn", "role-to-assume: arn:aws:iam::123456789012:role/ledger-ci-deploy")
    s.neg(
        "aws-docs-example",
        "aws_access_key_id = AKIA"
        + "IOSFODNN7"
        + "EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/"
        + "bPxRfiCY"
        + "EXAMPLEKEY\n",
    )
    s.neg(
        "azurite-dev-key",
        "UseDevelopmentStorage=true\n# Azurite's published dev account: AccountName=devstoreaccount1;AccountKey="
        + "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/"
        + "K1SZFPTOtr/KBHBeksoGMGw==\n",
    )
    s.neg(
        "minio-local-default",
        "# docker-compose.local.yml\nMINIO_ROOT_USER: minioadmin\nMINIO_ROOT_PASSWORD: minioadmin\n",
    )
    s.neg("placeholder-angle", "LEDGER_API_KEY=<your-api-key>\nLEDGER_API_SECRET=<paste from 1Password>\n")
    s.neg("placeholder-env-var", "password: ${DB_PASSWORD}\ntoken: ${LEDGER_TOKEN:?set LEDGER_TOKEN}\n")
    s.neg(
        "placeholder-gha",
        "env:\n  NPM_TOKEN: ${{ secrets.NPM_TOKEN }}\n  SONAR_TOKEN: ${{ secrets.SONAR_TOKEN }}\n",
    )
    s.neg("placeholder-x", "api_key: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\nsecret: XXXXXXXXXXXXXXXXXXXXXXXX\n")
    s.neg("env-example", "# .env.example — copy to .env and fill in\nDB_PASSWORD=changeme\nSTRIPE_KEY=\n")
    s.neg("ssh-public", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + rnd(43, B64, "nsshpub") + " ci@acme.dev")
    s.neg(
        "public-key-pem",
        "-----BEGIN PUBLIC KEY-----\n"
        + _pem_body("npub", 4, "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA")
        + "\n-----END PUBLIC KEY-----",
    )
    s.neg(
        "certificate",
        "-----BEGIN CERTIFICATE-----\n"
        + _pem_body("ncert", 8, "MIIDdzCCAl+gAwIBAgIE")
        + "\n-----END CERTIFICATE-----",
    )
    s.neg(
        "pgp-public",
        "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n"
        + _pem_body("npgp", 6, "mQINBGV")
        + "\n="
        + rnd(4, B64, "npgpc")
        + "\n-----END PGP PUBLIC KEY BLOCK-----",
    )
    s.neg(
        "redacted-key",
        "-----BEGIN "
        + "PRIVATE KEY-----\n(redacted — the key lives in Vault at secret/ledger/tls)\n-----END "
        + "PRIVATE KEY-----",
    )
    s.neg(
        "wireguard-public",
        f"[Peer]\nPublicKey = {b64(32, 'nwg')}\nAllowedIPs = 10.8.0.0/24\nEndpoint = vpn.acme.dev:51820\n",
    )
    s.neg(
        "age-recipient",
        f"# encrypt backups to the ops recipient\nage -r age1{rnd(58, BECH32, 'nage')} -o backup.age backup.tar",
    )
    s.neg("ssh-fingerprint", f"Host key fingerprint is SHA256:{rnd(43, B64, 'nfp')}.")
    s.neg(
        "stripe-publishable",
        "const stripe = Stripe('pk_"
        + "live_"
        + rnd(24, ALNUM, "npk")
        + "'); // publishable, safe in the browser",
    )
    s.neg(
        "twilio-account-sid",
        f"TWILIO_ACCOUNT_SID=AC{rnd(32, HEX, 'nsid')}  # identifier, not a secret; the auth token is in Vault",
    )
    s.neg("sentry-dsn", f"SENTRY_DSN=https://{rnd(32, HEX, 'ndsn')}@o450123.ingest.sentry.io/5501234")
    s.neg(
        "k8s-secret-ref",
        "env:\n- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef:\n      name: ledger-db\n      key: password\n",
    )
    s.neg("vault-ref", "db_password: vault:secret/data/ledger/db#password")
    s.neg("ssm-ref", "MasterUserPassword: '{{resolve:ssm-secure:/ledger/db/master-password:3}}'")
    s.neg(
        "argon2-hash",
        f'password_hash = "$argon2id$v=19$m=65536,t=3,p=4${b64(16, "nsalt").rstrip("=")}${b64(32, "nhash").rstrip("=")}"',
    )
    s.neg(
        "bcrypt-fixture",
        f"# fixture user alice, password 'alice' hashed:\nhash: $2b$12${rnd(53, ALNUM + './', 'nbcrypt')}",
    )
    s.neg(
        "hmac-test-vector",
        'key = bytes.fromhex("' + "0b" * 20 + '")  # RFC 4231 test case 1\ndata = b"Hi There"',
    )
    s.neg(
        "curl-env-vars",
        'curl -fsS -u "$NEXUS_USER:$NEXUS_PASSWORD" https://nexus.acme.dev/service/rest/v1/status',
    )
    s.neg("password-stdin", 'echo "$GHCR_TOKEN" | docker login ghcr.io -u ci --password-stdin')
    s.neg("mysql-prompt", "mysql -h db.acme.dev -u app -p ledger   # prompts for the password")
    s.neg("url-env-password", "DATABASE_URL=postgres://app:${DB_PASSWORD}@db.acme.dev:5432/ledger")
    s.neg("redis-local", "REDIS_URL=redis://localhost:6379/0")
    s.neg("bearer-placeholder", "Authorization: Bearer <access-token>   # from `acme auth token`")
    s.neg(
        "jwt-header-only",
        "Every HS256 token we issue starts with eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9 (the header).",
    )
    s.neg("eth-address", f"Treasury wallet (public): 0x{rnd(40, HEX, 'neth')}")
    png = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(range(60))).decode()
    s.neg("data-uri", f"![dot](data:image/png;base64,{png})")
    s.neg("b64-test", 'assert base64.b64encode(b"hello world") == b"aGVsbG8gd29ybGQ="')
    s.neg(
        "b64-non-secret-config",
        "FEATURE_FLAGS_B64="
        + base64.b64encode(
            json.dumps({"darkMode": True, "betaCheckout": False, "locale": "en-GB"}).encode()
        ).decode(),
    )
    s.neg(
        "k8s-tls-crt",
        "data:\n  tls.crt: "
        + base64.b64encode(
            (
                "-----BEGIN CERTIFICATE-----\n"
                + _pem_body("ncrt2", 3, "MIIB")
                + "\n-----END CERTIFICATE-----\n"
            ).encode()
        ).decode()
        + "\n",
    )
    s.neg(
        "test-fixture-fake",
        'def test_login(client):\n    resp = client.post("/login", json={"user": "alice", "password": "test-password"})\n',
    )
    s.neg(
        "fernet-howto",
        "Generate FERNET_KEY with `python -c 'from cryptography.fernet import Fernet; print(Fernet.generate_key().decode())'`.",
    )
    s.neg("csp-nonce", "Content-Security-Policy: script-src 'nonce-{{ csp_nonce }}' 'strict-dynamic'")


def heldout3_cases() -> list[Case]:
    s = CaseSet("held-out-3")
    _vendor_tokens(s)
    _flags_and_urls(s)
    _connection_strings_and_configs(s)
    _private_keys_and_tokens(s)
    _cloud_credentials(s)
    _negatives(s)
    return s.cases
