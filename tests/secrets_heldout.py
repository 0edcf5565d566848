"""Secret strings first written as a HELD-OUT set, RETIRED to tuning use: tests/test_secrets.py
asserts every case beside tests/secrets_tuning.py's.

It was measured without its misses being read (51/62 recall, 1/48 false alarms); on 2026-12-03 its
misses and its false alarm were read and the scanner generalised by shape, not by case (a one-dash
flag named for a password, a tool's password argument, `config set`/`configure set` of a secret's
key, a user-and-password pair given to credentials, base64 of a word as a password's stand-in), so
it no longer tells whether the scanner generalises: 62/62, 0/48. A fresh held-out set is written by
someone who has not read these. What follows is the set's original note.

Written before the scanner was changed for issue 29, from vendors and shapes that neither the issue's
list (tests/secrets_tuning.py) nor the shared corpus names: other vendors' self-identifying tokens,
other tools' password flags, other connection-string and config-file dialects, and look-alikes of
each. Its recall and false alarms are reported beside the tuning set's (benchmarks/bench_secrets.py
prints only the totals for this set unless asked); a miss here is evidence that a rule generalises
badly, not a case to add a rule for. To grow the tuning set, write new cases in secrets_tuning.py.
"""

from __future__ import annotations

from secret_sets import B64, DIGITS, HEX, LOWER, UPPER, URLSAFE, Case, CaseSet, b64, password, rnd


def _positives(s: CaseSet) -> None:
    # Self-identifying tokens of vendors the scanner has no format for
    s.pos("figma-token", "FIGMA_TOKEN={s}", "fig" + "d_" + rnd(40, URLSAFE, "h1"))
    s.pos("sonar-token", "sonar.token={s}", "sq" + "u_" + rnd(40, HEX, "h2"))
    s.pos(
        "tailscale-key",
        "Auth key for the build runners: `{s}` (reusable, expires in 90 days).",
        "tskey" + "-auth-" + rnd(12, UPPER + LOWER + DIGITS, "h3") + "-" + rnd(33, seed="h4"),
    )
    s.pos(
        "pinecone-key", "PINECONE_API_KEY: {s}", "pc" + "sk_" + rnd(5, seed="h5") + "_" + rnd(64, seed="h6")
    )
    s.pos("resend-key", 'resend.api_key = "{s}"', "r" + "e_" + rnd(8, seed="h7") + "_" + rnd(24, seed="h8"))
    s.pos("neon-key", "neonctl projects list --api-key {s}", "na" + "pi_" + rnd(64, LOWER + DIGITS, "h9"))
    s.pos(
        "render-key",
        "curl -H 'Authorization: Bearer {s}' https://api.render.com/v1/services",
        "rn" + "d_" + rnd(32, seed="h10"),
    )
    s.pos(
        "circleci-token",
        "circleci setup --token {s} --host https://circleci.com",
        "CCI" + "PAT_" + rnd(22, seed="h11") + "_" + rnd(40, HEX, "h12"),
    )
    s.pos(
        "contentful-token", "contentful login --management-token {s}", "CF" + "PAT-" + rnd(43, URLSAFE, "h13")
    )
    s.pos("netlify-token", "netlify deploy --prod --auth {s}", "nf" + "p_" + rnd(40, seed="h14"))
    s.pos("fastly-token", "FASTLY_API_TOKEN={s}", rnd(32, URLSAFE, "h15"))
    s.pos(
        "cloudinary-url",
        "CLOUDINARY_URL=cloudinary://" + rnd(15, DIGITS, "h16") + ":{s}@acme-media",
        rnd(27, URLSAFE, "h17"),
    )
    s.pos("twitch-secret", "TWITCH_CLIENT_SECRET={s}", rnd(30, LOWER + DIGITS, "h18"))
    s.pos("mailjet-secret", "MAILJET_SECRET_KEY={s}", rnd(32, HEX, "h19"))
    # Connection strings in other dialects
    s.pos(
        "azure-storage-key",
        "DefaultEndpointsProtocol=https;AccountName=acmelogs;AccountKey={s};EndpointSuffix=core.windows.net",
        b64(64, "h20"),
    )
    s.pos(
        "azure-sas",
        "https://acmelogs.blob.core.windows.net/exports?sv=2022-11-02&ss=b&srt=co&sp=rl"
        "&se=2026-01-01T00:00:00Z&sig={s}",
        rnd(43, B64.replace("+", "").replace("/", ""), "h21") + "%3D",
    )
    s.pos(
        "jdbc-password",
        "jdbc:sqlserver://db.internal:1433;databaseName=ledger;user=svc_ledger;password={s};encrypt=true",
        password(16, "h22"),
    )
    s.pos(
        "odbc-password",
        "Driver={ODBC Driver 18 for SQL Server};Server=tcp:sql.internal,1433;Uid=app;Pwd={s};",
        password(15, "h23"),
    )
    s.pos(
        "libpq-conninfo",
        'psql "host=db.internal port=5432 user=app password={s} dbname=ledger"',
        password(14, "h24"),
    )
    s.pos("smtp-url", "EMAIL_URL=smtp://mailer:{s}@smtp.internal:587", password(14, "h25"))
    s.pos("git-credentials", "https://ci-bot:{s}@git.internal.acme.dev", rnd(40, seed="h26"))
    s.pos(
        "pip-index-url",
        "pip install --index-url https://deploy:{s}@pypi.internal/simple ledger-client",
        password(18, "h27"),
    )
    # Passwords after other tools' flags
    s.pos("pgpassword-env", "PGPASSWORD={s} psql -h db.internal -U app ledger", password(14, "h28"))
    s.pos("redis-cli", "redis-cli -h cache.internal -a {s} ping", password(16, "h29"))
    s.pos("sshpass", "sshpass -p '{s}' ssh deploy@build-01", password(13, "h30"))
    s.pos(
        "openssl-pass",
        "openssl pkcs12 -export -in cert.pem -inkey key.pem -passout pass:{s} -out bundle.p12",
        password(14, "h31"),
    )
    s.pos(
        "keytool-storepass",
        "keytool -importkeystore -srckeystore in.jks -storepass {s} -destkeystore out.p12",
        password(12, "h32"),
    )
    s.pos(
        "mongosh",
        'mongosh "mongodb+srv://cluster0.acme.mongodb.net/ledger" --username app --password {s}',
        password(15, "h33"),
    )
    s.pos(
        "helm-repo",
        "helm repo add internal https://charts.internal --username ci --password {s}",
        password(17, "h34"),
    )
    s.pos(
        "kubectl-token",
        "kubectl --server https://k8s.internal:6443 --token={s} get pods",
        rnd(40, URLSAFE, "h35"),
    )
    s.pos(
        "az-login",
        "az login --service-principal -u 4f1c2a3b-9d8e-4f7a-b6c5-d4e3f2a1b0c9 -p {s} --tenant acme",
        rnd(34, URLSAFE + "~.", "h36"),
    )
    s.pos("zip-password", "zip -P {s} -r backup.zip exports/", password(12, "h37"))
    s.pos(
        "ldap-bind",
        "ldapsearch -x -H ldaps://ldap.internal -D cn=admin,dc=acme -w {s} '(uid=ana)'",
        password(14, "h38"),
    )
    s.pos("smbclient", "smbclient //fs.internal/share -U svc_backup%{s}", password(13, "h39"))
    s.pos(
        "wget-password",
        "wget --user=ci --password={s} https://artifacts.internal/build.tgz",
        password(14, "h40"),
    )
    s.pos("htpasswd", "htpasswd -b -c .htpasswd admin {s}", password(13, "h41"))
    s.pos(
        "docker-run-env", "docker run -e POSTGRES_PASSWORD={s} -p 5432:5432 postgres:16", password(14, "h42")
    )
    s.pos("aws-configure", "aws configure set aws_secret_access_key {s}", rnd(40, B64, "h43"))
    # Headers, cookies and query strings
    s.pos("api-key-header", 'curl -H "X-API-Key: {s}" https://api.internal/v2/ledger', rnd(32, seed="h44"))
    s.pos(
        "private-token-header",
        "curl --header 'PRIVATE-TOKEN: {s}' https://git.internal/api/v4/projects",
        rnd(26, URLSAFE, "h45"),
    )
    s.pos("cookie-header", "Cookie: sessionid={s}; csrftoken=abc", rnd(32, LOWER + DIGITS, "h46"))
    s.pos(
        "query-api-key",
        "GET https://api.weather.internal/v1/forecast?city=Oslo&api_key={s}&units=metric",
        rnd(32, HEX, "h47"),
    )
    s.pos("apikey-header", 'curl -H "apikey: {s}" https://db.internal/rest/v1/orders', rnd(40, seed="h48"))
    s.pos(
        "form-secret",
        'curl -d "grant_type=client_credentials&client_secret={s}" https://auth.internal/token',
        rnd(36, URLSAFE, "h49"),
    )
    # Config files and code
    s.pos("npmrc-password", "//npm.internal/:_password={s}", b64(12, "h50"))
    s.pos("wireguard-key", "[Interface]\nPrivateKey = {s}\nAddress = 10.0.0.2/32", b64(32, "h51"))
    s.pos("ansible-become", "build-01 ansible_host=10.0.4.2 ansible_become_pass={s}", password(14, "h52"))
    s.pos("spring-properties", "spring.datasource.password={s}", password(16, "h53"))
    s.pos("django-secret", "DJANGO_SECRET_KEY='{s}'", rnd(50, URLSAFE + "!@#%^&*(-_=+)", "h54"))
    s.pos(
        "json-client-secret", '{"client_id": "ledger-web", "client_secret": "{s}"}', rnd(35, URLSAFE, "h55")
    )
    s.pos("toml-api-token", 'api_token = "{s}"', rnd(36, seed="h56"))
    s.pos("rails-secret-key-base", "secret_key_base: {s}", rnd(128, HEX, "h57"))
    s.pos(
        "consul-token",
        "CONSUL_HTTP_TOKEN=9c1d7e2a-5b4f-4e8a-9d3c-2b1a0f9e8d7c",
        "9c1d7e2a-5b4f-4e8a-9d3c-2b1a0f9e8d7c",
    )
    s.pos("mycnf", "[client]\nuser = ledger\npassword = {s}\nhost = db.internal", password(15, "h58"))
    s.pos(
        "s3cfg",
        "[default]\naccess_key = AKIA" + rnd(16, UPPER + "234567", "h59") + "\nsecret_key = {s}",
        rnd(40, B64, "h60"),
    )
    s.pos(
        "pypirc",
        "[internal]\nrepository = https://pypi.internal\nusername = ci\npassword = {s}",
        password(16, "h61"),
    )
    s.pos(
        "powershell-securestring",
        "$pw = ConvertTo-SecureString '{s}' -AsPlainText -Force",
        password(14, "h62"),
    )
    s.pos("csharp-credential", 'var cred = new NetworkCredential("svc_ledger", "{s}");', password(15, "h63"))
    s.pos("python-auth-tuple", 'requests.get(url, auth=("svc", "{s}"))', password(15, "h64"))
    s.pos("go-basic-auth", 'req.SetBasicAuth("svc", "{s}")', password(14, "h65"))
    s.pos("yaml-nested", "database:\n  host: db.internal\n  user: ledger\n  pass: {s}", password(14, "h66"))
    s.pos(
        "rclone",
        "[backup]\ntype = s3\naccess_key_id = AKIA"
        + rnd(16, UPPER + "234567", "h67")
        + "\nsecret_access_key = {s}",
        rnd(40, B64, "h68"),
    )


def _negatives(s: CaseSet) -> None:
    s.neg("dash-p-flag", "mkdir -p build/out && cp -p dist/* build/out/")
    s.neg("dash-p-flag", "docker run -p 8080:80 -p 8443:443 nginx:1.27")
    s.neg("dash-p-flag", "ssh -p 2222 deploy@build-01 'systemctl restart ledger'")
    s.neg("dash-p-flag", "git log -p --follow src/ledger/api.py")
    s.neg("env-reference", 'redis-cli -h cache.internal -a "$REDIS_PASSWORD" ping')
    s.neg("env-reference", 'psql "host=db.internal user=app password=${PGPASSWORD} dbname=ledger"')
    s.neg(
        "env-reference",
        'helm repo add internal https://charts.internal --username ci --password "$HELM_PASSWORD"',
    )
    s.neg("env-reference", 'zip -r -P "$ZIP_PASSWORD" out.zip exports/')
    s.neg(
        "env-reference", "openssl pkcs12 -export -passin env:KEYSTORE_PASS -passout file:/run/secrets/p12pass"
    )
    s.neg("env-reference", 'api_key = os.environ["API_KEY"]')
    s.neg("env-reference", "Authorization: Bearer ${{ secrets.DEPLOY_TOKEN }}")
    s.neg("env-reference", 'auth=("svc", os.environ["SVC_PASSWORD"])')
    s.neg("env-reference", "$pw = ConvertTo-SecureString $env:SVC_PASSWORD -AsPlainText -Force")
    s.neg("stdin", 'echo "$TOKEN" | docker login ghcr.io -u ci --password-stdin')
    s.neg("stdin", "sshpass -f ~/.ssh/build.pass ssh deploy@build-01")
    s.neg("prompt", "mysql -u root -p ledger")
    s.neg("prompt", "ldapsearch -x -D cn=admin,dc=acme -W '(uid=ana)'")
    s.neg("placeholder", "X-API-Key: {{ api_key }}")
    s.neg("placeholder", "Authorization: Bearer <token>")
    s.neg("placeholder", '"client_secret": "<your client secret>"')
    s.neg("placeholder", "https://api.weather.internal/v1/forecast?city=Oslo&api_key=YOUR_API_KEY")
    s.neg(
        "placeholder",
        "DefaultEndpointsProtocol=https;AccountName=acmelogs;AccountKey=<storage-key>;EndpointSuffix=core.windows.net",
    )
    s.neg("placeholder", "password: !vault |\n  $ANSIBLE_VAULT;1.1;AES256")
    s.neg("placeholder", "PrivateKey = (hidden, see the vault)")
    s.neg("placeholder", "jdbc:postgresql://db.internal:5432/ledger?user=app&password=")
    s.neg("url-no-password", "git clone https://ana@git.internal.acme.dev/ledger.git")
    s.neg("url-no-password", "git@github.com:acme/ledger.git")
    s.neg("url-no-password", "smbclient //fs.internal/share -U svc_backup")
    s.neg("package-version", "npm install @acme/ui@2.3.1 @acme/icons@1.0.0-rc.2")
    s.neg("package-version", "pip install 'token-bucket==0.3.0' 'keyring>=24.3'")
    s.neg("git-sha", "commit: " + rnd(40, HEX, "n1"))
    s.neg("image-digest", "image: ghcr.io/acme/ledger@sha256:" + rnd(64, HEX, "n2"))
    s.neg("integrity", '"integrity": "sha512-' + b64(64, "n3") + '"')
    s.neg("uuid", "request_id: 3b2c1d0e-4f5a-4b6c-8d7e-9f0a1b2c3d4e")
    s.neg("public-key", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + rnd(43, B64, "n4") + " ana@laptop")
    s.neg("public-key", "PUBLISHABLE_KEY=pk" + "_live_" + rnd(24, seed="n5"))
    s.neg("setting", "password_min_length = 12\ntoken_ttl_seconds = 900")
    s.neg("setting", "helm upgrade ledger ./chart --set image.tag=3f9a1c2 --set replicas=3")
    s.neg("setting", "kubectl --kubeconfig ~/.kube/config --context prod get pods")
    s.neg("prose", "Rotate the Pinecone API key in the vault; never paste it into a rule or a ticket.")
    s.neg("prose", "The session token expires after 15 minutes; refresh it with `--token-file`.")
    s.neg("prose", "Set `SameSite=Lax` on the session cookie and keep `HttpOnly` on.")
    s.neg(
        "prose",
        "Pass the password with `--password-stdin`, never with `-p`, so it stays out of shell history.",
    )
    s.neg("data-uri", "![logo](data:image/png;base64," + b64(48, "n6") + ")")
    s.neg("base64-words", "password: cGFzc3dvcmQ=")
    s.neg("code", "req.SetBasicAuth(cfg.User, cfg.Password)")
    s.neg("code", "var cred = new NetworkCredential(user, password);")
    s.neg("colour", "color: #1a2b3c; background: #fafafa;")


def heldout_cases() -> list[Case]:
    s = CaseSet("held-out")
    _positives(s)
    _negatives(s)
    return s.cases
